// flags_kernels.cuh - the flags strategy's kernels: one uint32 per ray, tested at entry.
#pragma once

#include "cuda/frame_control.cuh"
#include "cuda/warp_ops.cuh"
#include "render/stages.h"

namespace srt::cuda {

// ---------------------------------------------------------------------------
// flags: one uint32 per ray, tested at entry (the baseline of seed 004, the 2012 article
// on a stencil buffer in CUDA, whose stencil test beat it by 20-25%): one thread per
// ray, whatever is alive. Reflect also raises *any_alive when a ray survives, so that
// the bounce loop can stop (the load first: a store per live ray to one address
// would serialise in L2; other writers pass nullptr).
// ---------------------------------------------------------------------------
template <class Op>
__global__ void k_flags_write(FrameContext f, uint32_t* __restrict__ flags, Op op, bool all_lanes,
                              uint32_t* any_alive, BounceCounters* counters, const FrameControl* ctrl) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((i >> 5) >= (f.ray_count >> 5)) return;
    const bool live_in = all_lanes || flags[i] != 0;
    if (counters) count_entry(bounce_counters(counters, ctrl), __ballot_sync(kFullMask, live_in));
    if (!live_in) return;  // per-lane exit: no collective follows in this mode
    const bool alive = op(f, i);
    flags[i] = alive ? 1u : 0u;
    if (any_alive && alive && *any_alive == 0u) *any_alive = 1u;
}

template <class Op>
__global__ void k_flags_read(FrameContext f, const uint32_t* __restrict__ flags, Op op,
                             BounceCounters* counters, FrameControl* ctrl, uint32_t* clear) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (clear && i == 0) *clear = 0;
    if ((i >> 5) >= (f.ray_count >> 5)) return;
    const bool live = flags[i] != 0;
    if (counters) {
        const uint32_t n = live ? op(f, i) : 0u;  // all lanes reach the shuffle
        count_shadow(bounce_counters(counters, ctrl), n);
        return;
    }
    if (!live) return;
    op(f, i);
}

}  // namespace srt::cuda
