// Tests of the pathref reference path tracer's thin lens and environment map against
// closed forms (support/path_reference.md, sections 8 and 9).
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

// ------------------------------------------------------ 8. thin-lens camera
TEST(PathReferenceThinLens, ApertureZeroIsThePinhole) {
    Scene s = furnace(0.6, {1, 2, 3});
    s.materials[0].albedo = {0.2, 0.5, 0.9};
    Camera pin = furnace_camera();
    Camera lens0 = pin;
    lens0.focus_distance = 3.7;  // irrelevant without an aperture
    for (double px : {0.0, 1.25, 3.999})
        for (double py : {0.0, 2.5})
            for (double lu : {0.0, 0.3, 0.99}) {
                const Ray r = camera_ray(lens0, px, py, lu, 0.7);
                const Vec3 d = camera_direction(pin, px, py);
                EXPECT_EQ(r.origin.x, pin.from.x);
                EXPECT_EQ(r.origin.y, pin.from.y);
                EXPECT_EQ(r.origin.z, pin.from.z);
                EXPECT_EQ(r.dir.x, d.x);
                EXPECT_EQ(r.dir.y, d.y);
                EXPECT_EQ(r.dir.z, d.z);
            }
    RenderOptions o;
    o.seed = 110;  // own seed per test: tests sharing a seed share sample directions
    o.spp = 32;
    const Image a = render(s, pin, o), b = render(s, lens0, o);
    for (size_t i = 0; i < a.mean.size(); ++i) {
        EXPECT_EQ(a.mean[i].r, b.mean[i].r);
        EXPECT_EQ(a.mean[i].g, b.mean[i].g);
        EXPECT_EQ(a.se[i].b, b.se[i].b);
    }
    lens0.aperture = 0.05;  // and a real lens does change the samples
    EXPECT_NE(render(s, lens0, o).mean[5].g, a.mean[5].g);
}

// Thin-lens rays of one raster position start on the lens disk (in the plane
// of right and up') and all pass through the pinhole ray's point on the plane
// of focus; the lens points are uniform on the disk (E|a|^2 = A^2 / 2).
TEST(PathReferenceThinLens, RaysMeetOnThePlaneOfFocus) {
    Camera cam;
    cam.from = {0.3, -0.2, 0.5};
    cam.at = {1.3, 0.1, -2};
    cam.up = {0.1, 1, 0};
    cam.hfov_deg = 50;
    cam.width = 20;
    cam.height = 10;
    cam.aperture = 0.25;
    const Vec3 fwd = normalize(cam.at - cam.from);
    for (double focus : {0.0, 1.7}) {
        cam.focus_distance = focus;
        const double F = focus > 0 ? focus : length(cam.at - cam.from);
        const double px = 13.3, py = 2.2;
        const Vec3 pin = camera_direction(cam, px, py);
        const Vec3 target = cam.from + pin * (F / dot(pin, fwd));
        double sum_r2 = 0;
        const int n = 64;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                const Ray r = camera_ray(cam, px, py, (i + 0.5) / n, (j + 0.5) / n);
                const Vec3 a = r.origin - cam.from;
                EXPECT_NEAR(dot(a, fwd), 0, 1e-15);  // on the lens plane (right and up' are normal to fwd)
                EXPECT_LE(length(a), cam.aperture * (1 + 1e-15));
                EXPECT_NEAR(length(r.dir), 1, 1e-15);
                // distance from the target to the ray's line
                const Vec3 w = target - r.origin;
                EXPECT_NEAR(length(w - r.dir * dot(w, r.dir)), 0, 1e-14);
                EXPECT_GT(dot(w, r.dir), 0);
                sum_r2 += dot(a, a);
            }
        EXPECT_NEAR(sum_r2 / (n * n), cam.aperture * cam.aperture / 2, 1e-4);  // midpoint grid over u
    }
}

namespace {
// P(a_x > tau) for a uniform point a of the disk of radius A: the area of the
// circular segment beyond tau, over pi A^2.
double disk_beyond(double tau, double A) {
    const double s = std::clamp(tau / A, -1.0, 1.0);
    return (std::acos(s) - s * std::sqrt(1 - s * s)) / kPi;
}
}  // namespace

