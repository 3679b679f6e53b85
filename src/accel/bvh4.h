// bvh4.h - a 4-wide BVH collapsed from the binned-SAH BVH2 (accel/bvh.h), one of the node
// widths the benchmark compares. The primitives keep the BVH2's order, so a hit's id is the
// same in both, and both traversals give the same hit (ties go to the lower id).
//
// Node layout (128 bytes, eight 16-byte loads, one 128-byte line): the boxes of the
// node's (up to) four children, one child per component, so that one load brings one
// slab coordinate of all four:
//
//   lo_x, hi_x, lo_y, hi_y, lo_z, hi_z : component k = child k's box
//   child[k] : >= 0                  inner node index
//              < 0, != kBvh4Empty    leaf ~(first << 3 | count): primitives [first,
//                                    first + count) of the BVH-ordered array, count <= 4
//              kBvh4Empty            no child k; its box is empty (lo = +1e30,
//                                    hi = -1e30), and traversal skips it by the ref
//   pad[4]   : zero (keeps the node one 128-byte line)
//
// Collapse (as in Wald et al., "Getting Rid of Packets", 2008, and tinybvh's BVH4): a
// node takes its BVH2 node's two children, then repeatedly opens the inner child of
// largest surface area into its two children, until it holds four or only leaves.
#pragma once

#include "accel/bvh.h"

#include <cstdint>
#include <vector>

namespace srt {

struct alignas(16) Bvh4Node {
    f4 lo_x, hi_x, lo_y, hi_y, lo_z, hi_z;
    int32_t child[4];
    int32_t pad[4];
};
static_assert(sizeof(Bvh4Node) == 128, "Bvh4Node must be 128 bytes");

constexpr int32_t kBvh4Empty = int32_t(0x80000000);  // INT32_MIN: never a leaf ref (count 0)
constexpr int kBvh4StackSize = 64;  // traversal stack; collapse_bvh4 refuses trees needing more

struct Bvh4Stats {
    uint32_t nodes = 0;
    uint32_t leaves = 0;
    uint32_t max_depth = 0;
    uint32_t max_stack = 0;  // the deepest traversal stack a ray can need
    double build_ms = 0.0;   // the collapse alone
};

struct Bvh4 {
    std::vector<Bvh4Node> nodes;  // root is nodes[0]; empty when the BVH2 is empty
    Bvh4Stats stats;
};

// The BVH4 of `bvh2` (its nodes as build_bvh flattened them). Throws std::length_error
// when a traversal of the result could need more than kBvh4StackSize entries.
Bvh4 collapse_bvh4(const std::vector<BvhNode>& bvh2);

}  // namespace srt
