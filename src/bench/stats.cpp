// stats.cpp - the spread of the timed frames (bench.h).
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
// Statistics over the timed frames
// ---------------------------------------------------------------------------


double percentile_sorted(const std::vector<double>& v, double q) {
    if (v.empty()) return 0.0;
    const double pos = q * double(v.size() - 1);
    const size_t lo = size_t(std::floor(pos)), hi = size_t(std::ceil(pos));
    return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
}

Spread spread_of(std::vector<double> v) {
    Spread s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    s.median = percentile_sorted(v, 0.5);
    s.p10 = percentile_sorted(v, 0.1);
    s.p90 = percentile_sorted(v, 0.9);
    s.min = v.front();
    s.max = v.back();
    double sum = 0;
    for (double x : v) sum += x;
    s.mean = sum / double(v.size());
    std::vector<double> dev;
    for (double x : v) dev.push_back(std::fabs(x - s.median));
    std::sort(dev.begin(), dev.end());
    s.mad = percentile_sorted(dev, 0.5);
    return s;
}

ojson spread_json(const Spread& s) {
    return ojson{{"median", s.median}, {"mean", s.mean}, {"min", s.min}, {"max", s.max},
                 {"p10", s.p10},       {"p90", s.p90},   {"mad", s.mad}};
}

}  // namespace srt::bench
