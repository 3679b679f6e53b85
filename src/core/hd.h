// hd.h - the one macro that lets a function build for both host and device.
//
// Stage code (camera, intersection, shading, reflection, resolve) is written once
// and compiled twice: by nvcc for the CUDA kernels and by the host compiler for the
// CPU executor. SRT_HD expands to `__host__ __device__` only under nvcc.
#pragma once

#if defined(__CUDACC__)
#define SRT_HD __host__ __device__
#define SRT_HD_INLINE __host__ __device__ __forceinline__
// A call, never inlined: for code a kernel runs rarely or under one setting, so that its
// registers do not weigh on the kernel's common path.
#define SRT_HD_NOINLINE inline __host__ __device__ __noinline__
// Before a loop whose body must stay one copy in the kernel (a traversal): nvcc does not
// unroll it. The host compiler has no such pragma and needs none.
#define SRT_NO_UNROLL _Pragma("unroll 1")
#else
#define SRT_HD
#define SRT_HD_INLINE inline
#define SRT_HD_NOINLINE inline
#define SRT_NO_UNROLL
#endif

#include <cstdint>
#include <cstring>

namespace srt {

// A 16-byte, 16-aligned vector used for GPU-visible storage (one LDG.128 per load).
// Code works in glm::vec3; storage is f4 so that loads and stores are vectorised.
struct alignas(16) f4 {
    float x, y, z, w;
};
static_assert(sizeof(f4) == 16, "f4 must be 16 bytes");

// The bits of a float and back (one instruction on the device, memcpy on the host).
SRT_HD_INLINE uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
#endif
}
SRT_HD_INLINE float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    std::memcpy(&f, &u, 4);
    return f;
#endif
}

// Bits of a word (one instruction each on the device, a builtin on the host): how many
// are set, and the index of the highest and the lowest set bit of x != 0.
SRT_HD_INLINE uint32_t popc32(uint32_t x) {
#if defined(__CUDA_ARCH__)
    return uint32_t(__popc(x));
#else
    return uint32_t(__builtin_popcount(x));
#endif
}
SRT_HD_INLINE int highest_bit(uint32_t x) {
#if defined(__CUDA_ARCH__)
    return 31 - __clz(x);
#else
    return 31 - __builtin_clz(x);
#endif
}
SRT_HD_INLINE int lowest_bit(uint32_t x) {
#if defined(__CUDA_ARCH__)
    return __ffs(int(x)) - 1;
#else
    return __builtin_ctz(x);
#endif
}

}  // namespace srt
