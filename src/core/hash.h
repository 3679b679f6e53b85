// hash.h - small integer hashes shared by host and device code.
#pragma once

#include "core/hd.h"

#include <cstdint>

namespace srt {

// Wellons' lowbias32: a 32-bit integer hash whose every output bit depends on every input
// bit; host and device agree by construction.
SRT_HD_INLINE uint32_t lowbias32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

}  // namespace srt
