// test_bsdf_microfacet.cpp - glTF 2.0's metallic-roughness BRDF and the rough dielectric
// (render/bsdf.h, render/microfacet.h) against their definitions, written here again in
// double from the papers:
//   - glTF's f against Appendix B's formulas, unfolded (the mix of a metal and a
//     dielectric), at random directions and parameters;
//   - the rough dielectric's f and density against Walter et al. 2007's equations;
//   - a chi-square test of every lobe's directions against its density (a wrong one fails);
//   - each sample's weight: f |cos| / pdf, and for the rough dielectric G1(wi) in closed form;
//   - white furnaces: the rough dielectric and a white glTF metal keep at most what arrives
//     (single scattering loses the rest); glTF's dielectric gives back more than arrives at
//     grazing angles, as its specification's model does, and the test pins by how much;
//   - reciprocity: glTF's BRDF and the dielectric's reflection are symmetric, its
//     transmission obeys f(wo, wi) = eta^2 f(wi, wo) (no 1 / eta^2 radiance scaling).
#include "render/bsdf.h"
#include "support/bsdf_checks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace srt::test;
using srt::BsdfParams;
using srt::BsdfSample;

// ---------------------------------------------------------------------------
// The definitions, in double
// ---------------------------------------------------------------------------

struct D3 {
    double x, y, z;
};
D3 d3(const glm::vec3& v) { return {v.x, v.y, v.z}; }
double dot(const D3& a, const D3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
D3 unit(const D3& a) {
    const double l = std::sqrt(dot(a, a));
    return {a.x / l, a.y / l, a.z / l};
}

// Trowbridge-Reitz D(h) = a^2 / (pi ((n.h)^2 (a^2 - 1) + 1)^2) and Smith's separable G1 as
// glTF's Appendix B writes V: 2 |n.w| / (|n.w| + sqrt(a^2 + (1 - a^2) (n.w)^2)).
double ggx_d(const D3& h, double a) {
    const double c2 = h.z * h.z, a2 = a * a;
    const double k = c2 * (a2 - 1.0) + 1.0;
    return a2 / (M_PI * k * k);
}
double ggx_g1(const D3& w, double a) {
    const double c = std::fabs(w.z), a2 = a * a;
    return 2.0 * c / (c + std::sqrt(a2 + (1.0 - a2) * c * c));
}

// Appendix B: material = mix(dielectric_brdf, metal_brdf, metallic), with
//   metal_brdf      = specular_brdf * (base + (1 - base) (1 - |V.H|)^5)
//   dielectric_brdf = mix(diffuse_brdf, specular_brdf, f0 + (1 - f0) (1 - |V.H|)^5)
//   specular_brdf   = G1(L) G1(V) D / (4 |N.L| |N.V|), diffuse_brdf = base / pi.
double gltf_f(double base, double metallic, double alpha, double f0, const D3& wo, const D3& wi) {
    const D3 h = unit({wo.x + wi.x, wo.y + wi.y, wo.z + wi.z});
    const double m5 = std::pow(1.0 - std::fabs(dot(wo, h)), 5.0);
    const double spec = ggx_g1(wi, alpha) * ggx_g1(wo, alpha) * ggx_d(h, alpha) / (4.0 * wi.z * wo.z);
    const double metal = spec * (base + (1.0 - base) * m5);
    const double fr = f0 + (1.0 - f0) * m5;
    const double dielectric = (1.0 - fr) * base / M_PI + fr * spec;
    return (1.0 - metallic) * dielectric + metallic * metal;
}

double fresnel(double cos_i, double eta) {
    const double s2 = (1.0 - cos_i * cos_i) / (eta * eta);
    if (s2 >= 1.0) return 1.0;
    const double ct = std::sqrt(1.0 - s2);
    const double rs = (cos_i - eta * ct) / (cos_i + eta * ct), rp = (eta * cos_i - ct) / (eta * cos_i + ct);
    return 0.5 * (rs * rs + rp * rp);
}

// Walter et al. 2007, eqs. 16, 20 and 21, with eta = eta_t / eta_i (wo on the i side),
// the half vector h_t = -(wo + eta wi) (eq. 16, turned to the normal's side), and their
// densities with visible normals, D_wo(h) = G1(wo) |wo.h| D(h) / |wo.z|, over eq. 14's and
// 17's Jacobians. Transmission without the 1 / eta^2 of radiance, as the renderer's.
struct Value {
    double f, pdf;
};
Value walter(double alpha, double eta, const D3& wo, const D3& wi) {
    const bool refl = wi.z > 0.0;
    D3 h = refl ? unit({wo.x + wi.x, wo.y + wi.y, wo.z + wi.z}) : unit({wo.x + eta * wi.x, wo.y + eta * wi.y, wo.z + eta * wi.z});
    if (h.z < 0.0) h = {-h.x, -h.y, -h.z};
    const double oh = dot(wo, h), ih = dot(wi, h);
    if (oh <= 0.0 || (refl ? ih <= 0.0 : ih >= 0.0)) return {0.0, 0.0};
    const double F = fresnel(oh, eta), D = ggx_d(h, alpha), G = ggx_g1(wo, alpha) * ggx_g1(wi, alpha);
    const double dwo = ggx_g1(wo, alpha) * oh * D / wo.z;
    if (refl) return {F * D * G / (4.0 * wo.z * wi.z), F * dwo / (4.0 * oh)};
    const double den = oh + eta * ih;
    return {std::fabs(ih) * oh / (wo.z * std::fabs(wi.z)) * eta * eta * (1.0 - F) * D * G / (den * den),
            (1.0 - F) * dwo * eta * eta * std::fabs(ih) / (den * den)};
}

BsdfParams rough_glass(float eta, float alpha) {
    BsdfParams b;
    b.eta = eta;
    b.alpha = alpha;
    return b;
}

glm::vec3 random_direction(std::mt19937& rng, bool upper) {
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    const float z = upper ? u(rng) : -u(rng), phi = 2.0f * float(M_PI) * u(rng);
    const float r = std::sqrt(std::max(0.0f, 1.0f - z * z));
    return glm::vec3(r * std::cos(phi), r * std::sin(phi), z);
}

// Within `rel` of the definition, or 1e-6 absolute: near total internal reflection the
// transmission's wo.h + eta wi.h cancels, and float keeps fewer digits of a value there
// that is small anyway (1e-5 or less).
bool near(double got, double want, double rel) { return std::fabs(got - want) <= rel * std::fabs(want) + 1e-6; }

// ---------------------------------------------------------------------------
// f and the density against the definitions
// ---------------------------------------------------------------------------

TEST(GltfBrdf, FIsAppendixBsMixOfAMetalAndADielectric) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    int checked = 0;
    for (int k = 0; k < 20000; ++k) {
        const glm::vec3 base(u(rng), u(rng), u(rng));
        const float metallic = k % 4 == 0 ? 0.0f : k % 4 == 1 ? 1.0f : u(rng);
        const float rough = 0.05f + 0.95f * u(rng), f0 = k % 3 == 0 ? 0.04f : 0.2f * u(rng);
        const BsdfParams b = srt::gltf_bsdf(base, metallic, rough * rough, f0);
        const glm::vec3 wo = random_direction(rng, true), wi = random_direction(rng, true);
        if (wo.z < 1e-3f || wi.z < 1e-3f) continue;
        const glm::vec3 f = srt::bsdf_eval(b, wo, wi);
        for (int c = 0; c < 3; ++c) {
            const double want = gltf_f(base[c], metallic, double(rough) * rough, f0, d3(wo), d3(wi));
            ASSERT_TRUE(near(f[c], want, 2e-4)) << "f " << f[c] << " want " << want << " metallic " << metallic
                                                << " roughness " << rough;
        }
        ++checked;
        // Below the surface (either direction): nothing.
        EXPECT_EQ(srt::bsdf_eval(b, wo, -wi), glm::vec3(0.0f));
    }
    EXPECT_GT(checked, 19000);
}

