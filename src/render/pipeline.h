// pipeline.h - the frame loop, once, for every executor.
//
// An executor supplies the stage launchers and the two loops; this is the whole
// algorithm:
//
//   for each sample:
//     generate camera rays                  (writes the stencil: real pixels alive)
//     for bounce = 0 .. depth-1, while some ray is alive:
//       intersect                           (reads + writes the stencil: misses die)
//       shade: direct light + shadow rays   (reads the stencil)
//       reflect: mirror bounce              (reads + writes the stencil: non-mirrors die)
//   resolve into pixels
//
// The loops belong to the executor because they run in different places: the CPU
// executor loops on the host and stops once every stencil word is 0; the CUDA executor
// loops on the device (conditional WHILE nodes of a CUDA graph, steered by the kernels
// themselves), or, with stream launches, on the host without knowing when the rays die.
// Both stop the bounce loop after the same bounce, so their FrameStats::bounces_run agree.
#pragma once

#include "render/frame.h"
#include "render/settings.h"

#include <cmath>

namespace srt {

// Sub-pixel position of sample s of n: pixel centres for n == 1, otherwise the R2
// low-discrepancy sequence (Roberts 2018), fixed so that every executor agrees.
inline void sample_offset(uint32_t s, uint32_t n, float& dx, float& dy) {
    if (n <= 1) {
        dx = dy = 0.5f;
        return;
    }
    const double g = 1.32471795724474602596;
    const double a1 = 1.0 / g, a2 = 1.0 / (g * g);
    double x = 0.5 + a1 * double(s), y = 0.5 + a2 * double(s);
    dx = float(x - std::floor(x));
    dy = float(y - std::floor(y));
}

template <class Launcher>
void run_frame(Launcher& launch, FrameContext& f, const RenderSettings& settings) {
    f.spp = uint32_t(settings.spp);
    f.inv_spp = 1.0f / float(settings.spp);
    f.max_depth = settings.depth;
    launch.begin_frame(f);
    launch.for_each_sample(f, [&] {
        launch.generate(f);
        launch.for_each_bounce(f, [&](int bounce) {
            launch.intersect(f, bounce);
            launch.shade(f, bounce);
            launch.reflect(f, bounce);
        });
    });
    launch.resolve(f);
}

}  // namespace srt
