// reference_path.cpp - the path integrator's per-pixel reference: one pixel at a time,
// its samples' paths followed vertex by vertex in registers (render/stages.h
// trace_bounce over render/path_vertex.h), with no buffers, no stencil and no warps. The
// tests compare it with an independent path tracer in double
// (tests/support/path_reference.h), and every mode on both executors with it, bit for bit.
#include "render/executor.h"
#include "render/pipeline.h"
#include "render/stages.h"

#include <cstring>

namespace srt {
namespace {

// The frame a reference pixel belongs to: the whole width x height image, one sample.
FrameContext reference_frame(const CompiledScene& scene, const CameraGpu& cam, int width, int height, int depth,
                             uint32_t seed, const SamplerLayout& sampler, const KillPattern& kill = KillPattern{},
                             int warp_width = 8) {
    FrameContext f;
    f.scene = scene.view();
    f.camera = cam;
    set_geometry(f, uint32_t(width), uint32_t(height), uint32_t(warp_width));  // (--kill's warp tiles)
    f.kill = kill;
    f.max_depth = depth + 1;  // settings.h trace_levels
    f.path = true;
    f.seed = seed;
    f.sampler = sampler;
    return f;
}

// Adds sample `sample` of ray i's pixel to r.rad (sample 0 starts the sum), as the
// wavefront adds it to the pixel's running sum.
template <PathStrategy kStrategy = PathStrategy::Mis>
void add_sample(FrameContext& f, uint32_t i, uint32_t sample, PathRay& r, uint32_t& shadow_rays) {
    f.sample = sample;
    sample_offset(sample, f.sample_dx, f.sample_dy);
    generate_ray(f, i, r);
    with_variant(f, [&](auto w) {  // the kernels' variant: a kill's under --kill
        for (int bounce = 0; bounce < f.max_depth; ++bounce)
            if (!trace_bounce<decltype(w)::value, kStrategy>(f, r, i, bounce, shadow_rays)) break;
    });
}

}  // namespace

glm::vec3 reference_path_sample(const CompiledScene& scene, const CameraGpu& cam, int width, int height, int x, int y,
                                uint32_t sample, int depth, uint32_t seed, uint32_t* shadow_rays,
                                PathStrategy strategy, const SamplerLayout& sampler) {
    FrameContext f = reference_frame(scene, cam, width, height, depth, seed, sampler);
    PathRay r;
    r.rad = glm::vec3(0.0f);
    uint32_t shadows = 0;
    const uint32_t i = pixel_to_ray(f, uint32_t(x), uint32_t(y));
    switch (strategy) {
        case PathStrategy::Mis: add_sample<PathStrategy::Mis>(f, i, sample, r, shadows); break;
        case PathStrategy::BsdfOnly: add_sample<PathStrategy::BsdfOnly>(f, i, sample, r, shadows); break;
        case PathStrategy::LightOnly: add_sample<PathStrategy::LightOnly>(f, i, sample, r, shadows); break;
    }
    if (shadow_rays) *shadow_rays += shadows;
    return r.rad;
}

void render_reference_path(const CompiledScene& scene, const Camera& camera, const RenderSettings& settings,
                           Image& out) {
    out = Image(settings.width, settings.height);
    const CameraGpu cam = make_camera(camera, settings.width, settings.height, scene.render_origin);
    FrameContext f = reference_frame(scene, cam, settings.width, settings.height, settings.depth, settings.seed,
                                     sampler_layout(settings), settings.kill, settings.warp_width);
    const auto thresholds = make_srgb_thresholds();
    const float inv_spp = 1.0f / float(settings.spp);
    for (int y = 0; y < settings.height; ++y) {
        for (int x = 0; x < settings.width; ++x) {
            const uint32_t i = pixel_to_ray(f, uint32_t(x), uint32_t(y));
            PathRay r;
            uint32_t shadows = 0;
            for (uint32_t s = 0; s < uint32_t(settings.spp); ++s) add_sample(f, i, s, r, shadows);
            const uint32_t rgba = pack_rgba(thresholds.data(), (r.rad * inv_spp) * exposure_scale(settings.exposure));
            std::memcpy(out.pixel(x, y), &rgba, 4);
        }
    }
}

}  // namespace srt
