// check.h - CUDA error checking that says what failed and where.
//
// CUDA_CHECK(expr) captures the code that `expr` RETURNED (not cudaGetLastError) and
// throws CudaError("file:line: expr failed: cudaErrorX (description)"). Launches are
// checked with CUDA_CHECK_LAUNCH(name), which also synchronises in debug builds so an
// asynchronous fault is pinned to the kernel that caused it.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace srt {

class CudaError : public std::runtime_error {
public:
    CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
    cudaError_t code() const { return code_; }

private:
    cudaError_t code_;
};

inline void cuda_check(cudaError_t code, const char* expr, const char* file, int line) {
    if (code == cudaSuccess) return;
    throw CudaError(code, std::string(file) + ":" + std::to_string(line) + ": " + expr +
                              " failed: " + cudaGetErrorName(code) + " (" +
                              cudaGetErrorString(code) + ")");
}

}  // namespace srt

#define CUDA_CHECK(expr) ::srt::cuda_check((expr), #expr, __FILE__, __LINE__)

#if defined(NDEBUG)
#define CUDA_CHECK_LAUNCH(name) ::srt::cuda_check(cudaGetLastError(), name, __FILE__, __LINE__)
#else
#define CUDA_CHECK_LAUNCH(name)                                              \
    do {                                                                     \
        ::srt::cuda_check(cudaGetLastError(), name, __FILE__, __LINE__);     \
        ::srt::cuda_check(cudaDeviceSynchronize(), name, __FILE__, __LINE__); \
    } while (0)
#endif
