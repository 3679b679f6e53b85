// bsdf.h - what a surface does with light under the path integrator: the material model
// every loader maps to (docs/scene-format.md, "Materials"), as functions to evaluate, to
// sample and to give the density of, the same float arithmetic on the CPU and the GPU.
// Its pieces (Fresnel, GGX, Walter's dielectric) are in render/microfacet.h.
//
// A surface is one of three models:
//   - up to two lobes that add, as Whitted's model adds its terms:
//       diffuse   Lambertian, reflectance kd x colour (x texture);
//       specular  a conductor of reflectance kr at normal incidence: a perfect mirror when
//                 alpha is 0, else GGX microfacets of roughness alpha with height-correlated
//                 masking and Schlick's Fresnel, sampled by their visible normals (Heitz
//                 2018); below alpha 1e-3 the microfacets' limit, a mirror of Schlick's F
//                 (kGgxSmoothAlpha);
//   - glTF 2.0's metallic-roughness BRDF, as its Appendix B defines it (layer_f0 >= 0): a
//     metal (a GGX conductor of F0 = base colour) and a dielectric (GGX specular of F0 =
//     layer_f0 over a Lambertian base, mixed by Schlick's Fresnel at wo.h) mixed by
//     `metallic`; the loader folds the mix into diffuse = (1 - metallic) base and
//     specular = mix(layer_f0, base, metallic), Schlick's F being linear in F0. Masking
//     is the specification's separable Smith. The dielectric's mix takes light from the
//     base by the Fresnel at wo.h, not by the layer's albedo at wo, so where wo grazes it
//     gives back more than arrives: a white base returns 1.03 at 60 degrees from the
//     normal, 1.35 at 80 and 1.77 at 88 when smooth, less when rough (measured in
//     tests/test_bsdf_microfacet.cpp). The specification's model, kept so that assets
//     render as its viewers show them;
//   - a dielectric (glass, water: eta > 0): smooth, it reflects with the exact Fresnel
//     reflectance and refracts by Snell's law otherwise, totally reflecting past the
//     critical angle; rough (alpha >= 1e-3), it is Walter et al.'s GGX dielectric.
//
// Directions are in the shading frame (render/sampling.h Frame): +z is the shading normal,
// which faces the incoming ray, so wo.z > 0 for the direction back along it; wi is where
// light comes from. "Weight" is f |cos(theta_i)| / pdf, what a path's throughput is
// multiplied by.
#pragma once

#include "core/hd.h"
#include "render/microfacet.h"
#include "render/sampling.h"

#include <glm/glm.hpp>

