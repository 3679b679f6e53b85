// bvh8.h - an 8-wide BVH with quantized child boxes (a compressed wide BVH, after
// Ylitie, Karras and Laine, "Efficient Incoherent Ray Traversal on GPUs Through
// Compressed Wide BVHs", HPG 2017), collapsed from the binned-SAH BVH2 (accel/bvh.h).
//
// Node layout (80 bytes, five 16-byte loads):
//
//   bytes  0..11  px, py, pz   float: the origin of the node's quantization grid (the
//                              lower corner of the union of its children's boxes)
//   bytes 12..14  ex, ey, ez   uint8: the grid step per axis is 2^(e - 127), so that
//                              (uint32(e) << 23) is the float 2^(e - 127) itself;
//                              1 <= e <= 239 (traversal scales the step by 2^15)
//   byte  15      imask        bit s set: slot s holds an inner node
//   bytes 16..19  child_base   index of the node's first inner child. The inner children
//                              are stored one after the other in slot order: slot s's
//                              node is child_base + popcount(imask & ((1 << s) - 1)).
//   bytes 20..23  prim_base    index of the first primitive of the node's leaf children
//   bytes 24..31  meta[8]      slot s a leaf: (count << 5) | offset, its primitives are
//                              [prim_base + offset, prim_base + offset + count), count
//                              1..kBvh8LeafPrims (4); the leaves of one node hold at most
//                              8 * 4 = 32 primitives, so offset + count <= 32. Inner or
//                              empty slot: 0.
//   bytes 32..79  qlo_x[8] qlo_y[8] qlo_z[8] qhi_x[8] qhi_y[8] qhi_z[8]
//                              uint8: slot s's box is, per axis a,
//                              [p_a + qlo_a[s] * step_a, p_a + qhi_a[s] * step_a], rounded
//                              outwards (it contains the child's exact box). An empty slot
//                              has qlo = 255 and qhi = 0 on every axis: an inverted box no
//                              ray enters.
//
// Slots are assigned by direction (Ylitie et al. section 3.2): slot s's diagonal has
// component k = -1 where bit k of s is set, +1 where not, and each child goes to the slot
// whose diagonal best matches its offset from the node's centre. A ray whose octant is
// o (bit k set where d_k < 0) then visits its hit children in decreasing order of
// s ^ o, which is roughly front to back without sorting anything.
//
// Primitives are reordered so that each node's leaf children are contiguous
// (compile_scene applies the order); a hit's tie goes to the lower *original* primitive id
// (accel/traversal_common.h closer_prim), so every layout finds the same primitive.
#pragma once

#include "accel/bvh.h"

#include <cstdint>
#include <vector>

namespace srt {

struct alignas(16) Bvh8Node {
    float px, py, pz;
    uint8_t e[3];
    uint8_t imask;
    uint32_t child_base;
    uint32_t prim_base;
    uint8_t meta[8];
    uint8_t qlo[3][8];
    uint8_t qhi[3][8];
};
static_assert(sizeof(Bvh8Node) == 80, "Bvh8Node must be 80 bytes");

// A leaf child is a BVH2 leaf: at most this many primitives. Eight of them fit the
// node's 32 (meta's offset is 5 bits).
constexpr int kBvh8LeafPrims = kMaxLeafPrims;
// Traversal stack entries: a node group and a postponed primitive group a tree level at
// most (accel/traverse_bvh8.h); collapse_bvh8 refuses deeper trees (the depth
// of a BVH8 collapsed from a BVH2 under 64 deep is far less than 31).
constexpr int kBvh8StackSize = 64;
// Marks a primitive group on that stack, in the top bit of an index: collapse_bvh8 keeps
// node and primitive counts below it.
constexpr uint32_t kPrimGroupTag = 0x80000000u;

struct Bvh8Stats {
    uint32_t nodes = 0;
    uint32_t leaves = 0;
    uint32_t max_depth = 0;
    double build_ms = 0.0;  // the collapse alone
};

struct Bvh8 {
    std::vector<Bvh8Node> nodes;  // root is nodes[0]; empty when the BVH2 is empty
    // The primitive order the leaves need: new position k holds the primitive at BVH2
    // position prim_order[k].
    std::vector<uint32_t> prim_order;
    Bvh8Stats stats;
};

// The BVH8 of `bvh2` (its nodes as build_bvh flattened them, over `prims` primitives).
// `bvh2`'s leaves are rewritten to the new primitive order, so that the BVH2 stays valid
// over it.
Bvh8 collapse_bvh8(std::vector<BvhNode>& bvh2, size_t prims);

}  // namespace srt
