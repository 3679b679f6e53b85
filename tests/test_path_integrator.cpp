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

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

namespace {

using namespace srt;

struct Stats {
    std::vector<glm::dvec3> sum, sum2;
    int w = 0, h = 0, n = 0;
    glm::dvec3 mean(int x, int y) const { return sum[size_t(y * w + x)] / double(n); }
    glm::dvec3 var_of_mean(int x, int y) const {
        const glm::dvec3 m = mean(x, y);
        return glm::max(sum2[size_t(y * w + x)] / double(n) - m * m, glm::dvec3(0.0)) / double(n);
    }
};

// Every pixel's samples 0..spp-1 through the reference, over two threads (each pixel's
// samples in order, so the sums do not depend on the split).
Stats render_stats(const CompiledScene& cs, int w, int h, int spp, int depth,
                   PathStrategy strategy = PathStrategy::Mis) {
    Stats st;
    st.w = w;
    st.h = h;
    st.n = spp;
    st.sum.assign(size_t(w * h), glm::dvec3(0.0));
    st.sum2 = st.sum;
    const CameraGpu cam = make_camera(cs.camera, w, h, cs.render_origin);
    auto rows = [&](int y0, int step) {
        for (int y = y0; y < h; y += step)
            for (int x = 0; x < w; ++x)
                for (int s = 0; s < spp; ++s) {
                    const glm::dvec3 v(
                        reference_path_sample(cs, cam, w, h, x, y, uint32_t(s), depth, 0u, nullptr, strategy));
                    st.sum[size_t(y * w + x)] += v;
                    st.sum2[size_t(y * w + x)] += v * v;
                }
    };
    std::thread t(rows, 1, 2);
    rows(0, 2);
    t.join();
    return st;
}

// A closed sphere of albedo a glowing Le on its inside, seen from within: every path sees
// Le, then a Le, a^2 Le, ...: Le (1 - a^(D+1)) / (1 - a) with D scattering vertices.
TEST(PathIntegrator, WhiteFurnaceWithRussianRoulette) {
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
        const Stats st = render_stats(cs, 4, 4, 2048, depth);
        glm::dvec3 mean(0.0), var(0.0);
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 4; ++x) {
                mean += st.mean(x, y) / 16.0;
                var += st.var_of_mean(x, y) / 256.0;
            }
        const double a = albedo;
        const double k = (1.0 - std::pow(a, depth + 1)) / (1.0 - a);
        SCOPED_TRACE("albedo " + std::to_string(a) + " depth " + std::to_string(depth));
        for (int c = 0; c < 3; ++c) {
            const double want = double(wall.emission[c]) * k, se = std::sqrt(var[c]);
            EXPECT_NEAR(mean[c], want, 4.5 * se + 1e-6 * want) << "channel " << c << " se " << se;
            EXPECT_LT(se, 0.01 * want);
        }
    }
}

