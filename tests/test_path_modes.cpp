// test_path_modes.cpp - the path integrator in the frame's machinery: the CPU executor's
// stencil wavefront and its megakernel against the per-pixel reference
// (render/reference_path.cpp), bit for bit, on scenes that take each kernel variant
// (plain, textured, alpha-masked, spheres in double; BVH2, 4 and 8); frames that add
// samples one at a time, and bands of rows, against one whole frame; stats that count the
// extra bounce the last vertex's emission needs; seeds. The GPU's modes are held to the
// same images in tests/gpu/test_gpu_path.cpp.
#include "core/image.h"
#include "render/sampling.h"
#include "render/executor.h"
#include "render/scene_gpu.h"
#include "scene/load.h"
#include "scene/scene.h"
#include "support/settings.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

using namespace srt;

namespace {

RenderSettings path_settings(int w, int h, int depth, DeadRayMode mode, int spp = 1, int begin = 0) {
    return test::Frame(w, h, depth, mode).spp(spp).from(begin).path();
}

std::vector<std::pair<std::string, Scene>> path_scenes() {
    std::vector<std::pair<std::string, Scene>> v;
    const std::string src = SRT_SOURCE_DIR;
    for (const char* f : {"scenes/glass.json", "scenes/textured.json", "scenes/foliage.json", "scenes/big-sphere.json"})
        v.emplace_back(f, load_scene(src + "/" + f));
    v.emplace_back("default", builtin_default_scene());
    Scene tri = load_scene(src + "/scenes/textured.json");
    tri.texture_filter = TextureFilter::Trilinear;
    v.emplace_back("textured.json, trilinear", std::move(tri));
    const std::string cornell = std::string(SRT_SHARED_DATA) + "/scenes/cornell-box/CornellBox-Sphere.obj";
    if (std::filesystem::exists(cornell)) v.emplace_back("CornellBox-Sphere", load_scene(cornell));
    return v;
}

uint64_t nonblack(const Image& img) {
    uint64_t n = 0;
    for (size_t k = 0; k < img.rgba.size(); k += 4) n += (img.rgba[k] | img.rgba[k + 1] | img.rgba[k + 2]) != 0;
    return n;
}

}  // namespace

TEST(PathModes, WavefrontAndMegakernelEqualTheReference) {
    auto ex = make_cpu_executor(2);
    for (const auto& [name, scene] : path_scenes()) {
        for (AccelLayout layout : {AccelLayout::Bvh2, AccelLayout::Bvh4, AccelLayout::Bvh8}) {
            const CompiledScene cs = compile_scene(scene, layout);
            ex->set_scene(cs);
            for (int spp : {1, 3}) {
                const RenderSettings rs = path_settings(37, 23, 6, DeadRayMode::Stencil, spp);
                Image ref, a, b;
                render_reference(cs, scene.camera, rs, ref);
                ASSERT_GT(nonblack(ref), ref.rgba.size() / 16) << name << ": a quarter of the pixels lit, at least";
                ex->render(scene.camera, rs, a);
                LinearImage la, lb;
                ex->read_linear(la);
                ex->render(scene.camera, path_settings(37, 23, 6, DeadRayMode::Megakernel, spp), b);
                ex->read_linear(lb);
                EXPECT_EQ(a.rgba, ref.rgba) << name << " " << to_string(layout) << " spp " << spp << ": stencil";
                EXPECT_EQ(b.rgba, ref.rgba) << name << " " << to_string(layout) << " spp " << spp << ": megakernel";
                EXPECT_EQ(la.rgb, lb.rgb) << name << " " << to_string(layout) << " spp " << spp;
            }
        }
    }
}

// The extended materials (glTF's BRDF, rough glass, maps) run kernels of their own
// (accel/variant.h kMaterials), whose intersect must find the hits their path kernels
// find: at this size and sampler a stencil frame whose intersect took spheres in float,
// under path kernels that took them in double, let one ray leaving a rough glass sphere
// hit it again at t = 5e-8, and differed from the megakernel by a firefly.
TEST(PathModes, ExtendedMaterialsEveryModeEqualsTheReference) {
    auto ex = make_cpu_executor(2);
    Scene scene = load_scene(std::string(SRT_SOURCE_DIR) + "/scenes/materials.json");
    for (TextureFilter filter : {TextureFilter::Bilinear, TextureFilter::Trilinear}) {
        scene.texture_filter = filter;
        const CompiledScene cs = compile_scene(scene);
        ex->set_scene(cs);
        RenderSettings rs = path_settings(203, 117, 8, DeadRayMode::Stencil);
        rs.sampler = SamplerKind::Sobol;
        Image ref;
        render_reference(cs, scene.camera, rs, ref);
        for (DeadRayMode m : {DeadRayMode::Stencil, DeadRayMode::Compact, DeadRayMode::Megakernel, DeadRayMode::Regenerate}) {
            rs.mode = m;
            Image img;
            ex->render(scene.camera, rs, img);
            EXPECT_EQ(img.rgba, ref.rgba) << to_string(m) << (filter == TextureFilter::Trilinear ? ", trilinear" : "");
        }
    }
}

