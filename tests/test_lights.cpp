// test_lights.cpp - the path integrator's light sampling (render/lights.h) and its table
// (render/light_table.cpp): lights picked in proportion to their power (computed here from
// the definitions), a stand-in point light never picked, and the sampled irradiance at a
// point against closed forms in double: Lambert's formula for a polygon and pi Le (r/D)^2
// for a sphere, within error bars from the samples. The density a sample reports must be
// the one emitter_pdf gives for the same point, or MIS would weigh it wrongly.
#include "render/lights.h"
#include "render/scene_gpu.h"
#include "scene/scene.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <random>
#include <vector>

namespace {

using namespace srt;

double lum(const glm::dvec3& c) { return 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z; }

// Irradiance at p (normal np) from a Lambertian polygon of radiance le, by Lambert's
// formula: E = le / 2 * sum over edges of the angle the edge subtends times the cosine of
// the plane through p and the edge with np. Only the side of the polygon p sees counts.
double polygon_irradiance(const std::vector<glm::dvec3>& v, const glm::dvec3& p, const glm::dvec3& np, double le) {
    double sum = 0.0;
    for (size_t i = 0; i < v.size(); ++i) {
        const glm::dvec3 a = glm::normalize(v[i] - p), b = glm::normalize(v[(i + 1) % v.size()] - p);
        const double theta = std::acos(std::clamp(glm::dot(a, b), -1.0, 1.0));
        sum += theta * glm::dot(glm::normalize(glm::cross(a, b)), np);
    }
    return 0.5 * le * std::fabs(sum);
}

struct Mc {
    double mean = 0.0, se = 0.0;
};

// Mean over n light samples of the irradiance estimate Le cos / pdf at o (normal n), green
// channel, and its standard error.
Mc irradiance(const SceneView& v, const glm::vec3& o, const glm::vec3& n, int count, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    double sum = 0.0, sum2 = 0.0;
    for (int k = 0; k < count; ++k) {
        const LightSample ls = sample_light(v, o, u(rng), u(rng), u(rng));
        double x = 0.0;
        if (ls.valid) x = double(ls.radiance.y) * std::max(0.0, double(glm::dot(ls.wi, n))) / double(ls.pdf);
        sum += x;
        sum2 += x * x;
    }
    Mc m;
    m.mean = sum / count;
    m.se = std::sqrt(std::max(0.0, sum2 / count - m.mean * m.mean) / count);
    return m;
}

Scene base_scene() {
    Scene s;
    s.name = "lights";
    s.add_material(Material{});  // 0: plain
    s.camera.from = glm::vec3(0.0f, 0.0f, 0.0f);  // rendering space = world space
    s.camera.at = glm::vec3(0.0f, 0.0f, -1.0f);
    return s;
}

void add_triangle(Scene& s, const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c, uint32_t m) {
    Triangle t;
    t.v0 = a;
    t.v1 = b;
    t.v2 = c;
    t.material = m;
    s.triangles.push_back(t);
}

}  // namespace

