// Tests of the pathref reference path tracer's microfacet BSDFs (the glTF 2.0 BRDF and the
// rough dielectric) against the published formulas, quadrature, chi-square, reciprocity
// and renders (support/path_reference.md, section 10).
#include "support/path_reference_checks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

using namespace pathref;
using namespace pathref_test;

// ------------------------------------------- 10. microfacet BSDFs (Gltf, RoughDielectric)
namespace {
double sq(double x) {
    return x * x;
}

// Uniform doubles in [0, 1) from a 64-bit LCG (top 53 bits): plenty for these checks.
struct Lcg {
    std::uint64_t s;
    double operator()() {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<double>(s >> 11) * (1.0 / 9007199254740992.0);
    }
};

Material gltf(Rgb base, double metallic, double roughness, double ior = 1.5) {
    Material m;
    m.type = Material::Gltf;
    m.base_color = base;
    m.metallic = metallic;
    m.roughness = roughness;
    m.ior = ior;
    return m;
}
Material rough_glass(double ior, double roughness, Rgb refl_tint = {1, 1, 1}, Rgb trans_tint = {1, 1, 1}) {
    Material m;
    m.type = Material::RoughDielectric;
    m.ior = ior;
    m.roughness = roughness;
    m.reflection_tint = refl_tint;
    m.transmission_tint = trans_tint;
    return m;
}

// A tilted shading frame for the BSDF tests: normal n, t in the plane of
// incidence, p = n x t perpendicular to it (the pole of the quadrature grid,
// so that every lobe lies along its equator, where the cells are finest).
struct TestFrame {
    Vec3 n, t, p;
};
TestFrame test_frame() {
    TestFrame f;
    f.n = normalize({0.3, -0.5, 0.8});
    f.t = normalize(cross(f.n, {1, 0, 0}));
    f.p = cross(f.n, f.t);
    return f;
}
// Direction at theta_deg from n towards t (beyond 90: below the surface).
Vec3 at_angle(const TestFrame& f, double theta_deg) {
    const double th = theta_deg * kPi / 180;
    return f.t * std::sin(th) + f.n * std::cos(th);
}

// Midpoint rule over the unit sphere on an equal-area grid about pole p: nz
// bands of equal height in y = w.p, np sectors in phi, with
// w = y p + sqrt(1 - y^2) (cos phi n + sin phi t). The horizon (phi = pi/2,
// 3 pi/2) is a cell boundary when np is a multiple of 4. Calls
// fn(w, band, sector); each cell has solid angle 4 pi / (nz np).
template <class F>
void for_sphere_cells(const TestFrame& f, int nz, int np, F fn) {
    for (int i = 0; i < nz; ++i) {
        const double y = -1 + (i + 0.5) * 2.0 / nz, r = std::sqrt(1 - y * y);
        for (int j = 0; j < np; ++j) {
            const double phi = (j + 0.5) * 2 * kPi / np;
            fn(f.p * y + (f.n * std::cos(phi) + f.t * std::sin(phi)) * r, i, j);
        }
    }
}
// (band, sector) of the grid cell holding unit w, for a grid of nz x np.
void sphere_cell(const TestFrame& f, Vec3 w, int nz, int np, int& band, int& sector) {
    double phi = std::atan2(dot(w, f.t), dot(w, f.n));
    if (phi < 0) phi += 2 * kPi;
    band = std::clamp(static_cast<int>((dot(w, f.p) + 1) / 2 * nz), 0, nz - 1);
    sector = std::clamp(static_cast<int>(phi / (2 * kPi) * np), 0, np - 1);
}
// Integral of f(wo, wi) |n.wi| over the sphere (per channel) on an nz x 3nz grid.
Rgb quad_f_cos(const Material& m, const TestFrame& f, Vec3 wo, int nz) {
    Rgb sum;
    for_sphere_cells(f, nz, 3 * nz, [&](Vec3 wi, int, int) {
        sum = sum + bsdf_f(m, f.n, wo, wi) * std::fabs(dot(wi, f.n));
    });
    return sum * (4 * kPi / (3.0 * nz * nz));
}

// ---- independent transcriptions of the published formulas, in world vectors
double chi_plus(double x) {
    return x > 0 ? 1.0 : 0.0;
}
// glTF 2.0 Appendix B as written (n.h, the spec's G1 and V), two-sided, alpha clamped.
Rgb gltf_literal(const Material& m, Vec3 n, Vec3 v, Vec3 l) {
    if (dot(n, v) < 0) n = -n;
    if (!(dot(n, l) > 0 && dot(n, v) > 0)) return {};
    const double alpha = std::max(m.roughness * m.roughness, 1e-3), a2 = alpha * alpha;
    const Vec3 h = normalize(l + v);
    const double nh = dot(n, h);
    const double D = a2 * chi_plus(nh) / (kPi * sq(nh * nh * (a2 - 1) + 1));
    auto G1 = [&](Vec3 x) {
        const double nx = std::fabs(dot(n, x));
        return 2 * nx * chi_plus(dot(h, x)) / (nx + std::sqrt(a2 + (1 - a2) * nx * nx));
    };
    const double V = G1(l) * G1(v) / (4 * std::fabs(dot(n, l)) * std::fabs(dot(n, v)));
    const double specular = V * D, vh5 = std::pow(1 - std::fabs(dot(v, h)), 5);
    const Rgb c = m.base_color, one{1, 1, 1};
    const Rgb metal = (c + (one - c) * vh5) * specular;
    const double f0 = sq((m.ior - 1) / (m.ior + 1)), fr = f0 + (1 - f0) * vh5;
    const Rgb dielectric = c * (1 / kPi) * (1 - fr) + one * (specular * fr);
    return dielectric * (1 - m.metallic) + metal * m.metallic;
}
// Walter et al. 2007 as written: D (eq. 33) and G1 (eq. 34) in tan(theta),
// the exact Fresnel of eq. 22, f_r (eq. 20) and f_t (eq. 21), i = the light
// direction, o = the viewer's, both away from the surface; n = the front
// (outer) normal, eta_i / eta_o the indices of i's / o's side. This is
// Walter's physical radiance BSDF, with the eta_o^2 of eq. 21.
double walter_literal(double ior, double roughness, Vec3 n, Vec3 i, Vec3 o) {
    const double a = roughness * roughness;
    const double eta_i = dot(i, n) > 0 ? 1 : ior, eta_o = dot(o, n) > 0 ? 1 : ior;
    auto D = [&](Vec3 m) {
        const double c = dot(m, n), tan2 = (1 - c * c) / (c * c);
        return a * a * chi_plus(c) / (kPi * std::pow(c, 4) * sq(a * a + tan2));
    };
    auto G1 = [&](Vec3 v, Vec3 m) {
        const double c = dot(v, n), tan2 = (1 - c * c) / (c * c);
        return chi_plus(dot(v, m) / c) * 2 / (1 + std::sqrt(1 + a * a * tan2));
    };
    auto F = [](Vec3 v, Vec3 m, double eta_v, double eta_t) {
        const double c = std::fabs(dot(v, m)), g2 = sq(eta_t / eta_v) - 1 + c * c;
        if (g2 < 0) return 1.0;  // total internal reflection
        const double g = std::sqrt(g2);
        return 0.5 * sq((g - c) / (g + c)) * (1 + sq((c * (g + c) - 1) / (c * (g - c) + 1)));
    };
    const double in = dot(i, n), on = dot(o, n);
    if (in * on > 0) {
        const Vec3 hr = normalize(i + o) * (in > 0 ? 1 : -1);
        const double eta_t = in > 0 ? ior : 1;
        return F(i, hr, eta_i, eta_t) * G1(i, hr) * G1(o, hr) * D(hr) / (4 * std::fabs(in) * std::fabs(on));
    }
    const Vec3 ht = normalize(i * eta_i + o * eta_o) * -1.0;  // ior > 1: faces the outside, n's side
    const double ih = dot(i, ht), oh = dot(o, ht);
    return std::fabs(ih) * std::fabs(oh) / (std::fabs(in) * std::fabs(on)) * eta_o * eta_o *
           (1 - F(i, ht, eta_i, eta_o)) * G1(i, ht) * G1(o, ht) * D(ht) / sq(eta_i * ih + eta_o * oh);
}
}  // namespace

