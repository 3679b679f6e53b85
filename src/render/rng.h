// rng.h - the path integrator's random numbers: Philox4x32-10 (Salmon et al. 2011,
// "Parallel Random Numbers: As Easy as 1, 2, 3"; Random123, Debian's librandom123-dev),
// a counter-based generator. The numbers a path vertex uses are a pure function of
// (pixel, sample, bounce, dimension) and the frame's seed: no generator state lives in
// the ray buffers, and every mode, executor and order of work draws the same numbers for
// the same vertex, which is what lets every mode make the same image bit for bit.
// Philox is integer arithmetic only (a 32x32->64 multiply and xors), so host and device
// agree by construction. It is the `independent` sampler of render/sampler.h, which
// also makes the low-discrepancy ones.
#pragma once

#include "core/hd.h"

#include <Random123/philox.h>

#include <glm/glm.hpp>

#include <cstdint>

namespace srt {

// Where a vertex's numbers come from. `dims` numbers the groups of four a vertex draws
// (the path stages say which is which).
struct RngKey {
    uint32_t pixel = 0;   // in the whole frame: y * width + x
    uint32_t sample = 0;  // the sample's index in the pixel's sum
    uint32_t bounce = 0;  // 0 = the camera ray's hit
    uint32_t seed = 0;    // another seed, another independent image
    uint32_t morton = 0;  // the pixel's Morton code, for zsobol (render/sampler.h); 0 for the others
};

// Four raw 32-bit words for group `dims` of the vertex's numbers.
SRT_HD_INLINE void rng_words(const RngKey& k, uint32_t dims, uint32_t out[4]) {
    r123::Philox4x32_R<10> philox;
    const r123::Philox4x32::ctr_type ctr = {{k.pixel, k.sample, k.bounce, dims}};
    const r123::Philox4x32::key_type key = {{k.seed, 0x5eed1e55u}};
    const r123::Philox4x32::ctr_type r = philox(ctr, key);
    for (int i = 0; i < 4; ++i) out[i] = r[i];
}

// A word's top 24 bits as a float in [0, 1): every value exact, 1 never reached.
SRT_HD_INLINE float word_to_unit(uint32_t w) { return float(w >> 8) * (1.0f / 16777216.0f); }

// Four uniform numbers in [0, 1) for group `dims` of the vertex's numbers.
SRT_HD_INLINE glm::vec4 rng_uniform4(const RngKey& k, uint32_t dims) {
    uint32_t w[4];
    rng_words(k, dims, w);
    return glm::vec4(word_to_unit(w[0]), word_to_unit(w[1]), word_to_unit(w[2]), word_to_unit(w[3]));
}

}  // namespace srt
