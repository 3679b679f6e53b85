// What the samplers buy (render/sampler.h): the mean squared error of a small image at 1,
// 4, 16 and 64 samples a pixel, against a converged reference the test makes once, for
// each sampler. sobol and zsobol must not be worse than independent numbers at any count,
// within a margin from the test's own spread: 16 replicates (seeds) of each image, and the
// difference of MSEs replicate by replicate. The figures it prints are the ones
// docs/performance.md ("Samplers") quotes. scenes/glass.json always; the Cornell box and
// Conference where ../shared/data is present.
#include "render/executor.h"
#include "render/path_vertex.h"
#include "render/scene_gpu.h"
#include "scene/load.h"
#include "scene/scene.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <thread>
#include <vector>

using namespace srt;

namespace {

// Mean radiance per pixel over samples 0 .. spp-1 under `seed`, the reference's per-pixel
// path, over two threads.
std::vector<glm::dvec3> render_mean(const CompiledScene& cs, int w, int h, int spp, int depth, SamplerKind kind,
                                    uint32_t seed) {
    SamplerLayout l;
    l.kind = kind;
    if (kind == SamplerKind::ZSobol && !zsobol_layout(uint32_t(w), uint32_t(h), uint32_t(spp), l))
        throw std::invalid_argument("zsobol cannot lay out this frame");
    const CameraGpu cam = make_camera(cs.camera, w, h, cs.render_origin);
    std::vector<glm::dvec3> img(size_t(w * h), glm::dvec3(0.0));
    auto rows = [&](int y0) {
        for (int y = y0; y < h; y += 2)
            for (int x = 0; x < w; ++x) {
                glm::dvec3 sum(0.0);
                for (int s = 0; s < spp; ++s)
                    sum += glm::dvec3(reference_path_sample(cs, cam, w, h, x, y, uint32_t(s), depth, seed, nullptr,
                                                            PathStrategy::Mis, l));
                img[size_t(y * w + x)] = sum / double(spp);
            }
    };
    std::thread t(rows, 1);
    rows(0);
    t.join();
    return img;
}

double mse(const std::vector<glm::dvec3>& a, const std::vector<glm::dvec3>& ref) {
    double e = 0.0;
    for (size_t i = 0; i < a.size(); ++i) {
        const glm::dvec3 d = a[i] - ref[i];
        e += glm::dot(d, d) / 3.0;
    }
    return e / double(a.size());
}

// MSE per sampler and sample count, each the mean of `reps` replicates; fails where
// sobol or zsobol is worse than independent by more than k standard errors of the
// paired difference (k = 3.5: one-sided, 16 comparisons, family-wise 1e-3 -> 3.4).
void expect_not_worse(const std::string& name, const Scene& scene, int w, int h, int depth, int ref_spp) {
    const CompiledScene cs = compile_scene(scene);
    const std::vector<glm::dvec3> ref = render_mean(cs, w, h, ref_spp, depth, SamplerKind::Independent, 1000003u);
    const int reps = 16;
    const SamplerKind kinds[3] = {SamplerKind::Independent, SamplerKind::Sobol, SamplerKind::ZSobol};
    std::printf("[mse] %s %dx%d depth %d against %d spp; MSE (x 1e-4, mean of %d replicates)\n", name.c_str(), w, h,
                depth, ref_spp, reps);
    std::printf("[mse]   spp  independent        sobol       zsobol\n");
    for (int spp : {1, 4, 16, 64}) {
        double m[3][16];
        for (int k = 0; k < 3; ++k)
            for (int r = 0; r < reps; ++r) m[k][r] = mse(render_mean(cs, w, h, spp, depth, kinds[k], uint32_t(r)), ref);
        double mean[3] = {0, 0, 0};
        for (int k = 0; k < 3; ++k) {
            for (int r = 0; r < reps; ++r) mean[k] += m[k][r] / reps;
        }
        std::printf("[mse] %5d  %11.3f  %11.3f  %11.3f   (sobol %.2fx, zsobol %.2fx)\n", spp, 1e4 * mean[0],
                    1e4 * mean[1], 1e4 * mean[2], mean[1] / mean[0], mean[2] / mean[0]);
        for (int k = 1; k < 3; ++k) {
            double d = 0.0, d2 = 0.0;
            for (int r = 0; r < reps; ++r) {
                d += (m[k][r] - m[0][r]) / reps;
                d2 += (m[k][r] - m[0][r]) * (m[k][r] - m[0][r]) / reps;
            }
            const double se = std::sqrt(std::max(d2 - d * d, 0.0) / (reps - 1));
            EXPECT_LT(d, 3.5 * se + 1e-12) << name << ", " << to_string(kinds[k]) << " at " << spp
                                           << " spp: MSE " << mean[k] << " against independent's " << mean[0];
        }
    }
}

}  // namespace

TEST(SamplerError, GlassSceneNotWorseThanIndependent) {
    const Scene scene = load_scene(std::string(SRT_SOURCE_DIR) + "/scenes/glass.json");
    expect_not_worse("glass.json", scene, 32, 32, 6, 4096);
}

TEST(SamplerError, CornellBoxNotWorseThanIndependent) {
    const std::string obj = std::string(SRT_SHARED_DATA) + "/scenes/cornell-box/CornellBox-Original.obj";
    if (!std::ifstream(obj)) GTEST_SKIP() << obj << " not present";
    expect_not_worse("CornellBox-Original", load_scene(obj), 32, 32, 8, 4096);
}
