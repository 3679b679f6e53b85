// collapse.h - what the wide BVHs (accel/bvh4.h, accel/bvh8.h) share when they collapse
// the BVH2: a BVH2 node's children as entries, and the greedy opening of the largest
// inner child (Wald et al., "Getting Rid of Packets", 2008; tinybvh's BVH4 and BVH8).
// Fixed arrays and no allocation, so that the host and the device (cuda/wide_collapse.cu)
// run the same code.
#pragma once

#include "accel/bvh.h"
#include "core/hd.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

// Unrolls a loop over a wide node's 8 entries or slots on the GPU (see open_largest).
#if defined(__CUDACC__)
#define SRT_COLLAPSE_UNROLL _Pragma("unroll")
#else
#define SRT_COLLAPSE_UNROLL
#endif

namespace srt::collapse {

// A child of a BVH2 node: its box and its link (>= 0 inner node, < 0 leaf with count).
struct Entry {
    float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {0.0f, 0.0f, 0.0f};
    int32_t link = 0, count = 0;
    SRT_HD bool inner() const { return link >= 0; }
    SRT_HD float area() const {
        const float dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
        return 2.0f * (dx * dy + dy * dz + dz * dx);
    }
};

// What the counts (accel/bvh4_collapse.h, accel/bvh8_collapse.h) read of a child: its area
// and link. A third of an Entry's registers, so that the GPU's climb of the counts keeps
// more threads in flight; the same area, so open_largest opens the same children.
struct AreaEntry {
    float a = 0.0f;
    int32_t link = 0, count = 0;
    SRT_HD bool inner() const { return link >= 0; }
    SRT_HD float area() const { return a; }
};

// BVH2 node n's child on `side` as an entry.
SRT_HD_INLINE Entry child_entry(const BvhNode& n, int side) {
    Entry e;
    const f4& xy = side == 0 ? n.lxy : n.rxy;
    e.lo[0] = xy.x;
    e.hi[0] = xy.y;
    e.lo[1] = xy.z;
    e.hi[1] = xy.w;
    e.lo[2] = side == 0 ? n.lrz.x : n.lrz.z;
    e.hi[2] = side == 0 ? n.lrz.y : n.lrz.w;
    e.link = n.link[side];
    e.count = n.link[2 + side];
    return e;
}

SRT_HD_INLINE void make_entry(const BvhNode& n, int side, Entry& e) { e = child_entry(n, side); }
SRT_HD_INLINE void make_entry(const BvhNode& n, int side, AreaEntry& e) {
    const Entry full = child_entry(n, side);
    e = AreaEntry{full.area(), full.link, full.count};
}

// The children of BVH2 node i into out[0..), without empty slots; returns how many.
template <class E>
SRT_HD_INLINE int children(const BvhNode* bvh2, int32_t i, E out[2]) {
    const BvhNode& n = bvh2[i];
    E a, b;
    make_entry(n, 0, a);
    make_entry(n, 1, b);
    const bool has_a = !(a.link < 0 && a.count == 0), has_b = !(b.link < 0 && b.count == 0);  // an empty slot
    out[0] = has_a ? a : b;
    out[1] = b;
    return int(has_a) + int(has_b);
}

// The children of a wide node made from BVH2 node i, into c[0..width): its two children,
// then the inner child of largest surface area opened into its own two in its place,
// until `width` children or only leaves. Returns how many. width <= 8.
//
// Every index into c is a constant once the loops unroll, so that on the GPU the entries
// stay in registers: an array indexed by a variable lives in local memory, and its
// latency, a few dozen cycles an access, was most of a wide node's time there.
template <class E>
SRT_HD_INLINE int open_largest(const BvhNode* bvh2, int32_t i, int width, E c[8]) {
    int n = children(bvh2, i, c);
    while (n < width) {
        int best = -1;
        float best_area = 0.0f;
        int32_t best_link = 0;
        SRT_COLLAPSE_UNROLL
        for (int k = 0; k < 8; ++k)
            if (k < n && c[k].inner()) {
                const float a = c[k].area();
                if (best < 0 || a > best_area) {
                    best = k;
                    best_area = a;
                    best_link = c[k].link;
                }
            }
        if (best < 0) break;
        E g[2];
        const int m = children(bvh2, best_link, g);
        // c[best] becomes g[0 .. m): the entries after it move by m - 1, from the last down.
        const int next = n + m - 1;
        SRT_COLLAPSE_UNROLL
        for (int k = 7; k >= 0; --k) {
            if (k >= next || k < best) continue;
            if (k >= best + m) {
                if (m == 2) c[k] = c[k > 0 ? k - 1 : 0];
            } else {
                c[k] = k == best ? g[0] : g[1];
            }
        }
        n = next;
    }
    return n;
}

// On the host, every BVH2 node's count of what the wide subtree made from it holds
// (accel/bvh4_collapse.h, accel/bvh8_collapse.h: count(c, n, load) over open_largest):
// the layout puts children after their parents, so the nodes in reverse order are
// bottom up. As the GPU counts, for the tests that hold the two to the same nodes.
template <class Count, class CountFn>
std::vector<Count> counts_bottom_up(const std::vector<BvhNode>& bvh2, int width, CountFn count) {
    const int32_t m = int32_t(bvh2.size());
    std::vector<Count> counts(bvh2.size());
    AreaEntry c[8];
    for (int32_t i = m - 1; i >= 0; --i) {
        for (int side = 0; side < 2; ++side) {
            const int32_t link = bvh2[size_t(i)].link[side];
            if (link >= 0 && (link <= i || link >= m))
                throw std::logic_error("BVH" + std::to_string(width) + ": the BVH2's children must follow their parents");
        }
        const int n = open_largest(bvh2.data(), i, width, c);
        counts[size_t(i)] = count(c, n, [&counts](int32_t k) { return counts[size_t(k)]; });
    }
    return counts;
}

}  // namespace srt::collapse
