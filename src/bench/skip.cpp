// skip.cpp - bench --skip: dead rays skipped per second per mode (bench.h; CUDA).
#include "bench/bench.h"

#include "bench/dead_bounce.h"
#include "core/error.h"
#include "core/output_file.h"
#include "render/scene_gpu.h"
#include "render/stencil.h"
#include "render/tuning_cache.h"
#include "revision.h"  // generated: SRT_REVISION

#if defined(SRT_HAVE_CUDA)
#include "cuda/cuda_executor.h"
#include "cuda/device_info.h"
#include "cuda/skip_bench.h"
#endif

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#if defined(SRT_HAVE_CUDA)
namespace srt::bench {

// ---------------------------------------------------------------------------
// --skip (CUDA only)
// ---------------------------------------------------------------------------
namespace {
void skip_progress(int done, int total, void* ctx) {
    auto* p = static_cast<Progress*>(ctx);
    (void)total;
    p->step("case " + std::to_string(done));
}
}  // namespace

int run_skip(const BenchOptions& o, Executor& ex) {
    SkipBenchOptions so;
    so.rays = o.skip_rays;
    so.iterations = o.skip_iterations;
    std::printf("skip     %u rays (padded to warps), %d timed launches per case (median), L2 flushed before each; "
                "live rays write one float\n", padded_ray_count(o.skip_rays), so.iterations);
    // 2 patterns x the live fractions x 4 modes (stencil, flags, compact, stencil-dense), as
    // run_skip_bench counts them.
    Progress progress("bench --skip", 2 * int(so.live_fractions.size()) * 4, !o.no_progress);
    const SkipBenchReport rep = run_skip_bench(so, skip_progress, &progress);
    progress.finish(std::to_string(rep.results.size() - 1) + " cases");

    std::printf("\nempty kernel (k_empty) over %u threads: %.4f ms = %.2f G empty thread calls/s\n\n", rep.rays,
                rep.empty_ms, double(rep.rays) / (rep.empty_ms * 1e-3) * 1e-9);
    std::printf("%-12s %-9s %6s %11s %11s %10s %10s %10s %13s %11s %9s\n", "mode", "pattern", "live", "live warps",
                "median ms", "p10", "p90", "empty ms", "G dead/s", "G rays/s", "x empty");
    for (const SkipResult& r : rep.results) {
        if (r.mode == "empty") continue;
        std::printf("%-12s %-9s %5.0f%% %11llu %11.4f %10.4f %10.4f %10.4f %13.2f %11.2f %9.2f\n", r.mode.c_str(),
                    r.pattern.c_str(), 100.0 * r.live_fraction, (unsigned long long)r.live_warps, r.median_ms,
                    r.p10_ms, r.p90_ms, r.empty_ms, r.dead_per_s() * 1e-9, r.rays_per_s() * 1e-9,
                    r.empty_ms > 0 ? r.median_ms / r.empty_ms : 0.0);
    }

    if (!o.csv.empty()) {
        std::ostringstream c;
        c << "mode,pattern,live_fraction,rays,live_rays,dead_rays,live_warps,block,grid,median_ms,p10_ms,p90_ms,"
             "min_ms,max_ms,empty_ms,dead_per_s,rays_per_s\n";
        char buf[512];
        for (const SkipResult& r : rep.results) {
            std::snprintf(buf, sizeof buf, "%s,%s,%.4f,%llu,%llu,%llu,%llu,%d,%u,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6g,%.6g\n",
                          r.mode.c_str(), r.pattern.c_str(), r.live_fraction, (unsigned long long)r.rays,
                          (unsigned long long)r.live_rays, (unsigned long long)r.dead_rays,
                          (unsigned long long)r.live_warps, r.block, r.grid, r.median_ms, r.p10_ms, r.p90_ms,
                          r.min_ms, r.max_ms, r.empty_ms, r.dead_per_s(), r.rays_per_s());
            c << buf;
        }
        write_output(o.csv, c.str(), "csv");
    }
    ojson doc = record_head("skip", ex, o);
    doc["skip"]["rays"] = rep.rays;
    doc["skip"]["iterations"] = so.iterations;
    doc["skip"]["l2_flushed"] = true;
    doc["skip"]["empty_ms"] = rep.empty_ms;
    ojson arr = ojson::array();
    for (const SkipResult& r : rep.results)
        arr.push_back({{"mode", r.mode},         {"pattern", r.pattern},   {"live_fraction", r.live_fraction},
                       {"rays", r.rays},         {"live_rays", r.live_rays}, {"dead_rays", r.dead_rays},
                       {"live_warps", r.live_warps}, {"block", r.block},   {"grid", r.grid},
                       {"median_ms", r.median_ms}, {"p10_ms", r.p10_ms},   {"p90_ms", r.p90_ms},
                       {"min_ms", r.min_ms},     {"max_ms", r.max_ms},     {"empty_ms", r.empty_ms},
                       {"dead_per_s", r.dead_per_s()}, {"rays_per_s", r.rays_per_s()}});
    doc["skip"]["results"] = arr;
    return write_json_and_plot(o, doc);
}

}  // namespace srt::bench
#endif  // SRT_HAVE_CUDA
