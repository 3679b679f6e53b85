// kill.h - a controlled experiment on how rays die: `--kill PATTERN:SURVIVAL`.
//
// On top of any scene and integrator, rays are killed at each bounce to a fixed survival
// schedule, choosing the dead one of three ways at the same surviving fraction:
//   ray    each ray at random, by a hash of its pixel and sample (deaths scatter over
//          every warp: the case Russian roulette makes);
//   warp   whole warp tiles (--warp-shape's 8x4 pixels) at a time;
//   blockK blocks of K x K warp tiles (coherent screen regions).
// A unit (ray, tile, block) draws one number u in [0, 1) per sample, and lives through
// bounce b while u < S_b, the schedule's surviving fraction at b (S_0 = 1): the same unit
// is always the one to die, so the live fraction at each bounce is S_b of the units, up
// to the natural deaths (misses, surfaces that send nothing on). For tiles and blocks u
// is a golden-ratio (Weyl) sequence over the unit's index, shifted per sample: the live
// fraction of units is S_b to within a few units whichever S_b; for rays it is a hash,
// and the fraction binomial.
// The kill is a pure function of the pixel, the sample and the bounce (never of the warp
// that runs it, so compaction and regeneration, whose warps hold other rays, kill the same
// rays): every mode gives the same image, bit for bit.
#pragma once

#include "core/hash.h"
#include "core/hd.h"

#include <cstdint>
#include <string>

namespace srt {

enum class KillKind : uint32_t { None = 0, Ray, Warp, Block };

// pbrt-v4's Cornell box: the fraction of its primary paths still alive at bounces 1 to 4
// (a measured schedule of real path deaths); past the fourth, the fourth's ratio to the
// third, bounce after bounce.
constexpr float kPbrtCornell1 = 0.99f, kPbrtCornell2 = 0.78f, kPbrtCornell3 = 0.68f, kPbrtCornell4 = 0.60f;

struct KillPattern {
    KillKind kind = KillKind::None;
    uint32_t block = 1;  // Block: tiles per side
    float p = 0.0f;      // the survival per bounce (0: pbrt's schedule)
    SRT_HD_INLINE bool active() const { return kind != KillKind::None; }
    // S_b, the fraction of units alive at bounce b >= 1 (S_0 = 1): p^b, or pbrt's. A
    // product in order, the same bits on both sides; no table, since a kernel indexing an
    // array of its parameters at run time copies them to local memory (measured: the
    // megakernel 2.6x slower).
    SRT_HD_INLINE float survival(int b) const {
        float s = 1.0f, step = p;
        if (p == 0.0f) {  // pbrt's
            if (b <= 4) return b == 1 ? kPbrtCornell1 : b == 2 ? kPbrtCornell2 : b == 3 ? kPbrtCornell3 : kPbrtCornell4;
            s = kPbrtCornell4;
            step = kPbrtCornell4 / kPbrtCornell3;
            b -= 4;
        }
        for (int k = 0; k < b; ++k) s = s * step;
        return s;
    }
};

// The kill's hash (core/hash.h).
SRT_HD_INLINE uint32_t kill_hash(uint32_t x) { return lowbias32(x); }

// The unit's number in [0, 1), as a 32-bit fraction. `pixel` is the pixel's index in the
// whole frame, (tx, ty) its warp tile's column and row, `tiles_x` the tiles per row.
SRT_HD_INLINE uint32_t kill_number(const KillPattern& k, uint32_t pixel, uint32_t tx, uint32_t ty, uint32_t tiles_x,
                                   uint32_t sample) {
    const uint32_t shift = kill_hash(sample ^ 0x5bd1e995u);
    if (k.kind == KillKind::Ray) return kill_hash(pixel ^ kill_hash(sample + 0x9e3779b9u));
    uint32_t unit;
    if (k.kind == KillKind::Warp) {
        unit = ty * tiles_x + tx;
    } else {
        const uint32_t blocks_x = (tiles_x + k.block - 1u) / k.block;
        unit = (ty / k.block) * blocks_x + tx / k.block;
    }
    return (unit + 1u) * 2654435769u + shift;  // 2^32 / golden ratio: the Weyl sequence
}

// Whether a ray of this unit lives into bounce b (b >= 1: the rays a bounce sends on).
// u is the number's top 24 bits over 2^24: a float, exact on both sides.
SRT_HD_INLINE bool kill_survives(const KillPattern& k, uint32_t number, int b) {
    return float(number >> 8) * (1.0f / 16777216.0f) < k.survival(b);
}

// The same for the pixel (x, y) of a whole frame `width` wide, whose warp tiles are
// 2^tile_shift pixels wide and 32 pixels in all (render/frame.h).
SRT_HD_INLINE bool kill_survives_pixel(const KillPattern& k, uint32_t x, uint32_t y, uint32_t width,
                                       uint32_t tile_shift, uint32_t sample, int b) {
    if (!k.active()) return true;
    const uint32_t tw = 1u << tile_shift, th = 32u >> tile_shift;
    const uint32_t tiles_x = (width + tw - 1u) / tw;
    return kill_survives(k, kill_number(k, y * width + x, x >> tile_shift, y / th, tiles_x, sample), b);
}

// `--kill`: "none", or PATTERN:SURVIVAL with PATTERN ray, warp or blockK and SURVIVAL a
// fraction p in (0, 1] per bounce (S_b = p^b) or "pbrt" (pbrt-v4's Cornell box: 99%,
// 78%, 68%, 60% of the primary paths alive at bounces 1 to 4). Returns "" or what was
// wrong.
std::string parse_kill(const std::string& text, KillPattern& out);
// "ray:0.5", "block4:pbrt", "none": what parse_kill reads back.
std::string to_string(const KillPattern& k);

}  // namespace srt
