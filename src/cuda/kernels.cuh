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

#include <algorithm>
#include <type_traits>

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
// Live sets (what the next stage walks):
//   stencil: the stencil words themselves while a bounce is DENSE (many live words:
//            one warp per word over the whole grid, the hardware schedules them);
//            while it is SPARSE, a list of the live words' indices, list[parity] with
//            live[parity] entries, walked by a grid that fills the GPU once and whose
//            one fused kernel appends the survivors to list[parity ^ 1]. k_end_bounce
//            picks the next bounce's kind from the live words it counted.
//            While it is PACKED (the sets that pack, once few lanes of each live word
//            live, and for the rest of the sample), compaction's lists, with sizes
//            packed_live[0] and [1] (zero in every other bounce, so that the kernels of
//            compaction that stream launches issue then find nothing).
//   compact: list 0 / list 1 of live ray ids: generate and reflect write list 0,
//            intersect reads list 0 and writes list 1, shade and reflect read list 1;
//   flags:   no list; live[0] != 0 says some ray survived reflect.
// A list's size is cleared by the last stage that read it before it is written
// again: shade clears live[0] (compact, flags), k_end_bounce the rest.
struct FrameControl {
    // Read by every thread (uniform loads, kept in L1): one cache line...
    CameraGpu camera;
    uint32_t sample;      // current sample, sample_begin .. sample_end-1 (RenderSettings::sample_begin)
    uint32_t sample_end;  // sample_begin + spp
    float inv_spp;        // 1 / sample_end: the running sum's weight in resolve
    float exposure_scale; // 2^exposure, the 8-bit output's scale
    uint32_t bounce;  // current bounce of this sample, 0 .. depth-1
    uint32_t dense;      // stencil: this bounce runs the dense kernels (else the sparse one)
    uint32_t parity;     // stencil, sparse: list[parity] holds the live words
    uint32_t need_list;  // stencil: a dense bounce is followed by a sparse one: list its words
    // ...and the counters that atomics hit on another, so that the appends do not keep
    // evicting the line every ray reads (measured: generate 2x slower when shared).
    alignas(128) uint32_t live[2];  // sizes of the two lists (above)
    uint32_t active;                // the current bounce started with live rays
    uint32_t bounces_run;           // bounces that started with live rays, summed over samples
    uint32_t tail;                  // stencil: so few live words that one launch follows their
                                    // paths to the end of the sample (k_path_tail)
    uint32_t tail_end;              // stencil: the bounce after the last one the tail ran
    uint32_t next_ray;              // regenerate: the next ray (pixel) to hand out
    uint32_t tree_end;              // Whitted's ray tree: the step after the last its tail ran (k_path_tail)
    uint32_t packed;                // stencil: 0, or the bounce is handed to compaction: 1 the first
                                    // (k_stencil_pack lists the lanes), 2 a later one of the sample
    uint32_t packed_live[2];        // stencil, packed: the sizes of compaction's lists 0 and 1
};
static_assert(sizeof(FrameControl) == 256, "FrameControl: two 128-byte lines");

// The live words a dense reflect leaves, counted over kWordCountSlots counters 32 bytes
// apart (warp w adds to slot w % kWordCountSlots) and summed by k_end_bounce. One counter
// took one atomic per live warp at one L2 address: 26,000 of them after 1080p's first
// bounce, issued one after another (measured: 16 us of a depth-2 frame, where flags,
// which only loads and rarely stores its flag, paid nothing).
constexpr uint32_t kWordCountSlots = 32;
constexpr uint32_t kWordCountStride = 8;  // uint32s: one 32-byte sector per slot
constexpr uint32_t kWordCountWords = kWordCountSlots * kWordCountStride;

// The loop conditions of the frame's graph (cuda/frame_graph.h), or 0 with stream
// launches: the host then runs the loops and nothing is set.
struct LoopHandles {
    cudaGraphConditionalHandle samples = 0;
    cudaGraphConditionalHandle bounces = 0;
    cudaGraphConditionalHandle dense = 0;   // stencil: IF dense ELSE sparse (and tail), per bounce
    cudaGraphConditionalHandle packed = 0;  // stencil, in that ELSE: IF packed ELSE sparse (and tail)
};

