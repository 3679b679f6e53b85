// path_kernels.cuh - the kernels that follow whole paths: a thread keeps its ray in
// registers (render/stages.h PathRay) and runs bounce after bounce with trace_bounce,
// the same stage logic the wavefront kernels run over the SoA buffers.
//
//   k_megakernel         one thread per pixel (the wavefront's ray i, so a warp is the
//                        same 8x4 tile): every sample, every bounce and resolve. A lane
//                        whose path ended idles until its warp's last path of the sample
//                        ends; a warp whose lanes all ended leaves the sample.
//   k_regenerate         persistent threads (Aila and Laine 2009) over a grid that fills
//                        the GPU once. A lane whose path ended starts its pixel's next
//                        sample, or, with its pixel done, fetches another from a global
//                        counter, one atomic per warp for all its lanes that need one
//                        (path regeneration: Novak, Havran and Dachsbacher 2010).
//   k_path_tail          the wavefront's tails: the stencil's, once few words live (one
//                        launch runs the rest of the sample, each warp following a listed
//                        word's live lanes to their ends), and Whitted's ray trees that
//                        outlast the bounce loop, in every wavefront mode.
//
// Bit-identity with the wavefront: a pixel's sum is one float that each bounce of each
// sample adds to in order. Every kernel here keeps a pixel in one lane for all of its
// samples, so the additions happen in the same order; only which lanes share a warp
// differs, and no lane's arithmetic depends on that.
#pragma once

#include "cuda/kernels.cuh"

namespace srt::cuda {

// Stats of the path kernels beyond the per-bounce counters (stats only).
struct PathCounters {
    unsigned long long lane_steps;  // regenerate: lanes that traced a bounce, over its loop's iterations
    unsigned long long warp_steps;  // regenerate: iterations of its loop, per warp, that traced a bounce
};

// One bounce of a path in registers (render/stages.h trace_bounce). As an Op, it tells the
// launcher the shared memory its traversals need (kernels.cuh kernel_shared_bytes).
template <int kWidth>
struct TraceOp {
    static constexpr int kVariant = kWidth;
    static constexpr uint32_t kSharedBytesPerThread = traversal_shared_bytes<kWidth>();
    __device__ bool operator()(const FrameContext& f, PathRay& r, uint32_t i, int bounce, uint32_t& shadow) const {
        return trace_bounce<kWidth>(f, r, i, bounce, shadow);
    }
};

// The path kernels' block, and how many of their blocks an SM must hold: 8 caps a thread
// at 64 registers, for 50% occupancy. Uncapped, the megakernel took 109 registers and
// 25% occupancy. Measured on the H100, default scene at 1080p (megakernel, depth 1 / 8):
// 4 blocks (112 registers) 0.190 / 0.282 ms, 5: 0.169 / 0.257, 6 (80): 0.160 / 0.244,
// 8 (64): 0.152 / 0.241; Conference (BVH8) at depth 1: 0.816, 0.742, 0.699, 0.667 ms. The
// cap costs 4.5% more instructions (spills and rematerialisation: ncu, 160 -> 167 M at
// depth 8), and the doubled occupancy hides more of every warp's latency.
constexpr int kPathBlock = 128;
constexpr int kPathMinBlocks = 8;

__device__ __forceinline__ uint32_t lanes_below() { return (1u << lane_id()) - 1u; }

// Stats: sample k of the frame reached bounce b (per-sample maxima sum to bounces_run).
__device__ __forceinline__ void count_reached(uint32_t* reached, uint32_t k, int bounce) {
    if (reached) atomicMax(&reached[k], uint32_t(bounce + 1));
}

template <class Trace>
__global__ void __launch_bounds__(kPathBlock, kPathMinBlocks) k_megakernel(FrameContext f, Trace trace, BounceCounters* counters, uint32_t* reached, const FrameControl* ctrl) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((i >> 5) >= (f.ray_count >> 5)) return;  // whole warp past the end
    uint32_t x, y;
    const bool pixel = ray_to_pixel(f, i, x, y);
    f.camera = ctrl->camera;
    const uint32_t first = ctrl->sample, end = ctrl->sample_end;
    PathRay r;
    if (pixel && first != 0) r.load_sum(f.rays, i);  // a running sum goes on
    for (uint32_t s = first; s < end; ++s) {
        f.sample = s;
        sample_offset(s, f.sample_dx, f.sample_dy);
        bool alive = pixel && generate_ray<path_tracing_of(Trace::kVariant)>(f, i, r);
        for (int b = 0; b < trace_steps<Trace::kVariant>(f); ++b) {
            const uint32_t live = __ballot_sync(kFullMask, alive);
            if (live == 0) break;  // warp-uniform: every lane's path has ended
            BounceCounters* c = counters ? counters + stats_row(f, b) : nullptr;
            count_entry(c, live);
            if (c && lane_id() == 0) count_reached(reached, s - first, b);
            uint32_t shadow = 0;
            if (alive) alive = trace(f, r, i, b, shadow);
            count_shadow(c, shadow);
        }
    }
    if (!pixel) return;
    r.store_sum(f.rays, i);  // for read_linear and the next frame of a running sum
    f.inv_spp = ctrl->inv_spp;
    f.exposure_scale = ctrl->exposure_scale;
    resolve_pixel(f, y * f.width + x, r.rad, r.dropped);
}

