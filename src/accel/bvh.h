// bvh.h - a binned-SAH BVH, built on the host, flattened into the layout the GPU
// traverses (and the CPU executor traverses the same bytes).
//
// Node layout (64 bytes, two cache sectors): each node stores the boxes of BOTH
// children, as in Aila & Laine, "Understanding the Efficiency of Ray Traversal on
// GPUs" (HPG 2009). One node fetch tests two boxes, so a traversal step is one
// 64-byte load followed by two independent slab tests.
//
//   lxy  : left  child box  lo.x hi.x lo.y hi.y
//   rxy  : right child box  lo.x hi.x lo.y hi.y
//   lrz  : left lo.z hi.z, right lo.z hi.z
//   link : x = left child, y = right child, z = left count, w = right count
//          child >= 0       -> inner node index (count unused, 0)
//          child <  0       -> leaf: primitives [~child, ~child + count) of the
//                              BVH-ordered primitive array
//          count == 0 and child < 0 -> empty slot. Its box is stored inverted
//                              (lo = +1e30, hi = -1e30), but the min/max slab test
//                              (accel/traversal_common.h hit_box) swaps each slab's ends, so
//                              it acts as a box of all space: every ray enters it and
//                              visits the empty leaf, which tests no primitive
//                              (harmless). It only occurs when the whole scene is one
//                              leaf of <= kMaxLeafPrims (4) primitives.
//
// Primitives are stored in BVH order (leaves point to contiguous ranges), 48 bytes each,
// see PrimGpu; a primitive that a spatial split cut is stored once for each leaf that
// references it (accel/spatial_split.h). Infinite planes are NOT in the BVH (they have no bounds); they live in a
// short separate list tested brute force (accel/scene_view.h).
#pragma once

#include "core/hd.h"

#include <glm/glm.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace srt {

struct alignas(16) BvhNode {
    f4 lxy;
    f4 rxy;
    f4 lrz;
    int32_t link[4];
};
static_assert(sizeof(BvhNode) == 64, "BvhNode must be 64 bytes");

// One primitive in BVH order, 48 bytes (three 16-byte loads).
//   triangle: p0 = v0, p1 = v1 - v0 (e1), p2 = v2 - v0 (e2)
//   sphere  : p0 = centre, p1.x = radius, p1.y = radius^2, p1.z = what rounding the radius
//             lost, p2.xyz = what rounding the centre lost (the scene's sphere is hi + lo)
//   p0.w    : bit-cast uint32 meta: bit 31 = 1 for a sphere, bit 30 = 1 for a triangle with
//             vertex normals (SceneView::normals), bits 0..29 material index
//   p2.w    : bit-cast uint32 original primitive id (for stable reports and tests)
struct alignas(16) PrimGpu {
    f4 p0;
    f4 p1;
    f4 p2;
};
static_assert(sizeof(PrimGpu) == 48, "PrimGpu must be 48 bytes");

constexpr uint32_t kPrimSphereBit = 0x80000000u;
constexpr uint32_t kPrimSmoothBit = 0x40000000u;
constexpr uint32_t kPrimMaterialMask = 0x3fffffffu;

// What traversal tests a primitive with, 48 bytes (three 16-byte loads), in the same
// order as PrimGpu (which shading reads: hit points, materials, original ids).
//   triangle: a precomputed transform (after Baldwin and Weber, "Fast Ray-Triangle
//             Intersections by Coordinate Transformation", JCGT 2016, here with the
//             translation kept apart): rows r0, r1, r2 map p - v0 to (u, v, w), with
//             u and v the barycentrics of e1 and e2 and w = 0 on the triangle's plane.
//               a = (v0.x, v0.y, v0.z, r2.x)
//               b = (r2.y, r2.z, r0.x, r0.y)
//               c = (r0.z, r1.x, r1.y, r1.z)
//             The rows are the inverse of the matrix [e1 e2 e1xe2] of the stored floats,
//             computed in double and rounded once. A degenerate triangle (no inverse, or
//             rows beyond float) gets rows of 0: no ray hits it.
//   sphere  : a = (centre, kSphereTestTag), b = (radius^2, radius, 0, 0), c = (centre lo,
//             radius lo): the lo parts are what rounding lost, read only near the surface
//             in a scene whose spheres are computed in double (accel/intersect.h). The
//             tag is a NaN
//             payload, which a triangle's r2.x (finite) never is.
// The test is accel/prim_hits.h hit_prim. Why this layout: docs/ARCHITECTURE.md, and the
// measurement against Moller-Trumbore on the stored vertices in accel/prim_hits.h.
struct alignas(16) PrimTestGpu {
    f4 a;
    f4 b;
    f4 c;
};
static_assert(sizeof(PrimTestGpu) == 48, "PrimTestGpu must be 48 bytes");