// The BRDF is the specification's: a closed form at normal incidence, the
// formulas transcribed literally at random directions (both sides), zero
// across the surface, and the alpha clamp.
TEST(PathReferenceGltf, MatchesTheSpecification) {
    const TestFrame f = test_frame();
    for (double rough : {0.0, 0.2, 0.5, 1.0})
        for (double metallic : {0.0, 0.4, 1.0}) {
            const Material m = gltf({0.9, 0.5, 0.1}, metallic, rough, 1.7);
            const double alpha = std::max(rough * rough, kMinMicrofacetAlpha);
            EXPECT_EQ(microfacet_alpha(m), alpha);
            // wo = wi = n: h = n, D = 1 / (pi a^2), G1 = 1, V = 1/4, VdotH = 1.
            const double spec = 1 / (4 * kPi * alpha * alpha), f0 = sq(0.7 / 2.7);
            const Rgb c = m.base_color;
            const Rgb expected =
                (c * ((1 - f0) / kPi) + Rgb{1, 1, 1} * (f0 * spec)) * (1 - metallic) + c * (spec * metallic);
            expect_near_rgb(bsdf_f(m, f.n, f.n, f.n), expected, 1e-12 * max_component(expected),
                            "normal incidence");
            expect_near_rgb(bsdf_f(m, f.n, -f.n, -f.n), expected, 1e-12 * max_component(expected),
                            "back side");
        }
    Lcg rng{17};
    auto random_dir = [&rng] {
        const double z = 1 - 2 * rng(), r = std::sqrt(1 - z * z), phi = 2 * kPi * rng();
        return Vec3{r * std::cos(phi), r * std::sin(phi), z};
    };
    int nonzero = 0;
    for (int k = 0; k < 4000; ++k) {
        const Material m = gltf({rng(), rng(), rng()}, rng(), 0.1 + 0.9 * rng(), 1.2 + rng());
        const Vec3 wo = random_dir(), wi = random_dir();
        const Rgb a = bsdf_f(m, f.n, wo, wi), b = gltf_literal(m, f.n, wo, wi);
        expect_near_rgb(a, b, 1e-10 * max_component(b), "literal");
        if (dot(wo, f.n) * dot(wi, f.n) < 0) {
            EXPECT_EQ(max_component(a), 0) << "reflection only";
        }
        nonzero += max_component(a) > 0;
    }
    EXPECT_GT(nonzero, 1500);
    // Parameters out of range are refused when rendering.
    for (const Material& bad : {gltf({1, 1, 1}, 1.5, 0.5), gltf({1, -0.1, 1}, 0.5, 0.5), gltf({1, 1, 1}, 0.5, 1.2),
                                rough_glass(1.5, -0.1), rough_glass(0, 0.5)}) {
        Scene s;
        s.add_sphere({0, 0, 0}, 1, s.add_material(bad));
        RenderOptions o;
        o.spp = 1;
        EXPECT_THROW(estimate_ray(s, {0, 0, 3}, {0, 0, -1}, o), std::invalid_argument);
    }
}