TEST(RoughDielectric, FAndPdfAreWaltersFromEitherSide) {
    std::mt19937 rng(8);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    int transmitted = 0, reflected = 0;
    for (int k = 0; k < 40000; ++k) {
        const float eta = k % 2 ? 1.5f : 1.0f / 1.5f, rough = 0.1f + 0.9f * u(rng);
        const float alpha = rough * rough;
        const BsdfParams b = rough_glass(eta, alpha);
        const glm::vec3 wo = random_direction(rng, true), wi = random_direction(rng, k % 3 != 0);
        if (wo.z < 1e-2f || std::fabs(wi.z) < 1e-2f) continue;
        const Value want = walter(alpha, eta, d3(wo), d3(wi));
        const glm::vec3 f = srt::bsdf_eval(b, wo, wi);
        const float pdf = srt::bsdf_pdf(b, wo, wi);
        ASSERT_TRUE(near(f.x, want.f, 1e-3)) << "f " << f.x << " want " << want.f << " eta " << eta << " alpha " << alpha
                                             << " wi.z " << wi.z;
        ASSERT_TRUE(near(pdf, want.pdf, 1e-3)) << "pdf " << pdf << " want " << want.pdf;
        if (want.f > 0.0) (wi.z < 0.0f ? transmitted : reflected)++;
    }
    EXPECT_GT(transmitted, 2000);
    EXPECT_GT(reflected, 5000);
}

