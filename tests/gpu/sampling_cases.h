// sampling_cases.h - the inputs both sides of Gpu.SamplingArithmeticIsBitIdentical
// evaluate: the random numbers, the portable functions and every BSDF's sample, eval and pdf over a fixed
// set of arguments, each result a float in one flat array. Included by the device side
// (test_sampling_bits.cu) and the host side (sampling_bits_host.cpp, built with the CPU
// executor's flags), so both compute exactly the same list.
#pragma once

#include "render/bsdf.h"
#include "render/rng.h"
#include "render/sampler.h"
#include "render/sampling.h"

#include <cstdint>

namespace srt::test {

constexpr uint32_t kSamplingCases = 4096;
constexpr uint32_t kFloatsPerCase = 47;

// A uniform number from a case index (pcg_hash: the same integers on both sides).
SRT_HD_INLINE float case_uniform(uint32_t v) {
    const uint32_t s = v * 747796405u + 2891336453u;
    const uint32_t w = ((s >> ((s >> 28u) + 4u)) ^ s) * 277803737u;
    return float(((w >> 22u) ^ w) >> 8) * (1.0f / 16777216.0f);
}

SRT_HD_INLINE BsdfParams case_bsdf(uint32_t k) {
    BsdfParams b;
    switch (k % 7u) {
        case 0: b.diffuse = glm::vec3(0.7f, 0.5f, 0.3f); break;
        case 1: b.specular = glm::vec3(0.9f, 0.8f, 0.6f); b.alpha = 0.05f + 0.9f * case_uniform(k * 7u); break;
        case 2: b.diffuse = glm::vec3(0.4f); b.specular = glm::vec3(0.5f); b.alpha = 0.3f; break;
        case 3: b.diffuse = glm::vec3(0.3f); b.specular = glm::vec3(0.6f); break;  // a mirror over a diffuse base
        case 4: b.eta = case_uniform(k * 7u) < 0.5f ? 1.5f : 1.0f / 1.5f; break;
        case 5:  // glTF's BRDF, metallic from 0 to 1
            b = gltf_bsdf(glm::vec3(0.9f, 0.6f, 0.3f), case_uniform(k * 5u), 0.02f + 0.9f * case_uniform(k * 7u), 0.04f);
            break;
        default:  // rough glass from either side
            b.eta = case_uniform(k * 5u) < 0.5f ? 1.5f : 1.0f / 1.5f;
            b.alpha = 0.01f + 0.9f * case_uniform(k * 7u);
            break;
    }
    return b;
}

// Case k's results into out[0 .. kFloatsPerCase).
SRT_HD_INLINE void sampling_case(uint32_t k, float* out) {
    const float u0 = case_uniform(8u * k), u1 = case_uniform(8u * k + 1u), u2 = case_uniform(8u * k + 2u);
    const float u3 = case_uniform(8u * k + 3u), u4 = case_uniform(8u * k + 4u);
    float s, c;
    sincos_turns(u0, s, c);
    out[0] = s;
    out[1] = c;
    out[2] = exp_portable(-80.0f * u1);
    out[3] = fresnel_dielectric(u2, 0.5f + 2.0f * u3);
    const glm::vec3 n = sample_uniform_sphere(u3, u4);
    const Frame f = Frame::around(n);
    out[4] = f.t.x; out[5] = f.t.y; out[6] = f.t.z;
    out[7] = f.b.x; out[8] = f.b.y; out[9] = f.b.z;
    const glm::vec3 h = sample_cosine_hemisphere(u1, u2);
    out[10] = h.x; out[11] = h.y; out[12] = h.z;
    // The BSDF at an outgoing direction from the upper hemisphere.
    const glm::vec3 wo = sample_cosine_hemisphere(u3, u4);
    const BsdfParams b = case_bsdf(k);
    const BsdfSample bs = bsdf_sample(b, wo, u0, u1, u2);
    out[13] = bs.wi.x; out[14] = bs.wi.y; out[15] = bs.wi.z;
    out[16] = bs.weight.x; out[17] = bs.weight.y; out[18] = bs.weight.z;
    out[19] = bs.pdf;
    out[20] = float((bs.valid ? 1 : 0) | (bs.delta ? 2 : 0) | (bs.transmitted ? 4 : 0));
    const glm::vec3 fe = bsdf_eval(b, wo, h);
    out[21] = fe.x; out[22] = fe.y; out[23] = fe.z;
    out[24] = bsdf_pdf(b, wo, h);
    const glm::vec3 vn = ggx_sample_visible_normal(wo, 0.05f + 0.9f * u2, u0, u1);
    out[25] = vn.x; out[26] = vn.y; out[27] = vn.z;
    const glm::vec2 bary = sample_triangle(u1, u4);
    out[28] = bary.x; out[29] = bary.y;
    out[30] = power_heuristic(u0, u1);
    out[31] = ggx_reflection_pdf(wo, h, 0.3f);
    const glm::vec4 r = rng_uniform4(RngKey{k * 2654435761u, k & 63u, k % 17u, 9u}, k % 5u);
    out[32] = r.x; out[33] = r.y; out[34] = r.z; out[35] = r.w;
    // The scrambled samplers: sobol, and zsobol laid out for 1920x1080 at 16 samples.
    const RngKey key{k * 2654435761u, k & 15u, k % 17u, 9u, morton2(k % 1920u, (k * 7u) % 1080u)};
    const SamplerLayout sobol{SamplerKind::Sobol, 0u, 0u}, zsobol{SamplerKind::ZSobol, 4u, 13u};
    const glm::vec4 q = sample_uniform4(sobol, key, k & 1u), z = sample_uniform4(zsobol, key, k & 1u);
    out[36] = q.x; out[37] = q.y; out[38] = q.z; out[39] = q.w;
    out[40] = z.x; out[41] = z.y; out[42] = z.z; out[43] = z.w;
    // The BSDF towards the lower hemisphere: rough glass's transmission.
    const glm::vec3 fl = bsdf_eval(b, wo, -h);
    out[44] = fl.x; out[45] = fl.y;
    out[46] = bsdf_pdf(b, wo, -h);
}

// Host side (sampling_bits_host.cpp): every case into out[kSamplingCases * kFloatsPerCase].
void sampling_cases_host(float* out);

}  // namespace srt::test

