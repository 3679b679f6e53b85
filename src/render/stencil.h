// stencil.h - the software stencil buffer: which rays are still alive.
//
// THE INVARIANT (everything else relies on it; it is written here once):
//   * one bit per ray, 1 == alive, 0 == dead;
//   * ray i lives in word  i >> 5,  bit  i & 31  (lane i & 31 of warp i >> 5);
//   * the ray count is padded to a multiple of 32 (kWarpSize), so every warp is whole;
//     pad lanes (lanes whose pixel falls outside the image; render/frame.h: warps cover
//     pixel tiles padded to whole tiles) are always 0;
//   * a stage that changes liveness writes its warp's whole word at its end, built as
//     __ballot_sync(0xffffffff, alive) builds it: bit k = lane k's vote. Lane 0 stores it;
//   * a stage reads its warp's word at entry: word == 0 -> the whole warp leaves at once;
//     a dead lane in a live warp does no work but still reaches the ballot (no lane may
//     return before a warp collective: the trap that seed 004, the 2012 article on a
//     stencil buffer in CUDA, warns of; undefined behaviour with __ballot_sync).
// The CPU executor builds each word with ballot_reference() below, lane by lane, so the
// same semantics are exercised on machines without a GPU; the CUDA kernels use
// __ballot_sync. tests/test_stencil.cpp checks the two agree bit for bit.
#pragma once

#include "core/hd.h"

#include <cstdint>

namespace srt {

constexpr uint32_t kWarpSize = 32;
constexpr uint32_t kFullMask = 0xffffffffu;  // all 32 lanes take part in the ballot

SRT_HD_INLINE uint32_t stencil_word_index(uint32_t ray) { return ray >> 5; }
SRT_HD_INLINE uint32_t stencil_lane_bit(uint32_t ray) { return 1u << (ray & 31u); }
SRT_HD_INLINE bool stencil_test(uint32_t word, uint32_t ray) { return (word >> (ray & 31u)) & 1u; }

// Rays padded up to whole warps.
SRT_HD_INLINE uint32_t padded_ray_count(uint32_t rays) {
    return (rays + kWarpSize - 1u) & ~(kWarpSize - 1u);
}
SRT_HD_INLINE uint32_t stencil_word_count(uint32_t rays) { return padded_ray_count(rays) >> 5; }

// __ballot_sync(0xffffffff, vote) as the hardware defines it: bit k of the result is
// lane k's predicate. votes[k] is lane k's vote.
inline uint32_t ballot_reference(const bool (&votes)[kWarpSize]) {
    uint32_t word = 0;
    for (uint32_t lane = 0; lane < kWarpSize; ++lane) word |= uint32_t(votes[lane]) << lane;
    return word;
}

}  // namespace srt