// ---------------------------------------------------------------------------
// Sampling
// ---------------------------------------------------------------------------

struct Case {
    std::string name;
    BsdfParams b;
    glm::vec3 wo;
};

std::vector<Case> cases() {
    std::vector<Case> out;
    for (const float rough : {0.1f, 0.5f, 1.0f})
        for (const double theta : {0.0, 45.0, 80.0}) {
            const std::string at = " roughness " + std::to_string(rough) + " theta " + std::to_string(theta);
            out.push_back({"gltf metal" + at, srt::gltf_bsdf(glm::vec3(0.9f, 0.6f, 0.3f), 1.0f, rough * rough, 0.04f),
                           direction(theta, 30)});
            out.push_back({"gltf plastic" + at, srt::gltf_bsdf(glm::vec3(0.2f, 0.5f, 0.8f), 0.0f, rough * rough, 0.04f),
                           direction(theta, 130)});
            out.push_back({"gltf half metal" + at, srt::gltf_bsdf(glm::vec3(0.7f), 0.5f, rough * rough, 0.1f),
                           direction(theta, 230)});
            for (const float eta : {1.5f, 1.0f / 1.5f})
                out.push_back({"glass eta " + std::to_string(eta) + at, rough_glass(eta, rough * rough),
                               direction(theta, 300)});
        }
    // Roughness 0: glTF clamps to the smallest alpha GGX can evaluate, a lobe of 0.06 degrees
    // that still has a density.
    out.push_back({"gltf roughness 0", srt::gltf_bsdf(glm::vec3(0.5f), 0.3f, 0.0f, 0.04f), direction(30, 0)});
    return out;
}

constexpr int kSamples = 400000;
constexpr double kRejectZ = 4.5;

TEST(MicrofacetBsdfs, SampledDirectionsFollowThePdf) {
    uint32_t seed = 100;
    for (const Case& c : cases()) {
        SCOPED_TRACE(c.name);
        // Too narrow for the bins' 8 x 8 midpoint integration: glTF's smoothest lobe, and
        // glass of roughness 0.1 seen along the normal, whose peaks sit at the poles, where
        // a bin is thinnest in phi (they pass at 45 and 80 degrees).
        if (c.name == "gltf roughness 0" ||
            (srt::is_dielectric(c.b) && c.b.alpha < 0.02f && c.wo.z > 0.999f))
            continue;
        const ChiSquare x = bsdf_chi_square(c.b, c.wo, kSamples, seed++);
        EXPECT_LT(x.z, kRejectZ) << "X^2 = " << x.statistic << " with " << x.dof << " degrees of freedom";
        if (std::getenv("SRT_PRINT_CHI2")) std::printf("%s: z %.2f\n", c.name.c_str(), x.z);
    }
}

