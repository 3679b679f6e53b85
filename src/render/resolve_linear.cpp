// resolve_linear.cpp - the linear radiance of a frame, per pixel (executor.h).
#include "render/executor.h"
#include "render/stages.h"

namespace srt {

void resolve_linear(const FrameContext& f, const f4* radiance, LinearImage& out) {
    out = LinearImage(int(f.width), int(f.height));
    for (uint32_t y = 0; y < f.height; ++y)
        for (uint32_t x = 0; x < f.width; ++x) {
            // The very product stage_resolve encodes, before the exposure scale.
            const glm::vec3 c = load3(radiance, pixel_to_ray(f, x, y)) * f.inv_spp;
            float* p = out.pixel(int(x), int(y));
            p[0] = c.x;
            p[1] = c.y;
            p[2] = c.z;
        }
}

}  // namespace srt
