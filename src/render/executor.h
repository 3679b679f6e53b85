// executor.h - the interface every backend implements, and the backend factory.
//
// An executor runs the wavefront pipeline (render/pipeline.h) on one side:
//   CpuExecutor  - warp by warp on all host cores (render/cpu_executor.cpp)
//   CudaExecutor - one kernel per stage on the GPU (cuda/cuda_executor.cu)
// Both run the same stage functions (render/stages.h) and produce identical images.
#pragma once

#include "core/image.h"
#include "render/scene_gpu.h"
#include "render/settings.h"
#include "render/frame.h"

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace srt {

class SplitExecutor;

class Executor {
public:
    virtual ~Executor() = default;
    virtual std::string name() const = 0;         // "cpu (2 threads)", "cuda (NVIDIA H100 ...)"
    // Makes `scene` current (the CUDA executor uploads it once here).
    virtual void set_scene(const CompiledScene& scene) = 0;
    // Renders one frame of the current scene into `out` (resized to the settings).
    // When `stats` is non-null, live rays and warps per bounce and stage times are
    // counted and written there.
    virtual void render(const Camera& camera, const RenderSettings& settings, Image& out,
                        FrameStats* stats = nullptr) = 0;

    // The linear radiance of the last frame render() or render_device() made: per pixel,
    // the running sum of its samples times their weight, exactly the values resolve
    // encoded (before exposure). For EXR and PFM output.
    virtual void read_linear(LinearImage& out) = 0;

    // Renders one frame and returns its time in milliseconds, from generate to resolve,
    // without reading the image back (GPU: CUDA events around the whole frame; CPU:
    // the host clock). For benchmarks; `stats` as in render() (counting costs time).
    virtual double timed_frame(const Camera& camera, const RenderSettings& settings,
                               FrameStats* stats = nullptr) = 0;

    // Readies what a frame with these settings needs, so that the first frame shown does
    // not wait for it. The CUDA executor renders one frame into its own buffer: its
    // kernels' modules load lazily, at a kernel's first use (74-99 ms for Conference's
    // frame on the H200), and the viewer runs this beside its window's opening. The frame's
    // image is the next frame's to overwrite (a frame's first sample starts its sum
    // afresh). The CPU has nothing to ready.
    virtual void warm_up(const Camera& camera, const RenderSettings& settings) {
        (void)camera;
        (void)settings;
    }

    // For tests: called after each bounce's reflect stage with the stencil words as
    // they are then (the CUDA executor copies them back, so only tests set this).
    // A frame split over several executors (--devices) answers with the split: its
    // bands and their times, for bench and render --stats. Others: nullptr.
    virtual SplitExecutor* split() { return nullptr; }

    using StencilProbe =
        std::function<void(int sample, int bounce, const std::vector<uint32_t>& words)>;
    virtual void set_stencil_probe(StencilProbe probe) { probe_ = std::move(probe); }

protected:
    StencilProbe probe_;
};

std::unique_ptr<Executor> make_cpu_executor(int threads = 0);  // 0 = all cores

// Both executors' read_linear: `radiance` is the frame's radiance buffer (ray order) on
// the host, `f` the frame it belongs to.
void resolve_linear(const FrameContext& f, const f4* radiance, LinearImage& out);

enum class Backend { Auto, Cuda, Cpu };
bool parse_backend(const std::string& s, Backend& out);

// Thrown when --backend cuda is asked for and no device is usable (app/backend.cpp
// chooses executors: under auto it falls back to the CPU with a notice).
struct BackendUnavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The per-pixel reference renderer: no wavefront, no stencil, no warps. Used by the
// tests as the oracle for the wavefront executors. Whitted's recurses
// (render/reference.cpp); the path integrator's (render_reference_path,
// render/reference_path.cpp) follows each pixel's paths one after another.
void render_reference(const CompiledScene& scene, const Camera& camera,
                      const RenderSettings& settings, Image& out);
void render_reference_path(const CompiledScene& scene, const Camera& camera, const RenderSettings& settings,
                           Image& out);

// The path integrator's reference (render/reference_path.cpp): one sample's radiance for
// pixel (x, y) of a width x height frame, a path of at most `depth` scattering vertices
// (pbrt-v4's maxdepth), its random numbers keyed by (pixel, sample, bounce, seed).
// `shadow_rays`, when given, counts the shadow rays traced; `strategy` picks the
// estimators of direct light (render/path_vertex.h; the tests compare MIS with each alone);
// `sampler` where its numbers come from (render/sampler.h).
enum class PathStrategy;
glm::vec3 reference_path_sample(const CompiledScene& scene, const CameraGpu& cam, int width, int height, int x, int y,
                                uint32_t sample, int depth, uint32_t seed, uint32_t* shadow_rays = nullptr,
                                PathStrategy strategy = PathStrategy{}, const SamplerLayout& sampler = SamplerLayout{});

}  // namespace srt