// The BSDF is Walter's: closed forms at normal incidence (reflection F0 /
// (4 pi a^2); transmission (1 - F0) eta^2 / (pi a^2 (eta - 1)^2) into the
// glass, (1 - F0) / (pi a^2 (eta - 1)^2) out of it), and at random directions
// Walter's eqs. 20-22, 33, 34 transcribed literally, times (eta_i / eta_o)^2
// for transmission: pathref does not scale radiance across a refraction.
TEST(PathReferenceRoughDielectric, MatchesWalter) {
    const TestFrame f = test_frame();
    for (double ior : {1.5, 2.4})
        for (double rough : {0.1, 0.5, 1.0}) {
            const Material m = rough_glass(ior, rough);
            const double a2 = sq(rough * rough), F0 = sq((ior - 1) / (ior + 1));
            const double r = F0 / (4 * kPi * a2), t_in = (1 - F0) * ior * ior / (kPi * a2 * sq(ior - 1));
            EXPECT_NEAR(bsdf_f(m, f.n, f.n, f.n).g, r, 1e-12 * r);
            EXPECT_NEAR(bsdf_f(m, f.n, -f.n, -f.n).g, r, 1e-12 * r);
            EXPECT_NEAR(bsdf_f(m, f.n, f.n, -f.n).g, t_in, 1e-12 * t_in);
            EXPECT_NEAR(bsdf_f(m, f.n, -f.n, f.n).g, t_in / (ior * ior), 1e-12 * t_in);
        }
    Lcg rng{18};
    auto random_dir = [&rng] {
        const double z = 1 - 2 * rng(), r = std::sqrt(1 - z * z), phi = 2 * kPi * rng();
        return Vec3{r * std::cos(phi), r * std::sin(phi), z};
    };
    int transmitted = 0;
    for (int k = 0; k < 4000; ++k) {
        const double ior = 1.1 + 1.5 * rng();
        const Material m = rough_glass(ior, 0.1 + 0.9 * rng());
        const Vec3 wo = random_dir(), wi = random_dir();
        const double eta_i = dot(wi, f.n) > 0 ? 1 : ior, eta_o = dot(wo, f.n) > 0 ? 1 : ior;
        const double expected = walter_literal(ior, m.roughness, f.n, wi, wo) * sq(eta_i / eta_o);
        EXPECT_NEAR(bsdf_f(m, f.n, wo, wi).g, expected, 1e-9 * expected) << k;
        transmitted += eta_i != eta_o && expected > 0;
    }
    EXPECT_GT(transmitted, 400);
}

// Reciprocity: the glTF BRDF is symmetric; the rough dielectric's reflection
// is symmetric and its transmission, without radiance scaling, satisfies
// f(wo, wi) / eta(wi)^2 = f(wi, wo) / eta(wo)^2 (eta(w): the index of w's side).
TEST(PathReferenceBsdf, Reciprocity) {
    const TestFrame f = test_frame();
    Lcg rng{19};
    auto random_dir = [&rng] {
        const double z = 1 - 2 * rng(), r = std::sqrt(1 - z * z), phi = 2 * kPi * rng();
        return Vec3{r * std::cos(phi), r * std::sin(phi), z};
    };
    int through = 0;
    for (int k = 0; k < 4000; ++k) {
        const Vec3 a = random_dir(), b = random_dir();
        const Material g = gltf({rng(), rng(), rng()}, rng(), rng(), 1 + rng());
        const Rgb gab = bsdf_f(g, f.n, a, b), gba = bsdf_f(g, f.n, b, a);
        expect_near_rgb(gab, gba, 1e-12 * max_component(gab), "gltf");
        const double ior = 1.1 + 1.5 * rng();
        const Material d = rough_glass(ior, 0.03 + 0.97 * rng());
        const double eta_a = dot(a, f.n) > 0 ? 1 : ior, eta_b = dot(b, f.n) > 0 ? 1 : ior;
        const double dab = bsdf_f(d, f.n, a, b).g, dba = bsdf_f(d, f.n, b, a).g;
        // 1 - F loses digits near total internal reflection: a small absolute floor.
        EXPECT_NEAR(dab / sq(eta_b), dba / sq(eta_a), 1e-9 * dab / sq(eta_b) + 1e-15) << k;
        through += eta_a != eta_b && dab > 0;
    }
    EXPECT_GT(through, 400);
}

