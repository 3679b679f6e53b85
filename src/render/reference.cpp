// reference.cpp - the per-pixel recursive reference renderer.
//
// No wavefront, no SoA buffers, no stencil, no warps, one thread: for each pixel,
// trace() follows the ray and recurses on the mirror bounce. It exists so the tests
// can check the wavefront executors against something that cannot share their bugs.
//
// The recursion passes the path weight down and adds each hit's contribution on the
// way (radiance += weight * direct) rather than returning direct + kr * trace(...):
// the two are the same sum, but floating-point addition is not associative, and this
// order is the one the wavefront uses, so the images can be compared bit for bit. A term
// that is not finite is left out, as the wavefront's film leaves it out (stages.h
// add_finite).
#include "render/executor.h"
#include "render/pipeline.h"
#include "render/stages.h"

namespace srt {
namespace {

struct Tracer {
    const SceneView& scene;
    int max_depth;
    bool ray_tree;  // Whitted with glass (render/ray_tree.h): recurse on both rays
    KillPattern kill;  // --kill (render/kill.h), keyed by the pixel and sample below
    uint32_t width = 0, tile_shift = 3;
    uint32_t px = 0, py = 0, sample = 0;

    // `level` is 1 for the primary ray.
    void trace(const glm::vec3& o, const glm::vec3& d, const Cone& cone, int level, glm::vec3 weight,
               glm::vec3& radiance) const {
        if (level > max_depth) return;  // beyond the depth limit: black
        // The kernels' own variant (render/stages.h with_variant), traversal included: a
        // ray tree's where there is glass, a kill's under --kill.
        const auto at = [&](auto w) { trace<decltype(w)::value>(o, d, cone, level, weight, radiance); };
        if (kill.active()) with_kill_variant<0>(scene, at);
        else if (ray_tree) with_tree_variant(scene, at);
        else with_bvh_width(scene, at);
    }
    template <int W>
    void trace(const glm::vec3& o, const glm::vec3& d, const Cone& cone, int level, glm::vec3 weight,
               glm::vec3& radiance) const {
        const Hit h = intersect_closest<whitted_variant(W)>(scene, o, d, 3.0e38f);
        if (h.id < 0) {
            add_finite(radiance, weight * sky_radiance(scene, d));
            return;
        }
        uint32_t shadow_rays = 0;
        const Surface sf = surface_at<W>(scene, o, d, h.t, h.id, cone, h.inst);
        if constexpr (!ray_tree_of(W)) {
            add_finite(radiance, weight * surface_light<W>(scene, sf, shadow_rays));
            if (level + 1 > max_depth) return;
            if (!(sf.kr.x > 0.0f || sf.kr.y > 0.0f || sf.kr.z > 0.0f)) return;
            if (!kill_survives_pixel(kill, px, py, width, tile_shift, sample, level)) return;
            trace(offset_origin(sf), unit(reflect_dir(d, sf.ns)), reflected_cone(sf, cone), level + 1,
                  weight * sf.kr, radiance);
        } else {
            // Whitted's ray tree: the refracted ray's subtree first, then the reflected
            // one's, the order in which the stack of deferred rays gives them.
            const f4 medium = load_f4(&scene.materials[sf.material].medium);
            if (medium.w > 0.0f && !sf.front) weight = weight * beer_lambert(medium, h.t);
            add_finite(radiance, weight * surface_light<W>(scene, sf, shadow_rays, true));
            if (level + 1 > max_depth) return;
            const f4 glossy = medium.w > 0.0f ? load_f4(&scene.materials[sf.material].glossy) : f4{};
            const WhittedRays r = whitted_rays(sf, d, medium, glossy);
            if (r.refracted)
                trace(r.t_origin, r.t_dir, refracted_cone(sf, cone), level + 1, weight * r.t_weight, radiance);
            if (r.reflected)
                trace(r.r_origin, r.r_dir, reflected_cone(sf, cone), level + 1, weight * r.r_weight, radiance);
        }
    }
};

}  // namespace

void render_reference(const CompiledScene& scene, const Camera& camera,
                      const RenderSettings& settings, Image& out) {
    if (settings.integrator == Integrator::Path) return render_reference_path(scene, camera, settings, out);
    out = Image(settings.width, settings.height);
    const SceneView view = scene.view();
    const CameraGpu cam = make_camera(camera, settings.width, settings.height, scene.render_origin);
    const auto thresholds = make_srgb_thresholds();
    Tracer tracer{view, settings.depth, uses_ray_tree(view, settings), settings.kill, uint32_t(settings.width),
                  frame_geometry(uint32_t(settings.width), uint32_t(settings.height), uint32_t(settings.warp_width))
                      .tile_shift};
    const uint32_t spp = uint32_t(settings.spp);
    const float inv_spp = 1.0f / float(spp);
    for (int y = 0; y < settings.height; ++y) {
        for (int x = 0; x < settings.width; ++x) {
            glm::vec3 radiance(0.0f);
            for (uint32_t s = 0; s < spp; ++s) {
                tracer.px = uint32_t(x);
                tracer.py = uint32_t(y);
                tracer.sample = s;
                float dx, dy;
                sample_offset(s, dx, dy);
                const glm::vec3 d = camera_dir(cam, uint32_t(settings.width), uint32_t(settings.height),
                                               float(x) + dx, float(y) + dy);
                const RngKey key{uint32_t(y) * uint32_t(settings.width) + uint32_t(x), s, 0u, settings.seed, 0u};
                const CameraRay c = camera_ray(cam, d, SamplerLayout{}, key, false);
                tracer.trace(c.origin, c.dir, Cone{0.0f, cam.pixel_spread}, 1, glm::vec3(1.0f), radiance);
            }
            const uint32_t rgba = pack_rgba(thresholds.data(), (radiance * inv_spp) * exposure_scale(settings.exposure));
            std::memcpy(out.pixel(x, y), &rgba, 4);
        }
    }
}

}  // namespace srt
