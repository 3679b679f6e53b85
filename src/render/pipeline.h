// pipeline.h - the frame loop, once, for every executor.
//
// An executor supplies the five stage launchers; this loop is the whole algorithm:
//
//   for each sample:
//     generate camera rays                  (writes the stencil: real pixels alive)
//     for bounce = 0 .. depth-1:
//       intersect                           (reads + writes the stencil: misses die)
//       shade: direct light + shadow rays   (reads the stencil)
//       reflect: mirror bounce              (reads + writes the stencil: non-mirrors die)
//   resolve into pixels
//
// Executors may stop the bounce loop early when they know every ray is dead
// (`all_dead`); the CUDA executor never knows without a sync, so it keeps launching
// and the stencil makes the dead bounces cost only their launches.
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
    const uint32_t spp = uint32_t(settings.spp);
    f.inv_spp = 1.0f / float(spp);
    f.max_depth = settings.depth;
    for (uint32_t s = 0; s < spp; ++s) {
        f.sample = s;
        sample_offset(s, spp, f.sample_dx, f.sample_dy);
        launch.generate(f);
        for (int bounce = 0; bounce < settings.depth; ++bounce) {
            if (launch.all_dead()) break;
            launch.intersect(f, bounce);
            launch.shade(f, bounce);
            launch.reflect(f, bounce);
        }
    }
    launch.resolve(f);
}

}  // namespace srt
