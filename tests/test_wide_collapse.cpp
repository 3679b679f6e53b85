// test_wide_collapse.cpp - the BVH8 and BVH4 collapses (accel/bvh8_collapse.h and
// accel/bvh4_collapse.h, which the host and the GPU share): the places their counts give
// against a depth-first walk written here from accel/bvh8.h's and accel/bvh4.h's
// descriptions of the layouts, every box against what it holds, every primitive placed
// once, and the quantization's exponent against its definition. (Hits through the wide
// BVHs against brute force are test_intersect.cpp's; the GPU's nodes against these,
// test_gpu_ploc.cpp's.)
#include "accel/bvh.h"
#include "accel/bvh4.h"
#include "accel/bvh4_collapse.h"
#include "accel/bvh8.h"
#include "accel/bvh8_collapse.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace srt {
namespace {

std::vector<BuildPrim> random_prims(uint32_t n, uint32_t seed, float spread) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-spread, spread), s(0.0f, 1.0f);
    std::vector<BuildPrim> p(n);
    for (BuildPrim& b : p) {
        const glm::vec3 c(u(rng), u(rng), u(rng));
        b.lo = c;
        b.hi = c + glm::vec3(s(rng), s(rng), s(rng)) * (s(rng) < 0.1f ? 0.0f : 1.0f);  // some flat boxes
    }
    return p;
}

// Walks the BVH8 from its root as accel/bvh8.h describes it: a node's inner children are
// a block of consecutive nodes made when the node is, the next free place; its leaves'
// primitives follow the primitives placed before it; then its inner children's subtrees,
// in slot order. Checks each node against that, each slot's box against what it holds,
// and returns the union of the node's slots' boxes (in double).
struct Walk {
    const Bvh8& b8;
    const std::vector<BuildPrim>& prims;
    const std::vector<uint32_t>& input;  // new position -> input primitive
    // A spatial split clips a reference to its side of the plane: its leaf's box holds
    // only that part, so the boxes are checked only where no split was made.
    bool whole_prims;
    uint32_t next_node = 1, next_prim = 0, visited = 0, depth = 0;
    std::vector<int> prim_seen;

    void node(uint32_t idx, uint32_t level, double lo_out[3], double hi_out[3]) {
        ASSERT_LT(idx, b8.nodes.size());
        ++visited;
        depth = std::max(depth, level);
        const Bvh8Node n = b8.nodes[idx];
        EXPECT_EQ(n.child_base, next_node) << "node " << idx;
        EXPECT_EQ(n.prim_base, next_prim) << "node " << idx;
        const int inner = __builtin_popcount(n.imask);
        next_node += uint32_t(inner);
        const double p[3] = {n.px, n.py, n.pz};
        for (int a = 0; a < 3; ++a) {
            lo_out[a] = 1e300;
            hi_out[a] = -1e300;
        }
        uint32_t leaf_prims = 0;
        for (int s = 0; s < 8; ++s) {
            if ((n.imask >> s & 1) || n.meta[s] == 0) continue;  // inner or empty
            const uint32_t count = n.meta[s] >> 5, offset = n.meta[s] & 31u;
            ASSERT_GE(count, 1u);
            ASSERT_LE(count, uint32_t(kBvh8LeafPrims));
            EXPECT_EQ(offset, leaf_prims) << "node " << idx << " slot " << s;
            for (uint32_t k = 0; k < count; ++k) {
                const uint32_t at = n.prim_base + offset + k;
                ASSERT_LT(at, input.size());
                ++prim_seen[at];
                const BuildPrim& b = prims[input[at]];
                for (int a = 0; a < 3 && whole_prims; ++a) {
                    const double step = std::ldexp(1.0, int(n.e[a]) - 127);
                    EXPECT_LE(p[a] + n.qlo[a][s] * step, double(b.lo[a])) << "node " << idx << " slot " << s;
                    EXPECT_GE(p[a] + n.qhi[a][s] * step, double(b.hi[a])) << "node " << idx << " slot " << s;
                    lo_out[a] = std::min(lo_out[a], double(b.lo[a]));
                    hi_out[a] = std::max(hi_out[a], double(b.hi[a]));
                }
            }
            leaf_prims += count;
        }
        next_prim += leaf_prims;
        int k = 0;
        for (int s = 0; s < 8; ++s) {
            if (!(n.imask >> s & 1)) continue;
            double lo[3], hi[3];
            node(n.child_base + uint32_t(k++), level + 1, lo, hi);
            for (int a = 0; a < 3 && whole_prims; ++a) {
                const double step = std::ldexp(1.0, int(n.e[a]) - 127);
                EXPECT_LE(p[a] + n.qlo[a][s] * step, lo[a]) << "node " << idx << " slot " << s;
                EXPECT_GE(p[a] + n.qhi[a][s] * step, hi[a]) << "node " << idx << " slot " << s;
                lo_out[a] = std::min(lo_out[a], lo[a]);
                hi_out[a] = std::max(hi_out[a], hi[a]);
            }
        }
    }
};

