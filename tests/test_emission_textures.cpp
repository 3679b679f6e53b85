// Emission textures (glTF's emissiveTexture, MTL's map_Ke, JSON's emission_texture): a
// textured area light, whose emission a BSDF sample that hits it and a light sample that
// picks a point of it must read alike, and whose power in the light table comes from the
// texture. Checked by the three estimators of direct light converging to one image.
#include "render/path_vertex.h"
#include "render/scene_gpu.h"
#include "scene/load.h"
#include "scene/texture_file.h"
#include "support/path_reference.h"
#include "support/path_stats.h"
#include "support/texture_reference.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace srt;
using namespace srt::test;

namespace {

Triangle tri(const Point3& a, const Point3& b, const Point3& c, uint32_t material) {
    Triangle t;
    t.v0 = a, t.v1 = b, t.v2 = c;
    t.material = material;
    return t;
}

// A grey floor under a square lamp facing down, whose emission is multiplied by bw.png
// (2x1: a black texel, a white one; clamped): the lamp's half over +x shines, the other is
// dark, and the floor is lit off-centre. Seen from above and in front: the floor, and the
// lamp's lit underside at an angle. `textured` false: the same lamp without its texture.
Scene lamp_scene(bool textured) {
    Scene s;
    s.name = "textured lamp";
    s.camera.from = Point3(0.0, 0.5, 3.0);
    s.camera.at = Point3(0.0, 0.5, 0.0);
    s.camera.fov_deg = 70.0f;
    s.add_material(Material{});
    Material grey;
    grey.colour = glm::vec3(0.6f);
    const uint32_t floor = s.add_material(grey);
    Material lamp;
    lamp.colour = glm::vec3(0.0f);
    lamp.kd = 0.0f;
    lamp.emission = glm::vec3(3.0f, 2.5f, 2.0f);
    if (textured) lamp.emission_texture = texture_from_file(s, texref::kTex + "bw.png", TextureUse::Colour, Wrap::Clamp, Wrap::Clamp, "", 0);
    const uint32_t lm = s.add_material(lamp);
    s.triangles.push_back(tri(Point3(-3, 0, -3), Point3(-3, 0, 3), Point3(3, 0, 3), floor));
    s.triangles.push_back(tri(Point3(-3, 0, -3), Point3(3, 0, 3), Point3(3, 0, -3), floor));
    // Facing -y (counter-clockwise seen from below); u along +x.
    Triangle a = tri(Point3(-0.6, 1.2, -0.6), Point3(0.6, 1.2, -0.6), Point3(0.6, 1.2, 0.6), lm);
    Triangle b = tri(Point3(-0.6, 1.2, -0.6), Point3(0.6, 1.2, 0.6), Point3(-0.6, 1.2, 0.6), lm);
    a.has_uv = b.has_uv = true;
    a.uv0 = b.uv0 = glm::vec2(0, 0), a.uv1 = glm::vec2(1, 0), a.uv2 = b.uv1 = glm::vec2(1, 1), b.uv2 = glm::vec2(0, 1);
    s.triangles.push_back(a);
    s.triangles.push_back(b);
    validate(s);
    return s;
}

}  // namespace

// BSDF sampling alone reads the texture where its rays hit the lamp, light sampling alone
// where its samples fall on it: both, and MIS, converge to one image (16 regions x 3
// channels x 2 comparisons, k at a family-wise false-failure rate of 1e-3). A light
// sample that ignored the texture would light the floor from the dark half too; a 3%
// bias must fail the same comparison, and so must the untextured lamp's image.
TEST(EmissionTextures, EachEstimatorAloneAgreesWithMis) {
    const Scene scene = lamp_scene(true);
    const CompiledScene cs = compile_scene(scene);
    ASSERT_TRUE(cs.extended_materials);
    ASSERT_EQ(cs.emitters.size(), 2u);
    const CompiledScene plain = compile_scene(lamp_scene(false));
    const int w = 16, h = 16, depth = 3;
    const Stats mis = render_stats(cs, w, h, 16384, depth);
    const Stats bsdf = render_stats(cs, w, h, 65536, depth, PathStrategy::BsdfOnly);
    const Stats light = render_stats(cs, w, h, 16384, depth, PathStrategy::LightOnly);
    const Stats untextured = render_stats(plain, w, h, 1024, depth);
    const double k = pathref::bonferroni_k(96, 1e-3);
    const double z_bsdf = worst_z(mis, bsdf), z_light = worst_z(mis, light);
    EXPECT_LT(z_bsdf, k) << "MIS against BSDF sampling alone";
    EXPECT_LT(z_light, k) << "MIS against light sampling alone";
    EXPECT_GT(worst_z(mis, light, 1.03), k) << "a 3% bias went unseen";
    EXPECT_GT(worst_z(mis, bsdf, 1.03), k) << "a 3% bias went unseen";
    EXPECT_GT(worst_z(mis, untextured), k) << "the texture changed nothing";
    std::printf("[emission texture] worst z: MIS vs BSDF-only %.2f, vs light-only %.2f (k = %.2f); biased by 3%%: "
                "%.1f, %.1f; vs the untextured lamp %.1f\n",
                z_bsdf, z_light, k, worst_z(mis, bsdf, 1.03), worst_z(mis, light, 1.03), worst_z(mis, untextured));
}

// Each triangle's power is its emission times the texture's mean over it: half the lamp
// is black, so with a point light of the untextured lamp's power beside it, the lamp
// gets about half of the light samples it would get untextured.
TEST(EmissionTextures, PowerComesFromTheTexture) {
    const auto lamp_share = [](bool textured) {
        Scene s = lamp_scene(textured);
        Light l;
        l.position = Point3(0.0, 3.0, 0.0);
        l.colour = glm::vec3(30.0f);
        s.lights.push_back(l);
        s.light_model = LightModel::Physical;
        const CompiledScene cs = compile_scene(s);
        return 1.0 - double(cs.light_pmf[0]);  // the point light is slot 0, the lamp's triangles the rest
    };
    const double plain = lamp_share(false), textured = lamp_share(true);
    // shares: p / (p + L) against (p / 2) / (p / 2 + L): the ratio of powers is 1/2.
    const double power_ratio = (textured / (1.0 - textured)) / (plain / (1.0 - plain));
    EXPECT_NEAR(power_ratio, 0.5, 0.05);
}
