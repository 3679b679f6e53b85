// kernels.cuh - the wavefront stages as CUDA kernels: thin wrappers that map a thread
// to a ray, apply the dead-ray strategy, and call the shared stage function
// (render/stages.h) that the CPU executor also calls.
//
// One kernel template per (strategy, reads-or-writes-liveness); the stage is an `Op`
// functor. The stencil invariant is in render/stencil.h; the rules that matter here:
//   * a warp whose word is 0 does no pass over it (warp-uniform, no collective skipped);
//   * inside a live warp no lane returns before __ballot_sync: a dead lane votes 0.
//
// The frame runs without the host between bounces: the sample and bounce counters, the
// live-set sizes and the camera live on the device in a FrameControl, and the kernels
// advance them (k_end_bounce, k_end_sample). In a CUDA graph the bounce and sample loops
// are conditional WHILE nodes that those kernels steer (cuda/frame_graph.h); with
// stream launches the host loops and a dead bounce's kernels find nothing to do.
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

// The frame's state on the device. The host writes `camera` before each frame; the
// kernels write the rest.
//
// Live sets: every mode keeps two, double-buffered by stage. generate and reflect
// write set 0; intersect reads set 0 and writes set 1; shade and reflect read set 1.
//   stencil: set k is a list of the indices of the non-zero stencil words;
//   compact: set k is a list of live ray ids;
//   flags:   no list; live[k] != 0 says some ray is alive.
// live[k] is the size of set k. A set's size is cleared by the last stage that read it
// before it is written again: shade clears live[0] (read by intersect, written by
// reflect), k_end_bounce clears live[1] (read by shade and reflect, written by the next
// intersect), k_end_sample clears both for the next sample's generate.
struct FrameControl {
    // Read by every thread (uniform loads, kept in L1): one cache line...
    CameraGpu camera;
    uint32_t sample;  // current sample, 0 .. spp-1
    uint32_t bounce;  // current bounce of this sample, 0 .. depth-1
    // ...and the counters that atomics hit on another, so that the appends do not keep
    // evicting the line every ray reads (measured: generate 2x slower when shared).
    alignas(128) uint32_t live[2];  // sizes of the two live sets (above)
    uint32_t active;                // the current bounce started with live rays
    uint32_t bounces_run;           // bounces that started with live rays, summed over samples
};
static_assert(sizeof(FrameControl) == 256, "FrameControl: two 128-byte lines");

// The loop conditions of the frame's graph (cuda/frame_graph.h), or 0 with stream
// launches: the host then runs the loops and nothing is set.
struct LoopHandles {
    cudaGraphConditionalHandle samples = 0;
    cudaGraphConditionalHandle bounces = 0;
};

// ---------------------------------------------------------------------------
// Stage functors
// ---------------------------------------------------------------------------
struct GenerateOp {
    const FrameControl* ctrl;
    const float* sample_offsets;  // (dx, dy) per sample: render/pipeline.h's sample_offset
    __device__ bool operator()(const FrameContext& f, uint32_t i) const {
        FrameContext g = f;
        g.camera = ctrl->camera;
        g.sample = ctrl->sample;
        g.sample_dx = sample_offsets[2 * g.sample];
        g.sample_dy = sample_offsets[2 * g.sample + 1];
        return stage_generate(g, i);
    }
};
struct IntersectOp {
    __device__ bool operator()(const FrameContext& f, uint32_t i) const { return stage_intersect(f, i); }
};
struct ReflectOp {
    const FrameControl* ctrl;
    __device__ bool operator()(const FrameContext& f, uint32_t i) const {
        return stage_reflect(f, i, int(ctrl->bounce));
    }
};
struct ShadeOp {
    __device__ uint32_t operator()(const FrameContext& f, uint32_t i) const { return stage_shade(f, i); }
};

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

// ---------------------------------------------------------------------------
// stencil: one bit per ray, one word per warp of rays, and a list of the live words
//
// The grid does not grow with the rays: it is sized to fill the GPU
// (CudaExecutor::fill_blocks), and its warps walk the live-word list that the previous
// stage appended, so a dead bounce costs one small launch whatever the frame size, and
// a live word costs one 32-lane pass with exactly the one-word semantics of
// render/stencil.h (test the bit, dead lanes idle, every lane ballots).
//
// Warp w of W takes list entries w, w+W, w+2W, ... (interleaved, so that expensive
// words spread over all warps), 32 at a time: lane l loads entry w + (r + l) W and its
// word in one instruction, then the warp makes one pass per live word. Survivors are
// buffered in the warp (lane k holds the k-th pending index) and appended 32 at a time,
// so the out list costs one atomicAdd per 32 live words, not one per word.
//
// Generate writes the words only; bounce 0 reads every word (a fresh sample is all
// alive but for pad lanes), later bounces read the list.
// ---------------------------------------------------------------------------

// Where a stage's words come from.
struct AllWords {  // generate: every word, all lanes take part, no stencil read
    uint32_t words;
    __device__ uint32_t count() const { return words; }
    __device__ void get(uint32_t k, uint32_t& w, uint32_t& word) const {
        w = k;
        word = kFullMask;
    }
};
struct ListWords {  // the live-word list of the previous stage
    const uint32_t* __restrict__ list;
    const uint32_t* count_ptr;
    const uint32_t* __restrict__ stencil;
    __device__ uint32_t count() const { return *count_ptr; }
    __device__ void get(uint32_t k, uint32_t& w, uint32_t& word) const {
        w = list[k];
        word = stencil[w];
    }
};
struct ScanWords {  // every word, read from the stencil
    uint32_t words;
    const uint32_t* __restrict__ stencil;
    __device__ uint32_t count() const { return words; }
    __device__ void get(uint32_t k, uint32_t& w, uint32_t& word) const {
        w = k;
        word = stencil[k];
    }
};
// Intersect: every word at bounce 0 (generate made no list), the list after.
struct BounceWords {
    ListWords list;
    ScanWords all;
    const FrameControl* ctrl;
    __device__ bool first() const { return ctrl->bounce == 0; }
    __device__ uint32_t count() const { return first() ? all.count() : list.count(); }
    __device__ void get(uint32_t k, uint32_t& w, uint32_t& word) const {
        if (first()) all.get(k, w, word);
        else list.get(k, w, word);
    }
};

