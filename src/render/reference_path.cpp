// reference_path.cpp - the path integrator's per-pixel reference: one thread follows a
// sample's path vertex by vertex through render/path_vertex.h, with no buffers, no
// stencil and no warps. The tests compare it with an independent path tracer in double
// (tests/support/path_reference.h); the wavefront and the path kernels will be compared
// with it bit for bit, as Whitted's are with render/reference.cpp.
#include "render/executor.h"
#include "render/path_vertex.h"
#include "render/stages.h"

namespace srt {

glm::vec3 reference_path_sample(const CompiledScene& scene, const CameraGpu& cam, int width, int height, int x, int y,
                                uint32_t sample, int depth, uint32_t seed, uint32_t* shadow_rays) {
    const SceneView s = scene.view();
    float dx, dy;
    sample_offset(sample, dx, dy);
    glm::vec3 o = cam.origin;
    glm::vec3 d = camera_dir(cam, uint32_t(width), uint32_t(height), float(x) + dx, float(y) + dy);
    const RngKey base{uint32_t(y) * uint32_t(width) + uint32_t(x), sample, 0u, seed};
    PathState st;
    glm::vec3 radiance(0.0f);
    uint32_t shadows = 0;
    // depth scattering vertices, and one more segment for the emission the last one finds.
    for (int bounce = 0; bounce <= depth; ++bounce) {
        const Hit h = intersect_closest(s, o, d, 3.0e38f);
        if (h.id < 0) {
            radiance += st.throughput * s.background;
            break;
        }
        const bool go_on = with_bvh_width(s, [&](auto w) {
            constexpr int kW = decltype(w)::value;
            const Surface sf = surface_at<kW>(s, o, d, h.t, h.id, Cone{});
            radiance += path_arrive<kW>(s, sf, h.id, d, h.t, st);
            if (bounce == depth) return false;
            const BsdfParams b = surface_bsdf(s, sf);
            const Frame frame = Frame::around(sf.ns);
            const glm::vec3 wo = frame.to_local(-d);
            RngKey key = base;
            key.bounce = uint32_t(bounce);
            radiance += path_light<kW>(s, sf, b, frame, wo, rng_uniform4(key, 0u), st, shadows);
            return path_scatter(sf, b, frame, wo, rng_uniform4(key, 1u), bounce, st, o, d);
        });
        if (!go_on) break;
    }
    if (shadow_rays) *shadow_rays += shadows;
    return radiance;
}

}  // namespace srt
