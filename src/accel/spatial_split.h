// spatial_split.h - what the BVH builder (accel/bvh_build.cpp) works on: boxes,
// references to primitives, and the spatial split of Stich, Friedrich and Dietrich,
// "Spatial Splits in Bounding Volume Hierarchies" (HPG 2009).
//
// A reference is a primitive seen through a box: at first the primitive's bounds, and
// after a spatial split the bounds of the part of it on one side of the plane. A leaf
// lists references, so a primitive cut by a split lives in two leaves; the compiled scene
// stores one copy of the primitive a reference (render/scene_gpu.cpp), and a hit reports
// the primitive's original id, so no hit changes: a copy tests the same bytes.
#pragma once

#include "accel/bvh.h"

#include <glm/glm.hpp>

#include <cstdint>
#include <vector>

namespace srt {

struct BuildBox {
    glm::vec3 lo{1e30f}, hi{-1e30f};
    void grow(const glm::vec3& p) { lo = glm::min(lo, p); hi = glm::max(hi, p); }
    void grow(const BuildBox& b) { lo = glm::min(lo, b.lo); hi = glm::max(hi, b.hi); }
    bool empty() const { return lo.x > hi.x || lo.y > hi.y || lo.z > hi.z; }
    float area() const {
        if (empty()) return 0.0f;
        const glm::vec3 d = hi - lo;
        return 2.0f * (d.x * d.y + d.y * d.z + d.z * d.x);
    }
    glm::vec3 centre() const { return 0.5f * (lo + hi); }
};

inline BuildBox intersection(const BuildBox& a, const BuildBox& b) {
    return BuildBox{glm::max(a.lo, b.lo), glm::min(a.hi, b.hi)};
}

struct BuildRef {
    BuildBox box;
    uint32_t prim = 0;  // index into the builder's BuildPrim array
};

// A node's references: a run of a vector the builder partitions in place.
struct RefRange {
    BuildRef* first = nullptr;
    size_t count = 0;
    BuildRef* begin() const { return first; }
    BuildRef* end() const { return first + count; }
    size_t size() const { return count; }
};

// The SAH's sweep over the bins of one axis: for each plane between two bins, the cost
// area(left) * left count + area(right) * right count (unnormalised), where a reference
// counts on the left from the bin it enters and on the right up to the bin it leaves (an
// object split's references enter and leave in the same bin). The lowest cost, the first
// plane on a tie; `plane` is the index of the first bin on its right, -1 when no plane
// leaves references on both sides.
constexpr int kMaxSweepBins = 32;
struct SahSweep {
    float cost = 1e30f;
    int plane = -1;
    BuildBox left, right;
    uint32_t left_count = 0, right_count = 0;
};
// The sweep itself, over bins in SSE registers: sweep_bins (accel/box4.h).

// The parts of reference `r` (of primitive `p`) on either side of the plane x[axis] =
// plane: boxes that contain every point of the primitive inside r.box on that side,
// rounded outwards (the crossing points are computed in double), so that no ray that
// hits the primitive misses both. An empty side gets an empty box. A sphere's parts are
// its box cut by the plane.
void split_reference(const BuildPrim& p, const BuildRef& r, int axis, float plane, BuildRef& left,
                     BuildRef& right);

// The best spatial split of a node (bounds `box`) over its references, along any axis:
// the plane, and its sweep (the SAH's cost, the two sides' bounds and counts, straddling
// parts included); axis -1 and cost 1e30 when there is none.
struct SpatialSplit {
    int axis = -1;
    float plane = 0.0f;
    SahSweep sweep;
    float cost() const { return sweep.cost; }
};
// The node's best spatial split, if one costs less than `bound` (else axis -1): the node's
// best object split's cost, below which alone a spatial split is taken.
SpatialSplit find_spatial_split(const std::vector<BuildPrim>& prims, const BuildBox& box, RefRange refs,
                                float bound = 1e30f);

// Deals `refs` to the two sides of split `s`: a reference on one side goes there, and
// one across the plane is cut in two, unless keeping it whole on one side costs less
// (Stich et al.'s reference unsplitting). Returns how many references were cut. Either
// side may come back empty (then the caller splits otherwise).
uint32_t partition_spatial(const std::vector<BuildPrim>& prims, const SpatialSplit& s, RefRange refs,
                           std::vector<BuildRef>& left, std::vector<BuildRef>& right);

}  // namespace srt
