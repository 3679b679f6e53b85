// The path integrator's arithmetic (render/rng.h, render/sampling.h, render/bsdf.h) gives
// the same bits on the device as on the host, where the CPU executor runs it: Philox, the portable sine, cosine
// and exp, the frame, the warps, and every BSDF's sample, eval and pdf, over 4096 cases
// (gpu/sampling_cases.h). Bit-identical images in every mode rest on this.
#include "gpu/sampling_cases.h"

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
