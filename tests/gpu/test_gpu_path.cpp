// GPU tests of the path integrator: every mode, both launch kinds and every BVH layout on
// the GPU against the CPU executor and the per-pixel reference, bit for bit, at odd sizes
// and 1, 3 and 16 samples; the per-bounce counts against the CPU's; and the progressive
// sum. Label `gpu`, in srt_gpu_tests (exits 77 without a device).
#include "cuda/cuda_executor.h"
#include "render/executor.h"
#include "render/kill.h"
#include "scene/load.h"
#include "scene/scene.h"
#include "support/bench_scenes.h"
#include "support/settings.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <filesystem>

using namespace srt;

namespace {

std::string env_or(const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return v ? v : fallback;
}

std::unique_ptr<CudaExecutor> path_gpu() {
    std::string why;
    auto ex = make_cuda_executor(why);
    if (!ex) ADD_FAILURE() << why;
    return ex;
}

RenderSettings path_settings(int w, int h, int depth, DeadRayMode mode, LaunchMode launch, int spp) {
    return test::Frame(w, h, depth, mode).launch(launch).spp(spp).path();
}

// Scenes that take each path kernel variant: plain triangles and spheres, glass with
// absorption and a rough conductor, textures (bilinear and from mip chains), alpha
// masks, spheres in double, mirrors, a thin lens, an environment map, glTF's BRDF with
// maps of metallic, roughness and normals (bilinear and from mip chains) and rough glass
// lit through it, normal-mapped meshes; the Cornell boxes, Conference and WaterBottle
// where the shared data is.
std::vector<std::pair<std::string, Scene>> path_scenes() {
    std::vector<std::pair<std::string, Scene>> v;
    const std::string src = env_or("SRT_SOURCE_DIR", SRT_SOURCE_DIR);
    v.emplace_back("default", builtin_default_scene());
    for (const char* f : {"scenes/glass.json", "scenes/textured.json", "scenes/foliage.json", "scenes/big-sphere.json",
                          "scenes/cornell-mirror.json", "scenes/depth-of-field.json", "scenes/environment.json",
                          "scenes/materials.json"})
        v.emplace_back(f, load_scene(src + "/" + f));
    // The environment map as a light among others (render/environment.h): the glass box's
    // area light and the map's sun picked by power, seen through the box's open side.
    Scene lit = load_scene(src + "/scenes/glass.json");
    lit.environment = environment_from_file(src + "/assets/env/sky.hdr", 0.5f, -75.0f);
    v.emplace_back("glass.json under the sky", std::move(lit));
    Scene tri = load_scene(src + "/scenes/textured.json");
    tri.texture_filter = TextureFilter::Trilinear;
    v.emplace_back("textured.json, trilinear", std::move(tri));
    // The maps of metallic and roughness from their mip chains (averaged as data).
    Scene maps = load_scene(src + "/scenes/materials.json");
    maps.texture_filter = TextureFilter::Trilinear;
    v.emplace_back("materials.json, trilinear", std::move(maps));
    // Instances (accel/traverse_instances.h): a mesh placed six times, turned, scaled and
    // mirrored, under the sky.
    Scene placed = load_scene(src + "/scenes/instances.json");
    placed.environment = environment_from_file(src + "/assets/env/sky.hdr", 1.0f, 30.0f);
    v.emplace_back("instances.json under the sky", std::move(placed));
    // A normal-mapped mesh (MikkTSpace's tangents) and one with the file's, mirrored.
    for (const char* f : {"normal-quad.gltf", "normal-quad-tangents.gltf"}) {
        Scene quad = load_scene(src + "/tests/data/textures/" + f);
        quad.camera.from = Point3(0.4, -0.3, 1.3);  // askew, so the bend (render/surface.h) has work
        v.emplace_back(f, std::move(quad));
    }
    // Textures laid by their own KHR_texture_transform: a base colour, a normal map and an
    // emission texture, under the sky; and materials.json with each texture turned and
    // scaled its own way, from mip levels whose footprint the scale widens.
    Scene laid = load_scene(src + "/tests/data/textures/maps-quad.gltf");
    laid.camera.from = Point3(0.4, -0.3, 1.3);
    laid.environment = environment_from_file(src + "/assets/env/sky.hdr", 1.0f, 0.0f);
    v.emplace_back("maps-quad.gltf under the sky", std::move(laid));
    Scene turned = load_scene(src + "/scenes/materials.json");
    turned.texture_filter = TextureFilter::Trilinear;
    for (size_t i = 0; i < turned.textures.size(); ++i)
        turned.textures[i].transform =
            UvTransform::of(glm::dvec2(0.1 * double(i), -0.2), 0.3 * double(i) + 0.2, glm::dvec2(1.5, 0.8));
    v.emplace_back("materials.json, transformed", std::move(turned));
    const std::string data = env_or("SRT_SHARED_DATA", SRT_SHARED_DATA);
    for (const char* f : {"CornellBox-Original.obj", "CornellBox-Sphere.obj", "CornellBox-Water.obj"}) {
        const std::string p = data + "/scenes/cornell-box/" + f;
        if (std::filesystem::exists(p)) v.emplace_back(f, load_scene(p));
    }
    const std::string conf = data + "/scenes/conference/conference.obj";
    if (std::filesystem::exists(conf)) v.emplace_back("conference", test::conference_benchmark_view(conf));
    const std::string bottle = data + "/gltf/WaterBottle/WaterBottle.gltf";
    if (std::filesystem::exists(bottle)) {
        Scene s = load_scene(bottle);
        s.environment = environment_from_file(src + "/assets/env/sky.hdr", 1.0f, 0.0f);
        v.emplace_back("WaterBottle", std::move(s));
    }
    return v;
}

const DeadRayMode kPathModes[] = {DeadRayMode::Stencil, DeadRayMode::Flags, DeadRayMode::Compact,
                                  DeadRayMode::Megakernel, DeadRayMode::Regenerate, DeadRayMode::Pool};

}  // namespace

