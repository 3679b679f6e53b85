// GPU tests: the CUDA executor against the CPU executor (its reference).
// Label `gpu`; the binary exits 77 (ctest: skipped) where no CUDA device exists.
#include "cuda/cuda_executor.h"
#include "cuda/multi_gpu_executor.h"
#include "render/executor.h"
#include "render/split_executor.h"
#include "scene/load.h"
#include "scene/scene.h"
#include "support/bench_scenes.h"
#include "support/scene_transform.h"
#include "support/settings.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>

using namespace srt;

namespace {

std::string shared_data() {
    const char* env = std::getenv("SRT_SHARED_DATA");
    return env ? env : SRT_SHARED_DATA;
}
// The checkout's scenes/; on the GPU machine the tree sits elsewhere than where it was
// built, so tools/gpu-*.sh set SRT_SOURCE_DIR.
std::string source_dir() {
    const char* env = std::getenv("SRT_SOURCE_DIR");
    return env ? env : SRT_SOURCE_DIR;
}

std::unique_ptr<CudaExecutor> gpu() {
    std::string why;
    auto ex = make_cuda_executor(why);
    if (!ex) ADD_FAILURE() << why;
    return ex;
}

// The scenes every test runs over. Shared-data scenes are added when present.
std::vector<std::pair<std::string, Scene>> scenes() {
    std::vector<std::pair<std::string, Scene>> v;
    v.emplace_back("default", builtin_default_scene());
    const std::string src = source_dir();
    for (const char* f : {"scenes/cornell-mirror.json", "scenes/mesh.json", "scenes/hall-of-mirrors.json",
                          "scenes/big-sphere.json", "scenes/textured.json", "scenes/foliage.json",
                          "scenes/instances.json"})
        if (std::filesystem::exists(src + "/" + f)) v.emplace_back(f, load_scene(src + "/" + f));
    // Textures from their mip chains, by ray cones through flat and curved mirrors.
    if (std::filesystem::exists(src + "/scenes/textured.json")) {
        Scene s = load_scene(src + "/scenes/textured.json");
        s.texture_filter = TextureFilter::Trilinear;
        v.emplace_back("textured.json, trilinear", std::move(s));
        // Each texture turned and scaled its own way (scene.h UvTransform), its levels
        // picked by a footprint the scale widens.
        Scene t = load_scene(src + "/scenes/textured.json");
        t.texture_filter = TextureFilter::Trilinear;
        for (size_t i = 0; i < t.textures.size(); ++i)
            t.textures[i].transform = UvTransform::of(glm::dvec2(0.3, 0.1 * double(i)), 0.4 * double(i) + 0.3, glm::dvec2(0.7, 1.6));
        v.emplace_back("textured.json, transformed", std::move(t));
    }
    // Glass under Whitted: ray trees (render/ray_tree.h), some deeper than the bounce loop.
    for (const char* f : {"scenes/whitted-glass.json", "tests/data/glass/water.json", "tests/data/glass/tir.json",
                          "tests/data/glass/spd-glass.nff"})
        if (std::filesystem::exists(src + "/" + f)) v.emplace_back(f, load_scene(src + "/" + f));
    // Through a thin lens (render/lens.h): mirrors, and glass's ray trees.
    for (const char* f : {"scenes/hall-of-mirrors.json", "scenes/whitted-glass.json"})
        if (std::filesystem::exists(src + "/" + f)) {
            Scene s = load_scene(src + "/" + f);
            s.camera.aperture = 0.1f;
            s.camera.focus_distance = 0.7f * s.camera.focus();
            v.emplace_back(std::string(f) + " through a lens", std::move(s));
        }
    // Under an environment map (render/environment.h): mirrors and glass reflect it.
    for (const char* f : {"scenes/hall-of-mirrors.json", "scenes/environment.json", "scenes/materials.json"})
        if (std::filesystem::exists(src + "/" + f)) {
            Scene s = load_scene(src + "/" + f);
            s.environment = environment_from_file(src + "/assets/env/sky.hdr", 1.0f, 40.0f);
            v.emplace_back(std::string(f) + " under the sky", std::move(s));
        }
    // The ground sphere of radius 1000, far from the origin (robust hit points).
    if (std::filesystem::exists(src + "/scenes/big-sphere.json"))
        v.emplace_back("big-sphere moved by (1e4, 0, 1e4)",
                       transformed(load_scene(src + "/scenes/big-sphere.json"), 1.0f, {1e4f, 0.0f, 1e4f}));
    const std::string data = shared_data();
    for (const char* f : {"spd/balls_s2.nff", "scenes/cornell-box/CornellBox-Mirror.obj"})
        if (std::filesystem::exists(data + "/" + f)) v.emplace_back(f, load_scene(data + "/" + f));
    // Conference (331k triangles), where present decompressed (tools/gpu/lib.sh does
    // that), seen from inside the room as in the benchmark.
    const std::string conf = data + "/scenes/conference/conference.obj";
    if (std::filesystem::exists(conf)) v.emplace_back("conference", test::conference_benchmark_view(conf));
    return v;
}

RenderSettings settings(int w, int h, int depth, DeadRayMode mode = DeadRayMode::Stencil,
                        LaunchMode launch = LaunchMode::Graph, int spp = 1) {
    return test::Frame(w, h, depth, mode).launch(launch).spp(spp);
}

const DeadRayMode kModes[] = {DeadRayMode::Stencil, DeadRayMode::Flags, DeadRayMode::Compact,
                              DeadRayMode::Megakernel, DeadRayMode::Regenerate, DeadRayMode::Pool};
// The wavefronts: the modes that keep a live set between kernels (the stencil probe).
const DeadRayMode kWavefronts[] = {DeadRayMode::Stencil, DeadRayMode::Flags, DeadRayMode::Compact};

}  // namespace

