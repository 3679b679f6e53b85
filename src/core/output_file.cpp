// output_file.cpp - outputs that never destroy what stands at their path (see output_file.h):
// symlinks resolved, devices and FIFOs written in place, files replaced by temporary
// file + fsync + rename with signal cleanup.
#include "core/output_file.h"

#include "core/error.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace srt {
namespace {

// Ctrl-C (or a kill) while the temporary file exists must not leave it behind. While
// replace_file has a temporary file, handlers for the terminating signals unlink
// it, put the previous disposition back and re-raise, so the process still ends the
// way it would have (status "killed by SIGINT"). Everything the handler touches is
// plain static data and async-signal-safe calls (unlink, sigaction, raise).
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
constexpr int kSignalCount = int(sizeof(kCleanupSignals) / sizeof(kCleanupSignals[0]));
char g_tmp_path[PATH_MAX];
volatile sig_atomic_t g_tmp_active = 0;
struct sigaction g_previous[kSignalCount];
bool g_installed[kSignalCount];
std::mutex g_tmp_mutex;  // one temporary file at a time: the path buffer is shared

extern "C" void unlink_tmp_and_reraise(int sig) {
    if (g_tmp_active) ::unlink(g_tmp_path);
    for (int i = 0; i < kSignalCount; ++i)
        if (kCleanupSignals[i] == sig && g_installed[i]) ::sigaction(sig, &g_previous[i], nullptr);
    // Blocked until this handler returns, then delivered with the previous action.
    ::raise(sig);
}

// Installs the handlers for the lifetime of one temporary file. The path is set
// before mkstemp creates the file (mkstemp writes the final name into the buffer
// before creating it), so there is no moment when the file exists unregistered.
class TmpFileGuard {
public:
    // `target`: the file the temporary file stands beside (and is renamed over).
    explicit TmpFileGuard(const std::string& target) : lock_(g_tmp_mutex) {
        const std::string tmpl = target + ".tmp-XXXXXX";
        if (tmpl.size() >= sizeof(g_tmp_path)) throw OutputError(tmpl + ": path too long");
        std::memcpy(g_tmp_path, tmpl.c_str(), tmpl.size() + 1);
        for (int i = 0; i < kSignalCount; ++i) {
            g_installed[i] = false;
            struct sigaction prev {};
            if (::sigaction(kCleanupSignals[i], nullptr, &prev) != 0) continue;
            // An ignored signal stays ignored: the write goes on, so the file must too.
            if (!(prev.sa_flags & SA_SIGINFO) && prev.sa_handler == SIG_IGN) continue;
            g_previous[i] = prev;
            struct sigaction sa {};
            sa.sa_handler = unlink_tmp_and_reraise;
            sigemptyset(&sa.sa_mask);
            g_installed[i] = ::sigaction(kCleanupSignals[i], &sa, nullptr) == 0;
        }
        g_tmp_active = 1;
    }
    ~TmpFileGuard() {
        // A signal from here on finds the file renamed (or removed): nothing to unlink.
        g_tmp_active = 0;
        for (int i = 0; i < kSignalCount; ++i)
            if (g_installed[i]) ::sigaction(kCleanupSignals[i], &g_previous[i], nullptr);
    }
    char* path() { return g_tmp_path; }
    TmpFileGuard(const TmpFileGuard&) = delete;
    TmpFileGuard& operator=(const TmpFileGuard&) = delete;

private:
    std::lock_guard<std::mutex> lock_;
};

// Writes all of `bytes` to `fd`; false with errno set on failure.
bool write_all(int fd, std::string_view bytes) {
    size_t off = 0;
    while (off < bytes.size()) {
        const ssize_t w = ::write(fd, bytes.data() + off, bytes.size() - off);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        off += size_t(w);
    }
    return true;
}

std::string errno_text() { return std::strerror(errno); }

// Where a path leads: symlinks followed link by link (a dangling one leads to the
// missing file it names).
struct Target {
    enum Kind { Missing, Regular, Special } kind;
    std::string path;  // the file itself, after the links
    mode_t mode = 0;   // a regular file's permissions
};

Target resolve(const std::string& path) {
    std::string p = path;
    for (int links = 0;; ++links) {
        struct stat st {};
        if (::lstat(p.c_str(), &st) != 0) {
            if (errno == ENOENT) return {Target::Missing, p};
            throw OutputError(path + ": cannot inspect '" + p + "': " + errno_text());
        }
        if (S_ISLNK(st.st_mode)) {
            if (links == 40) throw OutputError(path + ": too many levels of symbolic links");
            std::string to(PATH_MAX, '\0');
            const ssize_t n = ::readlink(p.c_str(), to.data(), to.size());
            if (n <= 0) throw OutputError(path + ": cannot read the link '" + p + "': " + errno_text());
            to.resize(size_t(n));
            const size_t slash = p.rfind('/');
            p = (to.front() == '/' || slash == std::string::npos) ? to : p.substr(0, slash + 1) + to;
            continue;
        }
        if (S_ISDIR(st.st_mode)) throw OutputError(path + ": is a directory");
        if (S_ISREG(st.st_mode)) return {Target::Regular, p, st.st_mode & 07777};
        return {Target::Special, p};
    }
}

// A device, FIFO or socket: written in place. O_NONBLOCK only for the open, so that a
// FIFO nobody reads is an error (ENXIO) instead of a hang.
void write_in_place(const std::string& path, const std::string& target, std::string_view bytes) {
    const int fd = ::open(target.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENXIO)
            throw OutputError(path + ": cannot open for writing: no process is reading this FIFO (or it is a socket)");
        throw OutputError(path + ": cannot open for writing: " + errno_text());
    }
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    if (!write_all(fd, bytes)) {
        const std::string why = errno_text();
        ::close(fd);
        throw OutputError(path + ": write failed: " + why);
    }
    if (::close(fd) != 0) throw OutputError(path + ": write failed: " + errno_text());
}

