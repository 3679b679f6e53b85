// cmd_bench.cpp - `stencilrt bench`: FPS per bounce depth, per dead-ray mode, with the
// live rays and live warps of every bounce (issue #5; docs/benchmark.md).
//
//   bench [SCENE] --depths 1..8 --modes stencil,flags,compact ...   the sweep
//   bench --skip                                                   dead rays skipped per second
//   bench --tune                                                   launch sizes, cached per GPU
//
// Frame times come from Executor::timed_frame (CUDA events around generate..resolve on
// the GPU, the host clock on the CPU): no display, no read-back, no file output. Counting
// live rays costs time, so each configuration's frames are timed WITHOUT stats and one
// more frame is rendered with stats for the counts, the rays traced and the stage times.
#include "app/app.h"
#include "app/tuning.h"
#include "revision.h"  // generated: SRT_REVISION
#include "bench/dead_bounce.h"

#include "core/output_file.h"
#include "core/error.h"
#include "render/scene_gpu.h"
#include "render/stencil.h"
#include "render/tuning_cache.h"

#if defined(SRT_HAVE_CUDA)
#include "cuda/cuda_executor.h"
#include "cuda/device_info.h"
#include "cuda/skip_bench.h"
#endif

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace srt::app {
namespace {

using Clock = std::chrono::steady_clock;
using ojson = nlohmann::ordered_json;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------
struct BenchOptions {
    SceneOptions so;
    int width = 1920, height = 1080, spp = 1;
    std::string warp_shape = "8x4";
    std::string depths_text = "1..8";
    std::string modes_text = "stencil,flags,compact";
    std::string launches_text = "graph";
    int frames = 50, warmup = 5;
    std::string backend = "auto";
    std::string csv, json, plot;
    bool skip = false, tune = false, no_tuning = false, no_progress = false;
    uint32_t skip_rays = 1u << 24;
    int skip_iterations = 200;

    std::vector<int> depths;
    std::vector<DeadRayMode> modes;
    std::vector<LaunchMode> launches;
};

// "1..8", "1,2,4,8", "1..3,8": items are N or A..B, 1 <= depth <= 64, A <= B.
std::vector<int> parse_depths(const std::string& text) {
    auto number = [&](const std::string& s) {
        char* end = nullptr;
        errno = 0;
        const long v = std::strtol(s.c_str(), &end, 10);
        if (s.empty() || *end != '\0' || errno != 0)
            throw InputError("--depths: '" + s + "' in '" + text + "' is not a whole number");
        if (v < 1 || v > 64)
            throw InputError("--depths: " + s + " is out of range (a depth is 1 to 64; 1 = primary rays only)");
        return int(v);
    };
    std::vector<int> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        const size_t dots = item.find("..");
        if (dots == std::string::npos) {
            out.push_back(number(item));
            continue;
        }
        const int a = number(item.substr(0, dots)), b = number(item.substr(dots + 2));
        if (a > b) throw InputError("--depths: range '" + item + "' runs backwards (write " +
                                    std::to_string(b) + ".." + std::to_string(a) + ")");
        for (int d = a; d <= b; ++d) out.push_back(d);
    }
    if (out.empty() || text.empty() || text.back() == ',')
        throw InputError("--depths: '" + text + "' is empty; give e.g. 1..8 or 1,2,4,8");
    // Ascending and without repeats, so tables and plots read left to right.
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<DeadRayMode> parse_modes(const std::string& text) {
    std::vector<DeadRayMode> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item == "all") {
            for (DeadRayMode m : {DeadRayMode::Stencil, DeadRayMode::Flags, DeadRayMode::Compact})
                if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
            continue;
        }
        DeadRayMode m;
        if (!parse_mode(item, m))
            throw InputError("--modes: unknown mode '" + item + "' (stencil, flags, compact or all)");
        if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
    }
    if (out.empty()) throw InputError("--modes: '" + text + "' is empty; give e.g. stencil,flags,compact");
    return out;
}

// "graph", "stream", "graph,stream" or "both".
std::vector<LaunchMode> parse_launches(const std::string& text) {
    std::vector<LaunchMode> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        std::vector<LaunchMode> add;
        LaunchMode l;
        if (item == "both") add = {LaunchMode::Graph, LaunchMode::Stream};
        else if (parse_launch_mode(item, l)) add = {l};
        else throw InputError("--launch: unknown launch mode '" + item + "' (graph, stream or both)");
        for (LaunchMode a : add)
            if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
    }
    if (out.empty()) throw InputError("--launch: '" + text + "' is empty; give graph, stream or both");
    return out;
}

// ---------------------------------------------------------------------------
// Statistics over the timed frames
// ---------------------------------------------------------------------------
struct Spread {
    double median = 0, mean = 0, min = 0, max = 0, p10 = 0, p90 = 0, mad = 0;
};

double percentile_sorted(const std::vector<double>& v, double q) {
    if (v.empty()) return 0.0;
    const double pos = q * double(v.size() - 1);
    const size_t lo = size_t(std::floor(pos)), hi = size_t(std::ceil(pos));
    return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
}

Spread spread_of(std::vector<double> v) {
    Spread s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    s.median = percentile_sorted(v, 0.5);
    s.p10 = percentile_sorted(v, 0.1);
    s.p90 = percentile_sorted(v, 0.9);
    s.min = v.front();
    s.max = v.back();
    double sum = 0;
    for (double x : v) sum += x;
    s.mean = sum / double(v.size());
    std::vector<double> dev;
    for (double x : v) dev.push_back(std::fabs(x - s.median));
    std::sort(dev.begin(), dev.end());
    s.mad = percentile_sorted(dev, 0.5);
    return s;
}

ojson spread_json(const Spread& s) {
    return ojson{{"median", s.median}, {"mean", s.mean}, {"min", s.min}, {"max", s.max},
                 {"p10", s.p10},       {"p90", s.p90},   {"mad", s.mad}};
}