// ---------------------------------------------------------------------------
// Stage functors
// ---------------------------------------------------------------------------
struct GenerateOp {
    const FrameControl* ctrl;
    __device__ bool operator()(const FrameContext& f, uint32_t i) const {
        FrameContext g = f;
        g.camera = ctrl->camera;
        g.sample = ctrl->sample;
        sample_offset(g.sample, g.sample_dx, g.sample_dy);
        return stage_generate(g, i);
    }
};
// kWidth: the BVH width (accel/intersect.h); the launcher picks the instantiation.
// An Op that traverses the BVH says how much dynamic shared memory a thread's traversal
// needs (kSharedBytesPerThread: its short stack, accel/traversal_stack.h); the launcher
// gives a kernel the most any of its Op parameters needs (kernel_shared_bytes).
template <int kWidth>
struct IntersectOp {
    static constexpr uint32_t kSharedBytesPerThread = traversal_shared_bytes<kWidth>();
    __device__ bool operator()(const FrameContext& f, uint32_t i) const { return stage_intersect<kWidth>(f, i); }
};
// The path integrator's shade and reflect key their random numbers by the sample, which
// a captured graph's FrameContext does not know: they read it from FrameControl.
__device__ __forceinline__ FrameContext with_sample(const FrameContext& f, const FrameControl* ctrl) {
    FrameContext g = f;
    g.sample = ctrl->sample;
    return g;
}
template <int kWidth>
struct ReflectOp {
    const FrameControl* ctrl;
    __device__ bool operator()(const FrameContext& f, uint32_t i) const {
        // The path integrator's random numbers and --kill (render/kill.h) are keyed by the
        // sample; Whitted's reflect without a kill reads nothing of it.
        if constexpr (path_tracing_of(kWidth) || kill_of(kWidth))
            return stage_reflect<kWidth>(with_sample(f, ctrl), i, int(ctrl->bounce));
        else return stage_reflect<kWidth>(f, i, int(ctrl->bounce));
    }
};
// Whitted's shade needs neither the sample nor the bounce: its op carries nothing, so that
// its kernels are the ones they were before the path integrator (an op holding the
// FrameControl pointer measured 1.5-2% slower in compaction's shade).
template <int kWidth>
struct WhittedShadeOp {
    static constexpr uint32_t kSharedBytesPerThread = traversal_shared_bytes<kWidth>();
    __device__ uint32_t operator()(const FrameContext& f, uint32_t i) const { return stage_shade<kWidth>(f, i, 0); }
};
template <int kWidth>
struct PathShadeOp {
    static constexpr uint32_t kSharedBytesPerThread = traversal_shared_bytes<kWidth>();
    const FrameControl* ctrl;
    __device__ uint32_t operator()(const FrameContext& f, uint32_t i) const {
        return stage_shade<kWidth>(with_sample(f, ctrl), i, int(ctrl->bounce));
    }
};
template <int kWidth>
using ShadeOp = std::conditional_t<path_tracing_of(kWidth), PathShadeOp<kWidth>, WhittedShadeOp<kWidth>>;
template <int kWidth>
ShadeOp<kWidth> shade_op(const FrameControl* ctrl) {
    if constexpr (path_tracing_of(kWidth)) return ShadeOp<kWidth>{ctrl};
    else return ShadeOp<kWidth>{};
}

// Whether a reflect op's dense kernel also counts the live lanes, beside the live words,
// for k_end_bounce's choice of a packed bounce: only the sets that may pack (the path
// integrator's and --kill's), so that Whitted's reflect stays what it was.
template <class T>
struct CountsLanes : std::false_type {};
template <int kWidth>
struct CountsLanes<ReflectOp<kWidth>> : std::bool_constant<path_tracing_of(kWidth) || kill_of(kWidth)> {};

// The dynamic shared memory per thread that kernel `k` needs: the most that any of its
// Op parameters asks for (0 for kernels that do not traverse).
template <class T, class = void>
struct OpSharedBytes {
    static constexpr uint32_t value = 0;
};
template <class T>
struct OpSharedBytes<T, std::void_t<decltype(T::kSharedBytesPerThread)>> {
    static constexpr uint32_t value = T::kSharedBytesPerThread;
};
template <class... P>
constexpr uint32_t kernel_shared_bytes(void (*)(P...)) {
    uint32_t m = 0;
    ((m = std::max(m, OpSharedBytes<P>::value)), ...);
    return m;
}

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