namespace {
struct BsdfCase {
    Material m;
    double theta_deg;  // of wo from n, towards t; beyond 90: below the surface
    const char* what;
};
std::vector<BsdfCase> bsdf_cases() {
    return {
        {gltf({0.9, 0.6, 0.3}, 0.0, 0.3), 0, "gltf diel r0.3 0deg"},
        {gltf({0.9, 0.6, 0.3}, 0.3, 0.5), 60, "gltf m0.3 r0.5 60deg"},
        {gltf({0.95, 0.64, 0.54}, 1.0, 0.4), 75, "gltf metal r0.4 75deg"},
        {gltf({0.2, 0.8, 0.5}, 0.6, 1.0, 1.3), 35, "gltf m0.6 r1 ior1.3 35deg"},
        {gltf({0.9, 0.6, 0.3}, 0.0, 0.6), 140, "gltf diel r0.6 back 40deg"},
        {rough_glass(1.5, 0.3, {1, 0.7, 0.4}, {0.3, 0.6, 0.9}), 0, "glass r0.3 0deg tinted"},
        {rough_glass(1.5, 0.5), 60, "glass r0.5 60deg"},
        {rough_glass(1.5, 0.5), 150, "glass r0.5 inside 30deg"},
        {rough_glass(1.5, 0.4), 130, "glass r0.4 inside 50deg (past critical)"},
        {rough_glass(2.0, 0.9), 80, "glass n2 r0.9 80deg"},
        {rough_glass(1.33, 0.7), 165, "water r0.7 inside 15deg"},
    };
}
}  // namespace

// (a) E[f |cos| / pdf] over sampled directions = the integral of f |cos| over
// the sphere by quadrature, per channel. The quadrature's own error is taken
// as twice |Q(n) - Q(n/2)| (the rough dielectric's f jumps where the
// microfacet normal turns horizontal) and must itself be small.
TEST(PathReferenceBsdf, SamplingMatchesQuadrature) {
    const TestFrame f = test_frame();
    const std::vector<BsdfCase> cases = bsdf_cases();
    const double k = bonferroni_k(static_cast<int>(cases.size()) * 3, kFamilyAlpha);
    Lcg rng{20};
    for (const BsdfCase& c : cases) {
        const Vec3 wo = at_angle(f, c.theta_deg);
        const Rgb q = quad_f_cos(c.m, f, wo, 400), q_half = quad_f_cos(c.m, f, wo, 200);
        const int n = 200000;
        Rgb sum, sum2;
        for (int s = 0; s < n; ++s) {
            BsdfSample bs;
            const double u0 = rng(), u1 = rng(), u2 = rng();
            if (!sample_bsdf(c.m, f.n, wo, u0, u1, u2, &bs)) continue;
            sum = sum + bs.weight;
            sum2 = sum2 + bs.weight * bs.weight;
        }
        for (int i = 0; i < 3; ++i) {
            const double mean = ch(sum, i) / n;
            const double se = std::sqrt(std::max(0.0, ch(sum2, i) / n - mean * mean) / (n - 1));
            const double qerr = 2 * std::fabs(ch(q, i) - ch(q_half, i));
            EXPECT_LT(qerr, 2e-3 * ch(q, i)) << c.what << " quadrature not converged";
            EXPECT_LE(std::fabs(mean - ch(q, i)), k * se + qerr) << c.what << " ch" << i;
            EXPECT_LT(se, 0.01 * ch(q, i)) << c.what;
            if (i == 1)
                std::printf("  %-40s quadrature %.5f (+-%.1e)  sampled %.5f se %.1e\n", c.what, ch(q, i),
                            qerr, mean, se);
        }
    }
}