// A large one-sided emitter in the plane at depth Z (perpendicular to the view
// axis) covering right-coordinates > x_e, seen by a thin lens (radius A,
// focus F). The pinhole ray of raster position px meets the plane of focus at
// right-coordinate X = F t (2 px / W - 1); the ray from lens point a (camera
// frame) towards it reaches right-coordinate a_x + (X - a_x) Z / F at depth Z,
// so it hits iff a_x (1 - Z/F) > x_e - X Z / F: the fraction of the lens that
// sees the emitter is a circular segment. The edge is thus blurred over
// |X - x_e F/Z| < A |Z - F| / Z on the plane of focus: the circle of
// confusion, of diameter 2 A |Z - F| / Z. Pixel value = Le * the mean of that
// fraction over the pixel (box filter), integrated numerically here. The same
// holds along up' for an edge across it (a one-column image), which checks
// the lens's other axis.
TEST(PathReferenceThinLens, DefocusedEdgeMatchesCircleOfConfusion) {
    const Rgb le{1, 2, 0.5};
    const double A = 0.2, F = 2, t = 0.1;  // 16 pixels over [-F t, F t] on the focus plane: 0.025 each
    const int N = 16;
    struct Case {
        Vec3 from, fwd;
        bool explicit_focus;  // else F = |at - from|
        double Z;
        bool across_up;  // edge across up' (image 1 x N) instead of across right (N x 1)
    };
    const Case cases[] = {{{0, 0, 0}, {0, 0, -1}, true, 4.0, false},  // behind the plane of focus
                          {{0.3, -0.2, 0.5}, normalize(Vec3{0.3, -0.1, -1}), false, 1.25, false},  // in front
                          {{-0.1, 0.4, 0.2}, normalize(Vec3{-0.2, 0.3, -1}), true, 3.0, true}};
    const double k = bonferroni_k(3 * N * 3, kFamilyAlpha);
    for (const Case& c : cases) {
        Camera cam;
        cam.from = c.from;
        cam.at = c.from + c.fwd * (c.explicit_focus ? 1.0 : F);
        cam.focus_distance = c.explicit_focus ? F : 0;
        cam.aperture = A;
        cam.width = c.across_up ? 1 : N;
        cam.height = c.across_up ? N : 1;
        // hfov is horizontal: the vertical half-extent is tan(hfov/2) * H / W = t in both layouts.
        cam.hfov_deg = 2 * std::atan(t * cam.width / N) * 180 / kPi;
        const Vec3 right = normalize(cross(c.fwd, cam.up)), up = cross(right, c.fwd);
        const Vec3 across = c.across_up ? up : right, along = c.across_up ? -right : up;
        const double xe = 0.013 * c.Z / F;  // the edge's pinhole image at X = 0.013
        auto at = [&](double x, double y) { return c.from + across * x + along * y + c.fwd * c.Z; };
        Scene s;
        // corners ordered so the normal is across x along = -fwd: facing the camera
        s.add_quad(at(xe, -20), at(20, -20), at(20, 20), at(xe, 20), s.add_material(diffuse({}, le)));
        RenderOptions o;
        o.seed = 111;  // own seed per test: tests sharing a seed share sample directions
        o.spp = 16384;
        o.max_depth = 0;
        const Image img = render(s, cam, o);
        const double kappa = 1 - c.Z / F;
        int blurred = 0;
        for (int p = 0; p < N; ++p) {
            constexpr int kSteps = 2000;
            double frac = 0;
            for (int i = 0; i < kSteps; ++i) {
                const double r = 2 * (p + (i + 0.5) / kSteps) / N - 1;  // raster x: -1..1 left to right
                const double X = F * t * (c.across_up ? -r : r);        // raster y grows downwards
                const double thr = (xe - X * c.Z / F) / kappa;
                frac += kappa > 0 ? disk_beyond(thr, A) : disk_beyond(-thr, A);
            }
            frac /= kSteps;
            if (frac > 0.02 && frac < 0.98) ++blurred;
            const Estimate e = c.across_up ? img.at(0, p) : img.at(p, 0);
            for (int i = 0; i < 3; ++i) {
                EXPECT_LE(std::fabs(ch(e.mean, i) - frac * ch(le, i)), k * ch(e.se, i) + 1e-12)
                    << "Z=" << c.Z << " pixel " << p << " ch" << i << " expected " << frac * ch(le, i);
                EXPECT_LE(ch(e.se, i), 0.005 * ch(le, i));
            }
            std::printf("  Z=%.2f px %2d expected %.5f got %.5f se %.5f\n", c.Z, p, frac * le.g, e.mean.g,
                        e.se.g);
        }
        // The blur spans 2 A |Z - F| / Z / 0.025 = 8, 9.6, 5.3 pixels.
        EXPECT_GE(blurred, 4) << "the edge should be visibly defocused";
    }
}

