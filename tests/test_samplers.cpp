// The path integrator's samplers (render/sampler.h): Sobol's dimensions 0 and 1 as the
// sampler computes them against Joe and Kuo's matrices (render/sobol_matrices.h, checked
// against Boost's engine in test_sobol.cpp); every pad of `sobol` a (0, m, 2)-net over a
// pixel's first 2^m samples at every m; zsobol's index a bijection, and every aligned block
// of pixels sharing one net; and no two numbers of a vertex correlated, a check that is
// seen to catch a sampler that reuses a dimension.
#include "core/hash.h"
#include "render/sampler.h"
#include "render/sobol_matrices.h"
#include "support/nets.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>
#include <vector>

using namespace srt;
using srt::test::net;
using srt::test::stratified;

namespace {

// A number in [0, 1) that fraction_to_float made, back to its 32-bit fraction (exact).
uint32_t to_fraction(float u) { return uint32_t(u * 16777216.0f) << 8; }

std::vector<glm::vec4> pixel_samples(const SamplerLayout& l, RngKey k, uint32_t group, uint32_t n) {
    std::vector<glm::vec4> v;
    for (k.sample = 0; k.sample < n; ++k.sample) v.push_back(sample_uniform4(l, k, group));
    return v;
}

// Components a and b of each of the first n points, as fractions.
void split(const std::vector<glm::vec4>& v, int a, int b, std::vector<uint32_t>& x, std::vector<uint32_t>& y) {
    x.clear();
    y.clear();
    for (const glm::vec4& u : v) {
        x.push_back(to_fraction(u[a]));
        y.push_back(to_fraction(u[b]));
    }
}

}  // namespace

TEST(Samplers, Dimensions0And1AreJoeAndKuos) {
    const std::vector<uint32_t> cols = sobol_generator_matrices(2);
    uint32_t r = 1;
    for (uint32_t i = 0; i < (1u << 16) + 4096; ++i) {
        const uint32_t index = i < (1u << 16) ? i : (r = lowbias32(r + i));  // then random 32-bit ones
        ASSERT_EQ(sobol_dim0_bits(index), sobol_bits(&cols[0], index)) << index;
        ASSERT_EQ(sobol_dim1_bits(index), sobol_bits(&cols[32], index)) << index;
    }
}

// Each pair a vertex draws as one point, and the camera's position in the pixel, is a
// (0, m, 2)-net over the pixel's first 2^m samples, and each number alone stratified, for
// every m up to 2^12: a progressive sum stays stratified whenever it stops.
TEST(Samplers, SobolPadsAreNetsAtEveryPowerOfTwo) {
    SamplerLayout l;
    l.kind = SamplerKind::Sobol;
    for (uint32_t pixel : {0u, 99991u}) {
        std::vector<uint32_t> x, y;
        for (uint32_t s = 0; s < 4096; ++s) {
            const glm::vec2 o = sample_pixel_offset(RngKey{pixel, s, 0, 4});
            x.push_back(to_fraction(o.x));
            y.push_back(to_fraction(o.y));
        }
        for (int m = 0; m <= 12; ++m) ASSERT_TRUE(net(x, y, m)) << "camera, pixel " << pixel << ", 2^" << m;
    }
    for (uint32_t pixel : {0u, 1u, 123457u})
        for (uint32_t seed : {0u, 7u})
            for (uint32_t bounce : {0u, 5u})
                for (uint32_t group : {0u, 1u}) {
                    const auto v = pixel_samples(l, RngKey{pixel, 0, bounce, seed}, group, 4096);
                    std::vector<uint32_t> x, y;
                    for (auto [a, b] : {std::pair{0, 3}, std::pair{1, 2}}) {
                        split(v, a, b, x, y);
                        for (int m = 0; m <= 12; ++m) {
                            SCOPED_TRACE("pixel " + std::to_string(pixel) + " seed " + std::to_string(seed) +
                                         " bounce " + std::to_string(bounce) + " group " + std::to_string(group) +
                                         " components " + std::to_string(a) + "," + std::to_string(b) + ", 2^" +
                                         std::to_string(m));
                            ASSERT_TRUE(stratified(x, m));
                            ASSERT_TRUE(stratified(y, m));
                            ASSERT_TRUE(net(x, y, m));
                        }
                    }
                }
}

