// ploc.h - the quick builder: a BVH by parallel locally-ordered clustering (Meister and
// Bittner, "Parallel Locally-Ordered Clustering for Bounding Volume Hierarchy
// Construction", TVCG 2018), the same steps on the GPU (cuda/ploc_build.cu) and on the
// host (accel/ploc_build.cpp), which make the same tree bit for bit.
//
//   1. the centroids' bounds                 (min and max: exact in any order)
//   2. a 30-bit Morton code per primitive   (ploc_morton)
//   3. a stable sort of the codes            (CUB's radix sort; on the host the same
//                                            order, keys first and ties by index)
//   4. clusters = the sorted primitives; while more than one:
//        each cluster finds its nearest neighbour among the kPlocRadius on either side
//        (ploc_nearest: the smallest area of the two boxes' union);
//        mutual neighbours merge into a new node, in the lower one's place
//        (ploc_flag, an exclusive sum, ploc_merge).
//   5. leaves: a subtree of at most kMaxLeafPrims primitives becomes one leaf where the
//      SAH says so (ploc_fold, bottom up); then the 64-byte layout of accel/bvh.h, each
//      node placed from its parent's place (ploc_place_child, top down).
//
// Determinism. Every step is a pure function of its index and the previous step's
// arrays: new nodes and surviving clusters get their places from prefix sums, never from
// atomics, and a tie between neighbours goes to the lower index. With FMA contraction off
// on both sides (CMakeLists.txt) the areas round alike, so the tree is the same bits on
// every run and on either side.
//
// Progress. Order the pairs (i, j) by the area of the union, then by ploc_nearest's
// rule for ties (a pair's gap, the parity of its start, its start): the least pair
// within reach is each one's nearest neighbour, so every round merges at least one pair.
// A scene whose rounds merge few pairs for long (boxes growing along a line) would make
// a deep tree slowly: after kPlocMaxRounds the clustering stops, and the SAH builder
// makes the tree.
#pragma once

#include "accel/bvh.h"
#include "accel/bvh4.h"
#include "accel/bvh8.h"
#include "core/hd.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// Before the neighbour search's loop, whose latency, not its work, bounds a thread on the
// GPU: eight steps' loads in flight at once.
#if defined(__CUDACC__)
#define SRT_PLOC_UNROLL _Pragma("unroll 8")
#else
#define SRT_PLOC_UNROLL
#endif