// (b) The pdf is the density of the samples: each sample's pdf and weight are
// bsdf_pdf and f |cos| / pdf there; the pdf integrates to <= 1 (samples
// falling on the wrong side are discarded); and a chi-square test of the
// sample counts in 24 x 48 equal-area cells (plus "no sample") against the
// integral of the pdf over each cell (a 16 x 16 sub-grid).
TEST(PathReferenceBsdf, PdfIsTheSampleDensity) {
    const TestFrame f = test_frame();
    const std::vector<BsdfCase> cases = bsdf_cases();
    const int NZ = 24, NP = 48, SUB = 16, n = 200000;
    // One-sided quantile for the Bonferroni-corrected level, and the chi-square
    // critical value by Wilson-Hilferty.
    const double z = bonferroni_k(static_cast<int>(cases.size()), 2 * kFamilyAlpha);
    Lcg rng{21};
    for (const BsdfCase& c : cases) {
        const Vec3 wo = at_angle(f, c.theta_deg);
        std::vector<double> expected(NZ * NP, 0.0);
        for_sphere_cells(f, NZ * SUB, NP * SUB, [&](Vec3 wi, int band, int sector) {
            expected[(band / SUB) * NP + sector / SUB] += bsdf_pdf(c.m, f.n, wo, wi);
        });
        double total = 0;
        for (double& e : expected) total += (e *= 4 * kPi / (double(NZ * SUB) * NP * SUB));
        EXPECT_LE(total, 1 + 1e-4) << c.what;
        EXPECT_GT(total, 0.5) << c.what;
        std::vector<double> count(NZ * NP, 0.0);
        double failed = 0;
        int bad_weight = 0;
        for (int s = 0; s < n; ++s) {
            BsdfSample bs;
            const double u0 = rng(), u1 = rng(), u2 = rng();
            if (!sample_bsdf(c.m, f.n, wo, u0, u1, u2, &bs)) {
                failed += 1;
                continue;
            }
            const double pdf = bsdf_pdf(c.m, f.n, wo, bs.wi);
            ASSERT_NEAR(bs.pdf, pdf, 1e-9 * pdf) << c.what;
            const Rgb w = bsdf_f(c.m, f.n, wo, bs.wi) * (std::fabs(dot(bs.wi, f.n)) / pdf);
            const Rgb diff = bs.weight - w;
            bad_weight +=
                std::max({std::fabs(diff.r), std::fabs(diff.g), std::fabs(diff.b)}) > 1e-9 * max_component(w);
            int band, sector;
            sphere_cell(f, bs.wi, NZ, NP, band, sector);
            count[band * NP + sector] += 1;
        }
        EXPECT_EQ(bad_weight, 0) << c.what << ": sample weights differ from f |cos| / pdf";
        // Cells expecting < 5 samples are pooled into one.
        double chi2 = 0, pooled_e = 0, pooled_c = 0;
        int df = 0;
        auto add = [&](double e, double o) {
            chi2 += sq(o - e) / e;
            ++df;
        };
        for (int i = 0; i < NZ * NP; ++i) {
            const double e = expected[i] * n;
            if (e >= 5) {
                add(e, count[i]);
            } else {
                pooled_e += e;
                pooled_c += count[i];
            }
        }
        if (pooled_e >= 5) add(pooled_e, pooled_c);
        if ((1 - total) * n >= 5) add((1 - total) * n, failed);
        df -= 1;  // the counts sum to n
        const double crit = df * std::pow(1 - 2.0 / (9 * df) + z * std::sqrt(2.0 / (9 * df)), 3);
        EXPECT_LT(chi2, crit) << c.what;
        std::printf("  %-40s pdf integral %.5f (no sample %.5f)  chi2 %.1f df %d (critical %.1f)\n", c.what,
                    total, failed / n, chi2, df, crit);
    }
}

