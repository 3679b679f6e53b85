// bvh8_collapse.h - the BVH2 collapsed into the BVH8 (accel/bvh8.h), one wide node at a
// time. What a wide node is (open_largest, assign_slots, encode) is written once, for the
// host (accel/bvh8_build.cpp) and the GPU (cuda/wide_collapse.cu), which make the same
// nodes bit for bit.
//
// The places are those of a depth-first collapse: a node's inner children are one block
// of nodes, made when the node is; the blocks of its children's subtrees follow, in slot
// order; a node's leaf primitives come first, then its children's subtrees', in slot
// order. The host walks depth first. The GPU cannot, so it works the places out:
//
//   1. bottom up over the BVH2: for each node i, what the wide subtree made from it
//      holds (count over open_largest(i)): wide nodes below its own, primitives, levels,
//      leaves. Every node gets a count, whether or not it becomes a wide node: a count
//      depends only on the node's subtree, so the order does not matter.
//   2. top down from the root, a level at a time: each wide node opens its BVH2 node,
//      encodes itself, and places its children (place): where its inner children's nodes
//      and its leaves' primitives go follows from the counts alone, so the nodes of a
//      level are independent. collapse_bvh8_by_counts runs the same on the host.
#pragma once

#include "accel/bvh8.h"
#include "accel/collapse.h"
#include "core/hd.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace srt {

// What collapse_bvh8 checks of a BVH8 made here or on the GPU: a Fault below, the
// primitives all placed, and the counts and the depth within traversal's limits
// (std::logic_error or std::length_error). Sets stats.nodes.
void check_bvh8(Bvh8& b8, size_t prims, uint32_t fault);
// The BVH2's leaves moved to the BVH8's primitive order (new position k holds BVH2
// position prim_order[k]), as collapse_bvh8 moves them.
void relink_bvh2(std::vector<BvhNode>& bvh2, const std::vector<uint32_t>& prim_order);
// The BVH8 by the GPU's steps below, on the host: the same nodes and order as
// collapse_bvh8's (bvh2 is not relinked). For the tests: the host's collapse walks
// depth first, which opens only the BVH2 nodes that become wide nodes.
Bvh8 collapse_bvh8_by_counts(const std::vector<BvhNode>& bvh2, size_t prims);

}  // namespace srt

