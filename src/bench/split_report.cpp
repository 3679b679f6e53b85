// split_report.cpp - bench --devices: the bands, the balance and the scaling (bench.h).
#include "bench/bench.h"

#include "render/split_executor.h"

#include <algorithm>
#include <cstdio>

namespace srt::bench {

ojson report_split(const BenchOptions& o, Executor& ex, SplitExecutor& split, const Camera& camera,
                   const RenderSettings& base, const std::vector<Result>& results) {
    ojson out = ojson::object();
    if (results.empty()) return out;
    auto settings_of = [&](const Result& r) {
        RenderSettings rs = base;
        rs.mode = r.mode;
        rs.launch = r.launch;
        rs.depth = r.depth;
        return rs;
    };

    // Bands: the mean over a fresh run of timed frames of the last configuration (the
    // sweep's own last frame is its counted one, which reads counters back).
    const Result& last = results.back();
    const RenderSettings rs = settings_of(last);
    for (int k = 0; k < o.warmup; ++k) ex.timed_frame(camera, rs, nullptr);
    std::vector<SplitExecutor::Band> sum(split.parts());
    const int frames = std::max(1, o.frames);
    for (int k = 0; k < frames; ++k) {
        ex.timed_frame(camera, rs, nullptr);
        for (size_t i = 0; i < split.parts() && i < split.bands().size(); ++i) {
            const SplitExecutor::Band& b = split.bands()[i];
            sum[i].y = b.y;
            sum[i].rows = b.rows;
            sum[i].ms += b.ms / frames;
            sum[i].gather_ms += b.gather_ms / frames;
        }
    }
    std::printf("\nsplit frame over %zu devices: %s %s depth %d, mean of %d timed frames per band\n", split.parts(),
                to_string(last.mode), to_string(last.launch), last.depth, frames);
    ojson bands = ojson::array();
    double lo = 1e300, hi = 0.0;
    for (size_t i = 0; i < sum.size(); ++i) {
        const SplitExecutor::Band& b = sum[i];
        std::printf("  part %zu, %s: rows %d..%d (%d rows): %.3f ms, of which %.3f ms gathering onto part 0's GPU\n", i,
                    split.part(i).name().c_str(), b.y, b.y + b.rows - 1, b.rows, b.ms, b.gather_ms);
        bands.push_back({{"part", i}, {"executor", split.part(i).name()}, {"first_row", b.y}, {"rows", b.rows},
                         {"ms", b.ms}, {"gather_ms", b.gather_ms}});
        if (b.rows > 0) {
            lo = std::min(lo, b.ms);
            hi = std::max(hi, b.ms);
        }
    }
    const double balance = hi > 0.0 ? lo / hi : 0.0;
    std::printf("  balance (fastest band / slowest band): %.3f\n", balance);
    out["bands"] = bands;
    out["balance"] = balance;

    // Scaling: the same configurations, the whole frame on part 0 alone.
    std::printf("\nscaling against one device (part 0 alone, the whole frame; median ms):\n");
    std::printf("  %-8s %-6s %5s %12s %12s %8s\n", "mode", "launch", "depth", "1 device", "split", "scaling");
    ojson scaling = ojson::array();
    for (const Result& r : results) {
        const Spread one = spread_of(time_frames(split.part(0), camera, settings_of(r), o.warmup, o.frames));
        const double x = r.frame.median > 0.0 ? one.median / r.frame.median : 0.0;
        std::printf("  %-8s %-6s %5d %12.3f %12.3f %7.2fx\n", to_string(r.mode), to_string(r.launch), r.depth,
                    one.median, r.frame.median, x);
        scaling.push_back({{"mode", to_string(r.mode)}, {"launch", to_string(r.launch)}, {"depth", r.depth},
                           {"one_device_ms", one.median}, {"split_ms", r.frame.median}, {"scaling", x}});
    }
    out["scaling"] = scaling;
    out["devices"] = split.parts();
    return out;
}

}  // namespace srt::bench
