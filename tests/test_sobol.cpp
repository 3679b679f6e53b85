// Sobol points (render/sobol.h, render/sobol_matrices.h): the unscrambled points against
// Boost's own Sobol engine (an implementation that is not ours, over Joe and Kuo's
// numbers) and against the published first points; Owen scrambling and the shuffled index
// keep every dimension stratified, and dimensions 0 and 1 a (0, m, 2)-net, at every power
// of two; a scramble that is not nested is seen to break it.
#include "render/sobol.h"
#include "render/sobol_matrices.h"
#include "support/nets.h"

#include <boost/random/sobol.hpp>
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <vector>

using namespace srt;
using srt::test::net;
using srt::test::stratified;

namespace {

uint32_t gray(uint32_t n) { return n ^ (n >> 1); }

// The first 2^12 points of dimension d, each digit-scrambled by `scramble` (identity:
// none) and taken at the index `order` gives.
std::vector<uint32_t> points(const std::vector<uint32_t>& cols, uint32_t d,
                             const std::function<uint32_t(uint32_t)>& scramble,
                             const std::function<uint32_t(uint32_t)>& order) {
    std::vector<uint32_t> v(4096);
    for (uint32_t i = 0; i < v.size(); ++i) v[i] = scramble(sobol_bits(&cols[32 * d], order(i)));
    return v;
}

const auto kIdentity = [](uint32_t v) { return v; };

}  // namespace

TEST(Sobol, UnscrambledPointsEqualBoostsEngine) {
    constexpr uint32_t kDims = 64;
    const std::vector<uint32_t> cols = sobol_generator_matrices(kDims);
    // Boost's engine runs in Gray-code order and starts at the point after 0.
    boost::random::sobol_engine<uint32_t, 32> boost_sobol(kDims);
    for (uint32_t n = 0; n < 4096; ++n)
        for (uint32_t d = 0; d < kDims; ++d)
            ASSERT_EQ(sobol_bits(&cols[32 * d], gray(n + 1)), boost_sobol()) << "point " << n << " dimension " << d;
}

TEST(Sobol, FirstPointsArePublishedOnes) {
    const std::vector<uint32_t> cols = sobol_generator_matrices(3);
    // In the natural order of the index: van der Corput's radical inverse, then x + 1's.
    const double d0[] = {0, 0.5, 0.25, 0.75, 0.125, 0.625, 0.375, 0.875};
    const double d1[] = {0, 0.5, 0.75, 0.25, 0.625, 0.125, 0.375, 0.875};
    for (uint32_t i = 0; i < 8; ++i) {
        EXPECT_EQ(sobol_bits(&cols[0], i) * 0x1p-32, d0[i]) << i;
        EXPECT_EQ(sobol_bits(&cols[32], i) * 0x1p-32, d1[i]) << i;
    }
    // Dimension 2, x^2 + x + 1 (a_1 = 1) with m = 1, 3: v = 1/2, 3/4, then
    // m_3 = 2 a_1 m_2 ^ 4 m_1 ^ m_1 = 6 ^ 4 ^ 1 = 3 (3/8).
    EXPECT_EQ(cols[64 + 0], 0x80000000u);
    EXPECT_EQ(cols[64 + 1], 0xc0000000u);
    EXPECT_EQ(cols[64 + 2], 0x60000000u);
    EXPECT_THROW(sobol_generator_matrices(sobol_max_dimensions() + 1), std::out_of_range);
}

TEST(Sobol, EveryDimensionIsStratifiedAtEveryPowerOfTwo) {
    const std::vector<uint32_t> cols = sobol_generator_matrices(16);
    for (uint32_t d = 0; d < 16; ++d) {
        const std::vector<uint32_t> x = points(cols, d, kIdentity, kIdentity);
        for (int m = 0; m <= 12; ++m) EXPECT_TRUE(stratified(x, m)) << "dimension " << d << ", 2^" << m;
    }
    for (int m = 0; m <= 12; ++m)
        EXPECT_TRUE(net(points(cols, 0, kIdentity, kIdentity), points(cols, 1, kIdentity, kIdentity), m)) << m;
}

TEST(Sobol, OwenScramblingAndTheShuffledIndexKeepTheStratification) {
    const std::vector<uint32_t> cols = sobol_generator_matrices(4);
    for (uint32_t seed : {1u, 0x12345678u, 0xdeadbeefu, 0xffffffffu}) {
        const auto shuffle = [&](uint32_t i) { return nested_uniform_scramble(i, hash_combine32(seed, 7u)); };
        const auto owen_x = [&](uint32_t v) { return nested_uniform_scramble(v, hash_combine32(seed, 0u)); };
        const auto owen_y = [&](uint32_t v) { return nested_uniform_scramble(v, hash_combine32(seed, 1u)); };
        for (const bool shuffled : {false, true}) {
            const std::function<uint32_t(uint32_t)> order =
                shuffled ? std::function<uint32_t(uint32_t)>(shuffle) : std::function<uint32_t(uint32_t)>(kIdentity);
            const std::vector<uint32_t> x = points(cols, 0, owen_x, order), y = points(cols, 1, owen_y, order);
            EXPECT_NE(x, points(cols, 0, kIdentity, order)) << "the scramble changes the points";
            for (int m = 0; m <= 12; ++m) {
                EXPECT_TRUE(stratified(x, m)) << "seed " << seed << ", 2^" << m;
                EXPECT_TRUE(net(x, y, m)) << "seed " << seed << ", 2^" << m << (shuffled ? ", shuffled" : "");
            }
        }
    }
    // The test can fail: a hash of the whole word is a scramble but not a nested one.
    const auto flat = [](uint32_t v) { return hash_combine32(v, 3u); };
    const std::vector<uint32_t> x = points(cols, 0, flat, kIdentity);
    bool all = true;
    for (int m = 1; m <= 12; ++m) all = all && stratified(x, m);
    EXPECT_FALSE(all);
}

TEST(Sobol, FractionToFloatIsBelowOne) {
    EXPECT_EQ(fraction_to_float(0u), 0.0f);
    EXPECT_LT(fraction_to_float(0xffffffffu), 1.0f);
    EXPECT_EQ(fraction_to_float(0x80000000u), 0.5f);
    EXPECT_EQ(reverse_bits32(1u), 0x80000000u);
    EXPECT_EQ(reverse_bits32(0x12345678u), 0x1e6a2c48u);
}