void check_collapse(const std::vector<BuildPrim>& prims, const BvhBuildOptions& options) {
    Bvh bvh = build_bvh(prims, options);
    const Bvh8 b8 = collapse_bvh8(bvh.nodes, bvh.order.size());
    ASSERT_EQ(b8.prim_order.size(), bvh.order.size());
    std::vector<uint32_t> input(b8.prim_order.size());
    for (size_t k = 0; k < input.size(); ++k) input[k] = bvh.order[b8.prim_order[k]];
    Walk w{b8, prims, input, bvh.stats.spatial_splits == 0};
    w.prim_seen.assign(input.size(), 0);
    double lo[3], hi[3];
    w.node(0, 0, lo, hi);
    EXPECT_EQ(w.visited, b8.nodes.size());
    EXPECT_EQ(w.next_node, b8.nodes.size());
    EXPECT_EQ(w.next_prim, input.size());
    EXPECT_EQ(w.depth, b8.stats.max_depth);
    for (size_t k = 0; k < w.prim_seen.size(); ++k) ASSERT_EQ(w.prim_seen[k], 1) << "position " << k;
    // Each input primitive at least once (more than once only where spatial splits cut it).
    std::vector<int> covered(prims.size(), 0);
    for (uint32_t i : input) covered[i] = 1;
    for (size_t i = 0; i < prims.size(); ++i) ASSERT_EQ(covered[i], 1) << "primitive " << i;
    // The BVH2's leaves now name the new positions: its leaves and the BVH8's hold the
    // same primitives.
    std::vector<int> in_bvh2(input.size(), 0);
    for (const BvhNode& n : bvh.nodes)
        for (int side = 0; side < 2; ++side)
            if (n.link[side] < 0 && n.link[2 + side] > 0)
                for (int32_t k = 0; k < n.link[2 + side]; ++k) ++in_bvh2[size_t(~n.link[side] + k)];
    for (size_t k = 0; k < in_bvh2.size(); ++k) ASSERT_EQ(in_bvh2[k], 1) << "position " << k;
}

TEST(Bvh8Collapse, PlacesAreDepthFirstAndBoxesHoldTheirChildren) {
    const BvhBuildOptions builders[] = {BvhBuildOptions{}, BvhBuildOptions{false},
                                        BvhBuildOptions{false, BvhBuilder::Ploc, nullptr}};
    for (const BvhBuildOptions& o : builders)
        for (uint32_t n : {1u, 2u, 5u, 9u, 33u, 1000u, 20000u}) {
            SCOPED_TRACE(std::to_string(n) + (o.builder == BvhBuilder::Ploc ? " ploc" : o.spatial_splits ? " sah+splits" : " sah"));
            check_collapse(random_prims(n, n, 10.0f), o);
        }
}