TEST(Lights, PickedInProportionToPower) {
    Scene s = base_scene();
    Material lamp;
    lamp.emission = glm::vec3(4.0f, 3.0f, 2.0f);
    const uint32_t ml = s.add_material(lamp);
    Material ball;
    ball.emission = glm::vec3(1.0f, 1.0f, 1.0f);
    ball.emission_two_sided = true;  // a sphere's inside is hidden anyway: power counts both sides
    const uint32_t mb = s.add_material(ball);
    add_triangle(s, {-1, 2, -1}, {1, 2, -1}, {1, 2, 1}, ml);  // area 2
    Sphere sp;
    sp.centre = Point3(3, 0, 0);
    sp.radius = 0.5;
    sp.material = mb;
    s.spheres.push_back(sp);
    add_triangle(s, {-5, -1, -5}, {5, -1, -5}, {5, -1, 5}, 0);  // a floor, not emissive
    Light point;
    point.position = Point3(0, 5, 0);
    point.colour = glm::vec3(2.0f);
    Light stand_in = point;
    stand_in.from_emission = true;
    s.lights = {point, stand_in};
    s.light_model = LightModel::Physical;
    {
        // A classic light brings irradiance pi L anywhere (render/lights.h), so it brings
        // pi r^2 pi L onto the scene's bounding sphere of radius r.
        Scene classic = s;
        classic.light_model = LightModel::Classic;
        const CompiledScene cc = compile_scene(classic);
        const double r = 0.5 * std::sqrt(10.0 * 10.0 + 3.0 * 3.0 + 10.0 * 10.0);  // bounds (-5,-1,-5)..(5,2,5)
        const double pc = M_PI * r * r * M_PI * lum(glm::dvec3(2.0));
        const double tri = M_PI * 2.0 * lum(glm::dvec3(4, 3, 2)), ball = 2.0 * M_PI * M_PI * lum(glm::dvec3(1.0));
        EXPECT_NEAR(cc.light_pmf[0], pc / (pc + tri + ball), 1e-6);
    }
    const CompiledScene cs = compile_scene(s);
    ASSERT_EQ(cs.emitters.size(), 2u);
    ASSERT_EQ(cs.light_pmf.size(), 4u);  // 2 lights, then 2 emitters
    const double p_point = 4.0 * M_PI * lum(glm::dvec3(2.0));
    const double p_tri = M_PI * 2.0 * lum(glm::dvec3(4, 3, 2));
    const double p_ball = 2.0 * M_PI * (4.0 * M_PI * 0.25) * lum(glm::dvec3(1.0));
    const double total = p_point + p_tri + p_ball;
    EXPECT_NEAR(cs.light_pmf[0], p_point / total, 1e-6);
    EXPECT_EQ(cs.light_pmf[1], 0.0f) << "a stand-in for an emitter must never be picked";
    // Find which emitter is which by kind.
    for (size_t e = 0; e < cs.emitters.size(); ++e) {
        const bool sphere = float_bits(cs.emitters[e].e2.w) == kEmitterSphere;
        EXPECT_NEAR(cs.light_pmf[2 + e], (sphere ? p_ball : p_tri) / total, 1e-6);
        EXPECT_NEAR(cs.emitters[e].e1.w, sphere ? M_PI : 2.0, 1e-6);
        const uint32_t prim = float_bits(cs.emitters[e].p0.w);
        ASSERT_LT(prim, cs.prim_emitter.size());
        EXPECT_EQ(cs.prim_emitter[prim], uint32_t(e));
    }
    size_t not_emitting = 0;
    for (uint32_t k : cs.prim_emitter) not_emitting += k == kNoEmitter;
    EXPECT_EQ(not_emitting, 1u);  // the floor
    // Every u picks a light whose interval holds it, and never the stand-in.
    const SceneView v = cs.view();
    for (int i = 0; i < 100000; ++i) {
        const float u = float(i) / 100000.0f;
        const uint32_t k = pick_light(v, u);
        ASSERT_NE(k, 1u) << u;
        EXPECT_LE(cs.light_cdf[k], u);
        if (k + 1 < cs.light_cdf.size()) EXPECT_LT(u, cs.light_cdf[k + 1]);
    }
}

// A long emitter across a field of small triangles: the BVH's spatial splits cut it into
// several stored copies (accel/spatial_split.h), and it is still one emitter, with its
// power counted once, which every copy's hit finds.
TEST(Lights, AnEmitterCutBySpatialSplitsIsOneEmitter) {
    Scene s = base_scene();
    Material lamp;
    lamp.emission = glm::vec3(2.0f);
    const uint32_t ml = s.add_material(lamp);
    for (int i = 0; i < 40; ++i)
        for (int j = 0; j < 40; ++j) {
            const double x = -10.0 + 0.5 * i, z = -10.0 + 0.5 * j;
            add_triangle(s, {x, 0, z}, {x + 0.4, 0, z}, {x, 0.4, z + 0.4}, 0);
        }
    add_triangle(s, {-10, 0.1, -10}, {10, 0.3, 10}, {-10, 0.3, -9.9}, ml);  // a diagonal sliver
    const CompiledScene cs = compile_scene(s);
    size_t copies = 0;
    for (size_t k = 0; k < cs.prims.size(); ++k) {
        if (float_bits(cs.prims[k].p2.w) != 40 * 40) continue;
        ++copies;
        EXPECT_EQ(cs.prim_emitter[k], 0u) << "copy at " << k;
    }
    ASSERT_GT(copies, 1u) << "the emitter was not cut: the test would test nothing";
    ASSERT_EQ(cs.emitters.size(), 1u);
    EXPECT_EQ(cs.light_pmf.size(), 1u);
    EXPECT_EQ(cs.light_pmf[0], 1.0f);
    const uint32_t first = float_bits(cs.emitters[0].p0.w);
    EXPECT_EQ(float_bits(cs.prims[first].p2.w), uint32_t(40 * 40));
}

