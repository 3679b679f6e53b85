// test_diffuse_set.cpp - the host twin of traversal_bench's diffuse ray set
// (tools/traversal-bench/ray_sets.cuh diffuse_dir), which a CPU program uses to trace
// (within an ulp or two of) the same rays: the hash against independently computed
// values; the angle, the local direction and the world direction against the same
// formulas computed in double; Duff et al.'s basis (unit, in the normal's hemisphere, for
// random normals and the edge cases); and the cosine weighting (the mean cosine is 2/3).
#include "../tools/traversal-bench/ray_sets.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using srt::bench::diffuse_dir;
using srt::bench::diffuse_phi;
using srt::bench::pcg_hash;

// pcg_hash computed by /usr/bin/python3 with its arbitrary-precision integers, each step
// masked to 32 bits:
//   s = (v * 747796405 + 2891336453) & 0xffffffff
//   w = (((s >> ((s >> 28) + 4)) ^ s) * 277803737) & 0xffffffff
//   hash = (w >> 22) ^ w
TEST(DiffuseSet, PcgHashKnownValues) {
    EXPECT_EQ(pcg_hash(0u), 0x07bb2fe2u);
    EXPECT_EQ(pcg_hash(1u), 0xa8beea3cu);
    EXPECT_EQ(pcg_hash(2u), 0x7a7ecc88u);
    EXPECT_EQ(pcg_hash(3u), 0x7f0ef6bcu);
    EXPECT_EQ(pcg_hash(12345u), 0xf45ead0eu);
    EXPECT_EQ(pcg_hash(0x7fffffffu), 0xe99f49ceu);
    EXPECT_EQ(pcg_hash(0x80000000u), 0x21c72646u);
    EXPECT_EQ(pcg_hash(0xfffffffeu), 0x807a86c7u);
    EXPECT_EQ(pcg_hash(0xffffffffu), 0xe62a4902u);
}

// The local direction of slot i from the specification, in double: u1 and u2 the top 24
// bits of the slot's two hashes times 2^-24 (exact in float), the angle the float product
// 6.28318548f * u2 (exact in double, so rounding it to float once is the float multiply),
// its cosine and sine in double of that float angle.
glm::dvec3 local_dir(uint32_t i) {
    const double u1 = double(pcg_hash(2u * i) >> 8) / 16777216.0;
    const double u2 = double(pcg_hash(2u * i + 1u) >> 8) / 16777216.0;
    const float phi = float(double(6.28318548f) * u2);
    const double r = std::sqrt(u1);
    return glm::dvec3(r * std::cos(double(phi)), r * std::sin(double(phi)),
                      std::sqrt(std::max(0.0, 1.0 - u1)));
}

// The world direction of slot i about n, from the specification in double: Duff et al.'s
// basis of the same (float) normal.
glm::dvec3 world_dir(uint32_t i, const glm::vec3& nf) {
    const glm::dvec3 n(nf), l = local_dir(i);
    const double sign = std::copysign(1.0, n.z), a = -1.0 / (sign + n.z), b = n.x * n.y * a;
    const glm::dvec3 b1(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x);
    const glm::dvec3 b2(b, sign + n.y * n.y * a, -n.y);
    return b1 * l.x + b2 * l.y + n * l.z;
}

// The edge cases of the basis (the six axes, x and y with a negative zero z, z within an
// ulp or a few of -1 and of 1) and random unit normals, 2000 in all.
std::vector<glm::vec3> test_normals() {
    std::vector<glm::vec3> normals = {{0, 0, 1},      {0, 0, -1},     {1, 0, 0},          {-1, 0, 0},
                                      {0, 1, 0},      {0, -1, 0},     {1, 0, -0.0f},      {0, 1, -0.0f},
                                      {-1, 0, -0.0f}, {0, -1, -0.0f}, {0.6f, 0.8f, -0.0f}};
    for (const float z : {std::nextafter(-1.0f, 0.0f), -1.0f + 4.0f * 0x1p-24f, std::nextafter(1.0f, 0.0f)}) {
        const float s = float(std::sqrt(1.0 - double(z) * double(z)));
        normals.push_back({s, 0, z});
        normals.push_back({0, -s, z});
        normals.push_back({s * 0.6f, s * 0.8f, z});
    }
    normals.push_back(glm::normalize(glm::vec3(1e-4f, -2e-4f, -1.0f)));
    std::mt19937 rng(20171231u);
    std::normal_distribution<float> g;
    while (normals.size() < 2000) {
        const glm::vec3 v(g(rng), g(rng), g(rng));
        if (glm::length(v) > 1e-3f) normals.push_back(glm::normalize(v));
    }
    return normals;
}