template <class Trace>
__global__ void __launch_bounds__(kPathBlock, kPathMinBlocks) k_regenerate(FrameContext f, Trace trace, BounceCounters* counters, PathCounters* steps, uint32_t* reached,
                             FrameControl* ctrl) {
    f.camera = ctrl->camera;
    f.inv_spp = ctrl->inv_spp;
    f.exposure_scale = ctrl->exposure_scale;
    const uint32_t first = ctrl->sample, end = ctrl->sample_end;
    uint32_t ray = 0, x = 0, y = 0, sample = 0;
    int bounce = 0;
    bool has = false;      // this lane holds a pixel
    bool fresh = false;    // ...whose sample `sample` has not started
    bool alive = false;    // ...and a live path of it
    bool drained = false;  // the counter has passed the last ray
    PathRay r;
    unsigned long long lane_steps = 0, warp_steps = 0;
    for (;;) {
        // Lanes without a pixel take the next rays in order (ray order: a warp's first
        // fetch is one whole tile), one atomic per warp; a pad ray is skipped.
        for (;;) {
            const uint32_t want = __ballot_sync(kFullMask, !has && !drained);
            if (want == 0) break;
            uint32_t base = 0;
            if (lane_id() == 0) base = atomicAdd(&ctrl->next_ray, uint32_t(__popc(want)));
            base = __shfl_sync(kFullMask, base, 0);
            if (!has && !drained) {
                const uint32_t k = base + uint32_t(__popc(want & lanes_below()));
                if (k >= f.ray_count) {
                    drained = true;
                } else if (ray_to_pixel(f, k, x, y)) {
                    ray = k;
                    has = fresh = true;
                    sample = first;
                    if (first != 0) r.load_sum(f.rays, ray);
                }
            }
        }
        if (!__any_sync(kFullMask, has)) break;  // warp-uniform: no pixel left for this warp
        if (fresh) {
            f.sample = sample;
            sample_offset(sample, f.sample_dx, f.sample_dy);
            alive = generate_ray<path_tracing_of(Trace::kVariant)>(f, ray, r);  // true: pad rays were skipped
            bounce = 0;
            fresh = false;
        }
        const uint32_t live = __ballot_sync(kFullMask, alive);
        if (counters) {
            lane_steps += uint64_t(__popc(live));
            warp_steps += 1;
            // The lanes at one bounce count together, as a wavefront's warp at that bounce.
            const uint32_t peers = __match_any_sync(kFullMask, alive ? uint32_t(bounce) : 0xffffffffu);
            if (alive && lane_id() == uint32_t(__ffs(peers) - 1)) count_entry_as_leader(counters + stats_row(f, bounce), peers);
            if (alive) count_reached(reached, sample - first, bounce);
        }
        uint32_t shadow = 0;
        if (alive) alive = trace(f, r, ray, bounce, shadow);
        if (counters && shadow) atomicAdd(&counters[stats_row(f, bounce)].shadow_rays, (unsigned long long)shadow);
        ++bounce;
        if (has && !alive) {  // the path ended: the pixel's next sample, or the pixel is done
            if (sample + 1 < end) {
                ++sample;
                fresh = true;
            } else {
                r.store_sum(f.rays, ray);
                resolve_pixel(f, y * f.width + x, r.rad, r.dropped);
                has = false;
            }
        }
    }
    if (counters && lane_id() == 0) {
        atomicAdd(&steps->lane_steps, lane_steps);
        atomicAdd(&steps->warp_steps, warp_steps);
    }
}

// What a tail launch follows (k_path_tail).
enum class TailKind : uint32_t {
    ListedWords,   // the stencil's path tail: the live words listed for a sparse bounce
    StencilWords,  // Whitted's ray trees after the loop: every live word of the stencil,
    Flags,         //   every flagged ray (flags),
    RayList,       //   the survivors' list, list 0 (compact)
};

