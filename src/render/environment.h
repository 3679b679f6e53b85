// environment.h - the environment map: radiance from every direction at infinity, read
// from an equirectangular image (accel/scene_view.h EnvironmentView), and the sampling of
// it that the path integrator's light samples use. The same float arithmetic on the CPU
// and the GPU (render/sampling.h's trigonometry), so a map lights both alike to the bit.
//
// The convention is Blender's for a world texture, with Blender's Z-up turned Y-up as its
// glTF export turns it, so an HDRI looks here as it does there. For a unit direction l in
// the map's frame (the world's, turned back by the map's rotation about +Y):
//   u = 1/2 + atan2(l.z, l.x) / 2 pi   (u = 1/2 looks along +X, 3/4 along +Z, 1/4 along -Z)
//   v = acos(l.y) / pi                 (v = 0 straight up, at the image's top row)
// and the radiance is the texels' bilinear interpolation at (u, v), texel centres at
// ((i + 1/2) / W, (j + 1/2) / H), repeating in u and clamped in v, as Cycles' "Linear"
// environment texture reads it.
//
// Sampling: the map compiler (render/environment_table.cpp) gives each texel's cell the
// power the bilinear radiance brings through it (its luminance averaged over the cell,
// times the cell's solid angle); a sample picks a row, then a column, each from its cdf,
// then a point uniform in the cell's (u, v). Its density per unit solid angle is
//   p(u, v) / (2 pi^2 sin theta),   p(u, v) = pmf(row) pmf(column | row) W H.
// The bilinear radiance in a cell depends on the neighbouring texels, and the cell's
// weight does too, so wherever the map is not black its density is not 0.
#pragma once

#include "accel/prim_hits.h"
#include "accel/scene_view.h"
#include "core/hd.h"
#include "render/sampling.h"

#include <glm/glm.hpp>

namespace srt {

// The last k in [0, n) with cdf[k] <= u (cdf[0] = 0): the bucket of u in a cdf whose
// k-th bucket is [cdf[k], cdf[k + 1]). A bucket of width 0 is never the answer.
SRT_HD_INLINE uint32_t cdf_bucket(const float* cdf, uint32_t n, float u) {
    uint32_t lo = 0, hi = n;  // the answer is in [lo, hi)
    while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) >> 1;
        if (cdf[mid] <= u) lo = mid;
        else hi = mid;
    }
    return lo;
}

// The width of bucket k of an n-bucket cdf (the last ends at 1): its probability.
SRT_HD_INLINE float cdf_width(const float* cdf, uint32_t n, uint32_t k) {
    return (k + 1 < n ? cdf[k + 1] : 1.0f) - cdf[k];
}

// A world direction in the map's frame, and back: the map turned by its rotation about +Y.
SRT_HD_INLINE glm::vec3 env_to_map(const EnvironmentView& e, const glm::vec3& d) {
    return glm::vec3(d.x * e.cos_rot - d.z * e.sin_rot, d.y, d.x * e.sin_rot + d.z * e.cos_rot);
}
SRT_HD_INLINE glm::vec3 env_to_world(const EnvironmentView& e, const glm::vec3& l) {
    return glm::vec3(l.x * e.cos_rot + l.z * e.sin_rot, l.y, l.z * e.cos_rot - l.x * e.sin_rot);
}

// sin(theta) of a unit direction in the map's frame: from its x and z, which hold it to a
// few ulps near the poles, where 1 - y^2 has lost it to y's rounding.
SRT_HD_INLINE float env_sin_theta(const glm::vec3& l) { return sqrtf(l.x * l.x + l.z * l.z); }

// (u, v) of a unit direction in the map's frame, each in [0, 1].
SRT_HD_INLINE glm::vec2 env_uv(const glm::vec3& l) {
    const float u = 0.5f + atan2_turns(l.z, l.x);
    return glm::vec2(u, 2.0f * atan2_turns(env_sin_theta(l), l.y));
}

SRT_HD_INLINE glm::vec3 env_texel(const EnvironmentView& e, uint32_t i, uint32_t j) {
    const f4 t = load_f4(&e.texels[size_t(j) * e.width + i]);
    return glm::vec3(t.x, t.y, t.z);
}

