// test_path_integrator.cpp - the path integrator's vertex logic (render/path_vertex.h),
// through its per-pixel reference (render/reference_path.cpp), against what it must
// converge to: the white furnace's closed form (Russian roulette must stay unbiased), and
// the Cornell box as an independent path tracer in double computes it
// (tests/support/path_reference.h, written without sight of this code), region by region
// within error bars from both sides' own samples.
#include "render/executor.h"
#include "render/path_vertex.h"
#include "render/scene_gpu.h"
#include "scene/load.h"
#include "scene/scene.h"
#include "support/path_reference.h"
#include "support/path_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

namespace {

using namespace srt;
using namespace srt::test;

// A closed sphere of albedo a glowing Le on its inside, seen from within: every path sees
// Le, then a Le, a^2 Le, ...: Le (1 - a^(D+1)) / (1 - a) with D scattering vertices. Under
// every sampler (scrambled ones with the error bar of 32 replicates).
TEST(PathIntegrator, WhiteFurnaceWithRussianRoulette) {
    for (SamplerKind sampler : {SamplerKind::Independent, SamplerKind::Sobol, SamplerKind::ZSobol})
    for (const auto& [albedo, depth] : {std::pair<float, int>{0.5f, 64}, {0.8f, 64}, {0.8f, 3}}) {
        Scene s;
        s.name = "furnace";
        s.add_material(Material{});
        Material wall;
        wall.colour = glm::vec3(albedo);
        wall.kd = 1.0f;
        wall.emission = glm::vec3(1.0f, 0.5f, 2.0f);
        wall.emission_two_sided = true;
        Sphere sp;
        sp.centre = Point3(0.0);
        sp.radius = 2.0;
        sp.material = s.add_material(wall);
        s.spheres.push_back(sp);
        s.camera.from = glm::vec3(0.3f, -0.2f, 0.1f);
        s.camera.at = glm::vec3(0.0f, 0.0f, -1.0f);
        s.camera.fov_deg = 90.0f;
        const CompiledScene cs = compile_scene(s);
        const int reps = sampler == SamplerKind::Independent ? 1 : 32;
        const Stats st = render_stats(cs, 4, 4, 2048, depth, PathStrategy::Mis, sampler, reps);
        glm::dvec3 mean, var;
        region_stats(st, 0, 0, 4, mean, var);
        const double a = albedo;
        const double sum = (1.0 - std::pow(a, depth + 1)) / (1.0 - a);
        const double k = k_for(27, reps - 1);  // 3 samplers x 3 furnaces x 3 channels
        SCOPED_TRACE(std::string(to_string(sampler)) + ", albedo " + std::to_string(a) + " depth " +
                     std::to_string(depth));
        for (int c = 0; c < 3; ++c) {
            const double want = double(wall.emission[c]) * sum, se = std::sqrt(var[c]);
            EXPECT_NEAR(mean[c], want, k * se + 1e-6 * want) << "channel " << c << " se " << se;
            EXPECT_LT(se, 0.01 * want);
        }
    }
}

// A Cornell box file rendered by both: ours from our loader, the oracle from its own OBJ
// reader with the MTL mapped as docs/scene-format.md maps it (Kd diffuse, Ke one-sided,
// illum 5 a mirror of Ks, illum 7 glass of index Ni absorbing -ln(Tf) per unit length).
// Compared in 4x4 regions of a 16x16 image, every channel within k combined standard
// errors, k for 48 comparisons at a family-wise false-failure rate of 1e-3; and the same
// comparison must fail with ours made brighter by `bias` (2-4%): the test can fail. Ours
// under each sampler, its error bars from 32 replicates (render_stats).
void expect_cornell_agrees(const std::string& name, int our_spp, int their_spp, double bias) {
    const std::string dir = std::string(SRT_SHARED_DATA) + "/scenes/cornell-box/";
    const std::string obj = dir + name + ".obj";
    if (!std::ifstream(obj)) GTEST_SKIP() << obj << " not present";
    Scene scene = load_scene(obj);
    // The oracle's mirror has no diffuse base, and it shades with the flat triangles'
    // normals: ours loses its Kd 0.01 and the file's vertex normals to compare alike.
    for (Material& m : scene.materials)
        if (m.is_mirror()) m.kd = 0.0f;
    for (Triangle& t : scene.triangles) t.smooth = false;
    const CompiledScene cs = compile_scene(scene);
    const int w = 16, h = 16, depth = 8;

    struct Mtl {
        double kd[3] = {0, 0, 0}, ks[3] = {0, 0, 0}, ke[3] = {0, 0, 0}, tf[3] = {1, 1, 1}, ni = 1.0;
        int illum = 2;
    };
    std::map<std::string, Mtl> mtl;
    {
        std::ifstream f(dir + name + ".mtl");
        std::string line, cur;
        while (std::getline(f, line)) {
            std::istringstream ls(line);
            std::string key;
            if (!(ls >> key)) continue;
            if (key == "newmtl") ls >> cur;
            double* v = key == "Kd" ? mtl[cur].kd : key == "Ks" ? mtl[cur].ks : key == "Ke" ? mtl[cur].ke
                      : key == "Tf" ? mtl[cur].tf : nullptr;
            if (v) ls >> v[0] >> v[1] >> v[2];
            if (key == "Ni") ls >> mtl[cur].ni;
            if (key == "illum") ls >> mtl[cur].illum;
        }
    }
    std::map<std::string, pathref::Material> mats;
    for (const auto& [n, m] : mtl) {
        pathref::Material p;
        p.emission = {m.ke[0], m.ke[1], m.ke[2]};
        if (m.illum == 3 || m.illum == 5) {
            p.type = pathref::Material::Mirror;
            p.mirror_reflectance = {m.ks[0], m.ks[1], m.ks[2]};
        } else if (m.illum == 4 || m.illum == 6 || m.illum == 7) {
            p.type = pathref::Material::Dielectric;
            p.ior = m.ni;
            p.absorption = {-std::log(m.tf[0]), -std::log(m.tf[1]), -std::log(m.tf[2])};
        } else {
            p.albedo = {m.kd[0], m.kd[1], m.kd[2]};
        }
        mats[n] = p;
    }
    pathref::Scene ref;
    pathref::add_obj(ref, pathref::load_obj(obj), mats);
    pathref::Camera cam;
    cam.from = {scene.camera.from.x, scene.camera.from.y, scene.camera.from.z};
    cam.at = {scene.camera.at.x, scene.camera.at.y, scene.camera.at.z};
    cam.up = {scene.camera.up.x, scene.camera.up.y, scene.camera.up.z};
    cam.hfov_deg = scene.camera.fov_deg;
    cam.width = w;
    cam.height = h;
    pathref::RenderOptions o;
    o.spp = their_spp;
    o.max_depth = depth;
    o.seed = 7;
    const pathref::Image theirs = pathref::render(ref, cam, o);

    for (SamplerKind sampler : {SamplerKind::Independent, SamplerKind::Sobol, SamplerKind::ZSobol}) {
        const int reps = 32;
        const Stats ours = render_stats(cs, w, h, our_spp, depth, PathStrategy::Mis, sampler, reps);
        const double k = k_for(48, reps - 1);
        double worst = 0.0, noisiest = 0.0, worst_biased = 0.0;
        for (int ry = 0; ry < 4; ++ry)
            for (int rx = 0; rx < 4; ++rx) {
                glm::dvec3 m, v;
                region_stats(ours, rx * 4, ry * 4, 4, m, v);
                const pathref::Estimate t = pathref::region_stats(theirs, rx * 4, ry * 4, 4, 4);
                const double tm[3] = {t.mean.r, t.mean.g, t.mean.b}, ts[3] = {t.se.r, t.se.g, t.se.b};
                for (int c = 0; c < 3; ++c) {
                    const double se = std::sqrt(v[c] + ts[c] * ts[c]);
                    const double z = std::fabs(m[c] - tm[c]) / se;
                    worst = std::max(worst, z);
                    // The same comparison of ours made brighter by `bias`, to show it would fail.
                    const double b = 1.0 + bias, se2 = std::sqrt(b * b * v[c] + ts[c] * ts[c]);
                    if (se2 > 0.0) worst_biased = std::max(worst_biased, std::fabs(b * m[c] - tm[c]) / se2);
                    EXPECT_LT(z, k) << name << ", " << to_string(sampler) << ", region " << rx << "," << ry
                                    << " channel " << c << ": ours " << m[c] << ", theirs " << tm[c] << ", se " << se;
                    if (tm[c] > 0.05) {
                        noisiest = std::max(noisiest, se / tm[c]);
                        EXPECT_LT(se, 0.05 * tm[c]) << name << " region " << rx << "," << ry << ": too noisy to tell";
                    }
                }
            }
        EXPECT_GT(worst_biased, k) << name << ", " << to_string(sampler) << ": ours " << 100.0 * bias
                                   << "% brighter would pass";
        std::printf("[cornell] %s, %s: worst |ours - theirs| / se over 48 region channels %.2f (k = %.2f), noisiest "
                    "region %.1f%%; ours %.0f%% brighter: %.2f\n",
                    name.c_str(), to_string(sampler), worst, k, 100.0 * noisiest, 100.0 * bias, worst_biased);
    }
}

TEST(PathIntegrator, CornellBoxAgreesWithTheIndependentPathTracer) {
    expect_cornell_agrees("CornellBox-Original", 8192, 16384, 0.02);
}

// A mirror sphere and a glass sphere of index 2.5 that absorbs (Tf 0.1): refraction, total
// internal reflection, Fresnel's split and Beer-Lambert inside, against the oracle's own.
TEST(PathIntegrator, CornellBoxWithGlassAgreesWithTheIndependentPathTracer) {
    expect_cornell_agrees("CornellBox-Sphere", 16384, 32768, 0.04);
}

// Multiple importance sampling against each estimator alone, on a scene where both
// matter (scenes/glass.json: a small area light, a rough gold sphere of roughness 0.35,
// glass): BSDF sampling alone, light sampling alone and MIS converge to the same image.
// 16 regions x 3 channels x 2 comparisons, k for 96 at a family-wise false-failure rate of
// 1e-3. A 3% bias in one image must fail the same comparison (the test can fail).
TEST(PathIntegrator, MisAgreesWithEachStrategyAlone) {
    const Scene scene = load_scene(std::string(SRT_SOURCE_DIR) + "/scenes/glass.json");
    const CompiledScene cs = compile_scene(scene);
    const int w = 16, h = 16, depth = 6;
    const Stats mis = render_stats(cs, w, h, 8192, depth);
    const Stats bsdf = render_stats(cs, w, h, 32768, depth, PathStrategy::BsdfOnly);
    const Stats light = render_stats(cs, w, h, 8192, depth, PathStrategy::LightOnly);
    const double k = pathref::bonferroni_k(96, 1e-3);
    const double z_bsdf = worst_z(mis, bsdf), z_light = worst_z(mis, light);
    EXPECT_LT(z_bsdf, k) << "MIS against BSDF sampling alone";
    EXPECT_LT(z_light, k) << "MIS against light sampling alone";
    // Sharp enough to tell: the brightest region's error is under 2% of its mean.
    glm::dvec3 m, v;
    region_stats(mis, 4, 8, 4, m, v);
    EXPECT_LT(std::sqrt(v.x), 0.02 * m.x);
    EXPECT_GT(worst_z(mis, light, 1.03), k) << "a 3% bias went unseen";
    EXPECT_GT(worst_z(mis, bsdf, 1.03), k) << "a 3% bias went unseen";
    std::printf("[mis] worst z: MIS vs BSDF-only %.2f, MIS vs light-only %.2f (k = %.2f); biased by 3%%: %.1f, %.1f\n",
                z_bsdf, z_light, k, worst_z(mis, bsdf, 1.03), worst_z(mis, light, 1.03));
}

// The scrambled samplers converge to what independent numbers converge to, on a scene
// with an area light, rough gold and glass (scenes/glass.json): 16 regions x 3 channels x
// 2 samplers, each image's error bar from 32 replicates, k for 96 comparisons at a
// family-wise false-failure rate of 1e-3. A 3% bias must fail the same comparison.
TEST(PathIntegrator, SamplersAgreeWithIndependentNumbers) {
    const Scene scene = load_scene(std::string(SRT_SOURCE_DIR) + "/scenes/glass.json");
    const CompiledScene cs = compile_scene(scene);
    const int w = 16, h = 16, depth = 6, reps = 32;
    const Stats independent = render_stats(cs, w, h, 8192, depth, PathStrategy::Mis, SamplerKind::Independent, reps);
    const double k = k_for(96, reps - 1);
    for (SamplerKind sampler : {SamplerKind::Sobol, SamplerKind::ZSobol}) {
        const Stats st = render_stats(cs, w, h, 8192, depth, PathStrategy::Mis, sampler, reps);
        const double z = worst_z(st, independent), biased = worst_z(st, independent, 1.03);
        EXPECT_LT(z, k) << to_string(sampler) << " against independent numbers";
        EXPECT_GT(biased, k) << to_string(sampler) << ": a 3% bias went unseen";
        std::printf("[samplers] glass.json, %s against independent: worst z %.2f (k = %.2f); biased by 3%%: %.1f\n",
                    to_string(sampler), z, k, biased);
    }
}
}  // namespace