// ---------------------------------------------------------------------------
// Progress: one updating line on a terminal; on a pipe (CI logs) only a final line.
// ---------------------------------------------------------------------------
class Progress {
public:
    Progress(std::string what, int total, bool enabled)
        : what_(std::move(what)), total_(total), tty_(enabled && ::isatty(STDERR_FILENO)),
          enabled_(enabled), t0_(Clock::now()) {
        std::fflush(stdout);  // what was printed so far comes before the progress line
    }
    void step(const std::string& label) {
        ++done_;
        if (!tty_) return;
        const int width = 30;
        const int filled = total_ ? done_ * width / total_ : width;
        const double s = ms_since(t0_) * 1e-3;
        const double eta = done_ ? s / done_ * (total_ - done_) : 0.0;
        std::fprintf(stderr, "\r\033[K%s [%s%s] %d/%d %s  %.0fs, ~%.0fs left", what_.c_str(),
                     std::string(size_t(filled), '#').c_str(), std::string(size_t(width - filled), '.').c_str(),
                     done_, total_, label.c_str(), s, eta);
        std::fflush(stderr);
    }
    void finish(const std::string& summary) {
        if (!enabled_) return;
        std::fflush(stdout);
        if (tty_) std::fprintf(stderr, "\r\033[K");
        std::fprintf(stderr, "%s: %s in %.1f s\n", what_.c_str(), summary.c_str(), ms_since(t0_) * 1e-3);
    }

private:
    std::string what_;
    int total_, done_ = 0;
    bool tty_, enabled_;
    Clock::time_point t0_;
};

// ---------------------------------------------------------------------------
// What the record says about the machine, the build and the scene
// ---------------------------------------------------------------------------
std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0) {
            const size_t colon = line.find(':');
            if (colon != std::string::npos) {
                std::string m = line.substr(colon + 1);
                m.erase(0, m.find_first_not_of(" \t"));
                return m;
            }
        }
    }
    return "unknown";
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

// FNV-1a 64 of the scene file's bytes (included meshes are not folded in).
std::string scene_hash(const std::string& path) {
    if (path.empty()) return "builtin:default";
    std::ifstream in(path, std::ios::binary);
    if (!in) return "unreadable";
    uint64_t h = 0xcbf29ce484222325ull;
    char buf[65536];
    while (in) {
        in.read(buf, sizeof buf);
        for (std::streamsize i = 0; i < in.gcount(); ++i) {
            h ^= uint64_t(static_cast<unsigned char>(buf[i]));
            h *= 0x100000001b3ull;
        }
    }
    char out[40];
    std::snprintf(out, sizeof out, "fnv1a64:%016llx", (unsigned long long)h);
    return out;
}

bool is_cuda(Executor& ex) {
#if defined(SRT_HAVE_CUDA)
    return dynamic_cast<CudaExecutor*>(&ex) != nullptr;
#else
    (void)ex;
    return false;
#endif
}

ojson machine_json(Executor& ex) {
    ojson m;
    m["executor"] = ex.name();
    m["backend"] = is_cuda(ex) ? "cuda" : "cpu";
    m["host"] = {{"cpu_model", cpu_model()}, {"threads", int(std::thread::hardware_concurrency())}};
#if defined(SRT_HAVE_CUDA)
    if (is_cuda(ex)) {
        const DeviceInfo d = query_device_info(0);
        ojson g;
        g["name"] = d.name;
        g["sm_count"] = d.sm_count;
        g["compute_capability"] = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
        g["memory_bytes"] = d.total_memory;
        g["driver_cuda_version"] = cuda_version_string(d.driver_version);
        g["runtime_version"] = cuda_version_string(d.runtime_version);
        g["nvidia_driver"] = d.nvidia_driver.empty() ? "unknown" : d.nvidia_driver;
        auto opt = [](int v) { return v >= 0 ? ojson(v) : ojson(nullptr); };
        g["clock_khz"] = opt(d.clock_khz);
        g["memory_clock_khz"] = opt(d.memory_clock_khz);
        g["memory_bus_bits"] = opt(d.memory_bus_bits);
        g["l2_bytes"] = opt(d.l2_bytes);
        g["max_threads_per_sm"] = opt(d.max_threads_per_sm);
        if (!d.ok) g["error"] = d.error;
        m["gpu"] = g;
    }
#endif
    return m;
}

std::string machine_line(const ojson& m) {
    std::string s = m["executor"].get<std::string>();
    if (m.contains("gpu")) {
        const ojson& g = m["gpu"];
        s += ", " + std::to_string(g["sm_count"].get<int>()) + " SMs, CUDA driver " +
             g["driver_cuda_version"].get<std::string>() + " (" + g["nvidia_driver"].get<std::string>() +
             "), runtime " + g["runtime_version"].get<std::string>();
        if (!g["clock_khz"].is_null())
            s += ", " + std::to_string(g["clock_khz"].get<int>() / 1000) + " MHz";
    } else {
        s += ", " + m["host"]["cpu_model"].get<std::string>();
    }
    return s;
}

// ---------------------------------------------------------------------------
// Measuring one configuration
// ---------------------------------------------------------------------------
std::vector<double> time_frames(Executor& ex, const Camera& cam, const RenderSettings& rs, int warmup,
                                int frames) {
    for (int k = 0; k < warmup; ++k) ex.timed_frame(cam, rs, nullptr);
    std::vector<double> ms;
    ms.reserve(size_t(frames));
    for (int k = 0; k < frames; ++k) ms.push_back(ex.timed_frame(cam, rs, nullptr));
    return ms;
}

struct Result {
    DeadRayMode mode;
    LaunchMode launch = LaunchMode::Graph;
    int depth = 0;
    std::vector<double> ms;
    Spread frame;
    FrameStats stats;  // from the extra counted frame
    double fps() const { return frame.median > 0 ? 1000.0 / frame.median : 0.0; }
    double rays_per_s() const {
        return frame.median > 0 ? double(stats.rays_traced) / (frame.median * 1e-3) : 0.0;
    }
};

// ---------------------------------------------------------------------------
// Output: terminal tables, CSV, JSON
// ---------------------------------------------------------------------------
std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::vector<std::string> stage_names(const std::vector<Result>& rs) {
    std::vector<std::string> names;
    for (const Result& r : rs)
        for (const StageTime& t : r.stats.stage_ms)
            if (std::find(names.begin(), names.end(), t.stage) == names.end()) names.push_back(t.stage);
    return names;
}

double stage_ms(const FrameStats& st, const std::string& name) {
    for (const StageTime& t : st.stage_ms)
        if (t.stage == name) return t.ms;
    return 0.0;
}