// ------------------------------------------------------ 9. environment map

TEST(PathReferenceEnvironment, LookupConvention) {
    Environment env = black_map(4, 3);
    auto T = [&](int i, int j) -> Rgb& { return env.texels[static_cast<size_t>(j) * 4 + i]; };
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 4; ++i) T(i, j) = {1.0 + i + 4 * j, 2.0 * j + 0.5, 7.0 - i};
    auto avg = [](Rgb a, Rgb b) { return (a + b) * 0.5; };
    const double tol = 1e-13;
    // Row 1 is centred on the horizon (v = 0.5); u = 0.5, 0.75, 0.25, 0 fall between columns.
    expect_near_rgb(environment_radiance(env, {1, 0, 0}), avg(T(1, 1), T(2, 1)), tol, "+X at u = 0.5");
    expect_near_rgb(environment_radiance(env, {0, 0, 1}), avg(T(2, 1), T(3, 1)), tol, "+Z at u = 0.75");
    expect_near_rgb(environment_radiance(env, {0, 0, -1}), avg(T(0, 1), T(1, 1)), tol, "-Z at u = 0.25");
    expect_near_rgb(environment_radiance(env, {-1, 0, 1e-9}), avg(T(3, 1), T(0, 1)), 1e-8, "-X: u wraps");
    expect_near_rgb(environment_radiance(env, {-1, 0, -1e-9}), avg(T(3, 1), T(0, 1)), 1e-8, "-X: u wraps");
    // Texel centres, and clamped rows near the poles (v < 0.5 / H: row 0 only).
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 4; ++i)
            expect_near_rgb(environment_radiance(env, map_direction((i + 0.5) / 4, (j + 0.5) / 3, 0)), T(i, j), tol,
                            "texel centre");
    expect_near_rgb(environment_radiance(env, map_direction(1.5 / 4, 0.03, 0)), T(1, 0), tol, "near the top");
    expect_near_rgb(environment_radiance(env, map_direction(2.5 / 4, 0.97, 0)), T(2, 2), tol, "near the bottom");
    expect_near_rgb(environment_radiance(env, map_direction(1.25 / 4, 0.03, 0)), T(0, 0) * 0.25 + T(1, 0) * 0.75,
                    tol, "bilinear in u");
    expect_near_rgb(environment_radiance(env, map_direction(1.5 / 4, 0.5 / 3 + 0.1 / 3, 0)),
                    T(1, 0) * 0.9 + T(1, 1) * 0.1, tol, "bilinear in v");
    // Turned by +90 degrees about +Y (right-handed): local +Z shows along world +X, local +X along -Z.
    env.rotation_deg = 90;
    expect_near_rgb(environment_radiance(env, {1, 0, 0}), avg(T(2, 1), T(3, 1)), tol, "rot 90: +X sees local +Z");
    expect_near_rgb(environment_radiance(env, {0, 0, -1}), avg(T(1, 1), T(2, 1)), tol, "rot 90: -Z sees local +X");
    env.intensity = 2.5;
    expect_near_rgb(environment_radiance(env, {1, 0, 0}), avg(T(2, 1), T(3, 1)) * 2.5, tol, "intensity");
    // Turning the map by a = turning the directions by a.
    Environment base = env;
    base.rotation_deg = 0;
    for (double a : {37.0, 90.0, -140.0}) {
        env.rotation_deg = a;
        for (double u : {0.02, 0.3, 0.61, 0.97})
            for (double v : {0.1, 0.45, 0.8})
                expect_near_rgb(environment_radiance(env, map_direction(u, v, a)),
                                environment_radiance(base, map_direction(u, v, 0)), 1e-12, "rotation");
    }
}

