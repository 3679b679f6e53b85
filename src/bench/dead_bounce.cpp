#include "bench/dead_bounce.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace srt::bench {
namespace {

const DepthTime* at_depth(const std::vector<DepthTime>& times, int depth) {
    for (const DepthTime& t : times)
        if (t.depth == depth) return &t;
    return nullptr;
}

// The decay over the last bounces measured, at most `window` ratios of neighbouring
// bounces, as one factor a bounce (their geometric mean). Only the last few: in Whitted's
// mirror scenes the first bounces lose the misses and the diffuse surfaces fast, the
// later ones only what leaves a mirror corridor, and the later ones are what follows.
struct Decay {
    double per_bounce = 1.0;
    size_t first = 0, last = 0;  // the bounces it is measured over
};
Decay decay_of(const std::vector<uint64_t>& live, size_t window = 2) {
    Decay d;
    d.last = live.size() - 1;
    d.first = d.last - std::min(window, d.last);
    if (d.first == d.last || live[d.first] == 0) return d;
    d.per_bounce = std::pow(double(live[d.last]) / double(live[d.first]), 1.0 / double(d.last - d.first));
    return d;
}

std::string percent(double fraction) {
    std::ostringstream s;
    s.precision(3);
    s << fraction * 100.0 << "%";
    return s.str();
}

}  // namespace

DeadBounceCost dead_bounce_cost(const std::vector<DepthTime>& times, const std::vector<uint64_t>& live_rays,
                                int levels, double fraction, int span) {
    DeadBounceCost c;
    if (live_rays.empty() || live_rays[0] == 0) {
        c.why_not = "no primary rays counted";
        return c;
    }
    const double limit = fraction * double(live_rays[0]);
    size_t b0 = 0;
    while (b0 < live_rays.size() && double(live_rays[b0]) >= limit) ++b0;
    std::ostringstream why;
    if (b0 < live_rays.size() || int(live_rays.size()) < levels) {
        // Measured: a row below the limit, or a frame whose rays all died before its
        // limit (the bounce after its last row started with none alive).
        c.measured_bounce = int(b0);
        c.from_depth = int(b0) + 1;
        c.to_depth = c.from_depth + span;
        const DepthTime* a = at_depth(times, c.from_depth);
        const DepthTime* b = at_depth(times, c.to_depth);
        if (a && b) {
            c.ms_per_bounce = (b->median_ms - a->median_ms) / double(span);
            c.ok = true;
            return c;
        }
        why << "the sweep has no depth " << (a ? c.to_depth : c.from_depth) << " (live rays fall below "
            << percent(fraction) << " of the primary rays at bounce " << b0 << "); measure it with --depths 1.."
            << c.to_depth;
        c.why_not = why.str();
        return c;
    }
    // The deepest frame ended at its limit with more rays alive than that: where they
    // fall below it was not measured. What the measured decay says is offered, as such.
    const size_t last = live_rays.size() - 1;
    why << "the sweep ended before live rays fell below " << percent(fraction)
        << " of the primary rays: at bounce " << last << ", the deepest it traced, "
        << percent(double(live_rays[last]) / double(live_rays[0])) << " were alive";
    const Decay d = decay_of(live_rays);
    if (d.first == d.last) {
        why << "; one bounce shows no decay to go by: sweep deeper to find it";
    } else if (!(d.per_bounce < 1.0)) {
        why << "; they did not fall over bounces " << d.first << ".." << d.last
            << ", so there is no decay to go by: sweep deeper to find it";
    } else {
        // The first bounce k past `last` with live[last] * per_bounce^(k - last) < limit.
        const double steps = std::log(limit / double(live_rays[last])) / std::log(d.per_bounce);
        c.extrapolated_bounce = int(last) + int(std::floor(steps)) + 1;
        why.precision(2);
        why << "; falling x" << d.per_bounce << " a bounce, as over bounces " << d.first << ".." << d.last
            << ", they would fall below it at bounce " << c.extrapolated_bounce
            << " (an extrapolation, not a measurement); measure it with --depths 1.."
            << c.extrapolated_bounce + 1 + span;
    }
    c.why_not = why.str();
    return c;
}

double fps_ratio(const std::vector<DepthTime>& times, int depth) {
    const DepthTime* one = at_depth(times, 1);
    const DepthTime* d = at_depth(times, depth);
    if (!one || !d || one->median_ms <= 0.0 || d->median_ms <= 0.0) return 0.0;
    return one->median_ms / d->median_ms;
}

}  // namespace srt::bench
