// cuda_executor.h - the wavefront pipeline on the GPU (plain C++ header: no CUDA types,
// so the app, the viewer and the tests include it with the host compiler).
#pragma once

#include "render/executor.h"
#include "render/tuning_cache.h"

#include <cstdint>
#include <memory>
#include <string>

namespace srt {

// Per-kernel launch configuration (block size); 0 = from occupancy. The same struct as
// the tuning cache keeps.
using LaunchConfig = LaunchSizes;

class CudaExecutor : public Executor {
public:
    // Renders into a device buffer of width*height packed RGBA8 words (e.g. a mapped GL
    // pixel buffer handed over by the viewer). The renderer knows no GL.
    virtual void render_device(const Camera& camera, const RenderSettings& settings,
                               uint32_t* device_rgba, FrameStats* stats = nullptr) = 0;
    virtual void set_launch_config(const LaunchConfig& c) = 0;
    virtual LaunchConfig launch_config() const = 0;  // as resolved for the current device
    virtual std::string device_name() const = 0;
    virtual int sm_count() const = 0;
    // How many times a frame has been captured into a CUDA graph (RenderSettings::launch
    // == Graph): once per configuration; a new camera alone replays the same graph.
    virtual int graph_captures() const = 0;
    // Whether stencil graphs may hold sparse bounces (false once capturing the per-bounce
    // IF/ELSE node failed on this driver, and every bounce runs dense).
    virtual bool sparse_bounces() const = 0;
};

// Returns nullptr and sets `why_not` when no usable device exists (no device, driver
// too old, ...).
std::unique_ptr<CudaExecutor> make_cuda_executor(std::string& why_not, int device = 0);
// The number of CUDA devices (0 when none is usable).
int cuda_device_count();

}  // namespace srt
