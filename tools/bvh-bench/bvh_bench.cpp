// bvh_bench - the CPU builders against Embree 3's, on the same triangles and the same
// cores (docs/performance.md, "The CPU builder against Embree"). For each builder: the
// median build time of --runs builds (and their range), and for ours the tree's SAH cost.
// Quality for quality: Embree's medium against our SAH without spatial splits, its high
// (which adds spatial splits) against ours with them; its low and our PLOC on the host
// are the quick builds.
//
//   bvh_bench SCENE [--runs N] [--only NAME]
//
// --only runs the one builder whose name contains NAME (`medium`, `splits`, `PLOC`...),
// for a profiler. The last column of ours is a hash of the tree (its nodes and leaves'
// order), for showing that a change to the builder left the tree as it was.
#include "accel/bvh.h"
#include "accel/ploc.h"
#include "scene/load.h"
#include "scene/scene.h"

#include <embree3/rtcore.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// FNV-1a 64 over the tree's bytes: its nodes (boxes and links) and its leaves' order, so
// that a change to the builder can be shown to leave the tree as it was.
unsigned long long tree_hash(const srt::Bvh& bvh) {
    unsigned long long h = 14695981039346656037ull;
    const auto add = [&](const void* p, size_t bytes) {
        for (size_t i = 0; i < bytes; ++i) h = (h ^ static_cast<const unsigned char*>(p)[i]) * 1099511628211ull;
    };
    add(bvh.nodes.data(), bvh.nodes.size() * sizeof(bvh.nodes[0]));
    add(bvh.order.data(), bvh.order.size() * sizeof(bvh.order[0]));
    return h;
}

struct Timing {
    double median, lo, hi;
};

Timing time_runs(int runs, const std::function<void()>& build) {
    std::vector<double> ms;
    for (int r = 0; r < runs; ++r) {
        const auto t0 = Clock::now();
        build();
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], ms.front(), ms.back()};
}

}  // namespace

int main(int argc, char** argv) {
    using namespace srt;
    if (argc < 2) {
        std::fprintf(stderr, "usage: bvh_bench SCENE [--runs N]\n");
        return 2;
    }
    int runs = 5;
    std::string only;
    for (int a = 2; a + 1 < argc; a += 2) {
        if (std::string(argv[a]) == "--runs") runs = std::max(1, std::atoi(argv[a + 1]));
        else if (std::string(argv[a]) == "--only") only = argv[a + 1];
        else {
            std::fprintf(stderr, "bvh_bench: unknown flag '%s' (--runs N, --only NAME)\n", argv[a]);
            return 2;
        }
    }
    const auto chosen = [&](const char* name) { return only.empty() || std::string(name).find(only) != std::string::npos; };
    Scene scene;
    try {
        scene = load_scene(argv[1]);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    // The triangles in float, as both builders see them (spheres are left out: Embree
    // would build them as user geometry).
    const size_t n = scene.triangles.size();
    std::vector<float> verts(9 * n + 3);  // Embree reads 16 bytes at the last vertex
    std::vector<unsigned> index(3 * n);
    std::vector<BuildPrim> prims(n);
    for (size_t i = 0; i < n; ++i) {
        const Triangle& t = scene.triangles[i];
        const glm::vec3 v[3] = {glm::vec3(t.v0), glm::vec3(t.v1), glm::vec3(t.v2)};
        for (int k = 0; k < 3; ++k) {
            for (int a = 0; a < 3; ++a) verts[9 * i + 3 * size_t(k) + size_t(a)] = v[k][a];
            index[3 * i + size_t(k)] = unsigned(3 * i + size_t(k));
        }
        prims[i] = BuildPrim{glm::min(v[0], glm::min(v[1], v[2])), glm::max(v[0], glm::max(v[1], v[2])), true, v[0], v[1],
                             v[2]};
    }
    std::printf("# %s: %zu triangles, %u hardware threads, %d runs a builder (median, min-max)\n", argv[1], n,
                std::thread::hardware_concurrency(), runs);
    std::printf("%-32s %10s %18s %10s %10s %16s\n", "builder", "ms", "range", "SAH cost", "nodes", "tree hash");

    RTCDevice device = rtcNewDevice(nullptr);
    if (!device) {
        std::fprintf(stderr, "bvh_bench: Embree: no device\n");
        return 1;
    }
    const struct {
        const char* name;
        RTCBuildQuality quality;
    } kEmbree[] = {{"embree 3 low", RTC_BUILD_QUALITY_LOW},
                   {"embree 3 medium", RTC_BUILD_QUALITY_MEDIUM},
                   {"embree 3 high (spatial splits)", RTC_BUILD_QUALITY_HIGH}};
    for (const auto& q : kEmbree) {
        if (!chosen(q.name)) continue;
        const Timing t = time_runs(runs, [&] {
            RTCScene s = rtcNewScene(device);
            rtcSetSceneBuildQuality(s, q.quality);
            RTCGeometry g = rtcNewGeometry(device, RTC_GEOMETRY_TYPE_TRIANGLE);
            rtcSetGeometryBuildQuality(g, q.quality);
            rtcSetSharedGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, verts.data(), 0,
                                       3 * sizeof(float), 3 * n);
            rtcSetSharedGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, index.data(), 0,
                                       3 * sizeof(unsigned), n);
            rtcCommitGeometry(g);
            rtcAttachGeometry(s, g);
            rtcReleaseGeometry(g);
            rtcCommitScene(s);
            rtcReleaseScene(s);
        });
        std::printf("%-32s %10.1f %8.1f-%-9.1f %10s %10s\n", q.name, t.median, t.lo, t.hi, "-", "-");
    }
    rtcReleaseDevice(device);

    const struct {
        const char* name;
        BvhBuildOptions options;
    } kOurs[] = {{"ours: PLOC on the host", BvhBuildOptions{false, BvhBuilder::Ploc, nullptr}},
                 {"ours: SAH, no spatial splits", BvhBuildOptions{false, BvhBuilder::Sah, nullptr}},
                 {"ours: SAH with spatial splits", BvhBuildOptions{true, BvhBuilder::Sah, nullptr}}};
    for (const auto& o : kOurs) {
        if (!chosen(o.name)) continue;
        Bvh bvh;
        const Timing t = time_runs(runs, [&] { bvh = build_bvh(prims, o.options); });
        std::printf("%-32s %10.1f %8.1f-%-9.1f %10.2f %10u %016llx\n", o.name, t.median, t.lo, t.hi,
                    bvh.stats.sah_cost, bvh.stats.nodes, tree_hash(bvh));
    }
    return 0;
}
