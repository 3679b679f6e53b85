// test_bench.cpp - `stencilrt bench` on the CPU backend (its JSON and CSV agree with
// each other and with the frame they measured; bad flags exit 2) and the tuning cache
// (round trip, corrupt files are ignored with a warning).
//
// Runs the stencilrt binary (SRT_BINARY, or the SRT_BINARY environment variable).
#include "render/tuning_cache.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string binary() {
    const char* v = std::getenv("SRT_BINARY");
    return v && *v ? std::string(v) : std::string(SRT_BINARY);
}

std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

fs::path temp_dir(const std::string& name) {
    const fs::path d = fs::path(::testing::TempDir()) / ("srt_bench_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void write_file(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

struct BenchRun {
    int code = -1;
    std::string out, err;
};

// Runs `stencilrt bench ARGS` in `dir` with the tuning cache off and no TTY.
BenchRun bench(const fs::path& dir, const std::string& args, const std::string& env = "SRT_NO_TUNING=1") {
    const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
    const std::string cmd = "cd " + quote(dir.string()) + " && env " + env + " " + quote(binary()) + " bench " +
                            args + " >" + quote(out.string()) + " 2>" + quote(err.string()) + " </dev/null";
    const int rc = std::system(cmd.c_str());
    BenchRun r;
    r.code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> v;
    std::string item;
    std::stringstream ss(s);
    while (std::getline(ss, item, sep)) v.push_back(item);
    if (!s.empty() && s.back() == sep) v.push_back("");
    return v;
}

constexpr const char* kSmall = "--backend cpu -W 64 -H 36 --depths 1,2 --frames 2 --warmup 0";

// The default sweep is every mode; the CPU runs two of them, the stencil wavefront and
// the megakernel, and both trace the same rays at every depth.
TEST(BenchCli, CpuDefaultSweepRunsStencilAndMegakernel) {
    const fs::path dir = temp_dir("sweep-all");
    const BenchRun r = bench(dir, std::string(kSmall) + " --json x.json");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    const json doc = json::parse(read_file(dir / "x.json"));
    EXPECT_EQ(doc["settings"]["modes"], json::array({"stencil", "megakernel"}));
    const json& results = doc["results"];
    ASSERT_EQ(results.size(), 4u);
    for (size_t k = 0; k < 2; ++k) {
        EXPECT_EQ(results[k]["mode"], "stencil");
        EXPECT_EQ(results[k + 2]["mode"], "megakernel");
        EXPECT_EQ(results[k]["rays_traced"], results[k + 2]["rays_traced"]) << "depth " << k + 1;
        const json& a = results[k]["bounces"];
        const json& b = results[k + 2]["bounces"];
        ASSERT_EQ(a.size(), b.size());
        for (size_t n = 0; n < a.size(); ++n) {
            EXPECT_EQ(a[n]["live_rays"], b[n]["live_rays"]);
            EXPECT_EQ(a[n]["live_warps"], b[n]["live_warps"]);
        }
        EXPECT_TRUE(results[k + 2]["stage_ms"].contains("paths"));
    }
    // The 2012 figure that the dead-bounce table compares with is named, not "seed".
    EXPECT_NE(r.out.find("the GTX 560 stencil tracer (2012) kept 0.63 of its depth-1 FPS at depth 6"),
              std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("seed"), std::string::npos) << r.out;
}

TEST(BenchCli, CpuSweepWritesConsistentJsonAndCsv) {
    const fs::path dir = temp_dir("sweep");
    const BenchRun r = bench(dir, std::string(kSmall) + " --modes stencil,flags,compact --json x.json --csv y.csv");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    // Not a terminal: no progress bar, one final line.
    EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("bench: 2 configurations"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("the stencil rows stand for flags, compact and pool too"), std::string::npos) << r.out;

    const json doc = json::parse(read_file(dir / "x.json"));
    EXPECT_EQ(doc["format"], "stencilrt-bench/1");
    EXPECT_EQ(doc["kind"], "sweep");
    EXPECT_FALSE(doc["git_revision"].get<std::string>().empty());
    EXPECT_EQ(doc["machine"]["backend"], "cpu");
    EXPECT_GT(doc["machine"]["host"]["threads"].get<int>(), 0);
    EXPECT_FALSE(doc["machine"]["host"]["cpu_model"].get<std::string>().empty());
    const json& s = doc["settings"];
    EXPECT_EQ(s["width"], 64);
    EXPECT_EQ(s["height"], 36);
    EXPECT_EQ(s["spp"], 1);
    EXPECT_EQ(s["frames"], 2);
    EXPECT_EQ(s["warmup"], 0);
    EXPECT_EQ(s["depths"], json::array({1, 2}));
    EXPECT_EQ(s["modes"], json::array({"stencil"}));  // the CPU collapses the modes
    EXPECT_EQ(doc["scene"]["hash"], "builtin:default");
    EXPECT_GE(doc["scene"]["bvh_build_ms"].get<double>(), 0.0);
    EXPECT_GE(doc["scene"]["load_ms"].get<double>(), 0.0);
    EXPECT_FALSE(doc["notes"].empty());

    const json& results = doc["results"];
    ASSERT_EQ(results.size(), 2u);
    for (size_t k = 0; k < results.size(); ++k) {
        const json& res = results[k];
        SCOPED_TRACE("result " + std::to_string(k));
        EXPECT_EQ(res["mode"], "stencil");
        EXPECT_EQ(res["depth"], int(k) + 1);
        EXPECT_EQ(res["frames"], 2);
        EXPECT_EQ(res["frame_ms_samples"].size(), 2u);
        const json& f = res["frame_ms"];
        const double med = f["median"];
        EXPECT_GT(med, 0.0);
        EXPECT_LE(f["min"].get<double>(), f["p10"].get<double>());
        EXPECT_LE(f["p10"].get<double>(), med);
        EXPECT_LE(med, f["p90"].get<double>());
        EXPECT_LE(f["p90"].get<double>(), f["max"].get<double>());
        EXPECT_GE(f["mad"].get<double>(), 0.0);
        EXPECT_NEAR(res["fps"].get<double>(), 1000.0 / med, 1e-6 * res["fps"].get<double>());
        const double rays = res["rays_traced"].get<double>();
        EXPECT_GT(res["rays_per_s"].get<double>(), 0.0);
        EXPECT_NEAR(res["rays_per_s"].get<double>(), rays / (med * 1e-3), 1e-6 * res["rays_per_s"].get<double>());
        EXPECT_EQ(res["stage_ms"].size(), 5u);
        for (const char* st : {"generate", "intersect", "shade", "reflect", "resolve"})
            EXPECT_GE(res["stage_ms"][st].get<double>(), 0.0) << st;

        const json& b = res["bounces"];
        ASSERT_GE(b.size(), 1u);
        EXPECT_LE(b.size(), size_t(k + 1));
        EXPECT_EQ(b[0]["live_rays"], 64 * 36);      // every primary ray is alive
        EXPECT_EQ(b[0]["live_warps"], 64 * 36 / 32);
        EXPECT_EQ(b[0]["warps"], 64 * 36 / 32);
        double live_sum = 0;
        for (size_t i = 0; i < b.size(); ++i) {
            const uint64_t lr = b[i]["live_rays"], lw = b[i]["live_warps"];
            EXPECT_LE(lw * 32, 32 * b[0]["warps"].get<uint64_t>());
            EXPECT_GE(lw * 32, lr);  // a live warp holds at most 32 live rays
            EXPECT_LE(lr, lw * 32);
            EXPECT_GE(lr, lw);       // ... and at least one
            if (i) EXPECT_LE(lr, b[i - 1]["live_rays"].get<uint64_t>());
            live_sum += double(lr);
        }
        EXPECT_GE(rays, live_sum);  // plus shadow rays
    }
    // The shallow run's bounce 0 is the deep run's bounce 0 (its counts; its stage times
    // are measured again).
    auto counts = [](json b) {
        b.erase("intersect_ms");
        b.erase("shade_ms");
        return b;
    };
    EXPECT_EQ(counts(results[0]["bounces"][0]), counts(results[1]["bounces"][0]));

    // CSV: a header and one row per mode x depth, every row as wide as the header.
    const std::vector<std::string> lines = split(read_file(dir / "y.csv"), '\n');
    ASSERT_GE(lines.size(), 3u);
    const std::vector<std::string> header = split(lines[0], ',');
    EXPECT_EQ(header[0], "mode");
    EXPECT_EQ(header[1], "depth");
    size_t rows = 0;
    for (size_t i = 1; i < lines.size(); ++i) {
        if (lines[i].empty()) continue;
        ++rows;
        const std::vector<std::string> cells = split(lines[i], ',');
        EXPECT_EQ(cells.size(), header.size()) << lines[i];
        EXPECT_EQ(cells[0], "stencil");
        EXPECT_EQ(cells[1], std::to_string(rows));
    }
    EXPECT_EQ(rows, results.size());
    auto col = [&](const std::string& name) {
        for (size_t i = 0; i < header.size(); ++i)
            if (header[i] == name) return i;
        ADD_FAILURE() << "no CSV column " << name;
        return size_t(0);
    };
    const std::vector<std::string> row1 = split(lines[1], ',');
    EXPECT_EQ(row1[col("live_rays_b0")], std::to_string(64 * 36));
    EXPECT_EQ(row1[col("live_rays_b1")], "");  // depth 1 traces no bounce 1
    EXPECT_NEAR(std::stod(row1[col("median_ms")]), results[0]["frame_ms"]["median"].get<double>(), 1e-5);

    // No temporary files left beside the outputs.
    for (const auto& e : fs::directory_iterator(dir))
        EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
}

TEST(BenchCli, DepthRangeAndListAreEquivalent) {
    const fs::path dir = temp_dir("depths");
    const BenchRun r = bench(dir, "--backend cpu -W 32 -H 8 --depths 1..3,5 --frames 1 --warmup 0 --modes stencil --json d.json");
    ASSERT_EQ(r.code, 0) << r.err;
    const json doc = json::parse(read_file(dir / "d.json"));
    EXPECT_EQ(doc["settings"]["depths"], json::array({1, 2, 3, 5}));
    EXPECT_EQ(doc["results"].size(), 4u);
    EXPECT_TRUE(doc["notes"].empty());  // stencil alone: nothing collapsed
}

TEST(BenchCli, BadFlagsExitTwoWithAMessage) {
    const fs::path dir = temp_dir("bad");
    struct Case {
        std::string args, says;
    } cases[] = {
        {"--depths 0", "--depths"},      {"--depths 3..1", "--depths"}, {"--depths 65", "--depths"},
        {"--depths 1,,x", "--depths"},   {"--depths ''", "--depths"},   {"--modes bogus", "--modes"},
        {"--frames 0", "--frames"},      {"--backend gpu", "--backend"}, {"--no-such-flag", "no-such-flag"},
        {"--skip", "CUDA backend"},      {"--tune", "CUDA backend"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.args);
        const BenchRun r = bench(dir, "--backend cpu -W 16 -H 16 --json bad.json " + c.args);
        EXPECT_EQ(r.code, 2) << r.out << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(dir / "bad.json"));
    }
}

// A sweep on the GPU runs for minutes: an output it could not write is refused before the
// first frame, as render refuses -o, not after the tables.
TEST(BenchCli, OutputPathsAreCheckedBeforeTheFirstFrame) {
    const fs::path dir = temp_dir("early");
    fs::create_directories(dir / "adir");
    struct Case {
        std::string args, says;
    } cases[] = {
        {"--json nodir/b.json", "--json nodir/b.json: directory"},
        {"--csv nodir/b.csv", "--csv nodir/b.csv: directory"},
        {"--plot nodir/p.png", "--plot nodir/p.png: directory"},
        {"--json adir", "--json adir: is a directory"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.args);
        const BenchRun r = bench(dir, "--backend cpu -W 64 -H 36 --depths 1..4 --frames 2 " + c.args);
        EXPECT_EQ(r.code, 2) << r.out << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
        EXPECT_EQ(r.out.find("median ms"), std::string::npos) << "the sweep ran:\n" << r.out;
        EXPECT_EQ(r.err.find("configurations"), std::string::npos) << "the sweep ran:\n" << r.err;
    }
}

// On the CPU the tables say once what runs there: no launches, two modes standing for five,
// and a dead-bounce row that cannot be filled says which depths would fill it.
TEST(BenchCli, CpuTablesSayWhatTheCpuRuns) {
    const fs::path dir = temp_dir("cpu_tables");
    const BenchRun r = bench(dir, std::string(kSmall) + " --modes all --launch both");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    size_t n = 0;
    for (size_t at = r.out.find("(CPU executor: no launches"); at != std::string::npos;
         at = r.out.find("(CPU executor: no launches", at + 1))
        ++n;
    EXPECT_EQ(n, 1u) << r.out;
    EXPECT_EQ(r.out.find(" graph "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find(" stream "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("stream launches"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("host clock around each stage"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("measure it with --depths 1.."), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find("note: the CPU executor"), std::string::npos) << r.err;  // said in the table instead
}

TEST(BenchCli, HelpListsTheBenchOptions) {
    const fs::path dir = temp_dir("help");
    const BenchRun r = bench(dir, "--help");
    EXPECT_EQ(r.code, 0);
    for (const char* opt : {"--depths", "--modes", "--frames", "--warmup", "--csv", "--json", "--plot", "--skip", "--tune"})
        EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
}

TEST(BenchCli, PlotWritesAPng) {
    if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "no matplotlib for /usr/bin/python3";
    const fs::path dir = temp_dir("plot");
    const BenchRun r = bench(dir, std::string(kSmall) + " --plot p.png");
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string png = read_file(dir / "p.png");
    ASSERT_GT(png.size(), 1000u);
    EXPECT_EQ(png.substr(1, 3), "PNG");
}

TEST(BenchCli, CorruptTuningCacheDoesNotStopTheBench) {
    const fs::path dir = temp_dir("corrupt_cache");
    fs::create_directories(dir / "cache" / "stencilrt");
    write_file(dir / "cache" / "stencilrt" / "tuning.json", "{ not json");
    const BenchRun r = bench(dir, std::string(kSmall) + " --json x.json", "XDG_CACHE_HOME=" + quote((dir / "cache").string()));
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir / "x.json"));
}

// ---------------------------------------------------------------------------
// The tuning cache
// ---------------------------------------------------------------------------

// Points XDG_CACHE_HOME at a fresh directory for one test and restores it after.
class TuningCacheTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = temp_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
        const char* old = std::getenv("XDG_CACHE_HOME");
        had_ = old != nullptr;
        if (old) old_ = old;
        ::setenv("XDG_CACHE_HOME", dir_.c_str(), 1);
    }
    void TearDown() override {
        if (had_) ::setenv("XDG_CACHE_HOME", old_.c_str(), 1);
        else ::unsetenv("XDG_CACHE_HOME");
    }
    fs::path dir_;
    bool had_ = false;
    std::string old_;
};

srt::TuningEntry entry(const std::string& gpu, int sms, const std::string& cls, int intersect) {
    srt::TuningEntry e;
    e.key = {gpu, sms, cls};
    e.launch.generate = 256;
    e.launch.intersect = intersect;
    e.launch.shade = 128;
    e.launch.reflect = 512;
    e.launch.resolve = 1024;
    e.defaults.intersect = 768;
    e.created = "2026-01-01T00:00:00Z";
    e.revision = "abc1234";
    e.scene = "builtin:default";
    e.width = 1920;
    e.height = 1080;
    e.depth = 8;
    e.mode = "stencil";
    e.default_ms = 2.5;
    e.tuned_ms = 2.25;
    return e;
}

TEST_F(TuningCacheTest, PathFollowsXdgCacheHome) {
    EXPECT_EQ(srt::tuning_cache_path(), (dir_ / "stencilrt" / "tuning.json").string());
    ::setenv("XDG_CACHE_HOME", "relative/dir", 1);  // invalid per the XDG spec: falls back to HOME
    const char* home = std::getenv("HOME");
    if (home && *home)
        EXPECT_EQ(srt::tuning_cache_path(), (fs::path(home) / ".cache" / "stencilrt" / "tuning.json").string());
}

TEST_F(TuningCacheTest, RoundTrip) {
    const std::string path = srt::tuning_cache_path();
    std::string warning = "x";
    srt::TuningCache empty = srt::TuningCache::load(path, &warning);
    EXPECT_TRUE(empty.entries().empty());
    EXPECT_TRUE(warning.empty()) << "a missing file is not a warning: " << warning;

    srt::TuningCache c;
    c.put(entry("NVIDIA H100 80GB HBM3", 132, "<=2.1MP", 64));
    c.put(entry("NVIDIA H100 80GB HBM3", 132, ">2.1MP", 96));
    c.put(entry("NVIDIA H100 80GB HBM3", 114, "<=2.1MP", 192));  // another SKU, same name
    c.put(entry("NVIDIA H100 80GB HBM3", 132, "<=2.1MP", 128));  // replaces the first
    EXPECT_EQ(c.entries().size(), 3u);
    c.save(path);  // creates $XDG_CACHE_HOME/stencilrt/
    ASSERT_TRUE(fs::exists(path));

    const srt::TuningCache back = srt::TuningCache::load(path, &warning);
    EXPECT_TRUE(warning.empty()) << warning;
    ASSERT_EQ(back.entries().size(), 3u);
    const srt::TuningEntry* e = back.find({"NVIDIA H100 80GB HBM3", 132, "<=2.1MP"});
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->launch.intersect, 128);
    EXPECT_TRUE(e->launch == entry("", 0, "", 128).launch);
    EXPECT_EQ(e->defaults.intersect, 768);
    EXPECT_EQ(e->revision, "abc1234");
    EXPECT_EQ(e->width, 1920);
    EXPECT_DOUBLE_EQ(e->tuned_ms, 2.25);
    EXPECT_EQ(back.find({"NVIDIA H100 80GB HBM3", 114, "<=2.1MP"})->launch.intersect, 192);
    EXPECT_EQ(back.find({"NVIDIA H100 80GB HBM3", 132, ">2.1MP"})->launch.intersect, 96);
    EXPECT_EQ(back.find({"NVIDIA H100 80GB HBM3", 132, "<=0.5MP"}), nullptr);
    EXPECT_EQ(back.find({"NVIDIA H200", 132, "<=2.1MP"}), nullptr);
    for (const auto& f : fs::directory_iterator(fs::path(path).parent_path()))
        EXPECT_EQ(f.path().filename(), "tuning.json") << "temporary file left behind";
}