// (d) White furnace of single scattering: the directional albedo
// E[f |cos| / pdf] with white base colour / tints. The metal glTF BRDF and the
// rough dielectric lose energy (<= 1) and the dielectric approaches 1 as
// roughness -> 0 (its sample weight is G1(wi) <= 1). The glTF dielectric
// (metallic 0) is not energy-conserving: fresnel_mix weighs the diffuse
// lobe by 1 - F(v.h) with h between v and l, so at grazing views specular
// (F(v.n) large) and diffuse (F small) add up to more than 1; printed, and
// checked against a quadrature value at 80 degrees.
TEST(PathReferenceBsdf, WhiteFurnaceAlbedo) {
    const TestFrame f = test_frame();
    const int n = 100000;
    Lcg rng{22};
    int above_one = 0;  // single samples of weight > 1 where G1(wi) <= 1 bounds it
    auto albedo = [&](const Material& m, Vec3 wo, double* se) {
        double sum = 0, sum2 = 0;
        for (int s = 0; s < n; ++s) {
            BsdfSample bs;
            const double u0 = rng(), u1 = rng(), u2 = rng();
            if (!sample_bsdf(m, f.n, wo, u0, u1, u2, &bs)) continue;
            sum += bs.weight.g;
            sum2 += bs.weight.g * bs.weight.g;
            if (m.type == Material::RoughDielectric || m.metallic == 1) above_one += bs.weight.g > 1 + 1e-12;
        }
        *se = std::sqrt(std::max(0.0, sum2 / n - sq(sum / n)) / (n - 1));
        return sum / n;
    };
    const double k = bonferroni_k(4 * 4 + 2 + 4, kFamilyAlpha);
    for (double metallic : {1.0, 0.0}) {
        std::printf("  gltf metallic %.0f, albedo at 0 / 45 / 70 / 85 deg:\n", metallic);
        for (double rough : {0.0, 0.3, 0.6, 1.0}) {
            std::printf("    roughness %.1f:", rough);
            for (double th : {0.0, 45.0, 70.0, 85.0}) {
                double se;
                const double a = albedo(gltf({1, 1, 1}, metallic, rough), at_angle(f, th), &se);
                if (metallic == 1) {
                    EXPECT_LE(a, 1 + k * se) << rough << " " << th;
                }
                std::printf(" %.4f", a);
            }
            std::printf("\n");
        }
    }
    // Roughness 1, metallic 1 at normal incidence: D = 1 / pi, G1(wo) = 1,
    // G1(wi) = 2 cos / (1 + cos), so the albedo is 1 - ln 2.
    double se;
    const double a1 = albedo(gltf({1, 1, 1}, 1, 1), f.n, &se);
    EXPECT_LE(std::fabs(a1 - (1 - std::log(2.0))), k * se) << a1;
    // The glTF dielectric above 1 at 80 deg, by quadrature and by sampling.
    const Material diel = gltf({1, 1, 1}, 0, 0.5);
    const double q = quad_f_cos(diel, f, at_angle(f, 80), 400).g;
    const double a80 = albedo(diel, at_angle(f, 80), &se);
    EXPECT_GT(q, 1.02);
    EXPECT_LE(std::fabs(a80 - q), k * se + 1e-3 * q);
    std::printf("  gltf dielectric r0.5 at 80 deg: quadrature %.5f, sampled %.5f se %.1e\n", q, a80, se);
    std::printf(
        "  rough dielectric n=1.5, albedo (R + T) at 0 / 45 / 70 / 85 deg / inside 20 / inside 50 deg:\n");
    double prev[6] = {0, 0, 0, 0, 0, 0};
    for (double rough : {1.0, 0.5, 0.2, 0.05}) {
        std::printf("    roughness %.2f:", rough);
        int col = 0;
        for (double th : {0.0, 45.0, 70.0, 85.0, 160.0, 130.0}) {
            const double a = albedo(rough_glass(1.5, rough), at_angle(f, th), &se);
            EXPECT_LE(a, 1.0);
            EXPECT_GE(a, prev[col] - k * se) << "albedo should grow as roughness falls";
            if (rough == 0.05) {
                EXPECT_GT(a, th == 85.0 ? 0.995 : 0.999) << th;
            }
            prev[col++] = a;
            std::printf(" %.4f", a);
        }
        std::printf("\n");
    }
    EXPECT_EQ(above_one, 0) << "samples of weight > 1 (metal glTF, rough dielectric)";
}

namespace {
// An 8 x 4 map with a different colour in every texel (turned by 30 deg), for
// the single-bounce renders below.
Environment varied_map() {
    Environment env = black_map(8, 4);
    for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 8; ++i)
            env.texels[static_cast<size_t>(j) * 8 + i] = {0.3 + 0.2 * i, 1.5 - 0.3 * j,
                                                          0.4 + 0.1 * ((i + 2 * j) % 5)};
    env.rotation_deg = 30;
    return env;
}
// Quadrature frame for a horizontal surface (normal +y) seen in the x-y plane:
// the pole +z is perpendicular to the plane of incidence.
TestFrame horizontal_frame() {
    return {{0, 1, 0}, {1, 0, 0}, {0, 0, 1}};
}
}  // namespace

// A glTF plane (y = 0, normal +y) lit by the environment map and a square
// emitter (y = 1, facing down, beside the mirror direction so that the glossy
// lobe straddles it), one bounce: the radiance towards the camera is
// L = integral of f cos L_env over the hemisphere (sphere quadrature) plus
// the integral over the emitter of f cos (Le - L_env) (area quadrature,
// d omega = cos_l dA / d^2). All three strategies: NEE with the BSDF's f and
// pdf, MIS with both kinds of light.
TEST(PathReferenceGltf, PlaneUnderEnvironmentAndAreaLight) {
    const Rgb le{4, 3, 2};
    const double ex0 = 0.1, ex1 = 1.1, ez0 = -0.5, ez1 = 0.5, ey = 1;  // the emitter
    const Vec3 eye{-1.5, 1.2, 0}, p{0, 0, 0};
    const Vec3 wo = normalize(eye - p);
    const TestFrame f = horizontal_frame();
    struct Case {
        Material m;
        const char* what;
    };
    const Case cases[] = {{gltf({0.9, 0.6, 0.3}, 0.0, 0.5), "dielectric r0.5"},
                          {gltf({0.95, 0.64, 0.54}, 1.0, 0.35), "metal r0.35"}};
    const double k = bonferroni_k(2 * 3 * 3, kFamilyAlpha);
    for (const Case& c : cases) {
        Scene s;
        s.environment = varied_map();
        add_square_y(s, 0, 10, true, s.add_material(c.m));
        s.add_quad({ex0, ey, ez0}, {ex1, ey, ez0}, {ex1, ey, ez1}, {ex0, ey, ez1},
                   s.add_material(diffuse({}, le)));
        ASSERT_LT(cross(Vec3{ex1 - ex0, 0, 0}, Vec3{ex1 - ex0, 0, ez1 - ez0}).y, 0)
            << "the emitter faces down";
        Rgb expected;
        const int nz = 400;
        for_sphere_cells(f, nz, 3 * nz, [&](Vec3 wi, int, int) {
            expected = expected + bsdf_f(c.m, f.n, wo, wi) * environment_radiance(s.environment, wi) *
                                      std::max(0.0, wi.y);
        });
        expected = expected * (4 * kPi / (3.0 * nz * nz));
        const int na = 300;
        Rgb direct;
        for (int a = 0; a < na; ++a)
            for (int b = 0; b < na; ++b) {
                const Vec3 q{ex0 + (ex1 - ex0) * (a + 0.5) / na, ey, ez0 + (ez1 - ez0) * (b + 0.5) / na};
                const double d2 = dot(q - p, q - p);
                const Vec3 wi = (q - p) * (1 / std::sqrt(d2));
                const double dw = wi.y / d2 * (ex1 - ex0) * (ez1 - ez0) / (na * na);
                direct = direct + bsdf_f(c.m, f.n, wo, wi) * (le - environment_radiance(s.environment, wi)) *
                                      (wi.y * dw);
            }
        expected = expected + direct;
        for (Strategy st : kStrategies) {
            RenderOptions o;
            o.seed = 120;  // own seed per test: tests sharing a seed share sample directions
            o.spp = st == Strategy::Mis ? 100000 : (st == Strategy::BsdfOnly ? 200000 : 400000);
            o.max_depth = 1;
            o.strategy = st;
            const auto t0 = std::chrono::steady_clock::now();
            const Estimate e = estimate_ray(s, eye, p - eye, o);
            const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            char what[96];
            std::snprintf(what, sizeof what, "%s %s %.2f s", c.what, name(st), secs);
            expect_estimate(e, expected, k, 0.01, what);
        }
    }
}