TEST(Bvh8Collapse, TheGpusStepsPlaceAsTheDepthFirstWalk) {
    // The places the GPU works out from counts (collapse_bvh8_by_counts runs its steps
    // here) against the host's depth-first walk: the same nodes and order, byte for byte.
    const BvhBuildOptions builders[] = {BvhBuildOptions{}, BvhBuildOptions{false},
                                        BvhBuildOptions{false, BvhBuilder::Ploc, nullptr}};
    for (const BvhBuildOptions& o : builders)
        for (uint32_t n : {1u, 3u, 9u, 100u, 5000u, 30000u}) {
            SCOPED_TRACE(std::to_string(n) + (o.builder == BvhBuilder::Ploc ? " ploc" : o.spatial_splits ? " sah+splits" : " sah"));
            Bvh bvh = build_bvh(random_prims(n, 100 + n, 10.0f), o);
            const Bvh8 by_counts = collapse_bvh8_by_counts(bvh.nodes, bvh.order.size());
            const Bvh8 walked = collapse_bvh8(bvh.nodes, bvh.order.size());
            ASSERT_EQ(by_counts.nodes.size(), walked.nodes.size());
            EXPECT_EQ(std::memcmp(by_counts.nodes.data(), walked.nodes.data(), walked.nodes.size() * sizeof(Bvh8Node)), 0);
            EXPECT_EQ(by_counts.prim_order, walked.prim_order);
            EXPECT_EQ(by_counts.stats.max_depth, walked.stats.max_depth);
            EXPECT_EQ(by_counts.stats.leaves, walked.stats.leaves);
        }
}

TEST(Bvh8Collapse, FarFromTheOriginAndTiny) {
    // Boxes at 1e6 that are 1e-3 across, and boxes 1e-20 across: steps near float's
    // ulp at the node's corner, and exponents far below 127.
    std::vector<BuildPrim> far = random_prims(3000, 7, 1.0f), tiny = random_prims(3000, 8, 1.0f);
    for (BuildPrim& b : far) {
        b.lo = glm::vec3(1e6f) + b.lo * 1e-3f;
        b.hi = glm::vec3(1e6f) + b.hi * 1e-3f;
    }
    for (BuildPrim& b : tiny) {
        b.lo *= 1e-20f;
        b.hi *= 1e-20f;
    }
    check_collapse(far, BvhBuildOptions{false});
    check_collapse(tiny, BvhBuildOptions{false});
}

TEST(Bvh8Collapse, StepExponentIsTheSmallestThatFits) {
    // The definition: the smallest e in [1, 239] with extent <= 255 * 2^(e - 127).
    const auto smallest = [](double extent) {
        for (int e = 1; e <= 239; ++e)
            if (extent <= 255.0 * std::ldexp(1.0, e - 127)) return uint32_t(e);
        return 0u;
    };
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> mant(1.0, 2.0);
    std::uniform_int_distribution<int> ex(-140, 120);
    for (int i = 0; i < 20000; ++i) {
        const double x = std::ldexp(mant(rng), ex(rng));
        ASSERT_EQ(bvh8::step_exponent(x), smallest(x)) << x;
    }
    for (int k = -130; k <= 120; ++k) {  // the edges: 255 * 2^k and its neighbours
        const double x = 255.0 * std::ldexp(1.0, k);
        for (const double v : {x, std::nextafter(x, 0.0), std::nextafter(x, 1e308)})
            ASSERT_EQ(bvh8::step_exponent(v), smallest(v)) << v;
    }
    EXPECT_EQ(bvh8::step_exponent(0.0), 1u);
    EXPECT_EQ(bvh8::step_exponent(1e300), 0u);  // too large: a fault
    EXPECT_EQ(bvh8::step_exponent(std::nan("")), 0u);
}


// Walks the BVH4 from its root as accel/bvh4.h describes it: nodes numbered depth first,
// a node before its children, each child's subtree after the one before. Checks each
// inner child's place, that each box holds what is below it (in double), and that each
// leaf's primitives are the BVH2's; counts the leaves and the stack a ray could need.
struct Walk4 {
    const Bvh4& b4;
    const std::vector<BuildPrim>& prims;
    const std::vector<uint32_t>& order;
    std::vector<int> seen;
    uint32_t next = 1, leaves = 0, max_depth = 0;

