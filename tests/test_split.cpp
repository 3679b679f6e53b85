// Split-frame rendering (render/split_executor.h) on the CPU: bands over several
// executors give exactly one executor's image, linear radiance and ray counts, at odd
// sizes, in every warp shape, and after the bands have been rebalanced. (GPU: one
// executor per device, tests/gpu.)
#include "render/executor.h"
#include "render/scene_gpu.h"
#include "render/split_executor.h"
#include "scene/load.h"
#include "scene/scene.h"

#include <gtest/gtest.h>

using namespace srt;

namespace {

std::unique_ptr<SplitExecutor> split_cpu(int n) {
    std::vector<std::unique_ptr<Executor>> parts;
    for (int i = 0; i < n; ++i) parts.push_back(make_cpu_executor(1));
    return std::make_unique<SplitExecutor>(std::move(parts));
}

TEST(Split, BandsEqualOneExecutorBitForBit) {
    const Scene s = load_scene(std::string(SRT_SOURCE_DIR) + "/scenes/big-sphere.json");
    const CompiledScene cs = compile_scene(s);
    auto one = make_cpu_executor(2);
    one->set_scene(cs);
    for (int n : {2, 3, 5}) {
        auto split = split_cpu(n);
        split->set_scene(cs);
        for (int warp_width : {8, 32, 1})
            for (auto [w, h] : {std::pair{97, 61}, std::pair{64, 8}, std::pair{40, 3}}) {
                RenderSettings rs;
                rs.width = w;
                rs.height = h;
                rs.depth = 6;
                rs.spp = 2;
                rs.warp_width = warp_width;
                rs.stats = true;
                Image a, b;
                FrameStats sa, sb;
                one->render(s.camera, rs, a, &sa);
                for (int frame = 0; frame < 3; ++frame) {  // the bands move between frames
                    split->render(s.camera, rs, b, &sb);
                    const std::string where = std::to_string(n) + " parts, " + std::to_string(w) + "x" +
                                              std::to_string(h) + ", warp width " + std::to_string(warp_width);
                    ASSERT_EQ(a.rgba, b.rgba) << where;
                    ASSERT_EQ(sa.rays_traced, sb.rays_traced) << where;
                    ASSERT_EQ(sa.bounces.size(), sb.bounces.size()) << where;
                    for (size_t k = 0; k < sa.bounces.size(); ++k) {
                        EXPECT_EQ(sa.bounces[k].live_rays, sb.bounces[k].live_rays) << where << " bounce " << k;
                        EXPECT_EQ(sa.bounces[k].live_warps, sb.bounces[k].live_warps) << where << " bounce " << k;
                    }
                }
                LinearImage la, lb;
                one->read_linear(la);
                split->read_linear(lb);
                EXPECT_EQ(la.rgb, lb.rgb);
                // Bands tile the frame in whole tile rows.
                int y = 0;
                for (const auto& band : split->bands()) {
                    if (band.rows == 0) continue;
                    EXPECT_EQ(band.y, y);
                    EXPECT_EQ(band.y % (32 / warp_width), 0);
                    y += band.rows;
                }
                EXPECT_EQ(y, h);
            }
    }
}

TEST(Split, AccumulationKeepsTheBands) {
    const Scene s = builtin_default_scene();
    const CompiledScene cs = compile_scene(s);
    auto one = make_cpu_executor(2);
    auto split = split_cpu(3);
    one->set_scene(cs);
    split->set_scene(cs);
    RenderSettings rs;
    rs.width = 90;
    rs.height = 70;
    rs.depth = 5;
    rs.spp = 6;
    Image ref, acc;
    one->render(s.camera, rs, ref);
    rs.spp = 1;
    for (int k = 0; k < 6; ++k) {
        rs.sample_begin = k;
        split->render(s.camera, rs, acc);
    }
    EXPECT_EQ(acc.rgba, ref.rgba);
}

}  // namespace
