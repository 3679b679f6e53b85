// test_ploc.cpp - the PLOC builder (accel/ploc.h): its parallel rounds against a serial
// clustering written from the paper's definition, the tree's invariants, its
// determinism, and its quality against the SAH builder's. (Its hits against brute force
// are test_intersect.cpp's, for every layout.)
#include "accel/bvh.h"
#include "accel/ploc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>
#include <random>
#include <vector>

namespace srt {
namespace {

std::vector<f4> random_boxes(uint32_t n, uint32_t seed, float spread = 10.0f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-spread, spread), s(0.01f, 1.0f);
    std::vector<f4> b(2 * size_t(n));
    for (uint32_t i = 0; i < n; ++i) {
        const float x = u(rng), y = u(rng), z = u(rng);
        b[2 * i] = f4{x, y, z, 0};
        b[2 * i + 1] = f4{x + s(rng), y + s(rng), z + s(rng), 0};
    }
    return b;
}

std::vector<BuildPrim> prims_of(const std::vector<f4>& b) {
    std::vector<BuildPrim> p(b.size() / 2);
    for (size_t i = 0; i < p.size(); ++i)
        p[i] = BuildPrim{{b[2 * i].x, b[2 * i].y, b[2 * i].z}, {b[2 * i + 1].x, b[2 * i + 1].y, b[2 * i + 1].z}};
    return p;
}

// The clustering as Meister and Bittner define it, one cluster at a time, sharing no
// code with accel/ploc.h but the Morton codes' grid: a list of clusters in Morton order;
// each round every cluster's nearest neighbour within 16 places by the area of the union
// (ties to the lower place), then mutual pairs merge into the lower one's place, and new
// nodes are numbered in the order of their places.
struct RefNode {
    double lo[3], hi[3];
    int left, right;  // ~prim for a leaf
};
std::vector<RefNode> reference_clustering(const std::vector<f4>& b) {
    const size_t n = b.size() / 2;
    f4 clo{1e30f, 1e30f, 1e30f, 0}, chi{-1e30f, -1e30f, -1e30f, 0};
    for (size_t i = 0; i < n; ++i) {
        const float c[3] = {0.5f * (b[2 * i].x + b[2 * i + 1].x), 0.5f * (b[2 * i].y + b[2 * i + 1].y),
                            0.5f * (b[2 * i].z + b[2 * i + 1].z)};
        clo = f4{std::min(clo.x, c[0]), std::min(clo.y, c[1]), std::min(clo.z, c[2]), 0};
        chi = f4{std::max(chi.x, c[0]), std::max(chi.y, c[1]), std::max(chi.z, c[2]), 0};
    }
    f4 lo, scale;
    ploc_grid(clo, chi, lo, scale);
    std::vector<std::pair<uint32_t, uint32_t>> order(n);
    for (uint32_t i = 0; i < n; ++i) {
        // The code by interleaving bits one at a time.
        const float c[3] = {0.5f * (b[2 * i].x + b[2 * i + 1].x), 0.5f * (b[2 * i].y + b[2 * i + 1].y),
                            0.5f * (b[2 * i].z + b[2 * i + 1].z)};
        const float o[3] = {lo.x, lo.y, lo.z}, sc[3] = {scale.x, scale.y, scale.z};
        uint32_t q[3];
        for (int a = 0; a < 3; ++a) {
            const float t = (c[a] - o[a]) * sc[a];
            q[a] = t <= 0.0f ? 0u : t >= 1023.0f ? 1023u : uint32_t(t);
        }
        uint32_t code = 0;
        for (int bit = 9; bit >= 0; --bit)
            for (int a = 0; a < 3; ++a) code = (code << 1) | ((q[a] >> bit) & 1u);
        order[i] = {code, i};
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<RefNode> nodes;
    std::vector<int> clusters;
    for (size_t k = 0; k < n; ++k) {
        const uint32_t p = order[k].second;
        nodes.push_back(RefNode{{b[2 * p].x, b[2 * p].y, b[2 * p].z}, {b[2 * p + 1].x, b[2 * p + 1].y, b[2 * p + 1].z},
                                ~int(p), ~int(p)});
        clusters.push_back(int(k));
    }
    // Areas in float, as the renderer's traversal-independent distance is defined.
    auto dist = [&](int a, int c) {
        float d[3];
        for (int k = 0; k < 3; ++k)
            d[k] = std::max(float(nodes[size_t(a)].hi[k]), float(nodes[size_t(c)].hi[k])) -
                   std::min(float(nodes[size_t(a)].lo[k]), float(nodes[size_t(c)].lo[k]));
        return d[0] * d[1] + d[1] * d[2] + d[2] * d[0];
    };
    while (clusters.size() > 1) {
        const int m = int(clusters.size());
        std::vector<int> nn(static_cast<size_t>(m));
        for (int i = 0; i < m; ++i) {
            // Ties: the nearer place, then a pair starting at an even place, then the left.
            int best = -1;
            float bd = 0;
            const auto tie_key = [&](int j) {
                const int lo = std::min(i, j);
                return std::make_tuple(std::abs(i - j), lo % 2, j > i);
            };
            for (int j = std::max(0, i - 16); j <= std::min(m - 1, i + 16); ++j) {
                if (j == i) continue;
                const float d = dist(clusters[size_t(i)], clusters[size_t(j)]);
                if (best < 0 || d < bd || (d == bd && tie_key(j) < tie_key(best))) best = j, bd = d;
            }
            nn[size_t(i)] = best;
        }
        std::vector<int> next;
        for (int i = 0; i < m; ++i) {
            const int j = nn[size_t(i)];
            if (nn[size_t(j)] == i && j < i) continue;  // merged into j
            if (nn[size_t(j)] == i) {
                const RefNode& a = nodes[size_t(clusters[size_t(i)])];
                const RefNode& c = nodes[size_t(clusters[size_t(j)])];
                RefNode r{};
                for (int k = 0; k < 3; ++k) r.lo[k] = std::min(a.lo[k], c.lo[k]), r.hi[k] = std::max(a.hi[k], c.hi[k]);
                r.left = clusters[size_t(i)];
                r.right = clusters[size_t(j)];
                nodes.push_back(r);
                next.push_back(int(nodes.size()) - 1);
            } else {
                next.push_back(clusters[size_t(i)]);
            }
        }
        clusters = next;
    }
    return nodes;
}

void expect_same_clustering(const PlocTree& t, const std::vector<RefNode>& ref) {
    ASSERT_EQ(t.nodes.size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i) {
        const PlocNode& a = t.nodes[i];
        const RefNode& r = ref[i];
        ASSERT_EQ(ploc_left(a), r.left) << "node " << i;
        ASSERT_EQ(ploc_right(a), r.right) << "node " << i;
        ASSERT_EQ(double(a.lo.x), r.lo[0]) << "node " << i;
        ASSERT_EQ(double(a.hi.z), r.hi[2]) << "node " << i;
    }
}

TEST(Ploc, RoundsInParallelMakeTheSerialClustering) {
    for (uint32_t n : {1u, 2u, 3u, 17u, 100u, 5000u}) {
        SCOPED_TRACE(n);
        const std::vector<f4> b = random_boxes(n, 7 + n);
        expect_same_clustering(ploc_cluster_host(b), reference_clustering(b));
    }
}

TEST(Ploc, IdenticalBoxesMergeInPairs) {
    // Ties pair off from even places: 4,096 equal boxes make 2,048 pairs, then 1,024 ...,
    // a balanced tree in 12 rounds.
    std::vector<f4> b;
    for (int i = 0; i < 4096; ++i) b.push_back(f4{0, 0, 0, 0}), b.push_back(f4{1, 1, 1, 0});
    const PlocTree t = ploc_cluster_host(b);
    expect_same_clustering(t, reference_clustering(b));
    EXPECT_EQ(t.times.rounds, 12u);
    Bvh bvh = ploc_layout_host(t).bvh;
    ploc_count_stats(bvh, "host", t.times);
    EXPECT_LE(bvh.stats.max_depth, 11u);
}

// Every primitive in exactly one leaf, every box holding what is under it, leaves of at
// most kMaxLeafPrims, depth within the traversal's stack.
void check_invariants(const Bvh& bvh, const std::vector<BuildPrim>& prims) {
    ASSERT_EQ(bvh.order.size(), prims.size());
    std::vector<int> seen(prims.size(), 0);
    for (uint32_t p : bvh.order) seen[p]++;
    for (size_t i = 0; i < prims.size(); ++i) ASSERT_EQ(seen[i], 1) << "primitive " << i;
    EXPECT_LT(bvh.stats.max_depth, uint32_t(kBvhStackSize));
    EXPECT_LE(bvh.stats.max_leaf_size, uint32_t(kMaxLeafPrims));
    const auto box_of = [](const BvhNode& n, int side, glm::vec3& lo, glm::vec3& hi) {
        const f4& xy = side == 0 ? n.lxy : n.rxy;
        lo = {xy.x, xy.z, side == 0 ? n.lrz.x : n.lrz.z};
        hi = {xy.y, xy.w, side == 0 ? n.lrz.y : n.lrz.w};
    };
    std::vector<int> parents(bvh.nodes.size(), 0);
    for (size_t i = 0; i < bvh.nodes.size(); ++i) {
        const BvhNode& n = bvh.nodes[i];
        for (int side = 0; side < 2; ++side) {
            glm::vec3 lo, hi;
            box_of(n, side, lo, hi);
            const int32_t link = n.link[side], count = n.link[2 + side];
            if (link >= 0) {
                ASSERT_LT(size_t(link), bvh.nodes.size());
                parents[size_t(link)]++;
                for (int cs = 0; cs < 2; ++cs) {
                    const BvhNode& c = bvh.nodes[size_t(link)];
                    if (c.link[cs] < 0 && c.link[2 + cs] == 0) continue;
                    glm::vec3 clo, chi;
                    box_of(c, cs, clo, chi);
                    for (int a = 0; a < 3; ++a) ASSERT_TRUE(lo[a] <= clo[a] && chi[a] <= hi[a]) << "node " << link;
                }
            } else {
                for (int32_t k = ~link; k < ~link + count; ++k) {
                    const BuildPrim& p = prims[bvh.order[size_t(k)]];
                    for (int a = 0; a < 3; ++a) ASSERT_TRUE(lo[a] <= p.lo[a] && p.hi[a] <= hi[a]) << "leaf of " << k;
                }
            }
        }
    }
    EXPECT_EQ(parents[0], 0);
    for (size_t i = 1; i < parents.size(); ++i) ASSERT_EQ(parents[i], 1) << "node " << i;
}

TEST(Ploc, TreesKeepTheInvariants) {
    for (uint32_t n : {1u, 2u, 5u, 64u, 20000u}) {
        SCOPED_TRACE(n);
        const std::vector<BuildPrim> p = prims_of(random_boxes(n, n));
        check_invariants(build_bvh_ploc(p, nullptr), p);
    }
}

TEST(Ploc, TheSameTreeEveryBuild) {
    const std::vector<BuildPrim> p = prims_of(random_boxes(30000, 3));
    const Bvh a = build_bvh_ploc(p, nullptr), b = build_bvh_ploc(p, nullptr);
    ASSERT_EQ(a.nodes.size(), b.nodes.size());
    EXPECT_EQ(std::memcmp(a.nodes.data(), b.nodes.data(), a.nodes.size() * sizeof(BvhNode)), 0);
    EXPECT_EQ(a.order, b.order);
}

TEST(Ploc, TreeQualityNearTheSahBuilders) {
    // Meister and Bittner report PLOC's SAH cost within a few percent of a full sweep
    // SAH build; the clustering must not be far behind binned SAH without splits.
    const std::vector<BuildPrim> p = prims_of(random_boxes(20000, 9));
    const Bvh ploc = build_bvh_ploc(p, nullptr);
    const Bvh sah = build_bvh(p, BvhBuildOptions{false});
    EXPECT_LT(ploc.stats.sah_cost, 1.15 * sah.stats.sah_cost) << ploc.stats.sah_cost << " against " << sah.stats.sah_cost;
}

TEST(Ploc, MortonCodesInterleaveTheAxes) {
    // x's bit above y's above z's, at every level: the code of a corner cell and of
    // single bits, against the definition.
    EXPECT_EQ(ploc_spread3(1u), 1u);
    EXPECT_EQ(ploc_spread3(0x3ffu), 0x09249249u);
    const f4 lo{0, 0, 0, 0}, scale{1, 1, 1, 0};
    const auto code = [&](float x, float y, float z) { return ploc_morton(f4{x, y, z, 0}, f4{x, y, z, 0}, lo, scale); };
    EXPECT_EQ(code(1, 0, 0), 4u);
    EXPECT_EQ(code(0, 1, 0), 2u);
    EXPECT_EQ(code(0, 0, 1), 1u);
    EXPECT_EQ(code(512, 0, 0), 1u << 29);
    EXPECT_EQ(code(5000, 5000, 5000), (1u << 30) - 1);  // clamped to the grid
    EXPECT_EQ(code(-3, 0, 0), 0u);
}

}  // namespace
}  // namespace srt
