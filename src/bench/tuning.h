// tuning.h - using the tuned launch sizes (render/tuning_cache.h) in the commands.
#pragma once

#include "render/executor.h"
#include "render/tuning_cache.h"

#include <optional>
#include <string>

namespace srt::bench {

// Applies the cached launch sizes for this executor's GPU at width x height, if the
// cache has them, and says so on stderr in one line:
//   tuning: using cached launch sizes for <GPU> (<class>) from <path>
// Does nothing on the CPU executor, in builds without CUDA, or when SRT_NO_TUNING=1.
// A corrupt cache file gives a warning and is ignored. Call it right after the
// executor is created (render, view, bench).
void apply_cached_tuning(Executor& ex, int width, int height);

// What apply_cached_tuning() did, for the bench's report.
struct AppliedTuning {
    bool applied = false;
    std::string path;       // the cache file looked at ("" if none)
    std::string res_class;
    std::string reason;     // why not applied: "cpu executor", "SRT_NO_TUNING", "no entry", ...
    TuningEntry entry;      // valid when applied
};
// As apply_cached_tuning(); `quiet` leaves out the stderr line (warnings still print).
AppliedTuning apply_cached_tuning_ex(Executor& ex, int width, int height, bool quiet = false);

}  // namespace srt::bench
