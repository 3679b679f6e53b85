// GPU tests of PLOC (accel/ploc.h, cuda/ploc_build.cu): the GPU's clustering is the
// host's bit for bit, so every layout of its tree is too; and frames traced through the
// GPU-built tree are the CPU's in every mode. Label `gpu`, in srt_gpu_tests (exits 77
// without a device).
#include "accel/ploc.h"
#include "cuda/cuda_executor.h"
#include "cuda/ploc_device.h"
#include "render/executor.h"
#include "render/scene_gpu.h"
#include "scene/load.h"
#include "scene/scene.h"
#include "support/bench_scenes.h"
#include "support/settings.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

using namespace srt;

namespace {

std::string shared_data() {
    const char* env = std::getenv("SRT_SHARED_DATA");
    return env ? env : SRT_SHARED_DATA;
}

template <class T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

Scene soup(int n, uint32_t seed) {
    Scene s;
    s.name = "soup";
    s.add_material(Material{});
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-10.0f, 10.0f), small(-0.5f, 0.5f);
    for (int i = 0; i < n; ++i) {
        const glm::vec3 c(u(rng), u(rng), u(rng));
        s.triangles.push_back({Point3(c + glm::vec3(small(rng), small(rng), small(rng))),
                               Point3(c + glm::vec3(small(rng), small(rng), small(rng))),
                               Point3(c + glm::vec3(small(rng), small(rng), small(rng))), 0});
    }
    return s;
}

std::vector<std::pair<std::string, Scene>> scenes() {
    std::vector<std::pair<std::string, Scene>> v;
    v.emplace_back("default", builtin_default_scene());
    v.emplace_back("1 triangle", soup(1, 1));
    v.emplace_back("5 triangles", soup(5, 2));
    v.emplace_back("200k triangles", soup(200000, 3));
    Scene same = soup(1, 4);
    for (int i = 0; i < 4095; ++i) same.triangles.push_back(same.triangles[0]);
    v.emplace_back("4096 coincident triangles", same);
    const std::string data = shared_data();
    for (const char* f : {"meshes/stanford-bunny.obj", "scenes/sibenik/sibenik.obj"})
        if (std::filesystem::exists(data + "/" + f)) v.emplace_back(f, load_scene(data + "/" + f));
    const std::string conf = data + "/scenes/conference/conference.obj";
    if (std::filesystem::exists(conf)) v.emplace_back("conference", test::conference_benchmark_view(conf));
    return v;
}

}  // namespace

TEST(GpuPloc, TheGpuClustersAsTheHostDoes) {
    std::string why;
    auto device = make_cuda_ploc_device(why);
    ASSERT_TRUE(device) << why;
    int checked = 0;
    for (auto& [name, scene] : scenes()) {
        for (const AccelLayout a : {AccelLayout::Bvh2, AccelLayout::Bvh4, AccelLayout::Bvh8}) {
            const CompiledScene gpu = compile_scene(scene, a, BvhBuildOptions{false, BvhBuilder::Ploc, device.get()});
            const CompiledScene host = compile_scene(scene, a, BvhBuildOptions{false, BvhBuilder::Ploc, nullptr});
            ASSERT_EQ(gpu.bvh_stats.builder.rfind("ploc (", 0), 0u) << name << ": " << gpu.bvh_stats.builder;
            EXPECT_TRUE(same_bytes(gpu.nodes, host.nodes)) << name << " " << to_string(a);
            EXPECT_TRUE(same_bytes(gpu.nodes4, host.nodes4)) << name << " " << to_string(a);
            EXPECT_TRUE(same_bytes(gpu.nodes8, host.nodes8)) << name << " " << to_string(a);
            EXPECT_TRUE(same_bytes(gpu.prims, host.prims)) << name << " " << to_string(a);
            // A tree of more than one leaf is collapsed where it was built.
            if (a != AccelLayout::Bvh2 && gpu.bvh_stats.primitives > uint32_t(kMaxLeafPrims))
                EXPECT_NE(gpu.bvh_stats.steps.find(std::string("collapse to ") + (a == AccelLayout::Bvh4 ? "BVH4" : "BVH8")),
                          std::string::npos)
                    << name << ": " << gpu.bvh_stats.steps;
            std::printf("[gpu ploc %s] %-28s %8u prims: GPU tree == host tree; GPU %.2f ms (%s), host %.1f ms\n",
                            to_string(a), name.c_str(), gpu.bvh_stats.primitives, gpu.bvh_stats.build_ms,
                            gpu.bvh_stats.steps.c_str(), host.bvh_stats.build_ms);
            ++checked;
        }
    }
    EXPECT_GE(checked, 15);
}