// The sampler's density is consistent (sample's pdf = pdf(d)), positive
// wherever the radiance is, and unbiased: E[L / pdf] = the integral of L over
// the sphere, in closed form for one texel (tent x tent) and a constant map,
// and by quadrature for a texel of the top row (clamped rows).
TEST(PathReferenceEnvironment, SamplerDensity) {
    const int W = 32, H = 16;
    struct Case {
        int i, j;
    };
    const double k = bonferroni_k(3, kFamilyAlpha);
    for (Case c : {Case{31, 4}, Case{5, 11}, Case{12, 0}}) {
        Environment env = black_map(W, H);
        const double lt = 2;
        env.texels[static_cast<size_t>(c.j) * W + c.i] = {lt, lt, lt};
        env.rotation_deg = 70;
        const EnvironmentSampler smp(env);
        ASSERT_TRUE(smp.active());
        // Integral over the sphere (d omega = 2 pi^2 sin(pi v) du dv):
        // lt * 2 pi^2 * (1/W) * integral of the v-profile times sin(pi v) dv.
        const double h = 1.0 / H, vc = (c.j + 0.5) / H;
        double iv;
        if (c.j > 0 && c.j < H - 1) {
            iv = tent_cos(vc, h, 0.5, -kPi / 2);  // sin(pi v) = cos(pi v - pi/2)
        } else {  // row 0 (the only edge row used here): 1 up to the pole, then half a tent
            iv = 0;
            const int n = 200000;
            for (int m = 0; m < n; ++m) {
                const double v = (vc + h) * (m + 0.5) / n;
                iv += (v < vc ? 1.0 : 1 - (v - vc) / h) * std::sin(kPi * v) * (vc + h) / n;
            }
        }
        const double expected = lt * 2 * kPi * kPi / W * iv;
        // Uniforms from a 64-bit LCG (top 53 bits): plenty for this check.
        double sum = 0, sum2 = 0;
        const int n = 200000;
        std::uint64_t st = 0x9e3779b97f4a7c15ULL * (c.i + 1) + c.j;
        auto uni = [&st] {
            st = st * 6364136223846793005ULL + 1442695040888963407ULL;
            return static_cast<double>(st >> 11) * (1.0 / 9007199254740992.0);
        };
        for (int m = 0; m < n; ++m) {
            double pdf;
            const double u0 = uni(), u1 = uni(), u2 = uni();
            const Vec3 d = smp.sample(u0, u1, u2, &pdf);
            ASSERT_NEAR(length(d), 1, 1e-12);
            ASSERT_GT(pdf, 0);
            EXPECT_NEAR(smp.pdf(d), pdf, 1e-9 * pdf);
            const double f = environment_radiance(env, d).g / pdf;
            sum += f;
            sum2 += f * f;
        }
        const double mean = sum / n, se = std::sqrt((sum2 / n - mean * mean) / (n - 1));
        EXPECT_LE(std::fabs(mean - expected), k * se) << "texel " << c.i << "," << c.j;
        EXPECT_LT(se, 0.005 * expected);
        std::printf("  texel (%d,%d): integral expected %.6f got %.6f se %.1e\n", c.i, c.j, expected, mean, se);
        // Wherever the radiance is positive, so is the density (a fine u-v grid).
        for (int a = 0; a < 512; ++a)
            for (int b = 0; b < 256; ++b) {
                const Vec3 d = map_direction((a + 0.37) / 512, (b + 0.61) / 256, 70);
                if (environment_radiance(env, d).g > 0) {
                    ASSERT_GT(smp.pdf(d), 0) << a << " " << b;
                }
            }
    }
    // A constant map is sampled uniformly over the sphere: L / pdf = 4 pi L exactly.
    Environment env = black_map(8, 4);
    for (Rgb& t : env.texels) t = {0.7, 0.7, 0.7};
    const EnvironmentSampler smp(env);
    for (double u0 : {0.0, 0.1, 0.55, 0.999})
        for (double u2 : {0.0, 0.3, 0.999}) {
            double pdf;
            smp.sample(u0, 0.4, u2, &pdf);
            EXPECT_NEAR(pdf, 1 / (4 * kPi), 1e-12);
        }
    EXPECT_FALSE(EnvironmentSampler(black_map(8, 4)).active());
    EXPECT_FALSE(EnvironmentSampler(Environment{}).active());
    Environment bad = black_map(8, 4);
    bad.texels[3].g = -1;
    EXPECT_THROW(EnvironmentSampler{bad}, std::invalid_argument);
    bad.texels.pop_back();
    EXPECT_THROW(EnvironmentSampler{bad}, std::invalid_argument);
}

