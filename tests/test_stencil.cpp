// Stencil bit math and the CPU executor's stencil semantics.
#include "render/executor.h"
#include "render/stencil.h"
#include "scene/scene.h"

#include <gtest/gtest.h>

#include <random>

using namespace srt;

// An independent model of __ballot_sync(0xffffffff, pred): the PTX ISA defines the
// result as the 32-bit mask whose bit k is lane k's predicate. Built here with a
// different loop shape (highest lane first, shifting left) than ballot_reference.
static uint32_t ballot_model(const bool (&votes)[32]) {
    uint32_t m = 0;
    for (int lane = 31; lane >= 0; --lane) m = (m << 1) | (votes[lane] ? 1u : 0u);
    return m;
}

TEST(Stencil, BallotMatchesModelOnRandomVotes) {
    std::mt19937 rng(1234);
    for (int trial = 0; trial < 10000; ++trial) {
        bool votes[32];
        const uint32_t density = rng() % 33;
        for (int lane = 0; lane < 32; ++lane) votes[lane] = (rng() % 32) < density;
        ASSERT_EQ(ballot_reference(votes), ballot_model(votes));
    }
}

TEST(Stencil, SingleLaneBits) {
    for (uint32_t lane = 0; lane < 32; ++lane) {
        bool votes[32] = {};
        votes[lane] = true;
        EXPECT_EQ(ballot_reference(votes), 1u << lane) << "lane " << lane;
        // Ray index <-> (word, bit) mapping of the invariant.
        const uint32_t ray = 5 * 32 + lane;
        EXPECT_EQ(stencil_word_index(ray), 5u);
        EXPECT_EQ(stencil_lane_bit(ray), 1u << lane);
        EXPECT_TRUE(stencil_test(1u << lane, ray));
        EXPECT_FALSE(stencil_test(~(1u << lane), ray));
    }
}

TEST(Stencil, Padding) {
    EXPECT_EQ(padded_ray_count(1), 32u);
    EXPECT_EQ(padded_ray_count(31), 32u);
    EXPECT_EQ(padded_ray_count(32), 32u);
    EXPECT_EQ(padded_ray_count(33), 64u);
    EXPECT_EQ(padded_ray_count(961), 992u);
    EXPECT_EQ(stencil_word_count(961), 31u);
    EXPECT_EQ(stencil_word_count(0), 0u);
}

// A scene where every primary ray hits a diffuse plane: after generate and
// intersect, exactly the real pixels are alive, the pad lanes are dead.
static CompiledScene wall_scene() {
    Scene s = builtin_default_scene();
    s.spheres.clear();
    s.planes.clear();
    s.triangles.clear();
    Plane p;
    p.point = {0, 0, -10};
    p.normal = {0, 0, 1};
    s.planes.push_back(p);
    s.camera.from = {0, 0, 0};
    s.camera.at = {0, 0, -1};
    return compile_scene(s);
}

// Expected stencil word w for a 1-pixel-high image of n pixels, with warp tiles tw
// pixels wide (32/tw high): only the tile's top row is inside the image, so lanes
// 0..tw-1 of word w are pixels w*tw .. w*tw+tw-1; those < n are real, all others pad.
static uint32_t expected_word_1d(int n, int tw, size_t w) {
    uint32_t word = 0;
    for (int lane = 0; lane < tw; ++lane)
        if (int(w) * tw + lane < n) word |= 1u << lane;
    return word;
}

struct TailCase {
    int n;
    int tile_w;
};
class StencilTail : public ::testing::TestWithParam<TailCase> {};

TEST_P(StencilTail, TailWarpsAreExact) {
    const auto [n, tw] = GetParam();
    const CompiledScene cs = wall_scene();
    auto ex = make_cpu_executor(2);
    ex->set_scene(cs);
    std::vector<std::vector<uint32_t>> seen;
    ex->set_stencil_probe([&](int, int, const std::vector<uint32_t>& w) { seen.push_back(w); });
    RenderSettings rs;
    rs.width = n;
    rs.height = 1;
    rs.depth = 2;
    rs.warp_width = tw;
    Image img;
    FrameStats st;
    ex->render(cs.camera, rs, img, &st);
    const int warps = (n + tw - 1) / tw;
    // Bounce 0 counts: all n rays alive at intersect entry, in ceil(n / tile width) warps.
    ASSERT_GE(st.bounces.size(), 1u);
    EXPECT_EQ(st.bounces[0].live_rays, uint64_t(n));
    EXPECT_EQ(st.bounces[0].live_warps, uint64_t(warps));
    // The wall is diffuse (kr = 0): after reflect of bounce 0 every word is 0.
    ASSERT_EQ(seen.size(), 1u) << "bounce 1 must be skipped: every ray is dead";
    ASSERT_EQ(seen[0].size(), size_t(warps));
    for (uint32_t w : seen[0]) EXPECT_EQ(w, 0u);
}
INSTANTIATE_TEST_SUITE_P(Sizes, StencilTail,
                         ::testing::Values(TailCase{1, 8}, TailCase{31, 8}, TailCase{32, 8}, TailCase{33, 8},
                                           TailCase{961, 8}, TailCase{1, 32}, TailCase{31, 32},
                                           TailCase{33, 32}, TailCase{961, 32}, TailCase{961, 1}));