// A Cornell box file rendered by both: ours from our loader, the oracle from its own OBJ
// reader with the MTL mapped as docs/scene-format.md maps it (Kd diffuse, Ke one-sided,
// illum 5 a mirror of Ks, illum 7 glass of index Ni absorbing -ln(Tf) per unit length).
// Compared in 4x4 regions of a 16x16 image, every channel within k combined standard
// errors, k for 48 comparisons at a family-wise false-failure rate of 1e-3; and the same
// comparison must fail with ours made brighter by `bias` (2-4%): the test can fail.
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
    const Stats ours = render_stats(cs, w, h, our_spp, depth);

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

    const double k = pathref::bonferroni_k(48, 1e-3);
    double worst = 0.0, noisiest = 0.0, worst_biased = 0.0;
    for (int ry = 0; ry < 4; ++ry)
        for (int rx = 0; rx < 4; ++rx) {
            glm::dvec3 m(0.0), v(0.0);
            for (int y = ry * 4; y < ry * 4 + 4; ++y)
                for (int x = rx * 4; x < rx * 4 + 4; ++x) {
                    m += ours.mean(x, y) / 16.0;
                    v += ours.var_of_mean(x, y) / 256.0;
                }
            const pathref::Estimate t = pathref::region_stats(theirs, rx * 4, ry * 4, 4, 4);
            const double tm[3] = {t.mean.r, t.mean.g, t.mean.b}, ts[3] = {t.se.r, t.se.g, t.se.b};
            for (int c = 0; c < 3; ++c) {
                const double se = std::sqrt(v[c] + ts[c] * ts[c]);
                const double z = std::fabs(m[c] - tm[c]) / se;
                worst = std::max(worst, z);
                // The same comparison of ours made brighter by `bias`, to show it would fail.
                const double b = 1.0 + bias, se2 = std::sqrt(b * b * v[c] + ts[c] * ts[c]);
                if (se2 > 0.0) worst_biased = std::max(worst_biased, std::fabs(b * m[c] - tm[c]) / se2);
                EXPECT_LT(z, k) << name << " region " << rx << "," << ry << " channel " << c << ": ours " << m[c]
                                << ", theirs " << tm[c] << ", se " << se;
                if (tm[c] > 0.05) {
                    noisiest = std::max(noisiest, se / tm[c]);
                    EXPECT_LT(se, 0.05 * tm[c]) << name << " region " << rx << "," << ry << ": too noisy to tell";
                }
            }
        }
    EXPECT_GT(worst_biased, k) << name << ": ours " << 100.0 * bias << "% brighter would pass";
    std::printf("[cornell] %s: worst |ours - theirs| / se over 48 region channels %.2f (k = %.2f), noisiest region "
                "%.1f%%; ours %.0f%% brighter: %.2f\n",
                name.c_str(), worst, k, 100.0 * noisiest, 100.0 * bias, worst_biased);
}

TEST(PathIntegrator, CornellBoxAgreesWithTheIndependentPathTracer) {
    expect_cornell_agrees("CornellBox-Original", 8192, 16384, 0.02);
}

// A mirror sphere and a glass sphere of index 2.5 that absorbs (Tf 0.1): refraction, total
// internal reflection, Fresnel's split and Beer-Lambert inside, against the oracle's own.
TEST(PathIntegrator, CornellBoxWithGlassAgreesWithTheIndependentPathTracer) {
    expect_cornell_agrees("CornellBox-Sphere", 16384, 32768, 0.04);
}

// The mean over a region of 4x4 pixels, and its variance (of the mean).
void region_mean(const Stats& st, int rx, int ry, glm::dvec3& m, glm::dvec3& v) {
    m = v = glm::dvec3(0.0);
    for (int y = ry * 4; y < ry * 4 + 4; ++y)
        for (int x = rx * 4; x < rx * 4 + 4; ++x) {
            m += st.mean(x, y) / 16.0;
            v += st.var_of_mean(x, y) / 256.0;
        }
}

// The largest |a - scale b| over the combined standard error, over every region channel
// that either image lights.
double worst_z(const Stats& a, const Stats& b, double scale = 1.0) {
    double worst = 0.0;
    for (int ry = 0; ry < a.h / 4; ++ry)
        for (int rx = 0; rx < a.w / 4; ++rx) {
            glm::dvec3 ma, va, mb, vb;
            region_mean(a, rx, ry, ma, va);
            region_mean(b, rx, ry, mb, vb);
            for (int c = 0; c < 3; ++c) {
                const double se = std::sqrt(va[c] + scale * scale * vb[c]);
                const double d = std::fabs(ma[c] - scale * mb[c]);
                if (se > 0.0) worst = std::max(worst, d / se);
                else if (d > 0.0) worst = INFINITY;  // both exact, and they differ
            }
        }
    return worst;
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
    region_mean(mis, 1, 2, m, v);
    EXPECT_LT(std::sqrt(v.x), 0.02 * m.x);
    EXPECT_GT(worst_z(mis, light, 1.03), k) << "a 3% bias went unseen";
    EXPECT_GT(worst_z(mis, bsdf, 1.03), k) << "a 3% bias went unseen";
    std::printf("[mis] worst z: MIS vs BSDF-only %.2f, MIS vs light-only %.2f (k = %.2f); biased by 3%%: %.1f, %.1f\n",
                z_bsdf, z_light, k, worst_z(mis, bsdf, 1.03), worst_z(mis, light, 1.03));
}
}  // namespace

