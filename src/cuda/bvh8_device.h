// bvh8_device.h - the BVH8 collapse on the GPU (cuda/bvh8_collapse.cu), the same nodes
// as accel/bvh8_build.cpp's collapse_bvh8.
#pragma once

#include "accel/bvh8.h"

#include <cstddef>
#include <cstdint>

namespace srt {

// The BVH8 of the `m` BVH2 nodes at device pointer `bvh2` over `prims` primitives, brought
// back to the host and checked as collapse_bvh8 checks (check_bvh8). `device_ms`: the
// collapse's kernels alone, from its first launch to its last. The BVH2's leaves are not
// rewritten: relink_bvh2 does that on the host copy. The current device must hold bvh2.
Bvh8 collapse_bvh8_on_device(const BvhNode* bvh2, uint32_t m, size_t prims, double& device_ms);

}  // namespace srt
