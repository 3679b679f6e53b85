// compact_kernels.cuh - the compaction strategy's kernels: live ray ids in lists that
// each stage walks and the next repacks.
#pragma once

#include "cuda/frame_control.cuh"
#include "cuda/warp_ops.cuh"
#include "render/stages.h"

namespace srt::cuda {

// ---------------------------------------------------------------------------
// compact: live ray ids packed into a list; a stage walks the list with the
// persistent grid, so dead rays cost nothing at all. Appends are warp-aggregated.
// ---------------------------------------------------------------------------

// Generate: every ray of the padded range; live ones are appended.
template <class Op>
__global__ void k_compact_generate(FrameContext f, Op op, uint32_t* __restrict__ out,
                                   uint32_t* __restrict__ out_count) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((i >> 5) >= (f.ray_count >> 5)) return;
    const bool alive = op(f, i);
    warp_append(alive, i, out, out_count);
}


template <class Op>
__global__ void k_compact_write(FrameContext f, const uint32_t* __restrict__ in, const uint32_t* in_count,
                                Op op, uint32_t* __restrict__ out, uint32_t* __restrict__ out_count,
                                BounceCounters* counters, const FrameControl* ctrl) {
    BounceCounters* c = bounce_counters(counters, ctrl);
    for_each_list_chunk(*in_count, [&](uint32_t k, bool valid) {
        if (c) count_entry(c, __ballot_sync(kFullMask, valid));
        bool alive = false;
        uint32_t ray = 0;
        if (valid) {
            ray = in[k];
            alive = op(f, ray);
        }
        warp_append(alive, ray, out, out_count);
    });
}

template <class Op>
__global__ void k_compact_read(FrameContext f, const uint32_t* __restrict__ in, const uint32_t* in_count, Op op,
                               BounceCounters* counters, FrameControl* ctrl, uint32_t* clear) {
    if (clear && blockIdx.x == 0 && threadIdx.x == 0) *clear = 0;
    BounceCounters* c = bounce_counters(counters, ctrl);
    for_each_list_chunk(*in_count, [&](uint32_t k, bool valid) {
        count_shadow(c, valid ? op(f, in[k]) : 0u);
    });
}

}  // namespace srt::cuda
