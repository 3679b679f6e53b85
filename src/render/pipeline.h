// pipeline.h - the frame loop, once, for every executor.
//
// An executor supplies the stage launchers and the two loops; this is the whole
// algorithm:
//
//   for each sample:
//     generate camera rays                  (writes the stencil: real pixels alive)
//     for bounce = 0 .. depth-1, while some ray is alive:
//       intersect                           (reads + writes the stencil: misses die)
//       shade: direct light + shadow rays   (reads the stencil)
//       reflect: mirror bounce, or the path (reads + writes the stencil: non-mirrors die,
//         integrator's BSDF sample           or paths that end; at the last bounce, every
//                                            ray: retire)
//     Whitted with glass: finish the trees    (render/ray_tree.h: the slots still alive)
//   resolve into pixels
//
// The path modes (megakernel, regenerate: settings.h) are the same algorithm turned
// inside out: one thread follows its pixel through every sample and bounce, its ray in
// registers (render/stages.h trace_bounce), and resolves it. The executor supplies that
// as one launcher, trace_paths.
//
// The loops belong to the executor because they run in different places: the CPU
// executor loops on the host and stops once every stencil word is 0; the CUDA executor
// loops on the device (conditional WHILE nodes of a CUDA graph, steered by the kernels
// themselves), or, with stream launches, on the host without knowing when the rays die.
// Both stop the bounce loop after the same bounce, so their FrameStats::bounces_run agree.
#pragma once

#include "accel/scene_view.h"
#include "render/frame.h"
#include "render/settings.h"

#include "core/hd.h"

#include <cmath>

namespace srt {

// 2^ev as the float the 8-bit output is scaled by (exactly 1 for ev = 0).
inline float exposure_scale(float ev) { return float(std::exp2(double(ev))); }

// Which samples the frame adds and how the output is weighted, from the settings.
inline void set_samples(FrameContext& f, const RenderSettings& settings) {
    f.spp = uint32_t(settings.spp);
    f.sample_begin = uint32_t(settings.sample_begin);
    f.inv_spp = 1.0f / float(settings.sample_begin + settings.spp);
    f.exposure_scale = exposure_scale(settings.exposure);
}

// Whether a frame walks Whitted's ray tree (render/ray_tree.h): Whitted, with glass. Not
// under --kill, whose kernels hold no tree (the command line refuses that pair: app.h
// check_kill_applies).
inline bool uses_ray_tree(const SceneView& s, const RenderSettings& settings) {
    return settings.integrator == Integrator::Whitted && s.dielectrics && !settings.kill.active();
}

template <class Launcher>
void run_frame(Launcher& launch, FrameContext& f, const RenderSettings& settings) {
    set_samples(f, settings);
    f.max_depth = trace_levels(settings);
    f.path = settings.integrator == Integrator::Path;
    f.seed = settings.seed;
    f.sampler = sampler_layout(settings);
    f.ray_tree = uses_ray_tree(f.scene, settings);  // the executor gave it f.tree
    f.kill = settings.kill;
    launch.begin_frame(f);
    if (follows_paths(settings.mode)) {
        launch.trace_paths(f, settings.mode);  // every sample, bounce and resolve, per pixel
        return;
    }
    if (settings.mode == DeadRayMode::Pool) {
        launch.trace_pool(f);  // every sample and bounce, paths of any sample sharing a launch
        launch.resolve(f);
        return;
    }
    launch.for_each_sample(f, [&] {
        launch.generate(f);
        launch.for_each_bounce(f, [&](int bounce) {
            launch.intersect(f, bounce);
            launch.shade(f, bounce);
            // At the last bounce every ray ends (stage_reflect: beyond the depth limit):
            // where the loop knows its bounce, the live set is cleared without a reflect
            // kernel over every ray. (In a graph's bounce loop, bounce is -1: the device
            // knows it, and reflect kills the rays itself.)
            // (With Whitted's ray tree a ray's level is its own, and reflect runs.)
            if (bounce >= 0 && bounce + 1 == f.max_depth && !f.ray_tree) launch.retire(f, bounce);
            else launch.reflect(f, bounce);
        });
        // Trees deeper than the loop's steps: their slots are still alive, and one launch
        // follows each to its end in registers, as the megakernel would.
        if (f.ray_tree) launch.finish_trees(f);
    });
    launch.resolve(f);
}

}  // namespace srt
