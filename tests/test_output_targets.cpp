// test_output_targets.cpp - writing an output never destroys what stands at
// its path. Each case runs the binary and checks the exit code, the message, what was
// written (byte for byte against a render to a plain file), and that nothing else in
// the directory was left or changed. Device nodes are made in a temporary folder
// (mknod, as root; skipped otherwise): no test points at a real /dev node. An output
// that cannot be created is refused before any frame, with the system's reason.
#include "support/process.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cerrno>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>
#include <sys/sysmacros.h>

using namespace srt::test;
using namespace std::chrono_literals;

namespace {

const std::string kBinary = SRT_BINARY;

Result render_to(const TempDir& logs, const std::string& out) {
    return run_binary(kBinary, logs, {"render", "--backend", "cpu", "-W", "32", "-H", "16", "-o", out});
}

// The PNG that a render to a plain file writes: what every other target must receive.
const std::string& reference_png() {
    static const std::string png = [] {
        TempDir dir;
        const Result r = render_to(dir, dir / "ref.png");
        if (r.exit_code != 0) throw std::runtime_error("reference render failed: " + r.err);
        return slurp(dir / "ref.png");
    }();
    return png;
}

struct stat lstat_of(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
    return st;
}

// Why the system refuses to create a file in `folder`, asked as the writer asks
// (O_CREAT | O_EXCL), or "" when it does create one (removed again): the reason an early
// refusal must give, from the system rather than from the code under test.
std::string create_refusal(const std::string& folder) {
    const std::string probe = folder + "/srt-probe-" + std::to_string(::getpid());
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return std::strerror(errno);
    ::close(fd);
    ::unlink(probe.c_str());
    return "";
}

// A refusal before the work: exit 2, the check's message (the flag first, then the
// folder and the system's reason; the writer's own message after a frame has no flag),
// nothing rendered (the scene line and the frame or sweep lines come after every
// output's check; with -o - they go to standard error), and no file at the path.
void expect_refused_before_any_frame(const Result& r, const std::string& flag, const std::string& out,
                                     const std::string& folder, const std::string& reason) {
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(flag + " " + out + ": cannot create a file in '" + folder + "': " + reason), std::string::npos)
        << r.err;
    for (const std::string* text : {&r.out, &r.err})
        for (const char* worked : {"scene    ", "frame    ", "median ms", "configurations", "viewer:"})
            EXPECT_EQ(text->find(worked), std::string::npos) << "the work began:\n" << *text;
    EXPECT_TRUE(r.out.empty()) << r.out;  // no image on standard output either
    EXPECT_FALSE(fs::exists(out)) << out;
}

// Every command line that writes a file, with `out` as the output of `flag`: render's
// -o and --stats-json, bench's --json, --csv and --plot, view's --screenshot.
struct Writer {
    std::string flag;
    std::vector<std::string> args;
};
std::vector<Writer> writers(const std::string& out) {
    const std::vector<std::string> render = {"render", "--backend", "cpu", "-W", "32", "-H", "16"};
    const std::vector<std::string> bench = {"bench", "--backend", "cpu", "-W", "32", "-H", "16", "--depths", "1",
                                            "--frames", "1", "--warmup", "0", "--no-tuning"};
    auto with = [](std::vector<std::string> a, std::initializer_list<std::string> more) {
        a.insert(a.end(), more);
        return a;
    };
    return {
        {"-o", with(render, {"-o", out})},
        {"--stats-json", with(render, {"-o", "-", "--stats-json", out})},
        {"--json", with(bench, {"--json", out})},
        {"--csv", with(bench, {"--csv", out})},
        {"--plot", with(bench, {"--plot", out})},
        {"--screenshot", {"view", "--backend", "cpu", "-W", "32", "-H", "16", "--frames", "2", "--screenshot", out}},
    };
}

// The viewer is optional at build time; without it `view` says so and does nothing.
bool viewer_missing(const Result& r) { return r.err.find("built without the viewer") != std::string::npos; }

}  // namespace