namespace srt {

struct BsdfParams {
    glm::vec3 diffuse{0.0f};   // Lambertian reflectance
    glm::vec3 specular{0.0f};  // conductor reflectance at normal incidence (F0)
    float alpha = 0.0f;        // GGX roughness (the microfacets' slope scale); 0 = a perfect mirror
    float eta = 0.0f;          // > 0: a dielectric, n on the far side / n on this side
    float layer_f0 = -1.0f;    // >= 0: glTF's BRDF, the F0 of the dielectric layer over the diffuse base
};

struct BsdfSample {
    glm::vec3 wi{0.0f};
    glm::vec3 weight{0.0f};  // f |cos| / pdf; for a delta lobe, its reflectance / the lobe's probability
    float pdf = 0.0f;        // per unit solid angle, over every non-delta lobe; 0 for a delta lobe
    bool delta = false;      // a mirror or a smooth dielectric: no light sample could have found wi
    bool transmitted = false;
    bool valid = false;      // false: the path ends here (absorbed, or below the surface)
};

// glTF's BRDF of base colour `base`, `metallic`, GGX alpha and dielectric F0, folded: the
// base under the dielectric layer is what is not metal, and the specular lobe's F0 is the
// mix of the dielectric's and the metal's (the base colour).
SRT_HD_INLINE BsdfParams gltf_bsdf(const glm::vec3& base, float metallic, float alpha, float f0) {
    BsdfParams b;
    b.diffuse = base * (1.0f - metallic);
    b.specular = glm::vec3(f0) + (base - glm::vec3(f0)) * metallic;
    b.layer_f0 = f0;
    // Never a delta lobe: glTF's roughness 0 is GGX's smoothest that float can hold.
    b.alpha = fmaxf(alpha, kGgxSmoothAlpha);
    return b;
}

SRT_HD_INLINE bool is_dielectric(const BsdfParams& b) { return b.eta > 0.0f; }
SRT_HD_INLINE bool is_gltf(const BsdfParams& b) { return b.layer_f0 >= 0.0f; }

// An index-matched interface (eta 1) refracts straight through however rough it is: its
// generalised half vector is undefined, and it is the smooth dielectric's delta lobe.
SRT_HD_INLINE bool is_rough_dielectric(const BsdfParams& b) {
    return is_dielectric(b) && ggx_is_rough(b.alpha) && b.eta != 1.0f;
}

// kExtended, in the functions below: whether the lobes beyond Whitted's (glTF's, rough
// glass) are compiled in. Kernels of scenes without them (accel/variant.h kMaterials)
// pass false and hold none of their code; for those scenes the answers are the same.
template <bool kExtended>
SRT_HD_INLINE bool has_gltf(const BsdfParams& b) { return kExtended && is_gltf(b); }
template <bool kExtended>
SRT_HD_INLINE bool has_rough_dielectric(const BsdfParams& b) { return kExtended && is_rough_dielectric(b); }

// Whether the BSDF has a lobe that a light sample can find (not only delta lobes), and so
// takes next-event estimation.
template <bool kExtended = true>
SRT_HD_INLINE bool has_density(const BsdfParams& b) {
    if (is_dielectric(b)) return has_rough_dielectric<kExtended>(b);
    return luminance(b.diffuse) > 0.0f || (ggx_is_rough(b.alpha) && luminance(b.specular) > 0.0f);
}

// The lobes beyond Whitted's (glTF's, rough glass) are calls, never inlined, their
// arguments by value: the path kernels are bound by fetching instructions, and their code
// inlined at every call site made every path vertex longer, in scenes without them too
// (docs/performance.md, "glTF's BRDF and rough glass").

// glTF's share of samples for the specular lobe: its Fresnel at normal-to-wo microfacets
// against what the dielectric layer leaves the base.
SRT_HD_NOINLINE float gltf_specular_probability(BsdfParams b, float cos_o) {
    const float s = luminance(fresnel_schlick(b.specular, cos_o));
    const float d = luminance(b.diffuse) * (1.0f - fresnel_schlick(glm::vec3(b.layer_f0), cos_o).x);
    return s + d > 0.0f ? s / (s + d) : 0.0f;
}

// How often sampling picks the specular lobe: in proportion to the lobes' reflectances.
template <bool kExtended = true>
SRT_HD_INLINE float specular_probability(const BsdfParams& b, float cos_o) {
    if (has_gltf<kExtended>(b)) return gltf_specular_probability(b, cos_o);
    const float s = luminance(b.specular), d = luminance(b.diffuse);
    return s + d > 0.0f ? s / (s + d) : 0.0f;
}

// glTF 2.0's f (Appendix B), with the mix folded as BsdfParams says: the base's share is
// what the dielectric layer's Fresnel at wo.h leaves, the specular lobe's is Schlick's F
// of the mixed F0.
SRT_HD_NOINLINE glm::vec3 gltf_eval(BsdfParams b, glm::vec3 wo, glm::vec3 wi) {
    const glm::vec3 hs = wo + wi;
    const float len2 = glm::dot(hs, hs);
    if (!(len2 > 0.0f)) return glm::vec3(0.0f);
    const glm::vec3 h = hs * (1.0f / sqrtf(len2));
    const float oh = glm::dot(wo, h);
    const float base = 1.0f - fresnel_schlick(glm::vec3(b.layer_f0), oh).x;
    return b.diffuse * (base * kInvPi) + fresnel_schlick(b.specular, oh) * ggx_separable_vd(wo, wi, h, b.alpha);
}

// f of the non-delta lobes (a smooth dielectric and a perfect mirror have none).
template <bool kExtended = true>
SRT_HD_INLINE glm::vec3 bsdf_eval(const BsdfParams& b, const glm::vec3& wo, const glm::vec3& wi) {
    if (is_dielectric(b))
        return has_rough_dielectric<kExtended>(b) ? glm::vec3(rough_dielectric_value(wo, wi, b.eta, b.alpha).f) : glm::vec3(0.0f);
    if (!(wo.z > 0.0f) || !(wi.z > 0.0f)) return glm::vec3(0.0f);
    if (has_gltf<kExtended>(b)) return gltf_eval(b, wo, wi);
    glm::vec3 f = b.diffuse * kInvPi;
    if (ggx_is_rough(b.alpha)) f += ggx_eval(b.specular, wo, wi, b.alpha);
    return f;
}

// The density bsdf_sample draws a non-delta wi with, over its lobes.
template <bool kExtended = true>
SRT_HD_INLINE float bsdf_pdf(const BsdfParams& b, const glm::vec3& wo, const glm::vec3& wi) {
    if (is_dielectric(b)) return has_rough_dielectric<kExtended>(b) ? rough_dielectric_value(wo, wi, b.eta, b.alpha).pdf : 0.0f;
    if (!(wo.z > 0.0f) || !(wi.z > 0.0f)) return 0.0f;
    const float ps = specular_probability<kExtended>(b, wo.z);
    float pdf = (1.0f - ps) * cosine_hemisphere_pdf(wi.z);
    if (ggx_is_rough(b.alpha)) pdf += ps * ggx_reflection_pdf(wo, wi, b.alpha);
    return pdf;
}

// The smooth dielectric: reflection with probability F, refraction otherwise, the weight
// 1 either way. Radiance is not scaled by eta^2 on refraction (render/microfacet.h).
SRT_HD_INLINE BsdfSample smooth_dielectric_sample(const BsdfParams& b, const glm::vec3& wo, float u0) {
    BsdfSample s;
    s.delta = true;
    s.weight = glm::vec3(1.0f);
    s.valid = true;
    if (u0 < fresnel_dielectric(wo.z, b.eta) || !refract_local(wo, b.eta, s.wi)) {
        s.wi = glm::vec3(-wo.x, -wo.y, wo.z);
    } else {
        s.transmitted = true;
    }
    return s;
}

// The rough dielectric: a visible microfacet normal, then reflection about it with
// Fresnel's probability at wo.h and refraction through it otherwise (Walter et al. 2007,
// with Heitz 2018's visible normals). A direction that lands on the wrong side of the
// surface is absorbed, as the density leaves it out.
SRT_HD_NOINLINE BsdfSample rough_dielectric_sample(BsdfParams b, glm::vec3 wo, float u0, float u1, float u2) {
    BsdfSample s;
    const glm::vec3 h = ggx_sample_visible_normal(wo, b.alpha, u1, u2);
    const float oh = glm::dot(wo, h);
    if (!(oh > 0.0f)) return s;
    if (u0 < fresnel_dielectric(oh, b.eta) || !refract_about(wo, h, b.eta, s.wi)) {
        s.wi = h * (2.0f * oh) - wo;
        if (!(s.wi.z > 0.0f)) return s;
    } else {
        if (!(s.wi.z < 0.0f)) return s;
        s.transmitted = true;
    }
    const MicrofacetValue v = rough_dielectric_value(wo, s.wi, b.eta, b.alpha);
    if (!(v.pdf > 0.0f)) return s;
    s.pdf = v.pdf;
    s.weight = glm::vec3(v.f * (fabsf(s.wi.z) / v.pdf));
    s.valid = true;
    return s;
}

// A direction from the surface's lobes: u0 picks the lobe (or, on a dielectric,
// reflection against refraction), u1 and u2 the direction within it.
template <bool kExtended = true>
SRT_HD_INLINE BsdfSample bsdf_sample(const BsdfParams& b, const glm::vec3& wo, float u0, float u1, float u2) {
    BsdfSample s;
    if (!(wo.z > 0.0f)) return s;
    if (is_dielectric(b))
        return has_rough_dielectric<kExtended>(b) ? rough_dielectric_sample(b, wo, u0, u1, u2) : smooth_dielectric_sample(b, wo, u0);
    const float ps = specular_probability<kExtended>(b, wo.z);
    if (!(ps > 0.0f) && !(luminance(b.diffuse) > 0.0f)) return s;  // black: absorbed
    if (u0 < ps) {
        if (!ggx_is_rough(b.alpha)) {
            // A perfect mirror (alpha 0) reflects kr; a GGX lobe too smooth for float
            // reflects what it tends to as alpha goes to 0, Schlick's F at wo.z (its G is 1).
            s.wi = glm::vec3(-wo.x, -wo.y, wo.z);
            s.weight = (b.alpha > 0.0f ? fresnel_schlick(b.specular, wo.z) : b.specular) * (1.0f / ps);
            s.delta = true;
            s.valid = true;
            return s;
        }
        const glm::vec3 h = ggx_sample_visible_normal(wo, b.alpha, u1, u2);
        s.wi = h * (2.0f * glm::dot(wo, h)) - wo;
    } else {
        s.wi = sample_cosine_hemisphere(u1, u2);
    }
    if (!(s.wi.z > 0.0f)) return s;  // reflected below the surface: the microsurface absorbs it
    s.pdf = bsdf_pdf<kExtended>(b, wo, s.wi);
    if (!(s.pdf > 0.0f)) return s;
    s.weight = bsdf_eval<kExtended>(b, wo, s.wi) * (s.wi.z / s.pdf);
    s.valid = true;
    return s;
}

}  // namespace srt