TEST(GpuPloc, TheGpuCollapsesAsTheHostDoes) {
    // The BVH8 and BVH4 collapses on the device against the host's, on the SAH builder's
    // trees too (with spatial splits: leaves that share primitives), not only on PLOC's.
    std::string why;
    auto device = make_cuda_ploc_device(why);
    ASSERT_TRUE(device) << why;
    int checked = 0;
    for (auto& [name, scene] : scenes()) {
        for (const bool splits : {true, false}) {
            const CompiledScene cs = compile_scene(scene, AccelLayout::Bvh2, BvhBuildOptions{splits});
            if (cs.nodes.empty()) continue;
            size_t refs = 0;
            for (const BvhNode& n : cs.nodes)
                for (int side = 0; side < 2; ++side)
                    if (n.link[side] < 0) refs += size_t(n.link[2 + side]);
            std::vector<BvhNode> host_nodes = cs.nodes;
            const Bvh8 host = collapse_bvh8(host_nodes, refs);
            double device_ms = 0;
            const Bvh8 gpu = device->collapse_bvh8(cs.nodes, refs, device_ms);
            EXPECT_TRUE(same_bytes(gpu.nodes, host.nodes)) << name << (splits ? " splits" : "");
            EXPECT_EQ(gpu.prim_order, host.prim_order) << name << (splits ? " splits" : "");
            EXPECT_EQ(gpu.stats.max_depth, host.stats.max_depth) << name;
            EXPECT_EQ(gpu.stats.leaves, host.stats.leaves) << name;
            std::printf("[gpu collapse] %-28s %-9s %7zu BVH2 nodes -> %6zu BVH8 nodes: GPU == host; GPU %.3f ms, host %.1f ms\n",
                        name.c_str(), splits ? "splits" : "no splits", cs.nodes.size(), gpu.nodes.size(), device_ms,
                        host.stats.build_ms);
            const Bvh4 host4 = collapse_bvh4(cs.nodes);
            const Bvh4 gpu4 = device->collapse_bvh4(cs.nodes, device_ms);
            EXPECT_TRUE(same_bytes(gpu4.nodes, host4.nodes)) << name << (splits ? " splits" : "");
            EXPECT_EQ(gpu4.stats.max_depth, host4.stats.max_depth) << name;
            EXPECT_EQ(gpu4.stats.max_stack, host4.stats.max_stack) << name;
            EXPECT_EQ(gpu4.stats.leaves, host4.stats.leaves) << name;
            std::printf("[gpu collapse] %-28s %-9s %7zu BVH2 nodes -> %6zu BVH4 nodes: GPU == host; GPU %.3f ms, host %.1f ms\n",
                        name.c_str(), splits ? "splits" : "no splits", cs.nodes.size(), gpu4.nodes.size(), device_ms,
                        host4.stats.build_ms);
            ++checked;
        }
    }
    EXPECT_GE(checked, 10);
}

TEST(GpuPloc, FramesThroughTheGpuTreeAreTheCpus) {
    std::string why;
    auto device = make_cuda_ploc_device(why);
    ASSERT_TRUE(device) << why;
    auto g = make_cuda_executor(why);
    ASSERT_TRUE(g) << why;
    auto cpu = make_cpu_executor();
    int checked = 0;
    for (auto& [name, scene] : scenes()) {
        if (name != "default" && name != "conference" && name != "scenes/sibenik/sibenik.obj") continue;
        for (const AccelLayout a : {AccelLayout::Bvh2, AccelLayout::Bvh4, AccelLayout::Bvh8}) {
            const CompiledScene cs = compile_scene(scene, a, BvhBuildOptions{false, BvhBuilder::Ploc, device.get()});
            g->set_scene(cs);
            cpu->set_scene(cs);
            for (const Integrator integrator : {Integrator::Whitted, Integrator::Path}) {
                RenderSettings rs = test::Frame(67, 33, 4, DeadRayMode::Stencil).spp(2).integrator(integrator);
                Image ref;
                cpu->render(scene.camera, rs, ref, nullptr);
                for (const DeadRayMode m : {DeadRayMode::Stencil, DeadRayMode::Flags, DeadRayMode::Compact,
                                            DeadRayMode::Pool, DeadRayMode::Megakernel, DeadRayMode::Regenerate}) {
                    rs.mode = m;
                    Image img;
                    g->render(scene.camera, rs, img, nullptr);
                    EXPECT_EQ(img.rgba, ref.rgba) << name << " " << to_string(a) << " " << to_string(integrator) << " "
                                                  << to_string(m);
                    ++checked;
                }
            }
        }
        std::printf("[gpu ploc] %-28s the PLOC tree's frames: GPU == CPU, 3 layouts x 2 integrators x 6 modes\n",
                    name.c_str());
    }
    EXPECT_GE(checked, 36);
}