namespace srt::bvh8 {

using collapse::Entry;

// What the wide subtree made from a BVH2 node holds: the wide nodes below its own (its
// inner children and their subtrees), the primitives, the levels below its own, and the
// leaf children of all its nodes.
struct Count {
    uint32_t nodes, prims, depth, leaves;
};

// From open_largest's children c[0 .. n); `load(i)` gives BVH2 node i's count (the GPU
// reads them past its L1, which other SMs' writes do not reach).
template <class E, class Load>
SRT_HD_INLINE Count count(const E* c, int n, Load load) {
    Count r{0u, 0u, 0u, 0u};
    SRT_COLLAPSE_UNROLL
    for (int k = 0; k < 8; ++k) {
        if (k >= n) continue;
        if (c[k].inner()) {
            const Count s = load(c[k].link);
            r.nodes += 1u + s.nodes;
            r.prims += s.prims;
            r.depth = r.depth > s.depth + 1u ? r.depth : s.depth + 1u;
            r.leaves += s.leaves;
        } else {
            r.prims += uint32_t(c[k].count);
            r.leaves += 1u;
        }
    }
    return r;
}

// Why a node could not be made (0: it was).
enum Fault : uint32_t {
    kFine = 0,
    kTooLarge = 1,     // a node's box too large to quantize
    kOffGrid = 2,      // a child's box off its node's grid (a bug)
    kLeafOverflow = 4  // a leaf outside its node's 32 primitives (a bug)
};

// Per axis: the quantization step 2^(e - 127) as its biased exponent e, the smallest in
// [1, 239] that puts `extent` within 255 steps; 0 where none does. Exact: 255 * 2^k is a
// double, and the comparisons round nothing.
SRT_HD_INLINE uint32_t step_exponent(double extent) {
    if (!(extent > 0.0)) return extent == 0.0 ? 1u : 0u;
    int exp2 = 0;
    (void)frexp(extent / 255.0, &exp2);  // extent / 255 < 2^exp2
    int e = exp2 + 127;
    e = e < 1 ? 1 : e > 240 ? 240 : e;
    while (e > 1 && extent <= 255.0 * ldexp(1.0, e - 1 - 127)) --e;
    while (e <= 239 && extent > 255.0 * ldexp(1.0, e - 127)) ++e;
    return e <= 239 ? uint32_t(e) : 0u;
}

// Each child to the slot whose diagonal best matches the direction from the centre of
// the node's box [lo, hi] to the child's: greedily, the best remaining (child, slot)
// pair first, ties to the first in (child, slot) order. Returns the slots, child i's in
// bits 4i .. 4i + 3. In registers on the GPU: every index a constant (collapse.h).
SRT_HD_INLINE uint32_t assign_slots(const Entry* c, int n, const float lo[3], const float hi[3]) {
    float cost[8][8];
    SRT_COLLAPSE_UNROLL
    for (int i = 0; i < 8; ++i) {
        float off[3];
        for (int a = 0; a < 3; ++a)
            off[a] = i < n ? 0.5f * (c[i].lo[a] + c[i].hi[a]) - 0.5f * (lo[a] + hi[a]) : 0.0f;
        SRT_COLLAPSE_UNROLL
        for (int s = 0; s < 8; ++s) {
            float dot = 0.0f;
            for (int a = 0; a < 3; ++a) dot += (s >> a & 1) ? -off[a] : off[a];
            cost[i][s] = dot;
        }
    }
    uint32_t child_done = 0, slot_done = 0, slots = 0;
    for (int round = 0; round < n; ++round) {
        int bi = -1, bs = -1;
        float best = 0.0f;
        SRT_COLLAPSE_UNROLL
        for (int i = 0; i < 8; ++i) {
            SRT_COLLAPSE_UNROLL
            for (int s = 0; s < 8; ++s)
                if (i < n && !(child_done >> i & 1u) && !(slot_done >> s & 1u) && (bi < 0 || cost[i][s] > best)) {
                    bi = i;
                    bs = s;
                    best = cost[i][s];
                }
        }
        child_done |= 1u << bi;
        slot_done |= 1u << bs;
        slots |= uint32_t(bs) << (4 * bi);
    }
    return slots;
}

// The children in slot order: slot s's child in by_slot[s], bit s of the result set
// where slot s holds one. One select network, constant indices on both sides. (Leaving
// the slot loops that read by_slot rolled, so that it lives in local memory, halves the
// GPU's code but made the collapse slower: 0.60 ms against 0.50 for Conference.)
SRT_HD_INLINE uint32_t in_slot_order(const Entry* c, int n, uint32_t slots, Entry by_slot[8]) {
    uint32_t has = 0;
    SRT_COLLAPSE_UNROLL
    for (int s = 0; s < 8; ++s) {
        SRT_COLLAPSE_UNROLL
        for (int i = 0; i < 8; ++i)
            if (i < n && (slots >> (4 * i) & 15u) == uint32_t(s)) {
                by_slot[s] = c[i];
                has |= 1u << s;
            }
    }
    return has;
}

// The wide node of children c[0 .. n): its grid, its slots' boxes rounded outwards onto
// the grid, its leaves' meta and its imask; not yet child_base and prim_base (place).
// Its children in slot order go to by_slot (in_slot_order), for place. Returns a Fault.
SRT_HD_INLINE uint32_t encode(const Entry* c, int n, Bvh8Node& node, Entry by_slot[8]) {
    float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
    SRT_COLLAPSE_UNROLL
    for (int k = 0; k < 8; ++k)
        for (int a = 0; a < 3; ++a)
            if (k < n) {
                lo[a] = c[k].lo[a] < lo[a] ? c[k].lo[a] : lo[a];
                hi[a] = c[k].hi[a] > hi[a] ? c[k].hi[a] : hi[a];
            }
    const uint32_t has = in_slot_order(c, n, assign_slots(c, n, lo, hi), by_slot);
    uint32_t fault = kFine;
    node.px = lo[0];
    node.py = lo[1];
    node.pz = lo[2];
    const double p[3] = {double(lo[0]), double(lo[1]), double(lo[2])};
    double inv_step[3];  // 2^(127 - e): x * inv_step is x / step, bit for bit, and cheaper
    for (int a = 0; a < 3; ++a) {
        const uint32_t e = step_exponent(double(hi[a]) - p[a]);
        if (e == 0) fault |= kTooLarge;
        node.e[a] = uint8_t(e == 0 ? 239u : e);
        inv_step[a] = ldexp(1.0, 127 - int(node.e[a]));
    }
    // Boxes, rounded outwards onto the grid (exact in double: a float plus a multiple of a
    // power of two). An empty slot: the inverted box no ray enters.
    node.imask = 0;
    uint32_t offset = 0;
    SRT_COLLAPSE_UNROLL
    for (int s = 0; s < 8; ++s) {
        uint8_t meta = 0, qlo[3] = {255, 255, 255}, qhi[3] = {0, 0, 0};
        if (has >> s & 1u) {
            const Entry& e = by_slot[s];
            for (int a = 0; a < 3; ++a) {
                const double ql = floor((double(e.lo[a]) - p[a]) * inv_step[a]);
                const double qh = ceil((double(e.hi[a]) - p[a]) * inv_step[a]);
                if (!(ql >= 0.0 && qh <= 255.0 && ql <= qh)) {
                    fault |= kOffGrid;
                    continue;
                }
                qlo[a] = uint8_t(ql);
                qhi[a] = uint8_t(qh);
            }
            if (e.inner()) {
                node.imask = uint8_t(node.imask | (1u << s));
            } else if (e.count < 1 || e.count > kBvh8LeafPrims || offset + uint32_t(e.count) > 32u) {
                fault |= kLeafOverflow;
            } else {
                // Leaf children: their primitives one after the other, in slot order.
                meta = uint8_t((uint32_t(e.count) << 5) | offset);
                offset += uint32_t(e.count);
            }
        } else {
            by_slot[s].link = -1;  // read as an empty leaf by place
            by_slot[s].count = 0;
        }
        node.meta[s] = meta;
        for (int a = 0; a < 3; ++a) {
            node.qlo[a][s] = qlo[a];
            node.qhi[a][s] = qhi[a];
        }
    }
    return fault;
}

// A wide node to make: from BVH2 node `src`, at `pos`, its inner children's block at
// `child_base`, its leaves' primitives from `prim_base`.
struct Task {
    int32_t src;
    uint32_t pos, child_base, prim_base;
};

// The places of an encoded node's children (depth first, as the header says): sets the
// node's bases, writes its leaves' primitives' BVH2 positions into `order`, and hands
// each inner child's task to emit(k, task), k counting them in slot order. `by_slot`:
// encode's.
template <class Emit>
SRT_HD_INLINE void place(const Entry by_slot[8], const Count* counts, const Task& t, Bvh8Node& node, uint32_t* order,
                         Emit emit) {
    node.child_base = t.child_base;
    node.prim_base = t.prim_base;
    uint32_t leaf_prims = 0, inner = 0;
    SRT_COLLAPSE_UNROLL
    for (int s = 0; s < 8; ++s) {
        const Entry& e = by_slot[s];
        if (e.inner()) {
            ++inner;
            continue;
        }
        // The count as encode wrote it: 0 for an empty slot, and for a leaf it refused
        // (a Fault), so nothing is written outside the node's primitives.
        const uint32_t count = node.meta[s] >> 5, first = uint32_t(~e.link), at = t.prim_base + (node.meta[s] & 31u);
        for (uint32_t k = 0; k < count; ++k) order[at + k] = first + k;
        leaf_prims += count;
    }
    uint32_t next_block = t.child_base + inner, next_prim = t.prim_base + leaf_prims;
    int k = 0;
    SRT_COLLAPSE_UNROLL
    for (int s = 0; s < 8; ++s) {
        const Entry& e = by_slot[s];
        if (!e.inner()) continue;
        const Count sc = counts[e.link];
        emit(k, Task{e.link, t.child_base + uint32_t(k), next_block, next_prim});
        next_block += sc.nodes;
        next_prim += sc.prims;
        ++k;
    }
}

}  // namespace srt::bvh8
