// launch_sizer.h - block and grid sizes for the CUDA executor's kernels.
//
// Block sizes per stage start from occupancy (the executor computes the defaults), may
// be overridden by the tuning cache (set) or, for experiments, by SRT_LAUNCH, and are
// clamped to what each kernel can launch. Grids are either one thread per ray or
// "filling": the blocks the GPU holds at once, for kernels that loop over a list.
#pragma once

#include "cuda/cuda_executor.h"

#include <cstdint>
#include <map>
#include <utility>

namespace srt::cuda {

class LaunchSizer {
public:
    // The occupancy-derived sizes for a GPU of `sm_count` multiprocessors; then
    // SRT_LAUNCH="intersect=128,shade=256" is applied.
    void set_defaults(const LaunchConfig& defaults, int sm_count);
    // Per-stage block sizes; 0 keeps the default; rounded up to whole warps.
    void set(const LaunchConfig& c);
    const LaunchConfig& config() const { return launch_; }

    // A configured block may exceed what a kernel can launch (its registers): the
    // kernel's limit, in whole warps.
    int clamp_block(const void* kernel, int block);
    // Blocks of `block` threads that fill the GPU once: resident blocks per SM at this
    // kernel's occupancy (with `shared_per_thread` bytes of dynamic shared memory a
    // thread), times the SMs (times SRT_FILL_WAVES, default 1, for experiments).
    uint32_t fill_blocks(const void* kernel, int block, uint32_t shared_per_thread);

private:
    int sm_count_ = 1;
    LaunchConfig default_, launch_;
    std::map<const void*, int> max_block_;
    std::map<std::pair<const void*, int>, uint32_t> fill_;
};

}  // namespace srt::cuda
