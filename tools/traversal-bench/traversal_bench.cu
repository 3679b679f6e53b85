// traversal_bench.cu - the traversal kernels alone, for quick turns on traversal code
// (a variant is timed here in seconds, then in whole frames with tools/gpu/run.sh ab). For one scene it builds the BVH2, BVH4 and BVH8, traces the
// primary rays of a 1024x768 frame (8x4 tiles, as the renderer orders them) and one shadow
// ray a hit towards a light, and prints each layout's closest-hit and any-hit kernel
// times (medians of 15) and how many of its hits differ from the BVH2's (0: every layout
// must find the same primitive, ties included).
//
// To try a traversal variant, add it as a template here and time it beside the
// production one: a rebuild of this one file takes seconds.
//
// Built with the rest where CUDA is found (`cmake --build build --target traversal_bench`);
// carry build/traversal_bench to the GPU machine with gpu-bundle.sh. Run:
//   traversal_bench SCENE [--from X,Y,Z --at X,Y,Z --up X,Y,Z --fov DEG] [--light X,Y,Z]
// The camera defaults to the scene's and the light to its first; Conference with the
// README's view: --from 1600,500,90 --at 200,100,10 --fov 75 --light 600,600,50
#include "cuda/check.h"
#include "cuda/device_buffer.h"
#include "render/scene_gpu.h"
#include "render/stages.h"
#include "scene/load.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

using namespace srt;

namespace {

constexpr uint32_t kW = 1024, kH = 768, kN = kW * kH, kBlock = 128;

struct Rays {
    float4* o;  // w unused
    float4* d;  // w = tmax; 0 for no ray
    float* t;
    int* id;    // closest: hit id; any hit: 1 occluded, 0 not, -2 no ray
};

std::vector<int> download(const DeviceBuffer<int>& b) {
    std::vector<int> v(b.size());
    CUDA_CHECK(cudaMemcpy(v.data(), b.get(), b.bytes(), cudaMemcpyDeviceToHost));
    return v;
}

__global__ void k_primary(CameraGpu c, Rays r) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kN) return;
    const uint32_t w = i >> 5, l = i & 31u, tiles_x = kW / 8u;
    const uint32_t x = (w % tiles_x) * 8u + (l & 7u), y = (w / tiles_x) * 4u + (l >> 3);
    const glm::vec3 d = camera_dir(c, kW, kH, float(x) + 0.5f, float(y) + 0.5f);
    r.o[i] = make_float4(c.origin.x, c.origin.y, c.origin.z, 0.0f);
    r.d[i] = make_float4(d.x, d.y, d.z, 3.0e38f);
}

template <int kWidth>
__global__ void k_closest(SceneView s, Rays r) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kN) return;
    const float4 o = r.o[i], d = r.d[i];
    const Hit h = intersect_closest<kWidth>(s, glm::vec3(o.x, o.y, o.z), glm::vec3(d.x, d.y, d.z), d.w);
    r.t[i] = h.t;
    r.id[i] = h.id;
}

template <int kWidth>
__global__ void k_any(SceneView s, Rays r) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kN) return;
    const float4 o = r.o[i], d = r.d[i];
    r.id[i] = d.w > 0.0f ? (occluded<kWidth>(s, glm::vec3(o.x, o.y, o.z), glm::vec3(d.x, d.y, d.z), d.w) ? 1 : 0)
                         : -2;
}

// A primary hit's shadow ray towards the scene's first light, as shading starts it
// (render/stages.h direct_light).
__global__ void k_shadow(SceneView s, Rays prim, Rays sh) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kN) return;
    sh.d[i] = make_float4(0.0f, 0.0f, 1.0f, 0.0f);
    if (prim.id[i] < 0 || s.light_count == 0) return;
    const float4 o4 = prim.o[i], d4 = prim.d[i];
    const glm::vec3 d(d4.x, d4.y, d4.z);
    Surface sf = surface_at<2>(s, glm::vec3(o4.x, o4.y, o4.z), d, prim.t[i], prim.id[i]);  // meshes: no precise spheres
    face_ray(sf, d);
    if (sf.kd == 0.0f) return;
    const glm::vec3 o = offset_origin(sf);
    glm::vec3 l;
    const float dist = light_direction(s, 0, o, l);
    sh.o[i] = make_float4(o.x, o.y, o.z, 0.0f);
    if (glm::dot(sf.ns, l) > 0.0f) sh.d[i] = make_float4(l.x, l.y, l.z, dist);
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

// The compiled scene on the device, as the CUDA executor uploads it.
struct DeviceScene {
    DeviceBuffer<BvhNode> nodes;
    DeviceBuffer<Bvh4Node> nodes4;
    DeviceBuffer<Bvh8Node> nodes8;
    DeviceBuffer<PrimGpu> prims;
    DeviceBuffer<PrimTestGpu> tests;
    DeviceBuffer<f4> normals;
    DeviceBuffer<PlaneGpu> planes;
    DeviceBuffer<MaterialGpu> materials;
    DeviceBuffer<LightGpu> lights;
    SceneView view;
    explicit DeviceScene(const CompiledScene& c) : view(c.view()) {
        nodes.upload(c.nodes, "BVH nodes");
        nodes4.upload(c.nodes4, "BVH4 nodes");
        nodes8.upload(c.nodes8, "BVH8 nodes");
        prims.upload(c.prims, "primitives");
        tests.upload(c.prim_tests, "primitive tests");
        normals.upload(c.normals, "vertex normals");
        planes.upload(c.planes, "planes");
        materials.upload(c.materials, "materials");
        lights.upload(c.lights, "lights");
        view.nodes = nodes.get();
        view.nodes4 = nodes4.get();
        view.nodes8 = nodes8.get();
        view.prims = prims.get();
        view.prim_tests = tests.get();
        view.normals = normals.get();
        view.planes = planes.get();
        view.materials = materials.get();
        view.lights = lights.get();
    }
};

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

