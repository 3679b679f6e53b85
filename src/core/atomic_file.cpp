// atomic_file.cpp - temporary file + fsync + rename, with signal cleanup (see atomic_file.h).
#include "core/atomic_file.h"

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
// write_file_atomic has a temporary file, handlers for the terminating signals unlink
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
    explicit TmpFileGuard(const std::string& tmpl) : lock_(g_tmp_mutex) {
        if (tmpl.size() >= sizeof(g_tmp_path)) throw std::runtime_error(tmpl + ": path too long");
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

}  // namespace

void write_file_atomic(const std::string& path, std::string_view bytes) {
    // Temporary file in the same directory (so rename() is atomic), then rename.
    TmpFileGuard guard(path + ".tmp-XXXXXX");
    const int fd = mkstemp(guard.path());
    if (fd < 0) throw std::runtime_error(path + ": cannot create a temporary file: " + std::strerror(errno));
    const std::string tmp(guard.path());
    size_t off = 0;
    while (off < bytes.size()) {
        const ssize_t w = ::write(fd, bytes.data() + off, bytes.size() - off);
        if (w < 0) {
            if (errno == EINTR) continue;
            const std::string why = std::strerror(errno);
            ::close(fd);
            ::unlink(tmp.c_str());
            throw std::runtime_error(path + ": write failed: " + why);
        }
        off += size_t(w);
    }
    ::fchmod(fd, 0644);  // mkstemp makes 0600; these files are meant to be shared
    if (::fsync(fd) != 0) {
        const std::string why = std::strerror(errno);
        ::close(fd);
        ::unlink(tmp.c_str());
        throw std::runtime_error(path + ": write failed: " + why);
    }
    if (::close(fd) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(tmp.c_str());
        throw std::runtime_error(path + ": write failed: " + why);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(tmp.c_str());
        throw std::runtime_error(path + ": cannot rename the temporary file into place: " + why);
    }
}

}  // namespace srt
