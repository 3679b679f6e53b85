// pool_kernels.cuh - the wavefront as production renderers build it (--mode pool): a
// fixed pool of paths, a queue of them that every stage walks, and new work regenerated
// into the slots of paths that ended, so that every launch is full.
//
// A path's state stays in its pixel's ray slot (render/frame.h), so the stage functions
// are the other modes' own; what the pool adds per slot is the sample and the bounce its
// path is at (PoolBuffers), since paths of different samples and bounces share a launch.
// At most `pool` pixels are in flight: the pool starts with the first `pool` ray slots,
// and a pixel whose last sample ended hands its place to the next pixel in ray order.
//
// A pixel's samples run one after another in its slot: its running sum gets its terms in
// the order every other mode adds them (sample by sample, bounce by bounce), so the
// image is theirs, bit for bit, whatever paths share a launch with it.
//
// The queue is kept in slot order: the paths a step sends on (or starts) set their bits
// in a stencil of the next queue, one bit per slot, and the queue is compacted from its
// words by prefix sums of their popcounts (k_pool_compact; a 32nd of the reads of a flag
// per slot), so a warp's lanes are neighbouring slots, neighbouring pixels. Appended by
// warp-aggregated atomics instead, the queue's order decayed step by step as samples
// mixed, a warp's lanes came from ever more tiles, and the stages waited on scattered
// loads (ncu, H100, Cornell box at 16 samples: the pool took 44.5 ms against compaction's
// 27.5; its shade kernel's L1 hit rate 47%, long-scoreboard stalls 75% of its cycles).
//
// One step of the loop (cuda/frame_launcher.cuh trace_pool):
//   k_pool_intersect   the queue: closest hits (a miss, or a ray tree done, ends the path)
//   k_pool_shade       the queue's hits: shade (render/stages.h)
//   k_pool_reflect     the queue: scatter the hits; an ended path's slot takes its pixel's
//                      next sample, or the next pixel's first; the survivors and the new
//                      paths set their bits in the next queue's stencil
//   k_pool_compact     the stencil into the next queue, in slot order
//   k_pool_end         the next queue becomes this one; the loop runs while it is not empty
#pragma once

#include "cuda/path_kernels.cuh"

namespace srt::cuda {

// The pool's per-slot state, lists and stencil (the executor's).
struct PoolBuffers {
    uint32_t* sample;    // per slot: the sample its path belongs to
    uint32_t* bounce;    // per slot: the bounce it is at (the loop step, for a ray tree)
    uint32_t* hit;       // per slot: this step's intersect found a surface
    uint32_t* queue[2];  // paths to walk: queue[parity] this step, queue[parity ^ 1] the next
    uint32_t* next;      // the next queue's stencil: one bit per slot, a word per 32
    uint32_t words;      // stencil words
};

// Starts sample s of slot i's pixel: its camera ray, as generate does in every mode
// (sample 0 clears the pixel's sum).
__device__ __forceinline__ bool pool_generate(FrameContext f, const PoolBuffers& p, uint32_t i, uint32_t s) {
    f.sample = s;
    sample_offset(s, f.sample_dx, f.sample_dy);
    p.sample[i] = s;
    p.bounce[i] = 0;
    return stage_generate(f, i);
}

// Puts the slots of the lanes that `keep` in the next queue: one atomicOr per run of lanes
// whose slots share a stencil word (a queue in slot order gives a warp one or two runs).
// The run's OR is a segmented scan by shuffles rather than sm_80's __reduce_or_sync, so
// that the machine code of every architecture comes from one compute_75 front end
// (CMakeLists.txt) and is the same code. A word split over two runs gets two atomicOrs of
// disjoint bits: the same word. Every lane of the warp calls it.
__device__ __forceinline__ void pool_mark(const PoolBuffers& p, bool keep, uint32_t slot) {
    const uint32_t word = slot >> 5, lane = lane_id();
    uint32_t bits = keep ? 1u << (slot & 31u) : 0u;
    for (uint32_t d = 1; d < 32u; d <<= 1) {
        const uint32_t below = __shfl_up_sync(kFullMask, bits, d);
        const uint32_t below_word = __shfl_up_sync(kFullMask, word, d);
        if (lane >= d && below_word == word) bits |= below;
    }
    const uint32_t above_word = __shfl_down_sync(kFullMask, word, 1);
    if ((lane == 31u || above_word != word) && bits != 0u) atomicOr(&p.next[word], bits);
}

// The pool's first paths: the first sample of the pixels of slots 0 .. pool-1.
static __global__ void k_pool_start(FrameContext f, PoolBuffers p, uint32_t pool, FrameControl* ctrl) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) ctrl->next_ray = pool;
    if ((i >> 5) >= (pool >> 5)) return;  // pool: whole warps
    f.camera = ctrl->camera;
    pool_mark(p, pool_generate(f, p, i, ctrl->sample), i);  // false: a pad slot
}

// Counts a live ray at its bounce (stats): the lanes at one bounce count together, as a
// wavefront's warp at that bounce; and the sample's furthest bounce.
__device__ __forceinline__ void pool_count(const FrameContext& f, BounceCounters* counters, uint32_t* reached,
                                           bool live, uint32_t bounce, uint32_t sample_index) {
    if (!counters) return;
    const uint32_t peers = __match_any_sync(kFullMask, live ? bounce : 0xffffffffu);
    if (!live) return;
    if (lane_id() == uint32_t(__ffs(peers) - 1)) count_entry_as_leader(counters + stats_row(f, int(bounce)), peers);
    count_reached(reached, sample_index, int(bounce));
}

