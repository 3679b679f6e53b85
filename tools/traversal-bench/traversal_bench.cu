// traversal_bench.cu - the traversal kernels alone, for quick turns on traversal code
// (issue #11's note: each variant there was timed with this before a whole-frame
// tools/gpu-ab.sh run). For one scene it builds the BVH2, BVH4 and BVH8, traces the
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

#define CHECK(x)                                                                                        \
    do {                                                                                                \
        const cudaError_t e = (x);                                                                      \
        if (e != cudaSuccess) {                                                                         \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e));     \
            std::exit(1);                                                                               \
        }                                                                                               \
    } while (0)

namespace {

constexpr uint32_t kW = 1024, kH = 768, kN = kW * kH, kBlock = 128;

struct Rays {
    float4* o;  // w unused
    float4* d;  // w = tmax; 0 for no ray
    float* t;
    int* id;    // closest: hit id; any hit: 1 occluded, 0 not, -2 no ray
};

template <class T>
struct DeviceArray {
    T* p = nullptr;
    explicit DeviceArray(size_t n) { CHECK(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T))); }
    explicit DeviceArray(const std::vector<T>& v) : DeviceArray(v.size()) {
        if (!v.empty()) CHECK(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    ~DeviceArray() { cudaFree(p); }
    std::vector<T> download(size_t n) const {
        std::vector<T> v(n);
        CHECK(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
        return v;
    }
};

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

// One shadow ray from each primary hit towards `light`, as shading starts it.
__global__ void k_shadow(SceneView s, Rays prim, Rays sh, glm::vec3 light) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kN) return;
    sh.d[i] = make_float4(0.0f, 0.0f, 1.0f, 0.0f);
    if (prim.id[i] < 0) return;
    const float4 o4 = prim.o[i], d4 = prim.d[i];
    const glm::vec3 d(d4.x, d4.y, d4.z);
    Surface sf = surface_at(s, glm::vec3(o4.x, o4.y, o4.z), d, prim.t[i], prim.id[i]);
    face_ray(sf, d);
    const glm::vec3 o = offset_origin(sf), to = light - o;
    const float dist = sqrtf(glm::dot(to, to));
    const glm::vec3 l = to * (1.0f / dist);
    sh.o[i] = make_float4(o.x, o.y, o.z, 0.0f);
    if (glm::dot(l, sf.n) > 0.0f) sh.d[i] = make_float4(l.x, l.y, l.z, dist);
}

template <class Launch>
float median_ms(Launch launch) {
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    launch();  // warm-up (the module loads on first launch)
    CHECK(cudaDeviceSynchronize());
    std::vector<float> ms;
    for (int k = 0; k < 15; ++k) {
        CHECK(cudaEventRecord(a));
        launch();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float m = 0.0f;
        CHECK(cudaEventElapsedTime(&m, a, b));
        ms.push_back(m);
    }
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

// The compiled scene on the device, as the CUDA executor uploads it.
struct DeviceScene {
    DeviceArray<BvhNode> nodes;
    DeviceArray<Bvh4Node> nodes4;
    DeviceArray<Bvh8Node> nodes8;
    DeviceArray<PrimGpu> prims;
    DeviceArray<PrimTestGpu> tests;
    DeviceArray<f4> normals;
    DeviceArray<PlaneGpu> planes;
    DeviceArray<MaterialGpu> materials;
    DeviceArray<LightGpu> lights;
    SceneView view;
    explicit DeviceScene(const CompiledScene& c)
        : nodes(c.nodes), nodes4(c.nodes4), nodes8(c.nodes8), prims(c.prims), tests(c.prim_tests),
          normals(c.normals), planes(c.planes), materials(c.materials), lights(c.lights), view(c.view()) {
        view.nodes = nodes.p;
        view.nodes4 = c.nodes4.empty() ? nullptr : nodes4.p;
        view.nodes8 = c.nodes8.empty() ? nullptr : nodes8.p;
        view.prims = prims.p;
        view.prim_tests = tests.p;
        view.normals = c.normals.empty() ? nullptr : normals.p;
        view.planes = planes.p;
        view.materials = materials.p;
        view.lights = lights.p;
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
    bool have_light = false;
    glm::vec3 light_world(0.0f);
    for (int a = 2; a < argc; ++a) {
        const std::string f = argv[a];
        const char* v = a + 1 < argc ? argv[a + 1] : nullptr;
        bool ok = true;
        if (f == "--from") ok = parse_vec("--from", v, scene.camera.from);
        else if (f == "--at") ok = parse_vec("--at", v, scene.camera.at);
        else if (f == "--up") ok = parse_vec("--up", v, scene.camera.up);
        else if (f == "--light") ok = have_light = parse_vec("--light", v, light_world);
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
    std::printf("%s: %zu triangles, %zu spheres, %u rays of %ux%u\n", argv[1], scene.triangles.size(),
                scene.spheres.size(), kN, kW, kH);
    const uint32_t grid = (kN + kBlock - 1) / kBlock;
    std::vector<int> ref_closest, ref_any;
    for (const AccelLayout accel : {AccelLayout::Bvh2, AccelLayout::Bvh4, AccelLayout::Bvh8}) {
        const CompiledScene c = compile_scene(scene, accel);
        DeviceScene ds(c);
        const SceneView& s = ds.view;
        glm::vec3 light = light_world - c.render_origin;
        if (!have_light)
            light = c.lights.empty() ? glm::vec3(0.0f, 1e3f, 0.0f)
                                     : glm::vec3(c.lights[0].pos_or_dir.x, c.lights[0].pos_or_dir.y,
                                                 c.lights[0].pos_or_dir.z);
        DeviceArray<float4> po(kN), pd(kN), so(kN), sd(kN);
        DeviceArray<float> pt(kN), st(kN);
        DeviceArray<int> pid(kN), sid(kN);
        const Rays prim{po.p, pd.p, pt.p, pid.p}, sh{so.p, sd.p, st.p, sid.p};
        k_primary<<<grid, kBlock>>>(make_camera(scene.camera, kW, kH, c.render_origin), prim);
        float ms_closest = 0.0f, ms_any = 0.0f;
        with_bvh_width(s, [&](auto w) {
            constexpr int W = decltype(w)::value;
            ms_closest = median_ms([&] { k_closest<W><<<grid, kBlock>>>(s, prim); });
            k_shadow<<<grid, kBlock>>>(s, prim, sh, light);
            ms_any = median_ms([&] { k_any<W><<<grid, kBlock>>>(s, sh); });
        });
        CHECK(cudaGetLastError());
        // Hit ids are BVH-order positions, which the BVH8 reorders: compare original ids.
        std::vector<int> closest = pid.download(kN);
        const std::vector<int> any = sid.download(kN);
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
    return 0;
}
