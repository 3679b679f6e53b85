// app.h - what the subcommands share: scene loading with overrides, backend choice.
#pragma once

#include "accel/ploc.h"
#include "render/executor.h"
#include "render/scene_gpu.h"
#include "render/settings.h"
#include "scene/scene.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace srt::app {

// Flags common to render, view and bench.
struct SceneOptions {
    std::string scene;  // empty = the built-in default scene
    std::string from_text, at_text, up_text;  // "x,y,z"; empty = keep the scene's
    std::string origin_text;                  // --render-origin "x,y,z"; empty = the camera's
    bool flatten_instances = false;           // --flatten-instances: copies instead of a two-level BVH
    std::optional<float> fov;
    std::optional<float> aperture, focus;  // the thin lens (scene.h Camera)
    std::vector<std::string> lights;  // "x,y,z" or "x,y,z:r,g,b" point lights
    std::string env;                  // --env FILE[:intensity]; empty: the scene's environment
    std::optional<float> env_rotation;  // --env-rotation, degrees about +Y
    std::string accel = "bvh2";        // --accel: the acceleration structure (render/scene_gpu.h)
    AccelLayout accel_layout() const;
    bool spatial_splits = true;        // --spatial-splits on|off (accel/bvh.h BvhBuildOptions)
    std::string bvh_build = "auto";    // --bvh-build auto|sah|ploc (app/bvh_choice.cpp)
    std::string texture_filter = "bilinear";  // --texture-filter (scene.h TextureFilter)
    std::string light_model;                  // --light-model; empty: the scene's
    void add_to(CLI::App& cmd);
};

struct FrameOptions {
    int width = 1920, height = 1080, depth = 8, spp = 1;
    std::string exposure_text = "0";  // --exposure: EV (8-bit output only), or auto
    bool auto_exposure() const { return exposure_text == "auto"; }
    std::string backend = "auto";
    std::string mode = "stencil";
    std::string integrator;  // --integrator; empty: the scene's suggestion, else whitted
    uint32_t seed = 0;
    std::string sampler;  // --sampler; empty: the scene's suggestion, else kDefaultSampler
    std::string launch = "graph";
    std::string warp_shape = "8x4";
    std::string devices;  // --devices all|0,1,...: split each frame over these GPUs
    std::string kill = "none";  // --kill PATTERN:P (render/kill.h)
    void add_to(CLI::App& cmd, bool with_size = true);
    // Parses mode/backend (throws CLI::ValidationError-like InputError on bad values).
    RenderSettings settings(const Scene& scene, const CLI::App& cmd) const;
    Backend parsed_backend() const;
};

// --kill's check (render/kill.h parse_kill), and the refusal of a kill pattern where
// Whitted's ray trees would not honour it (a scene with glass), as InputError.
CLI::Validator kill_validator();
// --sampler's help, the same for render, view and bench.
std::string sampler_help();
void check_kill_applies(const KillPattern& kill, const Scene& scene, Integrator integrator);

// Flags of `render` alone.
struct RenderOptions {
    std::string out = "stencilrt.png";  // .png, .exr or .pfm (core/image_formats.h), or "-"
    bool stats = false;
    std::string exr_pixel = "half";     // half | float
    std::string exr_channels = "rgb";   // rgb | rgba
    std::string frames;                 // "A..B": frames of the scene's animation (app/frame_range.h)
    std::string frame;                  // "K": one frame of it
    bool frame_count = false;           // print the animation's frame count and exit
    std::string stats_json;             // --stats-json FILE (docs/stats-json.md)
    void add_to(CLI::App& cmd);
};

// Refuses, before any work, an output that would land over the scene file, into a
// missing directory or over a directory, or where the writer could not create its file
// (a read-only folder, /proc: core/output_file.h probe_output_file, with the system's
// reason); "-", standard output, passes. `flag` names the option in the message, `kind`
// what would have been written ("image").
void check_output_path(const std::string& out, const std::string& scene, const std::string& flag,
                       const std::string& kind);

// Loads the scene (or the built-in default) and applies the overrides.
Scene load_with_overrides(const SceneOptions& o);

// "N texture(s) of M image(s), X MiB of texels; K triangle(s) alpha-masked" (or "none"):
// what the scene's textures hold, on the bench's and the render's scene line.
std::string texture_line(const Scene& scene, const CompiledScene& compiled);

// Creates the executor for `b`; under Auto, prints a one-line notice when it falls
// back to the CPU. Throws BackendUnavailable under Cuda when no device is usable.
// `devices` ("all" or "0,1,...", empty = the first device): with more than one, a
// SplitExecutor over one CUDA executor per device (render/split_executor.h).
std::unique_ptr<Executor> make_executor(Backend b, const std::string& devices = "");

// --bvh-build's choice: the builder, where PLOC runs (the GPU, unless the backend is the
// CPU or there is none), and why, for the "bvh" line. `rays`: about how many the job
// traces (a render's pixels x samples x frames x depth).
enum class Purpose { Render, View, Bench };
struct BuildChoice {
    BvhBuildOptions options;
    std::unique_ptr<PlocDevice> device;
    std::string why;
};
BuildChoice choose_bvh_build(const SceneOptions& so, Backend backend, Purpose purpose, size_t primitives,
                             double rays = 0);
// "bvh      ploc (NVIDIA H100) (auto: ...): 4.1 ms, SAH cost ..., (the steps' times)\n"
std::string bvh_line(const CompiledScene& cs, const BuildChoice& c);

int cmd_render(const SceneOptions& so, const FrameOptions& fo, const CLI::App& cmd,
               const RenderOptions& ro);
int cmd_view(const SceneOptions& so, const FrameOptions& fo, const CLI::App& cmd,
             const std::vector<std::string>& extra);
int cmd_bench(int argc, char** argv);

}  // namespace srt::app