// Every mode and launch kind on the GPU == the CPU executor, at an odd size, 1, 3 and 16
// samples, under every sampler (render/sampler.h; zsobol's layout spans the whole frame,
// so the odd sizes try its Morton codes' edges); and the CPU == the per-pixel reference
// at one sample.
TEST(GpuPath, EveryModeEqualsTheCpu) {
    auto g = path_gpu();
    ASSERT_TRUE(g);
    auto cpu = make_cpu_executor();
    for (const auto& [name, scene] : path_scenes()) {
        const CompiledScene cs = compile_scene(scene);
        g->set_scene(cs);
        cpu->set_scene(cs);
        int checked = 0;
        for (const SamplerName& sampler : kSamplerNames)
            for (int spp : {1, 3, 16}) {
                const int w = spp == 16 ? 97 : 203, h = spp == 16 ? 61 : 117;
                const auto settings = [&](DeadRayMode m, LaunchMode l, int n) {
                    RenderSettings rs = path_settings(w, h, 8, m, l, n);
                    rs.sampler = sampler.kind;
                    return rs;
                };
                const std::string what = name + " " + sampler.name + " spp " + std::to_string(spp);
                Image ref;
                cpu->render(scene.camera, settings(DeadRayMode::Stencil, LaunchMode::Graph, spp), ref);
                LinearImage ref_lin;
                cpu->read_linear(ref_lin);
                if (spp == 1) {
                    Image per_pixel;
                    render_reference(cs, scene.camera, settings(DeadRayMode::Stencil, LaunchMode::Graph, 1), per_pixel);
                    EXPECT_EQ(per_pixel.rgba, ref.rgba) << what << ": CPU wavefront against the reference";
                }
                for (DeadRayMode m : kPathModes)
                    for (LaunchMode l : {LaunchMode::Graph, LaunchMode::Stream}) {
                        Image img;
                        g->render(scene.camera, settings(m, l, spp), img);
                        EXPECT_EQ(img.rgba, ref.rgba) << what << " " << to_string(m) << " " << to_string(l);
                        LinearImage lin;
                        g->read_linear(lin);
                        EXPECT_EQ(lin.rgb, ref_lin.rgb) << what << " " << to_string(m) << " " << to_string(l);
                        ++checked;
                    }
            }
        std::printf("[gpu path==cpu] %-28s %d renders (3 samplers x spp 1, 3, 16 x %zu modes x 2 launches) bit for bit\n",
                    name.c_str(), checked, std::size(kPathModes));
    }
}

