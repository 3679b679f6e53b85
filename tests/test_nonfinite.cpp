// test_nonfinite.cpp - no NaN or infinity reaches the image: every material the path
// integrator models, over roughnesses from a perfect mirror to 1 and under both
// integrators, renders finite values with no sample dropped (a nearly polished GGX metal,
// roughness 0.01, made a third of a frame NaN); and the film (render/stages.h,
// add_radiance) leaves a sample that is not finite out of its pixel and counts it, the
// same in every mode, in the reference and in FrameStats.
#include "core/image.h"
#include "render/executor.h"
#include "render/scene_gpu.h"
#include "render/stages.h"
#include "scene/load.h"
#include "scene/scene.h"
#include "support/settings.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace srt;

namespace {

struct Kind {
    const char* name;
    Material m;
};

// Every lobe bsdf.h has, on the sphere glass.json makes of gold: a conductor, a mirror
// over a diffuse base, a glossy lobe over one, Lambert alone (whose roughness has no lobe
// to be rough), glTF's metal and plastic, and glass (smooth below roughness 0.0316, rough
// above).
std::vector<Kind> kinds() {
    std::vector<Kind> v;
    Material conductor;
    conductor.colour = glm::vec3(0.0f);
    conductor.kd = 0.0f;
    conductor.kr = glm::vec3(1.0f, 0.71f, 0.29f);
    v.push_back({"conductor", conductor});
    Material coated;
    coated.colour = glm::vec3(0.7f);
    coated.kd = 0.5f;
    coated.kr = glm::vec3(0.5f);
    v.push_back({"conductor over diffuse", coated});
    Material glossy;
    glossy.colour = glm::vec3(0.6f, 0.2f, 0.2f);
    glossy.kd = 1.0f;
    glossy.glossy = glm::vec3(0.04f);
    v.push_back({"glossy over diffuse", glossy});
    Material lambert;
    lambert.colour = glm::vec3(0.7f);
    lambert.kd = 1.0f;
    v.push_back({"lambert", lambert});
    Material glass;
    glass.colour = glm::vec3(1.0f);
    glass.kd = 0.0f;
    glass.ior = 1.5f;
    v.push_back({"dielectric", glass});
    Material tinted = glass;
    tinted.absorption = glm::vec3(0.2f, 0.8f, 2.0f);
    v.push_back({"absorbing dielectric", tinted});
    for (const float metallic : {0.0f, 1.0f}) {
        Material gltf;
        gltf.colour = glm::vec3(1.0f, 0.71f, 0.29f);
        gltf.pbr = true;
        gltf.metallic = metallic;
        v.push_back({metallic > 0.0f ? "glTF metal" : "glTF plastic", gltf});
    }
    return v;
}

uint32_t material_named(const Scene& s, const std::string& name) {
    for (uint32_t k = 0; k < s.materials.size(); ++k)
        if (s.materials[k].name == name) return k;
    throw std::runtime_error("no material " + name);
}

size_t nonfinite_values(const LinearImage& lin) {
    size_t n = 0;
    for (float v : lin.rgb) n += !std::isfinite(v);
    return n;
}

// Sets cs on ex and renders it under rs: the 8-bit image into img, the counters into st;
// the linear image returned. cs is the caller's, as the executor reads it during the frame.
LinearImage render_counted(Executor& ex, const CompiledScene& cs, const Camera& camera, const RenderSettings& rs,
                           Image& img, FrameStats& st) {
    ex.set_scene(cs);
    ex.render(camera, rs, img, &st);
    LinearImage lin;
    ex.read_linear(lin);
    return lin;
}

}  // namespace