constexpr uint32_t kSphereTestTag = 0x7fc5f3e7u;

PrimTestGpu make_triangle_test(const glm::vec3& v0, const glm::vec3& e1, const glm::vec3& e2);
PrimTestGpu make_sphere_test(const glm::vec3& centre, float radius, const glm::vec3& centre_lo = glm::vec3(0.0f),
                             float radius_lo = 0.0f);

// Whether a scene's spheres are computed in double (accel/hit_point.h, accel/intersect.h;
// SceneView::precise_spheres): when one's radius is more than a quarter of its nearest
// distance to the camera (rendering space is camera-relative). Its float hit points would
// then err by a few ulps of the radius, more than the points near it, on it or on what
// rests on it: a ground sphere of radius 1000 two units below the camera.
inline bool sphere_needs_double(const glm::vec3& centre, float radius) {
    const float near = glm::length(centre) - radius;
    return radius > 0.25f * near;
}

// A primitive to be built over: its bounds, and a triangle's corners, which spatial
// splits cut (a sphere is cut as its box).
struct BuildPrim {
    glm::vec3 lo, hi;
    bool triangle = false;
    glm::vec3 v0{0.0f}, v1{0.0f}, v2{0.0f};
};

class PlocDevice;

// Which builder makes the tree (--bvh-build).
enum class BvhBuilder {
    Sah,   // binned SAH, with spatial splits where they pay (bvh_build.cpp): the better tree
    Ploc,  // locally-ordered clustering (accel/ploc.h): the quick build, on the GPU where there is one
};

struct BvhBuildOptions {
    // Spatial splits (accel/spatial_split.h): a primitive may be referenced from more
    // than one leaf, where that lowers the SAH cost. Off: every primitive in one leaf.
    // The SAH builder's only.
    bool spatial_splits = true;
    BvhBuilder builder = BvhBuilder::Sah;
    // Where PLOC clusters: a device (the GPU), or the host's cores where null. Either
    // makes the same tree.
    PlocDevice* device = nullptr;
};

struct BvhBuildStats {
    uint32_t nodes = 0;
    uint32_t leaves = 0;
    uint32_t max_depth = 0;
    uint32_t max_leaf_size = 0;
    uint32_t primitives = 0;      // built over
    uint32_t references = 0;      // primitive references in the leaves (>= primitives)
    uint32_t spatial_splits = 0;  // nodes split by a plane that cut references in two
    double sah_cost = 0.0;
    double build_ms = 0.0;
    std::string builder = "sah";  // which made it: "sah", "ploc (GPU name)", "ploc (host)"
    std::string steps;            // the builder's steps and their times, for --stats
};

// The flattened BVH. `order[k]` is the input index of the k-th primitive reference in
// BVH order: each input index at least once, more than once where a spatial split cut it.
struct Bvh {
    std::vector<BvhNode> nodes;  // root is nodes[0]; empty when there are no primitives
    std::vector<uint32_t> order;
    BvhBuildStats stats;
};

// The tree of options.builder: binned SAH (32 bins per axis, leaves of at most
// kMaxLeafPrims references), or PLOC (accel/ploc.h).
Bvh build_bvh(const std::vector<BuildPrim>& prims, const BvhBuildOptions& options = {});
// PLOC's tree, clustered on `device` or, where null, on the host's cores.
Bvh build_bvh_ploc(const std::vector<BuildPrim>& prims, PlocDevice* device);

// Sets a node's child slot (0 left, 1 right): its box and link (accel/bvh.h's layout).
SRT_HD_INLINE void set_bvh_child(BvhNode& n, int side, const glm::vec3& lo, const glm::vec3& hi, int32_t link,
                          int32_t count) {
    f4& xy = side == 0 ? n.lxy : n.rxy;
    xy = {lo.x, hi.x, lo.y, hi.y};
    if (side == 0) {
        n.lrz.x = lo.z;
        n.lrz.y = hi.z;
    } else {
        n.lrz.z = lo.z;
        n.lrz.w = hi.z;
    }
    n.link[side] = link;
    n.link[2 + side] = count;
}

constexpr int kMaxLeafPrims = 4;
constexpr int kBvhStackSize = 64;  // traversal stack; the builder guarantees depth < this

}  // namespace srt