// The stencil's packed bounces (cuda/kernels.cuh: the live lanes listed from the words,
// then compaction's kernels) at any threshold of live lanes per live word (SRT_PACK_LANES,
// read when an executor is made; 0: never, 33: after the first bounce): with the path
// integrator and under --kill, graph and stream frames equal the CPU's image and live and
// shadow rays per bounce, at 1 and 3 samples, on the BVH2 and BVH8; a packed bounce's
// warps are the fewest that hold its rays, and the extreme thresholds pack never and
// somewhere.
TEST(GpuPath, PackedStencilAtAnyThresholdEqualsCpu) {
    auto cpu = make_cpu_executor();
    const std::string src = env_or("SRT_SOURCE_DIR", SRT_SOURCE_DIR);
    int renders = 0, packed_bounces = 0;
    for (const char* lanes : {"0", "8", "24", "33"}) {
        setenv("SRT_PACK_LANES", lanes, 1);
        auto g = path_gpu();
        unsetenv("SRT_PACK_LANES");
        ASSERT_TRUE(g);
        int packed_here = 0;
        for (const char* file : {"scenes/glass.json", "scenes/hall-of-mirrors.json"}) {
            const Scene scene = load_scene(src + "/" + file);
            const bool path = std::string(file) == "scenes/glass.json";
            for (AccelLayout layout : {AccelLayout::Bvh2, AccelLayout::Bvh8}) {
                const CompiledScene cs = compile_scene(scene, layout);
                g->set_scene(cs);
                cpu->set_scene(cs);
                for (const char* kill : {"", "ray:0.7"}) {
                    if (!path && !*kill) continue;  // Whitted without a kill does not pack
                    for (int spp : {1, 3}) {
                        RenderSettings rs = path_settings(131, 75, 8, DeadRayMode::Stencil, LaunchMode::Graph, spp);
                        if (!path) rs.integrator = Integrator::Whitted;
                        if (*kill) ASSERT_EQ(parse_kill(kill, rs.kill), "");
                        Image ref;
                        FrameStats c;
                        cpu->render(scene.camera, rs, ref, &c);
                        for (LaunchMode l : {LaunchMode::Graph, LaunchMode::Stream}) {
                            RenderSettings r = rs;
                            r.launch = l;
                            Image img;
                            FrameStats s;
                            g->render(scene.camera, r, img, &s);
                            ++renders;
                            const std::string where = std::string(file) + " lanes " + lanes + " kill '" + kill +
                                                      "' " + to_string(layout) + " " + to_string(l) + " spp " +
                                                      std::to_string(spp);
                            EXPECT_EQ(img.rgba, ref.rgba) << where;
                            EXPECT_EQ(s.rays_traced, c.rays_traced) << where;
                            EXPECT_EQ(s.bounces_run, c.bounces_run) << where;
                            ASSERT_EQ(s.bounces.size(), c.bounces.size()) << where;
                            for (size_t b = 0; b < c.bounces.size(); ++b) {
                                EXPECT_EQ(s.bounces[b].live_rays, c.bounces[b].live_rays) << where << " bounce " << b;
                                EXPECT_EQ(s.bounces[b].shadow_rays, c.bounces[b].shadow_rays) << where << " bounce " << b;
                                const uint64_t fewest = (c.bounces[b].live_rays + 31) / 32;
                                // At one sample a packed bounce runs the fewest warps (at 3 the
                                // rows sum three samples' lists).
                                if (spp == 1 && s.bounces[b].live_warps != c.bounces[b].live_warps) {
                                    EXPECT_EQ(s.bounces[b].live_warps, fewest) << where << " bounce " << b;
                                    ++packed_here;
                                }
                            }
                        }
                    }
                }
            }
        }
        if (std::string(lanes) == "0") EXPECT_EQ(packed_here, 0) << "SRT_PACK_LANES=0 packed a bounce";
        if (std::string(lanes) == "33") EXPECT_GT(packed_here, 0) << "SRT_PACK_LANES=33 packed no bounce";
        packed_bounces += packed_here;
    }
    std::printf("[packed stencil] %d GPU renders (glass.json path, hall-of-mirrors under ray:0.7; pack below 0, 8, 24, "
                "33 lanes per word; BVH2/8; spp 1/3; graph/stream) == CPU; %d bounces packed at 1 spp\n",
                renders, packed_bounces);
}

// The wide BVHs on the GPU give the CPU's BVH2 image.
TEST(GpuPath, WideBvhsEqualCpuBvh2) {
    auto g = path_gpu();
    ASSERT_TRUE(g);
    auto cpu = make_cpu_executor();
    for (const auto& [name, scene] : path_scenes()) {
        const CompiledScene c2 = compile_scene(scene, AccelLayout::Bvh2);
        cpu->set_scene(c2);
        Image ref;
        cpu->render(scene.camera, path_settings(160, 90, 8, DeadRayMode::Stencil, LaunchMode::Graph, 2), ref);
        for (AccelLayout wide : {AccelLayout::Bvh4, AccelLayout::Bvh8}) {
            const CompiledScene cw = compile_scene(scene, wide);
            g->set_scene(cw);
            for (DeadRayMode m : kPathModes) {
                Image img;
                g->render(scene.camera, path_settings(160, 90, 8, m, LaunchMode::Graph, 2), img);
                EXPECT_EQ(img.rgba, ref.rgba) << name << " " << to_string(wide) << " " << to_string(m);
            }
        }
    }
}

