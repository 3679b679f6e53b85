// The host side of Gpu.SamplingArithmeticIsBitIdentical, compiled as the CPU executor is
// (a .cpp: -ffp-contract=off), not by nvcc's host pass.
#include "gpu/sampling_cases.h"

namespace srt::test {

void sampling_cases_host(float* out) {
    for (uint32_t k = 0; k < kSamplingCases; ++k) sampling_case(k, out + size_t(k) * kFloatsPerCase);
}

}  // namespace srt::test

namespace srt::test {

void light_cases_host(const SceneView& s, float* out) {
    for (uint32_t k = 0; k < kLightCases; ++k) light_case(s, k, out + size_t(k) * kFloatsPerLightCase);
}

}  // namespace srt::test