// The bilinear radiance at (u, v): columns repeat, rows clamp.
SRT_HD_INLINE glm::vec3 env_lookup(const EnvironmentView& e, const glm::vec2& uv) {
    const float x = uv.x * float(e.width) - 0.5f, y = uv.y * float(e.height) - 0.5f;
    const float x0 = floorf(x), y0 = floorf(y);
    const float fx = x - x0, fy = y - y0;
    const int w = int(e.width), h = int(e.height);
    int i0 = int(x0) % w;
    if (i0 < 0) i0 += w;
    const int i1 = i0 + 1 == w ? 0 : i0 + 1;
    const int j0 = int(y0) < 0 ? 0 : int(y0) >= h ? h - 1 : int(y0);
    const int j1 = int(y0) + 1 < 0 ? 0 : int(y0) + 1 >= h ? h - 1 : int(y0) + 1;
    const glm::vec3 top = env_texel(e, uint32_t(i0), uint32_t(j0)) * (1.0f - fx) + env_texel(e, uint32_t(i1), uint32_t(j0)) * fx;
    const glm::vec3 bottom = env_texel(e, uint32_t(i0), uint32_t(j1)) * (1.0f - fx) + env_texel(e, uint32_t(i1), uint32_t(j1)) * fx;
    return top * (1.0f - fy) + bottom * fy;
}

// The map's radiance along the world direction d (unit). Out of line on the device, as
// are env_pdf and sample_env: the path kernels are bound by fetching instructions
// (docs/performance.md, "The path vertex's instruction budget"), and inlined, the map's
// code sat in every kernel's loop, whether the scene had a map or not. The view is passed
// by value: a reference to a field of the kernel's parameters made the compiler copy the
// whole scene view to local memory to take its address, and every kernel ran 1.3-3x
// slower.
SRT_HD_NOINLINE glm::vec3 env_radiance(EnvironmentView e, glm::vec3 d) {
    return env_lookup(e, env_uv(env_to_map(e, d)));
}

// What a ray that leaves the scene along d sees: the map, or the scene's background.
SRT_HD_INLINE glm::vec3 sky_radiance(const SceneView& s, const glm::vec3& d) {
    return s.env.texels != nullptr ? env_radiance(s.env, d) : s.background;
}

// The density per unit solid angle with which the map's sampling picks the world direction
// d (unit); 0 where it never does (a black cell, the poles), and where the map is not sampled.
SRT_HD_NOINLINE float env_pdf(EnvironmentView e, glm::vec3 d) {
    if (e.row_cdf == nullptr) return 0.0f;
    const glm::vec3 l = env_to_map(e, d);
    const float sin_theta = env_sin_theta(l);
    if (!(sin_theta > 0.0f)) return 0.0f;
    const glm::vec2 uv = env_uv(l);
    const uint32_t i = uint32_t(fminf(uv.x * float(e.width), float(e.width - 1)));
    const uint32_t j = uint32_t(fminf(uv.y * float(e.height), float(e.height - 1)));
    const float p = cdf_width(e.row_cdf, e.height, j) * cdf_width(e.col_cdf + size_t(j) * e.width, e.width, i) *
                    (float(e.width) * float(e.height));
    return p / (2.0f * kPi * kPi * sin_theta);
}

// Where a uniform number u in bucket k of a cdf lies within the bucket, in [0, 1).
SRT_HD_INLINE float cdf_offset(const float* cdf, uint32_t n, uint32_t k, float u) {
    const float w = cdf_width(cdf, n, k);
    const float t = w > 0.0f ? (u - cdf[k]) / w : 0.0f;
    return fminf(fmaxf(t, 0.0f), 0.99999994f);
}

struct EnvSample {
    glm::vec3 wi{0.0f};        // world direction towards the map
    glm::vec3 radiance{0.0f};  // the map's radiance along it
    float pdf = 0.0f;          // per unit solid angle (the map's own sampling, not its pick among lights)
};

// A direction towards the map, from two uniform numbers: a row, a column in it, a point in
// the cell.
SRT_HD_NOINLINE EnvSample sample_env(EnvironmentView e, float u1, float u2) {
    EnvSample es;
    const uint32_t j = cdf_bucket(e.row_cdf, e.height, u1);
    const float* row = e.col_cdf + size_t(j) * e.width;
    const uint32_t i = cdf_bucket(row, e.width, u2);
    const float p = cdf_width(e.row_cdf, e.height, j) * cdf_width(row, e.width, i) * (float(e.width) * float(e.height));
    const glm::vec2 uv((float(i) + cdf_offset(row, e.width, i, u2)) / float(e.width),
                       (float(j) + cdf_offset(e.row_cdf, e.height, j, u1)) / float(e.height));
    float sin_theta, cos_theta, sin_phi, cos_phi;
    sincos_turns(0.5f * uv.y, sin_theta, cos_theta);  // theta = pi v
    sincos_turns(uv.x, sin_phi, cos_phi);             // phi = 2 pi (u - 1/2): both negated
    if (!(sin_theta > 0.0f) || !(p > 0.0f)) return es;
    es.wi = env_to_world(e, glm::vec3(-sin_theta * cos_phi, cos_theta, -sin_theta * sin_phi));
    es.radiance = env_lookup(e, uv);
    es.pdf = p / (2.0f * kPi * kPi * sin_theta);
    return es;
}

}  // namespace srt