void print_tables(const std::vector<Result>& results, const std::vector<DeadRayMode>& modes) {
    std::printf("\n%-8s %-6s %5s %10s %9s %9s %9s %9s %9s %9s %9s %12s %11s %8s\n", "mode", "launch", "depth",
                "median ms", "p10", "p90", "min", "max", "FPS", "Grays/s", "Mrays", "last live", "last warps",
                "bounces");
    for (const Result& r : results) {
        const BounceStats last = r.stats.bounces.empty() ? BounceStats{} : r.stats.bounces.back();
        std::printf("%-8s %-6s %5d %10.3f %9.3f %9.3f %9.3f %9.3f %9.1f %9.3f %9.2f %12llu %11llu %8llu\n",
                    to_string(r.mode), to_string(r.launch), r.depth, r.frame.median, r.frame.p10, r.frame.p90,
                    r.frame.min, r.frame.max, r.fps(), r.rays_per_s() * 1e-9, double(r.stats.rays_traced) * 1e-6,
                    (unsigned long long)last.live_rays, (unsigned long long)last.live_warps,
                    (unsigned long long)r.stats.bounces_run);
    }

    const std::vector<std::string> names = stage_names(results);
    std::printf("\nstage ms (the counted frame, stream launches; counting adds time)\n%-8s %-6s %5s", "mode",
                "launch", "depth");
    for (const std::string& n : names) std::printf(" %10s", n.c_str());
    std::printf("\n");
    for (const Result& r : results) {
        std::printf("%-8s %-6s %5d", to_string(r.mode), to_string(r.launch), r.depth);
        for (const std::string& n : names) std::printf(" %10.3f", stage_ms(r.stats, n));
        std::printf("\n");
    }

    // Per bounce at each mode's deepest run (a bounce's counts do not depend on how
    // much deeper the frame goes, so the shallower runs repeat a prefix of these).
    std::vector<const Result*> deepest;
    for (DeadRayMode m : modes) {
        const Result* best = nullptr;
        for (const Result& r : results)
            if (r.mode == m && (!best || r.depth > best->depth)) best = &r;
        if (best) deepest.push_back(best);
    }
    if (deepest.empty()) return;
    size_t bounces = 0;
    for (const Result* r : deepest) bounces = std::max(bounces, r->stats.bounces.size());
    std::printf("\nlive rays / live warps per bounce (depth %d; SIMD = live rays / (32 x live warps))\n%-6s",
                deepest.front()->depth, "bounce");
    for (const Result* r : deepest) std::printf(" | %-8s %12s %10s %6s", to_string(r->mode), "rays", "warps", "SIMD");
    std::printf("\n");
    for (size_t b = 0; b < bounces; ++b) {
        std::printf("%-6zu", b);
        for (const Result* r : deepest) {
            if (b < r->stats.bounces.size()) {
                const BounceStats& s = r->stats.bounces[b];
                std::printf(" | %-8s %12llu %10llu %5.1f%%", "", (unsigned long long)s.live_rays,
                            (unsigned long long)s.live_warps, 100.0 * s.simd_efficiency());
            } else {
                std::printf(" | %-8s %12s %10s %6s", "", "-", "-", "-");
            }
        }
        std::printf("\n");
    }
}

std::string results_csv(const std::vector<Result>& results, const RenderSettings& base, int frames, int warmup) {
    const std::vector<std::string> names = stage_names(results);
    size_t bounces = 0;
    for (const Result& r : results) bounces = std::max(bounces, size_t(r.depth));
    std::ostringstream o;
    o << "mode,depth,width,height,spp,frames,warmup,median_ms,mean_ms,min_ms,max_ms,p10_ms,p90_ms,mad_ms,fps,"
         "rays_traced,rays_per_s,launch,bounces_run";
    for (const std::string& n : names) o << ",stage_" << n << "_ms";
    for (size_t b = 0; b < bounces; ++b) o << ",live_rays_b" << b;
    for (size_t b = 0; b < bounces; ++b) o << ",live_warps_b" << b;
    o << "\n";
    char buf[512];
    for (const Result& r : results) {
        std::snprintf(buf, sizeof buf, "%s,%d,%d,%d,%d,%d,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.3f,%llu,%.6g",
                      to_string(r.mode), r.depth, base.width, base.height, base.spp, frames, warmup, r.frame.median,
                      r.frame.mean, r.frame.min, r.frame.max, r.frame.p10, r.frame.p90, r.frame.mad, r.fps(),
                      (unsigned long long)r.stats.rays_traced, r.rays_per_s());
        o << buf << "," << to_string(r.launch) << "," << r.stats.bounces_run;
        for (const std::string& n : names) o << "," << fmt("%.6f", stage_ms(r.stats, n));
        // Bounces not traced (past the depth, or all rays dead) are left empty.
        for (size_t b = 0; b < bounces; ++b)
            o << "," << (b < r.stats.bounces.size() ? std::to_string(r.stats.bounces[b].live_rays) : "");
        for (size_t b = 0; b < bounces; ++b)
            o << "," << (b < r.stats.bounces.size() ? std::to_string(r.stats.bounces[b].live_warps) : "");
        o << "\n";
    }
    return o.str();
}

ojson result_json(const Result& r, uint32_t warps_per_sample, int spp) {
    ojson j;
    j["mode"] = to_string(r.mode);
    j["launch"] = to_string(r.launch);
    j["depth"] = r.depth;
    j["bounces_run"] = r.stats.bounces_run;
    j["frames"] = r.ms.size();
    j["frame_ms"] = spread_json(r.frame);
    j["frame_ms_samples"] = r.ms;
    j["fps"] = r.fps();
    j["rays_traced"] = r.stats.rays_traced;
    j["rays_per_s"] = r.rays_per_s();
    ojson st = ojson::object();
    for (const StageTime& t : r.stats.stage_ms) st[t.stage] = t.ms;
    j["stage_ms"] = st;
    ojson b = ojson::array();
    for (size_t k = 0; k < r.stats.bounces.size(); ++k) {
        const BounceStats& s = r.stats.bounces[k];
        b.push_back({{"bounce", k},
                     {"live_rays", s.live_rays},
                     {"live_warps", s.live_warps},
                     {"warps", uint64_t(warps_per_sample) * uint64_t(spp)},
                     {"simd_efficiency", s.simd_efficiency()}});
    }
    j["bounces"] = b;
    return j;
}

void write_output(const std::string& path, const std::string& text, const char* what) {
    write_output_file(path, text);
    std::printf("%-8s %s\n", what, std::filesystem::absolute(path).string().c_str());
}