// A rough dielectric plane (y = 0, front +y, n = 1.5, tinted) in a map
// bright above and dim below, seen from above and from below, one bounce:
// L = integral of f |cos| L_env over the whole sphere, reflection and
// transmission. The glass absorbs green (sigma = (0, 2, 0)): light
// transmitted into it from below never arrives (an infinite path inside),
// so seen from above green gets the reflected part only; seen from below the
// camera is outside by convention and nothing is absorbed. No NEE at rough
// dielectric vertices: every strategy counts the environment with weight 1
// there (LightOnly would otherwise give 0).
TEST(PathReferenceRoughDielectric, PlaneUnderEnvironment) {
    Material m = rough_glass(1.5, 0.5, {1, 0.8, 0.6}, {0.7, 0.9, 1});
    m.absorption = {0, 2, 0};
    Scene s;
    s.environment = varied_map();
    add_square_y(s, 0, 10, true, s.add_material(m));
    const TestFrame f = horizontal_frame();
    const Vec3 p{0, 0, 0};
    const double k = bonferroni_k(2 * 3 * 3, kFamilyAlpha);
    for (const Vec3 eye : {Vec3{-1.5, 1.2, 0}, Vec3{1.0, -1.8, 0}}) {
        const Vec3 wo = normalize(eye - p);
        Rgb expected;
        const int nz = 400;
        for_sphere_cells(f, nz, 3 * nz, [&](Vec3 wi, int, int) {
            Rgb l = bsdf_f(m, f.n, wo, wi) * environment_radiance(s.environment, wi) * std::fabs(wi.y);
            if (wo.y > 0 && wi.y < 0) l.g = 0;  // transmitted into the absorbing glass
            expected = expected + l;
        });
        expected = expected * (4 * kPi / (3.0 * nz * nz));
        for (Strategy st : kStrategies) {
            RenderOptions o;
            o.seed = 121;  // own seed per test: tests sharing a seed share sample directions
            o.spp = 100000;
            o.max_depth = 1;
            o.strategy = st;
            char what[96];
            std::snprintf(what, sizeof what, "from %s %s", wo.y > 0 ? "above" : "below", name(st));
            // 2 %: green from above is the small reflected part alone.
            expect_estimate(estimate_ray(s, eye, p - eye, o), expected, k, 0.02, what);
        }
    }
}

