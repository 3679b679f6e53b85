// test_bsdf.cpp - the path integrator's material model (render/bsdf.h) and its sampling
// arithmetic (render/sampling.h) against the formulas, computed here in double:
//   - Fresnel and Snell at many angles, with total internal reflection;
//   - the portable sine, cosine and exp against libm in double;
//   - every sampled lobe: a chi-square test of its directions against its pdf, binned over
//     the sphere with the expected counts integrated from the pdf (as Mitsuba 3's
//     src/bsdfs/tests do), the absorbed samples a bin of their own; a wrong pdf must fail it;
//   - each sample's weight against f cos / pdf in closed form;
//   - a white furnace of each BSDF alone: the mean weight (the albedo) at most 1, and 1
//     for the lossless ones.
#include "render/bsdf.h"
#include "render/sampling.h"
#include "support/bsdf_checks.h"
#include "support/chi_square.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace srt::test;
using srt::BsdfParams;
using srt::BsdfSample;

// Unpolarised Fresnel from the s and p amplitudes, in double (Hecht, Optics, 4.34 and 4.40).
double fresnel_double(double cos_i, double n_i, double n_t) {
    const double sin_i = std::sqrt(std::max(0.0, 1.0 - cos_i * cos_i));
    const double sin_t = n_i / n_t * sin_i;
    if (sin_t >= 1.0) return 1.0;
    const double cos_t = std::sqrt(1.0 - sin_t * sin_t);
    const double rs = (n_i * cos_i - n_t * cos_t) / (n_i * cos_i + n_t * cos_t);
    const double rp = (n_t * cos_i - n_i * cos_t) / (n_t * cos_i + n_i * cos_t);
    return 0.5 * (rs * rs + rp * rp);
}

TEST(Bsdf, FresnelAgreesWithTheSAndPFormulasAtEveryAngle) {
    for (const double eta : {1.0 / 2.4, 1.0 / 1.5, 1.0 / 1.33, 1.33, 1.5, 2.4}) {
        const double critical = eta < 1.0 ? std::asin(eta) : 10.0;
        for (int k = 0; k <= 900; ++k) {
            const double theta = k * (0.5 * M_PI / 900.0);
            const double cos_i = std::cos(theta);
            const float got = srt::fresnel_dielectric(float(cos_i), float(eta));
            const double want = fresnel_double(double(float(cos_i)), 1.0, double(float(eta)));
            // Within half a degree of the critical angle F's slope is unbounded, and the float
            // cosine's rounding alone moves it by more.
            const double tol = std::fabs(theta - critical) < 0.5 * M_PI / 180.0 ? 2e-4 : 2e-6;
            ASSERT_NEAR(got, want, tol) << "eta " << eta << " theta " << theta;
            if (theta > critical + 1e-4) EXPECT_EQ(got, 1.0f) << "no total internal reflection at " << theta;
        }
        // Normal incidence: ((n - 1) / (n + 1))^2.
        EXPECT_NEAR(srt::fresnel_dielectric(1.0f, float(eta)), std::pow((eta - 1.0) / (eta + 1.0), 2.0), 1e-7);
    }
}

TEST(Bsdf, RefractionFollowsSnellsLaw) {
    for (const double eta : {1.0 / 1.5, 1.33, 1.5, 2.4}) {
        for (int k = 0; k < 200; ++k) {
            const double theta = k * (0.5 * M_PI / 200.0), phi = 0.7 + 0.03 * k;
            const glm::vec3 wo(float(std::sin(theta) * std::cos(phi)), float(std::sin(theta) * std::sin(phi)),
                               float(std::cos(theta)));
            glm::vec3 wt;
            const bool ok = srt::refract_local(wo, float(eta), wt);
            const double sin_t = std::sin(theta) / eta;
            ASSERT_EQ(ok, sin_t < 1.0 - 1e-6 || (sin_t < 1.0 + 1e-6 && ok)) << eta << " " << theta;
            if (!ok) continue;
            EXPECT_NEAR(glm::length(wt), 1.0, 1e-6);
            EXPECT_LT(wt.z, 0.0f);
            EXPECT_NEAR(std::sqrt(double(wt.x) * wt.x + double(wt.y) * wt.y), sin_t, 2e-6);  // n_i sin_i = n_t sin_t
            // In the plane of incidence, on the far side of the normal.
            EXPECT_NEAR(double(wt.x) * wo.y - double(wt.y) * wo.x, 0.0, 1e-6);
            EXPECT_LE(double(wt.x) * wo.x + double(wt.y) * wo.y, 1e-7);
        }
    }
}