// The tails: one launch follows live rays to their ends in registers, as the megakernel
// does, a warp's 32 lanes in lock step.
//  - The stencil's path tail (ListedWords, when k_end_bounce set FrameControl::tail): once
//    few words live, each warp takes listed words in turn and follows their paths
//    through the rest of the sample, from the current bounce; the furthest bounce reached
//    goes to FrameControl::tail_end.
//  - Whitted's ray trees that outlast the wavefront's `depth` steps (render/ray_tree.h),
//    after the bounce loop: each warp takes its own 32 slots (stencil, flags) or 32
//    entries of the survivors' list (compact), from step `depth` on; the furthest step to
//    FrameControl::tree_end. The steps past the depth count in the stats' last row.
// One kernel for both, compiled twice (kTrees): the stencil's tail, which every set of
// kernels launches, holds none of the trees' code, which a ray tree's set adds. (One
// kernel for all four kinds cost the stencil's Whitted frames 1.2-1.7% at depths 8 and 12.)
template <class Trace, bool kTrees>
__global__ void __launch_bounds__(kPathBlock, kPathMinBlocks) k_path_tail(FrameContext f, Trace trace, TailKind kind,
                                                                          uint32_t* __restrict__ stencil, uint32_t* flags,
                                                                          const uint32_t* list0, const uint32_t* list1,
                                                                          BounceCounters* counters, FrameControl* ctrl) {
    if constexpr (!kTrees) {
        if (!ctrl->tail) return;
    }
    f.sample = ctrl->sample;  // (the path integrator keys its random numbers by it)
    const int from = kTrees ? f.max_depth : int(ctrl->bounce);
    int to = from;  // warp-uniform: the bounces this warp's rays ran to
    // Follows the lanes' rays that live_in marks from `from` to their ends. Warp-uniform.
    const auto follow = [&](uint32_t i, bool live_in) {
        PathRay r;
        if (live_in) r = PathRay::load(f.rays, i);
        bool alive = live_in;
        for (int b = from; b < trace_steps<Trace::kVariant>(f); ++b) {
            const uint32_t live = __ballot_sync(kFullMask, alive);
            if (live == 0) break;
            to = b + 1 > to ? b + 1 : to;
            BounceCounters* c = counters ? counters + stats_row(f, b) : nullptr;
            count_entry(c, live);
            uint32_t shadow = 0;
            if (alive) alive = trace(f, r, i, b, shadow);
            count_shadow(c, shadow);
        }
        if (live_in) r.store_sum(f.rays, i);
    };
    if constexpr (!kTrees) {
        // The listed words, each followed until every path of it has ended.
        const uint32_t p = ctrl->parity;
        for_each_listed_word(p ? list1 : list0, ctrl->live[p], stencil, [&](uint32_t w, uint32_t word) {
            const uint32_t i = (w << 5) | lane_id();
            follow(i, stencil_test(word, i));
            if (lane_id() == 0) stencil[w] = 0;
        });
    } else {
        // One unit of 32 slots or list entries per warp.
        const uint32_t k = warp_global();
        uint32_t i = (k << 5) | lane_id();
        if ((k << 5) >= f.ray_count) return;  // warp-uniform
        bool live_in;
        if (kind == TailKind::StencilWords) {
            live_in = stencil_test(stencil[k], i);
        } else if (kind == TailKind::Flags) {
            live_in = flags[i] != 0;
        } else {
            const uint32_t n = ctrl->live[0];
            if ((k << 5) >= n) return;  // warp-uniform
            live_in = i < n;
            i = live_in ? list0[i] : 0u;
        }
        if (__ballot_sync(kFullMask, live_in) != 0) follow(i, live_in);
        // Every tree of the unit has ended.
        if (kind == TailKind::StencilWords) {
            if (lane_id() == 0) stencil[k] = 0;
        } else if (kind == TailKind::Flags) {
            flags[i] = 0u;
        }
    }
    if (lane_id() == 0 && to > from) atomicMax(kTrees ? &ctrl->tree_end : &ctrl->tail_end, uint32_t(to));
}

// After the trees' tail: their extra steps join the bounces run (as the megakernel's
// furthest step does), and the compact list is emptied.
static __global__ void k_end_tree(FrameControl* c, uint32_t depth) {
    if (c->tree_end > depth) c->bounces_run += c->tree_end - depth;
    c->tree_end = 0;
    c->live[0] = 0;
}

}  // namespace srt::cuda