// The viewer's progressive accumulation: frames of one sample each leave the image of
// one frame of N samples, byte for byte.
TEST(PathModes, FramesOfOneSampleAddUpToOneFrameOfN) {
    auto ex = make_cpu_executor(2);
    const Scene scene = load_scene(std::string(SRT_SOURCE_DIR) + "/scenes/glass.json");
    const CompiledScene cs = compile_scene(scene);
    ex->set_scene(cs);
    for (DeadRayMode m : {DeadRayMode::Stencil, DeadRayMode::Megakernel}) {
        Image whole, step;
        ex->render(scene.camera, path_settings(45, 31, 8, m, 5), whole);
        for (int k = 0; k < 5; ++k) ex->render(scene.camera, path_settings(45, 31, 8, m, 1, k), step);
        EXPECT_EQ(step.rgba, whole.rgba) << to_string(m);
    }
}

// A band of rows (several devices' split frames) draws the random numbers of those rows
// of the whole frame: its pixels are the whole frame's.
TEST(PathModes, BandsEqualTheWholeFrame) {
    auto ex = make_cpu_executor(2);
    const Scene scene = load_scene(std::string(SRT_SOURCE_DIR) + "/scenes/glass.json");
    const CompiledScene cs = compile_scene(scene);
    ex->set_scene(cs);
    Image whole;
    ex->render(scene.camera, path_settings(41, 30, 8, DeadRayMode::Stencil, 2), whole);
    for (const auto& [y0, rows] : {std::pair<int, int>{0, 7}, {7, 13}, {20, 10}}) {
        RenderSettings rs = path_settings(41, 30, 8, DeadRayMode::Stencil, 2);
        rs.band_y = y0;
        rs.band_h = rows;
        Image band;
        ex->render(scene.camera, rs, band);
        const size_t row_bytes = size_t(41) * 4;
        const std::vector<uint8_t> expect(whole.rgba.begin() + ptrdiff_t(size_t(y0) * row_bytes),
                                          whole.rgba.begin() + ptrdiff_t(size_t(y0 + rows) * row_bytes));
        EXPECT_EQ(band.rgba, expect) << "rows " << y0 << ".." << y0 + rows - 1;
    }
}

// --depth D is D scattering vertices and one more segment for the emission the last
// one's ray finds: D + 1 intersect bounces at most; the megakernel counts the same live
// rays and warps per bounce as the wavefront.
TEST(PathModes, StatsCountTheBouncesOfBothLoops) {
    auto ex = make_cpu_executor(2);
    const Scene scene = load_scene(std::string(SRT_SOURCE_DIR) + "/scenes/glass.json");
    const CompiledScene cs = compile_scene(scene);
    ex->set_scene(cs);
    for (int depth : {1, 3}) {
        FrameStats a, b;
        Image img;
        ex->render(scene.camera, path_settings(64, 48, depth, DeadRayMode::Stencil), img, &a);
        ex->render(scene.camera, path_settings(64, 48, depth, DeadRayMode::Megakernel), img, &b);
        ASSERT_EQ(a.bounces.size(), size_t(depth + 1)) << "the closed box keeps paths alive to the last bounce";
        ASSERT_EQ(b.bounces.size(), a.bounces.size());
        for (size_t k = 0; k < a.bounces.size(); ++k) {
            EXPECT_EQ(a.bounces[k].live_rays, b.bounces[k].live_rays) << "bounce " << k;
            EXPECT_EQ(a.bounces[k].live_warps, b.bounces[k].live_warps) << "bounce " << k;
            EXPECT_EQ(a.bounces[k].shadow_rays, b.bounces[k].shadow_rays) << "bounce " << k;
        }
        EXPECT_EQ(a.bounces.back().shadow_rays, 0u) << "no light sample where no path goes on";
        EXPECT_EQ(a.rays_traced, b.rays_traced);
    }
}

// The seed picks another independent image; the same seed, the same image.
TEST(PathModes, SeedChangesTheNoiseOnly) {
    auto ex = make_cpu_executor(2);
    const Scene scene = load_scene(std::string(SRT_SOURCE_DIR) + "/scenes/glass.json");
    const CompiledScene cs = compile_scene(scene);
    ex->set_scene(cs);
    RenderSettings rs = path_settings(40, 40, 6, DeadRayMode::Stencil, 2);
    Image a, b, c;
    ex->render(scene.camera, rs, a);
    rs.seed = 7;
    ex->render(scene.camera, rs, b);
    ex->render(scene.camera, rs, c);
    EXPECT_NE(a.rgba, b.rgba);
    EXPECT_EQ(b.rgba, c.rgba);
}