// Every (pixel, sample) of the square of Morton codes the layout spans gets its own index,
// and the indices fill [0, 2^bits): even and odd log2 spp (the odd one's last digit a
// bit), and a frame whose sides are not powers of two.
TEST(Samplers, ZSobolIndexIsABijection) {
    for (auto [w, h, spp] : {std::tuple{8u, 8u, 4u}, std::tuple{8u, 8u, 8u}, std::tuple{5u, 3u, 2u},
                             std::tuple{16u, 16u, 1u}, std::tuple{4u, 4u, 32u}}) {
        SamplerLayout l;
        ASSERT_TRUE(zsobol_layout(w, h, spp, l));
        uint32_t side = 1, bits = l.log2_spp;
        while (side < std::max(w, h)) side *= 2, bits += 2;
        for (uint32_t seed : {0u, 99u}) {
            std::set<uint32_t> seen;
            for (uint32_t y = 0; y < side; ++y)
                for (uint32_t x = 0; x < side; ++x)
                    for (uint32_t s = 0; s < (1u << l.log2_spp); ++s) {
                        const uint32_t i = zsobol_index(l, (morton2(x, y) << l.log2_spp) | s, seed);
                        ASSERT_LT(uint64_t(i), uint64_t(1) << bits) << w << "x" << h << " at " << spp;
                        seen.insert(i);
                    }
            EXPECT_EQ(seen.size(), size_t(1) << bits) << w << "x" << h << " at " << spp << ", seed " << seed;
        }
    }
}

// zsobol's promise: the samples of an aligned block of 2^k x 2^k pixels, together, are
// one (0, m, 2)-net (so neighbouring pixels' errors cancel). Checked for blocks of 1, 4,
// 16 and 64 pixels of an 8x8 frame at 4 and 8 samples a pixel, both pads of both groups.
TEST(Samplers, ZSobolBlocksOfPixelsShareOneNet) {
    for (uint32_t spp : {4u, 8u}) {
        SamplerLayout l;
        ASSERT_TRUE(zsobol_layout(8, 8, spp, l));
        for (uint32_t block : {1u, 2u, 4u, 8u})
            for (uint32_t by = 0; by < 8; by += block)
                for (uint32_t bx = 0; bx < 8; bx += block)
                    for (uint32_t group : {0u, 1u}) {
                        std::vector<glm::vec4> v;
                        for (uint32_t y = by; y < by + block; ++y)
                            for (uint32_t x = bx; x < bx + block; ++x) {
                                const auto p = pixel_samples(l, RngKey{y * 8 + x, 0, 2, 5, morton2(x, y)}, group, spp);
                                v.insert(v.end(), p.begin(), p.end());
                            }
                        int m = 0;
                        while ((size_t(1) << m) < v.size()) ++m;
                        std::vector<uint32_t> x, y;
                        for (auto [a, b] : {std::pair{0, 3}, std::pair{1, 2}}) {
                            split(v, a, b, x, y);
                            EXPECT_TRUE(net(x, y, m)) << spp << " spp, block " << block << " at " << bx << "," << by
                                                      << ", group " << group << ", components " << a << "," << b;
                        }
                    }
    }
}