// GPU == CPU on >= 99.99% of channel values within 1/255. Both sides are built
// without FMA contraction and share every stage function and the sRGB table, so
// the expectation is in fact bit equality; the tolerance is the issue's.
TEST(Gpu, ImageMatchesCpuExecutor) {
    auto g = gpu();
    ASSERT_TRUE(g);
    auto cpu = make_cpu_executor();
    for (auto& [name, scene] : scenes()) {
        const CompiledScene cs = compile_scene(scene);
        g->set_scene(cs);
        cpu->set_scene(cs);
        for (int depth : {1, 8}) {
            const RenderSettings rs = settings(640, 360, depth);
            Image a, b;
            g->render(scene.camera, rs, a);
            cpu->render(scene.camera, rs, b);
            const ImageDiff d = compare_images(a, b, 1);
            std::printf("[gpu==cpu] %-45s depth %d: %.4f%% exact, %.4f%% within 1/255, max diff %d\n",
                        name.c_str(), depth, 100.0 * double(d.exact_equal) / double(d.channels),
                        100.0 * d.fraction_within(), d.max_diff);
            EXPECT_GE(d.fraction_within(), 0.9999) << name << " depth " << depth;
        }
    }
}

// The BVH4 and the BVH8 on the GPU give the CPU's BVH2 image, bit for bit, on every
// scene (Conference included where the shared data is), in every mode.
TEST(Gpu, WideBvhsEqualCpuBvh2) {
    auto g = gpu();
    ASSERT_TRUE(g);
    auto cpu = make_cpu_executor();
    for (auto& [name, scene] : scenes()) {
        const CompiledScene c2 = compile_scene(scene, AccelLayout::Bvh2);
        cpu->set_scene(c2);
        Image ref;
        cpu->render(scene.camera, settings(400, 225, 8), ref);
        for (AccelLayout wide : {AccelLayout::Bvh4, AccelLayout::Bvh8}) {
            const CompiledScene cw = compile_scene(scene, wide);
            g->set_scene(cw);
            for (DeadRayMode m : kModes) {
                Image img;
                g->render(scene.camera, settings(400, 225, 8, m), img);
                EXPECT_EQ(img.rgba, ref.rgba) << name << " " << to_string(wide) << " mode " << to_string(m);
            }
            std::printf("[%s] %-45s GPU %s == CPU BVH2 (%u nodes, BVH2 %u)\n", to_string(wide), name.c_str(),
                        to_string(wide), wide == AccelLayout::Bvh4 ? cw.bvh4_stats.nodes : cw.bvh8_stats.nodes,
                        c2.bvh_stats.nodes);
        }
    }
}

TEST(Gpu, AllModesGiveIdenticalImages) {
    auto g = gpu();
    ASSERT_TRUE(g);
    for (auto& [name, scene] : scenes()) {
        const CompiledScene cs = compile_scene(scene);
        g->set_scene(cs);
        for (int spp : {1, 3, 16}) {
            Image ref;
            g->render(scene.camera, settings(400, 225, 8, DeadRayMode::Stencil, LaunchMode::Graph, spp), ref);
            for (DeadRayMode m : kModes) {
                Image img;
                g->render(scene.camera, settings(400, 225, 8, m, LaunchMode::Graph, spp), img);
                EXPECT_EQ(img.rgba, ref.rgba) << name << " mode " << to_string(m) << " spp " << spp;
            }
        }
    }
}

