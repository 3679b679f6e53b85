// stencil_kernels.cuh - the stencil strategy's kernels: one bit per ray, one word per
// warp (render/stencil.h holds the invariant), in its dense, sparse and packed bounces.
#pragma once

#include "cuda/frame_control.cuh"
#include "cuda/stage_ops.cuh"
#include "cuda/warp_ops.cuh"
#include "render/stages.h"
#include "render/stencil.h"

namespace srt::cuda {

// ---------------------------------------------------------------------------
// stencil: one bit per ray, one word per warp of rays
//
// DENSE bounces (and generate): one warp per stencil word over the whole grid, as
// render/stencil.h describes it: read the word, leave as a whole warp if it is 0, test
// the bit, dead lanes idle, every lane ballots, lane 0 stores. The hardware's block
// scheduler balances the uneven traversal costs of full bounces.
//
// SPARSE bounces (few live words: k_end_bounce decides): one fused kernel walks the
// list of live words with a grid that fills the GPU once, and runs intersect, shade
// and reflect for each live word in one pass, so a nearly dead bounce is one small
// launch, not three over the whole frame. Per lane this is the same work in the same
// order as the three stages (each ray's stages touch only that ray), and the word
// written at the end is the ballot of the lanes alive after reflect, exactly as the
// dense reflect writes it.
// ---------------------------------------------------------------------------
//
// Each kernel checks FrameControl::dense itself, so stream launches can issue both kinds
// every bounce and only the right one works (a graph launches only the right one).
template <class Op>
__global__ void k_stencil_write(FrameContext f, uint32_t* __restrict__ stencil, Op op, bool all_lanes,
                                uint32_t* word_counts, BounceCounters* counters, const FrameControl* ctrl) {
    if (!ctrl->dense) return;
    const uint32_t w = warp_global();
    if (w >= (f.ray_count >> 5)) return;  // whole warp past the end
    const uint32_t word = all_lanes ? kFullMask : stencil[w];
    if (word == 0) return;  // whole warp dead: leaves at once
    count_entry(bounce_counters(counters, ctrl), word);
    const uint32_t i = (w << 5) | lane_id();
    bool alive = stencil_test(word, i);
    if (alive) alive = op(f, i);                           // dead lanes do no work...
    const uint32_t out = __ballot_sync(kFullMask, alive);  // ...but still vote
    if (lane_id() == 0) {
        stencil[w] = out;
        if (word_counts && out) {
            uint32_t* slot = &word_counts[(w % kWordCountSlots) * kWordCountStride];
            atomicAdd(slot, 1u);
            if constexpr (CountsLanes<Op>::value) atomicAdd(slot + 1, uint32_t(__popc(out)));
        }
    }
}

template <class Op>
__global__ void k_stencil_read(FrameContext f, const uint32_t* __restrict__ stencil, Op op,
                               BounceCounters* counters, const FrameControl* ctrl) {
    if (ctrl && !ctrl->dense) return;  // (bench --skip passes no FrameControl)
    const uint32_t w = warp_global();
    if (w >= (f.ray_count >> 5)) return;
    const uint32_t word = stencil[w];
    if (word == 0) return;
    const uint32_t i = (w << 5) | lane_id();
    uint32_t n = 0;
    if (stencil_test(word, i)) n = op(f, i);
    count_shadow(bounce_counters(counters, ctrl), n);
}


// After a dense bounce that leaves few live words: lists them for the sparse kernel.
// Warps read 32 consecutive words in one load. Nothing to do otherwise.
static __global__ void k_stencil_list(const uint32_t* __restrict__ stencil, uint32_t words,
                                      FrameControl* ctrl, uint32_t* list0, uint32_t* list1) {
    if (!ctrl->need_list) return;
    const uint32_t p = ctrl->parity;
    WarpAppender out{p ? list1 : list0, &ctrl->live[p]};
    for (uint32_t g = warp_global(); g * 32u < words; g += warps_in_grid()) {
        const uint32_t k = g * 32u + lane_id();
        out.push(k < words && stencil[k] != 0, k);
    }
    out.flush();
}

// Calls pass(w, word) for the live words list[0 .. n): warp v of V takes entries v,
// v+V, ... (so that clustered expensive words spread over the warps). Warp-uniform.
template <class Pass>
__device__ __forceinline__ void for_each_listed_word(const uint32_t* __restrict__ list, uint32_t n,
                                                     const uint32_t* __restrict__ stencil, Pass&& pass) {
    for (uint32_t k = warp_global(); k < n; k += warps_in_grid()) {
        const uint32_t w = list[k];
        pass(w, stencil[w]);
    }
}

// A sparse bounce: intersect, shade and reflect for every word of list[parity], the
// survivors' words appended to list[parity ^ 1].
template <class Intersect, class Shade, class Reflect>
__global__ void k_stencil_sparse_bounce(FrameContext f, uint32_t* __restrict__ stencil, uint32_t* list0,
                                        uint32_t* list1, Intersect intersect, Shade shade, Reflect reflect,
                                        BounceCounters* counters, FrameControl* ctrl) {
    if (ctrl->dense || ctrl->tail || ctrl->packed) return;
    const uint32_t p = ctrl->parity;
    WarpAppender out{p ? list0 : list1, &ctrl->live[p ^ 1u]};
    BounceCounters* c = bounce_counters(counters, ctrl);
    for_each_listed_word(p ? list1 : list0, ctrl->live[p], stencil, [&](uint32_t w, uint32_t word) {
        count_entry(c, word);
        const uint32_t i = (w << 5) | lane_id();
        bool alive = stencil_test(word, i);
        if (alive) alive = intersect(f, i);
        count_shadow(c, alive ? shade(f, i) : 0u);
        if (alive) alive = reflect(f, i);
        const uint32_t vote = __ballot_sync(kFullMask, alive);
        if (lane_id() == 0) stencil[w] = vote;
        out.push(lane_id() == 0 && vote != 0, w);
    });
    out.flush();
}

// The sparse read side alone (bench --skip): a read-only stage over listed words.
template <class Op>
__global__ void k_stencil_sparse_read(FrameContext f, const uint32_t* __restrict__ stencil,
                                      const uint32_t* __restrict__ list, const uint32_t* count, Op op) {
    for_each_listed_word(list, *count, stencil, [&](uint32_t w, uint32_t word) {
        const uint32_t i = (w << 5) | lane_id();
        if (stencil_test(word, i)) op(f, i);
    });
}

// Lists the set bits of words[w] (thread w of the grid; the caller's grid covers `n`
// words in whole warps) as slots w * 32 + bit, appended to out[0 .. *count), and clears the
// word. A warp's 32 words (1,024 slots) take their place in one atomic, and within it their
// slots keep their order: a prefix sum of the words' popcounts across the warp (shuffles)
// gives each word its offset. Compaction driven by the stencil: a 32nd of the reads of a
// flag per slot. No block barrier: a device-wide scan (cub::DeviceScan) kept the whole
// list in slot order, at three more launches, and it and a block-wide scan (cub::BlockScan,
// then one of our own) drew compute-sanitizer synccheck's "divergent threads in warp" at
// their __syncthreads, in graph launches only, where nothing diverges. Warp-uniform.
__device__ __forceinline__ void list_stencil_lanes(uint32_t* __restrict__ words, uint32_t n, uint32_t w,
                                                   uint32_t* __restrict__ out, uint32_t* count) {
    const uint32_t lane = lane_id();
    uint32_t bits = w < n ? words[w] : 0u;
    const uint32_t popc = uint32_t(__popc(bits));
    uint32_t inclusive = popc;
    for (uint32_t d = 1; d < 32u; d <<= 1) {
        const uint32_t below = __shfl_up_sync(kFullMask, inclusive, d);
        if (lane >= d) inclusive += below;
    }
    const uint32_t total = __shfl_sync(kFullMask, inclusive, 31);
    uint32_t base = 0;
    if (lane == 0 && total) base = atomicAdd(count, total);
    base = __shfl_sync(kFullMask, base, 0);
    if (bits == 0) return;
    words[w] = 0;
    uint32_t* q = out + base + (inclusive - popc);
    while (bits) {
        *q++ = w * 32u + uint32_t(__ffs(bits) - 1);
        bits &= bits - 1u;
    }
}

// PACKED bounces (the sets that pack; k_end_bounce decides): where paths end one by one,
// the words keep few live lanes each and every warp over them runs nearly empty, and
// where path steps are long, lanes that end early idle while others trace. At its first
// packed bounce the stencil hands its live set to compaction: k_stencil_pack lists the
// live lanes from the words in slot order, and the rest of the sample runs compaction's
// kernels over that list (FrameControl::packed_live counts it), which repack the
// survivors at every stage.
static __global__ void k_stencil_pack(uint32_t* __restrict__ stencil, uint32_t words, FrameControl* ctrl,
                                      uint32_t* list0) {
    if (ctrl->packed != 1u) return;  // only the first packed bounce: later ones have reflect's list
    list_stencil_lanes(stencil, words, blockIdx.x * blockDim.x + threadIdx.x, list0, &ctrl->packed_live[0]);
}

}  // namespace srt::cuda