namespace {

// The numbers a path draws: group 2 is the camera's position in the pixel (x, y and two
// halves), groups 0 and 1 a vertex's light and scattering numbers.
using Draw = std::function<glm::vec4(const RngKey&, uint32_t group)>;

// The largest |correlation| / standard error over every pair of the 18 numbers of the
// camera and bounces 0 and 1, over `pixels` pixels of a 64-wide frame and `spp` samples each.
double worst_pair_z(const Draw& draw, uint32_t pixels, uint32_t spp) {
    constexpr int kN = 18;
    std::vector<double> sum(kN * kN, 0.0);
    double n = 0.0;
    for (uint32_t p = 0; p < pixels; ++p)
        for (uint32_t s = 0; s < spp; ++s) {
            double u[kN];
            const RngKey key{p, s, 0, 3, morton2(p % 64, p / 64)};
            const glm::vec4 camera = draw(key, 2);
            u[16] = double(camera.x) - 0.5;
            u[17] = double(camera.y) - 0.5;
            for (uint32_t b = 0; b < 2; ++b)
                for (uint32_t g = 0; g < 2; ++g) {
                    RngKey k = key;
                    k.bounce = b;
                    const glm::vec4 v = draw(k, g);
                    for (int c = 0; c < 4; ++c) u[8 * b + 4 * g + c] = double(v[c]) - 0.5;
                }
            for (int i = 0; i < kN; ++i)
                for (int j = i + 1; j < kN; ++j) sum[i * kN + j] += u[i] * u[j];
            n += 1.0;
        }
    // (u - 1/2)(v - 1/2) of independent uniforms has mean 0 and variance 1/144.
    const double se = std::sqrt(1.0 / 144.0 / n);
    // The camera's x and y are one point whose sample 0 is the pixel centre by design
    // (render/sampler.h sample_pixel_offset), so not independent uniforms: left out.
    double worst = 0.0;
    for (int i = 0; i < kN; ++i)
        for (int j = i + 1; j < kN; ++j)
            if (!(i == 16 && j == 17)) worst = std::max(worst, std::fabs(sum[i * kN + j] / n) / se);
    return worst;
}

// The numbers as the sampler draws them; the camera's position only where the sampler
// makes it (independent's is the frame's R2 point: a constant here, correlated with nothing).
glm::vec4 draw_from(const SamplerLayout& l, const RngKey& key, uint32_t g) {
    if (g < 2) return sample_uniform4(l, key, g);
    if (l.kind == SamplerKind::Independent) return glm::vec4(0.5f);
    const glm::vec2 o = sample_pixel_offset(key);
    return glm::vec4(o.x, o.y, 0.5f, 0.5f);
}

}  // namespace

// No two numbers of a path's camera and first two vertices are correlated, under any
// sampler: 152 pairs, each within k standard errors of 0, k for a family-wise false-failure
// rate of 1e-3 (Bonferroni: two-sided 1e-3 / 152 -> 4.51). And the check has teeth: a
// sobol that draws the scattering group from the light group's pads (one dimension used
// twice) fails.
TEST(Samplers, NoTwoNumbersOfAPathAreCorrelated) {
    const double k = 4.51;
    for (SamplerKind kind : {SamplerKind::Independent, SamplerKind::Sobol, SamplerKind::ZSobol}) {
        SamplerLayout l;
        l.kind = kind;
        if (kind == SamplerKind::ZSobol) ASSERT_TRUE(zsobol_layout(64, 64, 16, l));
        const double z = worst_pair_z([&](const RngKey& key, uint32_t g) { return draw_from(l, key, g); }, 4096, 16);
        EXPECT_LT(z, k) << to_string(kind);
        std::printf("[samplers] %s: worst pair %.2f standard errors from uncorrelated (k = %.2f)\n", to_string(kind),
                    z, k);
    }
    SamplerLayout sobol;
    sobol.kind = SamplerKind::Sobol;
    const double broken =
        worst_pair_z([&](RngKey key, uint32_t g) { return draw_from(sobol, key, g == 1 ? 0u : g); }, 4096, 16);
    EXPECT_GT(broken, k) << "a sampler that reuses its light numbers for scattering passes";
}

TEST(Samplers, ZSobolLayoutRefusesMoreThan32Bits) {
    SamplerLayout l;
    EXPECT_TRUE(zsobol_layout(1920, 1080, 1024, l));  // 22 + 10 bits
    EXPECT_EQ(l.log2_spp, 10u);
    EXPECT_EQ(l.digits, 16u);
    EXPECT_FALSE(zsobol_layout(1920, 1080, 1025, l));  // 22 + 11
    EXPECT_TRUE(zsobol_layout(4096, 4096, 256, l));    // 24 + 8
    EXPECT_FALSE(zsobol_layout(4097, 4096, 256, l));   // 26 + 8
}