TEST(Sampling, PortableSinCosAndExpAgreeWithLibmInDouble) {
    double worst_sc = 0.0, worst_exp = 0.0;
    for (int k = 0; k <= 100000; ++k) {
        const float u = float(k) / 100000.0f;
        float s, c;
        srt::sincos_turns(u, s, c);
        const double a = 2.0 * M_PI * double(u);
        worst_sc = std::max({worst_sc, std::fabs(s - std::sin(a)), std::fabs(c - std::cos(a))});
    }
    for (int k = -8600; k <= 8700; ++k) {
        const float x = float(k) * 0.01f;
        const double want = std::exp(double(x));
        worst_exp = std::max(worst_exp, std::fabs(srt::exp_portable(x) - want) / want);
    }
    EXPECT_LT(worst_sc, 3e-7);
    EXPECT_LT(worst_exp, 3e-7);
    EXPECT_EQ(srt::exp_portable(-100.0f), 0.0f);
}

TEST(Sampling, FrameIsOrthonormalAroundAnyNormal) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (int k = 0; k < 10000; ++k) {
        const glm::vec3 n = srt::sample_uniform_sphere(u(rng), u(rng));
        const srt::Frame f = srt::Frame::around(glm::normalize(n));
        EXPECT_NEAR(glm::dot(f.t, f.t), 1.0f, 1e-5f);
        EXPECT_NEAR(glm::dot(f.b, f.b), 1.0f, 1e-5f);
        EXPECT_NEAR(glm::dot(f.t, f.b), 0.0f, 1e-5f);
        EXPECT_NEAR(glm::dot(f.t, f.n), 0.0f, 1e-5f);
        EXPECT_NEAR(glm::dot(f.b, f.n), 0.0f, 1e-5f);
        const glm::vec3 v(0.3f, -0.5f, 0.8f);
        const glm::vec3 back = f.to_local(f.to_world(v));
        EXPECT_NEAR(glm::length(back - v), 0.0f, 1e-5f);
    }
}

// ---------------------------------------------------------------------------
// Chi-square of sampled directions against a pdf
// ---------------------------------------------------------------------------

struct Case {
    std::string name;
    BsdfParams b;
    glm::vec3 wo;
};

std::vector<Case> sampled_cases() {
    std::vector<Case> cases;
    BsdfParams lambert;
    lambert.diffuse = glm::vec3(0.7f, 0.5f, 0.3f);
    cases.push_back({"lambert", lambert, direction(30, 20)});
    // alpha 0.01 (roughness 0.1): a lobe half a degree wide, which the bins' integration
    // still resolves.
    for (const float alpha : {0.01f, 0.05f, 0.2f, 0.5f, 1.0f})
        for (const double theta : {0.0, 40.0, 80.0}) {
            BsdfParams g;
            g.specular = glm::vec3(0.9f, 0.8f, 0.6f);
            g.alpha = alpha;
            cases.push_back({"ggx alpha " + std::to_string(alpha) + " theta " + std::to_string(theta), g,
                             direction(theta, 110)});
        }
    BsdfParams mix;
    mix.diffuse = glm::vec3(0.4f);
    mix.specular = glm::vec3(0.5f);
    mix.alpha = 0.3f;
    cases.push_back({"diffuse + ggx", mix, direction(60, 250)});
    return cases;
}

// 400k samples over 1152 bins: the right pdfs give z between -1.1 and 1.3, a pdf whose
// alpha is 10% off gives z = 57 (Bsdf.ChiSquareRejectsAWrongPdf; SRT_PRINT_CHI2=1 prints them).
constexpr int kSamples = 400000;
constexpr double kRejectZ = 4.5;  // one-sided p ~ 3e-6 per test

TEST(Bsdf, SampledDirectionsFollowThePdf) {
    uint32_t seed = 1;
    for (const Case& c : sampled_cases()) {
        SCOPED_TRACE(c.name);
        const ChiSquare x = chi_square(
            kSamples,
            [&](float u0, float u1, float u2, glm::vec3& w) {
                const BsdfSample s = srt::bsdf_sample(c.b, c.wo, u0, u1, u2);
                w = s.wi;
                return s.valid;
            },
            [&](const glm::vec3& wi) { return double(srt::bsdf_pdf(c.b, c.wo, wi)); }, seed++);
        EXPECT_LT(x.z, kRejectZ) << "X^2 = " << x.statistic << " with " << x.dof << " degrees of freedom";
        if (std::getenv("SRT_PRINT_CHI2")) std::printf("%s: z %.2f\n", c.name.c_str(), x.z);
    }
}

