// pathref: the BSDFs with a density: Lambert, the glTF 2.0 metallic-roughness
// BRDF and the rough dielectric of Walter et al. 2007 (see path_reference.md,
// "Materials"). Everything is evaluated in a local frame whose z axis is the
// normal on the side of wo, so cos(theta) of a direction is its z.
#include <algorithm>
#include <cmath>

#include "support/path_reference.h"

namespace pathref {

namespace {
constexpr double kPi = 3.14159265358979323846;

double sq(double x) {
    return x * x;
}

// Orthonormal frame around unit n (Duff et al. 2017).
struct Frame {
    Vec3 a, b, n;
    explicit Frame(Vec3 nn) : n(nn) {
        const double s = std::copysign(1.0, n.z);
        const double e = -1.0 / (s + n.z);
        const double f = n.x * n.y * e;
        a = {1 + s * n.x * n.x * e, s * f, -s * n.x};
        b = {f, s + n.y * n.y * e, -n.y};
    }
    Vec3 to_local(Vec3 v) const { return {dot(v, a), dot(v, b), dot(v, n)}; }
    Vec3 to_world(Vec3 v) const { return a * v.x + b * v.y + n * v.z; }
};

// ------------------------------------------------------------------ GGX
// For unit local vectors. Both are written with sin^2 = x^2 + y^2 rather than
// 1 - z^2: for a tiny alpha the lobe lives where 1 - z^2 is all rounding.

// Trowbridge-Reitz / GGX: D(h) = a^2 chi+(h.z) / (pi ((h.z)^2 (a^2 - 1) + 1)^2),
// and (h.z)^2 (a^2 - 1) + 1 = a^2 z^2 + (x^2 + y^2) for a unit h.
double ggx_d(Vec3 h, double a) {
    if (h.z <= 0) return 0;
    const double a2 = a * a;
    const double den = h.x * h.x + h.y * h.y + a2 * h.z * h.z;
    return a2 / (kPi * den * den);
}

// Smith masking of the GGX distribution (separable form):
// G1(x) = 2 |z| / (|z| + sqrt(a^2 + (1 - a^2) z^2)) with a^2 + (1 - a^2) z^2
// = z^2 + a^2 (x^2 + y^2). The side condition chi+((x.h) / (x.n)) is the
// caller's business.
double ggx_g1(Vec3 w, double a) {
    const double z = std::fabs(w.z);
    if (z == 0) return 0;
    return 2 * z / (z + std::sqrt(z * z + a * a * (w.x * w.x + w.y * w.y)));
}

// Microfacet normal sampled from the distribution of normals visible from
// wo (wo.z > 0): density D_wo(h) = G1(wo) max(0, wo.h) D(h) / wo.z
// (Heitz 2018, "Sampling the GGX Distribution of Visible Normals").
Vec3 sample_ggx_visible(Vec3 wo, double a, double u1, double u2) {
    const Vec3 vh = normalize({a * wo.x, a * wo.y, wo.z});  // wo in the hemisphere configuration
    const double lensq = vh.x * vh.x + vh.y * vh.y;
    const Vec3 t1 = lensq > 0 ? Vec3{-vh.y, vh.x, 0} * (1 / std::sqrt(lensq)) : Vec3{1, 0, 0};
    const Vec3 t2 = cross(vh, t1);
    // A uniform disk point, warped so that it is uniform on the projection of the half-sphere.
    const double r = std::sqrt(u1), phi = 2 * kPi * u2;
    const double p1 = r * std::cos(phi);
    double p2 = r * std::sin(phi);
    const double s = 0.5 * (1 + vh.z);
    p2 = (1 - s) * std::sqrt(std::max(0.0, 1 - p1 * p1)) + s * p2;
    const Vec3 nh = t1 * p1 + t2 * p2 + vh * std::sqrt(std::max(0.0, 1 - p1 * p1 - p2 * p2));
    return normalize({a * nh.x, a * nh.y, std::max(0.0, nh.z)});  // back to the ellipsoid configuration
}

// Density of sample_ggx_visible: D_wo(h) for wo.z > 0.
double ggx_visible_pdf(Vec3 wo, Vec3 h, double a) {
    const double oh = dot(wo, h);
    if (oh <= 0) return 0;
    return ggx_g1(wo, a) * oh * ggx_d(h, a) / wo.z;
}

Vec3 reflect_about(Vec3 wo, Vec3 h) {
    return h * (2 * dot(wo, h)) - wo;
}

// ------------------------------------------------------------ Lambert
Vec3 sample_cosine(double u1, double u2) {
    const double r = std::sqrt(u1), phi = 2 * kPi * u2;
    return {r * std::cos(phi), r * std::sin(phi), std::sqrt(std::max(0.0, 1 - u1))};
}

// ------------------------------------------------- glTF metallic-roughness
// (glTF 2.0 specification, Appendix B.) Local frame, wo.z > 0.
Rgb gltf_f(const Material& m, Vec3 wo, Vec3 wi) {
    if (wi.z <= 0 || wo.z <= 0) return {};  // reflection only
    const double a = microfacet_alpha(m);
    const Vec3 h = normalize(wo + wi);                         // h.wo = h.wi > 0: the chi+ of G1 hold
    const double w5 = std::pow(1 - std::fabs(dot(wo, h)), 5);  // Schlick's (1 - VdotH)^5
    // specular_brdf = V D, V = G1(wi) G1(wo) / (4 |n.wi| |n.wo|).
    const double spec = ggx_g1(wi, a) * ggx_g1(wo, a) / (4 * wi.z * wo.z) * ggx_d(h, a);
    const double f0 = sq((m.ior - 1) / (m.ior + 1));
    const double fr = f0 + (1 - f0) * w5;
    const Rgb c = m.base_color, one{1, 1, 1};
    const Rgb metal = (c + (one - c) * w5) * spec;                    // conductor_fresnel(base_color, spec)
    const Rgb dielectric = c * ((1 - fr) / kPi) + one * (fr * spec);  // fresnel_mix(ior, diffuse, spec)
    return dielectric * (1 - m.metallic) + metal * m.metallic;
}

// Probability of sampling the specular lobe (else the cosine-weighted diffuse
// one), from rough weights of the two lobes at wo; any value in (0, 1] is
// unbiased as long as it is 1 only when the diffuse lobe is absent.
double gltf_spec_prob(const Material& m, Vec3 wo) {
    const double w5 = std::pow(1 - wo.z, 5);
    const double f0 = sq((m.ior - 1) / (m.ior + 1));
    const double fr = f0 + (1 - f0) * w5;
    const double c = mean_component(m.base_color);
    const double ws = m.metallic * (c + (1 - c) * w5) + (1 - m.metallic) * fr;
    const double wd = (1 - m.metallic) * c * (1 - fr);
    if (!(wd > 0)) return 1;
    return std::clamp(ws / (ws + wd), 0.1, 0.9);
}

double gltf_pdf(const Material& m, Vec3 wo, Vec3 wi) {
    if (wi.z <= 0 || wo.z <= 0) return 0;
    const double ps = gltf_spec_prob(m, wo);
    const Vec3 h = normalize(wo + wi);
    // Reflection about h: dh/dwi = 1 / (4 |wi.h|), and wi.h = wo.h.
    const double spec = ggx_visible_pdf(wo, h, microfacet_alpha(m)) / (4 * dot(wo, h));
    return ps * spec + (1 - ps) * wi.z / kPi;
}

bool gltf_sample(const Material& m, Vec3 wo, double u0, double u1, double u2, Vec3* wi) {
    if (wo.z <= 0) return false;
    if (u0 < gltf_spec_prob(m, wo))
        *wi = reflect_about(wo, sample_ggx_visible(wo, microfacet_alpha(m), u1, u2));
    else
        *wi = sample_cosine(u1, u2);
    return wi->z > 0;
}

// ------------------------------------------------------- rough dielectric
// (Walter, Marschner, Li, Torrance 2007.) Local frame, wo.z > 0; eta =
// n(other side) / n(wo's side). Reflection f_r = F D G / (4 |wi.n| |wo.n|);
// transmission (eq. 21 times (eta_i / eta_o)^2, i.e. without the radiance
// scaling, see path_reference.md):
// f_t = |wi.h| |wo.h| / (|wi.n| |wo.n|) eta^2 (1 - F) D G / (wo.h + eta wi.h)^2,
// h = the generalised half vector, +-normalize(wo + eta wi), facing +z.

// Microfacet normal of the pair (wo, wi), or false if none: wi.z > 0 is a
// reflection about h = normalize(wo + wi), wi.z < 0 a refraction, which
// needs wo above and wi below the microfacet (the chi+ of G1).
bool dielectric_half(Vec3 wo, Vec3 wi, double eta, Vec3* h) {
    if (wi.z == 0 || wo.z <= 0) return false;
    Vec3 v = wi.z > 0 ? wo + wi : wo + wi * eta;
    const double len = length(v);
    if (!(len > 0)) return false;
    v = v * (1 / len);
    if (v.z < 0) v = -v;
    if (wi.z < 0 && !(dot(wo, v) > 0 && dot(wi, v) < 0)) return false;
    *h = v;
    return true;
}

Rgb rough_dielectric_f(const Material& m, Vec3 wo, Vec3 wi, double eta) {
    Vec3 h;
    if (!dielectric_half(wo, wi, eta, &h)) return {};
    const double a = microfacet_alpha(m);
    const double oh = dot(wo, h), ih = dot(wi, h);
    const double F = fresnel_dielectric(oh, eta);
    const double dg = ggx_d(h, a) * ggx_g1(wo, a) * ggx_g1(wi, a);
    if (wi.z > 0) return m.reflection_tint * (F * dg / (4 * wi.z * wo.z));
    const double den = oh + eta * ih;
    return m.transmission_tint * ((1 - F) * dg * std::fabs(ih) * oh * eta * eta / (-wi.z * wo.z * den * den));
}

// Walter's sampling with visible normals: h from D_wo, then reflection with
// probability F(wo.h), refraction with 1 - F; dh/dwi = 1 / (4 |wi.h|) for
// reflection, eta^2 |wi.h| / (wo.h + eta wi.h)^2 for refraction.
double rough_dielectric_pdf(const Material& m, Vec3 wo, Vec3 wi, double eta) {
    Vec3 h;
    if (!dielectric_half(wo, wi, eta, &h)) return 0;
    const double a = microfacet_alpha(m);
    const double oh = dot(wo, h), ih = dot(wi, h);
    const double F = fresnel_dielectric(oh, eta);
    const double ph = ggx_visible_pdf(wo, h, a);
    if (wi.z > 0) return F * ph / (4 * oh);
    return (1 - F) * ph * eta * eta * std::fabs(ih) / sq(oh + eta * ih);
}

bool rough_dielectric_sample(const Material& m, Vec3 wo, double eta, double u0, double u1, double u2,
                             Vec3* wi) {
    if (wo.z <= 0) return false;
    const Vec3 h = sample_ggx_visible(wo, microfacet_alpha(m), u1, u2);
    const double oh = dot(wo, h);
    if (!(oh > 0)) return false;
    const double F = fresnel_dielectric(oh, eta);  // 1 under total internal reflection
    if (u0 < F) {
        *wi = reflect_about(wo, h);
        return wi->z > 0;
    }
    // Snell about h, as the smooth Dielectric: the incident ray is -wo.
    const double cos_t = std::sqrt(std::max(0.0, 1 - (1 - oh * oh) / (eta * eta)));
    *wi = normalize(wo * (-1 / eta) + h * (oh / eta - cos_t));
    return wi->z < 0;
}

// The relative index seen from wo for a RoughDielectric with front normal n:
// n_inside / n_outside from the front, its inverse from the back.
double eta_seen(const Material& m, Vec3 n, Vec3 wo) {
    return dot(wo, n) > 0 ? m.ior : 1 / m.ior;
}

}  // namespace

double microfacet_alpha(const Material& m) {
    const double a = m.roughness * m.roughness;
    return m.type == Material::Gltf ? std::max(a, kMinMicrofacetAlpha) : a;
}

bool is_delta(const Material& m) {
    switch (m.type) {
        case Material::Diffuse:
        case Material::Gltf:
            return false;
        case Material::RoughDielectric:
            return microfacet_alpha(m) < kMinMicrofacetAlpha || m.ior == 1;
        default:
            return true;
    }
}

Rgb bsdf_f(const Material& m, Vec3 n, Vec3 wo, Vec3 wi) {
    if (is_delta(m)) return {};
    const double co = dot(wo, n);
    if (co == 0) return {};
    const Frame fr(co > 0 ? n : -n);  // z = the normal on wo's side
    const Vec3 lo = fr.to_local(wo), li = fr.to_local(wi);
    switch (m.type) {
        case Material::Diffuse:
            return li.z > 0 ? m.albedo * (1.0 / kPi) : Rgb{};
        case Material::Gltf:
            return gltf_f(m, lo, li);
        default:
            return rough_dielectric_f(m, lo, li, eta_seen(m, n, wo));
    }
}

double bsdf_pdf(const Material& m, Vec3 n, Vec3 wo, Vec3 wi) {
    if (is_delta(m)) return 0;
    const double co = dot(wo, n);
    if (co == 0) return 0;
    const Vec3 ns = co > 0 ? n : -n;
    if (m.type == Material::Diffuse) return std::max(0.0, dot(ns, wi)) / kPi;
    const Frame fr(ns);
    const Vec3 lo = fr.to_local(wo), li = fr.to_local(wi);
    if (m.type == Material::Gltf) return gltf_pdf(m, lo, li);
    return rough_dielectric_pdf(m, lo, li, eta_seen(m, n, wo));
}

bool sample_bsdf(const Material& m, Vec3 n, Vec3 wo, double u0, double u1, double u2, BsdfSample* s) {
    if (is_delta(m)) return false;
    const double co = dot(wo, n);
    if (co == 0) return false;
    const Frame fr(co > 0 ? n : -n);
    const Vec3 lo = fr.to_local(wo);
    if (m.type == Material::Diffuse) {  // f cos / pdf = albedo exactly
        const Vec3 li = sample_cosine(u1, u2);
        s->wi = normalize(fr.to_world(li));
        s->weight = m.albedo;
        s->pdf = li.z / kPi;
        return true;
    }
    Vec3 li;
    const double eta = eta_seen(m, n, wo);
    const bool ok = m.type == Material::Gltf ? gltf_sample(m, lo, u0, u1, u2, &li)
                                             : rough_dielectric_sample(m, lo, eta, u0, u1, u2, &li);
    if (!ok) return false;
    // The weight from the very f and pdf the estimator documents, so that
    // sampling can only ever cost variance, never bias.
    const Rgb f = m.type == Material::Gltf ? gltf_f(m, lo, li) : rough_dielectric_f(m, lo, li, eta);
    const double pdf = m.type == Material::Gltf ? gltf_pdf(m, lo, li) : rough_dielectric_pdf(m, lo, li, eta);
    if (!(pdf > 0) || !std::isfinite(pdf)) return false;
    s->wi = normalize(fr.to_world(li));
    s->weight = f * (std::fabs(li.z) / pdf);
    s->pdf = pdf;
    return true;
}

}  // namespace pathref
