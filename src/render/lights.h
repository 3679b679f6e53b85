// lights.h - light sampling for the path integrator: picking a light in proportion to its
// power (render/light_table.cpp), a point on it (or a direction towards the environment
// map, render/environment.h), and the density of that choice per unit
// solid angle at the shading point, which multiple importance sampling weighs against the
// BSDF's. The same float arithmetic on the CPU and the GPU.
//
// A physical point light falls off with the square of the distance (intensity I gives
// I / d^2); a classic light (scene/integrator.h LightModel) sends radiance pi * L from any
// distance, so that a Lambertian surface reflects what Whitted's Lambert term gives it.
#pragma once

#include "accel/prim_hits.h"
#include "accel/scene_view.h"
#include "accel/traversal_common.h"
#include "core/hd.h"
#include "render/environment.h"
#include "render/sampling.h"

#include <glm/glm.hpp>

namespace srt {

struct LightSample {
    glm::vec3 wi{0.0f};        // unit direction from the shading point towards the light
    float dist = 0.0f;         // how far a shadow ray runs (3e38 for a directional light or the environment)
    glm::vec3 radiance{0.0f};  // what arrives along wi if nothing is in the way: Le, or I / d^2, or E
    float pdf = 0.0f;          // per unit solid angle; for a point or directional light, the pick's probability
    bool delta = false;        // a point or directional light: no BSDF sample can find it
    bool valid = false;
};

// How many slots the light table holds: the lights, the emitters, and the environment
// map where it is sampled.
SRT_HD_INLINE uint32_t light_slots(const SceneView& s) {
    return s.light_count + s.emitter_count + (s.env.light != kNoEmitter ? 1u : 0u);
}

// The light slot that the uniform number u in [0, 1) picks: the last k with cdf[k] <= u.
SRT_HD_INLINE uint32_t pick_light(const SceneView& s, float u) { return cdf_bucket(s.light_cdf, light_slots(s), u); }

// An emitter's point for (u1, u2), its outward (front) unit normal, and where its
// emission texture is read there: a triangle's barycentrics of v1 and v2 (`b`; a sphere's
// texture reads at its normal).
SRT_HD_INLINE void emitter_point(const EmitterGpu& e, float u1, float u2, glm::vec3& p, glm::vec3& n, glm::vec2& b) {
    const glm::vec3 p0(e.p0.x, e.p0.y, e.p0.z);
    if (float_bits(e.e2.w) == kEmitterSphere) {
        n = sample_uniform_sphere(u1, u2);
        p = p0 + n * e.e1.x;
        return;
    }
    const glm::vec3 e1(e.e1.x, e.e1.y, e.e1.z), e2(e.e2.x, e.e2.y, e.e2.z);
    b = sample_triangle(u1, u2);
    p = p0 + e1 * b.x + e2 * b.y;
    n = glm::normalize(glm::cross(e1, e2));
}

// What emitter e's emission texture multiplies its emission by at a point emitter_point
// gave (normal n, barycentrics b): a sphere's texture is read at its normal, a
// triangle's at its coordinates; 1 without a texture. Light samples and the light
// table's power read it alike.
SRT_HD_INLINE glm::vec3 emitter_texture(const SceneView& s, const EmitterGpu& e, const glm::vec3& n, const glm::vec2& b) {
    const uint32_t prim = float_bits(e.p0.w);
    const uint32_t material = float_bits(load_f4(&s.prims[prim].p0).w) & kPrimMaterialMask;
    const uint32_t tex = emission_texture_of(s, material);
    if (tex == 0u) return glm::vec3(1.0f);
    return emission_texture_at(s, tex, float_bits(e.e2.w) == kEmitterSphere ? sphere_uv(n) : triangle_uv(s, prim, b.x, b.y));
}

// Solid-angle density of sampling emitter k's point seen from `o` at distance `dist` along
// `wi`, where its normal is `n`: pick probability x (1 / area) x dist^2 / |cos| at the light.
// Never a NaN, which MIS would pass on to the pixel: 0 where no light sample finds the
// point (seen edge-on, cos x area underflowing to 0 at a grazing angle, or an emitter
// never picked, whose 0 x an overflowed dist^2 would be 0 x inf); else the quotient,
// infinite where dist^2 overflows (MIS then gives the BSDF sample its whole weight).
SRT_HD_INLINE float emitter_pdf(const SceneView& s, uint32_t k, const glm::vec3& wi, float dist, const glm::vec3& n) {
    const float cos_l = fabsf(glm::dot(n, wi));
    const float pmf = s.light_pmf[s.light_count + k], den = cos_l * s.emitters[k].e1.w;
    if (!(den > 0.0f) || !(pmf > 0.0f)) return 0.0f;
    return pmf * (dist * dist) / den;
}

// What emitter k sends along -wi from a point whose unit normal is n (front: n . -wi > 0).
SRT_HD_INLINE glm::vec3 emitter_radiance(const EmitterGpu& e, const glm::vec3& wi, const glm::vec3& n) {
    const bool front = glm::dot(n, wi) < 0.0f;
    if (!front && e.radiance.w == 0.0f) return glm::vec3(0.0f);
    return glm::vec3(e.radiance.x, e.radiance.y, e.radiance.z);
}

// A light sample for the shading point o from three uniform numbers: u0 picks the light,
// (u1, u2) the point on it. kExtended: whether emitters may have emission textures (the
// extended materials' kernels, accel/variant.h kMaterials).
template <bool kExtended = true>
SRT_HD_INLINE LightSample sample_light(const SceneView& s, const glm::vec3& o, float u0, float u1, float u2) {
    LightSample ls;
    if (s.light_cdf == nullptr) return ls;
    const uint32_t k = pick_light(s, u0);
    const float pmf = s.light_pmf[k];
    if (!(pmf > 0.0f)) return ls;
    if (k < s.light_count) {
        const f4 pd = load_f4(&s.lights[k].pos_or_dir);
        const f4 c = load_f4(&s.lights[k].colour);
        ls.delta = true;
        ls.pdf = pmf;
        const bool classic = c.w == 0.0f;
        if (pd.w != 0.0f) {  // point: I / d^2, or classic pi * L
            const glm::vec3 d = glm::vec3(pd.x, pd.y, pd.z) - o;
            const float d2 = glm::dot(d, d);
            if (!(d2 > 0.0f)) return ls;
            ls.dist = sqrtf(d2);
            ls.wi = d * (1.0f / ls.dist);
            ls.radiance = glm::vec3(c.x, c.y, c.z) * (classic ? kPi : 1.0f / d2);
        } else {  // directional: pos_or_dir is the unit direction towards the light
            ls.wi = glm::vec3(pd.x, pd.y, pd.z);
            ls.dist = 3.0e38f;
            ls.radiance = glm::vec3(c.x, c.y, c.z) * (classic ? kPi : 1.0f);
        }
        ls.valid = true;
        return ls;
    }
    if (k == s.env.light) {  // the environment map, at infinity
        const EnvSample es = sample_env(s.env, u1, u2);
        ls.wi = es.wi;
        ls.dist = 3.0e38f;
        ls.radiance = es.radiance;
        ls.pdf = pmf * es.pdf;
        ls.valid = ls.pdf > 0.0f && (ls.radiance.x > 0.0f || ls.radiance.y > 0.0f || ls.radiance.z > 0.0f);
        return ls;
    }
    const uint32_t e = k - s.light_count;
    glm::vec3 p, n;
    glm::vec2 b(0.0f);
    emitter_point(s.emitters[e], u1, u2, p, n, b);
    const glm::vec3 d = p - o;
    const float d2 = glm::dot(d, d);
    if (!(d2 > 0.0f)) return ls;
    ls.dist = sqrtf(d2);
    ls.wi = d * (1.0f / ls.dist);
    ls.radiance = emitter_radiance(s.emitters[e], ls.wi, n);
    if constexpr (kExtended) {
        if (s.textures != nullptr) ls.radiance = ls.radiance * emitter_texture(s, s.emitters[e], n, b);
    }
    ls.pdf = emitter_pdf(s, e, ls.wi, ls.dist, n);
    ls.valid = ls.pdf > 0.0f && (ls.radiance.x > 0.0f || ls.radiance.y > 0.0f || ls.radiance.z > 0.0f);
    return ls;
}

}  // namespace srt
