// bvh4_collapse.h - the BVH2 collapsed into the BVH4 (accel/bvh4.h), one wide node at a
// time, written once for the host (accel/bvh4_build.cpp) and the GPU
// (cuda/wide_collapse.cu), which make the same nodes bit for bit.
//
// The nodes are in the order of a depth-first collapse that numbers a node before its
// children, its children's subtrees one after the other in child order. The host walks
// depth first. The GPU cannot, so, as for the BVH8 (accel/bvh8_collapse.h), it counts
// first what the wide subtree made from each BVH2 node holds, bottom up; then a node's
// children's places follow from their counts, and the nodes of a level are independent.
// A BVH4's leaves keep the BVH2's primitive order, so only nodes are placed.
#pragma once

#include "accel/bvh4.h"
#include "accel/collapse.h"
#include "core/hd.h"

#include <cstdint>
#include <vector>

namespace srt {

// The BVH4 by the GPU's steps, on the host: the same nodes and stats as collapse_bvh4's.
// For the tests.
Bvh4 collapse_bvh4_by_counts(const std::vector<BvhNode>& bvh2);
// What collapse_bvh4 checks of a BVH4 made here or on the GPU: the stack it needs
// (std::length_error). Sets stats.nodes.
void check_bvh4(Bvh4& b4);

}  // namespace srt

namespace srt::bvh4 {

using collapse::Entry;

// What the wide subtree made from a BVH2 node holds: the wide nodes below its own, its
// leaf children, the levels below its own, and the deepest traversal stack a ray in it
// can need (each node it passes pushes every hit child but the nearest).
struct Count {
    uint32_t nodes, leaves, depth, stack;
};

// From open_largest's children c[0 .. n) (width 4); `load(i)` gives BVH2 node i's count.
template <class E, class Load>
SRT_HD_INLINE Count count(const E* c, int n, Load load) {
    Count r{0u, 0u, 0u, 0u};
    uint32_t deepest = 0;
    SRT_COLLAPSE_UNROLL
    for (int k = 0; k < 4; ++k) {
        if (k >= n) continue;
        if (c[k].inner()) {
            const Count s = load(c[k].link);
            r.nodes += 1u + s.nodes;
            r.leaves += s.leaves;
            r.depth = r.depth > s.depth + 1u ? r.depth : s.depth + 1u;
            deepest = deepest > s.stack ? deepest : s.stack;
        } else {
            r.leaves += 1u;
        }
    }
    r.stack = uint32_t(n > 0 ? n - 1 : 0) + deepest;
    return r;
}

// A wide node to make: from BVH2 node `src`, at `pos`.
struct Task {
    int32_t src;
    uint32_t pos;
};

// A leaf child's reference (accel/bvh4.h).
SRT_HD_INLINE int32_t leaf_ref(const Entry& e) { return ~((int32_t(~e.link) << 3) | e.count); }

// The node of children c[0 .. n), child k's reference ref[k] (an inner child's place, or
// leaf_ref): the boxes one child a component, empty slots kBvh4Empty with empty boxes.
SRT_HD_INLINE Bvh4Node make_node(const Entry* c, int n, const int32_t ref[4]) {
    float lo[3][4], hi[3][4];
    SRT_COLLAPSE_UNROLL
    for (int k = 0; k < 4; ++k)
        for (int a = 0; a < 3; ++a) {
            lo[a][k] = k < n ? c[k].lo[a] : 1e30f;
            hi[a][k] = k < n ? c[k].hi[a] : -1e30f;
        }
    Bvh4Node node;
    node.lo_x = f4{lo[0][0], lo[0][1], lo[0][2], lo[0][3]};
    node.hi_x = f4{hi[0][0], hi[0][1], hi[0][2], hi[0][3]};
    node.lo_y = f4{lo[1][0], lo[1][1], lo[1][2], lo[1][3]};
    node.hi_y = f4{hi[1][0], hi[1][1], hi[1][2], hi[1][3]};
    node.lo_z = f4{lo[2][0], lo[2][1], lo[2][2], lo[2][3]};
    node.hi_z = f4{hi[2][0], hi[2][1], hi[2][2], hi[2][3]};
    SRT_COLLAPSE_UNROLL
    for (int k = 0; k < 4; ++k) {
        node.child[k] = k < n ? ref[k] : kBvh4Empty;
        node.pad[k] = 0;
    }
    return node;
}

// The references of the children c[0 .. n) of the node made at t.pos, into ref (empty
// slots kBvh4Empty): the inner children's places follow the node's own, each subtree
// after the one before (`counts[i]`, BVH2 node i's count); each inner child's task
// goes to emit(k, task), k counting them in child order.
template <class Counts, class Emit>
SRT_HD_INLINE void place(const Entry* c, int n, const Task& t, const Counts& counts, int32_t ref[4], Emit emit) {
    uint32_t next = t.pos + 1u;
    int inner = 0;
    SRT_COLLAPSE_UNROLL
    for (int k = 0; k < 4; ++k) {
        if (k >= n) {
            ref[k] = kBvh4Empty;
            continue;
        }
        if (c[k].inner()) {
            ref[k] = int32_t(next);
            emit(inner++, Task{c[k].link, next});
            next += 1u + counts[c[k].link].nodes;
        } else {
            ref[k] = leaf_ref(c[k]);
        }
    }
}

}  // namespace srt::bvh4
