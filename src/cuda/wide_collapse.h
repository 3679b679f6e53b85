// wide_collapse.h - the BVH4 and BVH8 collapses on the GPU (cuda/wide_collapse.cu), the
// same nodes as accel/bvh4_build.cpp's collapse_bvh4 and accel/bvh8_build.cpp's
// collapse_bvh8.
#pragma once

#include "accel/bvh4.h"
#include "accel/bvh8.h"
#include "cuda/device_arena.h"

#include <vector_types.h>

#include <cstddef>
#include <cstdint>

namespace srt {

enum class WideLayout { Bvh4, Bvh8 };

// One collapse of a BVH2 of at most `max_nodes` nodes over `prims` primitive references,
// in memory carved from a DeviceArena; its steps enqueued on the default stream.
class WideCollapse {
public:
    void carve(DeviceArena& a, WideLayout layout, uint32_t max_nodes, size_t prims);
    // Step 1: every BVH2 node's count (accel/bvh4_collapse.h, accel/bvh8_collapse.h). The
    // BVH2 has *m nodes (read on the device: the builder knows it there).
    void enqueue_counts(const BvhNode* bvh2, const uint32_t* m) const;
    // Waits for the root's count and checks it against the BVH2 of `bvh2_nodes` nodes
    // (std::logic_error where they disagree: a bug). False where a traversal of the wide
    // tree would need more stack than it has: then there is no wide tree here.
    bool read_root(uint32_t bvh2_nodes);
    // Step 2, after read_root: a launch a level, top down.
    void enqueue_levels(const BvhNode* bvh2) const;
    // The nodes (and the BVH8's order) brought back and checked, with their stats.
    Bvh4 download_bvh4() const;
    Bvh8 download_bvh8() const;

private:
    WideLayout layout_ = WideLayout::Bvh8;
    uint32_t max_nodes_ = 0;
    size_t prims_ = 0;
    int32_t* parent_ = nullptr;
    uint32_t* visits_ = nullptr;
    uint4* counts_ = nullptr;  // bvh4::Count or bvh8::Count, 16 bytes each
    void* nodes_ = nullptr;    // Bvh4Node or Bvh8Node
    uint32_t* order_ = nullptr;
    uint32_t* level_count_ = nullptr;
    uint32_t* fault_ = nullptr;
    uint4* level_[2] = {nullptr, nullptr};  // each level's tasks
    uint4 root_{};
};

// A collapse of the `m` BVH2 nodes at device pointer `bvh2`, with memory of its own.
// `device_ms`: the kernels, from the first launch to the last. The BVH8's BVH2 is not
// relinked: relink_bvh2 does that on the host's copy. The current device must hold bvh2.
Bvh8 collapse_bvh8_on_device(const BvhNode* bvh2, uint32_t m, size_t prims, double& device_ms);
Bvh4 collapse_bvh4_on_device(const BvhNode* bvh2, uint32_t m, double& device_ms);

}  // namespace srt