// The roughnesses of docs/scene-format.md's range, thickest where float ran out: alpha =
// roughness^2 is 1e-8 at 1e-4, and GGX's D came out inf / inf there and up to 0.01.
TEST(Film, EveryMaterialAtEveryRoughnessRendersFiniteUnderBothIntegrators) {
    const Scene base = load_scene(std::string(SRT_SOURCE_DIR) + "/scenes/glass.json");
    const uint32_t gold = material_named(base, "gold");
    auto ex = make_cpu_executor(2);
    for (const Kind& kind : kinds()) {
        for (const float roughness : {0.0f, 1e-4f, 1e-3f, 0.01f, 0.02f, 0.05f, 0.1f, 0.3f, 1.0f}) {
            Scene scene = base;
            Material m = kind.m;
            m.name = "gold";
            m.roughness = roughness;
            scene.materials[gold] = m;
            const CompiledScene cs = compile_scene(scene);
            ex->set_scene(cs);
            for (const Integrator integrator : {Integrator::Whitted, Integrator::Path}) {
                for (const DeadRayMode mode : {DeadRayMode::Stencil, DeadRayMode::Megakernel}) {
                    SCOPED_TRACE(std::string(kind.name) + ", roughness " + std::to_string(roughness) + ", " +
                                 to_string(integrator) + ", " + to_string(mode));
                    Image img;
                    FrameStats st;
                    ex->render(scene.camera, test::Frame(48, 32, 6, mode).spp(2).integrator(integrator), img, &st);
                    LinearImage lin;
                    ex->read_linear(lin);
                    EXPECT_EQ(nonfinite_values(lin), 0u);
                    EXPECT_EQ(st.nonfinite_samples, 0u);
                }
            }
        }
    }
}

// The film's arithmetic on one pixel's sum, in both forms a ray takes (a slot of the SoA
// buffers, and registers): a NaN, an infinity and a finite term that would overflow the
// sum are each left out and counted once; finite terms add as they always did.
TEST(Film, DropsAndCountsANonFiniteSample) {
    const float nan = std::nanf(""), inf = INFINITY;
    const glm::vec3 a(0.25f, 0.5f, 1.0f), b(1.0f, 2.0f, 3.0f);
    const glm::vec3 want = (a + b) + b;  // the finite terms, in their order
    f4 slots[2] = {};
    const RayBuffers buffers{nullptr, nullptr, nullptr, slots, nullptr, nullptr};
    const RaySlot r{&buffers, 1};
    r.clear_sum();
    r.add_radiance(a);
    r.add_radiance(glm::vec3(nan, 0.0f, 0.0f));
    r.add_radiance(b, glm::vec3(0.0f, inf, 0.0f));  // the first term added, the second dropped
    r.add_radiance(b);
    EXPECT_EQ(r.radiance(), want);
    EXPECT_EQ(slots[1].w, 2.0f);
    EXPECT_EQ(slots[0].w, 0.0f);  // the neighbouring slot untouched
    // A finite term the sum cannot hold: 3e38 twice is past float's 3.4e38.
    const glm::vec3 big(0.0f, 0.0f, 3e38f);
    r.add_radiance(big);
    r.add_radiance(big);
    EXPECT_EQ(r.radiance(), want + big);
    EXPECT_EQ(slots[1].w, 3.0f);

    PathRay p;
    p.clear_sum();
    p.add_radiance(a);
    p.add_radiance(glm::vec3(nan, 0.0f, 0.0f));
    p.add_radiance(b, glm::vec3(0.0f, inf, 0.0f));
    p.add_radiance(b);
    p.add_radiance(big);
    p.add_radiance(big);
    EXPECT_EQ(p.rad, want + big);
    EXPECT_EQ(p.dropped, 3.0f);
    p.store_sum(buffers, 0);  // and back: the count travels with the sum
    PathRay q;
    q.load_sum(buffers, 0);
    EXPECT_EQ(q.rad, want + big);
    EXPECT_EQ(q.dropped, 3.0f);
}

