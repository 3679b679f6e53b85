// Progressive accumulation and exposure (RenderSettings::sample_begin, ::exposure).
// N frames of one sample each, sample_begin = 0, 1, ..., N-1, leave exactly the image of
// one frame with spp = N: the same sample positions, added in the same order. Exposure
// scales the 8-bit output by 2^EV and nothing else.
#include "core/image.h"
#include "render/executor.h"
#include "render/scene_gpu.h"
#include "render/srgb.h"
#include "render/stages.h"
#include "scene/scene.h"

#include <gtest/gtest.h>

using namespace srt;

namespace {

RenderSettings small(int spp, int begin = 0) {
    RenderSettings rs;
    rs.width = 96;
    rs.height = 61;  // partial warp tiles
    rs.depth = 6;
    rs.spp = spp;
    rs.sample_begin = begin;
    return rs;
}

TEST(Accumulate, FramesOfOneSampleEqualOneFrameOfN) {
    const Scene s = builtin_default_scene();
    const CompiledScene cs = compile_scene(s);
    auto ex = make_cpu_executor(2);
    ex->set_scene(cs);
    for (int n : {2, 5, 16}) {
        Image whole, acc;
        ex->render(s.camera, small(n), whole);
        for (int k = 0; k < n; ++k) ex->render(s.camera, small(1, k), acc);
        EXPECT_EQ(acc.rgba, whole.rgba) << n << " samples";
    }
    // And in bigger steps: 3 + 4 + 1 samples equal 8.
    Image whole, acc;
    ex->render(s.camera, small(8), whole);
    ex->render(s.camera, small(3, 0), acc);
    ex->render(s.camera, small(4, 3), acc);
    ex->render(s.camera, small(1, 7), acc);
    EXPECT_EQ(acc.rgba, whole.rgba);
}

TEST(Accumulate, RestartingAtSampleZeroForgetsTheSum) {
    const Scene s = builtin_default_scene();
    const CompiledScene cs = compile_scene(s);
    auto ex = make_cpu_executor(2);
    ex->set_scene(cs);
    Image one, acc;
    ex->render(s.camera, small(1), one);
    Camera moved = s.camera;
    moved.from.x += 0.5f;
    ex->render(moved, small(1, 0), acc);
    ex->render(moved, small(1, 1), acc);
    ex->render(s.camera, small(1, 0), acc);  // a change: the sum starts again
    EXPECT_EQ(acc.rgba, one.rgba);
}

TEST(Accumulate, SampleZeroIsThePixelCentre) {
    float dx = 0, dy = 0;
    sample_offset(0, dx, dy);
    EXPECT_EQ(dx, 0.5f);
    EXPECT_EQ(dy, 0.5f);
    sample_offset(1, dx, dy);
    EXPECT_NE(dx, 0.5f);
}

TEST(Exposure, ScalesThe8BitOutputByTwoToTheEv) {
    const Scene s = builtin_default_scene();
    const CompiledScene cs = compile_scene(s);
    auto ex = make_cpu_executor(2);
    ex->set_scene(cs);
    RenderSettings rs = small(1);
    Image base, zero, plus1, minus1;
    ex->render(s.camera, rs, base);
    rs.exposure = 0.0f;
    ex->render(s.camera, rs, zero);
    EXPECT_EQ(zero.rgba, base.rgba);  // EV 0 is today's image, bit for bit
    rs.exposure = 1.0f;
    ex->render(s.camera, rs, plus1);
    rs.exposure = -1.0f;
    ex->render(s.camera, rs, minus1);
    // Against the linear radiance: 8-bit = encode(2^EV * c). c from the EV-0 frame's
    // own buffers through read_linear.
    LinearImage lin;
    ex->render(s.camera, small(1), base);
    ex->read_linear(lin);
    ASSERT_EQ(lin.width, rs.width);
    const auto th = make_srgb_thresholds();
    size_t brighter = 0;
    for (int y = 0; y < rs.height; ++y)
        for (int x = 0; x < rs.width; ++x) {
            const float* c = lin.pixel(x, y);
            for (int ch = 0; ch < 3; ++ch) {
                ASSERT_EQ(plus1.pixel(x, y)[ch], encode_srgb8(th.data(), c[ch] * 2.0f)) << x << "," << y;
                ASSERT_EQ(minus1.pixel(x, y)[ch], encode_srgb8(th.data(), c[ch] * 0.5f)) << x << "," << y;
                ASSERT_EQ(base.pixel(x, y)[ch], encode_srgb8(th.data(), c[ch])) << x << "," << y;
                brighter += plus1.pixel(x, y)[ch] > base.pixel(x, y)[ch];
            }
        }
    EXPECT_GT(brighter, size_t(rs.width * rs.height));  // it did something
}

}  // namespace
