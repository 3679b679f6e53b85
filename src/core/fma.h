// fma.h - a * b + c with one rounding, the same bits on the host and the device, and the
// dot and cross products built on it.
//
// Elsewhere FMA contraction is off on both sides (CMakeLists.txt: -ffp-contract=off,
// nvcc -fmad=false), so that host and device round alike; an explicit fma rounds alike
// by definition. On the device it is FFMA; on the host the instruction where the build
// enables it (-mfma, checked by CMake), else libm's correctly rounded fmaf.
#pragma once

#include "core/hd.h"

#include <glm/glm.hpp>

#include <cmath>

namespace srt {

SRT_HD_INLINE float fma1(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
    return __fmaf_rn(a, b, c);
#else
    return std::fma(a, b, c);
#endif
}

// Dot and cross products with fmas: fewer instructions where FMA contraction is off
// (nvcc -fmad=false, for bit-identity), and fewer roundings.
SRT_HD_INLINE float dot_fma(const glm::vec3& a, const glm::vec3& b) {
    return fma1(a.z, b.z, fma1(a.y, b.y, a.x * b.x));
}
SRT_HD_INLINE glm::vec3 cross_fma(const glm::vec3& a, const glm::vec3& b) {
    return glm::vec3(fma1(a.y, b.z, -(a.z * b.y)), fma1(a.z, b.x, -(a.x * b.z)), fma1(a.x, b.y, -(a.y * b.x)));
}

}  // namespace srt
