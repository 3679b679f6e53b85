// bsdf.h - what a surface does with light under the path integrator: the material model
// every loader maps to (docs/scene-format.md, "Materials"), as functions to evaluate, to
// sample and to give the density of, the same float arithmetic on the CPU and the GPU.
//
// A surface is up to two lobes that add, as Whitted's model adds its terms:
//   diffuse   Lambertian, reflectance kd x colour (x texture);
//   specular  a conductor of reflectance kr at normal incidence: a perfect mirror when
//             alpha is 0, else Trowbridge-Reitz (GGX) microfacets of roughness alpha, with
//             Schlick's Fresnel, sampled by their visible normals (Heitz 2018); below
//             alpha 1e-3 the microfacets' limit, a mirror of Schlick's F (kGgxSmoothAlpha);
// or it is a smooth dielectric (glass, water: ior > 0), which reflects with the exact
// Fresnel reflectance and refracts by Snell's law otherwise, totally reflecting past the
// critical angle.
//
// Directions are in the shading frame (render/sampling.h Frame): +z is the shading normal,
// which faces the incoming ray, so wo.z > 0 for the direction back along it; wi is where
// light comes from. "Weight" is f cos(theta_i) / pdf, what a path's throughput is
// multiplied by.
#pragma once

#include "core/hd.h"
#include "render/sampling.h"

#include <glm/glm.hpp>

