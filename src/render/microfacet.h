// microfacet.h - the pieces the path integrator's BSDFs (render/bsdf.h) are made of:
// Fresnel's equations and Schlick's approximation, Snell's law, and Trowbridge-Reitz
// (GGX) microfacets: the distribution, Smith's masking in both of its forms, sampling by
// visible normals, and the rough dielectric of Walter, Marschner, Li and Torrance 2007.
//
// Directions are in a local frame whose +z is the normal on wo's side (wo.z > 0); wi is
// where light comes from. Every formula is written so that it keeps its digits where a
// direction grazes or a lobe is narrow, the same float arithmetic on the CPU and the GPU.
#pragma once

#include "core/hd.h"
#include "render/sampling.h"

#include <glm/glm.hpp>

namespace srt {

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

// Smith's masking for one direction in the separable form, as the denominator of
// G1(w) = |w.z| / (|w.z| + |w.z| Lambda(w)): the form glTF 2.0 (Appendix B) and Walter et
// al. write their BSDFs with.
SRT_HD_INLINE float ggx_g1_den(const glm::vec3& w, float alpha) { return fabsf(w.z) + ggx_z_lambda(w, alpha); }

// D G1(wo) G1(wi) / (4 |wo.z| |wi.z|) = D / (4 g1_den(wo) g1_den(wi)): glTF's
// specular_brdf without its Fresnel term (V D in the specification's words).
SRT_HD_INLINE float ggx_separable_vd(const glm::vec3& wo, const glm::vec3& wi, const glm::vec3& h, float alpha) {
    const float vd = ggx_d(h, alpha) / (4.0f * ggx_g1_den(wo, alpha) * ggx_g1_den(wi, alpha));
    // Past float only where both directions lie within ~1e-30 of the surface: no light.
    return vd <= 3.4e38f ? vd : 0.0f;
}

// ---------------------------------------------------------------------------
// The rough dielectric (Walter et al. 2007), sampled by visible normals
// ---------------------------------------------------------------------------
// eta = n on the far side / n on wo's side. wi above the surface (wi.z > 0) is a
// reflection about h = normalize(wo + wi); below it, a refraction about the generalised
// half vector h = normalize(wo + eta wi), turned to +z, which needs wo in front of the
// microfacet and wi behind it. f and the density share h, Fresnel's F at wo.h, and D.
//   reflection:   f = F D G / (4 |wo.z| |wi.z|),            pdf = F D_wo(h) / (4 wo.h)
//   transmission: f = (1 - F) D G |wi.h| wo.h eta^2 / (|wo.z| |wi.z| (wo.h + eta wi.h)^2),
//                 pdf = (1 - F) D_wo(h) eta^2 |wi.h| / (wo.h + eta wi.h)^2
// with the separable G = G1(wo) G1(wi) and D_wo(h) = G1(wo) (wo.h) D(h) / wo.z. As the
// smooth dielectric's, transmitted radiance is not scaled by 1 / eta^2: with the camera
// and the lights outside every dielectric, a path's factors cancel.
struct MicrofacetValue {
    float f = 0.0f;
    float pdf = 0.0f;
};

// Out of line (render/bsdf.h says why).
SRT_HD_NOINLINE MicrofacetValue rough_dielectric_value(glm::vec3 wo, glm::vec3 wi, float eta, float alpha) {
    MicrofacetValue v;
    if (!(wo.z > 0.0f) || wi.z == 0.0f) return v;
    const bool reflected = wi.z > 0.0f;
    const glm::vec3 hs = reflected ? wo + wi : wo + wi * eta;
    const float len2 = glm::dot(hs, hs);
    if (!(len2 > 0.0f)) return v;
    glm::vec3 h = hs * (1.0f / sqrtf(len2));
    if (h.z < 0.0f) h = -h;
    const float oh = glm::dot(wo, h), ih = glm::dot(wi, h);
    if (!(oh > 0.0f) || (reflected ? !(ih > 0.0f) : !(ih < 0.0f))) return v;
    const float fr = fresnel_dielectric(oh, eta);
    const float d = ggx_d(h, alpha);
    const float go = ggx_g1_den(wo, alpha);  // D_wo(h) = oh D / go
    if (reflected) {
        v.f = fr * d / (4.0f * go * ggx_g1_den(wi, alpha));
        v.pdf = fr * d / (4.0f * go);
    } else {
        const float den = oh + eta * ih;
        const float jacobian = eta * eta * -ih / (den * den);  // dh / dwi
        v.f = (1.0f - fr) * d * oh * jacobian / (go * ggx_g1_den(wi, alpha));
        v.pdf = (1.0f - fr) * d * oh * jacobian / go;
    }
    // Past float only at the edges of what float can hold (both directions grazing, or a
    // half vector at the horizon): no light.
    if (!(v.f <= 3.4e38f) || !(v.pdf <= 3.4e38f)) v = MicrofacetValue{};
    return v;
}

// wo refracted through the microfacet of normal h (wo.h > 0) into the far side, by
// Snell's law; false under total internal reflection.
SRT_HD_INLINE bool refract_about(const glm::vec3& wo, const glm::vec3& h, float eta, glm::vec3& wt) {
    const float oh = glm::dot(wo, h);
    const float sin2_t = (1.0f - oh * oh) / (eta * eta);
    if (!(sin2_t < 1.0f)) return false;
    const float cos_t = sqrtf(1.0f - sin2_t);
    wt = glm::normalize(wo * (-1.0f / eta) + h * (oh / eta - cos_t));
    return true;
}

}  // namespace srt