TEST_F(TuningCacheTest, CorruptFileIsIgnoredWithAWarning) {
    const std::string path = srt::tuning_cache_path();
    fs::create_directories(fs::path(path).parent_path());
    for (const std::string text : {std::string("{ \"entries\": [ {\"gpu\": "), std::string("\x89PNG\r\n garbage"),
                                   std::string(""), std::string("[1, 2, 3]"), std::string("{\"entries\": 5}")}) {
        SCOPED_TRACE(text);
        write_file(path, text);
        std::string warning;
        srt::TuningCache c;
        ASSERT_NO_THROW(c = srt::TuningCache::load(path, &warning));
        EXPECT_TRUE(c.entries().empty());
        EXPECT_NE(warning.find(path), std::string::npos) << warning;
    }
}

TEST_F(TuningCacheTest, MalformedEntriesAreSkippedOthersKept) {
    const std::string path = srt::tuning_cache_path();
    fs::create_directories(fs::path(path).parent_path());
    write_file(path, R"({"entries": [
        {"gpu": "G", "sm_count": 10, "resolution_class": "<=2.1MP", "launch": {"intersect": 100}},
        {"gpu": "G", "sm_count": 10, "resolution_class": ">2.1MP", "launch": {"intersect": 2048}},
        {"gpu": "G", "sm_count": 10, "resolution_class": "<=0.5MP", "launch": {"intersect": "big"}},
        {"gpu": "", "sm_count": 10, "resolution_class": "<=0.5MP", "launch": {}},
        7,
        {"gpu": "G", "sm_count": 12, "resolution_class": "<=2.1MP", "launch": {"intersect": 256, "shade": 64}}
    ]})");
    std::string warning;
    const srt::TuningCache c = srt::TuningCache::load(path, &warning);
    ASSERT_EQ(c.entries().size(), 1u);
    EXPECT_EQ(c.entries()[0].key.sm_count, 12);
    EXPECT_EQ(c.entries()[0].launch.intersect, 256);
    EXPECT_EQ(c.entries()[0].launch.shade, 64);
    EXPECT_EQ(c.entries()[0].launch.generate, 0);  // absent = the executor's default
    EXPECT_NE(warning.find("5 malformed"), std::string::npos) << warning;
}

