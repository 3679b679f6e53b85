// bench.h - `stencilrt bench` as a library: the options, the sweep, the statistics, the
// reports (text, CSV and JSON from one result model), the --skip driver and the tuner
// (docs/benchmark.md). app/cmd_bench.cpp parses the command line and calls these.
//
// Frame times come from Executor::timed_frame (CUDA events around generate..resolve on
// the GPU, the host clock on the CPU): no display, no read-back, no file output. Counting
// live rays costs time, so each configuration's frames are timed WITHOUT stats and one
// more frame is rendered with stats for the counts, the rays traced and the stage times.
#pragma once

#include "bench/tuning.h"
#include "render/executor.h"
#include "render/settings.h"
#include "scene/scene.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>

#include <unistd.h>

namespace srt {
class CudaExecutor;
}

namespace srt::bench {

using Clock = std::chrono::steady_clock;
using ojson = nlohmann::ordered_json;

inline double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// ---------------------------------------------------------------------------
// Options (bench/options.cpp)
// ---------------------------------------------------------------------------
struct BenchOptions {
    std::string scene;        // the scene file ("" = the built-in scene), for the record
    ojson camera_overrides;   // the camera/light flags as given, for the record
    int width = 1920, height = 1080, spp = 1;
    std::string warp_shape = "8x4";
    std::string depths_text = "1..8";
    std::string modes_text = "all";
    std::string launches_text = "graph";
    std::string integrator_text;  // --integrator; empty: the scene's suggestion, else whitted
    Integrator integrator = Integrator::Whitted;
    uint32_t seed = 0;
    std::string sampler_text;  // --sampler; empty: the scene's suggestion, else kDefaultSampler
    SamplerKind sampler = kDefaultSampler;
    std::string kill_text = "none";  // --kill (render/kill.h)
    KillPattern kill;
    int frames = 50, warmup = 5;
    std::string backend = "auto";
    std::string devices;  // --devices: split each frame over these GPUs
    std::string csv, json, plot;
    bool skip = false, tune = false, no_tuning = false, no_progress = false;
    uint32_t skip_rays = 1u << 24;
    int skip_iterations = 200;