    // Returns the stack the subtree needs; `lo`/`hi`, the union of what it holds.
    uint32_t node(uint32_t pos, uint32_t depth, glm::dvec3& lo, glm::dvec3& hi) {
        max_depth = std::max(max_depth, depth);
        const Bvh4Node& n = b4.nodes.at(pos);
        const float* box[6] = {&n.lo_x.x, &n.hi_x.x, &n.lo_y.x, &n.hi_y.x, &n.lo_z.x, &n.hi_z.x};
        lo = glm::dvec3(1e300);
        hi = glm::dvec3(-1e300);
        uint32_t children = 0, deepest = 0;
        for (int k = 0; k < 4; ++k) {
            const int32_t ref = n.child[k];
            if (ref == kBvh4Empty) continue;
            ++children;
            glm::dvec3 clo(1e300), chi(-1e300);
            if (ref >= 0) {
                EXPECT_EQ(uint32_t(ref), next) << "node " << pos << " child " << k;
                next = uint32_t(ref) + 1;
                deepest = std::max(deepest, node(uint32_t(ref), depth + 1, clo, chi));
            } else {
                ++leaves;
                const uint32_t first = uint32_t(~ref) >> 3, count = uint32_t(~ref) & 7u;
                EXPECT_GE(count, 1u);
                for (uint32_t p = first; p < first + count; ++p) {
                    seen.at(order.at(p))++;
                    const BuildPrim& b = prims[order[p]];
                    clo = glm::min(clo, glm::dvec3(b.lo));
                    chi = glm::max(chi, glm::dvec3(b.hi));
                }
            }
            for (int a = 0; a < 3; ++a) {
                EXPECT_LE(double(box[2 * a][k]), clo[a]) << "node " << pos << " child " << k;
                EXPECT_GE(double(box[2 * a + 1][k]), chi[a]) << "node " << pos << " child " << k;
            }
            lo = glm::min(lo, clo);
            hi = glm::max(hi, chi);
        }
        EXPECT_GE(children, pos == 0 ? 1u : 2u);
        return (children > 0 ? children - 1 : 0) + deepest;
    }
};

TEST(Bvh4Collapse, NodesAreDepthFirstAndBoxesHoldTheirChildren) {
    // The host's walk and the GPU's steps (run here) against the layout as documented,
    // and against each other byte for byte. No spatial splits: with them a reference's
    // box is clipped, and the boxes would not hold the whole primitive.
    const BvhBuildOptions builders[] = {BvhBuildOptions{false}, BvhBuildOptions{false, BvhBuilder::Ploc, nullptr},
                                        BvhBuildOptions{}};
    for (const BvhBuildOptions& o : builders)
        for (uint32_t n : {1u, 2u, 3u, 9u, 100u, 5000u, 30000u}) {
            SCOPED_TRACE(std::to_string(n) + (o.builder == BvhBuilder::Ploc ? " ploc" : o.spatial_splits ? " sah+splits" : " sah"));
            const std::vector<BuildPrim> prims = random_prims(n, 300 + n, 10.0f);
            const Bvh bvh = build_bvh(prims, o);
            const Bvh4 walked = collapse_bvh4(bvh.nodes);
            const Bvh4 by_counts = collapse_bvh4_by_counts(bvh.nodes);
            ASSERT_EQ(by_counts.nodes.size(), walked.nodes.size());
            EXPECT_EQ(std::memcmp(by_counts.nodes.data(), walked.nodes.data(), walked.nodes.size() * sizeof(Bvh4Node)), 0);
            EXPECT_EQ(by_counts.stats.max_depth, walked.stats.max_depth);
            EXPECT_EQ(by_counts.stats.max_stack, walked.stats.max_stack);
            EXPECT_EQ(by_counts.stats.leaves, walked.stats.leaves);
            if (o.spatial_splits) continue;
            Walk4 w{walked, prims, bvh.order, std::vector<int>(n, 0)};
            glm::dvec3 lo, hi;
            const uint32_t stack = w.node(0, 0, lo, hi);
            EXPECT_EQ(w.next, uint32_t(walked.nodes.size()));
            EXPECT_EQ(w.leaves, walked.stats.leaves);
            EXPECT_EQ(w.max_depth, walked.stats.max_depth);
            EXPECT_EQ(stack + 1, walked.stats.max_stack);
            for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(w.seen[i], 1) << "primitive " << i;
        }
}

}  // namespace
}  // namespace srt
