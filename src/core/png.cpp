// png.cpp - PNG in and out through stb (libstb-dev), with atomic replacement.
#include "core/image.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb_image.h>
#include <stb_image_write.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace srt {
namespace {

void append_bytes(void* ctx, void* data, int size) {
    auto* v = static_cast<std::vector<unsigned char>*>(ctx);
    const auto* p = static_cast<const unsigned char*>(data);
    v->insert(v->end(), p, p + size);
}

// Ctrl-C (or a kill) while the temporary file exists must not leave it behind. While
// write_png_atomic has a temporary file, handlers for the terminating signals unlink
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

void write_png_atomic(const std::string& path, const Image& img) {
    if (img.width <= 0 || img.height <= 0) throw std::runtime_error(path + ": empty image");
    // Encode fully in memory first: nothing touches the disk until the bytes exist.
    std::vector<unsigned char> rgb(size_t(img.width) * size_t(img.height) * 3);
    for (size_t p = 0, n = size_t(img.width) * size_t(img.height); p < n; ++p)
        std::memcpy(&rgb[p * 3], &img.rgba[p * 4], 3);
    std::vector<unsigned char> png;
    if (!stbi_write_png_to_func(append_bytes, &png, img.width, img.height, 3, rgb.data(),
                                img.width * 3))
        throw std::runtime_error(path + ": PNG encoding failed");

    // Temporary file in the same directory (so rename() is atomic), then rename.
    TmpFileGuard guard(path + ".tmp-XXXXXX");
    const int fd = mkstemp(guard.path());
    if (fd < 0) throw std::runtime_error(path + ": cannot create a temporary file: " + std::strerror(errno));
    const std::string tmp(guard.path());
    size_t off = 0;
    while (off < png.size()) {
        const ssize_t w = ::write(fd, png.data() + off, png.size() - off);
        if (w < 0) {
            if (errno == EINTR) continue;
            const std::string why = std::strerror(errno);
            ::close(fd);
            ::unlink(tmp.c_str());
            throw std::runtime_error(path + ": write failed: " + why);
        }
        off += size_t(w);
    }
    ::fchmod(fd, 0644);
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
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

Image read_png(const std::string& path) {
    int w = 0, h = 0, n = 0;
    unsigned char* data = stbi_load(path.c_str(), &w, &h, &n, 4);
    if (!data) throw std::runtime_error(path + ": cannot read PNG: " + stbi_failure_reason());
    Image img(w, h);
    std::memcpy(img.rgba.data(), data, size_t(w) * size_t(h) * 4);
    stbi_image_free(data);
    return img;
}

ImageDiff compare_images(const Image& a, const Image& b, int tolerance) {
    ImageDiff d;
    if (a.width != b.width || a.height != b.height) {
        d.channels = 1;
        d.over_tolerance = 1;
        d.max_diff = 255;
        return d;
    }
    for (size_t p = 0, n = size_t(a.width) * size_t(a.height); p < n; ++p) {
        for (int c = 0; c < 3; ++c) {
            const int diff = std::abs(int(a.rgba[p * 4 + c]) - int(b.rgba[p * 4 + c]));
            d.channels++;
            d.exact_equal += diff == 0;
            d.over_tolerance += diff > tolerance;
            d.max_diff = std::max(d.max_diff, diff);
        }
    }
    return d;
}

}  // namespace srt
