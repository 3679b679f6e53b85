// interop.cpp - CUDA-OpenGL interop for the viewer's pixel buffer.
//
// Every CUDA call is checked; a failure names the call, its error code and name, and
// file:line. GLAD's header (viewer/gl.h) comes first: cuda_gl_interop.h includes
// <GL/gl.h>, which GLAD's include guard then turns into a no-op.
#include "viewer/gl.h"
#include "viewer/interop.h"

#if defined(SRT_HAVE_CUDA)

#include <cuda_runtime.h>
#include <cuda_gl_interop.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace srt::viewer {
namespace {

std::string cuda_message(cudaError_t e, const char* expr, const char* file, int line) {
    return std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " +
           cudaGetErrorName(e) + " (" + std::to_string(int(e)) + "): " + cudaGetErrorString(e);
}

void cuda_check(cudaError_t e, const char* expr, const char* file, int line) {
    if (e != cudaSuccess) {
        (void)cudaGetLastError();  // runtime errors here are not sticky; clear the record
        throw std::runtime_error(cuda_message(e, expr, file, line));
    }
}

// For destructors, which must not throw: report and go on.
void cuda_report(cudaError_t e, const char* expr, const char* file, int line) {
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        std::fprintf(stderr, "viewer: %s\n", cuda_message(e, expr, file, line).c_str());
    }
}

#define SRT_CUDA_CHECK(expr) cuda_check((expr), #expr, __FILE__, __LINE__)
#define SRT_CUDA_REPORT(expr) cuda_report((expr), #expr, __FILE__, __LINE__)

// Owns one registration. Copying is deleted: two owners would unregister twice.
class CudaGlRegistration {
public:
    explicit CudaGlRegistration(GLuint buffer) {
        // Write-discard: CUDA overwrites the whole buffer every frame, so the driver
        // need not preserve the old contents when it maps it.
        SRT_CUDA_CHECK(cudaGraphicsGLRegisterBuffer(&res_, buffer,
                                                    cudaGraphicsRegisterFlagsWriteDiscard));
    }
    ~CudaGlRegistration() {
        if (res_) SRT_CUDA_REPORT(cudaGraphicsUnregisterResource(res_));
    }
    CudaGlRegistration(const CudaGlRegistration&) = delete;
    CudaGlRegistration& operator=(const CudaGlRegistration&) = delete;

    cudaGraphicsResource_t get() const { return res_; }

private:
    cudaGraphicsResource_t res_ = nullptr;
};

// One map/unmap, scoped: an exception thrown while writing still unmaps, so the
// buffer never stays locked away from GL.
class ScopedMap {
public:
    explicit ScopedMap(cudaGraphicsResource_t res) : res_(res) {
        SRT_CUDA_CHECK(cudaGraphicsMapResources(1, &res_, 0));
        mapped_ = true;
        void* ptr = nullptr;
        SRT_CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&ptr, &bytes_, res_));
        ptr_ = static_cast<uint32_t*>(ptr);
    }
    ~ScopedMap() {
        if (mapped_) SRT_CUDA_REPORT(cudaGraphicsUnmapResources(1, &res_, 0));
    }
    ScopedMap(const ScopedMap&) = delete;
    ScopedMap& operator=(const ScopedMap&) = delete;

    // The checked unmap of the normal path.
    void unmap() {
        mapped_ = false;
        SRT_CUDA_CHECK(cudaGraphicsUnmapResources(1, &res_, 0));
    }
    uint32_t* ptr() const { return ptr_; }
    size_t bytes() const { return bytes_; }

private:
    cudaGraphicsResource_t res_;
    bool mapped_ = false;
    uint32_t* ptr_ = nullptr;
    size_t bytes_ = 0;
};

class CudaPboInterop final : public PboInterop {
public:
    explicit CudaPboInterop(GLuint pbo) : reg_(pbo) {}

    void write(const std::function<void(uint32_t*, size_t)>& fn) override {
        ScopedMap map(reg_.get());
        fn(map.ptr(), map.bytes());
        // Unmapping orders only the work of stream 0 before GL's next commands; the
        // executor may launch on its own streams, so wait for the whole device.
        SRT_CUDA_CHECK(cudaDeviceSynchronize());
        map.unmap();
    }

private:
    CudaGlRegistration reg_;
};

}  // namespace

std::unique_ptr<PboInterop> register_pbo(GLuint pbo, std::string& why_not) {
    try {
        return std::make_unique<CudaPboInterop>(pbo);
    } catch (const std::exception& e) {
        why_not = e.what();
        return nullptr;
    }
}

}  // namespace srt::viewer

#else  // !SRT_HAVE_CUDA

namespace srt::viewer {

std::unique_ptr<PboInterop> register_pbo(GLuint, std::string& why_not) {
    why_not = "this stencilrt was built without CUDA";
    return nullptr;
}

}  // namespace srt::viewer

#endif
