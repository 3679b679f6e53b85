// The spatial split's cut references (accel/spatial_split.h) against the triangle in
// double: every point of the triangle inside the reference's box lies in the box of its
// side, so no ray that hits the triangle there can miss both leaves.
#include "accel/spatial_split.h"

#include <gtest/gtest.h>

#include <random>

using namespace srt;

namespace {

bool inside(const BuildBox& b, const glm::dvec3& p) {
    for (int c = 0; c < 3; ++c)
        if (p[c] < double(b.lo[c]) || p[c] > double(b.hi[c])) return false;
    return true;
}

BuildPrim triangle(const glm::vec3& a, const glm::vec3& b, const glm::vec3& c) {
    return BuildPrim{glm::min(a, glm::min(b, c)), glm::max(a, glm::max(b, c)), true, a, b, c};
}

// Points on the triangle (barycentric in double), its corners and edges included.
std::vector<glm::dvec3> points_on(const BuildPrim& p, std::mt19937& rng, int n) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const glm::dvec3 a(p.v0), b(p.v1), c(p.v2);
    std::vector<glm::dvec3> out = {a, b, c};
    for (int i = 0; i < n; ++i) {
        double s = u(rng), t = u(rng);
        if (s + t > 1.0) s = 1.0 - s, t = 1.0 - t;
        if (i % 4 == 0) t = 0.0;  // on an edge
        out.push_back(a + s * (b - a) + t * (c - a));
    }
    return out;
}

TEST(SpatialSplit, CutPartsHoldTheTriangleOnTheirSide) {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-5.0f, 5.0f), f(0.0f, 1.0f);
    int cut = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        const BuildPrim p = triangle({u(rng), u(rng), u(rng)}, {u(rng), u(rng), u(rng)}, {u(rng) * 0.01f, u(rng), u(rng)});
        // A reference already cut once (the second plane works on a clipped box), then cut again.
        BuildRef whole{BuildBox{p.lo, p.hi}, 0}, l, r;
        const int a0 = trial % 3, a1 = (trial / 3) % 3;
        split_reference(p, whole, a0, p.lo[a0] + f(rng) * (p.hi[a0] - p.lo[a0]), l, r);
        const BuildRef& ref = trial % 2 ? l : r;
        if (ref.box.empty()) continue;
        const float plane = ref.box.lo[a1] + f(rng) * (ref.box.hi[a1] - ref.box.lo[a1]);
        BuildRef left, right;
        split_reference(p, ref, a1, plane, left, right);
        cut += !left.box.empty() && !right.box.empty();
        for (const glm::dvec3& q : points_on(p, rng, 200)) {
            if (!inside(ref.box, q)) continue;
            if (q[a1] <= double(plane)) ASSERT_TRUE(inside(left.box, q)) << "trial " << trial;
            if (q[a1] >= double(plane)) ASSERT_TRUE(inside(right.box, q)) << "trial " << trial;
        }
        // And no part reaches past the plane, or past the box it was cut from.
        if (!left.box.empty()) {
            EXPECT_LE(left.box.hi[a1], plane);
            EXPECT_GE(left.box.lo[a1], ref.box.lo[a1]);
        }
        if (!right.box.empty()) {
            EXPECT_GE(right.box.lo[a1], plane);
            EXPECT_LE(right.box.hi[a1], ref.box.hi[a1]);
        }
    }
    EXPECT_GT(cut, 1000) << "most planes should cut the triangle, or the test tests little";
}

// The parts are tight: a cut of a long diagonal sliver is much smaller than its box,
// which is the point of cutting it.
TEST(SpatialSplit, CutsALongDiagonalIntoSmallBoxes) {
    const BuildPrim p = triangle({0, 0, 0}, {10, 10, 10}, {0.1f, 0, 0});
    BuildRef whole{BuildBox{p.lo, p.hi}, 0}, l, r;
    split_reference(p, whole, 0, 5.0f, l, r);
    EXPECT_NEAR(l.box.hi.y, 5.0f, 0.06f);
    EXPECT_NEAR(r.box.lo.y, 5.0f, 0.06f);
    EXPECT_LT(l.box.area() + r.box.area(), 0.6f * whole.box.area());
}

// A sphere is cut as its box.
TEST(SpatialSplit, CutsASphereAsItsBox) {
    const BuildPrim s{{-1, -1, -1}, {1, 1, 1}};
    BuildRef whole{BuildBox{s.lo, s.hi}, 4}, l, r;
    split_reference(s, whole, 2, 0.25f, l, r);
    EXPECT_EQ(l.prim, 4u);
    EXPECT_EQ(l.box.hi.z, 0.25f);
    EXPECT_EQ(l.box.lo, whole.box.lo);
    EXPECT_EQ(r.box.lo.z, 0.25f);
    EXPECT_EQ(r.box.hi, whole.box.hi);
    split_reference(s, whole, 2, 1.0f, l, r);  // a plane at the edge cuts nothing off
    EXPECT_TRUE(r.box.empty());
    EXPECT_EQ(l.box.hi, whole.box.hi);
}

}  // namespace