// Runs tools/plot_bench.py on `json_path` (matplotlib from the Debian package, hence
// /usr/bin/python3 first).
int run_plot(const std::string& json_path, const std::string& png) {
    const std::string script = std::string(SRT_SOURCE_DIR) + "/tools/plot_bench.py";
    const std::string python = ::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    const std::string cmd = python + " " + shell_quote(script) + " " + shell_quote(json_path) + " -o " + shell_quote(png);
    const int rc = std::system(cmd.c_str());
    if (rc != 0) {
        std::fprintf(stderr, "stencilrt: bench --plot: %s failed (exit %d)\n", cmd.c_str(),
                     WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
        return 1;
    }
    std::printf("%-8s %s\n", "plot", std::filesystem::absolute(png).string().c_str());
    return 0;
}

// Writes --json (and, for --plot, a JSON for the script: the --json file itself or a
// temporary one) and runs the plot.
int write_json_and_plot(const BenchOptions& o, const ojson& doc) {
    const std::string text = doc.dump(2) + "\n";
    if (!o.json.empty()) write_output(o.json, text, "json");
    if (o.plot.empty()) return 0;
    if (!o.json.empty()) return run_plot(o.json, o.plot);
    std::string tmpl = (std::filesystem::temp_directory_path() / "stencilrt-bench-XXXXXX.json").string();
    std::vector<char> name(tmpl.begin(), tmpl.end());
    name.push_back('\0');
    const int fd = ::mkstemps(name.data(), 5);
    if (fd < 0) throw std::runtime_error("bench --plot: cannot create a temporary JSON file");
    ::close(fd);
    const std::string tmp(name.data());
    int rc = 1;
    try {
        write_output_file(tmp, text);
        rc = run_plot(tmp, o.plot);
    } catch (...) {
        std::remove(tmp.c_str());
        throw;
    }
    std::remove(tmp.c_str());
    return rc;
}

// The common head of every JSON record.
ojson record_head(const std::string& kind, Executor& ex, const BenchOptions& o) {
    ojson doc;
    doc["format"] = "stencilrt-bench/1";
    doc["kind"] = kind;
    doc["stencilrt_version"] = SRT_VERSION;
    doc["git_revision"] = std::string(SRT_REVISION);
    doc["date"] = utc_now();
    doc["machine"] = machine_json(ex);
    ojson s;
    s["width"] = o.width;
    s["height"] = o.height;
    s["spp"] = o.spp;
    s["warp_shape"] = o.warp_shape;
    s["depths"] = o.depths;
    ojson modes = ojson::array();
    for (DeadRayMode m : o.modes) modes.push_back(to_string(m));
    s["modes"] = modes;
    s["modes_requested"] = o.modes_text;
    ojson launches = ojson::array();
    for (LaunchMode l : o.launches) launches.push_back(to_string(l));
    s["launches"] = launches;
    s["frames"] = o.frames;
    s["warmup"] = o.warmup;
    s["backend_requested"] = o.backend;
    s["timing"] = is_cuda(ex) ? "cuda events around generate..resolve (Executor::timed_frame)"
                              : "host steady_clock around generate..resolve (Executor::timed_frame)";
    s["camera_overrides"] = {{"from", o.so.from_text}, {"at", o.so.at_text}, {"up", o.so.up_text},
                             {"fov", o.so.fov ? ojson(*o.so.fov) : ojson(nullptr)}, {"lights", o.so.lights}};
    doc["settings"] = s;
    return doc;
}

ojson launch_json(Executor& ex) {
#if defined(SRT_HAVE_CUDA)
    if (auto* cx = dynamic_cast<CudaExecutor*>(&ex)) {
        const LaunchConfig c = cx->launch_config();
        return {{"generate", c.generate}, {"intersect", c.intersect}, {"shade", c.shade},
                {"reflect", c.reflect},   {"resolve", c.resolve},     {"compact", c.compact}};
    }
#endif
    (void)ex;
    return nullptr;
}

ojson tuning_json(const AppliedTuning& t) {
    ojson j;
    j["applied"] = t.applied;
    j["resolution_class"] = t.res_class;
    j["cache_path"] = t.path;
    if (!t.applied) j["reason"] = t.reason;
    else j["entry_created"] = t.entry.created;
    return j;
}

// ---------------------------------------------------------------------------
// --skip (CUDA only)
// ---------------------------------------------------------------------------
#if defined(SRT_HAVE_CUDA)
void skip_progress(int done, int total, void* ctx) {
    auto* p = static_cast<Progress*>(ctx);
    (void)total;
    p->step("case " + std::to_string(done));
}

int run_skip(const BenchOptions& o, Executor& ex) {
    SkipBenchOptions so;
    so.rays = o.skip_rays;
    so.iterations = o.skip_iterations;
    std::printf("skip     %u rays (padded to warps), %d timed launches per case (median), L2 flushed before each; "
                "live rays write one float\n", padded_ray_count(o.skip_rays), so.iterations);
    // 2 patterns x the live fractions x 4 modes (stencil, flags, compact, stencil-dense), as
    // run_skip_bench counts them.
    Progress progress("bench --skip", 2 * int(so.live_fractions.size()) * 4, !o.no_progress);
    const SkipBenchReport rep = run_skip_bench(so, skip_progress, &progress);
    progress.finish(std::to_string(rep.results.size() - 1) + " cases");

    std::printf("\nempty kernel (k_empty) over %u threads: %.4f ms = %.2f G empty thread calls/s\n\n", rep.rays,
                rep.empty_ms, double(rep.rays) / (rep.empty_ms * 1e-3) * 1e-9);
    std::printf("%-12s %-9s %6s %11s %11s %10s %10s %10s %13s %11s %9s\n", "mode", "pattern", "live", "live warps",
                "median ms", "p10", "p90", "empty ms", "G dead/s", "G rays/s", "x empty");
    for (const SkipResult& r : rep.results) {
        if (r.mode == "empty") continue;
        std::printf("%-12s %-9s %5.0f%% %11llu %11.4f %10.4f %10.4f %10.4f %13.2f %11.2f %9.2f\n", r.mode.c_str(),
                    r.pattern.c_str(), 100.0 * r.live_fraction, (unsigned long long)r.live_warps, r.median_ms,
                    r.p10_ms, r.p90_ms, r.empty_ms, r.dead_per_s() * 1e-9, r.rays_per_s() * 1e-9,
                    r.empty_ms > 0 ? r.median_ms / r.empty_ms : 0.0);
    }

    if (!o.csv.empty()) {
        std::ostringstream c;
        c << "mode,pattern,live_fraction,rays,live_rays,dead_rays,live_warps,block,grid,median_ms,p10_ms,p90_ms,"
             "min_ms,max_ms,empty_ms,dead_per_s,rays_per_s\n";
        char buf[512];
        for (const SkipResult& r : rep.results) {
            std::snprintf(buf, sizeof buf, "%s,%s,%.4f,%llu,%llu,%llu,%llu,%d,%u,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6g,%.6g\n",
                          r.mode.c_str(), r.pattern.c_str(), r.live_fraction, (unsigned long long)r.rays,
                          (unsigned long long)r.live_rays, (unsigned long long)r.dead_rays,
                          (unsigned long long)r.live_warps, r.block, r.grid, r.median_ms, r.p10_ms, r.p90_ms,
                          r.min_ms, r.max_ms, r.empty_ms, r.dead_per_s(), r.rays_per_s());
            c << buf;
        }
        write_output(o.csv, c.str(), "csv");
    }
    ojson doc = record_head("skip", ex, o);
    doc["skip"]["rays"] = rep.rays;
    doc["skip"]["iterations"] = so.iterations;
    doc["skip"]["l2_flushed"] = true;
    doc["skip"]["empty_ms"] = rep.empty_ms;
    ojson arr = ojson::array();
    for (const SkipResult& r : rep.results)
        arr.push_back({{"mode", r.mode},         {"pattern", r.pattern},   {"live_fraction", r.live_fraction},
                       {"rays", r.rays},         {"live_rays", r.live_rays}, {"dead_rays", r.dead_rays},
                       {"live_warps", r.live_warps}, {"block", r.block},   {"grid", r.grid},
                       {"median_ms", r.median_ms}, {"p10_ms", r.p10_ms},   {"p90_ms", r.p90_ms},
                       {"min_ms", r.min_ms},     {"max_ms", r.max_ms},     {"empty_ms", r.empty_ms},
                       {"dead_per_s", r.dead_per_s()}, {"rays_per_s", r.rays_per_s()}});
    doc["skip"]["results"] = arr;
    return write_json_and_plot(o, doc);
}

// ---------------------------------------------------------------------------
// --tune (CUDA only): block size per stage, one stage varied at a time, whole frames
// timed (the counted frame's stage times include the counting atomics and the events
// between kernels, so they would mislead a choice between close sizes).
// ---------------------------------------------------------------------------
LaunchConfig to_config(const LaunchSizes& s) {
    LaunchConfig c;
    c.generate = s.generate;
    c.intersect = s.intersect;
    c.shade = s.shade;
    c.reflect = s.reflect;
    c.resolve = s.resolve;
    c.compact = s.compact;
    return c;
}
LaunchSizes to_sizes(const LaunchConfig& c) {
    LaunchSizes s;
    s.generate = c.generate;
    s.intersect = c.intersect;
    s.shade = c.shade;
    s.reflect = c.reflect;
    s.resolve = c.resolve;
    s.compact = c.compact;
    return s;
}

int run_tune(const BenchOptions& o, CudaExecutor& cx, const Scene& scene, const ojson& scene_json) {
    constexpr int kSizes[] = {32, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
    // A size must beat the stage's current one by this much to replace it: closer than
    // that is within the run-to-run spread of a frame.
    constexpr double kMinGain = 0.01;
    const int deep = o.depths.back(), shallow = o.depths.front();

    cx.set_launch_config(LaunchConfig{});  // from the defaults, whatever the cache says
    const LaunchSizes defaults = to_sizes(cx.launch_config());
    LaunchSizes best = defaults;

    RenderSettings rs;
    rs.width = o.width;
    rs.height = o.height;
    rs.spp = o.spp;
    rs.warp_width = std::atoi(o.warp_shape.c_str());
    rs.depth = deep;

    std::vector<int> gain_depths{deep};
    if (shallow != deep) gain_depths.push_back(shallow);
    const int stages = 6;
    int total = 0;
    for (int s = 0; s < stages; ++s) {
        std::set<int> sizes(std::begin(kSizes), std::end(kSizes));
        sizes.insert(launch_size(defaults, s));
        total += int(sizes.size());
    }
    Progress progress("bench --tune", total + 2 * int(gain_depths.size() * o.modes.size()), !o.no_progress);

    // Time the current `best` with stage s set to `size`. Returns < 0 when it cannot launch.
    auto measure = [&](int s, int size, std::string& why) -> double {
        LaunchSizes c = best;
        launch_size(c, s) = size;
        cx.set_launch_config(to_config(c));
        try {
            const std::vector<double> ms = time_frames(cx, scene.camera, rs, o.warmup, o.frames);
            return spread_of(ms).median;
        } catch (const std::exception& e) {
            why = e.what();
            return -1.0;
        }
    };

    ojson stages_json = ojson::array();
    std::printf("\ntuning %s (%s) at %dx%d, depth %d: %d frames per size (median), one stage at a time\n",
                cx.device_name().c_str(), resolution_class(o.width, o.height).c_str(), o.width, o.height, deep,
                o.frames);
    std::printf("%-10s %8s %8s %12s %12s  %s\n", "stage", "default", "chosen", "default ms", "chosen ms", "all sizes (ms)");
    for (int s = 0; s < stages; ++s) {
        // compact's size only matters in compact mode; every other stage is tuned in the
        // stencil mode (the default), which is what render and view use unless told.
        rs.mode = s == 5 ? DeadRayMode::Compact : DeadRayMode::Stencil;
        std::set<int> sizes(std::begin(kSizes), std::end(kSizes));
        sizes.insert(launch_size(best, s));
        ojson cand = ojson::array();
        double cur_ms = -1, best_ms = -1;
        int best_size = launch_size(best, s);
        std::string line;
        for (int size : sizes) {
            std::string why;
            const double ms = measure(s, size, why);
            progress.step(std::string(kTunedStages[s]) + " " + std::to_string(size));
            if (ms < 0) {
                cand.push_back({{"block", size}, {"ok", false}, {"error", why}});
                line += " " + std::to_string(size) + ":-";
                if (size == launch_size(best, s))
                    throw std::runtime_error(std::string("bench --tune: the current ") + kTunedStages[s] +
                                             " size " + std::to_string(size) + " fails: " + why);
                continue;
            }
            cand.push_back({{"block", size}, {"ok", true}, {"median_ms", ms}});
            line += " " + std::to_string(size) + ":" + fmt("%.3f", ms);
            if (size == launch_size(best, s)) cur_ms = ms;
            if (best_ms < 0 || ms < best_ms) {
                best_ms = ms;
                best_size = size;
            }
        }
        const int before = launch_size(best, s);
        if (best_size != before && best_ms < cur_ms * (1.0 - kMinGain)) launch_size(best, s) = best_size;
        std::printf("%-10s %8d %8d %12.3f %12.3f %s\n", kTunedStages[s], before, launch_size(best, s), cur_ms,
                    launch_size(best, s) == before ? cur_ms : best_ms, line.c_str());
        stages_json.push_back({{"stage", kTunedStages[s]},
                               {"mode", to_string(rs.mode)},
                               {"default", launch_size(defaults, s)},
                               {"before", before},
                               {"chosen", launch_size(best, s)},
                               {"candidates", cand}});
    }

    // The gain, measured afresh: defaults and tuned alternately per (mode, depth).
    std::printf("\ngain against the untuned defaults (median frame ms, %d frames each)\n", o.frames);
    std::printf("%-8s %5s %12s %12s %8s\n", "mode", "depth", "default ms", "tuned ms", "gain");
    ojson gains = ojson::array();
    double deep_default = 0, deep_tuned = 0;
    for (DeadRayMode m : o.modes) {
        for (int d : gain_depths) {
            rs.mode = m;
            rs.depth = d;
            cx.set_launch_config(to_config(defaults));
            const double def_ms = spread_of(time_frames(cx, scene.camera, rs, o.warmup, o.frames)).median;
            progress.step(std::string(to_string(m)) + " d" + std::to_string(d) + " default");
            cx.set_launch_config(to_config(best));
            const double tuned_ms = spread_of(time_frames(cx, scene.camera, rs, o.warmup, o.frames)).median;
            progress.step(std::string(to_string(m)) + " d" + std::to_string(d) + " tuned");
            const double gain = def_ms > 0 ? (def_ms - tuned_ms) / def_ms * 100.0 : 0.0;
            std::printf("%-8s %5d %12.3f %12.3f %7.1f%%\n", to_string(m), d, def_ms, tuned_ms, gain);
            gains.push_back({{"mode", to_string(m)}, {"depth", d}, {"default_ms", def_ms}, {"tuned_ms", tuned_ms},
                             {"gain_percent", gain}});
            if (m == o.modes.front() && d == deep) {
                deep_default = def_ms;
                deep_tuned = tuned_ms;
            }
        }
    }
    progress.finish("tuned");

    TuningEntry e;
    e.key = {cx.device_name(), cx.sm_count(), resolution_class(o.width, o.height)};
    e.launch = best;
    e.defaults = defaults;
    e.created = utc_now();
    e.revision = std::string(SRT_REVISION);
    e.scene = scene.name;
    e.width = o.width;
    e.height = o.height;
    e.depth = deep;
    e.mode = to_string(o.modes.front());
    e.default_ms = deep_default;
    e.tuned_ms = deep_tuned;

    const std::string path = tuning_cache_path();
    std::string warning;
    TuningCache cache = TuningCache::load(path, &warning);
    if (!warning.empty()) std::fprintf(stderr, "warning: %s (it will be rewritten)\n", warning.c_str());
    cache.put(e);
    cache.save(path);
    std::printf("\ntuning: saved launch sizes for %s (%s) to %s\n", e.key.gpu.c_str(), e.key.res_class.c_str(),
                path.c_str());

    ojson doc = record_head("tune", cx, o);
    doc["scene"] = scene_json;
    doc["tune"] = {{"resolution_class", e.key.res_class}, {"cache_path", path}, {"min_gain", kMinGain},
                   {"stages", stages_json}, {"gain", gains}};
    cx.set_launch_config(to_config(best));
    doc["tune"]["chosen"] = launch_json(cx);
    doc["tune"]["defaults"] = ojson{{"generate", defaults.generate}, {"intersect", defaults.intersect},
                                    {"shade", defaults.shade},       {"reflect", defaults.reflect},
                                    {"resolve", defaults.resolve},   {"compact", defaults.compact}};
    if (!o.csv.empty()) {
        std::ostringstream c;
        c << "stage,mode,block,ok,median_ms,chosen\n";
        for (const ojson& st : stages_json)
            for (const ojson& k : st["candidates"])
                c << st["stage"].get<std::string>() << "," << st["mode"].get<std::string>() << ","
                  << k["block"].get<int>() << "," << (k["ok"].get<bool>() ? 1 : 0) << ","
                  << (k["ok"].get<bool>() ? fmt("%.6f", k["median_ms"].get<double>()) : "") << ","
                  << (k["block"].get<int>() == st["chosen"].get<int>() ? 1 : 0) << "\n";
        write_output(o.csv, c.str(), "csv");
    }
    return write_json_and_plot(o, doc);
}
#endif  // SRT_HAVE_CUDA

}  // namespace

// ---------------------------------------------------------------------------
// Dead bounces: per mode and launch, the cost of a bounce once nearly every ray is
// dead, the FPS kept at depth, and graph against stream launches (issue #9).
// ---------------------------------------------------------------------------
ojson print_dead_bounce_summary(const std::vector<Result>& results, const BenchOptions& o, bool gpu) {
    ojson out = ojson::array();
    std::printf("\ndead bounces (slope of the median frame time from the depth where live rays fall below 0.1%% "
                "of the primary rays, over 4 bounces)\n%-8s %-6s %8s %14s %12s %12s %12s\n",
                "mode", "launch", "depths", "us per bounce", "FPS d6/d1", "FPS d12/d1", "seed d6/d1");
    const auto& seed = bench::seed_fps_by_depth();
    for (DeadRayMode m : o.modes) {
        for (LaunchMode l : o.launches) {
            std::vector<bench::DepthTime> times;
            const Result* deepest = nullptr;
            for (const Result& r : results) {
                if (r.mode != m || r.launch != l) continue;
                times.push_back({r.depth, r.frame.median});
                if (!deepest || r.depth > deepest->depth) deepest = &r;
            }
            if (!deepest) continue;
            std::vector<uint64_t> live;
            for (const BounceStats& b : deepest->stats.bounces) live.push_back(b.live_rays);
            const bench::DeadBounceCost c = bench::dead_bounce_cost(times, live);
            const double r6 = bench::fps_ratio(times, 6), r12 = bench::fps_ratio(times, 12);
            char depths[32] = "-";
            if (c.ok) std::snprintf(depths, sizeof depths, "%d..%d", c.from_depth, c.to_depth);
            std::printf("%-8s %-6s %8s %14s %12s %12s %12.2f\n", to_string(m), gpu ? to_string(l) : "-", depths,
                        c.ok ? fmt("%.2f", c.ms_per_bounce * 1e3).c_str() : "-", r6 > 0 ? fmt("%.2f", r6).c_str() : "-",
                        r12 > 0 ? fmt("%.2f", r12).c_str() : "-", seed[5] / seed[0]);
            if (!c.ok) std::printf("         (%s)\n", c.why_not.c_str());
            ojson j = {{"mode", to_string(m)}, {"launch", to_string(l)}, {"ok", c.ok}};
            if (c.ok) {
                j["from_depth"] = c.from_depth;
                j["to_depth"] = c.to_depth;
                j["us_per_bounce"] = c.ms_per_bounce * 1e3;
            } else {
                j["why_not"] = c.why_not;
            }
            j["fps_ratio_d6"] = r6 > 0 ? ojson(r6) : ojson(nullptr);
            j["fps_ratio_d12"] = r12 > 0 ? ojson(r12) : ojson(nullptr);
            j["seed_fps_ratio_d6"] = seed[5] / seed[0];
            out.push_back(j);
        }
    }
    if (gpu && o.launches.size() > 1) {
        std::printf("\ngraph / stream frame time (median)\n%-8s %5s %10s %10s %8s\n", "mode", "depth", "graph ms",
                    "stream ms", "ratio");
        for (const Result& g : results) {
            if (g.launch != LaunchMode::Graph) continue;
            for (const Result& s : results)
                if (s.launch == LaunchMode::Stream && s.mode == g.mode && s.depth == g.depth)
                    std::printf("%-8s %5d %10.4f %10.4f %8.3f\n", to_string(g.mode), g.depth, g.frame.median,
                                s.frame.median, s.frame.median > 0 ? g.frame.median / s.frame.median : 0.0);
        }
    }
    return out;
}

// ---------------------------------------------------------------------------
// The command
// ---------------------------------------------------------------------------
int cmd_bench(int argc, char** argv) {
    // main() hands over the whole command line (the bench subcommand is a prefix
    // command); the options are parsed here, after the word "bench".
    int first = 1;
    while (first < argc && std::strcmp(argv[first], "bench") != 0) ++first;
    std::vector<char*> args;
    std::string prog = "stencilrt bench";
    args.push_back(prog.data());
    for (int i = first + 1; i < argc; ++i) args.push_back(argv[i]);

    BenchOptions o;
    CLI::App cli{"Benchmark FPS per bounce depth for each dead-ray mode, with live rays and live warps per "
                 "bounce (docs/benchmark.md)",
                 "stencilrt bench"};
    cli.failure_message(CLI::FailureMessage::simple);  // one line and "Run with --help"
    o.so.add_to(cli);
    cli.add_option("--depths", o.depths_text, "Trace depths: A..B and/or a list, e.g. 1..8 or 1,2,4,8")
        ->capture_default_str();
    cli.add_option("--modes", o.modes_text, "Dead-ray modes: stencil,flags,compact or all")->capture_default_str();
    cli.add_option("--launch", o.launches_text,
                   "How the GPU's kernels are issued: graph, stream, or both (compared)")->capture_default_str();
    cli.add_option("--width,-W", o.width, "Image width in pixels")->check(CLI::Range(1, 16384))->capture_default_str();
    cli.add_option("--height,-H", o.height, "Image height in pixels")->check(CLI::Range(1, 16384))->capture_default_str();
    cli.add_option("--spp", o.spp, "Samples per pixel")->check(CLI::Range(1, 4096))->capture_default_str();
    cli.add_option("--warp-shape", o.warp_shape, "Pixels covered by one warp of 32 rays")
        ->check(CLI::IsMember({"1x32", "2x16", "4x8", "8x4", "16x2", "32x1"}))->capture_default_str();
    cli.add_option("--frames", o.frames, "Timed frames per configuration (CPU backend default: 3)")
        ->check(CLI::Range(1, 1000000))->capture_default_str();
    cli.add_option("--warmup", o.warmup, "Untimed frames before them (CPU backend default: 1)")
        ->check(CLI::Range(0, 1000000))->capture_default_str();
    cli.add_option("--backend,-b", o.backend, "Executor")->check(CLI::IsMember({"auto", "cuda", "cpu"}))->capture_default_str();
    cli.add_option("--csv", o.csv, "Write the results as CSV (atomically)");
    cli.add_option("--json", o.json, "Write the results, machine, build, scene and settings as JSON (atomically)");
    cli.add_option("--plot", o.plot, "Draw FPS against depth and live warps per bounce into this PNG "
                                     "(tools/plot_bench.py, matplotlib)");
    cli.add_flag("--skip", o.skip, "Measure dead rays skipped per second per mode against an empty kernel (CUDA)");
    cli.add_option("--skip-rays", o.skip_rays, "--skip: rays per launch")->check(CLI::Range(32u, 1u << 28))->capture_default_str();
    cli.add_option("--skip-iterations", o.skip_iterations, "--skip: timed launches per case")
        ->check(CLI::Range(1, 100000))->capture_default_str();
    cli.add_flag("--tune", o.tune, "Tune the block size of each kernel stage and cache the winners for this GPU (CUDA)");
    cli.add_flag("--no-tuning", o.no_tuning, "Ignore the tuning cache (as SRT_NO_TUNING=1)");
    cli.add_flag("--no-progress", o.no_progress, "No progress line on stderr");
    try {
        cli.parse(int(args.size()), args.data());
    } catch (const CLI::CallForHelp& e) {
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        cli.exit(e);
        return 2;
    }
    if (o.skip && o.tune) throw InputError("bench: --skip and --tune are separate runs; give one of them");
    for (const std::string* f : {&o.csv, &o.json, &o.plot})
        if (*f == "-") throw InputError("bench: '-' (standard output) carries the tables; give --csv, --json and --plot a file");

    o.depths = parse_depths(o.depths_text);
    o.modes = parse_modes(o.modes_text);
    o.launches = parse_launches(o.launches_text);
    if (!o.plot.empty() && (o.skip || o.tune))
        throw InputError("bench --plot draws the depth sweep; it does not apply to --skip or --tune");
    Backend backend = Backend::Auto;
    parse_backend(o.backend, backend);
    if ((o.skip || o.tune) && backend == Backend::Cpu)
        throw InputError(std::string("bench ") + (o.skip ? "--skip" : "--tune") +
                         " needs the CUDA backend (the CPU executor has no warps or launch sizes to measure)");

    const auto t_load = Clock::now();
    const Scene scene = load_with_overrides(o.so);
    for (const std::string& n : scene.notes) std::fprintf(stderr, "note: %s\n", n.c_str());
    const double load_ms = ms_since(t_load);
    const auto t_compile = Clock::now();
    const CompiledScene compiled = compile_scene(scene);
    const double compile_ms = ms_since(t_compile);

    auto ex = make_executor(backend);
    const bool gpu = is_cuda(*ex);
    if ((o.skip || o.tune) && !gpu) {
        std::fprintf(stderr, "stencilrt: bench %s needs the CUDA backend; no usable CUDA device here\n",
                     o.skip ? "--skip" : "--tune");
        return 2;
    }
    const auto t_upload = Clock::now();
    ex->set_scene(compiled);
    const double upload_ms = ms_since(t_upload);

    std::vector<std::string> notes;
    if (!gpu) {
        if (cli.count("--frames") == 0) o.frames = 3;
        if (cli.count("--warmup") == 0) o.warmup = 1;
        if (o.launches.size() > 1 || o.launches[0] != LaunchMode::Graph) {
            notes.push_back("the CPU executor has no launches; ran once (launch requested: " + o.launches_text + ")");
            o.launches = {LaunchMode::Graph};
        }
        const bool only_stencil = o.modes.size() == 1 && o.modes[0] == DeadRayMode::Stencil;
        if (!only_stencil) {
            notes.push_back("the CPU executor always uses the stencil, so the modes collapse; ran stencil only "
                            "(modes requested: " + o.modes_text + ")");
            o.modes = {DeadRayMode::Stencil};
        }
    }

    const ojson machine = machine_json(*ex);
    std::printf("bench    stencilrt %s (%s)\n", SRT_VERSION, std::string(SRT_REVISION).c_str());
    std::printf("device   %s\n", machine_line(machine).c_str());

    ojson scene_json;
    scene_json["name"] = scene.name;
    scene_json["path"] = o.so.scene.empty() ? "" : std::filesystem::absolute(o.so.scene).string();
    scene_json["hash"] = scene_hash(o.so.scene);
    scene_json["spheres"] = scene.spheres.size();
    scene_json["planes"] = scene.planes.size();
    scene_json["triangles"] = scene.triangles.size();
    scene_json["lights"] = scene.lights.size();
    scene_json["load_ms"] = load_ms;
    scene_json["compile_ms"] = compile_ms;
    scene_json["bvh_build_ms"] = compiled.bvh_stats.build_ms;
    scene_json["bvh_nodes"] = compiled.bvh_stats.nodes;
    scene_json["upload_ms"] = upload_ms;
    std::printf("scene    %s (%s): %zu spheres, %zu planes, %zu triangles, %zu lights; load %.1f ms, "
                "BVH build %.1f ms (%u nodes), upload %.1f ms\n",
                scene.name.c_str(), scene_json["hash"].get<std::string>().c_str(), scene.spheres.size(),
                scene.planes.size(), scene.triangles.size(), scene.lights.size(), load_ms,
                compiled.bvh_stats.build_ms, compiled.bvh_stats.nodes, upload_ms);

#if defined(SRT_HAVE_CUDA)
    if (o.skip) return run_skip(o, *ex);
    if (o.tune) return run_tune(o, dynamic_cast<CudaExecutor&>(*ex), scene, scene_json);
#endif

    AppliedTuning tuning;
    if (o.no_tuning) {
        tuning.res_class = resolution_class(o.width, o.height);
        tuning.reason = "--no-tuning";
    } else {
        tuning = apply_cached_tuning_ex(*ex, o.width, o.height);
    }
    if (gpu) {
        const ojson l = launch_json(*ex);
        std::printf("launch   %s block sizes: generate %d, intersect %d, shade %d, reflect %d, resolve %d, compact %d\n",
                    tuning.applied ? "tuned" : "default", l["generate"].get<int>(), l["intersect"].get<int>(),
                    l["shade"].get<int>(), l["reflect"].get<int>(), l["resolve"].get<int>(), l["compact"].get<int>());
    }
    std::fflush(stdout);
    for (const std::string& n : notes) std::fprintf(stderr, "note: %s\n", n.c_str());
    std::printf("frame    %dx%d, %d spp; %d timed frames (+%d warm-up) per configuration, %s; "
                "plus one counted frame for rays, bounces and stages\n",
                o.width, o.height, o.spp, o.frames, o.warmup,
                gpu ? "CUDA events around generate..resolve" : "host clock around generate..resolve");

    // The sweep.
    RenderSettings base;
    base.width = o.width;
    base.height = o.height;
    base.spp = o.spp;
    base.warp_width = std::atoi(o.warp_shape.c_str());
    std::vector<Result> results;
    Progress progress("bench", int(o.modes.size() * o.launches.size() * o.depths.size()), !o.no_progress);
    for (DeadRayMode m : o.modes) {
        for (LaunchMode l : o.launches) {
            for (int d : o.depths) {
                RenderSettings rs = base;
                rs.mode = m;
                rs.launch = l;
                rs.depth = d;
                Result r;
                r.mode = m;
                r.launch = l;
                r.depth = d;
                r.ms = time_frames(*ex, scene.camera, rs, o.warmup, o.frames);
                r.frame = spread_of(r.ms);
                // The counted frame, from the stream: stage times need events between
                // the kernels. Its counts and bounces_run equal a graph frame's (GPU test).
                rs.launch = LaunchMode::Stream;
                ex->timed_frame(scene.camera, rs, &r.stats);
                results.push_back(std::move(r));
                progress.step(std::string(to_string(m)) + " " + to_string(l) + " depth " + std::to_string(d));
            }
        }
    }
    progress.finish(std::to_string(results.size()) + " configurations x " + std::to_string(o.frames) + " frames");

    print_tables(results, o.modes);
    const ojson dead = print_dead_bounce_summary(results, o, gpu);

    if (!o.csv.empty()) write_output(o.csv, results_csv(results, base, o.frames, o.warmup), "csv");
    if (o.json.empty() && o.plot.empty()) return 0;
    ojson doc = record_head("sweep", *ex, o);
    doc["machine"] = machine;
    doc["settings"]["launch"] = launch_json(*ex);
    doc["settings"]["tuning"] = tuning_json(tuning);
    doc["scene"] = scene_json;
    doc["notes"] = notes;
    ojson arr = ojson::array();
    const uint32_t warps = padded_ray_count(uint32_t(o.width) * uint32_t(o.height)) / kWarpSize;
    for (const Result& r : results) arr.push_back(result_json(r, warps, o.spp));
    doc["results"] = arr;
    doc["dead_bounce"] = dead;
    return write_json_and_plot(o, doc);
}

}  // namespace srt::app
