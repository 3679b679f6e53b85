// dead_bounce.h - what a bounce costs once (nearly) every ray is dead, from a depth sweep.
//
// The figure: the slope of the median frame time from the depth where live rays
// first fall below 0.1% of the primary rays to four bounces later. A renderer whose dead
// bounces are free has a slope near 0; one that launches full grids for dead rays pays
// its launches at every bounce.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace srt::bench {

struct DepthTime {
    int depth = 0;
    double median_ms = 0.0;
};

struct DeadBounceCost {
    bool ok = false;
    int from_depth = 0, to_depth = 0;  // the slope is measured between these depths
    double ms_per_bounce = 0.0;        // (t(to) - t(from)) / (to - from)
    // The first bounce whose live rays the sweep measured below the fraction, or -1 when
    // its deepest frame ended (at its depth limit) before they fell that low.
    int measured_bounce = -1;
    // When measured_bounce is -1: the bounce where they would fall below it if they went
    // on falling as over the last bounces measured (-1 when they did not fall there).
    int extrapolated_bounce = -1;
    std::string why_not;  // when !ok: what the sweep lacks, and the --depths that would fill it
};

// `live_rays[b]` are the rays entering bounce b (b = 0: the primary rays) of the sweep's
// deepest frame, which could trace `levels` bounces (render/settings.h trace_levels: the
// depth, one more under the path integrator). Fewer rows than `levels` mean every ray had
// died: the bounce after the last row was measured empty. As many mean the frame ended at
// its limit, and nothing after it was measured. `times` are one mode's median frame times
// by depth. The slope starts at depth b0 + 1, the first depth whose frame runs the
// near-dead bounce b0 whole.
DeadBounceCost dead_bounce_cost(const std::vector<DepthTime>& times, const std::vector<uint64_t>& live_rays,
                                int levels, double fraction = 1e-3, int span = 4);

// FPS at `depth` over FPS at depth 1 (0 when either is missing). The GTX 560 stencil tracer
// of seed 004 kept 0.63 of its depth-1 FPS at depth 6.
double fps_ratio(const std::vector<DepthTime>& times, int depth);

// Seed 004 is the 2012 Habr article "a stencil buffer in CUDA", where this renderer's idea
// comes from: its ray tracer's FPS by depth (1 .. 6) on its simplest reflective scene, on a
// GTX 560. The bench and the plot show it beside ours as "the GTX 560 stencil tracer (2012)".
inline const std::vector<double>& seed_fps_by_depth() {
    static const std::vector<double> fps = {30.0, 25.0, 23.7, 20.0, 19.4, 18.8};
    return fps;
}

}  // namespace srt::bench