namespace srt {

// How far a cluster looks for its neighbour, on each side. Meister and Bittner find 16
// near the best trade of build time against tree quality.
constexpr uint32_t kPlocRadius = 16;
// A balanced clustering of 2^32 primitives takes 32 rounds, a real scene's a few times
// that (Conference's 331 k: about 40).
constexpr uint32_t kPlocMaxRounds = 512;

// A node of the clustering: its box, and in the w's its children's node ids (an inner
// node), or ~primitive in lo.w and hi.w (a leaf: nodes 0 .. n-1, in Morton order).
// Inner nodes get ids n, n+1, ... in the order they are made, so a child's id is always
// below its parent's and the root is the last, 2n - 2.
struct alignas(16) PlocNode {
    f4 lo;
    f4 hi;
};
static_assert(sizeof(PlocNode) == 32, "PlocNode must be 32 bytes");

SRT_HD_INLINE int32_t ploc_left(const PlocNode& n) { return int32_t(float_bits(n.lo.w)); }
SRT_HD_INLINE int32_t ploc_right(const PlocNode& n) { return int32_t(float_bits(n.hi.w)); }

// Spreads the low 10 bits of v to every third bit.
SRT_HD_INLINE uint32_t ploc_spread3(uint32_t v) {
    v &= 0x3ffu;
    v = (v | (v << 16)) & 0x030000ffu;
    v = (v | (v << 8)) & 0x0300f00fu;
    v = (v | (v << 4)) & 0x030c30c3u;
    v = (v | (v << 2)) & 0x09249249u;
    return v;
}

// The 30-bit Morton code of a primitive's centroid in the grid of 1024^3 cells over the
// centroids' bounds [lo, lo + 1024 / scale].
SRT_HD_INLINE uint32_t ploc_morton(const f4& box_lo, const f4& box_hi, const f4& lo, const f4& scale) {
    const float c[3] = {0.5f * (box_lo.x + box_hi.x), 0.5f * (box_lo.y + box_hi.y), 0.5f * (box_lo.z + box_hi.z)};
    const float o[3] = {lo.x, lo.y, lo.z};
    const float s[3] = {scale.x, scale.y, scale.z};
    uint32_t code = 0;
    for (int a = 0; a < 3; ++a) {
        const float t = (c[a] - o[a]) * s[a];
        const uint32_t q = t <= 0.0f ? 0u : t >= 1023.0f ? 1023u : uint32_t(t);
        code |= ploc_spread3(q) << (2 - a);
    }
    return code;
}

// min and max as one comparison, the same on both sides: fminf is a library call on the
// host, and differs from the device's in which zero it returns.
SRT_HD_INLINE float ploc_min(float a, float b) { return b < a ? b : a; }
SRT_HD_INLINE float ploc_max(float a, float b) { return a < b ? b : a; }

// The area (halved) of the union of two boxes: the distance of the clustering.
SRT_HD_INLINE float ploc_union_area(const PlocNode& a, const PlocNode& b) {
    const float dx = ploc_max(a.hi.x, b.hi.x) - ploc_min(a.lo.x, b.lo.x);
    const float dy = ploc_max(a.hi.y, b.hi.y) - ploc_min(a.lo.y, b.lo.y);
    const float dz = ploc_max(a.hi.z, b.hi.z) - ploc_min(a.lo.z, b.lo.z);
    return dx * dy + dy * dz + dz * dx;
}

// Cluster i's nearest neighbour among clusters [i - r, i + r] of `count`, whose nodes
// are `box[0 .. count)` (each cluster's node, copied in cluster order each round, so
// that the search reads memory in order). Ties go to
// the nearer place, then to the pair that starts at an even place, then to the lower:
// equal boxes (coincident or repeated geometry) then pair off (0,1), (2,3), ... and
// halve each round, where "the lower index" alone would let one pair merge a round.
// `box` (and below `nn`, `cluster`) is anything indexed by the cluster: an array, or on
// the GPU a block's window of it in shared memory.
template <class Boxes>
SRT_HD_INLINE uint32_t ploc_nearest(uint32_t i, uint32_t count, const Boxes& box) {
    const PlocNode me = box[i];
    const uint32_t first = i > kPlocRadius ? i - kPlocRadius : 0u;
    const uint32_t last = i + kPlocRadius < count - 1 ? i + kPlocRadius : count - 1;
    float best = 3.0e38f;
    uint32_t best_j = i, best_rank = 0xffffffffu;
    SRT_PLOC_UNROLL
    for (uint32_t j = first; j <= last; ++j) {
        if (j == i) continue;
        const float d = ploc_union_area(me, box[j]);
        // The tie's order as one number: the gap, then an odd start, then the start.
        const uint32_t lo = i < j ? i : j, gap = i < j ? j - i : i - j;
        const uint32_t rank = (gap << 2) | ((lo & 1u) << 1) | (j < i ? 0u : 1u);
        if (d < best || (d == best && rank < best_rank)) {
            best = d;
            best_j = j;
            best_rank = rank;
        }
    }
    return best_j;
}

// What cluster i does this round, as two counts an exclusive sum adds up at once: the
// high word is 1 where it makes a new node (it and its neighbour are each other's
// nearest, and it is the lower), the low word 1 where it stays a cluster (all but the
// higher of a merging pair).
template <class Nn>
SRT_HD_INLINE uint64_t ploc_flag(uint32_t i, const Nn& nn) {
    const uint32_t j = nn[i];
    const bool mutual = nn[j] == i;
    const uint64_t merge = mutual && i < j ? 1u : 0u;
    const uint64_t keep = mutual && i > j ? 0u : 1u;
    return (merge << 32) | keep;
}

// Cluster i's part of the round: its place among the next round's clusters (its id and
// node there) and, for the lower of a merging pair, the new node `first_new + merges
// before it`. `sum` is the exclusive sum of the flags.
// The same, as what it makes: false where cluster i goes (the higher of a merging pair);
// else its place and id next round (its node is nodes[id], made here if new). `f` and
// `s` are its flag and their exclusive sum.
template <class Clusters, class Boxes, class Nn>
SRT_HD_INLINE bool ploc_merged(uint32_t i, const Clusters& cluster, const Boxes& box, const Nn& nn, uint64_t f,
                               uint64_t s, uint32_t first_new, PlocNode* nodes, uint32_t& place, uint32_t& id) {
    if ((f & 0xffffffffu) == 0) return false;
    place = uint32_t(s & 0xffffffffu);
    if ((f >> 32) == 0) {
        id = cluster[i];
        return true;
    }
    id = first_new + uint32_t(s >> 32);
    const uint32_t j = nn[i];
    const PlocNode& na = box[i];
    const PlocNode& nb = box[j];
    PlocNode n;
    n.lo = f4{ploc_min(na.lo.x, nb.lo.x), ploc_min(na.lo.y, nb.lo.y), ploc_min(na.lo.z, nb.lo.z), bits_float(cluster[i])};
    n.hi = f4{ploc_max(na.hi.x, nb.hi.x), ploc_max(na.hi.y, nb.hi.y), ploc_max(na.hi.z, nb.hi.z), bits_float(cluster[j])};
    nodes[id] = n;
    return true;
}
template <class Clusters, class Boxes, class Nn>
SRT_HD_INLINE void ploc_merge(uint32_t i, const Clusters& cluster, const Boxes& box, const Nn& nn, uint64_t flag,
                              uint64_t sum, uint32_t first_new, PlocNode* nodes, uint32_t* next_cluster,
                              PlocNode* next_box) {
    uint32_t place, id;
    if (!ploc_merged(i, cluster, box, nn, flag, sum, first_new, nodes, place, id)) return;
    next_cluster[place] = id;
    next_box[place] = nodes[id];
}

// The leaf node of the k-th primitive in Morton order.
SRT_HD_INLINE PlocNode ploc_leaf(const f4& lo, const f4& hi, uint32_t prim) {
    PlocNode n;
    n.lo = f4{lo.x, lo.y, lo.z, bits_float(~prim)};
    n.hi = f4{hi.x, hi.y, hi.z, bits_float(~prim)};
    return n;
}

// Step 5, bottom up: how many primitives a node's subtree holds, its SAH cost as the
// layout will have it (areas halved, a primitive test costing what a node visit does, as
// the SAH builder counts), and how many of the layout's inner nodes it makes: 0 where it
// becomes one leaf, which it does where it holds at most kMaxLeafPrims primitives and
// costs no more as one.
struct PlocFold {
    uint32_t count;
    uint32_t inner;
    float cost;
};
SRT_HD_INLINE float ploc_half_area(const PlocNode& n) {
    const float dx = n.hi.x - n.lo.x, dy = n.hi.y - n.lo.y, dz = n.hi.z - n.lo.z;
    return dx * dy + dy * dz + dz * dx;
}
SRT_HD_INLINE PlocFold ploc_fold_leaf(const PlocNode& n) { return PlocFold{1u, 0u, ploc_half_area(n)}; }
SRT_HD_INLINE PlocFold ploc_fold(const PlocNode& n, const PlocFold& l, const PlocFold& r) {
    const uint32_t count = l.count + r.count;
    const float a = ploc_half_area(n);
    const float split = a + l.cost + r.cost;
    const float as_leaf = a * float(count);
    if (count <= uint32_t(kMaxLeafPrims) && as_leaf <= split) return PlocFold{count, 0u, as_leaf};
    return PlocFold{count, 1u + l.inner + r.inner, split};
}

// Step 5, top down: where a child of an inner node of the layout goes. The layout is
// depth first, left before right, as the SAH builder's: the left child's node follows
// its parent's, the right one's follows the left subtree's nodes; their primitives
// likewise follow one another.
SRT_HD_INLINE void ploc_place_child(bool right, const PlocFold& left_sibling, uint32_t parent_flat,
                                    uint32_t parent_first, uint32_t& flat, uint32_t& first) {
    flat = parent_flat + 1u + (right ? left_sibling.inner : 0u);
    first = parent_first + (right ? left_sibling.count : 0u);
}

// The grid of the Morton codes over the centroids' bounds: its corner and its scale, so
// that both sides compute the codes from the same floats.
SRT_HD_INLINE void ploc_grid(const f4& centroid_lo, const f4& centroid_hi, f4& lo, f4& scale) {
    lo = centroid_lo;
    const float e[3] = {centroid_hi.x - centroid_lo.x, centroid_hi.y - centroid_lo.y, centroid_hi.z - centroid_lo.z};
    float s[3];
    for (int a = 0; a < 3; ++a) s[a] = e[a] > 0.0f ? 1023.0f / e[a] : 0.0f;
    scale = f4{s[0], s[1], s[2], 0.0f};
}

// Times of a build's steps, in milliseconds (0 where a step did not run on that side).
struct PlocTimes {
    double allocate = 0, upload = 0, morton = 0, sort = 0, cluster = 0, download = 0, leaves = 0, collapse = 0;
    // On the device: from the boxes there to the last tree made (the BVH2, or the BVH8
    // where it collapsed it), the work and the waits between, not the copies.
    double device = 0;
    uint32_t rounds = 0;
    uint32_t collapse_width = 0;  // the wide tree collapsed on the device: 4 or 8; 0 none
};

// The clustering's result: 2n - 1 nodes (n leaves first), root last.
struct PlocTree {
    std::vector<PlocNode> nodes;
    PlocTimes times;
    bool complete = true;  // false: kPlocMaxRounds ran out, and `nodes` is no tree
};

// A whole build: the tree in accel/bvh.h's layout (its stats not yet counted), the steps'
// times, and whether the clustering finished.
struct PlocResult {
    Bvh bvh;
    std::optional<Bvh4> bvh4;  // the device's BVH4 or BVH8 of bvh, where build was asked for it
    std::optional<Bvh8> bvh8;
    PlocTimes times;
    bool complete = true;
};

// Which wide tree a build collapses its BVH2 into where it runs.
enum class PlocCollapse { None, Bvh4, Bvh8 };

// Where PLOC runs when not on the host: the GPU (cuda/ploc_build.cu), all five steps.
class PlocDevice {
public:
    virtual ~PlocDevice() = default;
    virtual std::string name() const = 0;
    // `boxes`: lo and hi of each primitive; `wide`: collapse the tree into the BVH4 or the
    // BVH8 there too (accel/bvh4_collapse.h, accel/bvh8_collapse.h). Throws
    // std::runtime_error on a device error.
    virtual PlocResult build(const std::vector<f4>& boxes, PlocCollapse wide = PlocCollapse::None) = 0;
    // The BVH8 or BVH4 of a BVH2 built elsewhere, collapsed on the device (the BVH2's
    // leaves not rewritten for the BVH8: relink_bvh2); `device_ms`, the collapse's kernels.
    // For tests and benches.
    virtual Bvh8 collapse_bvh8(const std::vector<BvhNode>& bvh2, size_t prims, double& device_ms) = 0;
    virtual Bvh4 collapse_bvh4(const std::vector<BvhNode>& bvh2, double& device_ms) = 0;
};

// build_bvh_ploc (accel/bvh.h) for a scene that traces a wide BVH: where `device` builds
// the tree it collapses it there too, into `bvh4` or `bvh8`, and returns true (for the
// BVH8, bvh's leaves not yet moved to its order: relink_bvh2); false where the host must
// collapse `bvh`.
bool build_bvh_ploc_bvh8(const std::vector<BuildPrim>& prims, PlocDevice* device, Bvh& bvh, Bvh8& bvh8);
bool build_bvh_ploc_bvh4(const std::vector<BuildPrim>& prims, PlocDevice* device, Bvh& bvh, Bvh4& bvh4);

// Steps 1-4 on the host's cores.
PlocTree ploc_cluster_host(const std::vector<f4>& boxes);
// Step 5 on the host: the leaves and the 64-byte layout.
PlocResult ploc_layout_host(const PlocTree& tree);
// The tree's stats, counted from its layout (the same on either side); `where` names
// the builder's side in stats.builder.
void ploc_count_stats(Bvh& bvh, const std::string& where, const PlocTimes& times);

}  // namespace srt
