// bsdf_checks.h - what the BSDF tests share: directions by angle, a chi-square of a
// BsdfParams' samples against its own density, and the albedo (the mean weight) with its
// standard error.
#pragma once

#include "render/bsdf.h"
#include "support/chi_square.h"

#include <glm/glm.hpp>

#include <cmath>
#include <cstdint>
#include <random>

namespace srt::test {

inline glm::vec3 direction(double theta_deg, double phi_deg) {
    const double t = theta_deg * M_PI / 180.0, p = phi_deg * M_PI / 180.0;
    return glm::vec3(float(std::sin(t) * std::cos(p)), float(std::sin(t) * std::sin(p)), float(std::cos(t)));
}

// The samples of `b` seen from wo against `pdf_of`'s density (b's own unless another is
// given, to show that a wrong one fails).
inline ChiSquare bsdf_chi_square(const BsdfParams& b, const glm::vec3& wo, int n, uint32_t seed,
                                 const BsdfParams* pdf_of = nullptr) {
    const BsdfParams& p = pdf_of != nullptr ? *pdf_of : b;
    return chi_square(
        n,
        [&](float u0, float u1, float u2, glm::vec3& w) {
            const BsdfSample s = bsdf_sample(b, wo, u0, u1, u2);
            w = s.wi;
            return s.valid;
        },
        [&](const glm::vec3& wi) { return double(bsdf_pdf(p, wo, wi)); }, seed);
}

// The albedo: the mean weight over many samples (absorbed ones weigh 0), with its standard
// error from the samples.
struct Albedo {
    double mean, se;
};
inline Albedo albedo(const BsdfParams& b, const glm::vec3& wo, int n, uint32_t seed, int channel = 1) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    double sum = 0.0, sum2 = 0.0;
    for (int k = 0; k < n; ++k) {
        const BsdfSample s = bsdf_sample(b, wo, u(rng), u(rng), u(rng));
        const double w = s.valid ? double(s.weight[channel]) : 0.0;
        sum += w;
        sum2 += w * w;
    }
    const double mean = sum / n;
    return {mean, std::sqrt(std::max(0.0, sum2 / n - mean * mean) / n)};
}

}  // namespace srt::test