TEST(MicrofacetBsdfs, ChiSquareRejectsAWrongPdf) {
    // The density of glass of index 1.45 for samples of 1.5's, and of a glTF plastic of
    // roughness 0.33 for samples of 0.3's (its diffuse base dilutes the difference).
    const BsdfParams glass = rough_glass(1.5f, 0.09f), wrong_glass = rough_glass(1.45f, 0.09f);
    const ChiSquare x = bsdf_chi_square(glass, direction(40, 0), kSamples, 5, &wrong_glass);
    EXPECT_GT(x.z, kRejectZ) << "an index 3% off passed";
    const BsdfParams plastic = srt::gltf_bsdf(glm::vec3(0.5f), 0.0f, 0.09f, 0.04f);
    const BsdfParams wrong_plastic = srt::gltf_bsdf(glm::vec3(0.5f), 0.0f, 0.1089f, 0.04f);
    const ChiSquare y = bsdf_chi_square(plastic, direction(40, 0), kSamples, 6, &wrong_plastic);
    EXPECT_GT(y.z, kRejectZ) << "a roughness 10% off passed";
    if (std::getenv("SRT_PRINT_CHI2")) std::printf("wrong pdfs: z %.2f %.2f\n", x.z, y.z);
}

TEST(MicrofacetBsdfs, WeightsAreFCosOverPdfAndG1ForGlass) {
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (const Case& c : cases()) {
        SCOPED_TRACE(c.name);
        int valid = 0;
        for (int k = 0; k < 3000; ++k) {
            const BsdfSample s = srt::bsdf_sample(c.b, c.wo, u(rng), u(rng), u(rng));
            if (!s.valid) continue;
            ++valid;
            ASSERT_FALSE(s.delta);
            EXPECT_EQ(s.transmitted, s.wi.z < 0.0f);
            const glm::vec3 f = srt::bsdf_eval(c.b, c.wo, s.wi);
            const float pdf = srt::bsdf_pdf(c.b, c.wo, s.wi);
            ASSERT_GT(pdf, 0.0f);
            EXPECT_EQ(pdf, s.pdf);
            for (int ch = 0; ch < 3; ++ch) {
                const double want = double(f[ch]) * std::fabs(s.wi.z) / pdf;
                ASSERT_TRUE(std::isfinite(s.weight[ch]));
                EXPECT_NEAR(s.weight[ch], want, 1e-5 * (1.0 + want));
            }
            // Visible-normal sampling leaves the weight G1(wi): F and the rest cancel.
            if (srt::is_dielectric(c.b))
                EXPECT_NEAR(s.weight.x, ggx_g1(d3(s.wi), c.b.alpha), 2e-4) << "wi.z " << s.wi.z;
        }
        EXPECT_GT(valid, 1000);
    }
}

// ---------------------------------------------------------------------------
// Energy and reciprocity
// ---------------------------------------------------------------------------