TEST(Bsdf, ChiSquareRejectsAWrongPdf) {
    BsdfParams g;
    g.specular = glm::vec3(1.0f);
    g.alpha = 0.3f;
    BsdfParams wrong = g;
    wrong.alpha = 0.33f;
    const glm::vec3 wo = direction(40, 0);
    const ChiSquare x = chi_square(
        kSamples,
        [&](float u0, float u1, float u2, glm::vec3& w) {
            const BsdfSample s = srt::bsdf_sample(g, wo, u0, u1, u2);
            w = s.wi;
            return s.valid;
        },
        [&](const glm::vec3& wi) { return double(srt::bsdf_pdf(wrong, wo, wi)); }, 99);
    EXPECT_GT(x.z, kRejectZ) << "a pdf 10% off in alpha passed: X^2 = " << x.statistic;
    if (std::getenv("SRT_PRINT_CHI2")) std::printf("wrong pdf: z %.2f\n", x.z);
}

// Each sample's weight in closed form: a Lambertian surface returns its albedo; the GGX
// conductor F(wo.h) G2(wo, wi) / G1(wo) (Heitz 2018, eq. 19); each weight is f cos / pdf.
TEST(Bsdf, WeightsAreFCosOverPdf) {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (const Case& c : sampled_cases()) {
        SCOPED_TRACE(c.name);
        for (int k = 0; k < 2000; ++k) {
            const BsdfSample s = srt::bsdf_sample(c.b, c.wo, u(rng), u(rng), u(rng));
            if (!s.valid) continue;
            const glm::vec3 f = srt::bsdf_eval(c.b, c.wo, s.wi);
            const float pdf = srt::bsdf_pdf(c.b, c.wo, s.wi);
            ASSERT_GT(pdf, 0.0f);
            ASSERT_TRUE(std::isfinite(pdf) && std::isfinite(f.x) && std::isfinite(s.weight.x));
            for (int ch = 0; ch < 3; ++ch) EXPECT_NEAR(s.weight[ch], f[ch] * s.wi.z / pdf, 1e-5f * (1.0f + f[ch] * s.wi.z / pdf));
            if (c.name == "lambert") {
                for (int ch = 0; ch < 3; ++ch) EXPECT_NEAR(s.weight[ch], c.b.diffuse[ch], 1e-5f);
            } else if (c.b.diffuse == glm::vec3(0.0f)) {
                const glm::vec3 h = glm::normalize(c.wo + s.wi);
                const double a = c.b.alpha;
                auto lambda = [a](const glm::vec3& w) {
                    const double t2 = (double(w.x) * w.x + double(w.y) * w.y) / (double(w.z) * w.z);
                    return 0.5 * (std::sqrt(1.0 + a * a * t2) - 1.0);
                };
                const double g2_over_g1 = (1.0 + lambda(c.wo)) / (1.0 + lambda(c.wo) + lambda(s.wi));
                const double m = 1.0 - double(glm::dot(c.wo, h));
                for (int ch = 0; ch < 3; ++ch) {
                    const double f0 = c.b.specular[ch];
                    const double want = (f0 + (1.0 - f0) * std::pow(m, 5.0)) * g2_over_g1;
                    EXPECT_NEAR(s.weight[ch], want, 2e-4 * want + 1e-6);
                }
            }
        }
    }
}

