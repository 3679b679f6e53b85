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
    std::string why_not;               // when !ok: what the sweep lacks
};

// `live_rays[b]` are the rays entering bounce b (b = 0: the primary rays) of a frame as
// deep as the sweep's deepest; bounces past the end traced none. `times` are one mode's
// median frame times by depth. A frame of depth d traces bounces 0 .. d-1, so the first
// near-dead bounce b0 is first traced at depth b0 + 1.
DeadBounceCost dead_bounce_cost(const std::vector<DepthTime>& times, const std::vector<uint64_t>& live_rays,
                                double fraction = 1e-3, int span = 4);

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
