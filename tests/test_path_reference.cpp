// Tests of the pathref reference path tracer (support/path_reference.h) against closed-form results.
// Stochastic checks use |mean - expected| < k * se, with k from bonferroni_k
// over all comparisons of a test (family-wise false-failure rate 1e-3), plus
// a bound on se so that a pass is meaningful.
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

#include "support/path_reference.h"

using namespace pathref;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kFamilyAlpha = 1e-3;

double ch(Rgb c, int i) {
    return i == 0 ? c.r : (i == 1 ? c.g : c.b);
}

// Checks every channel of `e` against `expected`: within k se, and se below
// max_rel_se * expected (or max_rel_se absolute when expected is 0).
void expect_estimate(const Estimate& e, Rgb expected, double k, double max_rel_se, const std::string& what) {
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
double expect_agree(const Estimate& a, const Estimate& b, double k, const std::string& what) {
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

const char* name(Strategy s) {
    return s == Strategy::Mis ? "Mis" : (s == Strategy::BsdfOnly ? "BsdfOnly" : "LightOnly");
}
const Strategy kStrategies[3] = {Strategy::Mis, Strategy::BsdfOnly, Strategy::LightOnly};

Material diffuse(Rgb albedo, Rgb emission = {}) {
    Material m;
    m.albedo = albedo;
    m.emission = emission;
    return m;
}

// Axis-aligned square of half-size h in the plane y = y0, normal +y or -y.
void add_square_y(Scene& s, double y0, double h, bool normal_up, int mat, double cx = 0, double cz = 0) {
    const Vec3 a{cx - h, y0, cz - h}, b{cx - h, y0, cz + h}, c{cx + h, y0, cz + h}, d{cx + h, y0, cz - h};
    if (normal_up)
        s.add_quad(a, b, c, d, mat);  // (b-a) x (c-a) = (0,0,2h) x (2h,0,2h) = +y
    else
        s.add_quad(a, d, c, b, mat);
}
// Square of half-size h in the plane z = z0, normal +z or -z.
void add_square_z(Scene& s, double z0, double h, bool normal_pos, int mat) {
    const Vec3 a{-h, -h, z0}, b{h, -h, z0}, c{h, h, z0}, d{-h, h, z0};
    if (normal_pos)
        s.add_quad(a, b, c, d, mat);
    else
        s.add_quad(a, d, c, b, mat);
}

// Mean of all pixels as one estimate (pixels independent).
Estimate image_mean(const Image& img) {
    return region_stats(img, 0, 0, img.width, img.height);
}

}  // namespace

// ------------------------------------------------------------ basic helpers
TEST(PathReferenceHelpers, BonferroniK) {
    EXPECT_NEAR(bonferroni_k(1, 0.05), 1.959964, 1e-5);
    EXPECT_NEAR(bonferroni_k(1, 1e-3), 3.290527, 1e-5);
    EXPECT_NEAR(bonferroni_k(100, 1e-3), 4.417173, 1e-5);  // alpha 1e-5 two-sided
}

TEST(PathReferenceHelpers, RegionStats) {
    Image img;
    img.width = 2;
    img.height = 2;
    img.mean = {{1, 2, 3}, {3, 2, 1}, {0, 0, 0}, {4, 4, 4}};
    img.se = {{1, 0, 0}, {1, 0, 0}, {1, 0, 0}, {1, 0, 0}};
    const Estimate all = region_stats(img, 0, 0, 2, 2);
    EXPECT_DOUBLE_EQ(all.mean.r, 2.0);
    EXPECT_DOUBLE_EQ(all.mean.b, 2.0);
    EXPECT_DOUBLE_EQ(all.se.r, 0.5);  // sqrt(4) / 4
    const Estimate row = region_stats(img, {{0, 1}, {1, 1}});
    EXPECT_DOUBLE_EQ(row.mean.g, 2.0);
    EXPECT_DOUBLE_EQ(row.se.r, std::sqrt(2.0) / 2);
}

TEST(PathReferenceCamera, Convention) {
    Camera cam;
    cam.from = {0, 0, 0};
    cam.at = {0, 0, -1};
    cam.up = {0, 1, 0};
    cam.hfov_deg = 90;
    cam.width = 4;
    cam.height = 2;
    const Vec3 c = camera_direction(cam, 2, 1);  // image centre
    EXPECT_NEAR(c.z, -1, 1e-15);
    const Vec3 tl = camera_direction(cam, 0, 0);  // top-left corner: left (-x) and up (+y)
    EXPECT_NEAR(tl.x / -tl.z, -1.0, 1e-15);       // tan(45 deg) at the left edge
    EXPECT_NEAR(tl.y / -tl.z, 0.5, 1e-15);        // t * H / W at the top edge
    const Vec3 br = camera_direction(cam, 4, 2);
    EXPECT_NEAR(br.x / -br.z, 1.0, 1e-15);
    EXPECT_NEAR(br.y / -br.z, -0.5, 1e-15);
}

// --------------------------------------------------------- 1. white furnace
namespace {
Scene furnace(double a, Rgb le) {
    Scene s;
    Material m = diffuse({a, a, a}, le);
    m.two_sided_emission = true;  // the camera is inside the sphere
    s.add_sphere({0, 0, 0}, 1.0, s.add_material(m));
    return s;
}
Camera furnace_camera() {
    Camera cam;
    cam.from = {0.1, -0.2, 0.05};
    cam.at = {1, 0.3, -1};
    cam.hfov_deg = 100;
    cam.width = cam.height = 4;
    return cam;
}
}  // namespace

TEST(PathReferenceFurnace, InfiniteDepthWithRussianRoulette) {
    const Rgb le{1.0, 0.5, 2.0};
    const double k = bonferroni_k(2 * 3 * 17 * 3, kFamilyAlpha);
    for (double a : {0.5, 0.8}) {
        const Scene s = furnace(a, le);
        for (Strategy st : kStrategies) {
            RenderOptions o;
            o.seed = 101;  // own seed per test: tests sharing a seed share sample directions
            o.spp = 2048;
            o.max_depth = 100000;
            o.strategy = st;
            const Image img = render(s, furnace_camera(), o);
            const Rgb expected = le * (1.0 / (1.0 - a));
            for (int y = 0; y < 4; ++y)
                for (int x = 0; x < 4; ++x) {
                    const Estimate e = img.at(x, y);
                    for (int i = 0; i < 3; ++i)
                        EXPECT_LE(std::fabs(ch(e.mean, i) - ch(expected, i)), k * ch(e.se, i))
                            << "pixel " << x << "," << y;
                }
            char what[64];
            std::snprintf(what, sizeof what, "a=%.1f %s (16-pixel mean)", a, name(st));
            expect_estimate(image_mean(img), expected, k, 0.005, what);
        }
    }
}

TEST(PathReferenceFurnace, TruncatedDepth) {
    const Rgb le{1.0, 0.5, 2.0};
    const int depths[] = {0, 1, 2, 3, 5};
    const double k = bonferroni_k(2 * 5 * 3, kFamilyAlpha);
    for (double a : {0.5, 0.8}) {
        const Scene s = furnace(a, le);
        for (int depth : depths) {
            RenderOptions o;
            o.seed = 102;  // own seed per test: tests sharing a seed share sample directions
            o.spp = 1024;
            o.max_depth = depth;
            const Image img = render(s, furnace_camera(), o);
            const Rgb expected = le * ((1.0 - std::pow(a, depth + 1)) / (1.0 - a));
            char what[64];
            std::snprintf(what, sizeof what, "a=%.1f max_depth=%d", a, depth);
            expect_estimate(image_mean(img), expected, k, 0.005, what);
        }
    }
}

// ------------------------------------------------- 2. plane under a sky B
TEST(PathReferenceBackground, DiffusePlane) {
    Scene s;
    s.background = {1.0, 2.0, 3.0};
    const Rgb rho{0.3, 0.5, 0.7};
    add_square_y(s, 0, 1, true, s.add_material(diffuse(rho)));
    Camera cam;
    cam.from = {0.2, 3, 0.3};
    cam.at = {0, 0, 0};
    cam.up = {0, 0, -1};
    cam.hfov_deg = 20;
    cam.width = cam.height = 4;
    const double k = bonferroni_k(3 * 2 * 3, kFamilyAlpha);
    for (int depth : {1, 4}) {
        for (Strategy st : kStrategies) {
            RenderOptions o;
            o.seed = 103;  // own seed per test: tests sharing a seed share sample directions
            o.spp = 4096;
            o.max_depth = depth;
            o.strategy = st;
            char what[64];
            std::snprintf(what, sizeof what, "%s max_depth=%d", name(st), depth);
            expect_estimate(image_mean(render(s, cam, o)), rho * s.background, k, 0.003, what);
        }
    }
}

// ---------------------------------------------- 3. square emitter, analytic
namespace {
// Form factor from a differential area to a parallel a x b rectangle at
// distance c whose corner lies on the area's normal (closed form).
double form_factor_corner(double a, double b, double c) {
    const double X = a / c, Y = b / c;
    const double sx = std::sqrt(1 + X * X), sy = std::sqrt(1 + Y * Y);
    return (X / sx * std::atan(Y / sx) + Y / sy * std::atan(X / sy)) / (2 * kPi);
}
}  // namespace

TEST(PathReferenceAnalytic, SquareEmitterOverPlane) {
    const double side = 1.0, h = 1.0;
    const Rgb le{4, 2, 1}, rho{0.5, 0.25, 0.8};
    Scene s;
    add_square_y(s, 0, 10, true, s.add_material(diffuse(rho)));
    add_square_y(s, h, side / 2, false, s.add_material(diffuse({}, le)));  // faces down, one-sided
    // Centred rectangle = 4 corner rectangles of (side/2)^2. L = rho/pi * E = rho * Le * F.
    const double F = 4 * form_factor_corner(side / 2, side / 2, h);
    const Rgb expected = rho * le * F;
    Camera cam;  // looks at the point below the emitter's centre, from below the emitter
    cam.from = {2, 0.5, 0.3};
    cam.at = {0, 0, 0};
    cam.hfov_deg = 0.05;  // footprint ~2e-3: irradiance varies by ~1e-6 over it
    cam.width = cam.height = 2;
    const double k = bonferroni_k(3 * 3 + 3 * 3, kFamilyAlpha);
    Estimate est[3];
    for (int i = 0; i < 3; ++i) {
        RenderOptions o;
        o.seed = 104;  // own seed per test: tests sharing a seed share sample directions
        o.spp = 250000;
        o.max_depth = 1;
        o.strategy = kStrategies[i];
        est[i] = image_mean(render(s, cam, o));
        expect_estimate(est[i], expected, k, 0.004,
                        std::string(name(kStrategies[i])) + " (F=" + std::to_string(F) + ")");
    }
    expect_agree(est[0], est[1], k, "Mis vs BsdfOnly");
    expect_agree(est[0], est[2], k, "Mis vs LightOnly");
    expect_agree(est[1], est[2], k, "BsdfOnly vs LightOnly");
}

// A spherical emitter (outward one-sided) straight above a plane point:
// E = pi Le (r / D)^2, so L = rho Le (r / D)^2. NEE samples the whole sphere,
// so half its samples are self-occluded: this checks sphere sampling + shadows.
TEST(PathReferenceAnalytic, SphereEmitterOverPlane) {
    const double r = 0.5, D = 2.0;
    const Rgb le{3, 1, 2}, rho{0.6, 0.4, 0.9};
    Scene s;
    add_square_y(s, 0, 10, true, s.add_material(diffuse(rho)));
    s.add_sphere({0, D, 0}, r, s.add_material(diffuse({}, le)));
    const Rgb expected = rho * le * (r * r / (D * D));
    Camera cam;
    cam.from = {3, 0.5, -0.4};
    cam.at = {0, 0, 0};
    cam.hfov_deg = 0.05;
    cam.width = cam.height = 2;
    const double k = bonferroni_k(3 * 3, kFamilyAlpha);
    for (Strategy st : kStrategies) {
        RenderOptions o;
        o.seed = 105;  // own seed per test: tests sharing a seed share sample directions
        o.spp = st == Strategy::BsdfOnly ? 250000 : 60000;
        o.max_depth = 1;
        o.strategy = st;
        expect_estimate(image_mean(render(s, cam, o)), expected, k, 0.005, name(st));
    }
}

// --------------------------------------------------- 4. dielectric slab
namespace {
// Slab of thickness d between z = 0 and z = -d, emitter (facing +z) at z = -3.
Scene slab_scene(double ior, double d, Rgb sigma, Rgb le) {
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
double slab_T(double ior, double sigma, double d) {
    const double R = std::pow((ior - 1) / (ior + 1), 2), a = std::exp(-sigma * d);
    return (1 - R) * (1 - R) * a / (1 - R * R * a * a);
}
}  // namespace

TEST(PathReferenceDielectric, SlabNormalIncidence) {
    const Rgb le{1, 2, 0.5};
    const Vec3 o{0.1, 0.2, 5}, dir{0, 0, -1};  // exactly normal, off the quads' diagonal
    const double k = bonferroni_k(5 * 3, kFamilyAlpha);
    struct Case {
        double ior, d;
        Rgb sigma;
        int max_depth, spp;
    };
    const Case cases[] = {{1.5, 0.5, {}, 64, 1000000},
                          {2.5, 0.5, {}, 64, 200000},
                          {2.5, 0.5, {0, 0.5, 2}, 64, 200000},
                          {1.5, 0.3, {0.3, 1, 3}, 64, 400000},
                          {2.5, 0.5, {}, 2, 200000}};  // one pass only: (1 - R)^2
    for (const Case& c : cases) {
        RenderOptions opt;
        opt.seed = 106;  // own seed per test: tests sharing a seed share sample directions
        opt.spp = c.spp;
        opt.max_depth = c.max_depth;
        const Estimate e = estimate_ray(slab_scene(c.ior, c.d, c.sigma, le), o, dir, opt);
        Rgb T{slab_T(c.ior, c.sigma.r, c.d), slab_T(c.ior, c.sigma.g, c.d), slab_T(c.ior, c.sigma.b, c.d)};
        if (c.max_depth == 2) {
            const double R = std::pow((c.ior - 1) / (c.ior + 1), 2);
            T = {(1 - R) * (1 - R), (1 - R) * (1 - R), (1 - R) * (1 - R)};
        }
        char what[96];
        std::snprintf(what, sizeof what, "n=%.1f d=%.1f sig=(%.1f %.1f %.1f) md=%d", c.ior, c.d, c.sigma.r,
                      c.sigma.g, c.sigma.b, c.max_depth);
        expect_estimate(e, le * T, k, 0.003, what);
    }
}

// --------------------------------------------- 5. Fresnel and total internal reflection
namespace {
// Textbook s/p forms in terms of the angles (an independent computation).
double fresnel_angles(double theta_i, double n1, double n2) {
    const double s = n1 / n2 * std::sin(theta_i);
    if (s >= 1) return 1;
    const double theta_t = std::asin(s);
    if (theta_i == 0) return std::pow((n1 - n2) / (n1 + n2), 2);
    const double rs = std::pow(std::sin(theta_i - theta_t) / std::sin(theta_i + theta_t), 2);
    const double rp = std::pow(std::tan(theta_i - theta_t) / std::tan(theta_i + theta_t), 2);
    return 0.5 * (rs + rp);
}
}  // namespace

TEST(PathReferenceFresnel, NormalIncidenceCriticalAngleAndSP) {
    for (double n : {1.33, 1.5, 2.5}) {
        const double R0 = std::pow((n - 1) / (n + 1), 2);
        EXPECT_NEAR(fresnel_dielectric(1.0, n), R0, 1e-15);
        EXPECT_NEAR(fresnel_dielectric(1.0, 1.0 / n), R0, 1e-15);  // same leaving the glass
        const double crit = std::asin(1.0 / n);
        for (double f : {1.0001, 1.1, 1.5})
            if (crit * f < kPi / 2) {
                EXPECT_EQ(fresnel_dielectric(std::cos(crit * f), 1.0 / n), 1.0) << n << " " << f;
            }
        EXPECT_LT(fresnel_dielectric(std::cos(crit * 0.999), 1.0 / n), 1.0);
        for (double deg : {5.0, 20.0, 35.0, 50.0, 65.0, 80.0, 89.0}) {
            const double t = deg * kPi / 180;
            EXPECT_NEAR(fresnel_dielectric(std::cos(t), n), fresnel_angles(t, 1.0, n), 1e-13)
                << "in " << n << " " << deg;
            if (t < crit) {
                EXPECT_NEAR(fresnel_dielectric(std::cos(t), 1.0 / n), fresnel_angles(t, n, 1.0), 1e-12)
                    << "out " << deg;
            }
        }
        // Brewster: the p-polarised part vanishes, R = Rs / 2.
        const double tb = std::atan(n), tt = kPi / 2 - tb;
        EXPECT_NEAR(fresnel_dielectric(std::cos(tb), n),
                    0.5 * std::pow(std::sin(tb - tt) / std::sin(tb + tt), 2), 1e-14);
    }
    EXPECT_EQ(fresnel_dielectric(0.0, 1.5), 1.0);  // grazing
}

// Camera inside a clear glass slab (z in [-1, 1]) looking up at an emitter
// above it. Beyond the critical angle every path is trapped or leaves by the
// slab's far-away sides: exactly 0. Below it: Le (1 - R) sum R^2k = Le / (1 + R)
// (no eta^2 scaling convention).
TEST(PathReferenceFresnel, TotalInternalReflectionInRender) {
    const double n = 1.5;
    const Rgb le{2, 1, 3};
    Scene s;
    Material glass;
    glass.type = Material::Dielectric;
    glass.ior = n;
    const int g = s.add_material(glass);
    add_square_z(s, 1, 100, true, g);
    add_square_z(s, -1, 100, false, g);
    add_square_z(s, 2, 50, false, s.add_material(diffuse({}, le)));  // faces down
    RenderOptions o;
    o.seed = 107;  // own seed per test: tests sharing a seed share sample directions
    o.max_depth = 1000;
    o.spp = 20000;
    const double crit = std::asin(1 / n);
    for (double deg : {42.0, 60.0, 80.0}) {
        const double t = deg * kPi / 180;
        ASSERT_GT(t, crit);
        const Estimate e = estimate_ray(s, {0.1, 0.2, 0}, {std::sin(t), 0, std::cos(t)}, o);
        EXPECT_EQ(e.mean.r + e.mean.g + e.mean.b, 0.0) << deg;
        EXPECT_EQ(e.se.r, 0.0);
    }
    const double k = bonferroni_k(2 * 3, kFamilyAlpha);
    for (double deg : {0.0, 30.0}) {
        const double t = deg * kPi / 180;
        o.spp = 400000;
        const Estimate e = estimate_ray(s, {0.1, 0.2, 0}, {std::sin(t), 0, std::cos(t)}, o);
        const double R = fresnel_angles(t, n, 1.0);
        char what[64];
        std::snprintf(what, sizeof what, "inside glass, %.0f deg (R=%.4f)", deg, R);
        expect_estimate(e, le * (1 / (1 + R)), k, 0.003, what);
    }
}

// ------------------------------------------------------- mirror and sides
TEST(PathReferenceSpecular, MirrorAndEmissionSides) {
    Scene s;
    Material mir;
    mir.type = Material::Mirror;
    mir.mirror_reflectance = {0.9, 0.5, 0.2};
    // Mirror through the origin with normal (0, 1, 1)/sqrt2: reflects -z into +y.
    s.add_quad({-1, -1, 1}, {1, -1, 1}, {1, 1, -1}, {-1, 1, -1}, s.add_material(mir));
    const Rgb le{5, 6, 7};
    add_square_y(s, 3, 20, false, s.add_material(diffuse({}, le)));  // faces down
    Camera cam;
    cam.from = {0, 0, 5};
    cam.at = {0, 0, 0};
    cam.hfov_deg = 5;
    cam.width = cam.height = 2;
    RenderOptions o;
    o.seed = 108;  // own seed per test: tests sharing a seed share sample directions
    o.spp = 16;
    o.max_depth = 1;
    const Estimate e = image_mean(render(s, cam, o));
    EXPECT_NEAR(e.mean.r, 4.5, 1e-12);
    EXPECT_NEAR(e.mean.g, 3.0, 1e-12);
    EXPECT_NEAR(e.mean.b, 1.4, 1e-12);
    o.max_depth = 0;  // the emitter is one bounce away
    EXPECT_EQ(image_mean(render(s, cam, o)).mean.r, 0.0);
    // Looking straight at the emitter's back (from above) sees nothing; two-sided sees Le.
    EXPECT_EQ(estimate_ray(s, {0.3, 10, 0.2}, {0, -1, 0}, o).mean.g, 0.0);
    s.materials[1].two_sided_emission = true;
    EXPECT_EQ(estimate_ray(s, {0.3, 10, 0.2}, {0, -1, 0}, o).mean.g, 6.0);
    EXPECT_EQ(estimate_ray(s, {0.3, 0.5, 0.2}, {0, 1, 0}, o).mean.g, 6.0);
}

// ------------------------------------------------------------- 6. OBJ
TEST(PathReferenceObj, ParsesQuadNegativeIndicesAndMaterials) {
    const std::string text =
        "# comment\r\n"
        "mtllib x.mtl\r\n"
        "o thing\n"
        "v 0 0 0\n"
        "v\t1 0 0 # trailing comment\n"
        "v 1 1 0\n"
        "v 0 1 0 1.0\n"
        "vt 0 0\nvn 0 0 1\n"
        "g quad\ns off\n"
        "usemtl red\n"
        "f -4/1/1 -3/1/1 -2/1/1 -1/1/1\n"  // quad, relative indices -> 2 triangles
        "usemtl blue\n"
        "v 0 0 +2\n"
        "f 1//1 2//1 5//1\n"
        "f 3 4 -1\n";
    std::istringstream in(text);
    const auto tris = parse_obj(in, "mem.obj");
    ASSERT_EQ(tris.size(), 4u);
    EXPECT_EQ(tris[0].material, "red");
    EXPECT_EQ(tris[1].material, "red");
    EXPECT_EQ(tris[2].material, "blue");
    EXPECT_EQ(tris[1].v1.x, 1.0);  // fan (0, 2, 3): v1 = (1, 1, 0)
    EXPECT_EQ(tris[1].v1.y, 1.0);
    EXPECT_EQ(tris[1].v2.x, 0.0);
    EXPECT_EQ(tris[1].v2.y, 1.0);
    EXPECT_EQ(tris[2].v2.z, 2.0);
    EXPECT_EQ(tris[3].v0.x, 1.0);  // vertex 3 = (1, 1, 0)
    EXPECT_EQ(tris[3].v2.z, 2.0);  // -1 = the last vertex so far

    Scene s;
    std::map<std::string, Material> mats{{"red", diffuse({1, 0, 0})}, {"blue", diffuse({0, 0, 1})}};
    add_obj(s, tris, mats);
    ASSERT_EQ(s.triangles.size(), 4u);
    ASSERT_EQ(s.materials.size(), 2u);
    EXPECT_EQ(s.materials[s.triangles[3].material].albedo.b, 1.0);
    mats.erase("blue");
    Scene s2;
    EXPECT_THROW(add_obj(s2, tris, mats), std::runtime_error);
}

TEST(PathReferenceObj, ErrorsNameFileAndLine) {
    auto error_of = [](const std::string& text) -> std::string {
        std::istringstream in(text);
        try {
            parse_obj(in, "bad.obj");
        } catch (const std::runtime_error& e) {
            return e.what();
        }
        return "no error";
    };
    EXPECT_EQ(error_of("v 0 0 0\nv 1 0 x\n").rfind("bad.obj:2: ", 0), 0u) << error_of("v 0 0 0\nv 1 0 x\n");
    EXPECT_EQ(error_of("v 0 0 0\nv 1 0 0\nf 1 2\n").rfind("bad.obj:3: ", 0), 0u);
    EXPECT_EQ(error_of("v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 4\n").rfind("bad.obj:5: ", 0), 0u);
    EXPECT_EQ(error_of("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n").rfind("bad.obj:4: ", 0), 0u);
    EXPECT_EQ(error_of("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n").rfind("bad.obj:4: ", 0), 0u);
    EXPECT_EQ(error_of("# x\ncurv 0 1\n").rfind("bad.obj:2: ", 0), 0u);
    EXPECT_EQ(error_of("usemtl\n").rfind("bad.obj:1: ", 0), 0u);
    EXPECT_EQ(error_of("v 1 2\n").rfind("bad.obj:1: ", 0), 0u);
    EXPECT_EQ(error_of("v 0 0 0\nf a b c\n").rfind("bad.obj:2: ", 0), 0u);

    // From a real file.
    const std::string path = ::testing::TempDir() + "pathref_bad.obj";
    {
        std::ofstream f(path);
        f << "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 3 9\n";
    }
    try {
        load_obj(path);
        ADD_FAILURE() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), path + ":5: face index out of range '9'");
    }
    std::remove(path.c_str());
}