// White furnace: albedo-1 diffuse surfaces (a sphere resting on a floor, so
// paths bounce between them) inside a constant map c. The uniform field
// L = c solves the rendering equation, so every pixel is c, in each strategy.
TEST(PathReferenceEnvironment, WhiteFurnace) {
    Environment env = black_map(8, 4);
    for (Rgb& t : env.texels) t = {0.35, 0.2, 0.45};
    env.intensity = 2;
    env.rotation_deg = 37;
    const Rgb c = Rgb{0.35, 0.2, 0.45} * 2;
    Scene s;
    s.environment = env;
    s.background = {5, 5, 5};  // replaced by the environment
    const int white = s.add_material(diffuse({1, 1, 1}));
    s.add_sphere({0, 1, 0}, 1, white);
    add_square_y(s, 0, 3, true, white);
    Camera cam;
    cam.from = {0.5, 2.5, 5};
    cam.at = {0, 0.7, 0};
    cam.hfov_deg = 60;
    cam.width = cam.height = 4;
    const double k = bonferroni_k(3 * 17 * 3, kFamilyAlpha);
    for (Strategy st : kStrategies) {
        RenderOptions o;
        o.seed = 112;  // own seed per test: tests sharing a seed share sample directions
        o.spp = 1024;
        o.max_depth = 100000;
        o.strategy = st;
        const Image img = render(s, cam, o);
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 4; ++x) {
                const Estimate e = img.at(x, y);
                for (int i = 0; i < 3; ++i)
                    EXPECT_LE(std::fabs(ch(e.mean, i) - ch(c, i)), k * ch(e.se, i) + 1e-12)
                        << name(st) << " pixel " << x << "," << y;
            }
        expect_estimate(image_mean(img), c, k, 0.01, std::string(name(st)) + " (16-pixel mean)");
    }
}

namespace {
// One texel (i, j) of a W x H map, value Lt (times intensity), off the edge
// rows: its radiance is Lt * tent_u * tent_v, tents of half-width 1/W in u
// (wrapping) and h = 1/H in v. On a surface with normal +Y, cos = cos(pi v):
// E = Lt * 2 pi^2 * (1/W) * int tent_v sin(pi v) cos(pi v) dv
//   = Lt * pi^2 / W * h sin(2 pi v_c) sinc^2(h),
// and a diffuse surface reflects rho / pi * E.
Rgb texel_irradiance_up(Rgb lt, int W, int H, int j) {
    return lt * (kPi * kPi / W * tent_cos((j + 0.5) / H, 1.0 / H, 1.0, -kPi / 2));
}
Scene texel_over_plane(Rgb rho, Rgb lt, int W, int H, int i, int j) {
    Scene s;
    s.environment = black_map(W, H);
    s.environment.texels[static_cast<size_t>(j) * W + i] = lt * (1 / 1.5);
    s.environment.intensity = 1.5;
    s.environment.rotation_deg = 123;  // irrelevant for an upward normal
    add_square_y(s, 0, 10, true, s.add_material(diffuse(rho)));
    return s;
}
}  // namespace

// A map black except one texel lights an upward plane: L = rho / pi * E in
// closed form. The texel sits in the last column, so its tent wraps around u = 1.
TEST(PathReferenceEnvironment, BrightTexelOverPlane) {
    const int W = 32, H = 16, i = 31, j = 4;
    const Rgb rho{0.5, 0.8, 0.3}, lt{3, 1, 2};
    const Scene s = texel_over_plane(rho, lt, W, H, i, j);
    const Rgb expected = rho * texel_irradiance_up(lt, W, H, j) * (1 / kPi);
    const double k = bonferroni_k(3 * 3, kFamilyAlpha);
    for (Strategy st : kStrategies) {
        RenderOptions o;
        o.seed = 113;  // own seed per test: tests sharing a seed share sample directions
        o.spp = st == Strategy::BsdfOnly ? 1000000 : 40000;
        o.max_depth = 3;  // a flat plane: nothing beyond one bounce
        o.strategy = st;
        const auto t0 = std::chrono::steady_clock::now();
        const Estimate e = estimate_ray(s, {0.3, 2, 0.1}, {0, -1, 0}, o);
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        expect_estimate(e, expected, k, 0.01, std::string(name(st)) + " " + std::to_string(secs) + " s");
    }
}

