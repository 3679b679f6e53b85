// skip_bench.h - `stencilrt bench --skip`: how fast each dead-ray strategy skips dead
// rays (seed 004, the 2012 article on a stencil buffer in CUDA, measured "about 4 billion
// empty thread calls per second" on a GTX 560).
//
// For N rays with a given fraction alive, laid out coherently (live rays contiguous,
// so whole warps are alive or dead) or at random (each ray alive with probability p),
// it times the strategy's real read kernel from cuda/kernels.cuh (k_stencil_read,
// k_flags_read, k_compact_read) with a trivial stage that writes one float per live
// ray, and an empty kernel (k_empty) over the same grid as the floor.
// Plain C++ header: the app includes it with the host compiler (CUDA builds only).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace srt {

struct SkipBenchOptions {
    uint32_t rays = 1u << 24;  // padded up to whole warps; 2^24 fills any current GPU
    int iterations = 200;      // timed launches per case (median taken)
    int warmup = 10;
    std::vector<double> live_fractions{0.0, 0.01, 0.10, 0.50, 1.00};
    uint64_t seed = 0x5eed0004u;  // random patterns are reproducible
    int block = 0;                // 0 = occupancy default per kernel
};

struct SkipResult {
    std::string mode;     // "stencil", "flags", "compact", or "empty"
    std::string pattern;  // "coherent", "random" ("-" for empty)
    double live_fraction = 0.0;
    uint64_t rays = 0, live_rays = 0, dead_rays = 0;
    uint64_t live_warps = 0;
    int block = 0;
    uint32_t grid = 0;
    double median_ms = 0, min_ms = 0, max_ms = 0, p10_ms = 0, p90_ms = 0;
    double empty_ms = 0;  // median of k_empty over this case's grid
    // dead rays / median time: how many dead rays per second the strategy gets rid of
    double dead_per_s() const { return median_ms > 0 ? double(dead_rays) / (median_ms * 1e-3) : 0.0; }
    // all rays / median time (the article's "empty calls per second" when live = 0)
    double rays_per_s() const { return median_ms > 0 ? double(rays) / (median_ms * 1e-3) : 0.0; }
};

struct SkipBenchReport {
    std::string device;
    uint32_t rays = 0;
    double empty_ms = 0;  // k_empty over one thread per ray (the stencil/flags grid)
    std::vector<SkipResult> results;
};

// Runs every mode x pattern x fraction. `progress(done, total)` is called after each
// case (may be empty). Throws CudaError on a CUDA failure.
SkipBenchReport run_skip_bench(const SkipBenchOptions& opt,
                               void (*progress)(int done, int total, void* ctx) = nullptr,
                               void* ctx = nullptr);

}  // namespace srt