// ------------------------------------------------- determinism / threads
TEST(PathReferenceRender, IndependentOfThreadCount) {
    Scene s = furnace(0.7, {1, 1, 1});
    RenderOptions o;
    o.spp = 64;
    o.threads = 1;
    const Image a = render(s, furnace_camera(), o);
    o.threads = 3;
    const Image b = render(s, furnace_camera(), o);
    for (size_t i = 0; i < a.mean.size(); ++i) {
        EXPECT_EQ(a.mean[i].r, b.mean[i].r);
        EXPECT_EQ(a.se[i].b, b.se[i].b);
    }
    o.seed = 2;
    EXPECT_NE(render(s, furnace_camera(), o).mean[0].r, a.mean[0].r);
    o.spp = 5000;
    o.threads = 1;
    const Estimate e1 = estimate_ray(s, {0, 0, 0}, {1, 0, 0}, o);
    o.threads = 2;
    const Estimate e2 = estimate_ray(s, {0, 0, 0}, {1, 0, 0}, o);
    EXPECT_EQ(e1.mean.g, e2.mean.g);
    EXPECT_EQ(e1.se.g, e2.se.g);
}

// ------------------------------------------------------ 7. Cornell box
namespace {
const std::string kCornellDir = std::string(SRT_SHARED_DATA) + "/scenes/cornell-box/";

// Minimal MTL reading for the test: Kd -> albedo, Ke -> emission (one-sided).
std::map<std::string, Material> read_mtl_diffuse(const std::string& path) {
    std::map<std::string, Material> mats;
    std::ifstream f(path);
    std::string line, cur;
    while (std::getline(f, line)) {
        if (line.find('#') != std::string::npos) line.erase(line.find('#'));
        std::istringstream ls(line);
        std::string key;
        if (!(ls >> key)) continue;
        if (key == "newmtl") {
            ls >> cur;
            mats[cur] = Material{};
        } else if (key == "Kd" || key == "Ke") {
            Rgb c;
            ls >> c.r >> c.g >> c.b;
            (key == "Kd" ? mats[cur].albedo : mats[cur].emission) = c;
        }
    }
    return mats;
}
}  // namespace