// Spatial splits store a cut primitive once a reference, and change the BVH's order: the
// light a sample picks must not follow the tree, so a path-traced image is the same with
// and without them, bit for bit. CornellBox-Water's surface is cut (checked, so that the
// test can fail; with the emitters in BVH order its pixels differed).
TEST(PathModes, SpatialSplitsChangeNoPathTracedPixel) {
    const std::string water = std::string(SRT_SHARED_DATA) + "/scenes/cornell-box/CornellBox-Water.obj";
    if (!std::filesystem::exists(water)) GTEST_SKIP() << "shared data not found: " << water;
    const Scene scene = load_scene(water);
    const CompiledScene on = compile_scene(scene, AccelLayout::Bvh2, BvhBuildOptions{true});
    const CompiledScene off = compile_scene(scene, AccelLayout::Bvh2, BvhBuildOptions{false});
    ASSERT_GT(on.bvh_stats.spatial_splits, 0u) << "nothing was cut: the test would test nothing";
    auto ex = make_cpu_executor(2);
    const RenderSettings rs = path_settings(48, 48, 6, DeadRayMode::Stencil, 3);
    Image a, b;
    ex->set_scene(on);
    ex->render(scene.camera, rs, a);
    ex->set_scene(off);
    ex->render(scene.camera, rs, b);
    ASSERT_GT(nonblack(a), a.rgba.size() / 16);
    EXPECT_EQ(a.rgba, b.rgba);
}

// The same scene under Whitted: the integrators share the frame's buffers, so switching
// back and forth on one executor gives each one's own image.
TEST(PathModes, SwitchingIntegratorsKeepsEachImage) {
    auto ex = make_cpu_executor(2);
    const Scene scene = builtin_default_scene();
    const CompiledScene cs = compile_scene(scene);
    ex->set_scene(cs);
    RenderSettings whitted = path_settings(48, 32, 8, DeadRayMode::Stencil, 2);
    whitted.integrator = Integrator::Whitted;
    const RenderSettings path = path_settings(48, 32, 8, DeadRayMode::Stencil, 2);
    Image w0, p0, w1, p1, wref;
    ex->render(scene.camera, whitted, w0);
    ex->render(scene.camera, path, p0);
    ex->render(scene.camera, whitted, w1);
    ex->render(scene.camera, path, p1);
    render_reference(cs, scene.camera, whitted, wref);
    EXPECT_EQ(w0.rgba, wref.rgba);
    EXPECT_EQ(w1.rgba, wref.rgba);
    EXPECT_EQ(p0.rgba, p1.rgba);
    EXPECT_NE(p0.rgba, w0.rgba);
}

// Rays that skim an infinite plane travel 1e7 units and more; seen from there an area
// light's density overflows float when squared for MIS. No value may come out NaN or
// infinite (the camera's middle row in glass.json at 97x61 runs exactly parallel to the
// floor: every pixel of it was NaN).
TEST(PathModes, EveryValueIsFinite) {
    auto ex = make_cpu_executor(2);
    const Scene scene = load_scene(std::string(SRT_SOURCE_DIR) + "/scenes/glass.json");
    const CompiledScene cs = compile_scene(scene);
    ex->set_scene(cs);
    Image img;
    ex->render(scene.camera, path_settings(97, 61, 8, DeadRayMode::Stencil, 16), img);
    LinearImage lin;
    ex->read_linear(lin);
    size_t bad = 0;
    for (float v : lin.rgb) bad += !std::isfinite(v);
    EXPECT_EQ(bad, 0u);
}

TEST(PathModes, PowerHeuristicHoldsWhereSquaresOverflow) {
    EXPECT_FLOAT_EQ(power_heuristic(3.0f, 4.0f), 9.0f / 25.0f);
    EXPECT_FLOAT_EQ(power_heuristic(4.0f, 3.0f), 16.0f / 25.0f);
    EXPECT_EQ(power_heuristic(1e24f, 1.0f), 1.0f);
    EXPECT_EQ(power_heuristic(1.0f, 1e24f), 0.0f);
    EXPECT_EQ(power_heuristic(INFINITY, 2.0f), 1.0f);
    EXPECT_EQ(power_heuristic(2.0f, INFINITY), 0.0f);
    EXPECT_EQ(power_heuristic(0.0f, 0.0f), 0.0f);
    EXPECT_EQ(power_heuristic(5.0f, 0.0f), 1.0f);
    EXPECT_FLOAT_EQ(power_heuristic(1e20f, 1e20f), 0.5f);
}