// After every bounce, the liveness the GPU holds (stencil words; for flags and
// compact, the same words derived from flags / the live list) equals the CPU's.
TEST(Gpu, StencilWordsMatchCpuAfterEveryBounce) {
    auto g = gpu();
    ASSERT_TRUE(g);
    auto cpu = make_cpu_executor();
    for (auto& [name, scene] : scenes()) {
        const CompiledScene cs = compile_scene(scene);
        g->set_scene(cs);
        cpu->set_scene(cs);
        std::vector<std::vector<uint32_t>> cw;
        cpu->set_stencil_probe([&](int, int, const std::vector<uint32_t>& w) { cw.push_back(w); });
        Image img;
        cpu->render(scene.camera, settings(333, 127, 8), img);
        for (DeadRayMode m : kWavefronts) {
            std::vector<std::vector<uint32_t>> gw;
            g->set_stencil_probe([&](int, int, const std::vector<uint32_t>& w) { gw.push_back(w); });
            g->render(scene.camera, settings(333, 127, 8, m), img);
            g->set_stencil_probe(nullptr);
            // The CPU stops probing once every ray is dead; the GPU keeps launching.
            ASSERT_GE(gw.size(), cw.size()) << name;
            for (size_t b = 0; b < gw.size(); ++b) {
                if (b < cw.size()) {
                    EXPECT_EQ(gw[b], cw[b]) << name << " mode " << to_string(m) << " bounce " << b;
                } else {
                    for (uint32_t w : gw[b]) ASSERT_EQ(w, 0u) << name << " bounce " << b;
                }
            }
        }
    }
}

TEST(Gpu, StatsMatchCpu) {
    auto g = gpu();
    ASSERT_TRUE(g);
    auto cpu = make_cpu_executor();
    const Scene scene = builtin_default_scene();
    const CompiledScene cs = compile_scene(scene);
    g->set_scene(cs);
    cpu->set_scene(cs);
    Image img;
    FrameStats c, s, k, m, r, p;
    cpu->render(scene.camera, settings(320, 180, 8), img, &c);
    g->render(scene.camera, settings(320, 180, 8, DeadRayMode::Stencil), img, &s);
    g->render(scene.camera, settings(320, 180, 8, DeadRayMode::Compact), img, &k);
    g->render(scene.camera, settings(320, 180, 8, DeadRayMode::Megakernel), img, &m);
    g->render(scene.camera, settings(320, 180, 8, DeadRayMode::Regenerate), img, &r);
    g->render(scene.camera, settings(320, 180, 8, DeadRayMode::Pool), img, &p);
    for (const FrameStats* x : {&s, &k, &m, &r, &p}) {
        ASSERT_EQ(x->bounces.size(), c.bounces.size());
        EXPECT_EQ(x->rays_traced, c.rays_traced);
        EXPECT_EQ(x->bounces_run, c.bounces_run);
    }
    for (size_t b = 0; b < c.bounces.size(); ++b) {
        EXPECT_EQ(s.bounces[b].live_rays, c.bounces[b].live_rays) << b;
        EXPECT_EQ(s.bounces[b].live_warps, c.bounces[b].live_warps) << b;
        // Compaction packs the same rays into the fewest warps.
        EXPECT_EQ(k.bounces[b].live_rays, c.bounces[b].live_rays) << b;
        EXPECT_EQ(k.bounces[b].live_warps, (c.bounces[b].live_rays + 31) / 32) << b;
        // A megakernel's warp is the wavefront's tile, alive at the same bounces.
        EXPECT_EQ(m.bounces[b].live_rays, c.bounces[b].live_rays) << b;
        EXPECT_EQ(m.bounces[b].live_warps, c.bounces[b].live_warps) << b;
        EXPECT_EQ(m.bounces[b].shadow_rays, c.bounces[b].shadow_rays) << b;
        // Regeneration traces the same rays, its warps mixing bounces and pixels.
        EXPECT_EQ(r.bounces[b].live_rays, c.bounces[b].live_rays) << b;
        EXPECT_EQ(r.bounces[b].shadow_rays, c.bounces[b].shadow_rays) << b;
        // So does the pool, whose launches mix paths of every bounce.
        EXPECT_EQ(p.bounces[b].live_rays, c.bounces[b].live_rays) << b;
        EXPECT_EQ(p.bounces[b].shadow_rays, c.bounces[b].shadow_rays) << b;
    }
    EXPECT_EQ(m.warp_steps, c.warp_steps);
    EXPECT_EQ(m.lane_steps, c.lane_steps);
    EXPECT_EQ(r.lane_steps, c.lane_steps) << "every lane step traces one live ray at one bounce";
    EXPECT_GT(r.simd_efficiency(), 0.0);
    EXPECT_LE(r.simd_efficiency(), 1.0);
    std::printf("[stats] SIMD efficiency at 320x180 depth 8: stencil %.3f, megakernel %.3f, regenerate %.3f\n",
                c.simd_efficiency(), m.simd_efficiency(), r.simd_efficiency());
}

