// test_whitted_glass.cpp - glass under the Whitted integrator: Whitted's ray tree
// (render/ray_tree.h), each dielectric hit splitting into a reflected and a refracted ray.
//   - POV-Ray 3.7, which computes this model (/work/shared/docs/oracles.md "POV-Ray for
//     Whitted glass"), on a glass sphere, glass with mirrors (a mirror inside glass too),
//     a water box, total internal reflection (the camera inside glass) and NFF files with
//     T (our own, and SPD's balls with their shiny balls made transmitting), at depths 3,
//     8 and 16, outside the pixels a 1e-6 camera move changes;
//   - every mode of the CPU executor against the recursive reference, bit for bit, with
//     trees deeper than the bounce loop (their tail), in each BVH layout, at one and
//     several samples, and frames of one sample against one frame of several;
//   - stats that agree between the wavefront and the megakernel.
// The GPU's modes are held to the same images in tests/gpu/test_gpu.cpp.
#include "core/image.h"
#include "render/executor.h"
#include "render/scene_gpu.h"
#include "scene/load.h"
#include "scene/scene.h"
#include "support/oracle.h"
#include "support/settings.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace srt;

namespace {

std::string glass_file(const std::string& name) { return std::string(SRT_SOURCE_DIR) + "/tests/data/glass/" + name; }

const char* const kGlassScenes[] = {"glass-sphere.json", "glass-mirror.json", "water.json", "tir.json",
                                    "spd-glass.nff"};

std::string tag_of(const std::string& file) { return file.substr(0, file.find('.')); }

RenderSettings whitted(int w, int h, int depth, DeadRayMode mode, int spp = 1, int begin = 0) {
    return test::Frame(w, h, depth, mode).spp(spp).from(begin);
}

// SPD's balls (balls_s2.nff) with its shiny material (Kd 0.5, Ks 0.5) made transmitting:
// T 0.5 and an index of 1.5, written beside the build; "" without the shared data.
std::string balls_with_transmission() {
    const std::string in = std::string(SRT_SHARED_DATA) + "/spd/balls_s2.nff";
    if (!std::filesystem::exists(in)) return "";
    std::ifstream f(in);
    std::ostringstream out;
    std::string line;
    int changed = 0;
    while (std::getline(f, line)) {
        if (line == "f 1 0.9 0.7 0.5 0.5 3.0827 0 1") {
            line = "f 1 0.9 0.7 0.4 0.4 3.0827 0.5 1.5";
            ++changed;
        }
        out << line << "\n";
    }
    EXPECT_EQ(changed, 1) << "balls_s2.nff's shiny material line was not found";
    const std::string path = oracle_output_dir() + "/balls_s2_transmitting.nff";
    std::ofstream(path) << out.str();
    return path;
}

// ---------------------------------------------------------------------------
// POV-Ray
// ---------------------------------------------------------------------------

constexpr int kPovW = 240, kPovH = 180;
// At least this fraction of channel values within 1/255 (the bar), outside the
// unstable pixels; and those must stay few, or the bar would say little.
constexpr double kPovMinFraction = 0.999;
constexpr double kMaxUnstable = 0.03;

void expect_matches_povray(const std::string& tag, const Scene& s, int depth, int w = kPovW, int h = kPovH) {
    if (!have_povray()) GTEST_SKIP() << "povray not installed";
    size_t unstable = 0;
    const ImageDiff d = compare_with_povray_stable(tag + "-d" + std::to_string(depth), s, depth, w, h, unstable);
    EXPECT_GE(d.fraction_within(), kPovMinFraction)
        << tag << " depth " << depth << ": " << d.over_tolerance << " of " << d.channels
        << " values differ by more than 1/255 (max " << d.max_diff << "); images in " << oracle_output_dir();
    EXPECT_LE(double(unstable), kMaxUnstable * w * h) << tag << " depth " << depth << ": unstable pixels";
}

class WhittedGlassPov : public ::testing::TestWithParam<std::tuple<const char*, int>> {};

TEST_P(WhittedGlassPov, MatchesPovRay) {
    const std::string file = std::get<0>(GetParam());
    expect_matches_povray(tag_of(file), load_scene(glass_file(file)), std::get<1>(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Scenes, WhittedGlassPov,
                         ::testing::Combine(::testing::ValuesIn(kGlassScenes), ::testing::Values(3, 8, 16)),
                         [](const auto& info) {
                             std::string n = tag_of(std::get<0>(info.param));
                             for (char& c : n)
                                 if (c == '-') c = '_';
                             return n + "_depth" + std::to_string(std::get<1>(info.param));
                         });

TEST(WhittedGlassPovSpd, BallsWithTransmission) {
    const std::string path = balls_with_transmission();
    if (path.empty()) GTEST_SKIP() << "shared data not found: " << SRT_SHARED_DATA;
    const Scene s = load_scene(path);
    for (int depth : {3, 8, 16}) expect_matches_povray("balls-t", s, depth, 160, 160);
}

// ---------------------------------------------------------------------------
// Every mode, bit for bit
// ---------------------------------------------------------------------------

Image render_with(const CompiledScene& cs, const RenderSettings& rs, FrameStats* stats = nullptr) {
    auto ex = make_cpu_executor(2);
    ex->set_scene(cs);
    Image img;
    RenderSettings r = rs;
    r.stats = stats != nullptr;
    ex->render(cs.camera, r, img, stats);
    return img;
}

TEST(WhittedGlass, EveryModeEqualsTheReference) {
    std::vector<std::string> files;
    for (const char* f : kGlassScenes) files.push_back(glass_file(f));
    files.push_back(std::string(SRT_SOURCE_DIR) + "/scenes/whitted-glass.json");
    for (const std::string& file : files) {
        const Scene scene = load_scene(file);
        for (AccelLayout layout : {AccelLayout::Bvh2, AccelLayout::Bvh4, AccelLayout::Bvh8}) {
            const CompiledScene cs = compile_scene(scene, layout);
            for (int depth : {3, 16}) {
                for (int spp : {1, 3}) {
                    RenderSettings rs = whitted(67, 45, depth, DeadRayMode::Stencil, spp);
                    Image ref;
                    render_reference(cs, cs.camera, rs, ref);
                    for (DeadRayMode mode : {DeadRayMode::Stencil, DeadRayMode::Megakernel}) {
                        rs.mode = mode;
                        EXPECT_EQ(render_with(cs, rs).rgba, ref.rgba)
                            << file << " " << to_string(layout) << " depth " << depth << " spp " << spp << " "
                            << to_string(mode);
                    }
                }
            }
        }
    }
}

// One sample a frame, as the viewer adds them, makes the frame of several samples.
TEST(WhittedGlass, FramesOfOneSampleEqualOneFrame) {
    const CompiledScene cs = compile_scene(load_scene(glass_file("glass-mirror.json")));
    for (DeadRayMode mode : {DeadRayMode::Stencil, DeadRayMode::Megakernel}) {
        auto ex = make_cpu_executor(2);
        ex->set_scene(cs);
        Image one, step;
        ex->render(cs.camera, whitted(53, 37, 8, mode, 4), one, nullptr);
        for (int s = 0; s < 4; ++s) ex->render(cs.camera, whitted(53, 37, 8, mode, 1, s), step, nullptr);
        EXPECT_EQ(one.rgba, step.rgba) << to_string(mode);
    }
}

// A tree outlasts the bounce loop: the wavefront's tail follows it in registers, the
// megakernel in its own loop, and both count the same rays and warps in every row (the
// last row holds the steps past the depth).
TEST(WhittedGlass, StatsAgreeWhereTreesOutlastTheLoop) {
    const CompiledScene cs = compile_scene(load_scene(glass_file("glass-mirror.json")));
    FrameStats wave, mega;
    const Image a = render_with(cs, whitted(64, 40, 4, DeadRayMode::Stencil), &wave);
    const Image b = render_with(cs, whitted(64, 40, 4, DeadRayMode::Megakernel), &mega);
    EXPECT_EQ(a.rgba, b.rgba);
    ASSERT_EQ(wave.bounces.size(), 4u);
    ASSERT_EQ(mega.bounces.size(), 4u);
    for (size_t k = 0; k < 4; ++k) {
        EXPECT_EQ(wave.bounces[k].live_rays, mega.bounces[k].live_rays) << "row " << k;
        EXPECT_EQ(wave.bounces[k].live_warps, mega.bounces[k].live_warps) << "row " << k;
        EXPECT_EQ(wave.bounces[k].shadow_rays, mega.bounces[k].shadow_rays) << "row " << k;
    }
    EXPECT_EQ(wave.bounces_run, mega.bounces_run);
    EXPECT_GT(wave.bounces_run, 4u) << "the trees should outlast the loop's 4 steps";
    EXPECT_EQ(wave.rays_traced, mega.rays_traced);
}

// Without glass nothing of the tree runs: a mirror scene's stats count one ray per level.
TEST(WhittedGlass, ScenesWithoutGlassWalkNoTree) {
    const CompiledScene glass = compile_scene(load_scene(glass_file("glass-sphere.json")));
    const CompiledScene plain = compile_scene(builtin_default_scene());
    EXPECT_TRUE(glass.view().dielectrics);
    EXPECT_FALSE(plain.view().dielectrics);
    FrameStats st;
    render_with(plain, whitted(64, 40, 4, DeadRayMode::Stencil), &st);
    EXPECT_LE(st.bounces_run, 4u);
}

}  // namespace
