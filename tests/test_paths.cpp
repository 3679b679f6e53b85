// The path modes on the CPU (DeadRayMode::Megakernel; Regenerate runs as it there): a
// lane follows its pixel through every sample and bounce with the ray in registers
// (render/stages.h PathRay, trace_bounce). The image must equal the stencil wavefront's,
// which runs the same stage logic over the SoA buffers, bit for bit, and the live rays
// and warps of every bounce must be the stencil's: a warp of the megakernel is the same
// tile of pixels as a warp of the wavefront.
#include "core/image.h"
#include "render/executor.h"
#include "render/scene_gpu.h"
#include "scene/load.h"
#include "scene/scene.h"
#include "support/settings.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

using namespace srt;

namespace {

RenderSettings settings(int w, int h, int depth, DeadRayMode mode, int spp = 1, int begin = 0) {
    return test::Frame(w, h, depth, mode).spp(spp).from(begin);
}

std::vector<std::pair<std::string, Scene>> scenes() {
    std::vector<std::pair<std::string, Scene>> v;
    v.emplace_back("default", builtin_default_scene());
    for (const char* f : {"scenes/cornell-mirror.json", "scenes/mesh.json", "scenes/hall-of-mirrors.json",
                          "scenes/big-sphere.json", "scenes/textured.json", "scenes/foliage.json"})
        v.emplace_back(f, load_scene(std::string(SRT_SOURCE_DIR) + "/" + f));
    return v;
}

}  // namespace

TEST(Paths, MegakernelEqualsStencilWavefront) {
    auto ex = make_cpu_executor(2);
    for (const auto& [name, scene] : scenes()) {
        for (AccelLayout layout : {AccelLayout::Bvh2, AccelLayout::Bvh4, AccelLayout::Bvh8}) {
            const CompiledScene cs = compile_scene(scene, layout);
            ex->set_scene(cs);
            for (int spp : {1, 3}) {
                Image a, b;
                ex->render(scene.camera, settings(123, 77, 8, DeadRayMode::Stencil, spp), a);
                LinearImage la, lb;
                ex->read_linear(la);
                ex->render(scene.camera, settings(123, 77, 8, DeadRayMode::Megakernel, spp), b);
                ex->read_linear(lb);
                EXPECT_EQ(a.rgba, b.rgba) << name << " " << to_string(layout) << " spp " << spp;
                EXPECT_EQ(la.rgb, lb.rgb) << name << " " << to_string(layout) << " spp " << spp;
            }
        }
    }
}

TEST(Paths, SixteenSamplesAndOddSizes) {
    auto ex = make_cpu_executor(2);
    const Scene scene = builtin_default_scene();
    const CompiledScene cs = compile_scene(scene);
    ex->set_scene(cs);
    const std::pair<int, int> sizes[] = {{1, 1}, {961, 1}, {33, 17}, {64, 40}};
    for (auto [w, h] : sizes)
        for (int spp : {1, 16}) {
            Image a, b, c;
            ex->render(scene.camera, settings(w, h, 8, DeadRayMode::Stencil, spp), a);
            ex->render(scene.camera, settings(w, h, 8, DeadRayMode::Megakernel, spp), b);
            ex->render(scene.camera, settings(w, h, 8, DeadRayMode::Regenerate, spp), c);
            EXPECT_EQ(a.rgba, b.rgba) << w << "x" << h << " spp " << spp;
            EXPECT_EQ(a.rgba, c.rgba) << w << "x" << h << " spp " << spp;
        }
}

// The recursive reference renderer shares no loop with either executor.
TEST(Paths, MegakernelEqualsRecursiveReference) {
    const Scene scene = builtin_default_scene();
    const CompiledScene cs = compile_scene(scene);
    auto ex = make_cpu_executor(2);
    ex->set_scene(cs);
    const RenderSettings rs = settings(96, 61, 8, DeadRayMode::Megakernel, 3);
    Image a, ref;
    ex->render(scene.camera, rs, a);
    render_reference(cs, scene.camera, rs, ref);
    EXPECT_EQ(a.rgba, ref.rgba);
}

// A running sum goes on across frames in the megakernel too: frames of one sample each
// end in the image of one frame with N (the viewer's accumulation).
TEST(Paths, AccumulationEqualsOneFrameOfN) {
    const Scene scene = builtin_default_scene();
    const CompiledScene cs = compile_scene(scene);
    auto ex = make_cpu_executor(2);
    ex->set_scene(cs);
    const int n = 5;
    Image whole, acc;
    ex->render(scene.camera, settings(96, 61, 6, DeadRayMode::Stencil, n), whole);
    for (int k = 0; k < n; ++k) ex->render(scene.camera, settings(96, 61, 6, DeadRayMode::Megakernel, 1, k), acc);
    EXPECT_EQ(acc.rgba, whole.rgba);
}

// The counts: per bounce, the live rays and live warps the megakernel's warps saw at the
// entry of intersect are the stencil's (the same tiles die at the same bounces), and so
// are the shadow rays, the rays traced and the bounces run.
TEST(Paths, MegakernelCountsEqualStencils) {
    auto ex = make_cpu_executor(2);
    for (const auto& [name, scene] : scenes()) {
        const CompiledScene cs = compile_scene(scene);
        ex->set_scene(cs);
        for (int spp : {1, 3}) {
            Image img;
            FrameStats s, m;
            ex->render(scene.camera, settings(160, 90, 8, DeadRayMode::Stencil, spp), img, &s);
            ex->render(scene.camera, settings(160, 90, 8, DeadRayMode::Megakernel, spp), img, &m);
            ASSERT_EQ(m.bounces.size(), s.bounces.size()) << name;
            ASSERT_FALSE(s.bounces.empty());
            for (size_t b = 0; b < s.bounces.size(); ++b) {
                EXPECT_EQ(m.bounces[b].live_rays, s.bounces[b].live_rays) << name << " bounce " << b;
                EXPECT_EQ(m.bounces[b].live_warps, s.bounces[b].live_warps) << name << " bounce " << b;
                EXPECT_EQ(m.bounces[b].shadow_rays, s.bounces[b].shadow_rays) << name << " bounce " << b;
            }
            EXPECT_EQ(m.rays_traced, s.rays_traced) << name;
            EXPECT_EQ(m.bounces_run, s.bounces_run) << name;
            EXPECT_EQ(m.warp_steps, s.warp_steps) << name;
            EXPECT_GT(m.simd_efficiency(), 0.0);
            EXPECT_LE(m.simd_efficiency(), 1.0);
        }
    }
}
