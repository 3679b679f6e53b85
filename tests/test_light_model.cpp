// test_light_model.cpp - one light model under both integrators (scene/integrator.h
// LightModel): a floor under a point light and under a directional light, each pixel
// against its closed form, classic and physical, Whitted and path; a JSON scene's
// emitters lighting it under Whitted; the note a nearly black image gets.
//
// The floor is the only surface and the background is black, so a path's only light is
// the point or directional light's own sample at the camera ray's hit (every scattered
// ray escapes): the path integrator's pixel is exact, with no noise to allow for.
#include "render/executor.h"
#include "render/exposure.h"
#include "render/scene_gpu.h"
#include "scene/load.h"

#include "support/process.h"
#include "support/settings.h"

#include <gtest/gtest.h>

#include <cmath>

namespace {

using namespace srt;

constexpr double kPi = 3.14159265358979323846;
const glm::dvec3 kAlbedo(0.5 * 0.8, 0.6 * 0.8, 0.7 * 0.8);  // colour x kd

// A 5x5 image looking straight down at a floor (y = 0) from height 4 with a 90 degree
// field of view: pixel (x, y) sees the floor at ((x - 2) * 1.6, 0, (y - 2) * 1.6).
Scene floor_scene(LightModel model) {
    Scene s;
    s.name = "floor";
    s.add_material(Material{});
    Material m;
    m.colour = glm::vec3(0.5f, 0.6f, 0.7f);
    m.kd = 0.8f;
    Plane p;
    p.point = Point3(0.0);
    p.normal = glm::vec3(0.0f, 1.0f, 0.0f);
    p.material = s.add_material(m);
    s.planes.push_back(p);
    s.camera.from = Point3(0.0, 4.0, 0.0);
    s.camera.at = Point3(0.0, 0.0, 0.0);
    s.camera.up = glm::vec3(0.0f, 0.0f, -1.0f);
    s.camera.fov_deg = 90.0f;
    s.light_model = model;
    return s;
}

glm::dvec3 floor_point(int x, int y) { return glm::dvec3((x - 2) * 1.6, 0.0, (y - 2) * 1.6); }

// Renders s on the CPU under rs: the 8-bit image into img, the linear one returned.
LinearImage render_with(const Scene& s, const RenderSettings& rs, Image& img) {
    auto ex = make_cpu_executor(2);
    const CompiledScene cs = compile_scene(s);  // the executor reads it; it must outlive the frame
    ex->set_scene(cs);
    ex->render(s.camera, rs, img);
    LinearImage lin;
    ex->read_linear(lin);
    return lin;
}

LinearImage render_linear(const Scene& s, Integrator integrator, int size = 5) {
    Image img;
    return render_with(s, test::Frame(size, size, 4).integrator(integrator), img);
}

// Every pixel's three channels against `want(point) x albedo`, to float's rounding.
template <class F>
void expect_floor(const Scene& s, Integrator integrator, F want) {
    const LinearImage lin = render_linear(s, integrator);
    for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 5; ++x) {
            const double w = want(floor_point(x, y));
            for (int c = 0; c < 3; ++c)
                EXPECT_NEAR(lin.pixel(x, y)[c], w * kAlbedo[c], 1e-5 * w + 1e-9)
                    << to_string(integrator) << " " << to_string(s.light_model) << " pixel " << x << "," << y << " channel " << c;
        }
}

TEST(LightModel, PointLightOnAFloorIsItsClosedFormUnderBothIntegrators) {
    for (const glm::dvec3 light : {glm::dvec3(0.0, 1.0, 0.0), glm::dvec3(0.0, 2.0, 0.0), glm::dvec3(1.3, 2.5, -0.7)}) {
        for (LightModel model : {LightModel::Classic, LightModel::Physical}) {
            Scene s = floor_scene(model);
            Light l;
            l.position = Point3(light);
            l.colour = glm::vec3(0.8f);
            s.lights = {l};
            // cos at the floor over d: classic L cos; physical I cos / (pi d^2).
            auto want = [&](const glm::dvec3& p) {
                const glm::dvec3 d = light - p;
                const double dist = glm::length(d), cos = d.y / dist;
                return model == LightModel::Classic ? 0.8 * cos : 0.8 * cos / (kPi * dist * dist);
            };
            for (Integrator i : {Integrator::Whitted, Integrator::Path}) expect_floor(s, i, want);
        }
    }
}