TEST(PathReferenceObj, ReadsAllCornellBoxFiles) {
    const char* files[] = {"CornellBox-Original.obj", "CornellBox-Sphere.obj", "CornellBox-Water.obj",
                           "CornellBox-Glossy.obj", "CornellBox-Mirror.obj"};
    for (const char* f : files) {
        const std::string path = std::string(kCornellDir) + f;
        if (!std::ifstream(path)) GTEST_SKIP() << path << " not present";
        const auto tris = load_obj(path);
        EXPECT_GT(tris.size(), 10u) << f;
        std::printf("  %-26s %zu triangles\n", f, tris.size());
    }
}

TEST(PathReferenceCornell, StrategiesAgreeRegionByRegion) {
    const std::string obj = std::string(kCornellDir) + "CornellBox-Original.obj";
    if (!std::ifstream(obj)) GTEST_SKIP() << obj << " not present";
    Scene s;
    add_obj(s, load_obj(obj), read_mtl_diffuse(std::string(kCornellDir) + "CornellBox-Original.mtl"));
    Camera cam;
    cam.from = {0, 1, 3.4};
    cam.at = {0, 1, 0};
    cam.hfov_deg = 40;
    cam.width = cam.height = 16;
    constexpr int kRegions = 4;  // 4 x 4 regions of 4 x 4 pixels
    Image img[3];
    for (int i = 0; i < 3; ++i) {
        RenderOptions o;
        o.seed = 109;  // own seed per test: tests sharing a seed share sample directions
        o.spp = kStrategies[i] == Strategy::BsdfOnly ? 8192 : 4096;  // BsdfOnly: cheaper, noisier
        o.max_depth = 8;
        o.strategy = kStrategies[i];
        const auto t0 = std::chrono::steady_clock::now();
        img[i] = render(s, cam, o);
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const Estimate all = image_mean(img[i]);
        std::printf("  Cornell %-9s 16x16x%d spp: %.2f s, image mean (%.5f %.5f %.5f) se (%.1e %.1e %.1e)\n",
                    name(kStrategies[i]), o.spp, secs, all.mean.r, all.mean.g, all.mean.b, all.se.r, all.se.g,
                    all.se.b);
    }
    const int comparisons = kRegions * kRegions * 3 * 3;  // regions x channels x pairs
    const double k = bonferroni_k(comparisons, kFamilyAlpha);
    double worst = 0, worst_rel_se = 0;
    std::printf("  region means (Mis) and relative se (Mis / BsdfOnly / LightOnly), channel r:\n");
    for (int ry = 0; ry < kRegions; ++ry) {
        std::printf("   ");
        for (int rx = 0; rx < kRegions; ++rx) {
            Estimate e[3];
            for (int i = 0; i < 3; ++i) e[i] = region_stats(img[i], rx * 4, ry * 4, 4, 4);
            const std::string where = "region " + std::to_string(rx) + "," + std::to_string(ry);
            worst = std::max(worst, expect_agree(e[0], e[1], k, where + " Mis/BsdfOnly"));
            worst = std::max(worst, expect_agree(e[0], e[2], k, where + " Mis/LightOnly"));
            worst = std::max(worst, expect_agree(e[1], e[2], k, where + " BsdfOnly/LightOnly"));
            // Meaningful: every region/channel brighter than 0.05 is known to 5%.
            for (int i = 0; i < 3; ++i)
                for (int c = 0; c < 3; ++c)
                    if (ch(e[0].mean, c) > 0.05)
                        worst_rel_se = std::max(worst_rel_se, ch(e[i].se, c) / ch(e[i].mean, c));
            std::printf(" %.4f (%.3f/%.3f/%.3f)", e[0].mean.r, e[0].se.r / e[0].mean.r,
                        e[1].se.r / e[1].mean.r, e[2].se.r / e[2].mean.r);
        }
        std::printf("\n");
    }
    std::printf("  k = %.3f for %d comparisons; worst |diff|/se = %.3f; worst relative region se = %.4f\n", k,
                comparisons, worst, worst_rel_se);
    EXPECT_LT(worst_rel_se, 0.05);  // meaningful: every lit region known to better than 5%
}

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
namespace {
Environment black_map(int w, int h) {
    Environment env;
    env.width = w;
    env.height = h;
    env.texels.assign(static_cast<size_t>(w) * h, Rgb{});
    return env;
}
// World direction of map coordinates (u, v) under the documented convention
// (inverse of: l = rotated-back d, u = 0.5 + atan2(l.z, l.x) / 2pi, v = acos(l.y) / pi).
Vec3 map_direction(double u, double v, double rotation_deg) {
    const double phi = 2 * kPi * (u - 0.5), theta = kPi * v, a = rotation_deg * kPi / 180;
    const Vec3 l{std::sin(theta) * std::cos(phi), std::cos(theta), std::sin(theta) * std::sin(phi)};
    return {l.x * std::cos(a) + l.z * std::sin(a), l.y, -l.x * std::sin(a) + l.z * std::cos(a)};
}
// Integral of a tent of peak 1 and half-width h centred at c, times
// cos(2 pi f x + psi): h cos(2 pi f c + psi) sinc^2(f h) (its Fourier transform).
double tent_cos(double c, double h, double f, double psi) {
    const double x = kPi * f * h;
    const double sinc = x == 0 ? 1 : std::sin(x) / x;
    return h * std::cos(2 * kPi * f * c + psi) * sinc * sinc;
}
void expect_near_rgb(Rgb a, Rgb b, double tol, const std::string& what) {
    EXPECT_NEAR(a.r, b.r, tol) << what;
    EXPECT_NEAR(a.g, b.g, tol) << what;
    EXPECT_NEAR(a.b, b.b, tol) << what;
}
}  // namespace

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