// With a mirror wall the rays stay alive: the words after reflect must have exactly
// the real pixels set and the pad lanes clear.
TEST(Stencil, PadLanesStayDeadWhileRealRaysLive) {
    Scene s = builtin_default_scene();
    s.spheres.clear();
    s.planes.clear();
    s.triangles.clear();
    Material mirror;
    mirror.kr = {0.5f, 0.5f, 0.5f};
    const uint32_t m = s.add_material(mirror);
    Plane p;
    p.point = {0, 0, -10};
    p.normal = {0, 0, 1};
    p.material = m;
    s.planes.push_back(p);
    s.camera.from = {0, 0, 0};
    s.camera.at = {0, 0, -1};
    const CompiledScene cs = compile_scene(s);
    for (int tw : {8, 32, 4}) {
        for (int n : {1, 31, 33, 961}) {
            auto ex = make_cpu_executor(2);
            ex->set_scene(cs);
            std::vector<uint32_t> after0;
            ex->set_stencil_probe([&](int, int bounce, const std::vector<uint32_t>& w) {
                if (bounce == 0) after0 = w;
            });
            RenderSettings rs;
            rs.width = n;
            rs.height = 1;
            rs.depth = 3;
            rs.warp_width = tw;
            Image img;
            ex->render(cs.camera, rs, img);
            ASSERT_EQ(after0.size(), size_t((n + tw - 1) / tw));
            for (size_t w = 0; w < after0.size(); ++w)
                EXPECT_EQ(after0[w], expected_word_1d(n, tw, w)) << "n=" << n << " tile " << tw << " word " << w;
        }
    }
}

// The warp shape changes which rays share a warp, never the picture.
TEST(Stencil, WarpShapeDoesNotChangeTheImage) {
    const Scene s = builtin_default_scene();
    const CompiledScene cs = compile_scene(s);
    auto ex = make_cpu_executor(2);
    ex->set_scene(cs);
    RenderSettings rs;
    rs.width = 83;
    rs.height = 45;
    rs.depth = 6;
    Image ref;
    ex->render(s.camera, rs, ref);
    for (int tw : {1, 2, 4, 16, 32}) {
        rs.warp_width = tw;
        Image img;
        ex->render(s.camera, rs, img);
        EXPECT_EQ(compare_images(ref, img, 0).over_tolerance, 0u) << "tile width " << tw;
    }
}

// Whole-dead words are skipped: the stage function is never called for their lanes.
// Checked through the stats: with half the image looking at the sky (a miss), the
// second bounce sees only the warps whose rays hit the mirror.
TEST(Stencil, DeadWordsAreSkipped) {
    Scene s = builtin_default_scene();
    s.spheres.clear();
    s.planes.clear();
    s.triangles.clear();
    Material mirror;
    mirror.kr = {0.5f, 0.5f, 0.5f};
    const uint32_t m = s.add_material(mirror);
    // A mirror filling the bottom half of the view; the top half sees the sky.
    Plane p;
    p.point = {0, -1, 0};
    p.normal = {0, 1, 0};
    p.material = m;
    s.planes.push_back(p);
    s.camera.from = {0, 0, 0};
    s.camera.at = {0, 0, -1};
    const CompiledScene cs = compile_scene(s);
    auto ex = make_cpu_executor(2);
    ex->set_scene(cs);
    RenderSettings rs;
    rs.width = 64;
    rs.height = 64;
    rs.depth = 4;
    Image img;
    FrameStats st;
    ex->render(cs.camera, rs, img, &st);
    ASSERT_GE(st.bounces.size(), 2u);
    EXPECT_EQ(st.bounces[0].live_warps, 128u);
    // Rows 32..63 look down at the floor mirror: 32 rows x 2 warps.
    EXPECT_EQ(st.bounces[1].live_warps, 64u);
    EXPECT_EQ(st.bounces[1].live_rays, 64u * 32u);
    // Reflected rays go up into the sky: nothing survives to bounce 2.
    EXPECT_EQ(st.bounces.size(), 2u);
}