// Whitted's ray trees outlasting the bounce loop (depth 4 on glass and mirrors): the
// wavefront's tail (k_path_tail) and the path kernels count as the CPU does, row by row.
TEST(Gpu, GlassTreeStatsMatchCpu) {
    auto g = gpu();
    ASSERT_TRUE(g);
    auto cpu = make_cpu_executor();
    const Scene scene = load_scene(source_dir() + "/scenes/whitted-glass.json");
    const CompiledScene cs = compile_scene(scene);
    g->set_scene(cs);
    cpu->set_scene(cs);
    Image ref;
    FrameStats c;
    cpu->render(scene.camera, settings(321, 179, 4), ref, &c);
    ASSERT_GT(c.bounces_run, 4u) << "the trees should outlast the loop";
    for (DeadRayMode m : kModes) {
        for (LaunchMode l : {LaunchMode::Graph, LaunchMode::Stream}) {
            Image img;
            FrameStats s;
            g->render(scene.camera, settings(321, 179, 4, m, l), img, &s);
            EXPECT_EQ(img.rgba, ref.rgba) << to_string(m) << " " << to_string(l);
            EXPECT_EQ(s.rays_traced, c.rays_traced) << to_string(m) << " " << to_string(l);
            EXPECT_EQ(s.bounces_run, c.bounces_run) << to_string(m) << " " << to_string(l);
            ASSERT_EQ(s.bounces.size(), c.bounces.size()) << to_string(m);
            for (size_t b = 0; b < c.bounces.size(); ++b) {
                EXPECT_EQ(s.bounces[b].live_rays, c.bounces[b].live_rays) << to_string(m) << " row " << b;
                EXPECT_EQ(s.bounces[b].shadow_rays, c.bounces[b].shadow_rays) << to_string(m) << " row " << b;
                if (m == DeadRayMode::Stencil || m == DeadRayMode::Megakernel)
                    EXPECT_EQ(s.bounces[b].live_warps, c.bounces[b].live_warps) << to_string(m) << " row " << b;
            }
        }
    }
    std::printf("[glass] whitted-glass.json depth 4: %llu steps run (loop of 4 + tail), every mode == CPU\n",
                (unsigned long long)c.bounces_run);
}

// --kill (render/kill.h): every pattern, both integrators, every mode and launch kind,
// spp 1, 3 and 16 at an odd size: the CPU's image and live rays per bounce.
TEST(Gpu, KillPatternsEqualCpu) {
    auto g = gpu();
    ASSERT_TRUE(g);
    auto cpu = make_cpu_executor();
    struct Case {
        const char* file;
        Integrator integrator;
    };
    int renders = 0;
    for (const Case& c : {Case{"scenes/hall-of-mirrors.json", Integrator::Whitted}, Case{"scenes/glass.json", Integrator::Path},
                          Case{"scenes/foliage.json", Integrator::Whitted}}) {
        const Scene scene = load_scene(source_dir() + "/" + c.file);
        for (AccelLayout layout : {AccelLayout::Bvh2, AccelLayout::Bvh4, AccelLayout::Bvh8}) {
            const CompiledScene cs = compile_scene(scene, layout);
            g->set_scene(cs);
            cpu->set_scene(cs);
            for (const char* pattern : {"ray:0.6", "warp:0.6", "block2:0.7", "ray:pbrt"}) {
                for (int spp : {1, 3, 16}) {
                    RenderSettings rs = settings(203, 117, 8, DeadRayMode::Stencil, LaunchMode::Graph, spp);
                    rs.integrator = c.integrator;
                    ASSERT_EQ(parse_kill(pattern, rs.kill), "");
                    Image ref;
                    FrameStats st;
                    cpu->render(scene.camera, rs, ref, &st);
                    for (DeadRayMode m : kModes) {
                        for (LaunchMode l : {LaunchMode::Graph, LaunchMode::Stream}) {
                            RenderSettings r = rs;
                            r.mode = m;
                            r.launch = l;
                            Image img;
                            FrameStats gs;
                            g->render(scene.camera, r, img, &gs);
                            ++renders;
                            EXPECT_EQ(img.rgba, ref.rgba) << c.file << " " << to_string(layout) << " " << pattern << " spp " << spp << " "
                                                          << to_string(m) << " " << to_string(l);
                            ASSERT_EQ(gs.bounces.size(), st.bounces.size()) << c.file << " " << pattern;
                            for (size_t b = 0; b < st.bounces.size(); ++b)
                                EXPECT_EQ(gs.bounces[b].live_rays, st.bounces[b].live_rays)
                                    << c.file << " " << pattern << " " << to_string(m) << " bounce " << b;
                        }
                    }
                }
            }
        }
    }
    // A frame that differs from the last only by its kill is captured again (the kill is
    // in the kernels' parameters): each pattern after another, graph launches, one mode.
    {
        const Scene scene = load_scene(source_dir() + "/scenes/hall-of-mirrors.json");
        const CompiledScene cs = compile_scene(scene);
        g->set_scene(cs);
        cpu->set_scene(cs);
        for (const char* pattern : {"ray:0.6", "warp:0.6", "none", "block2:0.7"}) {
            RenderSettings rs = settings(203, 117, 8, DeadRayMode::Megakernel, LaunchMode::Graph, 1);
            ASSERT_EQ(parse_kill(pattern, rs.kill), "");
            Image ref, img;
            cpu->render(scene.camera, rs, ref, nullptr);
            g->render(scene.camera, rs, img, nullptr);
            ++renders;
            EXPECT_EQ(img.rgba, ref.rgba) << pattern << " right after another pattern";
        }
    }
    std::printf("[kill] %d GPU renders (hall-of-mirrors whitted, glass.json path, foliage.json whitted; BVH2/4/8; ray/warp/block2/pbrt; "
                "spp 1/3/16; every mode x graph/stream) == CPU, live rays per bounce too\n", renders);
}

