// bvh8_device.h - the BVH8 collapse on the GPU (cuda/bvh8_collapse.cu), the same nodes
// as accel/bvh8_build.cpp's collapse_bvh8.
#pragma once

#include "accel/bvh8.h"
#include "accel/bvh8_collapse.h"
#include "cuda/device_arena.h"

#include <cstddef>
#include <cstdint>

namespace srt {

// The collapse's device memory, for a BVH2 of at most `max_nodes` nodes over `prims`
// primitive references.
struct Bvh8DeviceScratch {
    int32_t* parent;
    uint32_t* visits;
    bvh8::Count* counts;
    Bvh8Node* nodes;
    uint32_t* order;
    uint32_t* level_count;  // each level's tasks
    uint32_t* fault;
    bvh8::Task* level[2];
    void carve(DeviceArena& a, uint32_t max_nodes, size_t prims);
};

// Step 1, enqueued on the default stream: every BVH2 node's count (accel/bvh8_collapse.h).
// The BVH2 has *m nodes (m is read on the device: the builder knows it there), at most
// max_nodes. The root's count, s.counts[0], gives step 2 its levels.
void enqueue_bvh8_counts(const BvhNode* bvh2, const uint32_t* m, uint32_t max_nodes, size_t prims,
                         const Bvh8DeviceScratch& s);
// Step 2, enqueued: root.depth + 1 levels, top down, into s.nodes and s.order.
void enqueue_bvh8_levels(const BvhNode* bvh2, const bvh8::Count& root, const Bvh8DeviceScratch& s);
// The nodes and the order brought back and checked (check_bvh8); stats from `root`.
Bvh8 download_bvh8(const bvh8::Count& root, size_t prims, const Bvh8DeviceScratch& s);

// All three on the `m` BVH2 nodes at device pointer `bvh2`, with memory of its own.
// `device_ms`: the kernels, from the first launch to the last. The BVH2's leaves are not
// rewritten: relink_bvh2 does that on the host's copy. The current device must hold bvh2.
Bvh8 collapse_bvh8_on_device(const BvhNode* bvh2, uint32_t m, size_t prims, double& device_ms);

}  // namespace srt