// Environment and an area light together: the square emitter of
// Analytic.SquareEmitterOverPlane (it hides only directions within 35.3 deg of
// the zenith, where the map is black) plus the bright texel: L is the sum.
TEST(PathReferenceEnvironment, WithAreaLight) {
    const int W = 32, H = 16, i = 31, j = 4;  // the tent spans 39.4 to 61.9 deg from the zenith
    const Rgb rho{0.5, 0.8, 0.3}, lt{3, 1, 2}, le{0.4, 0.2, 0.1};
    Scene s = texel_over_plane(rho, lt, W, H, i, j);
    add_square_y(s, 1.0, 0.5, false, s.add_material(diffuse({}, le)));  // faces down
    const Rgb expected =
        rho * le * (4 * form_factor_corner(0.5, 0.5, 1.0)) + rho * texel_irradiance_up(lt, W, H, j) * (1 / kPi);
    const double k = bonferroni_k(3 * 3, kFamilyAlpha);
    for (Strategy st : kStrategies) {
        RenderOptions o;
        o.seed = 114;  // own seed per test: tests sharing a seed share sample directions
        o.spp = st == Strategy::BsdfOnly ? 600000 : 60000;
        o.max_depth = 3;
        o.strategy = st;
        // Towards the plane point right below the emitter's centre.
        expect_estimate(estimate_ray(s, {2, 0.5, 0.3}, {-2, -0.5, -0.3}, o), expected, k, 0.01, name(st));
    }
}

namespace {
// Square of half-size 10 through `c`, unit normal n horizontal (n.y = 0).
void add_wall(Scene& s, Vec3 c, Vec3 n, int mat) {
    const Vec3 t1{0, 1, 0}, t2 = cross(t1, n);  // t2 x t1 = n
    const double h = 10;
    s.add_quad(c - t2 * h - t1 * h, c + t2 * h - t1 * h, c + t2 * h + t1 * h, c - t2 * h + t1 * h, mat);
}
}  // namespace

// Rotation: a wall with horizontal normal n, lit by one texel (u_c, v_c).
// For a map turned by a, cos = n . d = sin(theta) cos(phi - a - phi_n) with
// phi = 2 pi (u - 0.5) and n = (cos phi_n, 0, sin phi_n); while it stays > 0
// over the tent,
// E = Lt 2 pi^2 * [int tent_u cos(2 pi u - pi - a - phi_n) du] * [int tent_v sin^2(pi v) dv].
// Turning the map by a (wall facing +X) must equal turning the wall by -a
// (normal (cos a, 0, sin a), map unturned); a wrong sense of rotation would
// move the texel behind the wall.
TEST(PathReferenceEnvironment, RotationMovesTheLight) {
    const int W = 32, H = 16, i = 23, j = 6;  // u_c = 0.734 (phi = 84.4 deg from +X towards +Z), v_c = 0.406
    const Rgb rho{0.7, 0.6, 0.5}, lt{2, 3, 1};
    const double uc = (i + 0.5) / W, vc = (j + 0.5) / H;
    const double iv = 0.5 * (1.0 / H) - 0.5 * tent_cos(vc, 1.0 / H, 1.0, 0);  // sin^2 = (1 - cos 2 pi v) / 2
    const double k = bonferroni_k(2 * 2 * 3, kFamilyAlpha);
    for (double a_deg : {90.0, 45.0}) {
        const double a = a_deg * kPi / 180;
        const double iu = tent_cos(uc, 1.0 / W, 1.0, -kPi - a);
        const Rgb expected = rho * lt * (2 * kPi * kPi * iu * iv / kPi);
        for (bool turn_map : {true, false}) {
            Scene s;
            s.environment = black_map(W, H);
            s.environment.texels[static_cast<size_t>(j) * W + i] = lt;
            s.environment.rotation_deg = turn_map ? a_deg : 0;
            const Vec3 n = turn_map ? Vec3{1, 0, 0} : Vec3{std::cos(a), 0, std::sin(a)};
            const Vec3 p = Vec3{0, 0.1, 0} + cross(Vec3{0, 1, 0}, n) * 0.2;  // point on the wall
            add_wall(s, {0, 0, 0}, n, s.add_material(diffuse(rho)));
            RenderOptions o;
            o.seed = turn_map ? 115 : 116;  // own seeds: tests sharing a seed share sample directions
            o.spp = 40000;
            o.max_depth = 2;
            char what[64];
            std::snprintf(what, sizeof what, "a=%.0f %s", a_deg, turn_map ? "map turned" : "wall turned");
            expect_estimate(estimate_ray(s, p + n * 2, -n, o), expected, k, 0.01, what);
        }
    }
}
