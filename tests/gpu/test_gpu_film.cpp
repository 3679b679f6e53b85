// GPU tests of the film's guard (render/stages.h, "The film"): a NaN background, which
// every missed ray adds, is dropped and counted on the GPU as on the CPU: the same image
// and the same count of dropped samples, in every mode and launch kind, under both
// integrators. Label `gpu`, in srt_gpu_tests (exits 77 without a device).
#include "cuda/cuda_executor.h"
#include "render/executor.h"
#include "scene/scene.h"
#include "support/settings.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

using namespace srt;

TEST(GpuFilm, NonFiniteSamplesAreDroppedAndCountedAsOnTheCpu) {
    std::string why;
    auto g = make_cuda_executor(why);
    ASSERT_TRUE(g) << why;
    auto cpu = make_cpu_executor();
    Scene scene = builtin_default_scene();
    scene.background = glm::vec3(std::nanf(""), 0.0f, 0.0f);
    const CompiledScene cs = compile_scene(scene);
    g->set_scene(cs);
    cpu->set_scene(cs);
    int checked = 0;
    for (const Integrator integrator : {Integrator::Whitted, Integrator::Path}) {
        RenderSettings rs = test::Frame(67, 33, 6, DeadRayMode::Stencil).spp(2).integrator(integrator);
        Image ref;
        FrameStats want;
        cpu->render(scene.camera, rs, ref, &want);
        ASSERT_GT(want.nonfinite_samples, 100u) << to_string(integrator) << ": the sky is seen";
        for (const DeadRayMode m : {DeadRayMode::Stencil, DeadRayMode::Flags, DeadRayMode::Compact, DeadRayMode::Pool,
                                    DeadRayMode::Megakernel, DeadRayMode::Regenerate})
            for (const LaunchMode l : {LaunchMode::Graph, LaunchMode::Stream}) {
                rs.mode = m;
                rs.launch = l;
                Image img;
                FrameStats got;
                g->render(scene.camera, rs, img, &got);
                EXPECT_EQ(img.rgba, ref.rgba) << to_string(integrator) << " " << to_string(m) << " " << to_string(l);
                EXPECT_EQ(got.nonfinite_samples, want.nonfinite_samples)
                    << to_string(integrator) << " " << to_string(m) << " " << to_string(l);
                ++checked;
            }
        std::printf("[gpu film] %-8s %llu non-finite samples dropped, as on the CPU\n", to_string(integrator),
                    (unsigned long long)want.nonfinite_samples);
    }
    EXPECT_EQ(checked, 24);
}