// The pool with fewer paths than pixels (SRT_POOL_PATHS, read when an executor is made):
// pixels hand their places on as their samples end (k_pool_regenerate), pad slots are
// skipped, ray trees run to their ends in the loop; the image and the live rays per bounce
// are still the CPU's, bit for bit.
TEST(Gpu, SmallPoolEqualsCpu) {
    auto cpu = make_cpu_executor();
    int renders = 0;
    for (const char* paths : {"32", "1000", "4096"}) {
        setenv("SRT_POOL_PATHS", paths, 1);
        auto g = gpu();
        unsetenv("SRT_POOL_PATHS");
        ASSERT_TRUE(g);
        for (const char* file : {"scenes/hall-of-mirrors.json", "scenes/whitted-glass.json", "scenes/glass.json"}) {
            const Scene scene = load_scene(source_dir() + "/" + file);
            const bool path = std::string(file) == "scenes/glass.json";
            for (AccelLayout layout : {AccelLayout::Bvh2, AccelLayout::Bvh8}) {
                const CompiledScene cs = compile_scene(scene, layout);
                g->set_scene(cs);
                cpu->set_scene(cs);
                for (int spp : {1, 3}) {
                    RenderSettings rs = settings(97, 61, 6, DeadRayMode::Stencil, LaunchMode::Graph, spp);
                    rs.integrator = path ? Integrator::Path : Integrator::Whitted;
                    Image ref;
                    FrameStats st;
                    cpu->render(scene.camera, rs, ref, &st);
                    for (LaunchMode l : {LaunchMode::Graph, LaunchMode::Stream}) {
                        RenderSettings r = rs;
                        r.mode = DeadRayMode::Pool;
                        r.launch = l;
                        Image img;
                        FrameStats gs;
                        g->render(scene.camera, r, img, &gs);
                        ++renders;
                        EXPECT_EQ(img.rgba, ref.rgba) << "pool of " << paths << " " << file << " "
                                                      << to_string(layout) << " spp " << spp << " " << to_string(l);
                        ASSERT_EQ(gs.bounces.size(), st.bounces.size()) << paths << " " << file;
                        for (size_t b = 0; b < st.bounces.size(); ++b)
                            EXPECT_EQ(gs.bounces[b].live_rays, st.bounces[b].live_rays)
                                << "pool of " << paths << " " << file << " bounce " << b;
                        EXPECT_EQ(gs.bounces_run, st.bounces_run) << "pool of " << paths << " " << file;
                    }
                }
            }
        }
    }
    std::printf("[pool] %d GPU renders with pools of 32, 1000 and 4096 paths (hall-of-mirrors, whitted-glass, "
                "glass.json path; BVH2/8; spp 1/3; graph/stream) == CPU\n", renders);
}

TEST(Gpu, OddSizes) {
    auto g = gpu();
    ASSERT_TRUE(g);
    auto cpu = make_cpu_executor();
    const Scene scene = builtin_default_scene();
    const CompiledScene cs = compile_scene(scene);
    g->set_scene(cs);
    cpu->set_scene(cs);
    const std::pair<int, int> sizes[] = {{1, 1}, {31, 1}, {961, 1}, {33, 17}, {1920, 1080}};
    for (auto [w, h] : sizes) {
        Image ref;
        cpu->render(scene.camera, settings(w, h, 4), ref);
        for (DeadRayMode m : kModes) {
            for (LaunchMode l : {LaunchMode::Graph, LaunchMode::Stream}) {
                Image img;
                g->render(scene.camera, settings(w, h, 4, m, l), img);
                const ImageDiff d = compare_images(ref, img, 0);
                EXPECT_EQ(d.exact_equal, d.channels) << w << "x" << h << " " << to_string(m) << " " << to_string(l);
                EXPECT_EQ(img.width, w);
                EXPECT_EQ(img.height, h);
            }
        }
    }
}

// A graph replay and stream launches give the same image, bit for bit, in every mode,
// with one and several samples.
TEST(Gpu, GraphAndStreamGiveIdenticalImages) {
    auto g = gpu();
    ASSERT_TRUE(g);
    for (auto& [name, scene] : scenes()) {
        const CompiledScene cs = compile_scene(scene);
        g->set_scene(cs);
        for (DeadRayMode m : kModes) {
            for (int spp : {1, 3}) {
                Image a, b;
                g->render(scene.camera, settings(257, 131, 8, m, LaunchMode::Stream, spp), a);
                g->render(scene.camera, settings(257, 131, 8, m, LaunchMode::Graph, spp), b);
                const ImageDiff d = compare_images(a, b, 0);
                EXPECT_EQ(d.exact_equal, d.channels) << name << " " << to_string(m) << " spp " << spp;
            }
        }
    }
}

