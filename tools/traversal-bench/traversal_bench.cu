// traversal_bench.cu - the traversal kernels alone, for quick turns on traversal code
// (a variant is timed here in seconds, then in whole frames with tools/gpu/run.sh ab).
// For one scene it builds the BVH2, BVH4 and BVH8 and, at each frame size, traces four
// ray sets (ray_sets.cuh): the primary rays (8x4 tiles, as the renderer orders them;
// closest hit), a shadow ray a hit towards the first light (any hit), the Whitted reflect
// stage's mirror ray from every hit and a cosine-weighted diffuse ray from every hit
// (closest hit); the secondary sets come from the BVH2's primary hits, and every tree
// traces the same rays. A scene with instances: the three layouts of its flattened copy,
// then a fourth row, bvh8-instanced, the scene as the renderer traces it (one BVH8 a
// mesh under a top level over the instances; accel/traverse_instances.h). For each (size, layout, set) it prints the rays traced, how many hit
// (shadow: how many are occluded), the kernel's median time of 15 launches, G rays/s, in
// how many slots the hit differs from the BVH2's (0: every layout must find the same
// primitive, ties included) and a hash of the hits: another program can check that it
// traced the same rays (on the diffuse set, one whose cosf and sinf are CUDA's: ray_sets.cuh).
//
// To try a traversal variant, add it as a template here and time it beside the
// production one: a rebuild of this one file takes seconds.
//
// Built with the rest where CUDA is found (`cmake --build build --target traversal_bench`);
// carry build/traversal_bench to the GPU machine with gpu-bundle.sh. Run:
//   traversal_bench SCENE [--from X,Y,Z --at X,Y,Z --up X,Y,Z --fov DEG] [--light X,Y,Z]
//                   [--size WxH[,WxH...]]... [--check] [--json FILE]
// The camera defaults to the scene's and the light to its first; Conference with the
// README's view: --from 1600,500,90 --at 200,100,10 --fov 75 --light 600,600,50.
// --size (repeatable; W a multiple of 8, H of 4): default 1024x768, 1920x1080, 3840x2160.
// --check: exit 1 where any layout's hits differ from the BVH2's on any set (each named
// on stderr; bvh8-instanced's are reported, not checked: see main). --json FILE: the rows as JSON too (keys as the columns, plus width, height
// and query: closest or any). No CUDA device: exit 77.
//
// Output: lines starting with '#' are comments; every other line is one row of
//   size layout set rays hits median_ms grays_per_s differ ids
// e.g. "1024x768 bvh4 mirror 786432 523311 0.2113 3.722 0 8a3f09c1d2e4b5a6": hits are
// the occluded rays on the shadow set; grays_per_s = rays / median time, in G rays/s; ids
// is FNV-1a 64 (hex) over every slot's value as 4 little-endian bytes, in slot order: the
// hit's original primitive id (in a scene with instances, its flattened copy's; a
// plane's: the BVH2's primitive count + its index), -1 a miss, -2 no ray; on the shadow
// set 1 occluded, 0 not, -2 no ray.
#include "cuda/check.h"
#include "cuda/device_buffer.h"
#include "cuda/device_scene.h"
#include "cuda/ploc_device.h"
#include "ray_sets.cuh"
#include "render/scene_gpu.h"
#include "render/stages.h"
#include "scene/instances.h"
#include "scene/load.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <vector>

using namespace srt;
using namespace srt::bench;

namespace {

constexpr uint32_t kBlock = 128;

// A slot's hit: its id in BVH order, which the host maps to the original id (bench_size);
// in a scene with instances the original id itself, there being one BVH a mesh (a hit in
// an instance's mesh: the id its triangle has in the flattened scene, hit_key; a plane:
// `planes_from` + its index, as the flattened scene numbers it).
template <int kWidth>
__global__ void k_closest(SceneView s, uint32_t n, Rays r, uint32_t planes_from) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 o = r.o[i], d = r.d[i];
    if (!(d.w > 0.0f)) {
        r.id[i] = -2;
        return;
    }
    const Hit h = intersect_closest<kWidth>(s, glm::vec3(o.x, o.y, o.z), glm::vec3(d.x, d.y, d.z), d.w);
    r.t[i] = h.t;
    r.id[i] = h.id;
    if constexpr (instances_of(kWidth)) {
        if (h.id >= 0)
            r.id[i] = uint32_t(h.id) < s.prim_count ? int32_t(hit_key<kWidth>(s, h))
                                                     : int32_t(planes_from + (uint32_t(h.id) - s.prim_count));
    }
}

