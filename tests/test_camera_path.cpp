// Camera paths and frame sequences: the interpolation against analytic cases, and
// `render --frames` against single renders (frame K equals a render with the path's
// camera at K; a range split in two equals the whole, byte for byte). Bad keyframes are
// in test_parsers.cpp's table (json_anim_*).
#include "app/frame_range.h"
#include "core/error.h"
#include "core/image.h"
#include "render/executor.h"
#include "render/scene_gpu.h"
#include "scene/load.h"
#include "scene/scene.h"
#include "support/process.h"
#include "support/room_obj.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

using namespace srt;
using namespace srt::test;

namespace {

const std::string kBinary = SRT_BINARY;
const std::string kOrbit = std::string(SRT_SOURCE_DIR) + "/scenes/orbit.json";

CameraPath line_path(CameraPath::Interpolation interp, std::vector<double> times) {
    CameraPath p;
    p.interpolation = interp;
    p.fps = 10;
    for (double t : times) {
        CameraKey k;
        k.time = t;
        k.camera.from = glm::vec3(float(3 * t), 1.0f, 5.0f);  // x = 3t: uniform motion
        k.camera.at = glm::vec3(float(3 * t), 0.0f, 0.0f);
        k.camera.fov_deg = float(40 + 10 * t);
        p.keys.push_back(k);
    }
    return p;
}

TEST(CameraPath, KeysAreHitExactly) {
    for (auto interp : {CameraPath::Interpolation::Linear, CameraPath::Interpolation::CatmullRom}) {
        const CameraPath p = line_path(interp, {0.0, 0.5, 2.0, 2.25});
        for (const CameraKey& k : p.keys) {
            const Camera c = p.at_time(k.time);
            EXPECT_FLOAT_EQ(c.from.x, k.camera.from.x) << to_string(interp) << " t=" << k.time;
            EXPECT_FLOAT_EQ(c.fov_deg, k.camera.fov_deg);
        }
    }
}

TEST(CameraPath, UniformMotionStaysUniformWithUnevenKeys) {
    // Keys on a straight line at uneven times, position linear in time: both
    // interpolations give the line back (Catmull-Rom with the times as knots reproduces
    // linear motion; uniform-knot Catmull-Rom would not).
    for (auto interp : {CameraPath::Interpolation::Linear, CameraPath::Interpolation::CatmullRom}) {
        const CameraPath p = line_path(interp, {0.0, 0.3, 1.5, 1.6, 3.0});
        for (double t = 0.0; t <= 3.0; t += 0.07) {
            const Camera c = p.at_time(t);
            EXPECT_NEAR(c.from.x, 3 * t, 1e-4) << to_string(interp) << " t=" << t;
            EXPECT_NEAR(c.fov_deg, 40 + 10 * t, 1e-3) << to_string(interp) << " t=" << t;
        }
    }
}

TEST(CameraPath, CatmullRomIsSmoothWhereLinearIsNot) {
    CameraPath p = line_path(CameraPath::Interpolation::CatmullRom, {0, 1, 2});
    p.keys[1].camera.from.y = 3.0f;  // a bump in the middle
    const double h = 2e-4;
    auto slope = [&](double t) { return (p.at_time(t + h).from.y - p.at_time(t - h).from.y) / (2 * h); };
    EXPECT_NEAR(slope(1.0 - 1e-3), slope(1.0 + 1e-3), 0.05);  // no kink at the key
    p.interpolation = CameraPath::Interpolation::Linear;
    EXPECT_GT(std::fabs(slope(1.0 - 1e-3) - slope(1.0 + 1e-3)), 3.0);  // linear has one
    EXPECT_FLOAT_EQ(p.at_time(0.5).from.y, 2.0f);
}

TEST(CameraPath, FrameCount) {
    const CameraPath p = line_path(CameraPath::Interpolation::Linear, {0.0, 2.0});
    EXPECT_EQ(p.frame_count(), 21);  // 2 s at 10 fps: frames 0..20
    EXPECT_FLOAT_EQ(p.frame(20).from.x, 6.0f);
    const Scene s = load_scene(kOrbit);
    EXPECT_EQ(s.animation.frame_count(), 61);
    EXPECT_EQ(s.animation.keys.size(), 5u);
}

TEST(FrameRange, ParsesAndRefuses) {
    EXPECT_EQ(app::parse_frames("--frames", "2..4", 10), (std::vector<int>{2, 3, 4}));
    EXPECT_EQ(app::parse_frames("--frame", "9", 10), (std::vector<int>{9}));
    for (const char* bad : {"4..2", "0..10", "a..b", "1..", "-1..3", "10"})
        EXPECT_THROW(app::parse_frames("--frames", bad, 10), InputError) << bad;
    EXPECT_EQ(app::frame_file("out_%04d.png", 7), "out_0007.png");
    EXPECT_EQ(app::frame_file("f%d-100%%.exr", 12), "f12-100%.exr");
    EXPECT_TRUE(app::has_frame_number("a_%3d.png"));
    EXPECT_FALSE(app::has_frame_number("a.png"));
    EXPECT_THROW(app::has_frame_number("a_%s.png"), InputError);
    EXPECT_THROW(app::has_frame_number("%d_%d.png"), InputError);
}

std::vector<std::string> args(const std::string& out, const std::string& frames, const char* flag = "--frames") {
    return {"render", kOrbit, "--backend", "cpu", "-W", "80", "-H", "48", "--depth", "4", flag, frames, "-o", out};
}

TEST(FrameSequence, FrameKEqualsARenderWithThePathsCamera) {
    TempDir dir;
    const Result r = run_binary(kBinary, dir, args(dir / "f_%02d.png", "10..12"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("frames   3 (10..12)"), std::string::npos) << r.out;
    const Scene s = load_scene(kOrbit);
    const CompiledScene cs = compile_scene(s);
    auto ex = make_cpu_executor(2);
    ex->set_scene(cs);
    RenderSettings rs;
    rs.width = 80;
    rs.height = 48;
    rs.depth = 4;
    for (int k : {10, 11, 12}) {
        Image ref;
        ex->render(s.animation.frame(k), rs, ref);
        char name[32];
        std::snprintf(name, sizeof name, "f_%02d.png", k);
        EXPECT_EQ(read_png(dir / name).rgba, ref.rgba) << name;
    }
    Image first, last;
    ex->render(s.animation.frame(0), rs, first);
    ex->render(s.animation.frame(60), rs, last);
    EXPECT_NE(first.rgba, last.rgba) << "the camera moves";
}

TEST(FrameSequence, ARangeSplitInTwoEqualsTheWhole) {
    TempDir whole, a, b;
    ASSERT_EQ(run_binary(kBinary, whole, args(whole / "o_%03d.png", "20..25")).exit_code, 0);
    ASSERT_EQ(run_binary(kBinary, a, args(a / "o_%03d.png", "20..22")).exit_code, 0);
    ASSERT_EQ(run_binary(kBinary, b, args(b / "o_%03d.png", "23..25")).exit_code, 0);
    for (int k = 20; k <= 25; ++k) {
        char name[32];
        std::snprintf(name, sizeof name, "o_%03d.png", k);
        const std::string part = slurp((k <= 22 ? a : b) / name);
        ASSERT_FALSE(part.empty()) << name;
        EXPECT_EQ(slurp(whole / name), part) << name;
    }
    const Result one = run_binary(kBinary, a, args(a / "single.png", "22", "--frame"));
    ASSERT_EQ(one.exit_code, 0) << one.err;
    EXPECT_EQ(slurp(a / "single.png"), slurp(whole / "o_022.png"));
}

TEST(FrameSequence, MistakesAreExit2BeforeAnythingIsWritten) {
    TempDir dir;
    struct Case {
        std::vector<std::string> a;
        const char* message;
    } cases[] = {
        {args(dir / "no_number.png", "0..3"), "4 frames need a frame number in the name, like out_%04d.png"},
        {args(dir / "o_%04d.png", "0..61"), "--frames '0..61': the scene's animation has frames 0..60"},
        {args(dir / "o_%04d.png", "3..1"), "the range runs backwards"},
        {args(dir / "o_%04d.jpg", "0..1"), "'.jpg' is not a format stencilrt writes"},
        {{"render", "--backend", "cpu", "--frames", "0..1", "-o", dir / "o_%d.png"}, "--frames: the scene has no 'animation'"},
    };
    for (const Case& c : cases) {
        const Result r = run_binary(kBinary, dir, c.a);
        EXPECT_EQ(r.exit_code, 2) << c.message;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
        EXPECT_TRUE(dir.entries().empty());
    }
}

}  // namespace

// A frame rendered with a camera other than the one the scene was compiled for (the
// viewer's, as it flies) is rendered about the compiled camera's position. `render
// --render-origin` renders the same frame bit for bit; without it, `render` would centre
// rendering space on the new camera, and at some cameras a pixel rounds the other way.
// The test first finds such a camera, so that it can fail.
TEST(RenderOrigin, RendersAFrameAsAboutTheCompiledCamera) {
    TempDir dir;
    {
        std::ofstream o(dir / "room.obj");
        o << test::kRoomObj;
    }
    const Scene s = load_scene(dir / "room.obj");
    ASSERT_TRUE(s.auto_light.has_value());
    const CompiledScene at_start = compile_scene(s);
    auto ex = make_cpu_executor(2);
    ex->set_scene(at_start);
    RenderSettings rs;
    rs.width = 160;
    rs.height = 120;
    rs.depth = 3;

    Camera moved;
    Image about_start;
    bool found = false;
    for (int i = 1; i <= 200 && !found; ++i) {
        moved = s.camera;
        moved.from += Point3(0.0173 * i, 0.01, -0.0731 * i);
        ex->render(moved, rs, about_start);
        Scene there = s;
        there.camera = moved;  // rendering space centred on the moved camera; the light stays
        const CompiledScene cs = compile_scene(there);
        auto ex2 = make_cpu_executor(2);
        ex2->set_scene(cs);
        Image about_moved;
        ex2->render(moved, rs, about_moved);
        found = about_moved.rgba != about_start.rgba;
    }
    ASSERT_TRUE(found) << "no camera of the sweep renders differently about its own position";

    const auto xyz = [](const Point3& p) {
        char b[128];
        std::snprintf(b, sizeof b, "%.17g,%.17g,%.17g", p.x, p.y, p.z);
        return std::string(b);
    };
    const Point3& light = s.lights[s.auto_light->index].position;
    const Result r = run_binary(kBinary, dir,
                                {"render", dir / "room.obj", "--backend", "cpu", "-W", "160", "-H", "120", "--depth",
                                 "3", "--camera-from=" + xyz(moved.from), "--camera-at=" + xyz(moved.at),
                                 "--render-origin=" + xyz(s.camera.from), "--light=" + xyz(light), "-o",
                                 dir / "cli.png"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(read_png(dir / "cli.png").rgba, about_start.rgba);
}
