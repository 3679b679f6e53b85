// settings.h - what a frame is asked to be, and what it reports back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace srt {

// How dead rays are skipped. All modes produce identical images.
enum class DeadRayMode : uint8_t {
    Stencil,  // one bit per ray, one 32-bit word per warp, written with __ballot_sync (default);
              // on the GPU a bounce with few live words runs as one kernel over a list of
              // them, on a grid that fills the device once (cuda/kernels.cuh)
    Flags,    // one uint32 per ray, tested at entry (seed 004's baseline)
    Compact,  // live ray indices compacted between stages; later stages loop over the live list
              // with a device-filling grid, so dead rays cost nothing
};
const char* to_string(DeadRayMode m);
bool parse_mode(const std::string& s, DeadRayMode& out);

// How the CUDA executor issues a frame's kernels. Both give identical images.
enum class LaunchMode : uint8_t {
    Graph,   // a CUDA graph captured once per configuration and replayed; the sample and
             // bounce loops are conditional WHILE nodes, so the bounces after the last live
             // ray are never launched (default)
    Stream,  // one stream launch per kernel from the host, depth bounces every sample
};
const char* to_string(LaunchMode m);
bool parse_launch_mode(const std::string& s, LaunchMode& out);

struct RenderSettings {
    int width = 1920;
    int height = 1080;
    int depth = 8;  // max trace level; the primary ray is level 1
    int spp = 1;    // samples per pixel (1 = pixel centres)
    // Progressive accumulation: this frame adds samples sample_begin .. sample_begin+spp-1
    // to the running sum that sample 0 started, and the image is that sum divided by
    // sample_begin + spp. Frames 0, 1, ..., N-1 of one sample each leave exactly the
    // image of one frame with spp = N (the same samples, added in the same order).
    int sample_begin = 0;
    // A band of the image (split-frame rendering over several devices): rows band_y ..
    // band_y + band_h - 1 of the width x height frame, rendered into a width x band_h
    // image, exactly as those rows of the whole frame. band_h 0 = the whole frame.
    int band_y = 0, band_h = 0;
    int rows() const { return band_h > 0 ? band_h : height; }  // of the image this frame writes
    float exposure = 0.0f;  // EV: 8-bit output is radiance * 2^exposure (linear output is not scaled)
    DeadRayMode mode = DeadRayMode::Stencil;
    LaunchMode launch = LaunchMode::Graph;  // CUDA only
    int warp_width = 8;  // pixels per warp tile row: 1, 2, 4, 8, 16 or 32 (tile = warp_width x 32/warp_width)
    bool stats = false;  // count live rays/warps and time stages (costs extra work)
};

// Per bounce, counted at the entry of intersect.
struct BounceStats {
    uint64_t live_rays = 0;   // rays entering intersect alive
    uint64_t live_warps = 0;  // warps holding at least one of them
    uint64_t shadow_rays = 0;  // traced by this bounce's shade
    // This bounce's intersect and shade times in ms, where stages are timed (stream
    // launches on the GPU, every CPU frame with stats), else 0. A GPU stencil bounce run
    // by the fused sparse or tail kernel counts all of its time (and, for the tail, the
    // later bounces') under intersect.
    double intersect_ms = 0.0, shade_ms = 0.0;
    double simd_efficiency() const {
        return live_warps ? double(live_rays) / (32.0 * double(live_warps)) : 0.0;
    }
};

struct StageTime {
    std::string stage;  // "generate", "intersect", "shade", "reflect", "resolve"
    double ms = 0.0;
};

struct FrameStats {
    std::vector<BounceStats> bounces;  // one per bounce actually traced (per sample, summed)
    std::vector<StageTime> stage_ms;   // summed over bounces and samples
    uint64_t rays_traced = 0;          // primary + reflected + shadow rays
    uint64_t bounces_run = 0;          // bounces that started with a live ray, summed over samples
};

}  // namespace srt
