// device_rays.cuh - a frame's ray buffers on the device, owned: the rays in SoA form, the
// live sets of each dead-ray strategy (stencil words, flags, lists), the pool's paths and
// Whitted's ray tree. The CUDA executor holds one; its frame launchers
// (cuda/frame_launcher.cuh) pass the live sets to the kernels.
#pragma once

#include "cuda/check.h"
#include "cuda/device_buffer.h"
#include "cuda/pool_kernels.cuh"
#include "render/frame.h"
#include "render/settings.h"
#include "render/stencil.h"

#include <algorithm>
#include <string>

namespace srt::cuda {

class DeviceRays {
public:
    // Buffers for a frame of `s`: grown when too small, never shrunk (a split frame's
    // bands change size as they are balanced, and with peer access enabled every
    // cudaMalloc and cudaFree maps into or out of the other GPUs).
    void grow(const RenderSettings& s) {
        const size_t n = frame_geometry(uint32_t(s.width), uint32_t(s.rows()), uint32_t(s.warp_width)).ray_count;
        // Check the whole need against what is free before any allocation fails.
        size_t need = 0;
        if (origin.size() < n) need += n * (4 * sizeof(f4) + sizeof(float) + sizeof(int32_t) + 4);
        if (need) {
            size_t free_b = 0, total_b = 0;
            CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
            if (need > free_b)
                throw DeviceOutOfMemory(cudaErrorMemoryAllocation,
                                        "out of device memory: " + std::to_string(s.width) + "x" +
                                            std::to_string(s.height) + " needs " + mib(need) +
                                            " of ray buffers, " + mib(free_b) + " free of " + mib(total_b));
        }
        origin.grow(n, "ray origins");
        dir.grow(n, "ray directions");
        weight.grow(n, "ray weights");
        // read_linear copies the whole buffer back, and a pad lane's sum is never written
        // in stencil mode (its lane stays dead): zeros, not uninitialized memory.
        if (radiance.size() < n) {
            radiance.grow(n, "radiance");
            CUDA_CHECK(cudaMemset(radiance.get(), 0, radiance.bytes()));
        }
        hit_t.grow(n, "hit distances");
        hit_id.grow(n, "hit ids");
        hit_inst.grow(n, "hit instances");
        stencil.grow(n / kWarpSize, "stencil");
        if (s.mode == DeadRayMode::Flags) flags.grow(n, "ray flags");
        // Live sets: stencil lists live words, and live rays where it hands bounces to
        // compaction (the path integrator, --kill); compact lists live rays
        // (cuda/compact_kernels.cuh), the pool its queue of paths (cuda/pool_kernels.cuh).
        const bool rays_listed = s.mode == DeadRayMode::Compact || s.mode == DeadRayMode::Pool;
        const bool packs = s.mode == DeadRayMode::Stencil && (s.integrator == Integrator::Path || s.kill.active());
        if (s.mode != DeadRayMode::Flags) {
            const size_t entries = rays_listed ? n : n / kWarpSize;
            list[0].grow(packs ? n : entries, "live list 0");
            list[1].grow(packs ? n : entries, "live list 1");
        }
        if (s.mode == DeadRayMode::Pool) {  // grown together: the graph's key names the first
            const size_t words = n / kWarpSize;
            pool_sample.grow(n, "pool samples");
            pool_bounce.grow(n, "pool bounces");
            pool_hit.grow(n, "pool hits");
            pool_next.grow(words, "pool stencil");
        }
    }

    // The rays, as a frame's stages see them.
    RayBuffers rays() const {
        return RayBuffers{origin.get(), dir.get(), weight.get(), radiance.get(), hit_t.get(), hit_id.get(), hit_inst.get()};
    }

    // The pool's buffers (cuda/pool_kernels.cuh) for `rays` slots: grow() made them for
    // --mode pool.
    PoolBuffers pool(uint32_t rays) const {
        return {pool_sample.get(), pool_bounce.get(), pool_hit.get(), {list[0].get(), list[1].get()},
                pool_next.get(), rays / kWarpSize};
    }

    // Whitted's ray tree (render/ray_tree.h) for `rays` slots at `depth`: allocated for
    // frames with glass, zeroed on `stream` when made, and left zeroed by every frame (a
    // slot's stack is empty when its tree ends).
    RayTree tree(uint32_t rays, int depth, cudaStream_t stream) {
        const size_t entries = std::max<size_t>(1, 3 * ray_tree_capacity(depth) * rays);
        if (tree_entries.size() != entries || tree_size.size() != rays) {
            size_t free_b = 0, total_b = 0;
            CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
            const size_t need = ray_tree_bytes(rays, depth);
            if (need > free_b + tree_entries.bytes() + tree_size.bytes())
                throw DeviceOutOfMemory(cudaErrorMemoryAllocation,
                                        "out of device memory: the ray tree of glass at depth " +
                                            std::to_string(depth) + " needs " + mib(need) + ", " + mib(free_b) +
                                            " free of " + mib(total_b));
            tree_entries.allocate(entries, "ray tree");
            tree_size.allocate(rays, "ray tree sizes");
            CUDA_CHECK(cudaMemsetAsync(tree_size.get(), 0, tree_size.bytes(), stream));
        }
        return ray_tree_over(tree_entries.get(), tree_size.get(), rays, depth);
    }

    DeviceBuffer<f4> origin, dir, weight, radiance;
    DeviceBuffer<float> hit_t;
    DeviceBuffer<int32_t> hit_id;
    DeviceBuffer<uint32_t> hit_inst;  // written only by the kernels of scenes with instances
    DeviceBuffer<uint32_t> stencil, flags, list[2];  // the live sets
    DeviceBuffer<uint32_t> pool_sample, pool_bounce, pool_hit, pool_next;  // the pool (pool())
    DeviceBuffer<f4> tree_entries;  // Whitted's ray tree, for frames with glass (tree())
    DeviceBuffer<uint32_t> tree_size;
};

}  // namespace srt::cuda
