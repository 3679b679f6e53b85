// device_buffer.h - the one owner of a device allocation.
#pragma once

#include "cuda/check.h"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace srt {

// Thrown when cudaMalloc fails for lack of memory; says what was asked for.
class DeviceOutOfMemory : public CudaError {
public:
    using CudaError::CudaError;
};

inline std::string mib(size_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / (1024.0 * 1024.0));
    return buf;
}

template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept { swap(o); }
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        swap(o);
        return *this;
    }
    ~DeviceBuffer() { release(); }

    // (Re)allocates `n` elements; contents are undefined. `what` names the buffer in
    // an out-of-memory message.
    void allocate(size_t n, const char* what) {
        if (n == count_) return;
        release();
        if (n == 0) return;
        const size_t bytes = n * sizeof(T);
        const cudaError_t rc = cudaMalloc(reinterpret_cast<void**>(&ptr_), bytes);
        if (rc != cudaSuccess) {
            ptr_ = nullptr;
            cudaGetLastError();  // clear the sticky-free allocation error
            size_t free_b = 0, total_b = 0;
            cudaMemGetInfo(&free_b, &total_b);
            const std::string msg = std::string("out of device memory: ") + what + " needs " +
                                    mib(bytes) + ", " + mib(free_b) + " free of " + mib(total_b);
            if (rc == cudaErrorMemoryAllocation) throw DeviceOutOfMemory(rc, msg);
            cuda_check(rc, ("cudaMalloc(" + std::string(what) + ")").c_str(), __FILE__, __LINE__);
        }
        count_ = n;
    }
    // At least `n` elements: reallocates only to grow, so buffers that follow a changing
    // size (a split frame's band, a resized viewer) are not freed and allocated again
    // every time. size() is then the capacity.
    void grow(size_t n, const char* what) {
        if (n > count_) allocate(n, what);
    }
    void upload(const std::vector<T>& v, const char* what) {
        allocate(v.size(), what);
        if (!v.empty()) CUDA_CHECK(cudaMemcpy(ptr_, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    void release() {
        if (ptr_) cudaFree(ptr_);
        ptr_ = nullptr;
        count_ = 0;
    }
    T* get() const { return ptr_; }
    size_t size() const { return count_; }
    size_t bytes() const { return count_ * sizeof(T); }

private:
    void swap(DeviceBuffer& o) noexcept {
        std::swap(ptr_, o.ptr_);
        std::swap(count_, o.count_);
    }
    T* ptr_ = nullptr;
    size_t count_ = 0;
};

}  // namespace srt
