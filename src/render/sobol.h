// sobol.h - Sobol points and their Owen scrambling, in 32-bit integer arithmetic, the same
// bits on the CPU and the GPU.
//
// A Sobol point's coordinate in dimension d is the XOR of the columns of d's generator
// matrix (32 columns of 32 bits, render/sobol_matrices.h) picked by the set bits of the
// point's index: the (0, 2)-sequence of dimensions 0 and 1 puts one point of the first 2^m
// in every elementary interval of area 2^-m, and every dimension alone is stratified at
// every power of two.
//
// Owen scrambling (nested uniform scrambling: each digit flipped or not by a random
// function of the digits above it) keeps that stratification and makes the points'
// error that of a randomised quasi-Monte Carlo estimate, whose variance falls faster
// than independent samples' where the integrand is smooth. The scramble here is Burley's
// ("Practical Hash-based Owen Scrambling", JCGT 2020): the bits reversed, so that the
// digits above a digit are the bits below it, and then a hash in which each output bit
// depends only on the input bits at and below it (an add and XORs of multiples by even
// constants), reversed back. The same scramble of the index shuffles the order in which a
// pixel's points come, so that dimensions drawn from different seeds stay decorrelated.
#pragma once

#include "core/hash.h"
#include "core/hd.h"

#include <cstdint>

namespace srt {

SRT_HD_INLINE uint32_t reverse_bits32(uint32_t v) {
#if defined(__CUDA_ARCH__)
    return __brev(v);
#else
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
    v = ((v >> 8) & 0x00ff00ffu) | ((v & 0x00ff00ffu) << 8);
    return (v >> 16) | (v << 16);
#endif
}

// Burley's Laine-Karras-style permutation: bit i of the result depends on bits 0..i of x
// only (carries and products by even constants move information upwards, never down).
SRT_HD_INLINE uint32_t laine_karras_permutation(uint32_t x, uint32_t seed) {
    x += seed;
    x ^= x * 0x6c50b47cu;
    x ^= x * 0xb82f1e52u;
    x ^= x * 0xc7afe638u;
    x ^= x * 0x8d22f6e6u;
    return x;
}

// Owen's nested uniform scramble of a 32-bit fraction (bit 31 its first binary digit).
SRT_HD_INLINE uint32_t nested_uniform_scramble(uint32_t x, uint32_t seed) {
    return reverse_bits32(laine_karras_permutation(reverse_bits32(x), seed));
}

// A well-mixed 32-bit hash of two words, for seeds: the pair combined, then lowbias32.
SRT_HD_INLINE uint32_t hash_combine32(uint32_t a, uint32_t b) {
    return lowbias32(a * 0x9e3779b9u ^ (b + 0x7f4a7c15u + (a << 6) + (a >> 2)));
}

// The Sobol point `index` in the dimension whose generator matrix is `columns` (32
// words: column k is the contribution of index bit k, its first digit in bit 31).
SRT_HD_INLINE uint32_t sobol_bits(const uint32_t* columns, uint32_t index) {
    uint32_t x = 0;
    for (int k = 0; index != 0; index >>= 1, ++k)
        if (index & 1u) x ^= columns[k];
    return x;
}

// A 32-bit fraction as a float in [0, 1): its first 24 digits, exactly (float holds
// them all, so no rounding can carry the value up to 1).
SRT_HD_INLINE float fraction_to_float(uint32_t x) { return float(x >> 8) * 0x1p-24f; }

}  // namespace srt