TEST(OutputTarget, ReferenceIsAPng) {
    ASSERT_GT(reference_png().size(), 8u);
    EXPECT_EQ(reference_png().substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

TEST(OutputTarget, SymlinkToAFileWritesTheFileAndKeepsTheLink) {
    TempDir dir;
    write_text(dir / "real.png", "old contents\n");
    ::chmod((dir / "real.png").c_str(), 0600);
    fs::create_symlink("real.png", dir / "link.png");
    const Result r = render_to(dir, dir / "link.png");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(S_ISLNK(lstat_of(dir / "link.png").st_mode)) << "the link was replaced";
    EXPECT_EQ(fs::read_symlink(dir / "link.png"), "real.png");
    EXPECT_EQ(slurp(dir / "real.png"), reference_png());
    EXPECT_EQ(lstat_of(dir / "real.png").st_mode & 0777, 0600u) << "a replaced file keeps its permissions";
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"link.png", "real.png"}));
}

TEST(OutputTarget, DanglingSymlinkCreatesItsTarget) {
    TempDir dir;
    fs::create_symlink("made.png", dir / "link.png");
    const Result r = render_to(dir, dir / "link.png");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(S_ISLNK(lstat_of(dir / "link.png").st_mode));
    EXPECT_EQ(slurp(dir / "made.png"), reference_png());
    EXPECT_EQ(lstat_of(dir / "made.png").st_mode & 0777, 0644u);
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"link.png", "made.png"}));
}

TEST(OutputTarget, SymlinkIntoAnotherDirectoryWritesBesideItsTarget) {
    TempDir a, b;
    write_text(b / "out.png", "old\n");
    fs::create_symlink(fs::relative(b.path() / "out.png", a.path()), a / "rel.png");  // ../srt-robust-*/out.png
    fs::create_symlink(fs::path(a / "rel.png"), a / "chain.png");                     // absolute, to a link
    for (const char* link : {"rel.png", "chain.png"}) {
        SCOPED_TRACE(link);
        write_text(b / "out.png", "old\n");
        const Result r = render_to(a, a / link);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(slurp(b / "out.png"), reference_png());
        EXPECT_EQ(a.entries(), (std::vector<std::string>{"chain.png", "rel.png"})) << "temporary files left";
        EXPECT_EQ(b.entries(), std::vector<std::string>{"out.png"}) << "temporary files left";
        EXPECT_TRUE(S_ISLNK(lstat_of(a / link).st_mode));
    }
}

TEST(OutputTarget, SymlinkIntoAMissingDirectoryIsExit2) {
    TempDir dir;
    fs::create_symlink("nowhere/out.png", dir / "link.png");
    const Result r = render_to(dir, dir / "link.png");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    // The link is followed as the writer follows it, before the frame: the folder named is
    // the one the link leads into.
    EXPECT_NE(r.err.find("-o " + (dir / "link.png") + ": cannot create a file in '" + (dir / "nowhere") +
                         "': No such file or directory"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.out.find("frame    "), std::string::npos) << r.out;
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"link.png"});
}

TEST(OutputTarget, FifoWithAReaderGetsTheImage) {
    TempDir dir;
    const std::string fifo = dir / "pipe.png";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    std::string got;
    // A reader blocked in open() already counts as a reader of the FIFO (Linux).
    std::thread reader([&] {
        const int fd = ::open(fifo.c_str(), O_RDONLY);
        if (fd < 0) return;
        char buf[4096];
        ssize_t n;
        while ((n = ::read(fd, buf, sizeof buf)) > 0) got.append(buf, size_t(n));
        ::close(fd);
    });
    std::this_thread::sleep_for(200ms);
    const Result r = render_to(dir, fifo);
    reader.join();
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(got, reference_png());
    EXPECT_TRUE(S_ISFIFO(lstat_of(fifo).st_mode)) << "the FIFO was replaced";
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"pipe.png"});
}

TEST(OutputTarget, FifoWithoutAReaderIsAnErrorNotAHang) {
    TempDir dir;
    const std::string fifo = dir / "pipe.png";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    const auto t0 = std::chrono::steady_clock::now();
    const Result r = render_to(dir, fifo);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 60s);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("pipe.png: cannot open for writing: no process is reading this FIFO"), std::string::npos)
        << r.err;
    EXPECT_TRUE(S_ISFIFO(lstat_of(fifo).st_mode));
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"pipe.png"});
}

TEST(OutputTarget, DashIsStandardOutputAndTheTextGoesToStandardError) {
    TempDir dir;
    const Result r = render_to(dir, "-");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, reference_png()) << "stdout must hold the PNG and nothing else";
    EXPECT_NE(r.err.find("frame    32x16"), std::string::npos) << r.err;
    EXPECT_EQ(dir.entries(), std::vector<std::string>{});
}

