// test_robustness.cpp - no crash, no hang and no lost output on bad input
// or faults. Runs the real binary (SRT_BINARY) for exit codes, messages and files
// left behind; checks the host-memory guard and the PNG writer's signal cleanup.
#include "core/error.h"
#include "core/image.h"

// The memory check lives in the app (not in srt_core, which srt_tests links); its one
// source file is compiled into this test directly.
#include "app/memory_check.cpp"

#include "support/process.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace srt::test;

namespace {

const std::string kBinary = SRT_BINARY;
const std::string kData = SRT_TEST_DATA;
const std::string kSource = SRT_SOURCE_DIR;

// Runs the binary to completion; its stdout/stderr files go into `logs`.
Result run(const TempDir& logs, std::vector<std::string> args) { return run_binary(kBinary, logs, std::move(args)); }

// The process's resident set in KiB and thread count, from /proc/PID/status.
void proc_status(pid_t pid, long& rss_kib, long& threads) {
    rss_kib = threads = 0;
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string key;
    while (in >> key) {
        if (key == "VmRSS:") in >> rss_kib;
        else if (key == "Threads:") in >> threads;
        else in.ignore(1 << 20, '\n');
    }
}


}  // namespace

// ---------------------------------------------------------------------------
// (a) Bad input: exit 2, "file:line[:col]: message", and no output file.
// ---------------------------------------------------------------------------

TEST(Robust, BadInputsExit2WithLocationAndNoOutput) {
    TempDir dir;
    struct Case {
        std::string scene, message;
    };
    const std::vector<Case> cases = {
        {kData + "/bad/json_sphere_negative_radius.json",
         "json_sphere_negative_radius.json:5:41: sphere 'radius' must be > 0"},
        {kData + "/bad/json_truncated.json", "json_truncated.json:4:60: syntax error"},
        {kData + "/bad/obj_negative_range.obj", "obj_negative_range.obj:4: vertex index -4 out of range"},
        {kData + "/bad/mtl_nan.obj", "mtl_nan.mtl:2: malformed number 'nan' in 'Kd'"},
        {kData + "/bad/nff_polygon_huge_count.nff", "nff_polygon_huge_count.nff:8: file ends after 1 of 5000000"},
        {kData + "/bad/json_include_device.json", "included file '/dev/zero' is not a regular file"},
        {kData + "/bad/gltf_tex_required_extension.gltf",
         "gltf_tex_required_extension.gltf: /extensionsRequired/0: the file requires the extension "
         "'KHR_draco_mesh_compression', which stencilrt does not support"},
        {kData + "/bad/json_tex_truncated.json", "tex_truncated.png: corrupt PNG: the file ends inside the image data"},
        {kData + "/bad/json_tex_huge_claim.json", "tex_huge_claim.png: the header claims 16384 x 16384 texels"},
        {dir / "missing.json", "missing.json: cannot open scene file"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.scene);
        const std::string out = dir / "out.png";
        const Result r = run(dir, {"render", c.scene, "--backend", "cpu", "-W", "32", "-H", "24", "-o", out});
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
        EXPECT_EQ(dir.entries(), std::vector<std::string>{}) << "files left behind";
    }
}

