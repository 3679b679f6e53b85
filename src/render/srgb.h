// srgb.h - linear -> 8-bit sRGB, bit-identical on host and device.
//
// A pow() on the device and one on the host can differ in the last ulp, which is
// enough to flip an 8-bit value now and then. Instead, the 255 linear values at which
// the 8-bit sRGB code steps up are computed once on the host in double precision;
// encoding is then a binary search (8 comparisons), exact and identical everywhere.
//   code(v) = number of k in [0, 255) with v >= threshold[k]
//   threshold[k] = srgb_to_linear((k + 0.5) / 255)
// which equals floor(srgb(v) * 255 + 0.5) clamped to [0, 255] (POV-Ray's rounding).
#pragma once

#include "core/hd.h"

#include <array>
#include <cmath>
#include <cstdint>

namespace srt {

constexpr int kSrgbThresholds = 255;

inline double srgb_to_linear(double s) {
    return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
}
inline double linear_to_srgb(double v) {
    return v <= 0.0031308 ? v * 12.92 : 1.055 * std::pow(v, 1.0 / 2.4) - 0.055;
}

inline std::array<float, kSrgbThresholds> make_srgb_thresholds() {
    std::array<float, kSrgbThresholds> t{};
    for (int k = 0; k < kSrgbThresholds; ++k) t[k] = float(srgb_to_linear((k + 0.5) / 255.0));
    return t;
}

SRT_HD_INLINE uint32_t encode_srgb8(const float* thresholds, float v) {
    uint32_t code = 0;
    for (uint32_t step = 128; step > 0; step >>= 1) {
        const uint32_t probe = code + step;  // candidate code; needs v >= threshold[probe - 1]
        if (probe <= 255u && v >= thresholds[probe - 1]) code = probe;
    }
    return code;
}

}  // namespace srt
