// collapse.h - what the wide BVHs (accel/bvh4.h, accel/bvh8.h) share when they collapse
// the BVH2: a BVH2 node's children as entries, and the greedy opening of the largest
// inner child (Wald et al., "Getting Rid of Packets", 2008; tinybvh's BVH4 and BVH8).
#pragma once

#include "accel/bvh.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace srt::collapse {

// A child of a BVH2 node: its box and its link (>= 0 inner node, < 0 leaf with count).
struct Entry {
    float lo[3], hi[3];
    int32_t link = 0, count = 0;
    bool inner() const { return link >= 0; }
    float area() const {
        const float dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
        return 2.0f * (dx * dy + dy * dz + dz * dx);
    }
};

// The children of BVH2 node i, without empty slots.
inline std::vector<Entry> children(const std::vector<BvhNode>& bvh2, int32_t i) {
    const BvhNode& n = bvh2[size_t(i)];
    std::vector<Entry> out;
    for (int side = 0; side < 2; ++side) {
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
        if (e.link < 0 && e.count == 0) continue;  // empty slot
        out.push_back(e);
    }
    return out;
}

// The children of a wide node made from BVH2 node i: its two children, then the inner
// child of largest surface area opened into its own two, until `width` children or only
// leaves.
inline std::vector<Entry> open_largest(const std::vector<BvhNode>& bvh2, int32_t i, size_t width) {
    std::vector<Entry> c = children(bvh2, i);
    while (c.size() < width) {
        int best = -1;
        for (int k = 0; k < int(c.size()); ++k)
            if (c[size_t(k)].inner() && (best < 0 || c[size_t(k)].area() > c[size_t(best)].area())) best = k;
        if (best < 0) break;
        const std::vector<Entry> g = children(bvh2, c[size_t(best)].link);
        c.erase(c.begin() + best);
        c.insert(c.begin() + best, g.begin(), g.end());
    }
    return c;
}

}  // namespace srt::collapse
