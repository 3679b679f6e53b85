// reference_path.cpp - the path integrator's per-pixel reference: one sample of one
// pixel, its path followed vertex by vertex in registers (render/stages.h trace_bounce
// over render/path_vertex.h), with no buffers, no stencil and no warps. The tests compare
// it with an independent path tracer in double (tests/support/path_reference.h), and
// every mode on both executors with it, bit for bit.
#include "render/executor.h"
#include "render/stages.h"

namespace srt {

glm::vec3 reference_path_sample(const CompiledScene& scene, const CameraGpu& cam, int width, int height, int x, int y,
                                uint32_t sample, int depth, uint32_t seed, uint32_t* shadow_rays) {
    FrameContext f;
    f.scene = scene.view();
    f.camera = cam;
    set_geometry(f, uint32_t(width), uint32_t(height), 8u);
    f.max_depth = depth + 1;  // settings.h trace_levels
    f.path = true;
    f.seed = seed;
    f.sample = sample;
    sample_offset(sample, f.sample_dx, f.sample_dy);
    const uint32_t i = pixel_to_ray(f, uint32_t(x), uint32_t(y));
    PathRay r;
    r.rad = glm::vec3(0.0f);
    generate_ray(f, i, r);
    uint32_t shadows = 0;
    with_path_variant(f.scene, [&](auto w) {
        for (int bounce = 0; bounce < f.max_depth; ++bounce)
            if (!trace_bounce<decltype(w)::value>(f, r, i, bounce, shadows)) break;
    });
    if (shadow_rays) *shadow_rays += shadows;
    return r.rad;
}

}  // namespace srt