TEST(Robust, UnknownKeyIsAWarningNotAFailure) {
    TempDir dir;
    const Result r = run(dir, {"render", kData + "/good/json_unknown_keys.json", "--backend", "cpu", "-W", "16",
                               "-H", "16", "-o", dir / "out.png"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("warning: unknown key 'objetcs' in the scene (did you mean 'objects'?)"), std::string::npos)
        << r.err;
    EXPECT_TRUE(fs::exists(dir / "out.png"));
}

// ---------------------------------------------------------------------------
// (b) Ctrl-C during a render: no output, no temporary file, an existing output kept.
// ---------------------------------------------------------------------------

TEST(Robust, InterruptedRenderLeavesNoPartialFile) {
    TempDir dir;
    const std::string out = dir / "out.png";
    const std::string before = "an earlier, complete output\n";
    write_text(out, before);
    const std::string so = dir / "stdout.txt", se = dir / "stderr.txt";
    const pid_t pid = spawn({kBinary, "render", "--backend", "cpu", "-W", "4096", "-H", "4096", "--depth", "16",
                             "-o", out},
                            so, se);
    // Started rendering: the executor's worker threads run, or the ray buffers
    // (4096 x 4096 x 72 bytes = 1.2 GB) are resident.
    bool started = false;
    for (auto t0 = std::chrono::steady_clock::now(); std::chrono::steady_clock::now() - t0 < 120s;) {
        long rss = 0, threads = 0;
        proc_status(pid, rss, threads);
        if (threads > 1 || rss > 512 * 1024) {
            started = true;
            break;
        }
        if (waitpid(pid, nullptr, WNOHANG) == pid) break;  // should not happen
        std::this_thread::sleep_for(20ms);
    }
    ASSERT_TRUE(started) << slurp(se);
    ASSERT_EQ(kill(pid, SIGINT), 0);
    const Result r = wait_for(pid, so, se);
    EXPECT_EQ(r.signal, SIGINT) << "exit " << r.exit_code << "\n" << r.err;
    fs::remove(so);
    fs::remove(se);
    EXPECT_EQ(slurp(out), before) << "the existing output was touched";
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.png"}) << "a temporary file was left";
}

// The window that matters for the handler in core/output_file.cpp: the temporary file exists.
// A child process writes PNGs in a loop (RobustHelper.WriteLoop) and is killed at
// varying moments; whenever it dies, no temporary file may remain.
TEST(RobustHelper, WriteLoop) {
    const char* path = std::getenv("SRT_ROBUST_WRITE_LOOP");
    if (!path) GTEST_SKIP() << "helper for Robust.SignalDuringWriteRemovesTempFile";
    srt::Image img(1024, 1024);
    for (size_t i = 0; i < img.rgba.size(); ++i) img.rgba[i] = uint8_t((i * 2654435761u) >> 13);
    for (;;) srt::write_png_atomic(path, img);
}

TEST(Robust, SignalDuringWriteRemovesTempFile) {
    TempDir dir;
    const std::string out = dir / "out.png";
    const std::string so = dir / "stdout.txt", se = dir / "stderr.txt";
    const char* self = "/proc/self/exe";
    const std::string exe = fs::read_symlink(self).string();
    const int signals[] = {SIGINT, SIGTERM};
    for (int i = 0; i < 24; ++i) {
        const int sig = signals[i % 2];
        fs::remove(out);
        const pid_t pid = spawn({exe, "--gtest_filter=RobustHelper.WriteLoop"}, so, se,
                                {"SRT_ROBUST_WRITE_LOOP=" + out});
        // After the first complete write, kill at a different point of the cycle.
        for (auto t0 = std::chrono::steady_clock::now();
             !fs::exists(out) && std::chrono::steady_clock::now() - t0 < 60s;)
            std::this_thread::sleep_for(1ms);
        ASSERT_TRUE(fs::exists(out)) << slurp(se);
        std::this_thread::sleep_for(std::chrono::milliseconds(7 * i));
        ASSERT_EQ(kill(pid, sig), 0);
        const Result r = wait_for(pid, so, se);
        EXPECT_EQ(r.signal, sig) << r.err;
        fs::remove(so);
        fs::remove(se);
        EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.png"}) << "round " << i;
        // What is there is a complete PNG: the rename only ever installs whole files.
        EXPECT_NO_THROW(srt::read_png(out)) << "round " << i;
    }
}

// ---------------------------------------------------------------------------
// (c) The output never overwrites an input.
// ---------------------------------------------------------------------------

TEST(Robust, OutputOverTheSceneIsRefused) {
    TempDir dir;
    const std::string scene = dir / "scene.json";
    fs::copy_file(kSource + "/scenes/default.json", scene);
    const std::string before = slurp(scene);
    const Result r = run(dir, {"render", scene, "--backend", "cpu", "-W", "16", "-H", "16", "-o", scene});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("refusing to write the image over the scene file"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(scene), before);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"scene.json"});
    // Also through another name for the same file.
    const Result r2 = run(dir, {"render", scene, "--backend", "cpu", "-W", "16", "-H", "16", "-o",
                                (dir.path() / "." / "scene.json").string()});
    EXPECT_EQ(r2.exit_code, 2) << r2.err;
    EXPECT_EQ(slurp(scene), before);
}

