// pool_kernels.cuh - the wavefront as production renderers build it (--mode pool): a
// fixed pool of paths, queues per stage filled by warp-aggregated appends, and new work
// regenerated into the slots of paths that ended, so that every launch is full.
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
// One step of the loop (cuda/frame_launcher.cuh trace_pool):
//   k_pool_intersect   queue[parity] -> hits (a surface) or ended (a miss, a tree done)
//   k_pool_shade       hits: shade and scatter (render/stages.h), -> queue[parity ^ 1]
//                      (sent on, a bounce deeper) or ended
//   k_pool_regenerate  ended: the pixel's next sample, or the next pixel's first, camera
//                      rays -> queue[parity ^ 1]
//   k_pool_end         the next queue becomes this one; the loop runs while it is not empty
#pragma once

#include "cuda/path_kernels.cuh"

namespace srt::cuda {

// The pool's per-slot state and lists, one entry per ray slot each (the executor's).
struct PoolBuffers {
    uint32_t* sample;    // the sample the slot's path belongs to
    uint32_t* bounce;    // the bounce it is at (the loop step, for a ray tree)
    uint32_t* queue[2];  // paths to intersect: queue[parity] this step, queue[parity ^ 1] the next
    uint32_t* hits;      // paths whose ray found a surface: shade's
    uint32_t* ended;     // paths that ended this step: regenerate's
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

// The pool's first paths: the first sample of the pixels of slots 0 .. pool-1.
static __global__ void k_pool_start(FrameContext f, PoolBuffers p, uint32_t pool, FrameControl* ctrl) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) ctrl->next_ray = pool;
    if ((i >> 5) >= (pool >> 5)) return;  // pool: whole warps
    f.camera = ctrl->camera;
    const bool alive = pool_generate(f, p, i, ctrl->sample);  // false: a pad slot
    warp_append(alive, i, p.queue[0], &ctrl->live[0]);
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
        const bool hit = valid && intersect(f, ray);
        warp_append(hit, ray, p.hits, &ctrl->pool_hits);
        warp_append(valid && !hit, ray, p.ended, &ctrl->pool_ended);
    });
    if (counters && lane_id() == 0 && warp_steps) {
        atomicAdd(&steps->lane_steps, lane_steps);
        atomicAdd(&steps->warp_steps, warp_steps);
    }
}

// Shade and scatter in one kernel, as a production renderer's surface kernel: the hit
// is read once for both (render/stages.h shade, then reflect, of the path's own sample
// and bounce).
template <int kVariant, class Traversal>
__global__ void k_pool_shade(FrameContext f, PoolBuffers p, Traversal, BounceCounters* counters, FrameControl* ctrl) {
    const uint32_t parity = ctrl->parity;
    const uint32_t* __restrict__ in = p.hits;
    for_each_list_chunk(ctrl->pool_hits, [&](uint32_t k, bool valid) {
        bool alive = false;
        uint32_t ray = 0;
        if (valid) {
            ray = in[k];
            const int bounce = int(p.bounce[ray]);
            FrameContext g = f;
            g.sample = p.sample[ray];
            const uint32_t shadow = stage_shade<shade_variant(kVariant)>(g, ray, bounce);
            if (counters && shadow)
                atomicAdd(&counters[stats_row(f, bounce)].shadow_rays, (unsigned long long)shadow);
            alive = stage_reflect<kVariant>(g, ray, bounce);
            if (alive) p.bounce[ray] = uint32_t(bounce + 1);
        }
        warp_append(alive, ray, p.queue[parity ^ 1u], &ctrl->live[parity ^ 1u]);
        warp_append(valid && !alive, ray, p.ended, &ctrl->pool_ended);
    });
}

// Each ended path's slot takes its pixel's next sample; a pixel whose samples are done
// hands its place to the next pixel in ray order (one atomic per warp; pad slots are
// skipped), which starts its first sample in its own slot.
static __global__ void k_pool_regenerate(FrameContext f, PoolBuffers p, FrameControl* ctrl) {
    const uint32_t parity = ctrl->parity, first = ctrl->sample, end = ctrl->sample_end;
    f.camera = ctrl->camera;
    const uint32_t* __restrict__ in = p.ended;
    for_each_list_chunk(ctrl->pool_ended, [&](uint32_t k, bool valid) {
        uint32_t slot = valid ? in[k] : 0u;
        bool alive = false, want = false;
        if (valid) {
            const uint32_t next = p.sample[slot] + 1u;
            if (next < end) alive = pool_generate(f, p, slot, next);
            else want = true;
        }
        for (;;) {
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
        warp_append(alive, slot, p.queue[parity ^ 1u], &ctrl->live[parity ^ 1u]);
    });
}

// After a step: the next queue becomes this one, and the loop goes on while it holds a path.
static __global__ void k_pool_end(FrameControl* c, LoopHandles loops) {
    const uint32_t parity = c->parity;
    c->live[parity] = 0;
    c->pool_hits = 0;
    c->pool_ended = 0;
    c->parity = parity ^ 1u;
    c->bounces_run += 1;
    if (loops.bounces) cudaGraphSetConditional(loops.bounces, c->live[parity ^ 1u] != 0 ? 1u : 0u);
}

}  // namespace srt::cuda