#include "render/lights.h"

namespace srt::test {

constexpr uint32_t kLightCases = 4096;
constexpr uint32_t kFloatsPerLightCase = 16;

// Light case k against a compiled scene's light table: a shading point near the lights and
// three numbers, the sample's direction, distance, radiance, pdf and flags; and the
// environment map's density and radiance.
SRT_HD_INLINE void light_case(const SceneView& s, uint32_t k, float* out) {
    const glm::vec3 o(4.0f * case_uniform(9u * k) - 2.0f, 4.0f * case_uniform(9u * k + 1u) - 2.0f,
                      4.0f * case_uniform(9u * k + 2u) - 2.0f);
    const LightSample ls =
        sample_light(s, o, case_uniform(9u * k + 3u), case_uniform(9u * k + 4u), case_uniform(9u * k + 5u));
    out[0] = ls.wi.x; out[1] = ls.wi.y; out[2] = ls.wi.z;
    out[3] = ls.dist;
    out[4] = ls.radiance.x; out[5] = ls.radiance.y; out[6] = ls.radiance.z;
    out[7] = ls.pdf;
    out[8] = float((ls.valid ? 1 : 0) | (ls.delta ? 2 : 0));
    out[9] = float(pick_light(s, case_uniform(9u * k + 6u)));
    out[10] = s.emitter_count ? emitter_pdf(s, k % s.emitter_count, ls.wi, ls.dist + 1.0f, glm::vec3(0.0f, -1.0f, 0.0f)) : 0.0f;
    // The environment map: the density of the sample's direction, the radiance along the
    // direction of o, and the portable atan2 it rests on.
    const bool env = s.env.texels != nullptr;
    const glm::vec3 d = glm::dot(o, o) > 0.0f ? glm::normalize(o) : glm::vec3(0.0f, 1.0f, 0.0f);
    const glm::vec3 l = env ? env_radiance(s.env, d) : glm::vec3(0.0f);
    out[11] = env ? env_pdf(s.env, ls.wi) : 0.0f;
    out[12] = l.x; out[13] = l.y; out[14] = l.z;
    out[15] = atan2_turns(o.z, o.x);
}

// Host side: every light case into out[kLightCases * kFloatsPerLightCase].
void light_cases_host(const SceneView& s, float* out);

}  // namespace srt::test
