// loop_kernels.cuh - the frame loop's bookkeeping on the device (a sample's start, the
// end of a bounce and of a sample: one thread each), the resolve, and the empty kernel
// that skipped bounces are compared to.
#pragma once

#include "cuda/frame_control.cuh"
#include "cuda/warp_ops.cuh"
#include "render/stages.h"

#include <algorithm>

namespace srt::cuda {

// ---------------------------------------------------------------------------
// The loops' bookkeeping: one thread each
// ---------------------------------------------------------------------------
// Bookkeeping for the start of a sample (the whole frame is alive: a dense bounce).
__host__ __device__ inline void reset_sample(FrameControl& c) {
    c.bounce = 0;
    c.dense = 1;
    c.parity = 0;
    c.need_list = 0;
    c.live[0] = c.live[1] = 0;
    c.active = 1;
    c.tail = 0;
    c.tail_end = 0;
    c.packed = 0;
    c.packed_live[0] = c.packed_live[1] = 0;
}

// The state a frame starts from: the host uploads it with the camera, in one copy.
// The frame's per-frame values (camera, which samples, the resolve weights) live here
// rather than in kernel parameters, so that a captured graph replays for any of them.
inline FrameControl frame_start(const FrameContext& f) {
    FrameControl c{};
    c.camera = f.camera;
    c.sample = f.sample_begin;
    c.sample_end = f.sample_begin + f.spp;
    c.inv_spp = f.inv_spp;
    c.exposure_scale = f.exposure_scale;
    reset_sample(c);
    return c;
}

// After reflect: count the bounce if it started with live rays, step to the next, say
// whether it is needed (some ray alive and depth left) and, for the stencil, what kind it
// is: packed, once the live lanes fall below `pack_lanes` per live word (0: never) and
// for the rest of the sample; else the tail (no more than `tail_words` live words:
// k_path_tail runs the rest of the sample); else dense (more than `sparse_words` live
// words; sparse_words == 0: always dense) or sparse. `stencil` is false for flags and
// compact, whose survivors are live[0] (a flag, a list size). `counts_lanes`: the dense
// reflect counted live lanes too (CountsLanes), to be summed and cleared.
static __global__ void k_end_bounce(FrameControl* c, uint32_t* word_counts, uint32_t depth, bool stencil,
                                    uint32_t sparse_words, uint32_t tail_words, bool counts_lanes,
                                    uint32_t pack_lanes, LoopHandles loops) {
    if (c->tail) {  // the tail followed every path to its end: the sample is done
        if (c->tail_end > c->bounce) {
            c->bounces_run += c->tail_end - c->bounce;
            c->bounce = c->tail_end;
        }
        c->tail_end = 0;
        c->tail = 0;
        c->dense = 0;  // with stream launches the host's later bounces then find nothing to do
        c->need_list = 0;
        c->live[0] = c->live[1] = 0;
        c->active = 0;
        if (loops.bounces) cudaGraphSetConditional(loops.bounces, 0u);
        if (loops.dense) cudaGraphSetConditional(loops.dense, 0u);
        if (loops.packed) cudaGraphSetConditional(loops.packed, 0u);
        return;
    }
    c->bounces_run += c->active;
    c->bounce += 1;
    const bool was_dense = c->dense != 0;
    uint32_t live = 0, lanes = 0;
    if (!stencil) {
        live = c->live[0];
        c->live[1] = 0;
    } else if (c->packed) {
        live = c->packed_live[0];  // compaction's survivors, in rays
        c->packed_live[1] = 0;
    } else if (c->dense) {
        for (uint32_t k = 0; k < kWordCountWords; k += kWordCountStride) {
            live += word_counts[k];
            word_counts[k] = 0;
        }
        if (counts_lanes) {  // (only the sets that may pack count them: CountsLanes)
            for (uint32_t k = 1; k < kWordCountWords; k += kWordCountStride) {
                lanes += word_counts[k];
                word_counts[k] = 0;
            }
        }
        c->live[c->parity] = 0;  // k_stencil_list refills it if the next bounce is sparse
    } else {
        live = c->live[c->parity ^ 1u];  // the sparse kernel's survivors...
        c->live[c->parity] = 0;
        c->parity ^= 1u;                 // ...are the next bounce's list
    }
    const bool more = live != 0 && c->bounce < depth;
    c->active = more ? 1u : 0u;
    if (!stencil || !more) {
        c->packed = 0;
    } else if (c->packed) {
        c->packed = 2;
    } else if (was_dense && uint64_t(lanes) < uint64_t(pack_lanes) * uint64_t(live)) {
        c->packed = 1;
        c->live[0] = c->live[1] = 0;
    }
    if (!c->packed) c->packed_live[0] = c->packed_live[1] = 0;
    c->tail = (stencil && more && !c->packed && live <= tail_words) ? 1u : 0u;
    c->dense = (!c->tail && !c->packed && (!stencil || sparse_words == 0 || live > sparse_words)) ? 1u : 0u;
    c->need_list = (more && was_dense && !c->dense && !c->packed) ? 1u : 0u;  // the tail reads the list too
    if (loops.bounces) cudaGraphSetConditional(loops.bounces, more ? 1u : 0u);
    if (loops.dense) cudaGraphSetConditional(loops.dense, c->dense);
    if (loops.packed) cudaGraphSetConditional(loops.packed, c->packed ? 1u : 0u);
}

// After a sample's last bounce: step to the next sample and reset the bounce loop.
static __global__ void k_end_sample(FrameControl* c, LoopHandles loops) {
    c->sample += 1;
    reset_sample(*c);
    if (loops.samples) cudaGraphSetConditional(loops.samples, c->sample < c->sample_end ? 1u : 0u);
    if (loops.bounces) cudaGraphSetConditional(loops.bounces, 1u);
    if (loops.dense) cudaGraphSetConditional(loops.dense, 1u);
    if (loops.packed) cudaGraphSetConditional(loops.packed, 0u);
}

// ---------------------------------------------------------------------------
// resolve: one thread per pixel, no liveness
// ---------------------------------------------------------------------------
static __global__ void k_resolve(FrameContext f, const FrameControl* ctrl) {
    const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= f.pixel_count) return;
    f.inv_spp = ctrl->inv_spp;
    f.exposure_scale = ctrl->exposure_scale;
    stage_resolve(f, p);
}

// An empty kernel over the same grid: the floor a skipped bounce is compared to.
static __global__ void k_empty(FrameContext) {}

}  // namespace srt::cuda
