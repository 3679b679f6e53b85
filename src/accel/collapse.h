// collapse.h - what the wide BVHs (accel/bvh4.h, accel/bvh8.h) share when they collapse
// the BVH2: a BVH2 node's children as entries, and the greedy opening of the largest
// inner child (Wald et al., "Getting Rid of Packets", 2008; tinybvh's BVH4 and BVH8).
// Fixed arrays and no allocation, so that the host and the device (cuda/ploc_build.cu)
// run the same code.
#pragma once

#include "accel/bvh.h"
#include "core/hd.h"

#include <cstdint>

namespace srt::collapse {

// A child of a BVH2 node: its box and its link (>= 0 inner node, < 0 leaf with count).
struct Entry {
    float lo[3], hi[3];
    int32_t link = 0, count = 0;
    SRT_HD bool inner() const { return link >= 0; }
    SRT_HD float area() const {
        const float dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
        return 2.0f * (dx * dy + dy * dz + dz * dx);
    }
};

// The children of BVH2 node i into out[0..), without empty slots; returns how many.
SRT_HD_INLINE int children(const BvhNode* bvh2, int32_t i, Entry out[2]) {
    const BvhNode& n = bvh2[i];
    int k = 0;
    for (int side = 0; side < 2; ++side) {
        const int32_t link = n.link[side], count = n.link[2 + side];
        if (link < 0 && count == 0) continue;  // empty slot
        Entry& e = out[k++];
        const f4& xy = side == 0 ? n.lxy : n.rxy;
        e.lo[0] = xy.x;
        e.hi[0] = xy.y;
        e.lo[1] = xy.z;
        e.hi[1] = xy.w;
        e.lo[2] = side == 0 ? n.lrz.x : n.lrz.z;
        e.hi[2] = side == 0 ? n.lrz.y : n.lrz.w;
        e.link = link;
        e.count = count;
    }
    return k;
}

// The children of a wide node made from BVH2 node i, into c[0..width): its two children,
// then the inner child of largest surface area opened into its own two in its place,
// until `width` children or only leaves. Returns how many. width <= 8.
SRT_HD_INLINE int open_largest(const BvhNode* bvh2, int32_t i, int width, Entry c[8]) {
    int n = children(bvh2, i, c);
    while (n < width) {
        int best = -1;
        for (int k = 0; k < n; ++k)
            if (c[k].inner() && (best < 0 || c[k].area() > c[best].area())) best = k;
        if (best < 0) break;
        Entry g[2];
        const int m = children(bvh2, c[best].link, g);
        // c[best] becomes g[0 .. m): the entries after it move by m - 1.
        for (int k = n - 1; k > best; --k) c[k + m - 1] = c[k];
        for (int k = 0; k < m; ++k) c[best + k] = g[k];
        n += m - 1;
    }
    return n;
}

}  // namespace srt::collapse