namespace srt {

struct BsdfParams {
    glm::vec3 diffuse{0.0f};   // Lambertian reflectance
    glm::vec3 specular{0.0f};  // conductor reflectance at normal incidence (F0)
    float alpha = 0.0f;        // GGX roughness (the microfacets' slope scale); 0 = a perfect mirror
    float eta = 0.0f;          // > 0: a smooth dielectric, n on the far side / n on this side
};

struct BsdfSample {
    glm::vec3 wi{0.0f};
    glm::vec3 weight{0.0f};  // f cos / pdf; for a delta lobe, its reflectance / the lobe's probability
    float pdf = 0.0f;        // per unit solid angle, over every non-delta lobe; 0 for a delta lobe
    bool delta = false;      // a mirror or a dielectric: no light sample could have found wi
    bool transmitted = false;
    bool valid = false;      // false: the path ends here (absorbed, or below the surface)
};

// ---------------------------------------------------------------------------
// Fresnel
// ---------------------------------------------------------------------------

// Unpolarised Fresnel reflectance of a smooth dielectric interface: cos_i the cosine of
// the angle of incidence, eta = n_t / n_i. 1 under total internal reflection.
SRT_HD_INLINE float fresnel_dielectric(float cos_i, float eta) {
    cos_i = fminf(fmaxf(cos_i, 0.0f), 1.0f);
    const float sin2_t = (1.0f - cos_i * cos_i) / (eta * eta);
    // Written as "not below 1" so that 0 / 0 (normal incidence where eta^2 underflows, an
    // index below 1e-19) reflects rather than making F a NaN.
    if (!(sin2_t < 1.0f)) return 1.0f;
    const float cos_t = sqrtf(1.0f - sin2_t);
    const float r_parallel = (eta * cos_i - cos_t) / (eta * cos_i + cos_t);
    const float r_perpendicular = (cos_i - eta * cos_t) / (cos_i + eta * cos_t);
    return 0.5f * (r_parallel * r_parallel + r_perpendicular * r_perpendicular);
}

// The direction refracted from wo (wo.z > 0, +z the normal on wo's side) into the far
// side, by Snell's law; false under total internal reflection.
SRT_HD_INLINE bool refract_local(const glm::vec3& wo, float eta, glm::vec3& wt) {
    const float sin2_t = (1.0f - wo.z * wo.z) / (eta * eta);
    if (!(sin2_t < 1.0f)) return false;  // (a NaN too: as fresnel_dielectric)
    const float cos_t = sqrtf(1.0f - sin2_t);
    wt = glm::vec3(-wo.x / eta, -wo.y / eta, -cos_t);
    return true;
}

SRT_HD_INLINE glm::vec3 fresnel_schlick(const glm::vec3& f0, float cos_i) {
    const float m = 1.0f - fminf(fmaxf(cos_i, 0.0f), 1.0f);
    const float m5 = (m * m) * (m * m) * m;
    return f0 + (glm::vec3(1.0f) - f0) * m5;
}

// ---------------------------------------------------------------------------
// Trowbridge-Reitz (GGX) microfacets, isotropic
// ---------------------------------------------------------------------------

// Below this alpha a GGX lobe is a delta lobe, as pbrt-v4 treats a Trowbridge-Reitz
// distribution as "effectively smooth": its microfacet normals then lie within a
// thousandth of a radian of the normal, and a half vector rebuilt from wo + wi in float
// (the density and f take it so) keeps too little of its tangential part through the
// rounding for D to be evaluated at it: at alpha 1e-4 (roughness 0.01) D's peak is 3e7,
// and written as alpha^2 / (pi (cos^2 (alpha^2 - 1) + 1)^2), alpha^2 = 1e-8 vanishes
// against 1, the denominator is 0, and f / pdf is inf / inf: NaN pixels.
constexpr float kGgxSmoothAlpha = 1e-3f;
SRT_HD_INLINE bool ggx_is_rough(float alpha) { return alpha >= kGgxSmoothAlpha; }

// The distribution of microfacet normals h (unit, h.z > 0): alpha^2 / (pi k^2) with
// k = cos^2 (alpha^2 + tan^2) = sin^2 + alpha^2 cos^2, the sine from h's own tangential
// components, not 1 - cos^2, which cancels to 0 near the normal. For alpha >= 1e-3,
// k >= ~alpha^2 and D <= 1 / (pi alpha^2): finite.
SRT_HD_INLINE float ggx_d(const glm::vec3& h, float alpha) {
    const float a2 = alpha * alpha;
    const float k = (h.x * h.x + h.y * h.y) + a2 * (h.z * h.z);
    return a2 / (kPi * k * k);
}

// Smith's Lambda for direction w (w.z > 0), times w.z: with s^2 = w.x^2 + w.y^2,
// z Lambda = (sqrt(z^2 + alpha^2 s^2) - z) / 2 = alpha^2 s^2 / (2 (sqrt(z^2 + alpha^2 s^2) + z)),
// free of the cancellation of the first form and of Lambda's division by z^2, which
// overflows at grazing angles; it tends to alpha s / 2 as z goes to 0.
SRT_HD_INLINE float ggx_z_lambda(const glm::vec3& w, float alpha) {
    const float a2_s2 = alpha * alpha * (w.x * w.x + w.y * w.y);
    const float z = fabsf(w.z);
    const float den = sqrtf(z * z + a2_s2) + z;
    return den > 0.0f ? 0.5f * a2_s2 / den : 0.0f;
}

// A microfacet normal visible from wo, by Heitz 2018 ("Sampling the GGX Distribution of
// Visible Normals"): the view stretched to the unit-roughness configuration, a point on
// the projected hemisphere, stretched back.
SRT_HD_INLINE glm::vec3 ggx_sample_visible_normal(const glm::vec3& wo, float alpha, float u1, float u2) {
    const glm::vec3 vh = glm::normalize(glm::vec3(alpha * wo.x, alpha * wo.y, wo.z));
    const float len2 = vh.x * vh.x + vh.y * vh.y;
    const glm::vec3 t1 = len2 > 0.0f ? glm::vec3(-vh.y, vh.x, 0.0f) * (1.0f / sqrtf(len2)) : glm::vec3(1.0f, 0.0f, 0.0f);
    const glm::vec3 t2 = glm::cross(vh, t1);
    const float r = sqrtf(u1);
    float s, c;
    sincos_turns(u2, s, c);
    const float p1 = r * c;
    const float h = 0.5f * (1.0f + vh.z);
    const float p2 = (1.0f - h) * sqrtf(fmaxf(0.0f, 1.0f - p1 * p1)) + h * (r * s);
    const glm::vec3 nh = t1 * p1 + t2 * p2 + vh * sqrtf(fmaxf(0.0f, 1.0f - p1 * p1 - p2 * p2));
    return glm::normalize(glm::vec3(alpha * nh.x, alpha * nh.y, fmaxf(0.0f, nh.z)));
}

// The density of wi = wo reflected about a visible normal, per unit solid angle of wi.
SRT_HD_INLINE float ggx_reflection_pdf(const glm::vec3& wo, const glm::vec3& wi, float alpha) {
    if (!(wo.z > 0.0f) || !(wi.z > 0.0f)) return 0.0f;
    const glm::vec3 hs = wo + wi;
    const float len2 = glm::dot(hs, hs);
    if (!(len2 > 0.0f)) return 0.0f;
    const glm::vec3 h = hs * (1.0f / sqrtf(len2));
    const float wo_h = glm::dot(wo, h);
    if (!(wo_h > 0.0f)) return 0.0f;
    // D_wo(h) = G1(wo) (wo.h) D(h) / wo.z, and dwi = 4 (wo.h) dh: with G1 = z / (z + z Lambda),
    // D / (4 (wo.z + wo.z Lambda(wo))), whose denominator stays near alpha / 2 at grazing.
    return ggx_d(h, alpha) / (4.0f * (wo.z + ggx_z_lambda(wo, alpha)));
}

// The GGX conductor's f (without cos theta_i).
SRT_HD_INLINE glm::vec3 ggx_eval(const glm::vec3& f0, const glm::vec3& wo, const glm::vec3& wi, float alpha) {
    if (!(wo.z > 0.0f) || !(wi.z > 0.0f)) return glm::vec3(0.0f);
    const glm::vec3 hs = wo + wi;
    const float len2 = glm::dot(hs, hs);
    if (!(len2 > 0.0f)) return glm::vec3(0.0f);
    const glm::vec3 h = hs * (1.0f / sqrtf(len2));
    // Height-correlated masking and shadowing, G2 = 1 / (1 + Lambda(wo) + Lambda(wi)), over
    // 4 wo.z wi.z: D / (4 (wo.z wi.z + wi.z (wo.z Lambda(wo)) + wo.z (wi.z Lambda(wi)))),
    // never 0 / 0 where either direction grazes.
    const float den = wo.z * wi.z + wi.z * ggx_z_lambda(wo, alpha) + wo.z * ggx_z_lambda(wi, alpha);
    const float d_g = ggx_d(h, alpha) / (4.0f * den);
    // Past float only where both directions lie within ~1e-30 of the surface: no light.
    if (!(d_g <= 3.4e38f)) return glm::vec3(0.0f);
    return fresnel_schlick(f0, glm::dot(wo, h)) * d_g;
}

// ---------------------------------------------------------------------------
// The surface: its lobes together
// ---------------------------------------------------------------------------

SRT_HD_INLINE bool is_dielectric(const BsdfParams& b) { return b.eta > 0.0f; }

// How often sampling picks the specular lobe: in proportion to the lobes' reflectances.
SRT_HD_INLINE float specular_probability(const BsdfParams& b) {
    const float s = luminance(b.specular), d = luminance(b.diffuse);
    return s + d > 0.0f ? s / (s + d) : 0.0f;
}

// f of the non-delta lobes (a dielectric and a perfect mirror have none).
SRT_HD_INLINE glm::vec3 bsdf_eval(const BsdfParams& b, const glm::vec3& wo, const glm::vec3& wi) {
    if (is_dielectric(b) || !(wo.z > 0.0f) || !(wi.z > 0.0f)) return glm::vec3(0.0f);
    glm::vec3 f = b.diffuse * kInvPi;
    if (ggx_is_rough(b.alpha)) f += ggx_eval(b.specular, wo, wi, b.alpha);
    return f;
}

// The density bsdf_sample draws a non-delta wi with, over its lobes.
SRT_HD_INLINE float bsdf_pdf(const BsdfParams& b, const glm::vec3& wo, const glm::vec3& wi) {
    if (is_dielectric(b) || !(wo.z > 0.0f) || !(wi.z > 0.0f)) return 0.0f;
    const float ps = specular_probability(b);
    float pdf = (1.0f - ps) * cosine_hemisphere_pdf(wi.z);
    if (ggx_is_rough(b.alpha)) pdf += ps * ggx_reflection_pdf(wo, wi, b.alpha);
    return pdf;
}

// A direction from the surface's lobes: u0 picks the lobe (or, on a dielectric,
// reflection against refraction), u1 and u2 the direction within it.
SRT_HD_INLINE BsdfSample bsdf_sample(const BsdfParams& b, const glm::vec3& wo, float u0, float u1, float u2) {
    BsdfSample s;
    if (!(wo.z > 0.0f)) return s;
    if (is_dielectric(b)) {
        // Reflection with probability F, refraction otherwise: the weight is 1 either way.
        // Radiance is not scaled by eta^2 on refraction: with the camera and the lights
        // outside every dielectric, the factors of a path's ins and outs cancel.
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
    const float ps = specular_probability(b);
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
    s.pdf = bsdf_pdf(b, wo, s.wi);
    if (!(s.pdf > 0.0f)) return s;
    s.weight = bsdf_eval(b, wo, s.wi) * (s.wi.z / s.pdf);
    s.valid = true;
    return s;
}

}  // namespace srt