template <int kWidth>
__global__ void k_any(SceneView s, uint32_t n, Rays r) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 o = r.o[i], d = r.d[i];
    r.id[i] = d.w > 0.0f ? (occluded<kWidth>(s, glm::vec3(o.x, o.y, o.z), glm::vec3(d.x, d.y, d.z), d.w) ? 1 : 0)
                         : -2;
}

template <class Launch>
float median_ms(Launch launch) {
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    launch();  // warm-up (the module loads on first launch)
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> ms;
    for (int k = 0; k < 15; ++k) {
        CUDA_CHECK(cudaEventRecord(a));
        launch();
        CUDA_CHECK(cudaEventRecord(b));
        CUDA_CHECK(cudaEventSynchronize(b));
        float m = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&m, a, b));
        ms.push_back(m);
    }
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

// One ray set's buffers on the device.
struct RayBuffers {
    DeviceBuffer<float4> o, d;
    DeviceBuffer<float> t;
    DeviceBuffer<int> id;
    explicit RayBuffers(size_t n) {
        o.allocate(n, "ray origins");
        d.allocate(n, "ray directions");
        t.allocate(n, "hit distances");
        id.allocate(n, "hit ids");
    }
    Rays rays() const { return Rays{o.get(), d.get(), t.get(), id.get()}; }
    std::vector<int> ids() const {
        std::vector<int> v(id.size());
        CUDA_CHECK(cudaMemcpy(v.data(), id.get(), id.bytes(), cudaMemcpyDeviceToHost));
        return v;
    }
};

struct Size {
    uint32_t w, h;
};
std::string to_string(const Size& s) { return std::to_string(s.w) + "x" + std::to_string(s.h); }

enum SetKind { kPrimary, kShadow, kMirror, kDiffuse, kSets };
const char* const kSetNames[kSets] = {"primary", "shadow", "mirror", "diffuse"};

// One row of the output.
struct Row {
    Size size;
    const char* layout;
    int set;  // SetKind
    size_t rays, hits, differ;
    float ms;
    unsigned long long ids;
    double grays() const { return rays == 0 ? 0.0 : double(rays) / (double(ms) * 1e6); }
};

// FNV-1a 64 over each value's 4 bytes, little-endian.
unsigned long long fnv1a(const std::vector<int>& v) {
    unsigned long long h = 14695981039346656037ull;
    for (const int x : v)
        for (int k = 0; k < 4; ++k) h = (h ^ ((uint32_t(x) >> (8 * k)) & 0xffu)) * 1099511628211ull;
    return h;
}

constexpr AccelLayout kLayouts[] = {AccelLayout::Bvh2, AccelLayout::Bvh4, AccelLayout::Bvh8};

// One tree the rays are traced through: a layout of the scene (of its flattened copy,
// where it has instances), or the scene with instances, as the renderer traces it.
struct Traced {
    const char* name;  // the rows' layout column: bvh2, bvh4, bvh8, or bvh8-instanced
    CompiledScene compiled;
    std::unique_ptr<cuda::DeviceScene> device;
    bool instanced() const { return !compiled.instances.empty(); }
};

