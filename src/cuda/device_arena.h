// device_arena.h - owners of memory that a build's steps share: one device allocation
// carved into pieces, and page-locked host memory.
#pragma once

#include "cuda/device_buffer.h"

#include <cstddef>

namespace srt {

// One allocation carved into typed pieces, each 256-byte aligned: a step that needs many
// buffers pays for one cudaMalloc, made before its work starts.
class DeviceArena {
public:
    // Runs `carve(arena)` twice: once to add up the pieces, once, after one allocation of
    // their sum (grown only), to hand them out. `carve` takes its pieces in one order.
    template <class F>
    void carve(F&& carve, const char* what) {
        base_ = nullptr;
        at_ = 0;
        carve(*this);
        buf_.grow(at_, what);
        base_ = buf_.get();
        at_ = 0;
        carve(*this);
    }
    // `n` elements of T: null while the pieces are added up.
    template <class T>
    T* take(size_t n) {
        T* p = base_ ? reinterpret_cast<T*>(base_ + at_) : nullptr;
        at_ += (n * sizeof(T) + 255) & ~size_t(255);
        return p;
    }
    size_t bytes() const { return buf_.bytes(); }
    void release() { buf_.release(); }

private:
    DeviceBuffer<unsigned char> buf_;
    unsigned char* base_ = nullptr;
    size_t at_ = 0;
};

// Page-locked host memory (staging, and counts read back without a blocking copy), grown
// on demand.
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    ~PinnedBuffer() {
        if (ptr_) cudaFreeHost(ptr_);
    }
    void* reserve(size_t bytes) {
        if (bytes > bytes_) {
            if (ptr_) cudaFreeHost(ptr_);
            ptr_ = nullptr;
            bytes_ = 0;
            CUDA_CHECK(cudaHostAlloc(&ptr_, bytes, cudaHostAllocPortable));
            bytes_ = bytes;
        }
        return ptr_;
    }

private:
    void* ptr_ = nullptr;
    size_t bytes_ = 0;
};

}  // namespace srt
