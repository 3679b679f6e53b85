// path_reference_checks.h - what the tests of the independent path tracer
// (support/path_reference.h) share: estimates checked against closed forms within k
// standard errors (k from bonferroni_k over a test's comparisons, family-wise false-failure
// rate 1e-3) and below a bound on the error, so that a pass means something; and the
// small scenes they build.
#pragma once

#include <gtest/gtest.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "support/path_reference.h"

namespace pathref_test {

using namespace pathref;


inline constexpr double kPi = 3.14159265358979323846;
inline constexpr double kFamilyAlpha = 1e-3;

inline double ch(Rgb c, int i) {
    return i == 0 ? c.r : (i == 1 ? c.g : c.b);
}

// Checks every channel of `e` against `expected`: within k se, and se below
// max_rel_se * expected (or max_rel_se absolute when expected is 0).
inline void expect_estimate(const Estimate& e, Rgb expected, double k, double max_rel_se, const std::string& what) {
    for (int i = 0; i < 3; ++i) {
        const double m = ch(e.mean, i), s = ch(e.se, i), x = ch(expected, i);
        EXPECT_LE(std::fabs(m - x), k * s + 1e-12 * std::fabs(x))
            << what << " ch" << i << ": expected " << x << " got " << m << " se " << s;
        EXPECT_LE(s, max_rel_se * (x > 0 ? x : 1.0)) << what << " ch" << i << ": se too large";
    }
    std::printf("  %-34s expected (%.6f %.6f %.6f)\n  %-34s got      (%.6f %.6f %.6f) se (%.2e %.2e %.2e)\n",
                what.c_str(), expected.r, expected.g, expected.b, "", e.mean.r, e.mean.g, e.mean.b, e.se.r,
                e.se.g, e.se.b);
}

// |a - b| < k sqrt(se_a^2 + se_b^2) per channel; returns the worst z.
inline double expect_agree(const Estimate& a, const Estimate& b, double k, const std::string& what) {
    double worst = 0;
    for (int i = 0; i < 3; ++i) {
        const double d = ch(a.mean, i) - ch(b.mean, i);
        const double s = std::hypot(ch(a.se, i), ch(b.se, i));
        EXPECT_LE(std::fabs(d), k * s + 1e-12)
            << what << " ch" << i << ": " << ch(a.mean, i) << " vs " << ch(b.mean, i) << " (se " << s << ")";
        if (s > 0) worst = std::max(worst, std::fabs(d) / s);
    }
    return worst;
}

inline const char* name(Strategy s) {
    return s == Strategy::Mis ? "Mis" : (s == Strategy::BsdfOnly ? "BsdfOnly" : "LightOnly");
}
inline constexpr Strategy kStrategies[3] = {Strategy::Mis, Strategy::BsdfOnly, Strategy::LightOnly};

inline Material diffuse(Rgb albedo, Rgb emission = {}) {
    Material m;
    m.albedo = albedo;
    m.emission = emission;
    return m;
}

// Axis-aligned square of half-size h in the plane y = y0, normal +y or -y.
inline void add_square_y(Scene& s, double y0, double h, bool normal_up, int mat, double cx = 0, double cz = 0) {
    const Vec3 a{cx - h, y0, cz - h}, b{cx - h, y0, cz + h}, c{cx + h, y0, cz + h}, d{cx + h, y0, cz - h};
    if (normal_up)
        s.add_quad(a, b, c, d, mat);  // (b-a) x (c-a) = (0,0,2h) x (2h,0,2h) = +y
    else
        s.add_quad(a, d, c, b, mat);
}
// Square of half-size h in the plane z = z0, normal +z or -z.
inline void add_square_z(Scene& s, double z0, double h, bool normal_pos, int mat) {
    const Vec3 a{-h, -h, z0}, b{h, -h, z0}, c{h, h, z0}, d{-h, h, z0};
    if (normal_pos)
        s.add_quad(a, b, c, d, mat);
    else
        s.add_quad(a, d, c, b, mat);
}

// Mean of all pixels as one estimate (pixels independent).
inline Estimate image_mean(const Image& img) {
    return region_stats(img, 0, 0, img.width, img.height);
}


inline Scene furnace(double a, Rgb le) {
    Scene s;
    Material m = diffuse({a, a, a}, le);
    m.two_sided_emission = true;  // the camera is inside the sphere
    s.add_sphere({0, 0, 0}, 1.0, s.add_material(m));
    return s;
}
inline Camera furnace_camera() {
    Camera cam;
    cam.from = {0.1, -0.2, 0.05};
    cam.at = {1, 0.3, -1};
    cam.hfov_deg = 100;
    cam.width = cam.height = 4;
    return cam;
}

// Form factor from a differential area to a parallel a x b rectangle at
// distance c whose corner lies on the area's normal (closed form).
inline double form_factor_corner(double a, double b, double c) {
    const double X = a / c, Y = b / c;
    const double sx = std::sqrt(1 + X * X), sy = std::sqrt(1 + Y * Y);
    return (X / sx * std::atan(Y / sx) + Y / sy * std::atan(X / sy)) / (2 * kPi);
}

// Slab of thickness d between z = 0 and z = -d, emitter (facing +z) at z = -3.
inline Scene slab_scene(double ior, double d, Rgb sigma, Rgb le) {
    Scene s;
    Material glass;
    glass.type = Material::Dielectric;
    glass.ior = ior;
    glass.absorption = sigma;
    const int g = s.add_material(glass);
    add_square_z(s, 0, 5, true, g);    // front face towards the camera (+z)
    add_square_z(s, -d, 5, false, g);  // back face, outward normal -z
    add_square_z(s, -3, 5, true, s.add_material(diffuse({}, le)));
    return s;
}
inline double slab_T(double ior, double sigma, double d) {
    const double R = std::pow((ior - 1) / (ior + 1), 2), a = std::exp(-sigma * d);
    return (1 - R) * (1 - R) * a / (1 - R * R * a * a);
}

inline Environment black_map(int w, int h) {
    Environment env;
    env.width = w;
    env.height = h;
    env.texels.assign(static_cast<size_t>(w) * h, Rgb{});
    return env;
}
// World direction of map coordinates (u, v) under the documented convention
// (inverse of: l = rotated-back d, u = 0.5 + atan2(l.z, l.x) / 2pi, v = acos(l.y) / pi).
inline Vec3 map_direction(double u, double v, double rotation_deg) {
    const double phi = 2 * kPi * (u - 0.5), theta = kPi * v, a = rotation_deg * kPi / 180;
    const Vec3 l{std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi)};
    return {l.x * std::cos(a) + l.z * std::sin(a), l.y, -l.x * std::sin(a) + l.z * std::cos(a)};
}
// Integral of a tent of peak 1 and half-width h centred at c, times
// cos(2 pi f x + psi): h cos(2 pi f c + psi) sinc^2(f h) (its Fourier transform).
inline double tent_cos(double c, double h, double f, double psi) {
    const double x = kPi * f * h;
    const double sinc = x == 0 ? 1 : std::sin(x) / x;
    return h * std::cos(2 * kPi * f * c + psi) * sinc * sinc;
}
inline void expect_near_rgb(Rgb a, Rgb b, double tol, const std::string& what) {
    EXPECT_NEAR(a.r, b.r, tol) << what;
    EXPECT_NEAR(a.g, b.g, tol) << what;
    EXPECT_NEAR(a.b, b.b, tol) << what;
}

}  // namespace pathref_test
