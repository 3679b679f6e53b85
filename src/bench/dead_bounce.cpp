#include "bench/dead_bounce.h"

#include <sstream>

namespace srt::bench {
namespace {

const DepthTime* at_depth(const std::vector<DepthTime>& times, int depth) {
    for (const DepthTime& t : times)
        if (t.depth == depth) return &t;
    return nullptr;
}

}  // namespace

DeadBounceCost dead_bounce_cost(const std::vector<DepthTime>& times, const std::vector<uint64_t>& live_rays,
                                double fraction, int span) {
    DeadBounceCost c;
    if (live_rays.empty() || live_rays[0] == 0) {
        c.why_not = "no primary rays counted";
        return c;
    }
    const double limit = fraction * double(live_rays[0]);
    size_t b0 = 0;
    while (b0 < live_rays.size() && double(live_rays[b0]) >= limit) ++b0;
    // b0 == live_rays.size(): the counted frame never fell below the limit, but bounces
    // past its end trace no rays, so b0 is still the first near-dead bounce if the sweep
    // went deeper than the counted frame did.
    c.from_depth = int(b0) + 1;
    c.to_depth = c.from_depth + span;
    const DepthTime* a = at_depth(times, c.from_depth);
    const DepthTime* b = at_depth(times, c.to_depth);
    if (!a || !b) {
        std::ostringstream why;
        why << "the sweep has no depth " << (a ? c.to_depth : c.from_depth) << " (live rays fall below "
            << fraction * 100.0 << "% of the primary rays at bounce " << b0 << "); measure it with --depths 1.."
            << c.to_depth;
        c.why_not = why.str();
        return c;
    }
    c.ms_per_bounce = (b->median_ms - a->median_ms) / double(span);
    c.ok = true;
    return c;
}

double fps_ratio(const std::vector<DepthTime>& times, int depth) {
    const DepthTime* one = at_depth(times, 1);
    const DepthTime* d = at_depth(times, depth);
    if (!one || !d || one->median_ms <= 0.0 || d->median_ms <= 0.0) return 0.0;
    return one->median_ms / d->median_ms;
}

}  // namespace srt::bench