// Roughness below the threshold (alpha < kMinMicrofacetAlpha) and ior 1 are
// the smooth Dielectric exactly: bit-identical images. And the tints, in a
// slab at normal incidence: T = (1 - R)^2 t_t^2 a / (1 - R^2 t_r^2 a^2) per
// channel (a = e^{-sigma d}), the inner reflections tinted by t_r.
TEST(PathReferenceRoughDielectric, SmoothLimitIsTheDielectric) {
    for (double ior : {1.5, 1.0}) {
        Scene s = furnace(0.5, {1, 1, 1});
        s.materials[0].two_sided_emission = true;
        Material glass;
        glass.type = Material::Dielectric;
        glass.ior = ior;
        glass.absorption = {0.5, 0.1, 0};
        const int g = s.add_material(glass);
        s.add_sphere({0.3, 0, 0}, 0.4, g);
        RenderOptions o;
        o.seed = 122;
        o.spp = 16;
        o.max_depth = 20;
        const Image a = render(s, furnace_camera(), o);
        // alpha = 0 and 9e-4; with ior 1 any roughness (the interface is invisible).
        for (double rough : {0.0, ior == 1 ? 0.5 : 0.03}) {
            s.materials[g].type = Material::RoughDielectric;
            s.materials[g].roughness = rough;
            EXPECT_TRUE(is_delta(s.materials[g]));
            const Image b = render(s, furnace_camera(), o);
            for (size_t i = 0; i < a.mean.size(); ++i) {
                EXPECT_EQ(a.mean[i].r, b.mean[i].r) << ior << " " << rough;
                EXPECT_EQ(a.mean[i].g, b.mean[i].g) << ior << " " << rough;
            }
        }
    }
    EXPECT_FALSE(is_delta(rough_glass(1.5, 0.04)));
    const Rgb le{1, 2, 0.5}, tr{0.9, 0.7, 0.5}, tt{0.8, 0.6, 1.0}, sigma{0.3, 1, 0};
    const double ior = 2.5, d = 0.5, R = sq((ior - 1) / (ior + 1));
    Scene s = slab_scene(ior, d, sigma, le);
    s.materials[0] = rough_glass(ior, 0, tr, tt);
    s.materials[0].absorption = sigma;
    Rgb expected;
    for (int i = 0; i < 3; ++i) {
        const double a = std::exp(-ch(sigma, i) * d);
        const double T = sq(1 - R) * sq(ch(tt, i)) * a / (1 - R * R * sq(ch(tr, i)) * a * a);
        (i == 0 ? expected.r : i == 1 ? expected.g : expected.b) = ch(le, i) * T;
    }
    RenderOptions o;
    o.seed = 123;
    o.spp = 200000;
    o.max_depth = 64;
    expect_estimate(estimate_ray(s, {0.1, 0.2, 5}, {0, 0, -1}, o), expected, bonferroni_k(3, kFamilyAlpha),
                    0.003, "tinted slab");
}

// Multiple bounces: a metal and a dielectric glTF floor, a glTF sphere, a
// rough glass sphere (absorbing) and a square emitter under the environment
// map. Mis, BsdfOnly and LightOnly agree in each quarter of the image (a
// wrong MIS weight or pdf at Gltf vertices, or emission after a rough
// dielectric vertex dropped by LightOnly, would separate them).
TEST(PathReferenceBsdf, StrategiesAgreeInAScene) {
    Scene s;
    s.environment = varied_map();
    s.environment.intensity = 0.5;
    add_square_y(s, 0, 3, true, s.add_material(gltf({0.95, 0.64, 0.54}, 1, 0.4)), -3, 0);
    add_square_y(s, 0, 3, true, s.add_material(gltf({0.2, 0.5, 0.8}, 0, 0.3)), 3, 0);
    s.add_sphere({-0.8, 0.7, 0}, 0.7, s.add_material(gltf({0.8, 0.8, 0.3}, 0.5, 0.6)));
    Material glass = rough_glass(1.5, 0.3);
    glass.absorption = {0.2, 0.1, 0.6};
    s.add_sphere({0.9, 0.6, 0.2}, 0.6, s.add_material(glass));
    add_square_y(s, 2.5, 0.4, false, s.add_material(diffuse({}, {12, 10, 8})), 0.2, 0.5);
    Camera cam;
    cam.from = {0.3, 1.6, 4};
    cam.at = {0, 0.5, 0};
    cam.hfov_deg = 50;
    cam.width = cam.height = 8;
    Estimate quarter[3][4];
    for (int si = 0; si < 3; ++si) {
        RenderOptions o;
        o.seed = 124;  // own seed per test: tests sharing a seed share sample directions
        o.spp = kStrategies[si] == Strategy::Mis ? 4096 : 8192;
        o.max_depth = 6;
        o.strategy = kStrategies[si];
        const auto t0 = std::chrono::steady_clock::now();
        const Image img = render(s, cam, o);
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        for (int q = 0; q < 4; ++q) quarter[si][q] = region_stats(img, (q % 2) * 4, (q / 2) * 4, 4, 4);
        std::printf("  %-9s %.2f s  quarters (g):", name(kStrategies[si]), secs);
        for (int q = 0; q < 4; ++q) std::printf(" %.4f (se %.1e)", quarter[si][q].mean.g, quarter[si][q].se.g);
        std::printf("\n");
    }
    const double k = bonferroni_k(4 * 3 * 3, kFamilyAlpha);
    for (int q = 0; q < 4; ++q) {
        for (int i = 0; i < 3; ++i) EXPECT_LT(ch(quarter[0][q].se, i), 0.02 * ch(quarter[0][q].mean, i));
        for (int a = 0; a < 3; ++a)
            for (int b = a + 1; b < 3; ++b)
                expect_agree(quarter[a][q], quarter[b][q], k,
                             std::string(name(kStrategies[a])) + " vs " + name(kStrategies[b]) + " quarter " +
                                 std::to_string(q));
    }
}
