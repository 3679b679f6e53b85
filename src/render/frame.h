// frame.h - the per-frame state the stage functions work on.
//
// Ray state is SoA: one array per field, indexed by ray id. Ray i is pixel i of the
// current sample (row-major, row 0 at the top): the mapping is the identity, so a warp
// is 32 neighbouring pixels of one row (mostly) and its rays stay coherent.
// Each array has `ray_count` entries (padded to whole warps); pointers are host or
// device memory depending on the executor.
#pragma once

#include "core/hd.h"
#include "render/scene_gpu.h"

#include <cstdint>

namespace srt {

struct RayBuffers {
    f4* origin;    // xyz: ray origin
    f4* dir;       // xyz: unit direction
    f4* weight;    // xyz: product of mirror reflectances along the path (path throughput)
    f4* radiance;  // xyz: radiance gathered so far for this pixel, summed over samples
    float* hit_t;
    int32_t* hit_id;  // see accel/intersect.h
};

struct FrameContext {
    SceneView scene;
    CameraGpu camera;
    RayBuffers rays;
    uint32_t width = 0, height = 0;
    uint32_t pixel_count = 0;  // width * height: rays beyond this are pad lanes
    uint32_t ray_count = 0;    // pixel_count padded to whole warps
    int max_depth = 1;         // the primary ray is level 1
    uint32_t sample = 0;       // current sample; sample 0 clears the radiance
    float sample_dx = 0.5f, sample_dy = 0.5f;  // sub-pixel position of this sample
    float inv_spp = 1.0f;
    const float* srgb_thresholds = nullptr;  // 255 linear values, see render/srgb.h
    uint32_t* out_rgba = nullptr;            // one packed RGBA8 word per pixel
};

}  // namespace srt
