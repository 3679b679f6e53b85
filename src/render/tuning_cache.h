// tuning_cache.h - the per-user table of tuned launch sizes (as seeds 002 and 003, notes on
// latency hiding and a blog post on a tuned OpenCL reduction, advise: launch parameters are
// measured per GPU, kept, and used by later runs).
//
// `stencilrt bench --tune` writes it; render, view and bench read it (bench/tuning.h).
// The file is $XDG_CACHE_HOME/stencilrt/tuning.json (or ~/.cache/stencilrt/tuning.json),
// one entry per (GPU name, SM count, resolution class). Host-only, no CUDA: the CPU
// build reads and writes it too (tests), it just has no GPU to apply it to.
//
// A missing file is an empty table. A file that cannot be parsed, or an entry that is
// malformed, is reported as a warning and ignored: a stale cache must never stop a
// render.
#pragma once

#include <string>
#include <vector>

namespace srt {

// Block sizes per kernel stage (the CUDA executor's LaunchConfig is this struct); 0 = the
// executor's occupancy default.
struct LaunchSizes {
    int generate = 0, intersect = 0, shade = 0, reflect = 0, resolve = 0, compact = 0;
};
bool operator==(const LaunchSizes& a, const LaunchSizes& b);

// The stage names used in the file, in LaunchSizes' order.
extern const char* const kTunedStages[6];
int& launch_size(LaunchSizes& s, int stage);  // stage indexes kTunedStages
int launch_size(const LaunchSizes& s, int stage);

// "<=0.5MP", "<=2.1MP" or ">2.1MP": launch sizes that suit 640x480 need not suit 4K,
// so winners are kept per class (1920x1080 = 2.07 MP is in the middle class).
std::string resolution_class(int width, int height);

struct TuningKey {
    std::string gpu;  // cudaDeviceProp::name
    int sm_count = 0;
    std::string res_class;
};

struct TuningEntry {
    TuningKey key;
    LaunchSizes launch;    // the winners
    LaunchSizes defaults;  // what the executor would have used (for the record)
    // How it was measured, for people reading the file; not used for lookups.
    std::string created;   // ISO 8601 UTC
    std::string revision;  // stencilrt git revision that measured it
    std::string scene;
    int width = 0, height = 0, depth = 0;
    std::string mode;
    double default_ms = 0.0, tuned_ms = 0.0;  // whole frame, median, at `depth`
};

// $XDG_CACHE_HOME/stencilrt/tuning.json, else $HOME/.cache/stencilrt/tuning.json;
// empty when neither variable is set.
std::string tuning_cache_path();

// True when SRT_NO_TUNING is set to something other than "" or "0" (tests use it to
// get the untuned defaults whatever the user's cache holds).
bool tuning_disabled_by_env();

class TuningCache {
public:
    // Reads `path`. A missing file gives an empty table and no warning; an unreadable
    // or corrupt file, or malformed entries, give what could be read plus `warning`.
    static TuningCache load(const std::string& path, std::string* warning);

    const TuningEntry* find(const TuningKey& key) const;
    void put(const TuningEntry& e);  // replaces the entry with the same key
    const std::vector<TuningEntry>& entries() const { return entries_; }

    std::string to_json() const;
    // Creates the directory if needed and writes atomically (temp file + rename).
    // Throws std::runtime_error on failure.
    void save(const std::string& path) const;

private:
    std::vector<TuningEntry> entries_;
};

}  // namespace srt