// For each group of up to 32 of this warp's entries: loads them into lanes, calls
// pass(w, word, j) once per non-zero word in order (warp-uniform; j is the entry's
// lane), then done(valid, w_lane) once, every lane with its own entry.
template <class Source, class Pass, class Done>
__device__ __forceinline__ void for_each_word_group(const Source& src, Pass&& pass, Done&& done) {
    const uint32_t n = src.count();
    const uint32_t warps = warps_in_grid();
    const uint32_t lane = lane_id();
    for (uint32_t first = warp_global(); first < n; first += 32u * warps) {  // warp-uniform bound
        const uint32_t k = first + lane * warps;
        const bool valid = k < n && k >= first;  // k >= first: no wrap-around
        uint32_t w = 0, word = 0;
        if (valid) src.get(k, w, word);
        uint32_t live = __ballot_sync(kFullMask, word != 0);
        while (live) {
            const uint32_t j = uint32_t(__ffs(live) - 1);
            live &= live - 1u;
            pass(__shfl_sync(kFullMask, w, j), __shfl_sync(kFullMask, word, j), j);
        }
        done(valid, w);
    }
}

// Appends to a list 32 entries at a time: lane k holds the k-th pending value.
// Warp-uniform: every lane calls every member.
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
        const uint32_t src = (lane >= pending && r < n) ? __fns(mask, 0, r + 1) : 0u;
        const uint32_t got = __shfl_sync(kFullMask, v, src);
        if (lane >= pending && r < n) value = got;
        pending += n;
    }
};

// A stage that writes liveness: generate (AllWords, no list) and intersect
// (BounceWords) / reflect (ListWords), which append their surviving words to out_list.
template <class Source, class Op>
__global__ void k_stencil_write(FrameContext f, Source src, uint32_t* __restrict__ stencil, Op op,
                                uint32_t* __restrict__ out_list, uint32_t* __restrict__ out_count,
                                BounceCounters* counters, const FrameControl* ctrl) {
    BounceCounters* c = bounce_counters(counters, ctrl);
    WarpAppender out{out_list, out_count};
    uint32_t out_word = 0;  // lane j: the new word of the group's entry j
    for_each_word_group(
        src,
        [&](uint32_t w, uint32_t word, uint32_t j) {
            const uint32_t i = (w << 5) | lane_id();
            count_entry(c, word);
            bool alive = stencil_test(word, i);
            if (alive) alive = op(f, i);                           // dead lanes do no work...
            const uint32_t vote = __ballot_sync(kFullMask, alive);  // ...but still vote
            if (lane_id() == j) out_word = vote;
        },
        [&](bool valid, uint32_t w) {
            if (valid) stencil[w] = out_word;
            if (out_list) out.push(valid && out_word != 0, w);
            out_word = 0;
        });
    if (out_list) out.flush();
}

// A stage that only reads liveness (shade). Block 0 clears `clear` (see FrameControl).
template <class Source, class Op>
__global__ void k_stencil_read(FrameContext f, Source src, Op op, BounceCounters* counters,
                               FrameControl* ctrl, uint32_t* clear) {
    if (clear && blockIdx.x == 0 && threadIdx.x == 0) *clear = 0;
    BounceCounters* c = bounce_counters(counters, ctrl);
    for_each_word_group(
        src,
        [&](uint32_t w, uint32_t word, uint32_t) {
            const uint32_t i = (w << 5) | lane_id();
            uint32_t n = 0;
            if (stencil_test(word, i)) n = op(f, i);
            count_shadow(c, n);
        },
        [](bool, uint32_t) {});
}

// ---------------------------------------------------------------------------
// flags: one uint32 per ray, tested at entry (seed 004's baseline): one thread per
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

// ---------------------------------------------------------------------------
// The loops' bookkeeping: one thread each
// ---------------------------------------------------------------------------
static __global__ void k_begin_frame(FrameControl* c) {
    c->sample = 0;
    c->bounce = 0;
    c->live[0] = c->live[1] = 0;
    c->active = 1;
    c->bounces_run = 0;
}

// After reflect: count the bounce if it started with live rays, step to the next, and
// say whether it is needed (some ray alive and depth left).
static __global__ void k_end_bounce(FrameControl* c, uint32_t depth, LoopHandles loops) {
    c->bounces_run += c->active;
    c->bounce += 1;
    c->live[1] = 0;
    const bool more = c->live[0] != 0 && c->bounce < depth;
    c->active = more ? 1u : 0u;
    if (loops.bounces) cudaGraphSetConditional(loops.bounces, more ? 1u : 0u);
}

// After a sample's last bounce: step to the next sample and reset the bounce loop.
static __global__ void k_end_sample(FrameControl* c, uint32_t spp, LoopHandles loops) {
    c->sample += 1;
    c->bounce = 0;
    c->live[0] = c->live[1] = 0;
    c->active = 1;
    if (loops.samples) cudaGraphSetConditional(loops.samples, c->sample < spp ? 1u : 0u);
    if (loops.bounces) cudaGraphSetConditional(loops.bounces, 1u);
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
