// Split-frame rendering (render/split_executor.h) on the CPU: bands over several
// executors give exactly one executor's image, linear radiance and ray counts, at odd
// sizes, in every warp shape, and after the bands have been rebalanced. (GPU: one
// executor per device, tests/gpu.)
#include "render/executor.h"
#include "render/part_threads.h"
#include "render/scene_gpu.h"
#include "render/split_executor.h"
#include "scene/load.h"
#include "scene/scene.h"

#include <gtest/gtest.h>

#include <map>

using namespace srt;

namespace {

std::unique_ptr<SplitExecutor> split_cpu(int n) {
    std::vector<std::unique_ptr<Executor>> parts;
    for (int i = 0; i < n; ++i) parts.push_back(make_cpu_executor(1));
    return std::make_unique<SplitExecutor>(std::move(parts));
}

// (whitted-glass.json: Whitted's ray trees, each band with its own stacks.)
TEST(Split, BandsEqualOneExecutorBitForBit) {
    for (const char* file : {"big-sphere.json", "whitted-glass.json"}) {
        SCOPED_TRACE(file);
        const Scene s = load_scene(std::string(SRT_SOURCE_DIR) + "/scenes/" + file);
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

// The frame's threads: every part runs each job once, on its own thread, jobs after one
// another; a part's failure reaches the caller (the first by part number) and the
// threads go on serving frames after it.
TEST(Split, PartThreadsRunEveryPartOncePerJob) {
    PartThreads threads(4);
    std::vector<int> runs(4, 0);
    std::vector<std::thread::id> ids(4);
    for (int job = 0; job < 200; ++job)
        threads.run([&](size_t i) {
            ++runs[i];
            if (job == 0) ids[i] = std::this_thread::get_id();
            else EXPECT_EQ(ids[i], std::this_thread::get_id());  // the same thread every job
        });
    for (int r : runs) EXPECT_EQ(r, 200);
    EXPECT_NE(ids[0], ids[1]);
    try {
        threads.run([&](size_t i) {
            if (i >= 2) throw std::runtime_error("part " + std::to_string(i) + " failed");
        });
        FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "part 2 failed");
    }
    threads.run([&](size_t i) { ++runs[i]; });
    for (int r : runs) EXPECT_EQ(r, 201);
}

// A part that throws fails the frame with its message, and the next frame is whole.
TEST(Split, APartsFailureReachesTheCaller) {
    struct Failing final : Executor {
        std::unique_ptr<Executor> inner = make_cpu_executor(1);
        bool fail = true;
        std::string name() const override { return "failing"; }
        void set_scene(const CompiledScene& s) override { inner->set_scene(s); }
        void render(const Camera& c, const RenderSettings& rs, Image& out, FrameStats* st) override {
            if (fail) throw std::runtime_error("device lost");
            inner->render(c, rs, out, st);
        }
        void read_linear(LinearImage& out) override { inner->read_linear(out); }
        double timed_frame(const Camera& c, const RenderSettings& rs, FrameStats* st) override {
            return inner->timed_frame(c, rs, st);
        }
    };
    std::vector<std::unique_ptr<Executor>> parts;
    parts.push_back(make_cpu_executor(1));
    auto failing = std::make_unique<Failing>();
    Failing* f = failing.get();
    parts.push_back(std::move(failing));
    SplitExecutor split(std::move(parts));
    const Scene s = builtin_default_scene();
    const CompiledScene cs = compile_scene(s);
    split.set_scene(cs);
    auto one = make_cpu_executor(1);
    one->set_scene(cs);
    RenderSettings rs;
    rs.width = 64;
    rs.height = 48;
    Image img, ref;
    EXPECT_THROW(
        {
            try {
                split.render(s.camera, rs, img);
            } catch (const std::runtime_error& e) {
                EXPECT_STREQ(e.what(), "device lost");
                throw;
            }
        },
        std::runtime_error);
    f->fail = false;
    split.render(s.camera, rs, img);
    one->render(s.camera, rs, ref);
    EXPECT_EQ(img.rgba, ref.rgba);
}

// The stencil probe of a split frame (the viewer's overlay) sees the whole frame's words
// after every bounce, as one executor's probe does.
TEST(Split, StencilProbeSeesTheWholeFrame) {
    const Scene s = load_scene(std::string(SRT_SOURCE_DIR) + "/scenes/big-sphere.json");
    const CompiledScene cs = compile_scene(s);
    auto one = make_cpu_executor(2);
    auto split = split_cpu(3);
    one->set_scene(cs);
    split->set_scene(cs);
    using Words = std::map<std::pair<int, int>, std::vector<uint32_t>>;
    Words a, b;
    one->set_stencil_probe([&](int sm, int bn, const std::vector<uint32_t>& w) { a[{sm, bn}] = w; });
    split->set_stencil_probe([&](int sm, int bn, const std::vector<uint32_t>& w) { b[{sm, bn}] = w; });
    for (int warp_width : {8, 1})
        for (auto [w, h] : {std::pair{97, 61}, std::pair{40, 9}}) {
            RenderSettings rs;
            rs.width = w;
            rs.height = h;
            rs.depth = 8;
            rs.spp = 2;
            rs.warp_width = warp_width;
            Image ia, ib;
            a.clear();
            b.clear();
            one->render(s.camera, rs, ia);
            split->render(s.camera, rs, ib);
            ASSERT_FALSE(a.empty());
            EXPECT_EQ(a, b) << w << "x" << h << " warp width " << warp_width;
        }
    split->set_stencil_probe(nullptr);
    b.clear();
    Image img;
    RenderSettings rs;
    rs.width = 32;
    rs.height = 32;
    split->render(s.camera, rs, img);
    EXPECT_TRUE(b.empty());
}

}  // namespace
