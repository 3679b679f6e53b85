// warp_ops.cuh - the warp-level pieces every strategy's kernels share: a thread's lane and
// warp, the stats counters at a stage's entry, and warp-aggregated list appends and walks.
#pragma once

#include "cuda/frame_control.cuh"
#include "render/stencil.h"

#include <cuda_runtime.h>

namespace srt::cuda {

__device__ __forceinline__ uint32_t lane_id() { return threadIdx.x & 31u; }
__device__ __forceinline__ uint32_t warp_global() { return (blockIdx.x * blockDim.x + threadIdx.x) >> 5; }
__device__ __forceinline__ uint32_t warps_in_grid() { return (gridDim.x * blockDim.x) >> 5; }

// This bounce's counters (stats only): one slot per bounce, summed over samples.
__device__ __forceinline__ BounceCounters* bounce_counters(BounceCounters* base, const FrameControl* ctrl) {
    return base ? base + ctrl->bounce : nullptr;
}

// Live rays and live warps at the entry of a stage (lane 0 adds for its warp).
__device__ __forceinline__ void count_entry(BounceCounters* c, uint32_t live_mask) {
    if (c && lane_id() == 0 && live_mask) {
        atomicAdd(&c->live_rays, (unsigned long long)__popc(live_mask));
        atomicAdd(&c->live_warps, 1ull);
    }
}

// The same for a group of lanes of one warp (`peers`), added by one of them.
__device__ __forceinline__ void count_entry_as_leader(BounceCounters* c, uint32_t peers) {
    atomicAdd(&c->live_rays, (unsigned long long)__popc(peers));
    atomicAdd(&c->live_warps, 1ull);
}

__device__ __forceinline__ void count_shadow(BounceCounters* c, uint32_t n) {
    if (!c) return;
    for (int off = 16; off > 0; off >>= 1) n += __shfl_down_sync(kFullMask, n, off);
    if (lane_id() == 0 && n) atomicAdd(&c->shadow_rays, (unsigned long long)n);
}

// Appends `value` for every lane whose `keep` is set to out[0 .. *out_count), one
// atomicAdd per warp. Warp-uniform: every lane must call it.
__device__ __forceinline__ void warp_append(bool keep, uint32_t value, uint32_t* __restrict__ out,
                                            uint32_t* __restrict__ out_count) {
    const uint32_t mask = __ballot_sync(kFullMask, keep);
    uint32_t base = 0;
    if (lane_id() == 0 && mask) base = atomicAdd(out_count, uint32_t(__popc(mask)));
    base = __shfl_sync(kFullMask, base, 0);
    if (keep) out[base + __popc(mask & ((1u << lane_id()) - 1u))] = value;
}

// Appends to a list 32 entries at a time: lane k holds the k-th pending value, so a
// list costs one atomicAdd per 32 entries. Warp-uniform: every lane calls every member.
struct WarpAppender {
    uint32_t* __restrict__ out;
    uint32_t* __restrict__ out_count;
    uint32_t pending = 0;  // same in every lane
    uint32_t value = 0;    // this lane's pending value

    __device__ void flush() {
        if (pending == 0) return;
        uint32_t base = 0;
        if (lane_id() == 0) base = atomicAdd(out_count, pending);
        base = __shfl_sync(kFullMask, base, 0);
        if (lane_id() < pending) out[base + lane_id()] = value;
        pending = 0;
    }
    __device__ void push(bool keep, uint32_t v) {
        const uint32_t mask = __ballot_sync(kFullMask, keep);
        const uint32_t n = uint32_t(__popc(mask));
        if (n == 0) return;
        if (pending + n > 32u) flush();
        // Lane pending + r takes the value of the r-th set lane of `mask`.
        const uint32_t lane = lane_id();
        const uint32_t r = lane - pending;
        const bool mine = lane >= pending && r < n;
        const uint32_t got = __shfl_sync(kFullMask, v, mine ? __fns(mask, 0, int(r + 1)) : 0u);
        if (mine) value = got;
        pending += n;
    }
};

// Calls chunk(k, valid) for this warp's warp-sized chunks of a list of n entries,
// grid-stride: lane l gets entry k = base + l, valid when k < n. The loop bound is
// warp-uniform, so every lane reaches every collective inside `chunk`.
template <class Chunk>
__device__ __forceinline__ void for_each_list_chunk(uint32_t n, Chunk&& chunk) {
    const uint32_t warps = warps_in_grid();
    for (uint32_t base = warp_global() * 32u; base < n; base += warps * 32u) {
        const uint32_t k = base + lane_id();
        chunk(k, k < n);
    }
}

}  // namespace srt::cuda