    std::vector<int> depths;
    std::vector<DeadRayMode> modes;
    std::vector<LaunchMode> launches;
};

// "1..8", "1,2,4,8", "1..3,8": items are N or A..B, 1 <= depth <= 64, A <= B.
std::vector<int> parse_depths(const std::string& text);
// "stencil,flags,compact" or "all".
std::vector<DeadRayMode> parse_modes(const std::string& text);
// "graph", "stream", "graph,stream" or "both".
std::vector<LaunchMode> parse_launches(const std::string& text);

// ---------------------------------------------------------------------------
// Statistics over the timed frames (bench/stats.cpp)
// ---------------------------------------------------------------------------
struct Spread {
    double median = 0, mean = 0, min = 0, max = 0, p10 = 0, p90 = 0, mad = 0;
};
// The q-quantile (0..1) of sorted values, linear between neighbours.
double percentile_sorted(const std::vector<double>& v, double q);
Spread spread_of(std::vector<double> v);
ojson spread_json(const Spread& s);

// ---------------------------------------------------------------------------
// Progress: one updating line on a terminal; on a pipe (CI logs) only a final line.
// ---------------------------------------------------------------------------
class Progress {
public:
    Progress(std::string what, int total, bool enabled)
        : what_(std::move(what)), total_(total), tty_(enabled && ::isatty(STDERR_FILENO)),
          enabled_(enabled), t0_(Clock::now()) {
        std::fflush(stdout);  // what was printed so far comes before the progress line
    }
    void step(const std::string& label) {
        ++done_;
        if (!tty_) return;
        const int width = 30;
        const int filled = total_ ? done_ * width / total_ : width;
        const double s = ms_since(t0_) * 1e-3;
        const double eta = done_ ? s / done_ * (total_ - done_) : 0.0;
        std::fprintf(stderr, "\r\033[K%s [%s%s] %d/%d %s  %.0fs, ~%.0fs left", what_.c_str(),
                     std::string(size_t(filled), '#').c_str(), std::string(size_t(width - filled), '.').c_str(),
                     done_, total_, label.c_str(), s, eta);
        std::fflush(stderr);
    }
    void finish(const std::string& summary) {
        if (!enabled_) return;
        std::fflush(stdout);
        if (tty_) std::fprintf(stderr, "\r\033[K");
        std::fprintf(stderr, "%s: %s in %.1f s\n", what_.c_str(), summary.c_str(), ms_since(t0_) * 1e-3);
    }

private:
    std::string what_;
    int total_, done_ = 0;
    bool tty_, enabled_;
    Clock::time_point t0_;
};

// ---------------------------------------------------------------------------
// What the record says about the machine, the build and the scene (bench/machine.cpp)
// ---------------------------------------------------------------------------
std::string cpu_model();
std::string utc_now();
// FNV-1a 64 of the scene file's bytes (included meshes are not folded in).
std::string scene_hash(const std::string& path);
bool is_cuda(Executor& ex);
ojson machine_json(Executor& ex);
std::string machine_line(const ojson& m);

// ---------------------------------------------------------------------------
// The sweep (bench/sweep.cpp)
// ---------------------------------------------------------------------------
struct Result {
    DeadRayMode mode;
    LaunchMode launch = LaunchMode::Graph;
    int depth = 0;
    std::vector<double> ms;
    Spread frame;
    FrameStats stats;  // from the extra counted frame
    double fps() const { return frame.median > 0 ? 1000.0 / frame.median : 0.0; }
    double rays_per_s() const {
        return frame.median > 0 ? double(stats.rays_traced) / (frame.median * 1e-3) : 0.0;
    }
};
std::vector<double> time_frames(Executor& ex, const Camera& cam, const RenderSettings& rs, int warmup, int frames);
// Every mode x launch x depth of `o` over `base`: timed frames, then one counted frame.
std::vector<Result> run_sweep(const BenchOptions& o, Executor& ex, const Camera& camera, const RenderSettings& base);

// ---------------------------------------------------------------------------
// Reports: terminal tables, CSV, JSON, the plot (bench/report.cpp)
// ---------------------------------------------------------------------------
std::string fmt(const char* f, double v);
std::vector<std::string> stage_names(const std::vector<Result>& rs);
double stage_ms(const FrameStats& st, const std::string& name);
// The mode the CPU executor runs for `m`: the wavefronts (flags, compact, pool) as the
// stencil, the path kernels as the megakernel (render/cpu_executor.cpp, which runs them so).
constexpr DeadRayMode cpu_runs_as(DeadRayMode m) {
    return follows_paths(m) ? DeadRayMode::Megakernel : DeadRayMode::Stencil;
}
// The CPU tables' note, from the mode table (render/settings.h kDeadRayModeTable): what the
// CPU runs, and which rows stand for which modes.
std::string cpu_modes_note();
// `gpu` false: the CPU executor's tables (no launch column, the modes it collapses said in the table).
void print_tables(const std::vector<Result>& results, const std::vector<DeadRayMode>& modes, bool gpu);
std::string results_csv(const std::vector<Result>& results, const RenderSettings& base, int frames, int warmup);
ojson result_json(const Result& r, uint32_t warps_per_sample, int spp);
// The keys bench results and render --stats-json frames share (docs/stats-json.md):
// bounces_run, rays_traced, nonfinite_samples, stage_ms {stage: ms}, bounces [{bounce, live_rays,
// live_warps, warps, simd_efficiency}]. Added to `j`.
void add_counters_json(ojson& j, const FrameStats& st, uint32_t warps_per_sample, int spp);
// The scene as both records it.
ojson scene_json(const Scene& scene, const std::string& path, const CompiledScene& compiled, double load_ms,
                 double compile_ms, double upload_ms);
// The acceleration structure: layout, nodes, leaves, average leaf size, bytes per
// primitive (nodes and primitives), depth, build time.
ojson accel_json(const CompiledScene& compiled);
void write_output(const std::string& path, const std::string& text, const char* what);
// Why --plot could not draw here ("" when it can): checked before a sweep starts.
std::string plot_unavailable();
int run_plot(const std::string& json_path, const std::string& png);
int write_json_and_plot(const BenchOptions& o, const ojson& doc);
// The common head of every JSON record.
ojson record_head(const std::string& kind, Executor& ex, const BenchOptions& o);
ojson launch_json(Executor& ex);
ojson tuning_json(const AppliedTuning& t);
// Rays/s by kind from each mode and launch's deepest counted frame (stream launches, per
// bounce stage times): primary = bounce 0's live rays over its intersect time, shadow =
// bounce 0's shadow rays over its shade time, reflected = bounce 1's live rays over its
// intersect time (none where bounce 1 ran fused in the stencil's sparse or tail kernel).
ojson print_rays_by_kind(const std::vector<Result>& results, bool gpu);
// The dead-bounce table per mode and launch, and graph against stream (bench/dead_bounce.h).
ojson print_dead_bounce_summary(const std::vector<Result>& results, const BenchOptions& o, bool gpu);

// --devices with several (bench/split_report.cpp): each part's band, time and gather
// time over a fresh run of timed frames of the sweep's last configuration; the balance;
// and the scaling: every configuration of the sweep timed again on part 0 alone, the
// whole frame, against the split's time from `results`. Printed; returned as JSON.
ojson report_split(const BenchOptions& o, Executor& ex, SplitExecutor& split, const Camera& camera,
                   const RenderSettings& base, const std::vector<Result>& results);

#if defined(SRT_HAVE_CUDA)
// --skip (bench/skip.cpp) and --tune (bench/tune.cpp): CUDA only.
int run_skip(const BenchOptions& o, Executor& ex);
int run_tune(const BenchOptions& o, CudaExecutor& cx, const Scene& scene, const ojson& scene_json);
#endif

}  // namespace srt::bench