// Each tree's kernel times on the four sets at one size, and its hits against the
// first's (the BVH2's).
void bench_size(const Scene& scene, const std::vector<Traced>& layouts, const Size& sz, std::vector<Row>& rows) {
    const uint32_t n = sz.w * sz.h, grid = (n + kBlock - 1) / kBlock;
    std::printf("# %s: %u slots a set; medians of 15 launches\n", to_string(sz).c_str(), n);
    std::printf("# size layout set rays hits median_ms grays_per_s differ ids\n");
    RayBuffers buf[kSets] = {RayBuffers(n), RayBuffers(n), RayBuffers(n), RayBuffers(n)};
    const Rays prim = buf[kPrimary].rays(), sh = buf[kShadow].rays(), mir = buf[kMirror].rays(),
               dif = buf[kDiffuse].rays();
    std::vector<int> ref[kSets];
    // A plane's id in a hit of the reference tree (intersect.h: after its primitives).
    const uint32_t planes_from = uint32_t(layouts.front().compiled.prims.size());
    for (size_t k = 0; k < layouts.size(); ++k) {
        const CompiledScene& c = layouts[k].compiled;
        const SceneView& s = layouts[k].device->view();
        const CameraGpu cam = make_camera(scene.camera, int(sz.w), int(sz.h), c.render_origin);
        k_primary<<<grid, kBlock>>>(cam, sz.w, sz.h, prim);
        float ms[kSets] = {};
        with_bvh_width(s, [&](auto w) {
            constexpr int W = decltype(w)::value;
            ms[kPrimary] = median_ms([&] { k_closest<W><<<grid, kBlock>>>(s, n, prim, planes_from); });
            // The secondary rays from the first tree's hits: every tree traces the same rays.
            if (k == 0) k_secondary<W & kPreciseSpheres><<<grid, kBlock>>>(s, n, prim, sh, mir, dif);
            ms[kShadow] = median_ms([&] { k_any<W><<<grid, kBlock>>>(s, n, sh); });
            ms[kMirror] = median_ms([&] { k_closest<W><<<grid, kBlock>>>(s, n, mir, planes_from); });
            ms[kDiffuse] = median_ms([&] { k_closest<W><<<grid, kBlock>>>(s, n, dif, planes_from); });
        });
        CUDA_CHECK(cudaGetLastError());
        for (int set = 0; set < kSets; ++set) {
            std::vector<int> ids = buf[set].ids();
            // Hit ids are BVH-order positions, which the BVH8 reorders: compare original ids.
            if (set != kShadow && !layouts[k].instanced())
                for (int& id : ids)
                    if (id >= 0 && size_t(id) < c.prims.size()) id = int(float_bits(c.prims[size_t(id)].p2.w));
            if (k == 0) ref[set] = ids;
            Row r{sz, layouts[k].name, set, 0, 0, 0, ms[set], fnv1a(ids)};
            for (uint32_t i = 0; i < n; ++i) {
                r.rays += ids[i] != -2;
                r.hits += set == kShadow ? ids[i] == 1 : ids[i] >= 0;
                r.differ += ids[i] != ref[set][i];
            }
            std::printf("%s %s %s %zu %zu %.4f %.3f %zu %016llx\n", to_string(sz).c_str(), r.layout,
                        kSetNames[set], r.rays, r.hits, double(r.ms), r.grays(), r.differ, r.ids);
            rows.push_back(r);
        }
        std::fflush(stdout);
    }
}

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (const char ch : s) {
        if (ch == '"' || ch == '\\') out += '\\';
        if (static_cast<unsigned char>(ch) < 0x20) {
            char esc[8];
            std::snprintf(esc, sizeof esc, "\\u%04x", unsigned(static_cast<unsigned char>(ch)));
            out += esc;
        } else {
            out += ch;
        }
    }
    return out + "\"";
}

bool write_json(const char* path, const std::string& scene, const std::vector<Row>& rows) {
    FILE* f = std::fopen(path, "w");
    if (!f) {
        std::fprintf(stderr, "traversal_bench: cannot write %s\n", path);
        return false;
    }
    std::fprintf(f, "{\n  \"scene\": %s,\n  \"launches\": 15,\n  \"results\": [", json_string(scene).c_str());
    for (size_t k = 0; k < rows.size(); ++k) {
        const Row& r = rows[k];
        std::fprintf(f,
                     "%s\n    {\"size\": \"%s\", \"width\": %u, \"height\": %u, \"layout\": \"%s\", "
                     "\"set\": \"%s\", \"query\": \"%s\", \"rays\": %zu, \"hits\": %zu, \"median_ms\": %.6f, "
                     "\"grays_per_s\": %.6f, \"differ\": %zu, \"ids\": \"%016llx\"}",
                     k ? "," : "", to_string(r.size).c_str(), r.size.w, r.size.h, r.layout, kSetNames[r.set],
                     r.set == kShadow ? "any" : "closest", r.rays, r.hits, double(r.ms), r.grays(), r.differ,
                     r.ids);
    }
    std::fprintf(f, "\n  ]\n}\n");
    const bool ok = std::fclose(f) == 0;
    if (!ok) std::fprintf(stderr, "traversal_bench: cannot write %s\n", path);
    return ok;
}

bool parse_vec(const char* flag, const char* s, glm::vec3& v) {
    float x, y, z;
    char end;
    if (!s || std::sscanf(s, "%f,%f,%f%c", &x, &y, &z, &end) != 3) {
        std::fprintf(stderr, "traversal_bench: %s wants X,Y,Z, got '%s'\n", flag, s ? s : "");
        return false;
    }
    v = glm::vec3(x, y, z);
    return true;
}
// A position (the camera's from and at, a light's), read in double as the scene keeps it.
bool parse_vec(const char* flag, const char* s, Point3& v) {
    double x, y, z;
    char end;
    if (!s || std::sscanf(s, "%lf,%lf,%lf%c", &x, &y, &z, &end) != 3) {
        std::fprintf(stderr, "traversal_bench: %s wants X,Y,Z, got '%s'\n", flag, s ? s : "");
        return false;
    }
    v = Point3(x, y, z);
    return true;
}
// WxH[,WxH...], appended to `out`.
bool parse_sizes(const char* s, std::vector<Size>& out) {
    for (const char* p = s; p && *p;) {
        unsigned w = 0, h = 0;
        int used = 0;
        if (std::sscanf(p, "%ux%u%n", &w, &h, &used) != 2 || (p[used] != '\0' && p[used] != ',') || w == 0 ||
            h == 0 || w % 8 || h % 4 || double(w) * h > 2147483648.0) {
            std::fprintf(stderr, "traversal_bench: --size wants WxH[,WxH...] with W a multiple of 8 and H of 4 "
                                 "(the 8x4 tiles), got '%s'\n", s);
            return false;
        }
        out.push_back(Size{w, h});
        p += used + (p[used] == ',');
    }
    return s && *s;
}

