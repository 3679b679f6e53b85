// test_rng.cpp - the path integrator's random numbers (render/rng.h): Philox4x32-10 as
// Random123 defines it (its known-answer vectors), our keying, and the numbers' uniformity
// and independence across the key's fields, measured with error bars.
#include "render/rng.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace {

// Random123's own known-answer tests (kat_vectors, philox4x32 with 10 rounds).
TEST(Rng, PhiloxMatchesRandom123KnownAnswers) {
    r123::Philox4x32_R<10> g;
    const r123::Philox4x32::ctr_type c0 = {{0, 0, 0, 0}};
    const r123::Philox4x32::key_type k0 = {{0, 0}};
    const auto r0 = g(c0, k0);
    EXPECT_EQ(r0[0], 0x6627e8d5u);
    EXPECT_EQ(r0[1], 0xe169c58du);
    EXPECT_EQ(r0[2], 0xbc57ac4cu);
    EXPECT_EQ(r0[3], 0x9b00dbd8u);
    const r123::Philox4x32::ctr_type c1 = {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}};
    const r123::Philox4x32::key_type k1 = {{0xa4093822u, 0x299f31d0u}};
    const auto r1 = g(c1, k1);
    EXPECT_EQ(r1[0], 0xd16cfe09u);
    EXPECT_EQ(r1[1], 0x94fdccebu);
    EXPECT_EQ(r1[2], 0x5001e420u);
    EXPECT_EQ(r1[3], 0x24126ea1u);
}

TEST(Rng, UnitFloatsCoverZeroToOneExclusive) {
    EXPECT_EQ(srt::word_to_unit(0u), 0.0f);
    EXPECT_LT(srt::word_to_unit(0xffffffffu), 1.0f);
    EXPECT_EQ(srt::word_to_unit(0xffffffffu), 1.0f - 1.0f / 16777216.0f);
}

// Each field of the key, varied alone over 2^16 values, gives numbers whose mean, variance
// and neighbour correlation are those of uniform ones (5 standard errors), and whose
// 64-bin histogram passes a chi-square at z < 5 (Wilson-Hilferty).
TEST(Rng, EachKeyFieldGivesUniformIndependentNumbers) {
    const int n = 1 << 16;
    for (int field = 0; field < 5; ++field) {
        SCOPED_TRACE("field " + std::to_string(field));
        std::vector<double> v;
        v.reserve(size_t(n) * 4);
        for (int i = 0; i < n; ++i) {
            srt::RngKey k{1234u, 5u, 3u, 77u};
            uint32_t dims = 2;
            switch (field) {
                case 0: k.pixel = uint32_t(i); break;
                case 1: k.sample = uint32_t(i); break;
                case 2: k.bounce = uint32_t(i); break;
                case 3: k.seed = uint32_t(i); break;
                default: dims = uint32_t(i); break;
            }
            const glm::vec4 u = srt::rng_uniform4(k, dims);
            for (int c = 0; c < 4; ++c) v.push_back(u[c]);
        }
        const double m = double(v.size());
        double sum = 0.0, sum2 = 0.0, cross = 0.0;
        std::vector<double> bins(64, 0.0);
        for (size_t i = 0; i < v.size(); ++i) {
            sum += v[i];
            sum2 += v[i] * v[i];
            if (i + 1 < v.size()) cross += (v[i] - 0.5) * (v[i + 1] - 0.5);
            bins[size_t(v[i] * 64.0)] += 1.0;
        }
        const double mean = sum / m, var = sum2 / m - mean * mean;
        EXPECT_NEAR(mean, 0.5, 5.0 * std::sqrt(1.0 / 12.0 / m));
        EXPECT_NEAR(var, 1.0 / 12.0, 5.0 * std::sqrt(1.0 / 180.0 / m));  // Var of (u - 1/2)^2 is 1/180
        EXPECT_NEAR(cross / (m - 1.0), 0.0, 5.0 * (1.0 / 12.0) / std::sqrt(m));
        double x2 = 0.0;
        for (double b : bins) x2 += (b - m / 64.0) * (b - m / 64.0) / (m / 64.0);
        const double k = 63.0;
        const double z = (std::cbrt(x2 / k) - (1.0 - 2.0 / (9.0 * k))) / std::sqrt(2.0 / (9.0 * k));
        EXPECT_LT(z, 5.0) << "X^2 = " << x2;
    }
}

// Different vertices get different numbers: no two of 2^18 (pixel, sample, bounce) keys
// share their first word.
TEST(Rng, NeighbouringKeysDoNotCollide) {
    std::vector<uint32_t> first;
    for (uint32_t p = 0; p < 256; ++p)
        for (uint32_t s = 0; s < 64; ++s)
            for (uint32_t b = 0; b < 16; ++b) {
                uint32_t w[4];
                srt::rng_words(srt::RngKey{p, s, b, 0u}, 0u, w);
                first.push_back(w[0]);
            }
    std::sort(first.begin(), first.end());
    // 2^18 random 32-bit words collide about 8 times by the birthday bound; allow 30.
    size_t same = 0;
    for (size_t i = 1; i < first.size(); ++i) same += first[i] == first[i - 1];
    EXPECT_LT(same, 30u);
}

}  // namespace
