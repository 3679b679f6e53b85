// sampler.h - the numbers a path vertex draws, from the sampler the frame names
// (--sampler, render.sampler):
//   independent  Philox (render/rng.h): every number independent of every other.
//   sobol        Owen-scrambled Sobol points (render/sobol.h), in two-dimensional pads:
//                each pair of numbers below is its own (0,2)-sequence over a pixel's
//                samples, shuffled and scrambled by seeds hashed from (pixel, seed, pad),
//                so that pads, pixels and seeds are independent randomisations (Burley
//                2020, "Practical Hash-based Owen Scrambling"). A pixel's first 2^m
//                samples of a pad are stratified in every elementary interval of area
//                2^-m, whatever m is: progressive sums stay stratified.
//   zsobol       Ahmed and Wonka's ordering ("Screen-space blue-noise diffusion of Monte
//                Carlo sampling error via hierarchical ordering of pixels", 2020), as
//                pbrt-v4's ZSobolSampler lays it out: pixel p's sample s is point
//                (morton(p) << log2 spp) | s of one Sobol sequence per pad, its base-4
//                digits permuted by hashes of the digits above them. A block of 4^k
//                pixels then shares one net of 4^k spp points, so neighbours' errors
//                cancel (blue noise). The layout is made for a sample count, rounded up
//                to a power of two (RenderSettings::samples_planned).
//
// The dimensions, assigned here once. Pad 0 is the camera ray's position in its pixel
// (sample_pixel_offset). A vertex at bounce b (0 = the camera ray's hit) draws two groups
// of four numbers u; group 0 for its light sample, group 1 for its scattering
// (render/path_vertex.h):
//   group 0: u.x picks the light, (u.y, u.z) the point on an emitter, u.w unused;
//   group 1: u.x picks the BSDF's lobe, (u.y, u.z) the direction, u.w Russian roulette.
// Pad 1 + 4b + 2g holds (u.x, u.w) and pad 2 + 4b + 2g holds (u.y, u.z): the two numbers
// that make one point are one pad's, and so stratified together. Under `independent`
// the camera's position is the R2 sequence of render/stages.h sample_offset, the same in
// every pixel (and Whitted's, under any sampler). A thin lens's point is pad kLensPad
// (past any bounce's), or under `independent` and Whitted Philox's group kLensGroup of
// bounce 0 (the vertices use groups 0 and 1): a point of its own in every pixel, since one
// lens point for the whole frame would show the scene as shifted copies, not as blur.
//
// Integer arithmetic to the last step (a 24-bit fraction converted exactly), so the CPU
// and the GPU draw the same bits.
#pragma once

#include "core/hash.h"
#include "core/hd.h"
#include "render/rng.h"
#include "render/sobol.h"
#include "scene/integrator.h"

#include <glm/glm.hpp>

#include <cstdint>

