// frame.h - the per-frame state the stage functions work on.
//
// Ray state is SoA: one array per field, indexed by ray id; pointers are host or device
// memory depending on the executor. Each array has `ray_count` entries.
//
// Rays and pixels: each warp of 32 rays covers one TILE of tile_w x tile_h pixels
// (tile_w * tile_h = 32; 8 x 4 by default, `--warp-shape`). Tiles run row-major over the
// image, and within a tile lanes run row-major too:
//   ray i -> warp w = i >> 5, lane l = i & 31
//         -> pixel x = (w % tiles_x) * tile_w + (l % tile_w),  y = (w / tiles_x) * tile_h + (l / tile_w)
// A square-ish tile keeps a warp's rays close together, so they stay coherent through
// the BVH and tend to die together (whole dead warps are what the stencil skips; seed
// 001, a blog post on how splitting work over threads leaves some idle). Tiles are padded
// to cover the image, so ray_count = tiles_x * tiles_y * 32 is a whole number of warps,
// and lanes whose pixel falls outside the image are the pad lanes of the stencil
// invariant: dead from generate on.
#pragma once

#include "core/hd.h"
#include "render/kill.h"
#include "render/sampler.h"
#include "render/scene_gpu.h"

#include <cstddef>
#include <cstdint>

namespace srt {

struct RayBuffers {
    f4* origin;    // xyz: ray origin
    f4* dir;       // xyz: unit direction
    f4* weight;    // xyz: product of mirror reflectances along the path (path throughput);
                   // w: path: the last BSDF density; Whitted with glass: the ray's level
    f4* radiance;  // xyz: radiance gathered so far for this pixel, summed over samples;
                   // w: the non-finite samples left out of it (render/stages.h, the film;
                   // a float, exact to 2^24 per pixel)
    float* hit_t;
    int32_t* hit_id;  // see accel/intersect.h
    // The hit's instance (Hit::inst), written and read only by the kernels of a scene with
    // instances (accel/variant.h kInstances).
    uint32_t* hit_inst = nullptr;
};

// Whitted's ray tree: each slot's stack of deferred rays (render/ray_tree.h).
struct RayTree {
    f4* origin = nullptr;  // [capacity][ray_count]: xyz origin, w cone width
    f4* dir = nullptr;     //   xyz direction, w cone spread
    f4* weight = nullptr;  //   xyz weight, w level
    uint32_t* size = nullptr;  // [ray_count]: deferred rays per slot
    uint32_t capacity = 0;     // depth - 1
    uint32_t ray_count = 0;    // the plane stride
};

// Deferred rays a slot's stack holds at `depth`.
inline size_t ray_tree_capacity(int depth) { return depth > 1 ? size_t(depth - 1) : 0; }
// Bytes of a tree for `rays` slots at `depth` (executors allocate it, memory_check counts it).
inline size_t ray_tree_bytes(uint32_t rays, int depth) {
    return ray_tree_capacity(depth) * size_t(rays) * 3 * sizeof(f4) + size_t(rays) * sizeof(uint32_t);
}
// The tree for `rays` slots at `depth` over an executor's arrays: `entries` holds
// 3 * ray_tree_capacity(depth) * rays (the origins, then the directions, then the
// weights), `sizes` one per slot.
inline RayTree ray_tree_over(f4* entries, uint32_t* sizes, uint32_t rays, int depth) {
    const size_t cap = ray_tree_capacity(depth);
    RayTree t;
    t.origin = entries;
    t.dir = t.origin + cap * rays;
    t.weight = t.dir + cap * rays;
    t.size = sizes;
    t.capacity = uint32_t(cap);
    t.ray_count = rays;
    return t;
}

struct FrameContext {
    SceneView scene;
    CameraGpu camera;
    RayBuffers rays;
    uint32_t width = 0, height = 0;  // of the image this frame writes (a band: its rows)
    uint32_t full_height = 0;        // of the whole frame the camera spans
    uint32_t row_offset = 0;         // the band's first row in the whole frame
    uint32_t pixel_count = 0;  // width * height
    uint32_t ray_count = 0;    // tiles_x * tiles_y * 32 (whole warps)
    uint32_t tile_shift = 3;   // log2(tile_w)
    uint32_t tiles_x = 0;      // tiles per image row
    int max_depth = 1;         // bounces at most (settings.h trace_levels); the primary ray's is 0
    bool path = false;         // the path integrator (else Whitted's): with_variant picks the code
    uint32_t seed = 0;         // path: the random numbers' seed (render/rng.h)
    SamplerLayout sampler;     // path: where its numbers come from (render/sampler.h)
    bool ray_tree = false;     // Whitted with glass: rays split, and `tree` holds the deferred ones
    RayTree tree;
    KillPattern kill;          // --kill: rays killed to a schedule (render/kill.h)
    uint32_t sample = 0;       // current sample; sample 0 clears the radiance
    float sample_dx = 0.5f, sample_dy = 0.5f;  // sub-pixel position of this sample
    uint32_t spp = 1;          // samples this frame adds
    uint32_t sample_begin = 0; // the first of them (RenderSettings::sample_begin)
    float inv_spp = 1.0f;      // 1 / (sample_begin + spp): the running sum's weight
    float exposure_scale = 1.0f;  // 2^exposure, applied to the 8-bit output only
    const float* srgb_thresholds = nullptr;  // 255 linear values, see render/srgb.h
    uint32_t* out_rgba = nullptr;            // one packed RGBA8 word per pixel
    // Where resolve adds up the pixels' dropped non-finite samples (FrameStats::
    // nonfinite_samples), in the executor's memory; none: not counted.
    unsigned long long* nonfinite = nullptr;
};

// Frame size in rays for a width x height image with tiles tile_w pixels wide.
struct FrameGeometry {
    uint32_t tile_shift, tiles_x, tiles_y, ray_count;
};
inline FrameGeometry frame_geometry(uint32_t width, uint32_t height, uint32_t tile_w) {
    FrameGeometry g{};
    while ((1u << g.tile_shift) < tile_w) ++g.tile_shift;
    const uint32_t tw = 1u << g.tile_shift, th = 32u >> g.tile_shift;
    g.tiles_x = (width + tw - 1) / tw;
    g.tiles_y = (height + th - 1) / th;
    g.ray_count = g.tiles_x * g.tiles_y * 32u;
    return g;
}
inline void set_geometry(FrameContext& f, uint32_t width, uint32_t height, uint32_t tile_w) {
    const FrameGeometry g = frame_geometry(width, height, tile_w);
    f.width = width;
    f.height = height;
    f.full_height = height;
    f.row_offset = 0;
    f.pixel_count = width * height;
    f.ray_count = g.ray_count;
    f.tile_shift = g.tile_shift;
    f.tiles_x = g.tiles_x;
}

// A band of a width x full_height frame (RenderSettings::band_y/band_h): the rays and
// pixels of its rows only, with the camera still spanning the whole frame.
inline void set_band_geometry(FrameContext& f, uint32_t width, uint32_t full_height, uint32_t band_y,
                              uint32_t band_h, uint32_t tile_w) {
    set_geometry(f, width, band_h ? band_h : full_height, tile_w);
    f.full_height = full_height;
    f.row_offset = band_h ? band_y : 0;
}

// Ray -> pixel; false for a pad lane (its pixel is outside the image).
SRT_HD_INLINE bool ray_to_pixel(const FrameContext& f, uint32_t i, uint32_t& x, uint32_t& y) {
    const uint32_t w = i >> 5, l = i & 31u;
    const uint32_t tw = 1u << f.tile_shift;
    x = (w % f.tiles_x) * tw + (l & (tw - 1u));
    y = (w / f.tiles_x) * (32u >> f.tile_shift) + (l >> f.tile_shift);
    return x < f.width && y < f.height;
}

// Pixel -> ray, the inverse of ray_to_pixel.
SRT_HD_INLINE uint32_t pixel_to_ray(const FrameContext& f, uint32_t x, uint32_t y) {
    const uint32_t tw = 1u << f.tile_shift, th = 32u >> f.tile_shift;
    const uint32_t w = (y / th) * f.tiles_x + (x >> f.tile_shift);
    return (w << 5) | ((y % th) << f.tile_shift) | (x & (tw - 1u));
}

}  // namespace srt
