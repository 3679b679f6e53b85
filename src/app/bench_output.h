// bench_output.h - what `stencilrt bench` prints and writes about a run besides its
// tables (bench/report.cpp): the lines that open the report, and the sweep's files.
#pragma once

#include "bench/bench.h"
#include "render/scene_gpu.h"

#include <string>
#include <vector>

namespace srt::app {

// The report's opening lines: the build, the device, the scene and its acceleration structure.
void print_bench_head(const bench::ojson& machine, const Scene& scene, const bench::ojson& scene_json,
                      const CompiledScene& compiled, double load_ms, double upload_ms);

// What the sweep's JSON records beside its results.
struct SweepRecord {
    bench::ojson machine, scene, tuning, dead_bounce, rays_by_kind, split = nullptr;
    std::vector<std::string> notes;
};

// --csv, then --json and --plot from one record; the exit status (the plot's failure is one).
int write_sweep_outputs(const bench::BenchOptions& o, Executor& ex, const std::vector<bench::Result>& results,
                        const RenderSettings& base, const SweepRecord& record);

}  // namespace srt::app
