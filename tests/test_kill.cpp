// test_kill.cpp - `--kill` (render/kill.h): rays killed to a survival schedule, three
// ways. The patterns are what they claim (live fractions per bounce against the schedule:
// to within a few units for warps and blocks, within binomial error for rays; deaths
// scattered over warps, or not), and every mode makes the reference's image with them,
// bit for bit, under both integrators. The GPU's modes: tests/gpu/test_gpu.cpp.
#include "core/image.h"
#include "render/executor.h"
#include "render/kill.h"
#include "render/scene_gpu.h"
#include "scene/load.h"
#include "scene/scene.h"
#include "support/settings.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace srt;

namespace {

KillPattern kill_of(const std::string& text) {
    KillPattern k;
    const std::string why = parse_kill(text, k);
    EXPECT_EQ(why, "") << text;
    return k;
}

// The camera inside a mirror sphere: every ray hits it and reflects, so no ray dies but
// by the kill, and the live rays per bounce are the schedule's alone.
Scene mirror_ball() {
    Scene s;
    s.name = "test:inside a mirror ball";
    s.camera.from = {0.3, 0.2, 0.1};
    s.camera.at = {0.0, 0.0, -1.0};
    s.camera.fov_deg = 70.0f;
    Material m;
    m.colour = {0.6f, 0.5f, 0.4f};
    m.kd = 0.2f;
    m.kr = glm::vec3(0.8f);
    s.materials.push_back(m);
    Sphere sp;
    sp.centre = {0.0, 0.0, 0.0};
    sp.radius = 10.0;
    s.spheres.push_back(sp);
    Light l;
    l.position = {1.0, 2.0, 0.0};
    s.lights.push_back(l);
    return s;
}

RenderSettings settings(int w, int h, int depth, DeadRayMode mode, const std::string& kill, int spp = 1,
                        Integrator integrator = Integrator::Whitted) {
    return test::Frame(w, h, depth, mode).spp(spp).integrator(integrator).kill(kill);
}

FrameStats stats_of(const CompiledScene& cs, const RenderSettings& rs, Image& img) {
    auto ex = make_cpu_executor(2);
    ex->set_scene(cs);
    FrameStats st;
    RenderSettings r = rs;
    r.stats = true;
    ex->render(cs.camera, r, img, &st);
    return st;
}

TEST(Kill, ParsesWhatItPrints) {
    for (const char* t : {"ray:0.5", "warp:0.25", "block4:0.75", "ray:pbrt", "block1:1", "none"})
        EXPECT_EQ(to_string(kill_of(t)), t);
    const KillPattern p = kill_of("ray:pbrt");
    EXPECT_FLOAT_EQ(p.survival(1), 0.99f);
    EXPECT_FLOAT_EQ(p.survival(4), 0.60f);
    EXPECT_NEAR(p.survival(5), 0.60 * 0.60 / 0.68, 1e-6);
    // Any survival prints as text that reads back as the same float.
    const KillPattern f = kill_of("ray:0.123456789");
    EXPECT_EQ(kill_of(to_string(f)).p, f.p) << to_string(f);
    const KillPattern h = kill_of("warp:0.5");
    EXPECT_FLOAT_EQ(h.survival(3), 0.125f);
    KillPattern k;
    for (const char* bad : {"", "ray", "ray:", "ray:0", "ray:1.5", "ray:-0.5", "ray:0.5x", "warps:0.5", "block:0.5",
                            "block0:0.5", "blockx:0.5", "ray:pbrt2", "ray:1e-50"})
        EXPECT_NE(parse_kill(bad, k), "") << "'" << bad << "' was accepted";
}

// Live units per bounce against the schedule: tiles and blocks to within a few (the
// golden-ratio sequence spreads any fraction evenly), rays within binomial error; and the
// live lanes per live warp: rays die scattered, tiles and blocks whole.
TEST(Kill, LiveFractionsFollowTheSchedule) {
    const CompiledScene cs = compile_scene(mirror_ball());
    constexpr int kW = 256, kH = 128, kDepth = 6;
    const double warps = double(kW / 8) * double(kH / 4), rays = double(kW) * kH;
    for (const char* pattern : {"warp:0.5", "block2:0.6", "block4:pbrt", "ray:0.5", "ray:pbrt"}) {
        Image img;
        const RenderSettings rs = settings(kW, kH, kDepth, DeadRayMode::Stencil, pattern);
        const FrameStats st = stats_of(cs, rs, img);
        ASSERT_EQ(st.bounces.size(), size_t(kDepth)) << pattern;
        EXPECT_EQ(st.bounces[0].live_rays, uint64_t(rays)) << pattern;
        for (int b = 1; b < kDepth; ++b) {
            const double s = rs.kill.survival(b);
            const BounceStats& bs = st.bounces[size_t(b)];
            const double lanes = double(bs.live_rays) / double(bs.live_warps);
            std::printf("[kill] %-12s bounce %d: S %.4f, live rays %.4f, live warps %.4f, lanes per live warp %.2f\n",
                        pattern, b, s, double(bs.live_rays) / rays, double(bs.live_warps) / warps, lanes);
            if (rs.kill.kind == KillKind::Ray) {
                const double sigma = std::sqrt(s * (1.0 - s) / rays);
                EXPECT_NEAR(double(bs.live_rays) / rays, s, 4.5 * sigma) << pattern << " bounce " << b;
                EXPECT_LT(lanes, 32.0 * s + 4.0) << pattern << ": dead lanes should scatter over the warps";
            } else {
                const double units = rs.kill.kind == KillKind::Warp ? warps : warps / double(rs.kill.block * rs.kill.block);
                const double live_units = double(bs.live_warps) / (warps / units);
                EXPECT_NEAR(live_units, s * units, 3.0) << pattern << " bounce " << b;
                EXPECT_EQ(bs.live_rays, 32u * bs.live_warps) << pattern << ": whole warps live or die";
            }
        }
    }
}

// Every mode against the reference, bit for bit, with each pattern, under both
// integrators, in each BVH layout, at one and several samples, at an odd size.
TEST(Kill, EveryModeEqualsTheReference) {
    struct Case {
        const char* file;
        Integrator integrator;
        int depth;
    };
    const std::string src = SRT_SOURCE_DIR;
    // foliage.json: textures and alpha masks, which the kill's kernels hold too.
    const Case cases[] = {{"/scenes/hall-of-mirrors.json", Integrator::Whitted, 8},
                          {"/scenes/glass.json", Integrator::Path, 8},
                          {"/scenes/foliage.json", Integrator::Path, 4}};
    for (const Case& c : cases) {
        const Scene scene = load_scene(src + c.file);
        for (AccelLayout layout : {AccelLayout::Bvh2, AccelLayout::Bvh4, AccelLayout::Bvh8}) {
            const CompiledScene cs = compile_scene(scene, layout);
            for (const char* pattern : {"ray:0.7", "warp:0.6", "block2:0.8", "ray:pbrt"}) {
                for (int spp : {1, 3}) {
                    RenderSettings rs = settings(61, 37, c.depth, DeadRayMode::Stencil, pattern, spp, c.integrator);
                    Image ref, plain;
                    render_reference(cs, cs.camera, rs, ref);
                    RenderSettings none = rs;
                    none.kill = KillPattern{};
                    render_reference(cs, cs.camera, none, plain);
                    EXPECT_NE(ref.rgba, plain.rgba) << c.file << " " << pattern << ": the kill changed nothing";
                    // (The CPU executor runs the GPU's other modes as these two.)
                    for (DeadRayMode mode : {DeadRayMode::Stencil, DeadRayMode::Megakernel}) {
                        rs.mode = mode;
                        Image img;
                        stats_of(cs, rs, img);
                        EXPECT_EQ(img.rgba, ref.rgba) << c.file << " " << to_string(layout) << " " << pattern
                                                      << " spp " << spp << " " << to_string(mode);
                    }
                }
            }
        }
    }
}

// The wavefront and the megakernel count the same live rays and warps per bounce.
TEST(Kill, StatsAgreeAcrossModes) {
    const CompiledScene cs = compile_scene(load_scene(std::string(SRT_SOURCE_DIR) + "/scenes/hall-of-mirrors.json"));
    for (const char* pattern : {"ray:0.5", "block2:0.5"}) {
        Image a, b;
        const FrameStats w = stats_of(cs, settings(97, 61, 8, DeadRayMode::Stencil, pattern), a);
        const FrameStats m = stats_of(cs, settings(97, 61, 8, DeadRayMode::Megakernel, pattern), b);
        ASSERT_EQ(w.bounces.size(), m.bounces.size()) << pattern;
        for (size_t k = 0; k < w.bounces.size(); ++k) {
            EXPECT_EQ(w.bounces[k].live_rays, m.bounces[k].live_rays) << pattern << " bounce " << k;
            EXPECT_EQ(w.bounces[k].live_warps, m.bounces[k].live_warps) << pattern << " bounce " << k;
        }
        EXPECT_EQ(w.rays_traced, m.rays_traced) << pattern;
    }
}

}  // namespace
