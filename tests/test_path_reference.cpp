// Tests of the pathref reference path tracer (support/path_reference.h) against closed-form
// results: furnaces, emitters over planes, dielectrics and Fresnel, mirrors, its OBJ reader,
// the Cornell box's strategies. The thin lens and the environment map are tested in
// test_path_reference_env.cpp, the microfacet BSDFs in test_path_reference_bsdf.cpp.
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