TEST(MicrofacetBsdfs, WhiteFurnacesKeepAtMostWhatArrivesButGltfsDielectric) {
    const int n = 200000;
    for (const float rough : {0.03f, 0.3f, 0.7f, 1.0f})
        for (const double theta : {0.0, 45.0, 80.0}) {
            SCOPED_TRACE("roughness " + std::to_string(rough) + " theta " + std::to_string(theta));
            const glm::vec3 wo = direction(theta, 20);
            const Albedo metal = albedo(srt::gltf_bsdf(glm::vec3(1.0f), 1.0f, rough * rough, 0.04f), wo, n, 21);
            EXPECT_LE(metal.mean, 1.0 + 4.0 * metal.se);
            if (rough <= 0.03f && theta < 60.0) EXPECT_GT(metal.mean, 0.99);
            for (const float eta : {1.5f, 1.0f / 1.5f}) {
                const Albedo glass = albedo(rough_glass(eta, rough * rough), wo, n, 22);
                EXPECT_LE(glass.mean, 1.0 + 4.0 * glass.se) << "eta " << eta;
                // Single scattering loses little while smooth.
                if (rough <= 0.03f) EXPECT_GT(glass.mean, 0.99) << "eta " << eta;
            }
        }
    // glTF's dielectric over a white base: the base takes 1 - F(wo.h) of the light, F at
    // the microfacet that links wo to each of its directions, not 1 - the layer's albedo
    // at wo, so where wo grazes, the specular lobe's F(wo.z) comes on top of a base that
    // still gives back nearly all: the specification's model, kept. Within error bars of
    // at most 1 up to 30 degrees from the normal; past 60 it passes 1, by ~35% at 80
    // degrees and ~77% at 88 (roughness 0); pinned here so that a change of the model
    // (to energy-conserving layering) shows.
    double most = 0.0;
    for (const float rough : {0.0f, 0.3f, 0.6f, 1.0f})
        for (const double theta : {0.0, 30.0, 60.0, 70.0, 80.0, 88.0}) {
            const Albedo a = albedo(srt::gltf_bsdf(glm::vec3(1.0f), 0.0f, rough * rough, 0.04f), direction(theta, 0), n, 23);
            SCOPED_TRACE("roughness " + std::to_string(rough) + " theta " + std::to_string(theta));
            if (theta <= 30.0) EXPECT_LE(a.mean, 1.0 + 4.0 * a.se);
            EXPECT_LE(a.mean, 1.8);
            most = std::max(most, a.mean);
            if (std::getenv("SRT_PRINT_CHI2")) std::printf("glTF dielectric furnace: roughness %.1f theta %2.0f: %.4f\n", rough, theta, a.mean);
        }
    EXPECT_GT(most, 1.5);
}

TEST(MicrofacetBsdfs, ReciprocityAndEtaSquaredForTransmission) {
    std::mt19937 rng(10);
    // The far side's frame, turned half a turn about x: z and y change sign, D, G and F,
    // which see only |z|, x^2 + y^2 and dot products, do not.
    const auto flip = [](const glm::vec3& v) { return glm::vec3(v.x, -v.y, -v.z); };
    for (int k = 0; k < 5000; ++k) {
        const glm::vec3 wo = random_direction(rng, true), wi_up = random_direction(rng, true);
        const glm::vec3 wi_down = random_direction(rng, false);
        if (wo.z < 0.02f || wi_up.z < 0.02f || wi_down.z > -0.02f) continue;
        const BsdfParams g = srt::gltf_bsdf(glm::vec3(0.8f, 0.5f, 0.2f), 0.4f, 0.2f, 0.04f);
        const glm::vec3 a = srt::bsdf_eval(g, wo, wi_up), b = srt::bsdf_eval(g, wi_up, wo);
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(a[c], b[c], 1e-4f * (1.0f + a[c]));
        const float eta = 1.5f;
        const BsdfParams front = rough_glass(eta, 0.2f), back = rough_glass(1.0f / eta, 0.2f);
        const float r1 = srt::bsdf_eval(front, wo, wi_up).x, r2 = srt::bsdf_eval(front, wi_up, wo).x;
        EXPECT_NEAR(r1, r2, 1e-4f * (1.0f + r1));
        const float t1 = srt::bsdf_eval(front, wo, wi_down).x;
        const float t2 = srt::bsdf_eval(back, flip(wi_down), flip(wo)).x;
        EXPECT_NEAR(t1, eta * eta * t2, 1e-3f * (1.0f + t1)) << "wo.z " << wo.z << " wi.z " << wi_down.z;
    }
}

// An index-matched interface passes light straight through, rough or not: the smooth
// dielectric's delta lobe, weight 1.
TEST(RoughDielectric, IndexMatchedIsADeltaPassThrough) {
    const BsdfParams b = rough_glass(1.0f, 0.25f);
    EXPECT_FALSE(srt::is_rough_dielectric(b));
    const glm::vec3 wo = direction(35, 10);
    const BsdfSample s = srt::bsdf_sample(b, wo, 0.9f, 0.3f, 0.6f);
    ASSERT_TRUE(s.valid && s.delta && s.transmitted);
    EXPECT_NEAR(glm::length(s.wi + wo), 0.0f, 1e-6f);
    EXPECT_EQ(s.weight, glm::vec3(1.0f));
}

}  // namespace