TEST(LightModel, DirectionalLightOnAFloorIsItsClosedFormUnderBothIntegrators) {
    const glm::dvec3 towards = glm::normalize(glm::dvec3(0.3, 1.0, 0.4));
    for (LightModel model : {LightModel::Classic, LightModel::Physical}) {
        Scene s = floor_scene(model);
        Light l;
        l.type = LightType::Directional;
        l.direction = glm::vec3(-towards);
        l.colour = glm::vec3(1.5f);
        s.lights = {l};
        auto want = [&](const glm::dvec3&) { return 1.5 * towards.y / (model == LightModel::Classic ? 1.0 : kPi); };
        for (Integrator i : {Integrator::Whitted, Integrator::Path}) expect_floor(s, i, want);
    }
}

// The classic model is the one Whitted had: its images keep their bits.
TEST(LightModel, ClassicIsTheDefault) {
    EXPECT_EQ(Scene{}.light_model, LightModel::Classic);
    EXPECT_EQ(builtin_default_scene().light_model, LightModel::Classic);
}

TEST(LightModel, JsonLightModelIsReadAndCheckedWithItsLine) {
    test::TempDir dir;
    const std::string good = dir / "good.json", bad = dir / "bad.json";
    test::write_text(good, "{\"camera\": {\"from\": [0, 1, 5], \"at\": [0, 0, 0]},\n\"light_model\": \"physical\"}\n");
    EXPECT_EQ(load_scene(good).light_model, LightModel::Physical);
    test::write_text(bad, "{\"camera\": {\"from\": [0, 1, 5], \"at\": [0, 0, 0]},\n\"light_model\": \"phisical\"}\n");
    try {
        load_scene(bad);
        ADD_FAILURE() << "a bad light_model was accepted";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("bad.json:2:"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("did you mean"), std::string::npos) << e.what();
    }
}

// A JSON scene lit only by an emitter: under Whitted the emitter's stand-in point light
// lights the floor (scenes/glass.json was black), and under the path integrator the
// stand-in takes no part (probability 0), as an OBJ's does.
TEST(LightModel, JsonEmittersGetStandInLightsUnderWhitted) {
    const Scene s = load_scene(std::string(SRT_SOURCE_DIR) + "/scenes/glass.json");
    ASSERT_FALSE(s.lights.empty());
    for (const Light& l : s.lights) EXPECT_TRUE(l.from_emission);
    const LinearImage lin = render_linear(s, Integrator::Whitted, 40);
    EXPECT_GT(mean_luminance(lin), 0.02);
    EXPECT_TRUE(dark_image_note(s, lin, 0.0f).empty());
}

// A physical point light far from what the camera sees leaves the image black: the note
// says why and what to do; under the classic model the same light lights it.
TEST(LightModel, ANearlyBlackImageGetsANoteThatSaysWhy) {
    Scene s = floor_scene(LightModel::Physical);
    Light l;
    l.position = Point3(0.0, 600.0, 0.0);
    l.colour = glm::vec3(1.0f);
    s.lights = {l};
    const LinearImage lin = render_linear(s, Integrator::Path);
    const std::string note = dark_image_note(s, lin, 0.0f);
    EXPECT_NE(note.find("nearly black"), std::string::npos) << note;
    EXPECT_NE(note.find("1/d^2"), std::string::npos) << note;
    EXPECT_NE(note.find("--light-model classic"), std::string::npos) << note;
    EXPECT_NE(note.find("--exposure auto would choose"), std::string::npos) << note;
    s.light_model = LightModel::Classic;
    EXPECT_TRUE(dark_image_note(s, render_linear(s, Integrator::Path), 0.0f).empty());
}

// Auto exposure brings the log-average of the lit pixels to 0.18, and the 8-bit image it
// encodes is the one --exposure EV renders, bit for bit.
TEST(Exposure, AutoBringsTheLogAverageToAKeyAndEncodesAsTheFlagWould) {
    Scene s = floor_scene(LightModel::Physical);
    Light l;
    l.position = Point3(0.0, 30.0, 0.0);
    l.colour = glm::vec3(1.0f);
    s.lights = {l};
    const LinearImage lin = render_linear(s, Integrator::Whitted);
    const float ev = auto_exposure(lin);
    double sum_log = 0.0;
    for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 5; ++x) {
            const float* p = lin.pixel(x, y);
            sum_log += std::log(0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]);
        }
    EXPECT_NEAR(std::exp(sum_log / 25.0) * std::exp2(double(ev)), 0.18, 0.18 * 0.01);  // EV rounded to 1/100
    Image mine, flags;
    encode_at_exposure(lin, ev, mine);
    RenderSettings rs = test::Frame(5, 5, 4);
    rs.exposure = ev;
    render_with(s, rs, flags);
    EXPECT_EQ(mine.rgba, flags.rgba);
    EXPECT_EQ(auto_exposure(LinearImage(4, 4)), 0.0f);  // black: nothing to expose
}

}  // namespace
