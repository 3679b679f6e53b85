// settings.h - what a frame is asked to be, and what it reports back.
#pragma once

#include "render/kill.h"
#include "render/sampler.h"
#include "scene/integrator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace srt {

// How dead rays are handled. All modes produce identical images. The first three are
// wavefronts (a kernel per stage over SoA ray buffers); the last two follow each path
// through every bounce in one kernel, its ray in registers.
enum class DeadRayMode : uint8_t {
    Stencil,  // one bit per ray, one 32-bit word per warp, written with __ballot_sync (default);
              // on the GPU a bounce with few live words runs as one kernel over a list of
              // them, on a grid that fills the device once (cuda/stencil_kernels.cuh)
    Flags,    // one uint32 per ray, tested at entry (the baseline of seed 004, the 2012 stencil article)
    Compact,  // live ray indices compacted between stages; later stages loop over the live list
              // with a device-filling grid, so dead rays cost nothing
    Megakernel,  // one thread per pixel runs generate, every bounce and resolve in one kernel:
                 // a dead lane idles until its warp's last path ends, a dead warp leaves
    Regenerate,  // persistent threads fetch pixels from a global counter; a lane whose path
                 // ended starts its pixel's next sample, or fetches a new pixel (path regeneration)
    Pool,        // the wavefront as production renderers build it: a pool of paths, queues per
                 // stage, and a path that ends replaced by its pixel's next sample or the next
                 // pixel, so every launch is full (cuda/pool_kernels.cuh)
};
constexpr int kDeadRayModes = 6;
// Whether a mode follows whole paths in one kernel (no wavefront, no stencil buffer).
constexpr bool follows_paths(DeadRayMode m) { return m == DeadRayMode::Megakernel || m == DeadRayMode::Regenerate; }
// The modes whose runs count bounces per sample (the path kernels' and the pool's stats).
constexpr bool mixes_samples(DeadRayMode m) { return follows_paths(m) || m == DeadRayMode::Pool; }
// Every mode once, in the order that help, messages, the bench and the docs list them:
// the one table that names them.
struct DeadRayModeInfo {
    DeadRayMode mode;
    const char* name;     // as --mode takes it
    const char* summary;  // a few words, for --help
};
extern const DeadRayModeInfo kDeadRayModeTable[kDeadRayModes];
const char* to_string(DeadRayMode m);
bool parse_mode(const std::string& s, DeadRayMode& out);
std::vector<std::string> mode_names();
// "stencil, flags, compact, pool, megakernel or regenerate" (`last` joins the last two).
std::string mode_list(const char* last = " or ");

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
    // Whitted: the max trace level, the primary ray level 1. Path: the max path length
    // in scattering vertices (pbrt-v4's maxdepth): depth 1 is direct light.
    int depth = 8;
    Integrator integrator = Integrator::Whitted;
    uint32_t seed = 0;  // path: another seed, another independent image (render/rng.h)
    SamplerKind sampler = kDefaultSampler;  // path: where its numbers come from (render/sampler.h)
    int spp = 1;    // samples per pixel (1 = pixel centres)
    // Progressive accumulation: this frame adds samples sample_begin .. sample_begin+spp-1
    // to the running sum that sample 0 started, and the image is that sum divided by
    // sample_begin + spp. Frames 0, 1, ..., N-1 of one sample each leave exactly the
    // image of one frame with spp = N (the same samples, added in the same order).
    int sample_begin = 0;
    // The samples the running sum will hold when it is done (0: sample_begin + spp), which
    // zsobol lays its sequence out for: the viewer's cap on accumulation.
    int samples_planned = 0;
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
    KillPattern kill;    // --kill: rays killed to a survival schedule (render/kill.h); none by default
};

// The bounces a frame's loop runs at most, an intersect each. Whitted: `depth`. Path:
// one more than its scattering vertices, for the emission the last one's ray finds.
// The sampler's layout for these settings (render/sampler.h). Throws std::invalid_argument
// where zsobol's index would need more than 32 bits; sampler_problem says so beforehand.
SamplerLayout sampler_layout(const RenderSettings& s);
// Empty, or why sampler_layout would throw: "--sampler zsobol: ...".
std::string sampler_problem(const RenderSettings& s);

inline int trace_levels(const RenderSettings& s) { return s.integrator == Integrator::Path ? s.depth + 1 : s.depth; }

// Per bounce, counted at the entry of intersect.
struct BounceStats {
    uint64_t live_rays = 0;   // rays entering intersect alive
    uint64_t live_warps = 0;  // warps holding at least one of them
    uint64_t shadow_rays = 0;  // traced by this bounce's shade
    // This bounce's intersect and shade times in ms, where stages are timed (stream
    // launches on the GPU, every CPU frame with stats), else 0. A GPU stencil bounce run
    // by the fused sparse kernel or the path tail counts all of its time (and, for the tail, the
    // later bounces') under intersect.
    double intersect_ms = 0.0, shade_ms = 0.0;
    // Active lanes over 32 in the warps that ran this bounce (wavefronts, megakernel).
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
    // Radiance samples that were a NaN or an infinity, which the film left out of the
    // image's pixels (render/stages.h add_radiance), over every sample the pixels' sums
    // hold (from sample 0, the viewer's accumulated frames too). 0 in a sound render.
    uint64_t nonfinite_samples = 0;
    // The SIMD efficiency the warps had over the frame: lanes that traced a bounce, over 32
    // per warp step that traced one. A wavefront's or the megakernel's warp step is a live
    // warp at one bounce (so these are the bounces' sums); path regeneration counts its
    // loop's iterations, whose lanes may be at different bounces and samples.
    uint64_t lane_steps = 0, warp_steps = 0;
    double simd_efficiency() const {
        return warp_steps ? double(lane_steps) / (32.0 * double(warp_steps)) : 0.0;
    }
    // For the executors whose warp step is a live warp at one bounce: the sums of the bounces.
    void steps_from_bounces() {
        lane_steps = warp_steps = 0;
        for (const BounceStats& b : bounces) {
            lane_steps += b.live_rays;
            warp_steps += b.live_warps;
        }
    }
};

}  // namespace srt