TEST(OutputTarget, DeviceNodesAreWrittenInPlace) {
    TempDir dir;
    const std::string null = dir / "null", full = dir / "full";
    if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0 ||
        ::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0)
        GTEST_SKIP() << "mknod needs root (" << std::strerror(errno) << "): device targets not tested";
    auto is_device = [&](const std::string& p, unsigned minor_no) {
        const struct stat st = lstat_of(p);
        return S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == minor_no;
    };
    const Result a = render_to(dir, null);
    EXPECT_EQ(a.exit_code, 0) << a.err;
    EXPECT_TRUE(is_device(null, 3)) << "the null device was replaced";

    const Result b = render_to(dir, full);
    EXPECT_EQ(b.exit_code, 2) << b.err;
    EXPECT_NE(b.err.find("full: write failed: No space left on device"), std::string::npos) << b.err;
    EXPECT_TRUE(is_device(full, 7)) << "the full device was replaced";
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"full", "null"}));
}

TEST(OutputTarget, DirectoryIsExit2) {
    TempDir dir;
    fs::create_directory(dir / "sub");
    const Result r = render_to(dir, dir / "sub");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("sub: is a directory"), std::string::npos) << r.err;
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"sub"});
    EXPECT_TRUE(fs::is_empty(dir / "sub"));
}

// A read-only folder refuses every output before the first frame: render's -o and
// --stats-json, bench's --json, --csv and --plot, view's --screenshot (its check comes
// before the window, so no display is needed).
TEST(OutputTarget, ReadOnlyDirectoryIsExit2AndLeavesNothing) {
    TempDir dir;
    const std::string ro = dir / "ro";
    fs::create_directory(ro);
    ::chmod(ro.c_str(), 0555);
    const std::string reason = create_refusal(ro);
    if (reason.empty()) {
        ::chmod(ro.c_str(), 0755);
        GTEST_SKIP() << "this user (root?) writes into a read-only folder: the permission check does not apply; "
                        "run as a normal user (CI reruns OutputTarget.* as nobody)";
    }
    const std::string out = ro + "/out.png";
    for (const Writer& w : writers(out)) {
        SCOPED_TRACE(w.flag + " " + out);
        const Result r = run_binary(kBinary, dir, w.args);
        if (w.flag == "--screenshot" && viewer_missing(r)) continue;
        expect_refused_before_any_frame(r, w.flag, out, ro, reason);
    }
    ::chmod(ro.c_str(), 0755);
    EXPECT_TRUE(fs::is_empty(ro));
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"ro"});
}

// /proc and /sys refuse a new file even to root, so these cases run for every user.
TEST(OutputTarget, ProcAndSysAreRefusedBeforeAnyFrame) {
    for (const std::string folder : {"/proc", "/sys"}) {
        const std::string reason = create_refusal(folder);
        ASSERT_FALSE(reason.empty()) << folder << " accepted a new file";
        const std::string out = folder + "/x.png";
        for (const Writer& w : writers(out)) {
            SCOPED_TRACE(w.flag + " " + out);
            TempDir dir;
            const Result r = run_binary(kBinary, dir, w.args);
            if (w.flag == "--screenshot" && viewer_missing(r)) continue;
            expect_refused_before_any_frame(r, w.flag, out, folder, reason);
            EXPECT_EQ(dir.entries(), std::vector<std::string>{});
        }
    }
}

// A write that fails half-way (here: the file-size limit, as a full disk would) leaves
// neither the temporary file nor a partial output, and an existing output untouched.
TEST(OutputTarget, FailedWriteLeavesNothingBehind) {
    TempDir dir;
    write_text(dir / "out.png", "an earlier output\n");
    const std::string cmd = "trap '' XFSZ; ulimit -f 1; exec " + kBinary +
                            " render --backend cpu -W 32 -H 16 -o " + (dir / "out.png");
    const Result r = run_binary("/bin/sh", dir, {"-c", cmd});
    ASSERT_GT(reference_png().size(), 512u) << "the image must outgrow the 512-byte limit";
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("out.png: write failed: File too large"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(dir / "out.png"), "an earlier output\n");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.png"}) << "temporary file left";
}
