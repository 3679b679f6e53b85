// viewer.h - `stencilrt view`: a GLFW window showing the ray tracer live.
//
// The renderer knows no GL: the viewer hands it either a host Image (uploaded with
// glTexSubImage2D) or, with the CUDA executor, a mapped GL pixel buffer that CUDA
// writes directly (CUDA-OpenGL interop, viewer/interop.h). See docs/viewer.md.
#pragma once

#include "render/executor.h"
#include "render/scene_gpu.h"
#include "render/settings.h"
#include "scene/scene.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace srt::viewer {

struct Options {
    int frames = 0;              // > 0: render this many frames, then exit
    std::string screenshot;      // with frames: the last frame without HUD here, with HUD at <stem>.hud.png
    bool vsync = true;
    std::string input_script;    // scripted events (docs/viewer.md)
    std::string backend_notice;  // why the CPU renders, when it does; shown in the HUD
    std::string shader_dir;      // load the GLSL from here instead of the embedded copies
    int max_samples = 4096;      // progressive accumulation stops adding at this many samples
    AccelLayout accel = AccelLayout::Bvh2;  // --accel
    BvhBuildOptions build;                  // --spatial-splits
    std::string scene_path;      // as given on the command line ("" = the built-in scene), for `C`
    bool auto_exposure = false;  // --exposure auto: chosen from the first frame, as the 0 key does
    // When the command started (cmd_view: the process's start): the viewer prints how long
    // after it the first frame was swapped to the window.
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    // Moments before the first frame, in ms after `started` (the scene read, the executor
    // made; the viewer adds its own), printed with the first frame's line: where the time
    // before the first image goes.
    struct Mark {
        const char* what;
        double ms;
    };
    std::vector<Mark> marks;
    double since_started() const {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    }
};

// The companion of a --screenshot path: "out.png" -> "out.hud.png" (the same frame
// with the HUD drawn).
std::string hud_screenshot_path(const std::string& screenshot);
// "out.png" -> "out.overlay.png": the same frame with the stencil overlay, saved beside
// the image while the overlay is on.
std::string overlay_screenshot_path(const std::string& screenshot);

// Runs until the window closes, Esc, or `frames` frames. Returns the exit code: 0;
// 2 when no window can be opened (no display), with a hint on stderr to use `render`.
// Throws InputError for a bad input script, std::runtime_error for GL/CUDA failures.
int run(const Scene& scene, const RenderSettings& settings, std::unique_ptr<Executor> executor,
        const Options& options);

}  // namespace srt::viewer