// Live rays, live warps and shadow rays per bounce, the rays traced and the bounces run
// equal the CPU's in every mode (compaction's warps, and the stencil's in a packed bounce:
// the fewest that hold the rays).
TEST(GpuPath, StatsMatchCpu) {
    auto g = path_gpu();
    ASSERT_TRUE(g);
    auto cpu = make_cpu_executor();
    const Scene scene = load_scene(env_or("SRT_SOURCE_DIR", SRT_SOURCE_DIR) + std::string("/scenes/glass.json"));
    const CompiledScene cs = compile_scene(scene);
    g->set_scene(cs);
    cpu->set_scene(cs);
    Image img;
    FrameStats c;
    cpu->render(scene.camera, path_settings(320, 180, 8, DeadRayMode::Stencil, LaunchMode::Stream, 1), img, &c);
    for (DeadRayMode m : kPathModes) {
        FrameStats s;
        g->render(scene.camera, path_settings(320, 180, 8, m, LaunchMode::Stream, 1), img, &s);
        ASSERT_EQ(s.bounces.size(), c.bounces.size()) << to_string(m);
        EXPECT_EQ(s.rays_traced, c.rays_traced) << to_string(m);
        EXPECT_EQ(s.bounces_run, c.bounces_run) << to_string(m);
        for (size_t b = 0; b < c.bounces.size(); ++b) {
            EXPECT_EQ(s.bounces[b].live_rays, c.bounces[b].live_rays) << to_string(m) << " bounce " << b;
            EXPECT_EQ(s.bounces[b].shadow_rays, c.bounces[b].shadow_rays) << to_string(m) << " bounce " << b;
            const uint64_t packed = (c.bounces[b].live_rays + 31) / 32;  // the fewest warps that hold them
            if (m == DeadRayMode::Compact)
                EXPECT_EQ(s.bounces[b].live_warps, packed) << "bounce " << b;
            else if (m == DeadRayMode::Stencil)  // a dense bounce's words, or a packed bounce's lanes
                EXPECT_TRUE(s.bounces[b].live_warps == c.bounces[b].live_warps || s.bounces[b].live_warps == packed)
                    << "bounce " << b << ": " << s.bounces[b].live_warps << " warps";
            else if (m != DeadRayMode::Regenerate && m != DeadRayMode::Pool)  // their warps mix bounces
                EXPECT_EQ(s.bounces[b].live_warps, c.bounces[b].live_warps) << to_string(m) << " bounce " << b;
        }
    }
    std::printf("[gpu path stats] glass.json 320x180 depth 8: %zu bounces, SIMD efficiency %.3f (CPU stencil)\n",
                c.bounces.size(), c.simd_efficiency());
}

// Frames of one sample each on the device (the viewer's still view) end in the CPU's
// image of one frame of N samples, replaying one graph; under every sampler (zsobol's
// layout made for the N the sum will hold, as the viewer makes it for its cap).
TEST(GpuPath, AccumulationEqualsOneFrameOfNSamples) {
    auto g = path_gpu();
    ASSERT_TRUE(g);
    auto cpu = make_cpu_executor();
    const Scene scene = load_scene(env_or("SRT_SOURCE_DIR", SRT_SOURCE_DIR) + std::string("/scenes/glass.json"));
    const CompiledScene cs = compile_scene(scene);
    g->set_scene(cs);
    cpu->set_scene(cs);
    const int n = 5;
    for (SamplerKind sampler : {SamplerKind::Independent, SamplerKind::Sobol, SamplerKind::ZSobol}) {
        RenderSettings one = path_settings(211, 133, 8, DeadRayMode::Stencil, LaunchMode::Graph, n);
        one.sampler = sampler;
        Image ref;
        cpu->render(scene.camera, one, ref);
        for (DeadRayMode m : kPathModes) {
            Image acc;
            const int before = g->graph_captures();
            for (int k = 0; k < n; ++k) {
                RenderSettings rs = path_settings(211, 133, 8, m, LaunchMode::Graph, 1);
                rs.sampler = sampler;
                rs.sample_begin = k;
                rs.samples_planned = n;
                g->render(scene.camera, rs, acc);
            }
            EXPECT_LE(g->graph_captures(), before + 1) << "one capture for all frames";
            EXPECT_EQ(acc.rgba, ref.rgba) << to_string(sampler) << " " << to_string(m);
        }
    }
}