// Progressive accumulation on the device: frames of one sample each (sample_begin = k)
// end in exactly the CPU's one-frame image with spp = N, in every mode and launch kind,
// replaying one graph (the sample index and weights come from FrameControl). The linear
// radiance read back equals the CPU's too, and exposure changes the 8-bit output only.
TEST(Gpu, AccumulationEqualsOneFrameOfNSamples) {
    auto g = gpu();
    ASSERT_TRUE(g);
    auto cpu = make_cpu_executor();
    const Scene scene = builtin_default_scene();
    const CompiledScene cs = compile_scene(scene);
    g->set_scene(cs);
    cpu->set_scene(cs);
    const int n = 6;
    Image ref;
    cpu->render(scene.camera, settings(333, 211, 8, DeadRayMode::Stencil, LaunchMode::Graph, n), ref);
    LinearImage ref_lin;
    cpu->read_linear(ref_lin);
    for (LaunchMode launch : {LaunchMode::Graph, LaunchMode::Stream})
        for (DeadRayMode mode : kModes) {
            Image acc;
            const int before = g->graph_captures();
            for (int k = 0; k < n; ++k) {
                RenderSettings rs = settings(333, 211, 8, mode, launch, 1);
                rs.sample_begin = k;
                g->render(scene.camera, rs, acc);
            }
            if (launch == LaunchMode::Graph) EXPECT_LE(g->graph_captures(), before + 1) << "one capture for all frames";
            EXPECT_EQ(acc.rgba, ref.rgba) << to_string(mode) << (launch == LaunchMode::Graph ? " graph" : " stream");
            LinearImage lin;
            g->read_linear(lin);
            EXPECT_EQ(lin.rgb, ref_lin.rgb) << to_string(mode);
        }
    RenderSettings bright = settings(333, 211, 8, DeadRayMode::Stencil, LaunchMode::Graph, n);
    bright.exposure = 1.5f;
    Image a, b;
    g->render(scene.camera, bright, a);
    cpu->render(scene.camera, bright, b);
    EXPECT_EQ(a.rgba, b.rgba);
    EXPECT_NE(a.rgba, ref.rgba);
    std::printf("[gpu accumulate] %d frames of 1 sample == 1 frame of %d: checked in %zu modes x 2 launches\n", n, n,
                std::size(kModes));
}

// Split-frame rendering over every GPU of the host (cuda/multi_gpu_executor.h, bands from
// render/split_executor.h): one CUDA executor per device, each on its own thread with its
// device current, gives exactly the CPU's image, linear radiance and ray counts, in every
// mode and launch kind, over frames that move the bands; and an accumulated sequence too.
// Skipped with one GPU.
std::vector<int> all_devices() {
    std::vector<int> d(static_cast<size_t>(cuda_device_count()));
    for (size_t i = 0; i < d.size(); ++i) d[i] = int(i);
    return d;
}

TEST(Gpu, SplitOverDevicesEqualsOneDevice) {
    const int n = cuda_device_count();
    if (n < 2) GTEST_SKIP() << n << " CUDA device(s): split frames need 2";
    std::string why;
    auto multi = make_multi_gpu_executor(all_devices(), why);
    ASSERT_TRUE(multi) << why;
    SplitExecutor& split = *multi->split();
    auto cpu = make_cpu_executor();
    for (auto& [name, scene] : scenes()) {
        const CompiledScene cs = compile_scene(scene);
        multi->set_scene(cs);
        cpu->set_scene(cs);
        for (LaunchMode launch : {LaunchMode::Graph, LaunchMode::Stream})
            for (DeadRayMode mode : kModes) {
                RenderSettings rs = settings(517, 301, 8, mode, launch);
                rs.stats = true;
                Image ref, img;
                FrameStats sr, si;
                cpu->render(scene.camera, rs, ref, &sr);
                for (int frame = 0; frame < 2; ++frame) multi->render(scene.camera, rs, img, &si);
                EXPECT_EQ(img.rgba, ref.rgba) << name << " " << to_string(mode);
                EXPECT_EQ(si.rays_traced, sr.rays_traced) << name << " " << to_string(mode);
                LinearImage a, b;
                multi->read_linear(a);
                cpu->read_linear(b);
                EXPECT_EQ(a.rgb, b.rgb) << name;
            }
        std::printf("[split] %-45s %d devices == CPU (bands: ", name.c_str(), n);
        for (const auto& band : split.bands()) std::printf("%d ", band.rows);
        std::printf("rows)\n");
    }
    // An accumulation over frames of one sample each, split: the CPU's spp-4 frame.
    const Scene scene = builtin_default_scene();
    const CompiledScene cs = compile_scene(scene);
    multi->set_scene(cs);
    cpu->set_scene(cs);
    Image ref, acc;
    cpu->render(scene.camera, settings(400, 250, 6, DeadRayMode::Stencil, LaunchMode::Graph, 4), ref);
    for (int k = 0; k < 4; ++k) {
        RenderSettings rs = settings(400, 250, 6);
        rs.sample_begin = k;
        multi->render(scene.camera, rs, acc);
    }
    EXPECT_EQ(acc.rgba, ref.rgba);
}