namespace srt {

// What a frame's sampler needs besides the vertex's key (FrameContext::sampler).
struct SamplerLayout {
    SamplerKind kind = SamplerKind::Independent;
    uint32_t log2_spp = 0;  // zsobol: the samples per pixel the layout holds, log2
    uint32_t digits = 0;    // zsobol: base-4 digits of (morton << log2_spp) | sample
};

// The most index bits zsobol's layout may use: Sobol's generator matrices are 32x32.
constexpr uint32_t kZSobolMaxBits = 32;

// zsobol's layout for a width x height frame of `samples` samples a pixel: Morton codes
// of ceil(log2(max side)) bits an axis, then log2 of the samples rounded up. Returns
// false where that passes kZSobolMaxBits.
inline bool zsobol_layout(uint32_t width, uint32_t height, uint32_t samples, SamplerLayout& out) {
    uint32_t axis = 0, l2 = 0;
    while ((1u << axis) < (width > height ? width : height)) ++axis;
    while ((1u << l2) < samples) ++l2;
    if (2 * axis + l2 > kZSobolMaxBits) return false;
    out.kind = SamplerKind::ZSobol;
    out.log2_spp = l2;
    out.digits = axis + (l2 + 1) / 2;
    return true;
}

// Dimension 0 of Sobol's sequence: the van der Corput radical inverse in base 2.
SRT_HD_INLINE uint32_t sobol_dim0_bits(uint32_t index) { return reverse_bits32(index); }

// Dimension 1: its generator matrix is Pascal's triangle mod 2 (the direction numbers of
// x + 1), so digit j of the point is the XOR of the index bits i with C(i, j) odd, which
// by Lucas' theorem are those whose bit positions contain j's. That sum over supersets
// of bit positions takes five shift-and-mask steps, one per bit of a position.
SRT_HD_INLINE uint32_t sobol_dim1_bits(uint32_t index) {
    uint32_t y = index;
    y ^= (y >> 1) & 0x55555555u;
    y ^= (y >> 2) & 0x33333333u;
    y ^= (y >> 4) & 0x0f0f0f0fu;
    y ^= (y >> 8) & 0x00ff00ffu;
    y ^= (y >> 16) & 0x0000ffffu;
    return reverse_bits32(y);  // digit j is the fraction's bit 31 - j
}

// Point `index` of a 2D Sobol sequence (dimensions 0 and 1), each coordinate
// Owen-scrambled by its own hash of `seed`.
SRT_HD_INLINE void owen_sobol2(uint32_t index, uint32_t seed, uint32_t& x, uint32_t& y) {
    x = nested_uniform_scramble(sobol_dim0_bits(index), hash_combine32(seed, 0x1u));
    y = nested_uniform_scramble(sobol_dim1_bits(index), hash_combine32(seed, 0x2u));
}

// sobol: sample `sample` of a pad whose seed is `seed`. The index is Owen-scrambled too,
// which shuffles the order the points come in without breaking the nets: the first 2^m
// shuffled indices are one aligned block of 2^m (Burley 2020, section 4).
SRT_HD_INLINE void sobol_pad(uint32_t sample, uint32_t seed, uint32_t& x, uint32_t& y) {
    owen_sobol2(nested_uniform_scramble(sample, seed), seed, x, y);
}

// Spreads the low 16 bits of v to the even bits.
SRT_HD_INLINE uint32_t spread_bits2(uint32_t v) {
    v &= 0xffffu;
    v = (v | (v << 8)) & 0x00ff00ffu;
    v = (v | (v << 4)) & 0x0f0f0f0fu;
    v = (v | (v << 2)) & 0x33333333u;
    v = (v | (v << 1)) & 0x55555555u;
    return v;
}

// The Morton code of pixel (x, y): x's bits in the even places, y's in the odd.
SRT_HD_INLINE uint32_t morton2(uint32_t x, uint32_t y) { return spread_bits2(x) | (spread_bits2(y) << 1); }

// Permutation p (0..23, lexicographic) of {0, 1, 2, 3}, applied to digit d. The 24
// permutations are packed a byte each (2 bits an image), 8 to a 64-bit word: no table in
// memory, so nothing for the GPU to load.
constexpr uint64_t permutation4_word(int w) {
    uint64_t word = 0;
    int n = 0;
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
            for (int c = 0; c < 4; ++c) {
                const int d = 6 - a - b - c;
                if (a == b || a == c || b == c || d < 0 || d > 3 || d == a || d == b || d == c) continue;
                if (n / 8 == w) word |= uint64_t(a | b << 2 | c << 4 | d << 6) << (8 * (n % 8));
                ++n;
            }
    return word;
}
SRT_HD_INLINE uint32_t permute4(uint32_t p, uint32_t d) {
    constexpr uint64_t w0 = permutation4_word(0), w1 = permutation4_word(1), w2 = permutation4_word(2);
    const uint64_t w = p < 8 ? w0 : p < 16 ? w1 : w2;
    return uint32_t(w >> (8 * (p & 7) + 2 * d)) & 3u;
}

// zsobol: the Sobol index of `m` = (morton << log2_spp) | sample in the pad whose seed is
// `seed`. Each base-4 digit, from the top, goes through one of the 24 permutations of
// four, picked by a hash of the digits above it: pixels that share their top digits share
// a net, and the permutations randomise which of its points each one gets. With log2_spp
// odd the last digit is one bit, flipped or not.
SRT_HD_INLINE uint32_t zsobol_index(const SamplerLayout& l, uint32_t m, uint32_t seed) {
    const uint32_t odd = l.log2_spp & 1u;
    uint32_t out = 0;
    for (int i = int(l.digits) - 1; i >= int(odd); --i) {
        const uint32_t shift = 2u * uint32_t(i) - odd;
        const uint32_t above = shift + 2 >= 32 ? 0u : m >> (shift + 2);
        const uint32_t p = uint32_t((uint64_t(hash_combine32(above, seed)) * 24u) >> 32);
        out |= permute4(p, (m >> shift) & 3u) << shift;
    }
    if (odd) out |= (m & 1u) ^ (hash_combine32(m >> 1, seed) & 1u);
    return out;
}

// Pad `pad` of the sample `k` names, under sobol or zsobol.
SRT_HD_INLINE void sample_pad(const SamplerLayout& l, const RngKey& k, uint32_t pad, uint32_t& x, uint32_t& y) {
    if (l.kind == SamplerKind::Sobol) {
        sobol_pad(k.sample, hash_combine32(hash_combine32(k.pixel, k.seed), pad), x, y);
    } else {
        const uint32_t seed = hash_combine32(k.seed, pad);
        owen_sobol2(zsobol_index(l, (k.morton << l.log2_spp) | k.sample, seed), seed, x, y);
    }
}

// sample_uniform4's sobol and zsobol, out of line: inlined into the path kernels twice a
// vertex beside Philox, they cost independent's frames 2-17% (registers, at the
// kernels' cap). Arguments by value: a reference into the kernel's FrameContext
// parameter, passed to a call, makes the whole context a local-memory copy in every
// thread (every path kernel 1.2-2x slower, measured).
SRT_HD_NOINLINE glm::vec4 scrambled_uniform4(SamplerLayout l, RngKey k, uint32_t group) {
    const uint32_t pad = 1u + 4u * k.bounce + 2u * group;
    uint32_t a0, a1, b0, b1;
    sample_pad(l, k, pad, a0, a1);
    sample_pad(l, k, pad + 1u, b0, b1);
    return glm::vec4(fraction_to_float(a0), fraction_to_float(b0), fraction_to_float(b1), fraction_to_float(a1));
}

// Four numbers in [0, 1) of group `group` (0: light, 1: scattering) of the vertex `k`
// names.
SRT_HD_INLINE glm::vec4 sample_uniform4(const SamplerLayout& l, const RngKey& k, uint32_t group) {
    if (l.kind == SamplerKind::Independent) return rng_uniform4(k, group);
    return scrambled_uniform4(l, k, group);
}

constexpr uint32_t kLensPad = 0xffffffffu;
constexpr uint32_t kLensGroup = 2u;

// The point of a thin lens that sample `k` (bounce 0) leaves from, in [0, 1)^2.
SRT_HD_INLINE glm::vec2 sample_lens(const SamplerLayout& l, const RngKey& k, bool scrambled) {
    if (!scrambled) {
        const glm::vec4 u = rng_uniform4(k, kLensGroup);
        return glm::vec2(u.x, u.y);
    }
    uint32_t x, y;
    sample_pad(l, k, kLensPad, x, y);
    return glm::vec2(fraction_to_float(x), fraction_to_float(y));
}

// The camera ray's position in its pixel, in [0, 1)^2, under sobol or zsobol (pad 0): the
// pixel's own Owen-scrambled 2D Sobol points, in their order, XORed with the constant
// that moves sample 0 to the pixel centre. An XOR with a constant flips the same digits
// of every point, a nested scramble too, so every 2^m first samples stay a (0, m, 2)-net;
// and one sample a pixel is the pixel centres, as under independent's R2 points, where a
// random position would add the pixel's own variance to the first frames (a 32x32
// scenes/glass.json at 1 spp: 1.4x the MSE).
SRT_HD_NOINLINE glm::vec2 sample_pixel_offset(RngKey k) {
    const uint32_t seed = hash_combine32(hash_combine32(k.pixel, k.seed), 0u);
    uint32_t x, y, x0, y0;
    owen_sobol2(k.sample, seed, x, y);
    owen_sobol2(0u, seed, x0, y0);
    return glm::vec2(fraction_to_float(x ^ x0 ^ 0x80000000u), fraction_to_float(y ^ y0 ^ 0x80000000u));
}

}  // namespace srt