// The emitters follow the scene's order of primitives, whatever the tree: every layout,
// with and without spatial splits, compiles the same emitters in the same order, so the
// light a sample picks is the same. Twelve lamps among slivers the build cuts.
TEST(Lights, EmittersFollowTheScenesOrderWhateverTheTree) {
    Scene s = base_scene();
    for (int k = 0; k < 3; ++k) {
        Material lamp;
        lamp.emission = glm::vec3(1.0f + float(k), 2.0f, 3.0f - float(k));
        s.add_material(lamp);
    }
    for (int i = 0; i < 60; ++i) {
        const double a = 0.37 * i, y = 0.5 + 0.05 * i;
        const glm::dvec3 c(std::cos(a), 0.0, std::sin(a));
        add_triangle(s, {-5.0 * c.x, y, -5.0 * c.z}, {5.0 * c.x, y, 5.0 * c.z}, {-5.0 * c.x, y + 0.2, -5.0 * c.z + 0.1},
                     i % 5 == 0 ? uint32_t(1 + (i / 5) % 3) : 0u);
    }
    std::vector<uint32_t> first_ids;
    for (AccelLayout layout : {AccelLayout::Bvh2, AccelLayout::Bvh4, AccelLayout::Bvh8})
        for (bool splits : {false, true}) {
            SCOPED_TRACE(std::string(to_string(layout)) + (splits ? " with splits" : " without"));
            const CompiledScene cs = compile_scene(s, layout, BvhBuildOptions{splits});
            ASSERT_EQ(cs.emitters.size(), 12u);
            std::vector<uint32_t> ids;
            for (const EmitterGpu& e : cs.emitters) ids.push_back(float_bits(cs.prims[float_bits(e.p0.w)].p2.w));
            EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
            if (first_ids.empty()) first_ids = ids;
            EXPECT_EQ(ids, first_ids);
            for (size_t k = 0; k < cs.prims.size(); ++k)
                if (cs.prim_emitter[k] != kNoEmitter) EXPECT_EQ(ids[cs.prim_emitter[k]], float_bits(cs.prims[k].p2.w));
        }
}

// A tilted triangle emitter and a shading point off to the side: the estimate converges to
// Lambert's formula, one-sided emission counts only when the front faces the point, and
// each sample's pdf is emitter_pdf's for its point.
TEST(Lights, TriangleIrradianceMatchesLambertsFormula) {
    Scene s = base_scene();
    Material lamp;
    lamp.emission = glm::vec3(1.0f, 3.0f, 1.0f);
    const uint32_t m = s.add_material(lamp);
    const glm::dvec3 a(-0.7, 2.0, -0.4), b(0.9, 2.3, -0.2), c(0.1, 1.8, 0.8);
    add_triangle(s, a, b, c, m);  // front face (e1 x e2) towards -y: down, towards the point
    const CompiledScene cs = compile_scene(s);
    const SceneView v = cs.view();
    const glm::dvec3 p(0.3, 0.0, 0.1), np = glm::normalize(glm::dvec3(0.2, 1.0, -0.1));
    const double want = polygon_irradiance({a, b, c}, p, np, 3.0);
    const Mc got = irradiance(v, glm::vec3(p), glm::vec3(np), 400000, 1);
    EXPECT_NEAR(got.mean, want, 5.0 * got.se) << "se " << got.se;
    EXPECT_LT(got.se, 0.01 * want);

    // Seen from above, the same triangle's back faces the point: nothing arrives; two-sided, all of it.
    const glm::dvec3 q(0.1, 4.0, 0.0), nq(0.0, -1.0, 0.0);
    EXPECT_EQ(irradiance(v, glm::vec3(q), glm::vec3(nq), 1000, 2).mean, 0.0);
    s.materials[m].emission_two_sided = true;
    const CompiledScene cs2 = compile_scene(s);
    const Mc two = irradiance(cs2.view(), glm::vec3(q), glm::vec3(nq), 400000, 3);
    const double want2 = polygon_irradiance({a, b, c}, q, nq, 3.0);
    EXPECT_NEAR(two.mean, want2, 5.0 * two.se);

    // The density a sample reports is emitter_pdf's at that point.
    std::mt19937 rng(4);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (int k = 0; k < 1000; ++k) {
        const LightSample ls = sample_light(v, glm::vec3(p), u(rng), u(rng), u(rng));
        ASSERT_TRUE(ls.valid);
        const glm::vec3 n = glm::normalize(glm::cross(glm::vec3(b - a), glm::vec3(c - a)));
        EXPECT_FLOAT_EQ(emitter_pdf(v, 0, ls.wi, ls.dist, n), ls.pdf);
    }
}