// The device gather (the viewer's path): render_device into one buffer on a GPU puts
// every band there, by peer copies and through pinned host memory alike, into a buffer
// on the first device and on the last; the buffer equals the CPU's image. Odd sizes,
// sizes with fewer tile rows than devices, and frames that move the bands.
TEST(Gpu, SplitGathersOnTheDevice) {
    const int n = cuda_device_count();
    if (n < 2) GTEST_SKIP() << n << " CUDA device(s): split frames need 2";
    const Scene scene = load_scene(source_dir() + "/scenes/big-sphere.json");
    const CompiledScene cs = compile_scene(scene);
    auto cpu = make_cpu_executor();
    cpu->set_scene(cs);
    int can = 0;
    cudaDeviceCanAccessPeer(&can, 0, n - 1);
    std::vector<GatherPath> paths{GatherPath::Host, GatherPath::Auto};
    if (can) paths.push_back(GatherPath::Peer);
    for (GatherPath path : paths) {
        std::string why;
        auto multi = make_multi_gpu_executor(all_devices(), why, path);
        ASSERT_TRUE(multi) << why;
        multi->set_scene(cs);
        for (int dst_device : {0, n - 1})
            for (auto [w, h] : {std::pair{961, 541}, std::pair{33, 17}, std::pair{64, 4}, std::pair{1, 1}}) {
                RenderSettings rs = settings(w, h, 8);
                Image ref;
                cpu->render(scene.camera, rs, ref);
                ASSERT_EQ(cudaSetDevice(dst_device), cudaSuccess);
                uint32_t* dst = nullptr;
                const size_t bytes = size_t(w) * size_t(h) * 4;
                ASSERT_EQ(cudaMalloc(&dst, bytes), cudaSuccess);
                ASSERT_EQ(cudaMemset(dst, 0xAB, bytes), cudaSuccess);
                for (int frame = 0; frame < 3; ++frame) {  // the bands move after the first
                    multi->render_device(scene.camera, rs, dst, nullptr);
                    std::vector<uint8_t> got(bytes);
                    ASSERT_EQ(cudaSetDevice(dst_device), cudaSuccess);
                    ASSERT_EQ(cudaMemcpy(got.data(), dst, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
                    ASSERT_EQ(got, ref.rgba) << to_string(path) << " onto device " << dst_device << ", " << w << "x"
                                             << h << ", frame " << frame;
                }
                cudaFree(dst);
                // timed_frame gathers onto the first device; the time covers it.
                EXPECT_GT(multi->timed_frame(scene.camera, rs, nullptr), 0.0);
            }
        std::printf("[split gather] %-11s onto device 0 and %d: == CPU at 961x541, 33x17, 64x4, 1x1 (bands:", to_string(path),
                    n - 1);
        for (const auto& b : multi->split()->bands()) std::printf(" %d rows %.3f ms gather %.3f ms;", b.rows, b.ms, b.gather_ms);
        std::printf(")\n");
    }
}

// A new camera replays the captured graph (no new capture) and gives the image of a
// fresh render from that camera; a new size, depth or mode captures again.
TEST(Gpu, CameraChangeReplaysTheGraph) {
    auto g = gpu();
    ASSERT_TRUE(g);
    const Scene scene = builtin_default_scene();
    const CompiledScene cs = compile_scene(scene);
    g->set_scene(cs);
    Camera moved = scene.camera;
    moved.from = moved.from + Point3(1.5, 0.25, -2.0);
    const RenderSettings rs = settings(320, 200, 8);
    Image first, second, again;
    g->render(scene.camera, rs, first);
    const int captures = g->graph_captures();
    g->render(moved, rs, second);
    g->render(scene.camera, rs, again);
    EXPECT_EQ(g->graph_captures(), captures) << "a camera change must not capture again";
    EXPECT_EQ(compare_images(first, again, 0).over_tolerance, 0u);

    auto fresh = gpu();
    fresh->set_scene(cs);
    Image ref;
    fresh->render(moved, settings(320, 200, 8, DeadRayMode::Stencil, LaunchMode::Stream), ref);
    const ImageDiff d = compare_images(ref, second, 0);
    EXPECT_EQ(d.exact_equal, d.channels);
    EXPECT_GT(compare_images(first, second, 0).over_tolerance, 0u) << "the camera did move";

    for (const RenderSettings& other : {settings(321, 200, 8), settings(320, 200, 5),
                                         settings(320, 200, 8, DeadRayMode::Compact)}) {
        const int before = g->graph_captures();
        g->render(scene.camera, other, again);
        EXPECT_EQ(g->graph_captures(), before + 1);
    }
}

// The bounce loop stops on the device after the same bounce as the CPU executor's
// host loop (bounces_run), in every mode, graph or stream; and the counts agree.
TEST(Gpu, EarlyExitStopsAtTheCpusBounce) {
    auto g = gpu();
    ASSERT_TRUE(g);
    auto cpu = make_cpu_executor();
    bool some_early = false, some_tree_tail = false;
    for (auto& [name, scene] : scenes()) {
        const CompiledScene cs = compile_scene(scene);
        g->set_scene(cs);
        cpu->set_scene(cs);
        for (int depth : {1, 3, 12}) {
            for (int spp : {1, 2}) {
                Image img;
                FrameStats c;
                cpu->render(scene.camera, settings(199, 97, depth, DeadRayMode::Stencil, LaunchMode::Graph, spp), img,
                            &c);
                ASSERT_GE(c.bounces_run, uint64_t(spp));
                // A ray tree may outlast the loop's depth steps (its tail's steps count too).
                if (!cs.view().dielectrics) ASSERT_LE(c.bounces_run, uint64_t(depth * spp));
                if (c.bounces_run < uint64_t(depth * spp)) some_early = true;
                if (c.bounces_run > uint64_t(depth * spp)) some_tree_tail = true;
                for (DeadRayMode m : kModes) {
                    for (LaunchMode l : {LaunchMode::Graph, LaunchMode::Stream}) {
                        FrameStats s;
                        g->render(scene.camera, settings(199, 97, depth, m, l, spp), img, &s);
                        EXPECT_EQ(s.bounces_run, c.bounces_run)
                            << name << " depth " << depth << " spp " << spp << " " << to_string(m) << " "
                            << to_string(l);
                        EXPECT_EQ(s.rays_traced, c.rays_traced) << name << " " << to_string(m) << " " << to_string(l);
                        ASSERT_EQ(s.bounces.size(), c.bounces.size()) << name << " " << to_string(m);
                        for (size_t b = 0; b < c.bounces.size(); ++b)
                            EXPECT_EQ(s.bounces[b].live_rays, c.bounces[b].live_rays) << name << " bounce " << b;
                    }
                }
            }
        }
    }
    EXPECT_TRUE(some_early) << "no scene ended before its depth: the early exit was not exercised";
    EXPECT_TRUE(some_tree_tail) << "no ray tree outlasted the bounce loop: the trees' tail was not exercised";
    EXPECT_TRUE(g->sparse_bounces()) << "the stencil graphs fell back to dense bounces only";
}

// The stencil's tail: once a bounce starts with no more live words than the threshold,
// one launch follows the remaining paths in registers (k_path_tail). Whatever
// the threshold (0: never; everything after the first bounce), graph and stream frames
// equal the CPU's, counts included.
TEST(Gpu, PathTailAtAnyThresholdEqualsCpu) {
    auto cpu = make_cpu_executor();
    for (const char* words : {"0", "1", "128", "4096", "100000000"}) {
        setenv("SRT_TAIL_WORDS", words, 1);
        auto g = gpu();
        ASSERT_TRUE(g);
        for (auto& [name, scene] : scenes()) {
            const CompiledScene cs = compile_scene(scene);
            g->set_scene(cs);
            cpu->set_scene(cs);
            for (int spp : {1, 3}) {
                Image ref;
                FrameStats c;
                cpu->render(scene.camera, settings(301, 177, 8, DeadRayMode::Stencil, LaunchMode::Graph, spp), ref, &c);
                for (LaunchMode l : {LaunchMode::Graph, LaunchMode::Stream}) {
                    Image img;
                    FrameStats s;
                    g->render(scene.camera, settings(301, 177, 8, DeadRayMode::Stencil, l, spp), img, &s);
                    EXPECT_EQ(img.rgba, ref.rgba) << name << " tail words " << words << " " << to_string(l);
                    EXPECT_EQ(s.bounces_run, c.bounces_run) << name << " tail words " << words;
                    EXPECT_EQ(s.rays_traced, c.rays_traced) << name << " tail words " << words;
                }
            }
        }
    }
    unsetenv("SRT_TAIL_WORDS");
    std::printf("[path tail] thresholds 0, 1, 128, 4096, 1e8 words: graph and stream == CPU\n");
}

TEST(Gpu, OutOfMemoryIsReported) {
    auto g = gpu();
    ASSERT_TRUE(g);
    const Scene scene = builtin_default_scene();
    const CompiledScene cs = compile_scene(scene);
    g->set_scene(cs);
    // 16384 x 16384 x 8 spp is fine, but a frame this size needs ~24 GiB of ray
    // buffers per 2^28 rays; ask for far more than any card holds via many pixels.
    RenderSettings rs = settings(16384, 16384, 1);
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    (void)total_b;
    const double need = 16384.0 * 16384.0 * 76.0;
    if (need < double(free_b)) GTEST_SKIP() << "device has room for 16384^2 rays";
    Image img;
    try {
        g->render(scene.camera, rs, img);
        FAIL() << "expected an out-of-memory error";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("out of device memory"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("MiB"), std::string::npos) << e.what();
    }
}

int main(int argc, char** argv) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        std::printf("no CUDA device: GPU tests skipped\n");
        return 77;
    }
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