// Each layout's kernel times, and its hits against the BVH2's.
void compare_layouts(const Scene& scene, const char* name) {
    std::printf("%s: %zu triangles, %zu spheres, %u rays of %ux%u\n", name, scene.triangles.size(),
                scene.spheres.size(), kN, kW, kH);
    const uint32_t grid = (kN + kBlock - 1) / kBlock;
    std::vector<int> ref_closest, ref_any;
    for (const AccelLayout accel : {AccelLayout::Bvh2, AccelLayout::Bvh4, AccelLayout::Bvh8}) {
        const CompiledScene c = compile_scene(scene, accel);
        DeviceScene ds(c);
        const SceneView& s = ds.view;
        DeviceBuffer<float4> po, pd, so, sd;
        DeviceBuffer<float> pt, st;
        DeviceBuffer<int> pid, sid;
        for (auto* b : {&po, &pd, &so, &sd}) b->allocate(kN, "rays");
        for (auto* b : {&pt, &st}) b->allocate(kN, "hit distances");
        for (auto* b : {&pid, &sid}) b->allocate(kN, "hit ids");
        const Rays prim{po.get(), pd.get(), pt.get(), pid.get()}, sh{so.get(), sd.get(), st.get(), sid.get()};
        k_primary<<<grid, kBlock>>>(make_camera(scene.camera, kW, kH, c.render_origin), prim);
        float ms_closest = 0.0f, ms_any = 0.0f;
        with_bvh_width(s, [&](auto w) {
            constexpr int W = decltype(w)::value;
            ms_closest = median_ms([&] { k_closest<W><<<grid, kBlock>>>(s, prim); });
            k_shadow<<<grid, kBlock>>>(s, prim, sh);
            ms_any = median_ms([&] { k_any<W><<<grid, kBlock>>>(s, sh); });
        });
        CUDA_CHECK(cudaGetLastError());
        // Hit ids are BVH-order positions, which the BVH8 reorders: compare original ids.
        std::vector<int> closest = download(pid);
        const std::vector<int> any = download(sid);
        for (int& id : closest)
            if (id >= 0 && size_t(id) < c.prims.size()) id = int(float_bits(c.prims[size_t(id)].p2.w));
        if (ref_closest.empty()) {
            ref_closest = closest;
            ref_any = any;
        }
        size_t differ_c = 0, differ_a = 0, shadow_rays = 0;
        for (uint32_t i = 0; i < kN; ++i) {
            differ_c += closest[i] != ref_closest[i];
            differ_a += any[i] != ref_any[i];
            shadow_rays += any[i] >= 0;
        }
        std::printf("%-5s closest %7.1f us (%5.2f G rays/s), %zu differ from bvh2 | any hit %7.1f us (%5.2f G rays/s, "
                    "%zu rays), %zu differ\n",
                    to_string(accel), ms_closest * 1e3f, double(kN) / (ms_closest * 1e6), differ_c,
                    ms_any * 1e3f, double(shadow_rays) / (ms_any * 1e6), shadow_rays, differ_a);
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: traversal_bench SCENE [--from X,Y,Z --at X,Y,Z --up X,Y,Z --fov DEG] "
                             "[--light X,Y,Z]\n");
        return 2;
    }
    Scene scene;
    try {
        scene = load_scene(argv[1]);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    for (int a = 2; a < argc; ++a) {
        const std::string f = argv[a];
        const char* v = a + 1 < argc ? argv[a + 1] : nullptr;
        bool ok = true;
        if (f == "--from") ok = parse_vec("--from", v, scene.camera.from);
        else if (f == "--at") ok = parse_vec("--at", v, scene.camera.at);
        else if (f == "--up") ok = parse_vec("--up", v, scene.camera.up);
        else if (f == "--light") {  // one point light instead of the scene's, as render's --light
            Point3 p;
            ok = parse_vec("--light", v, p);
            scene.lights.assign(1, Light{});
            scene.lights[0].position = p;
        }
        else if (f == "--fov") ok = v && (scene.camera.fov_deg = std::strtof(v, nullptr)) > 0.0f;
        else {
            std::fprintf(stderr, "traversal_bench: unknown argument '%s'\n", f.c_str());
            return 2;
        }
        if (!ok) return 2;
        ++a;
    }
    int dev_count = 0;
    if (cudaGetDeviceCount(&dev_count) != cudaSuccess || dev_count == 0) {
        std::fprintf(stderr, "traversal_bench: no CUDA device\n");
        return 77;
    }
    try {
        compare_layouts(scene, argv[1]);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "traversal_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
