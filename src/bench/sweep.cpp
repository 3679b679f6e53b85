// sweep.cpp - timing the configurations (bench.h).
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

namespace srt::bench {

// ---------------------------------------------------------------------------
// Measuring one configuration
// ---------------------------------------------------------------------------
std::vector<double> time_frames(Executor& ex, const Camera& cam, const RenderSettings& rs, int warmup,
                                int frames) {
    for (int k = 0; k < warmup; ++k) ex.timed_frame(cam, rs, nullptr);
    std::vector<double> ms;
    ms.reserve(size_t(frames));
    for (int k = 0; k < frames; ++k) ms.push_back(ex.timed_frame(cam, rs, nullptr));
    return ms;
}

std::vector<Result> run_sweep(const BenchOptions& o, Executor& ex, const Camera& camera, const RenderSettings& base) {
    std::vector<Result> results;
    Progress progress("bench", int(o.modes.size() * o.launches.size() * o.depths.size()), !o.no_progress);
    for (DeadRayMode m : o.modes) {
        for (LaunchMode l : o.launches) {
            for (int d : o.depths) {
                RenderSettings rs = base;
                rs.mode = m;
                rs.launch = l;
                rs.depth = d;
                Result r;
                r.mode = m;
                r.launch = l;
                r.depth = d;
                r.ms = time_frames(ex, camera, rs, o.warmup, o.frames);
                r.frame = spread_of(r.ms);
                // The counted frame, from the stream: stage times need events between
                // the kernels. Its counts and bounces_run equal a graph frame's (GPU test).
                // One counted frame first, untimed: the first launch of a kernel pays
                // for loading it (CUDA loads modules lazily), and stream kernels may not
                // have run yet in a graph sweep.
                rs.launch = LaunchMode::Stream;
                FrameStats warm;
                ex.timed_frame(camera, rs, &warm);
                ex.timed_frame(camera, rs, &r.stats);
                results.push_back(std::move(r));
                progress.step(std::string(to_string(m)) + " " + to_string(l) + " depth " + std::to_string(d));
            }
        }
    }
    progress.finish(std::to_string(results.size()) + " configurations x " + std::to_string(o.frames) + " frames");
    return results;
}

}  // namespace srt::bench