// The angle is exactly the float product; about +z the basis is the identity and about -z
// it is (x, -y, -z), both exactly in float: there the world direction is the local one,
// which is checked alone, each component within a relative 1e-6 (a few ulps: one each for
// the square root, cosf or sinf and the product).
TEST(DiffuseSet, LocalDirectionFollowsTheSpecification) {
    const auto spec_phi = [](uint32_t u) { return float(double(6.28318548f) * (double(u) / 16777216.0)); };
    for (const uint32_t u : {0u, 1u, 4194304u, 8388608u, 12582912u, 16777215u})
        EXPECT_EQ(diffuse_phi(u), spec_phi(u)) << "u " << u;
    for (uint32_t i = 0; i < 65536; ++i) {
        const glm::dvec3 l = local_dir(i);
        const uint32_t u = pcg_hash(2u * i + 1u) >> 8;
        EXPECT_EQ(diffuse_phi(u), spec_phi(u)) << "slot " << i;
        const glm::vec3 up = diffuse_dir(i, glm::vec3(0.0f, 0.0f, 1.0f));
        const glm::vec3 down = diffuse_dir(i, glm::vec3(0.0f, 0.0f, -1.0f));
        for (int c = 0; c < 3; ++c) {
            EXPECT_LE(std::fabs(up[c] - l[c]), 1e-6 * std::fabs(l[c])) << "slot " << i << " component " << c;
            const double want = c == 0 ? l[c] : -l[c];
            EXPECT_LE(std::fabs(down[c] - want), 1e-6 * std::fabs(want))
                << "slot " << i << " component " << c;
        }
    }
}

// About every test normal: each component of the world direction within 1e-6 of the
// double computation's (relative to the direction's unit length: a component that
// cancels to near zero keeps the absolute error of its terms).
TEST(DiffuseSet, WorldDirectionFollowsTheSpecification) {
    uint32_t i = 0;
    for (const glm::vec3& n : test_normals())
        for (int k = 0; k < 16; ++k, ++i) {
            const glm::vec3 d = diffuse_dir(i, n);
            const glm::dvec3 w = world_dir(i, n);
            for (int c = 0; c < 3; ++c)
                EXPECT_LE(std::fabs(d[c] - w[c]), 1e-6 * glm::length(w))
                    << "slot " << i << " normal " << n.x << "," << n.y << "," << n.z << " component " << c;
        }
}

// About every test normal: the direction is unit within 1e-6 and lies in the normal's
// hemisphere.
TEST(DiffuseSet, UnitAndInTheNormalsHemisphere) {
    uint32_t i = 0;
    for (const glm::vec3& n : test_normals())
        for (int k = 0; k < 16; ++k, ++i) {
            const glm::dvec3 d(diffuse_dir(i, n)), nd(n);
            EXPECT_NEAR(glm::length(d), 1.0, 1e-6)
                << "slot " << i << " normal " << n.x << "," << n.y << "," << n.z;
            EXPECT_GT(glm::dot(d, nd), 0.0) << "slot " << i << " normal " << n.x << "," << n.y << "," << n.z;
        }
}

// Cosine-weighted: the mean cosine to the normal is 2/3 (uniform over the hemisphere it
// would be 1/2), within 4 standard errors of the mean computed from the samples (about
// 0.003 over 100000 samples; the cosine's standard deviation is 1/sqrt(18)).
TEST(DiffuseSet, CosineWeighted) {
    const std::vector<glm::vec3> normals = test_normals();
    constexpr uint32_t kSamples = 100000;
    double sum = 0.0, sum2 = 0.0;
    for (uint32_t i = 0; i < kSamples; ++i) {
        const glm::vec3& n = normals[i % normals.size()];
        const double c = glm::dot(glm::dvec3(diffuse_dir(i, n)), glm::dvec3(n));
        sum += c;
        sum2 += c * c;
    }
    const double mean = sum / kSamples, var = (sum2 - kSamples * mean * mean) / (kSamples - 1);
    const double se = std::sqrt(var / kSamples);
    EXPECT_GT(se, 0.0);
    EXPECT_NEAR(mean, 2.0 / 3.0, 4.0 * se) << "standard error " << se;
}

}  // namespace