// A background that is a NaN (no loader takes one; set here to inject a bad sample where
// the answer is known): every sample whose camera ray misses adds it, and the film must
// drop exactly those, leaving the other samples' sum as it is, and count them in
// FrameStats, in every mode; the reference renderers drop the same samples.
TEST(Film, ANanBackgroundIsDroppedAndCountedInEveryMode) {
    Scene scene;
    scene.camera.from = {0.0, 0.0, 5.0};
    scene.camera.at = {0.0, 0.0, 0.0};
    Material m;
    m.colour = glm::vec3(0.8f, 0.6f, 0.4f);
    m.kd = 0.9f;
    const uint32_t lit = scene.add_material(m);
    Material black;
    black.colour = glm::vec3(0.0f);
    black.kd = 0.0f;
    black.ka = 0.0f;
    const uint32_t dark = scene.add_material(black);
    scene.spheres.push_back({{0.0, 0.0, 0.0}, 1.2, lit});
    Light l;
    l.position = {3.0, 4.0, 5.0};
    scene.lights.push_back(l);
    const glm::vec3 sky(0.25f, 0.5f, 1.0f), nan(std::nanf(""), 0.0f, 0.0f);
    auto ex = make_cpu_executor(2);
    for (const DeadRayMode mode : {DeadRayMode::Stencil, DeadRayMode::Megakernel}) {
        SCOPED_TRACE(to_string(mode));
        // One sample a pixel, at its centre: a pixel misses or it does not. The missed
        // ones go black, the rest keep their bits, and each miss is counted.
        {
            scene.spheres[0].material = lit;
            const RenderSettings rs = test::Frame(41, 27, 1, mode);
            scene.background = sky;
            const CompiledScene finite_cs = compile_scene(scene);
            Image img;
            FrameStats st;
            const LinearImage good = render_counted(*ex, finite_cs, scene.camera, rs, img, st);
            EXPECT_EQ(st.nonfinite_samples, 0u);
            scene.background = nan;
            const CompiledScene nan_cs = compile_scene(scene);
            const LinearImage lin = render_counted(*ex, nan_cs, scene.camera, rs, img, st);
            Image ref;
            render_reference(nan_cs, scene.camera, rs, ref);
            EXPECT_EQ(img.rgba, ref.rgba);
            uint64_t misses = 0, hits = 0;
            for (int y = 0; y < lin.height; ++y)
                for (int x = 0; x < lin.width; ++x) {
                    const float* g = good.pixel(x, y);
                    const float* n = lin.pixel(x, y);
                    if (glm::vec3(g[0], g[1], g[2]) == sky) {
                        ++misses;
                        EXPECT_EQ(glm::vec3(n[0], n[1], n[2]), glm::vec3(0.0f)) << x << "," << y;
                    } else {
                        ++hits;
                        EXPECT_EQ(std::memcmp(g, n, 3 * sizeof(float)), 0) << x << "," << y;
                    }
                }
            ASSERT_GT(misses, 100u);
            ASSERT_GT(hits, 100u);
            EXPECT_EQ(st.nonfinite_samples, misses);
        }
        // Three samples a pixel over a black sphere: under a white sky a pixel holds k / 3,
        // k its samples that missed; under the NaN one it is black, and the count is the
        // sum of the k.
        {
            scene.spheres[0].material = dark;
            const RenderSettings rs = test::Frame(41, 27, 1, mode).spp(3);
            scene.background = glm::vec3(1.0f);
            const CompiledScene white_cs = compile_scene(scene);
            Image img;
            FrameStats st;
            const LinearImage white = render_counted(*ex, white_cs, scene.camera, rs, img, st);
            uint64_t missed = 0;
            for (float v : white.rgb) missed += uint64_t(std::lround(double(v) * 3.0));
            missed /= 3;  // three channels alike
            scene.background = nan;
            const CompiledScene nan_cs = compile_scene(scene);
            const LinearImage lin = render_counted(*ex, nan_cs, scene.camera, rs, img, st);
            for (float v : lin.rgb) ASSERT_EQ(v, 0.0f);
            ASSERT_GT(missed, 300u);
            EXPECT_EQ(st.nonfinite_samples, missed);
        }
    }
    // The path integrator: its scattered rays find the background too; the count is the
    // same whichever loop runs the paths, and the image the reference's.
    scene.spheres[0].material = lit;
    const RenderSettings stencil = test::Frame(41, 27, 3, DeadRayMode::Stencil).spp(2).path();
    const RenderSettings mega = test::Frame(41, 27, 3, DeadRayMode::Megakernel).spp(2).path();
    const CompiledScene cs = compile_scene(scene);
    Image a, b, ref;
    FrameStats sa, sb;
    const LinearImage la = render_counted(*ex, cs, scene.camera, stencil, a, sa);
    const LinearImage lb = render_counted(*ex, cs, scene.camera, mega, b, sb);
    render_reference(cs, scene.camera, stencil, ref);
    EXPECT_GT(sa.nonfinite_samples, 0u);
    EXPECT_EQ(sa.nonfinite_samples, sb.nonfinite_samples);
    EXPECT_EQ(a.rgba, ref.rgba);
    EXPECT_EQ(b.rgba, ref.rgba);
    EXPECT_EQ(la.rgb, lb.rgb);
    EXPECT_EQ(nonfinite_values(la), 0u);
}