// The closed form above where alpha is smallest before the lobe becomes a delta
// (kGgxSmoothAlpha), at grazing angles too: f and the pdf rebuild the half vector from
// wo + wi, and D, G and their quotient must keep their digits there.
TEST(Bsdf, WeightsHoldAtTheSmallestRoughAlpha) {
    std::mt19937 rng(4);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (const float alpha : {srt::kGgxSmoothAlpha, 2e-3f, 4e-3f})
        for (const double theta : {0.0, 30.0, 70.0, 89.0, 89.99}) {
            SCOPED_TRACE("alpha " + std::to_string(alpha) + " theta " + std::to_string(theta));
            BsdfParams g;
            g.specular = glm::vec3(0.9f, 0.6f, 0.3f);
            g.alpha = alpha;
            const glm::vec3 wo = direction(theta, 35);
            int valid = 0;
            for (int k = 0; k < 2000; ++k) {
                const BsdfSample s = srt::bsdf_sample(g, wo, u(rng), u(rng), u(rng));
                if (!s.valid) continue;
                ++valid;
                ASSERT_FALSE(s.delta);
                const glm::vec3 h = glm::normalize(wo + s.wi);
                const double a = alpha;
                auto lambda = [a](const glm::vec3& w) {
                    const double t2 = (double(w.x) * w.x + double(w.y) * w.y) / (double(w.z) * w.z);
                    return 0.5 * (std::sqrt(1.0 + a * a * t2) - 1.0);
                };
                const double g2_over_g1 = (1.0 + lambda(wo)) / (1.0 + lambda(wo) + lambda(s.wi));
                const double m = 1.0 - double(glm::dot(wo, h));
                for (int ch = 0; ch < 3; ++ch) {
                    const double f0 = g.specular[ch];
                    const double want = (f0 + (1.0 - f0) * std::pow(m, 5.0)) * g2_over_g1;
                    EXPECT_NEAR(s.weight[ch], want, 2e-4 * want + 1e-6);
                }
            }
            EXPECT_GT(valid, 100);
        }
}

TEST(Bsdf, WhiteFurnaceEnergyIsAtMostOneAndOneWhenLossless) {
    const int n = 200000;
    // Lossless: a white Lambertian surface, a perfect white mirror, glass and water from
    // either side (Fresnel splits what arrives between reflection and refraction; total
    // internal reflection keeps it all): exactly 1, sample by sample.
    BsdfParams white;
    white.diffuse = glm::vec3(1.0f);
    BsdfParams mirror;
    mirror.specular = glm::vec3(1.0f);
    std::vector<std::pair<std::string, BsdfParams>> lossless = {{"lambert", white}, {"mirror", mirror}};
    for (const float eta : {1.5f, 1.0f / 1.5f, 1.33f, 1.0f / 1.33f}) {
        BsdfParams glass;
        glass.eta = eta;
        lossless.push_back({"dielectric eta " + std::to_string(eta), glass});
    }
    for (const auto& [name, b] : lossless)
        for (const double theta : {0.0, 30.0, 60.0, 85.0}) {
            const Albedo a = albedo(b, direction(theta, 45), n, 5);
            EXPECT_NEAR(a.mean, 1.0, 1e-6) << name << " at " << theta;
            EXPECT_LT(a.se, 1e-9) << name << " at " << theta;
        }
    // GGX with F0 = 1: single scattering loses what bounces more than once between the
    // microfacets, so at most 1, close to 1 when smooth, well below at alpha 1.
    BsdfParams g;
    g.specular = glm::vec3(1.0f);
    // From alpha 1e-8 (roughness 1e-4), below kGgxSmoothAlpha a delta lobe of Schlick's
    // F (1 for F0 = 1), to the roughest; the smallest gave NaN weights.
    for (const float alpha : {1e-8f, 1e-4f, 1e-3f, 0.01f, 0.05f, 0.3f, 0.7f, 1.0f})
        for (const double theta : {0.0, 45.0, 80.0}) {
            g.alpha = alpha;
            const Albedo a = albedo(g, direction(theta, 10), n, 11);
            SCOPED_TRACE("alpha " + std::to_string(alpha) + " theta " + std::to_string(theta));
            ASSERT_TRUE(std::isfinite(a.mean));
            EXPECT_LE(a.mean, 1.0 + 4.0 * a.se);
            if (alpha < srt::kGgxSmoothAlpha) EXPECT_EQ(a.mean, 1.0);
            if (alpha <= 0.05f && theta < 60.0) EXPECT_GT(a.mean, 0.99);
            if (alpha >= 1.0f) EXPECT_LT(a.mean, 0.9);
        }
    // The dielectric reflects with the Fresnel probability: at normal incidence on glass,
    // 4% of the samples.
    BsdfParams glass;
    glass.eta = 1.5f;
    std::mt19937 rng(17);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    int reflected = 0;
    for (int k = 0; k < n; ++k) reflected += !srt::bsdf_sample(glass, direction(0, 0), u(rng), u(rng), u(rng)).transmitted;
    const double p = 0.04, se = std::sqrt(p * (1 - p) / n);
    EXPECT_NEAR(double(reflected) / n, p, 4.5 * se);
}

}  // namespace