// (Each traversing kernel takes an IntersectOp, whose traversal's short stack in shared
// memory, where configured, the launcher sizes: kernel_shared_bytes.)
// Stats: `steps` counts the warps' chunks of the queue and their lanes (the SIMD
// efficiency of the pool's launches, as path regeneration counts its warp steps).
template <class Intersect>
__global__ void k_pool_intersect(FrameContext f, PoolBuffers p, Intersect intersect, BounceCounters* counters,
                                 PathCounters* steps, uint32_t* reached, FrameControl* ctrl) {
    const uint32_t parity = ctrl->parity, first = ctrl->sample;
    const uint32_t* __restrict__ in = p.queue[parity];
    unsigned long long lane_steps = 0, warp_steps = 0;
    for_each_list_chunk(ctrl->live[parity], [&](uint32_t k, bool valid) {
        if (counters) {
            lane_steps += uint64_t(__popc(__ballot_sync(kFullMask, valid)));
            warp_steps += 1;
        }
        const uint32_t ray = valid ? in[k] : 0u;
        pool_count(f, counters, reached, valid, valid ? p.bounce[ray] : 0u, valid ? p.sample[ray] - first : 0u);
        if (valid) p.hit[ray] = intersect(f, ray) ? 1u : 0u;
    });
    if (counters && lane_id() == 0 && warp_steps) {
        atomicAdd(&steps->lane_steps, lane_steps);
        atomicAdd(&steps->warp_steps, warp_steps);
    }
}

// Shade, then scatter, as the other wavefronts run them (render/stages.h), each path at
// its own sample and bounce. Two kernels, not one: fused (as a production renderer's
// surface kernel), shading's traversal of shadow rays and the scatter took 90 registers,
// 30% occupancy, and waited on scattered loads (ncu, H100: long-scoreboard stalls 16 of
// its 21 cycles per issue).
template <int kVariant, class Traversal>
__global__ void k_pool_shade(FrameContext f, PoolBuffers p, Traversal, BounceCounters* counters, FrameControl* ctrl) {
    const uint32_t* __restrict__ in = p.queue[ctrl->parity];
    for_each_list_chunk(ctrl->live[ctrl->parity], [&](uint32_t k, bool valid) {
        if (!valid) return;
        const uint32_t ray = in[k];
        if (!p.hit[ray]) return;
        const int bounce = int(p.bounce[ray]);
        FrameContext g = f;
        g.sample = p.sample[ray];
        const uint32_t shadow = stage_shade<kVariant>(g, ray, bounce);
        if (counters && shadow) atomicAdd(&counters[stats_row(f, bounce)].shadow_rays, (unsigned long long)shadow);
    });
}

// Scatter; a path that ended (a miss, nothing sent on, the depth) gives its slot its
// pixel's next sample, or, with its pixel's samples done, its place to the next pixel in
// ray order (one atomic per warp; pad slots are skipped), which starts its first sample in
// its own slot. Every path alive after this marks its slot in the next queue.
template <int kVariant>
__global__ void k_pool_reflect(FrameContext f, PoolBuffers p, FrameControl* ctrl) {
    const uint32_t first = ctrl->sample, end = ctrl->sample_end;
    f.camera = ctrl->camera;
    const uint32_t* __restrict__ in = p.queue[ctrl->parity];
    for_each_list_chunk(ctrl->live[ctrl->parity], [&](uint32_t k, bool valid) {
        uint32_t slot = valid ? in[k] : 0u;
        bool alive = false, want = false;
        if (valid) {
            if (p.hit[slot]) {
                const int bounce = int(p.bounce[slot]);
                FrameContext g = f;
                g.sample = p.sample[slot];
                alive = stage_reflect<kVariant>(g, slot, bounce);
                if (alive) p.bounce[slot] = uint32_t(bounce + 1);
            }
            if (!alive) {
                const uint32_t next = p.sample[slot] + 1u;
                if (next < end) alive = pool_generate(f, p, slot, next);
                else want = true;
            }
        }
        for (;;) {  // the next pixels, for the lanes whose pixel is done
            const uint32_t wanting = __ballot_sync(kFullMask, want);
            if (wanting == 0) break;
            uint32_t base = 0;
            if (lane_id() == 0) base = atomicAdd(&ctrl->next_ray, uint32_t(__popc(wanting)));
            base = __shfl_sync(kFullMask, base, 0);
            if (want) {
                const uint32_t n = base + uint32_t(__popc(wanting & lanes_below()));
                if (n >= f.ray_count) {
                    want = false;  // every pixel has had its place
                } else if (pool_generate(f, p, n, first)) {
                    slot = n;
                    alive = true;
                    want = false;
                }  // else a pad slot: take another
            }
        }
        pool_mark(p, alive, slot);
    });
}

// The stencil into the next queue, in slot order (list_stencil_lanes), its words cleared
// for the step after.
static __global__ void k_pool_compact(PoolBuffers p, FrameControl* ctrl) {
    const uint32_t out = ctrl->parity ^ 1u;
    list_stencil_lanes(p.next, p.words, blockIdx.x * blockDim.x + threadIdx.x, p.queue[out], &ctrl->live[out]);
}

// After a step: the next queue becomes this one, and the loop goes on while it holds a path.
static __global__ void k_pool_end(FrameControl* c, LoopHandles loops) {
    const uint32_t parity = c->parity;
    c->live[parity] = 0;
    c->parity = parity ^ 1u;
    c->bounces_run += 1;
    if (loops.bounces) cudaGraphSetConditional(loops.bounces, c->live[parity ^ 1u] != 0 ? 1u : 0u);
}

}  // namespace srt::cuda