// An emissive sphere of radius r at distance D, seen head-on: E = pi Le (r / D)^2. Points on
// its far side face away from the shading point and send nothing.
TEST(Lights, SphereIrradianceMatchesTheClosedForm) {
    Scene s = base_scene();
    Material ball;
    ball.emission = glm::vec3(2.0f);
    const uint32_t m = s.add_material(ball);
    Sphere sp;
    sp.centre = Point3(0.0, 3.0, 0.0);
    sp.radius = 0.6;
    sp.material = m;
    s.spheres.push_back(sp);
    const CompiledScene cs = compile_scene(s);
    const Mc got = irradiance(cs.view(), glm::vec3(0.0f), glm::vec3(0.0f, 1.0f, 0.0f), 400000, 5);
    const double want = M_PI * 2.0 * (0.6 / 3.0) * (0.6 / 3.0);
    EXPECT_NEAR(got.mean, want, 5.0 * got.se) << "se " << got.se;
    EXPECT_LT(got.se, 0.01 * want);
}

// A point light falls off with the square of the distance; a directional one does not.
TEST(Lights, PointAndDirectionalLights) {
    Scene s = base_scene();
    s.light_model = LightModel::Physical;
    Light point;
    point.position = Point3(0, 4, 0);
    point.colour = glm::vec3(8.0f);
    s.lights = {point};
    add_triangle(s, {-1, -1, -1}, {1, -1, -1}, {1, -1, 1}, 0);
    CompiledScene cs = compile_scene(s);
    LightSample ls = sample_light(cs.view(), glm::vec3(0.0f), 0.5f, 0.5f, 0.5f);
    ASSERT_TRUE(ls.valid);
    EXPECT_TRUE(ls.delta);
    EXPECT_EQ(ls.pdf, 1.0f);
    EXPECT_FLOAT_EQ(ls.radiance.y, 8.0f / 16.0f);
    EXPECT_FLOAT_EQ(ls.dist, 4.0f);
    Light sun;
    sun.type = LightType::Directional;
    sun.direction = glm::vec3(0.0f, -1.0f, 0.0f);
    sun.colour = glm::vec3(3.0f);
    s.lights = {sun};
    cs = compile_scene(s);
    ls = sample_light(cs.view(), glm::vec3(0.0f), 0.5f, 0.5f, 0.5f);
    ASSERT_TRUE(ls.valid);
    EXPECT_FLOAT_EQ(ls.radiance.y, 3.0f);
    EXPECT_FLOAT_EQ(ls.wi.y, 1.0f);
    // Classic lights send pi L from any distance, point or directional.
    s.light_model = LightModel::Classic;
    cs = compile_scene(s);
    ls = sample_light(cs.view(), glm::vec3(0.0f), 0.5f, 0.5f, 0.5f);
    EXPECT_FLOAT_EQ(ls.radiance.y, 3.0f * 3.14159265f);
    s.lights = {point};
    cs = compile_scene(s);
    ls = sample_light(cs.view(), glm::vec3(0.0f), 0.5f, 0.5f, 0.5f);
    EXPECT_FLOAT_EQ(ls.radiance.y, 8.0f * 3.14159265f);
    EXPECT_FLOAT_EQ(ls.dist, 4.0f);
}
