// kernels.cuh - the wavefront stages as CUDA kernels: thin wrappers that map the
// thread to a ray, apply the dead-ray strategy, and call the shared stage function
// (render/stages.h) that the CPU executor also calls.
//
// One kernel template per (strategy, reads-or-writes-liveness); the stage is an `Op`
// functor. The stencil invariant is in render/stencil.h; the two rules that matter here:
//   * the grid covers whole warps; a warp beyond the padded ray count, or whose
//     stencil words are all 0, returns as a whole (warp-uniform, no collective skipped);
//   * inside a live warp no lane returns before __ballot_sync: a dead lane votes 0.
#pragma once

#include "render/stages.h"
#include "render/stencil.h"

#include <cuda_runtime.h>

namespace srt::cuda {

// Per-bounce counters, on the device, written only when stats are asked for.
struct BounceCounters {
    unsigned long long live_rays;
    unsigned long long live_warps;
    unsigned long long shadow_rays;
    unsigned long long pad;
};

// ---------------------------------------------------------------------------
// Stage functors
// ---------------------------------------------------------------------------
struct GenerateOp {
    __device__ bool operator()(const FrameContext& f, uint32_t i) const { return stage_generate(f, i); }
};
struct IntersectOp {
    __device__ bool operator()(const FrameContext& f, uint32_t i) const { return stage_intersect(f, i); }
};
struct ReflectOp {
    int bounce;
    __device__ bool operator()(const FrameContext& f, uint32_t i) const { return stage_reflect(f, i, bounce); }
};
struct ShadeOp {
    __device__ uint32_t operator()(const FrameContext& f, uint32_t i) const { return stage_shade(f, i); }
};

__device__ __forceinline__ uint32_t lane_id() { return threadIdx.x & 31u; }

// Live rays and live warps at the entry of a stage (lane 0 adds for its warp).
__device__ __forceinline__ void count_entry(BounceCounters* c, uint32_t live_mask) {
    if (c && lane_id() == 0 && live_mask) {
        atomicAdd(&c->live_rays, (unsigned long long)__popc(live_mask));
        atomicAdd(&c->live_warps, 1ull);
    }
}

__device__ __forceinline__ void count_shadow(BounceCounters* c, uint32_t n) {
    if (!c) return;
    for (int off = 16; off > 0; off >>= 1) n += __shfl_down_sync(kFullMask, n, off);
    if (lane_id() == 0 && n) atomicAdd(&c->shadow_rays, (unsigned long long)n);
}

// ---------------------------------------------------------------------------
// stencil: one bit per ray, one word per warp of rays
//
// A launched warp covers `wpw` consecutive stencil words (words per warp, 1..32).
// Lanes 0..wpw-1 load them in one instruction; a ballot says which are non-zero; the
// warp then makes one 32-lane pass per live word, each with exactly the one-word
// semantics of render/stencil.h (test the bit, dead lanes idle, every lane ballots,
// lane 0 stores). Dead words cost no pass, and a warp whose words are all zero leaves
// at once. wpw > 1 launches wpw times fewer threads, which makes dead bounces cheaper,
// but serialises live passes: it only pays when the grid is many times larger than
// the GPU, so stencil_words_per_warp() picks it from the grid and the SM count.
// ---------------------------------------------------------------------------

// Words per warp for `words` stencil words on a GPU with `sms` multiprocessors of
// `max_warps_per_sm` resident warps each (cudaDeviceProp::maxThreadsPerMultiProcessor / 32):
// 1 until the grid would be more than 4 full waves, then enough to bring it back there
// (at most 32).
__host__ __device__ inline uint32_t stencil_words_per_warp(uint32_t words, uint32_t sms,
                                                           uint32_t max_warps_per_sm) {
    const uint32_t target_warps = sms * max_warps_per_sm * 4u;
    uint32_t wpw = 1;
    while (wpw < 32u && words / wpw > target_warps) wpw *= 2u;
    return wpw;
}

// Threads to launch for a stencil kernel over `ray_count` (a multiple of 32) rays.
__host__ __device__ inline uint32_t stencil_threads(uint32_t ray_count, uint32_t wpw) {
    const uint32_t words = ray_count >> 5;
    return ((words + wpw - 1u) / wpw) * 32u;
}

// Calls pass(word_index, word) once per non-zero word of this warp's group, in order.
// Every lane makes the same calls (the loop is warp-uniform).
template <class Pass>
__device__ __forceinline__ void for_each_live_word(const uint32_t* __restrict__ stencil, uint32_t words,
                                                   uint32_t wpw, bool all_lanes, Pass&& pass) {
    const uint32_t first = ((blockIdx.x * blockDim.x + threadIdx.x) >> 5) * wpw;
    if (first >= words) return;  // whole warp past the end
    const uint32_t lane = lane_id();
    uint32_t mine = 0;
    if (lane < wpw && first + lane < words) mine = all_lanes ? kFullMask : stencil[first + lane];
    uint32_t live = __ballot_sync(kFullMask, mine != 0);  // bit k: word first + k has live rays
    while (live) {
        const uint32_t k = uint32_t(__ffs(live) - 1);
        live &= live - 1u;
        pass(first + k, __shfl_sync(kFullMask, mine, k));
    }
}

template <class Op>
__global__ void k_stencil_write(FrameContext f, uint32_t* __restrict__ stencil, uint32_t wpw, Op op,
                                bool all_lanes, BounceCounters* counters) {
    for_each_live_word(stencil, f.ray_count >> 5, wpw, all_lanes, [&](uint32_t w, uint32_t word) {
        const uint32_t i = (w << 5) | lane_id();
        count_entry(counters, word);
        bool alive = stencil_test(word, i);
        if (alive) alive = op(f, i);                           // dead lanes do no work...
        const uint32_t out = __ballot_sync(kFullMask, alive);  // ...but still vote
        if (lane_id() == 0) stencil[w] = out;
    });
}

template <class Op>
__global__ void k_stencil_read(FrameContext f, const uint32_t* __restrict__ stencil, uint32_t wpw, Op op,
                               BounceCounters* counters) {
    for_each_live_word(stencil, f.ray_count >> 5, wpw, false, [&](uint32_t w, uint32_t word) {
        const uint32_t i = (w << 5) | lane_id();
        uint32_t n = 0;
        if (stencil_test(word, i)) n = op(f, i);
        count_shadow(counters, n);
    });
}

// ---------------------------------------------------------------------------
// flags: one uint32 per ray, tested at entry (seed 004's baseline)
// ---------------------------------------------------------------------------
template <class Op>
__global__ void k_flags_write(FrameContext f, uint32_t* __restrict__ flags, Op op, bool all_lanes,
                              BounceCounters* counters) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((i >> 5) >= (f.ray_count >> 5)) return;
    const bool live_in = all_lanes || flags[i] != 0;
    if (counters) count_entry(counters, __ballot_sync(kFullMask, live_in));
    if (!live_in) return;  // per-lane exit: no collective follows in this mode
    flags[i] = op(f, i) ? 1u : 0u;
}