TEST(Robust, MissingOutputDirectoryIsExit2) {
    TempDir dir;
    const Result r = run(dir, {"render", "--backend", "cpu", "-W", "16", "-H", "16", "-o", dir / "no/such/out.png"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
}

// ---------------------------------------------------------------------------
// (d) A frame beyond the host's memory: the need and what is available, exit 2.
// ---------------------------------------------------------------------------

TEST(Robust, HostMemoryNeedMatchesTheCpuExecutor) {
    using namespace srt::app;
    // 16384^2 rays x (4 float4 + float + int32) + a stencil bit each, + RGBA/RGB/PNG.
    const uint64_t px = 16384ull * 16384ull;
    const HostMemoryNeed n = host_memory_need(16384, 16384, 8, true);
    EXPECT_EQ(n.ray_bytes, px * 72 + px / 8);
    EXPECT_EQ(n.image_bytes, px * 10);
    EXPECT_EQ(host_memory_need(16384, 16384, 8, false).ray_bytes, 0u);
    // Padding to whole warps.
    EXPECT_EQ(host_memory_need(3, 3, 8, true).ray_bytes, 32u * 72u + 4u);
    // Whitted's ray tree at depth 4: 3 deferred rays of 48 bytes and a count per ray.
    EXPECT_EQ(host_memory_need(3, 3, 8, true, 4).ray_bytes, 32u * 72u + 4u + 32u * (3u * 48u + 4u));
    // Padding to whole tiles, as the executors allocate (frame_geometry): 3x33 pixels
    // round up to 128 rays, but 8x4 tiles need 1 x 9 warps = 288 rays, 1x32 tiles
    // 3 x 2 warps = 192 rays.
    EXPECT_EQ(host_memory_need(3, 33, 8, true).ray_bytes, 288u * 72u + 36u);
    EXPECT_EQ(host_memory_need(3, 33, 1, true).ray_bytes, 192u * 72u + 24u);
}

TEST(Robust, HostMemoryCheckMessage) {
    using namespace srt::app;
    try {
        check_host_memory(16384, 16384, 8, true, uint64_t(4) << 30);
        FAIL() << "no error";
    } catch (const srt::InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("render 16384x16384 needs 20.5 GiB of host memory (ray buffers 18.0 GiB + image 2.5 GiB)"),
                  std::string::npos) << m;
        EXPECT_NE(m.find("only 4.0 GiB is available (MemAvailable)"), std::string::npos) << m;
    }
    EXPECT_NO_THROW(check_host_memory(16384, 16384, 8, true, uint64_t(64) << 30));
    EXPECT_NO_THROW(check_host_memory(16384, 16384, 8, true, 0));  // unknown: no check
    EXPECT_NO_THROW(check_host_memory(1920, 1080, 8, true, uint64_t(1) << 30));
    EXPECT_GT(host_memory_available(), 0u);  // Linux with /proc
}

TEST(Robust, HugeFrameOverHostMemoryIsExit2) {
    using namespace srt::app;
    const uint64_t need = host_memory_need(16384, 16384, 8, true).total();
    const uint64_t avail = host_memory_available();
    if (avail == 0 || need <= avail)
        GTEST_SKIP() << "16384x16384 needs " << format_bytes(need) << ", " << format_bytes(avail)
                     << " available: the host can hold it (the check is tested directly above)";
    TempDir dir;
    const Result r = run(dir, {"render", "--backend", "cpu", "-W", "16384", "-H", "16384", "--spp", "1", "-o",
                               dir / "out.png"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("of host memory"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("(MemAvailable)"), std::string::npos) << r.err;
    EXPECT_EQ(dir.entries(), std::vector<std::string>{});
}

// A scene file can ask for a frame bigger than the command line allows (NFF
// resolution up to 32768): the same check stops it.
TEST(Robust, SceneResolutionOverHostMemoryIsExit2) {
    using namespace srt::app;
    TempDir dir;
    const std::string scene = dir / "big.nff";
    write_text(scene, "v\nfrom 0 0 5\nat 0 0 0\nup 0 1 0\nangle 45\nhither 1\nresolution 32768 32768\n"
                      "l 0 5 5\nf 1 1 1 1 0 0 0 1\ns 0 0 0 1\n");
    const uint64_t need = host_memory_need(32768, 32768, 8, true).total();
    if (host_memory_available() == 0 || need <= host_memory_available())
        GTEST_SKIP() << "the host can hold a 32768^2 frame";
    const Result r = run(dir, {"render", scene, "--backend", "cpu", "-o", dir / "out.png"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("render 32768x32768 needs"), std::string::npos) << r.err;
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"big.nff"});
}