const char* const kUsage =
    "usage: traversal_bench SCENE [--from X,Y,Z --at X,Y,Z --up X,Y,Z --fov DEG] [--light X,Y,Z]\n"
    "                       [--size WxH[,WxH...]]... [--spatial-splits on|off] [--bvh-build sah|ploc]\n"
    "                       [--check] [--json FILE]\n"
    "  --size   frame sizes (repeatable; W a multiple of 8, H of 4); default 1024x768,1920x1080,3840x2160\n"
    "  --spatial-splits  the BVH build's (render's flag of that name); default on\n"
    "  --bvh-build       the builder (render's flag): sah (the default) or ploc, on the GPU\n"
    "  --check  exit 1 where any layout's hits differ from the BVH2's on any ray set\n"
    "  --json   also write the rows to FILE\n"
    "Exits 77 where there is no CUDA device.\n";

}  // namespace

int main(int argc, char** argv) {
    for (int a = 1; a < argc; ++a)
        if (std::string(argv[a]) == "--help" || std::string(argv[a]) == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        }
    if (argc < 2 || argv[1][0] == '-') {
        std::fputs(kUsage, stderr);
        return 2;
    }
    struct {
        const char *from = nullptr, *at = nullptr, *up = nullptr, *light = nullptr, *fov = nullptr;
        const char *json = nullptr, *splits = nullptr, *builder = nullptr;
    } opt;
    std::vector<Size> sizes;
    bool check = false;
    for (int a = 2; a < argc; ++a) {
        const std::string f = argv[a];
        const char* v = a + 1 < argc ? argv[a + 1] : nullptr;
        if (f == "--check") {
            check = true;
            continue;
        }
        const char** slot = nullptr;
        if (f == "--from") slot = &opt.from;
        else if (f == "--at") slot = &opt.at;
        else if (f == "--up") slot = &opt.up;
        else if (f == "--fov") slot = &opt.fov;
        else if (f == "--light") slot = &opt.light;
        else if (f == "--json") slot = &opt.json;
        else if (f == "--spatial-splits") slot = &opt.splits;
        else if (f == "--bvh-build") slot = &opt.builder;
        if (f == "--size") {
            if (!parse_sizes(v, sizes)) return 2;
        } else if (!slot) {
            std::fprintf(stderr, "traversal_bench: unknown argument '%s'\n%s", f.c_str(), kUsage);
            return 2;
        } else if (!v) {
            std::fprintf(stderr, "traversal_bench: %s wants a value\n", f.c_str());
            return 2;
        } else {
            *slot = v;
        }
        ++a;
    }
    if (sizes.empty()) sizes = {{1024, 768}, {1920, 1080}, {3840, 2160}};
    BvhBuildOptions build;
    if (opt.splits) {
        if (std::string(opt.splits) != "on" && std::string(opt.splits) != "off") {
            std::fprintf(stderr, "traversal_bench: --spatial-splits wants on or off, got '%s'\n", opt.splits);
            return 2;
        }
        build.spatial_splits = std::string(opt.splits) == "on";
    }
    std::unique_ptr<PlocDevice> ploc;
    if (opt.builder) {
        if (std::string(opt.builder) != "sah" && std::string(opt.builder) != "ploc") {
            std::fprintf(stderr, "traversal_bench: --bvh-build wants sah or ploc, got '%s'\n", opt.builder);
            return 2;
        }
        if (std::string(opt.builder) == "ploc") {
            std::string why;
            ploc = make_cuda_ploc_device(why);
            build.builder = BvhBuilder::Ploc;
            build.device = ploc.get();
        }
    }
    int dev_count = 0;
    if (cudaGetDeviceCount(&dev_count) != cudaSuccess || dev_count == 0) {
        std::fprintf(stderr, "traversal_bench: no CUDA device\n");
        return 77;
    }
    Scene scene;
    try {
        scene = load_scene(argv[1]);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    // As the renderer's options apply (app/main.cpp): the camera, then a light the loader
    // made up follows it, then --light replaces the scene's lights.
    if ((opt.from && !parse_vec("--from", opt.from, scene.camera.from)) ||
        (opt.at && !parse_vec("--at", opt.at, scene.camera.at)) ||
        (opt.up && !parse_vec("--up", opt.up, scene.camera.up)))
        return 2;
    if (opt.fov && !((scene.camera.fov_deg = std::strtof(opt.fov, nullptr)) > 0.0f)) {
        std::fprintf(stderr, "traversal_bench: --fov wants degrees, got '%s'\n", opt.fov);
        return 2;
    }
    place_auto_light(scene);
    if (opt.light) {  // one point light instead of the scene's, as render's --light
        Point3 p;
        if (!parse_vec("--light", opt.light, p)) return 2;
        scene.lights.assign(1, Light{});
        scene.lights[0].position = p;
        scene.auto_light.reset();
    }
    std::vector<Row> rows;
    try {
        // A scene with instances: each layout of its flattened copy, then the scene as the
        // renderer traces it (one BVH8 a mesh under a top level).
        Scene flat;
        const bool instanced = !scene.instances.empty();
        if (instanced) {
            flat = scene;
            flatten_instances(flat);
        }
        std::vector<Traced> layouts;
        const auto add = [&](const char* name, const Scene& sc, AccelLayout accel) {
            layouts.push_back(Traced{name, compile_scene(sc, accel, build), std::make_unique<cuda::DeviceScene>()});
            layouts.back().device->upload(layouts.back().compiled);
        };
        for (const AccelLayout accel : kLayouts) add(to_string(accel), instanced ? flat : scene, accel);
        if (instanced) add("bvh8-instanced", scene, AccelLayout::Bvh8);
        std::printf("# %s: %zu triangles%s, %zu spheres, %zu planes; %zu lights", argv[1], scene.triangles.size(),
                    instances_text(scene).c_str(), scene.spheres.size(), scene.planes.size(), scene.lights.size());
        const Light* l = scene.lights.empty() ? nullptr : &scene.lights[0];
        if (l && l->type == LightType::Point)
            std::printf(", the first a point at (%g, %g, %g)", l->position.x, l->position.y, l->position.z);
        std::printf(l && l->type != LightType::Point ? ", the first directional\n" : "\n");
        const BvhBuildStats& st = layouts.front().compiled.bvh_stats;
        std::printf("# BVH2 build: %s, spatial splits %s, %u references (%.3f a primitive), %u nodes, SAH cost %.2f, "
                    "%.1f ms; collapse: BVH4 %.1f ms, BVH8 %.1f ms\n",
                    st.builder.c_str(), build.builder == BvhBuilder::Sah && build.spatial_splits ? "on" : "off",
                    st.references,
                    double(st.references) /
                        double(std::max<size_t>(1, (instanced ? flat : scene).triangles.size() + scene.spheres.size())),
                    st.nodes, st.sah_cost, st.build_ms, layouts[1].compiled.bvh4_stats.build_ms,
                    layouts[2].compiled.bvh8_stats.build_ms);
        // Each layout built its own tree: the later builds are the warm ones.
        for (const Traced& t : layouts) {
            const BvhBuildStats& b = t.compiled.bvh_stats;
            std::printf("#   build for %s: %.2f ms%s%s%s\n", t.name, b.build_ms, b.steps.empty() ? "" : " (",
                        b.steps.c_str(), b.steps.empty() ? "" : ")");
        }
        for (const Size& sz : sizes) bench_size(scene, layouts, sz, rows);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "traversal_bench: %s\n", e.what());
        return 1;
    }
    if (opt.json && !write_json(opt.json, argv[1], rows)) return 1;
    // The instanced tree's hits may differ from its flattened copy's where a ray grazes an
    // edge or two triangles tie: the copy's corners are the transform's, rounded, and the
    // instanced walk moves the ray instead. --check holds the layouts of one set of
    // triangles to the same hits; the instanced rows' counts are reported beside them.
    bool differ = false;
    for (const Row& r : rows)
        if (r.differ && std::string(r.layout) != "bvh8-instanced") {
            differ = true;
            if (check)
                std::fprintf(stderr, "traversal_bench: %s %s differs from bvh2 on the %s set in %zu slots\n",
                             to_string(r.size).c_str(), r.layout, kSetNames[r.set], r.differ);
        }
    if (check) std::printf("# check: %s\n", differ ? "FAILED (stderr)" : "every layout found the BVH2's hits");
    return check && differ ? 1 : 0;
}