// The folder a file is created in, as the message names it: "ro" for "ro/x.png", "."
// for "x.png", "/" for "/x.png".
std::string folder_of(const std::string& file) {
    const size_t slash = file.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : file.substr(0, slash);
}

// Creates the temporary file `TARGET.tmp-XXXXXX` beside `target`, registered with `guard`
// (mkstemp: O_CREAT | O_EXCL, mode 0600). replace_file writes through it and
// probe_output_file creates and removes it, so the check before the work meets exactly
// the failure the write would meet (a read-only folder, /proc, /sys), with the
// system's reason.
int create_temp_file(const std::string& path, const std::string& target, TmpFileGuard& guard) {
    const int fd = mkstemp(guard.path());
    if (fd < 0) throw OutputError(path + ": cannot create a file in '" + folder_of(target) + "': " + errno_text());
    return fd;
}

// A missing or regular file: a temporary file in the same directory (so rename() is
// atomic), then rename. `mode` is kept (0644 for a new file).
void replace_file(const std::string& path, const std::string& target, mode_t mode, std::string_view bytes) {
    TmpFileGuard guard(target);
    const int fd = create_temp_file(path, target, guard);
    const std::string tmp(guard.path());
    auto fail = [&](const std::string& what) {
        const std::string why = errno_text();
        ::close(fd);
        ::unlink(tmp.c_str());
        throw OutputError(path + ": " + what + ": " + why);
    };
    if (!write_all(fd, bytes)) fail("write failed");
    ::fchmod(fd, mode);  // mkstemp makes 0600
    if (::fsync(fd) != 0) fail("write failed");
    if (::close(fd) != 0) {
        const std::string why = errno_text();
        ::unlink(tmp.c_str());
        throw OutputError(path + ": write failed: " + why);
    }
    if (std::rename(tmp.c_str(), target.c_str()) != 0) {
        const std::string why = errno_text();
        ::unlink(tmp.c_str());
        throw OutputError(path + ": cannot rename the temporary file into place: " + why);
    }
}

}  // namespace

void write_output_file(const std::string& path, std::string_view bytes) {
    if (path == "-") {
        std::fflush(stdout);  // text printed earlier goes first
        if (!write_all(STDOUT_FILENO, bytes)) throw OutputError("-: write to standard output failed: " + errno_text());
        return;
    }
    const Target t = resolve(path);
    if (t.kind == Target::Special) write_in_place(path, t.path, bytes);
    else replace_file(path, t.path, t.kind == Target::Regular ? t.mode : 0644, bytes);
}

void probe_output_file(const std::string& path) {
    if (path == "-") return;
    const Target t = resolve(path);
    // A device, FIFO or socket is written in place and nothing is created beside it.
    // It is not opened here: a FIFO's reader would take the open and close as a writer
    // that came and went, and see its end of file before the real write.
    if (t.kind == Target::Special) return;
    TmpFileGuard guard(t.path);
    const int fd = create_temp_file(path, t.path, guard);
    ::close(fd);
    ::unlink(guard.path());
}

}  // namespace srt
