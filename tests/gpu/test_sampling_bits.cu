// The path integrator's arithmetic (render/rng.h, render/sampling.h, render/bsdf.h) gives
// the same bits on the device as on the host, where the CPU executor runs it: Philox, the portable sine, cosine
// and exp, the frame, the warps, and every BSDF's sample, eval and pdf, over 4096 cases
// (gpu/sampling_cases.h). Bit-identical images in every mode rest on this.
#include "gpu/sampling_cases.h"
#include "render/scene_gpu.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

__global__ void k_sampling_cases(float* out) {
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < srt::test::kSamplingCases) srt::test::sampling_case(k, out + size_t(k) * srt::test::kFloatsPerCase);
}

__global__ void k_light_cases(srt::SceneView s, float* out) {
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < srt::test::kLightCases) srt::test::light_case(s, k, out + size_t(k) * srt::test::kFloatsPerLightCase);
}

template <class T>
T* to_device(const std::vector<T>& v) {
    T* d = nullptr;
    if (v.empty()) return nullptr;
    EXPECT_EQ(cudaMalloc(&d, v.size() * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    return d;
}

}  // namespace

TEST(Gpu, SamplingArithmeticIsBitIdentical) {
    using namespace srt::test;
    const size_t n = size_t(kSamplingCases) * kFloatsPerCase;
    float* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, n * sizeof(float)), cudaSuccess);
    k_sampling_cases<<<(kSamplingCases + 127) / 128, 128>>>(d);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    std::vector<float> device(n), host(n);
    ASSERT_EQ(cudaMemcpy(device.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(d);
    sampling_cases_host(host.data());
    size_t differ = 0;
    for (size_t i = 0; i < n; ++i)
        if (std::memcmp(&device[i], &host[i], sizeof(float)) != 0) {
            if (differ < 10)
                ADD_FAILURE() << "case " << i / kFloatsPerCase << " value " << i % kFloatsPerCase << ": device "
                              << device[i] << ", host " << host[i];
            ++differ;
        }
    std::printf("[sampling] %zu values, %zu differ between device and host\n", n, differ);
    EXPECT_EQ(differ, 0u);
}

// Light sampling over a compiled light table (a point light, an emissive triangle, a
// two-sided emissive sphere and an environment map) gives the same bits on the device as on the host.
TEST(Gpu, LightSamplingIsBitIdentical) {
    using namespace srt;
    using namespace srt::test;
    Scene sc;
    sc.name = "lights";
    sc.add_material(Material{});
    Material lamp;
    lamp.emission = glm::vec3(4.0f, 3.0f, 2.0f);
    const uint32_t ml = sc.add_material(lamp);
    Material ball;
    ball.emission = glm::vec3(1.0f, 2.0f, 1.0f);
    ball.emission_two_sided = true;
    const uint32_t mb = sc.add_material(ball);
    Triangle t;
    t.v0 = Point3(-1, 2, -1);
    t.v1 = Point3(1, 2.2, -1);
    t.v2 = Point3(1, 1.9, 1);
    t.material = ml;
    sc.triangles.push_back(t);
    Sphere sp;
    sp.centre = Point3(1.5, 0.5, 0.0);
    sp.radius = 0.4;
    sp.material = mb;
    sc.spheres.push_back(sp);
    Light point;
    point.position = Point3(0, 3, 1);
    point.colour = glm::vec3(2.0f);
    sc.lights = {point};
    // An environment map with a bright texel among a gradient, turned: the fourth light.
    auto sky = std::make_shared<RadianceImage>();
    sky->width = 16;
    sky->height = 8;
    for (int k = 0; k < 16 * 8; ++k)
        for (int c = 0; c < 3; ++c) sky->rgb.push_back(k == 37 ? 40.0f : 0.05f * float(k % 16 + c) + 0.01f * float(k / 16));
    sc.environment.image = sky;
    sc.environment.rotation = 30.0f;
    const CompiledScene cs = compile_scene(sc);
    const SceneView host = cs.view();
    SceneView dev = host;
    dev.lights = to_device(cs.lights);
    dev.emitters = to_device(cs.emitters);
    dev.light_cdf = to_device(cs.light_cdf);
    dev.light_pmf = to_device(cs.light_pmf);
    dev.prim_emitter = to_device(cs.prim_emitter);
    dev.env.texels = to_device(cs.env_texels);
    dev.env.row_cdf = to_device(cs.env_row_cdf);
    dev.env.col_cdf = to_device(cs.env_col_cdf);
    const size_t n = size_t(kLightCases) * kFloatsPerLightCase;
    float* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, n * sizeof(float)), cudaSuccess);
    k_light_cases<<<(kLightCases + 127) / 128, 128>>>(dev, d);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    std::vector<float> device(n), reference(n);
    ASSERT_EQ(cudaMemcpy(device.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    for (const void* p : {(const void*)d, (const void*)dev.lights, (const void*)dev.emitters, (const void*)dev.light_cdf,
                          (const void*)dev.light_pmf, (const void*)dev.prim_emitter, (const void*)dev.env.texels,
                          (const void*)dev.env.row_cdf, (const void*)dev.env.col_cdf})
        cudaFree(const_cast<void*>(p));
    light_cases_host(host, reference.data());
    size_t differ = 0, valid = 0;
    for (size_t i = 0; i < n; ++i) {
        if (i % kFloatsPerLightCase == 8) valid += (int(reference[i]) & 1);
        if (std::memcmp(&device[i], &reference[i], sizeof(float)) != 0) {
            if (differ < 10)
                ADD_FAILURE() << "case " << i / kFloatsPerLightCase << " value " << i % kFloatsPerLightCase
                              << ": device " << device[i] << ", host " << reference[i];
            ++differ;
        }
    }
    std::printf("[lights] %zu values (%zu valid samples), %zu differ between device and host\n", n, valid, differ);
    EXPECT_EQ(differ, 0u);
    EXPECT_GT(valid, size_t(kLightCases / 4));
    ASSERT_NE(cs.env.light, kNoEmitter);
    size_t env_picked = 0;
    for (size_t k = 0; k < kLightCases; ++k) env_picked += uint32_t(reference[k * kFloatsPerLightCase + 9]) == cs.env.light;
    EXPECT_GT(env_picked, 0u) << "no case sampled the environment map";
}