template <class Op>
__global__ void k_flags_read(FrameContext f, const uint32_t* __restrict__ flags, Op op,
                             BounceCounters* counters) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((i >> 5) >= (f.ray_count >> 5)) return;
    const bool live = flags[i] != 0;
    if (counters) {
        const uint32_t n = live ? op(f, i) : 0u;  // all lanes reach the shuffle
        count_shadow(counters, n);
        return;
    }
    if (!live) return;
    op(f, i);
}

// ---------------------------------------------------------------------------
// compact: live ray ids packed into a list; a stage walks the list with a grid sized
// to the device, so dead rays cost nothing at all. Appends are warp-aggregated:
// one atomicAdd per warp, slots by popcount of the lower lanes' votes.
// ---------------------------------------------------------------------------
__device__ __forceinline__ void append_alive(bool alive, uint32_t ray, uint32_t* __restrict__ out,
                                             uint32_t* __restrict__ out_count) {
    const uint32_t mask = __ballot_sync(kFullMask, alive);
    uint32_t base = 0;
    if (lane_id() == 0 && mask) base = atomicAdd(out_count, uint32_t(__popc(mask)));
    base = __shfl_sync(kFullMask, base, 0);
    if (alive) out[base + __popc(mask & ((1u << lane_id()) - 1u))] = ray;
}

// Generate: every ray of the padded range; live ones are appended.
template <class Op>
__global__ void k_compact_generate(FrameContext f, Op op, uint32_t* __restrict__ out,
                                   uint32_t* __restrict__ out_count) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((i >> 5) >= (f.ray_count >> 5)) return;
    const bool alive = op(f, i);
    append_alive(alive, i, out, out_count);
}

// Calls chunk(k, valid) for this warp's warp-sized chunks of a list of n entries,
// grid-stride: lane l gets entry k = base + l, valid when k < n. The loop bound is
// warp-uniform, so every lane reaches every collective inside `chunk`.
template <class Chunk>
__device__ __forceinline__ void for_each_list_chunk(uint32_t n, Chunk&& chunk) {
    const uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const uint32_t warps = (gridDim.x * blockDim.x) >> 5;
    for (uint32_t base = warp * 32u; base < n; base += warps * 32u) {
        const uint32_t k = base + lane_id();
        chunk(k, k < n);
    }
}

template <class Op>
__global__ void k_compact_write(FrameContext f, const uint32_t* __restrict__ in,
                                const uint32_t* __restrict__ in_count, Op op,
                                uint32_t* __restrict__ out, uint32_t* __restrict__ out_count,
                                BounceCounters* counters) {
    for_each_list_chunk(*in_count, [&](uint32_t k, bool valid) {
        if (counters) count_entry(counters, __ballot_sync(kFullMask, valid));
        bool alive = false;
        uint32_t ray = 0;
        if (valid) {
            ray = in[k];
            alive = op(f, ray);
        }
        append_alive(alive, ray, out, out_count);
    });
}

template <class Op>
__global__ void k_compact_read(FrameContext f, const uint32_t* __restrict__ in,
                               const uint32_t* __restrict__ in_count, Op op,
                               BounceCounters* counters) {
    for_each_list_chunk(*in_count, [&](uint32_t k, bool valid) {
        count_shadow(counters, valid ? op(f, in[k]) : 0u);
    });
}

// ---------------------------------------------------------------------------
// resolve: one thread per pixel, no liveness
// ---------------------------------------------------------------------------
static __global__ void k_resolve(FrameContext f) {
    const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < f.pixel_count) stage_resolve(f, p);
}

// An empty kernel over the same grid: the floor a skipped bounce is compared to.
static __global__ void k_empty(FrameContext) {}

}  // namespace srt::cuda
