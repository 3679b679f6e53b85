// chi_square.h - Pearson's chi-square test of sampled directions against the density
// that claims to produce them: the sphere in bins of equal solid angle, each bin's expected
// count the density integrated over it. For the BSDFs' lobes and the environment map.
#pragma once

#include <glm/glm.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

namespace srt::test {

constexpr int kThetaBins = 24, kPhiBins = 48;  // over z in [-1, 1] and phi: equal solid angle per bin

struct ChiSquare {
    double statistic = 0.0;
    int dof = 0;
    double z = 0.0;  // Wilson-Hilferty: X^2 as a standard normal under the hypothesis
};

// Samples `n` directions with `sample` (false: absorbed), bins them over the sphere, and
// compares with the counts `pdf` (per unit solid angle) predicts, integrated over each bin
// by an 8x8 midpoint rule; absorbed samples are one more bin, expected n (1 - integral).
// Bins expected below 5 are pooled.
inline ChiSquare chi_square(int n, const std::function<bool(float, float, float, glm::vec3&)>& sample,
                     const std::function<double(const glm::vec3&)>& pdf, uint32_t seed) {
    std::vector<double> observed(kThetaBins * kPhiBins + 1, 0.0), expected(observed.size(), 0.0);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (int k = 0; k < n; ++k) {
        glm::vec3 w;
        if (!sample(u(rng), u(rng), u(rng), w)) {
            observed.back() += 1.0;
            continue;
        }
        const double z = std::clamp(double(w.z) / glm::length(w), -1.0, 1.0);
        double phi = std::atan2(double(w.y), double(w.x));
        if (phi < 0.0) phi += 2.0 * M_PI;
        const int i = std::min(kThetaBins - 1, int((z + 1.0) * 0.5 * kThetaBins));
        const int j = std::min(kPhiBins - 1, int(phi / (2.0 * M_PI) * kPhiBins));
        observed[size_t(i * kPhiBins + j)] += 1.0;
    }
    // Each bin is integrated in (theta, phi), dw = sin(theta) dtheta dphi, by the midpoint
    // rule on 64 x 64 cells: fine enough for a lobe half a degree wide (alpha 0.01) at the
    // pole, where a bin of z spans 24 degrees of theta, and near the horizon, where 16
    // cells of phi (0.47 degrees each) missed its peak: z = 64 at alpha 0.01, theta 80.
    double total = 0.0;
    const int sub_t = 64, sub_p = 64;
    for (int i = 0; i < kThetaBins; ++i) {
        const double t_hi = std::acos(-1.0 + 2.0 * i / kThetaBins), t_lo = std::acos(-1.0 + 2.0 * (i + 1) / kThetaBins);
        const double dt = (t_hi - t_lo) / sub_t;
        for (int j = 0; j < kPhiBins; ++j) {
            double integral = 0.0;
            for (int a = 0; a < sub_t; ++a) {
                const double theta = t_lo + (a + 0.5) * dt;
                const double z = std::cos(theta), r = std::sin(theta);
                for (int b = 0; b < sub_p; ++b) {
                    const double phi = 2.0 * M_PI * (j + (b + 0.5) / sub_p) / kPhiBins;
                    integral += r * pdf(glm::vec3(float(r * std::cos(phi)), float(r * std::sin(phi)), float(z)));
                }
            }
            integral *= dt * (2.0 * M_PI / kPhiBins) / sub_p;
            expected[size_t(i * kPhiBins + j)] = integral * n;
            total += integral;
        }
    }
    expected.back() = std::max(0.0, 1.0 - total) * n;
    ChiSquare c;
    double pooled_o = 0.0, pooled_e = 0.0;
    int cells = 0;
    for (size_t k = 0; k < observed.size(); ++k) {
        if (expected[k] < 5.0) {
            pooled_o += observed[k];
            pooled_e += expected[k];
            continue;
        }
        c.statistic += (observed[k] - expected[k]) * (observed[k] - expected[k]) / expected[k];
        ++cells;
    }
    if (pooled_e >= 5.0) {
        c.statistic += (pooled_o - pooled_e) * (pooled_o - pooled_e) / pooled_e;
        ++cells;
    } else if (pooled_o > 20.0) {
        c.statistic += 1e9;  // samples where the pdf says there are none
    }
    c.dof = cells - 1;
    const double k = c.dof, x = c.statistic / k;
    c.z = (std::cbrt(x) - (1.0 - 2.0 / (9.0 * k))) / std::sqrt(2.0 / (9.0 * k));
    return c;
}

}  // namespace srt::test