TEST_F(TuningCacheTest, SaveReplacesACorruptFile) {
    const std::string path = srt::tuning_cache_path();
    fs::create_directories(fs::path(path).parent_path());
    write_file(path, "garbage");
    srt::TuningCache c;
    c.put(entry("G", 1, "<=0.5MP", 32));
    c.save(path);
    std::string warning;
    EXPECT_EQ(srt::TuningCache::load(path, &warning).entries().size(), 1u);
    EXPECT_TRUE(warning.empty()) << warning;
}

TEST(Tuning, ResolutionClasses) {
    EXPECT_EQ(srt::resolution_class(640, 480), "<=0.5MP");
    EXPECT_EQ(srt::resolution_class(64, 36), "<=0.5MP");
    EXPECT_EQ(srt::resolution_class(1024, 768), "<=2.1MP");
    EXPECT_EQ(srt::resolution_class(1920, 1080), "<=2.1MP");
    EXPECT_EQ(srt::resolution_class(2560, 1440), ">2.1MP");
    EXPECT_EQ(srt::resolution_class(3840, 2160), ">2.1MP");
}

TEST(Tuning, EnvSwitch) {
    const char* old = std::getenv("SRT_NO_TUNING");
    const std::string saved = old ? old : "";
    ::setenv("SRT_NO_TUNING", "1", 1);
    EXPECT_TRUE(srt::tuning_disabled_by_env());
    ::setenv("SRT_NO_TUNING", "0", 1);
    EXPECT_FALSE(srt::tuning_disabled_by_env());
    ::unsetenv("SRT_NO_TUNING");
    EXPECT_FALSE(srt::tuning_disabled_by_env());
    if (old) ::setenv("SRT_NO_TUNING", saved.c_str(), 1);
}

}  // namespace
