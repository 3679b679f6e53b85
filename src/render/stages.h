// stages.h - the per-ray stage functions, for every mode and both executors.
//
// The stage logic is written once, over a ray that is either slot i of the frame's SoA
// buffers (RaySlot: the wavefront stages) or held in registers (PathRay: the kernels
// that follow a path through every bounce). The CPU executor calls the same functions
// in warp-by-warp loops; the CUDA kernels are thin __global__ wrappers around them. The
// stencil is NOT handled here: callers test the ray's bit before calling a stage and
// ballot the returned liveness afterwards (render/stencil.h).
//
//   generate  : camera ray for pixel ray_to_pixel(i)   -> alive = (that pixel is inside the image)
//   intersect : closest hit; a miss adds the sky       -> alive = hit something
//   shade     : Whitted: Lambert + one shadow ray per light; path: absorption and
//               emission, then one light sample       (liveness unchanged)
//   reflect   : Whitted: mirror bounce, weight *= kr   -> alive = kr > 0 and depth left;
//               path: a BSDF sample, Russian roulette  -> alive = the path goes on
//   resolve   : radiance / spp -> 8-bit sRGB pixel
// Whitted with glass (FrameContext::ray_tree, the kernel variant bit kRayTree): a ray may
// split in two (render/ray_tree.h); where a ray ends, intersect and reflect hand the slot
// its next deferred ray, so a slot stays alive until its pixel's whole tree is traced.
// Which integrator a stage runs is a bit of its kernel variant (kPathTracing:
// with_variant), so the Whitted kernels hold no path code, and the reverse.
#pragma once

#include "accel/hit_point.h"
#include "accel/intersect.h"
#include "core/hd.h"
#include "render/frame.h"
#include "render/lens.h"
#include "render/path_vertex.h"
#include "render/ray_tree.h"
#include "render/stage_ray.h"
#include "render/srgb.h"
#include "render/surface.h"

#include <glm/glm.hpp>

namespace srt {

// ---------------------------------------------------------------------------
// Shared pieces (also used by the recursive reference renderer)
// ---------------------------------------------------------------------------

SRT_HD_INLINE glm::vec3 camera_dir(const CameraGpu& c, uint32_t width, uint32_t height, float px,
                                   float py) {
    const float sx = px * (2.0f / float(width)) - 1.0f;
    const float sy = 1.0f - py * (2.0f / float(height));
    return unit(c.forward + sx * c.right + sy * c.up);
}

// Sub-pixel position of sample s: the R2 low-discrepancy sequence (Roberts 2018) from
// the pixel centre, so sample 0 is the centre and one sample a pixel is the pixel
// centres. It does not depend on how many samples there are, so a progressive sum
// (RenderSettings::sample_begin) reaches the same image as one frame with that many.
// Double arithmetic without FMA: the device computes the same bits as the host.
SRT_HD_INLINE void sample_offset(uint32_t s, float& dx, float& dy) {
    constexpr double g = 1.32471795724474602596;  // the plastic number
    constexpr double a1 = 1.0 / g, a2 = 1.0 / (g * g);
    const double x = 0.5 + a1 * double(s), y = 0.5 + a2 * double(s);
    dx = float(x - floor(x));
    dy = float(y - floor(y));
}

// The unit direction from `o` towards light l in `to_light`; returns how far a shadow
// ray towards it runs (a directional light's: 3e38).
SRT_HD_INLINE float light_direction(const SceneView& s, uint32_t l, const glm::vec3& o, glm::vec3& to_light) {
    const f4 pd = load_f4(&s.lights[l].pos_or_dir);
    if (pd.w != 0.0f) {  // point light
        const glm::vec3 delta = xyz(pd) - o;
        const float dist = sqrtf(glm::dot(delta, delta));
        to_light = delta * (1.0f / dist);
        return dist;
    }
    to_light = xyz(pd);  // directional: pos_or_dir is the unit direction towards the light
    return 3.0e38f;
}

// What light l delivers to a surface at `dist` from it, per unit of its colour, in
// Whitted's Lambert term: 1 for a classic light (no falloff, no 1/pi); 1 / (pi d^2) for a
// physical point light and 1 / pi for a physical directional one, so that the term is
// the Lambertian BRDF's, as the path integrator computes it (scene/integrator.h).
SRT_HD_INLINE float whitted_light_scale(const f4& pos_or_dir, const f4& colour, float dist) {
    if (colour.w == 0.0f) return 1.0f;
    return pos_or_dir.w != 0.0f ? kInvPi / (dist * dist) : kInvPi;
}

// kd * colour * sum over lights of max(0, N.L) * light, with one hard shadow ray each.
// `shadow_rays` counts the shadow rays traced (for rays/s). `through_glass`: a frame with
// Whitted's ray tree, whose shadow rays pass through glass, straight and whole: light
// reaches what lies under a glass sphere unrefracted, as POV-Ray's clear glass lets it
// (the caustic a lens would focus there is the path integrator's to find).
// kWidth: the BVH width the scene was compiled for (accel/intersect.h).
template <int kWidth>
SRT_HD_INLINE glm::vec3 direct_light(const SceneView& s, const Surface& sf, uint32_t& shadow_rays,
                                     bool through_glass = false) {
    glm::vec3 sum(0.0f);
    if (sf.kd == 0.0f) return sum;
    const glm::vec3 o = offset_origin(sf);
    for (uint32_t l = 0; l < s.light_count; ++l) {
        const f4 lc = load_f4(&s.lights[l].colour);
        glm::vec3 to_light;
        const float dist = light_direction(s, l, o, to_light);
        const float ndotl = glm::dot(sf.ns, to_light);
        if (!(ndotl > 0.0f)) continue;
        ++shadow_rays;
        if (occluded<kWidth>(s, o, to_light, dist, through_glass)) continue;
        // A classic light's scale is 1, and x * 1 is exact: the classic term's bits are
        // those of ndotl * light.
        sum += (ndotl * whitted_light_scale(load_f4(&s.lights[l].pos_or_dir), lc, dist)) * xyz(lc);
    }
    return (sf.kd * sf.colour) * sum;
}

// What a surface sends back before its mirror term: the ambient term (lit or in shadow)
// plus direct light (scene.h's model).
template <int kWidth>
SRT_HD_INLINE glm::vec3 surface_light(const SceneView& s, const Surface& sf, uint32_t& shadow_rays,
                                      bool through_glass = false) {
    return (sf.ka * s.ambient) * sf.colour + direct_light<kWidth>(s, sf, shadow_rays, through_glass);
}

// ---------------------------------------------------------------------------
// The stage logic, once
// ---------------------------------------------------------------------------

// The random numbers of ray i's vertex at `bounce` (render/sampler.h), keyed by its pixel
// in the whole frame, so that a band draws what the whole frame would.
SRT_HD_INLINE RngKey path_key(const FrameContext& f, uint32_t i, int bounce) {
    uint32_t x, y;
    ray_to_pixel(f, i, x, y);
    y += f.row_offset;
    const uint32_t morton = f.sampler.kind == SamplerKind::ZSobol ? morton2(x, y) : 0u;
    return RngKey{y * f.width + x, f.sample, uint32_t(bounce), f.seed, morton};
}

// Camera ray for ray i's pixel, at this frame's sample; sample 0 starts the pixel's sum.
// Its position in the pixel: the frame's (sample_offset's R2 point), or, for the path
// integrator under a scrambled sampler, the pixel's own (render/sampler.h, pad 0). Through
// a thin lens, its point on the lens is the pixel's own under every sampler (render/lens.h).
// kMaySample false: a kernel of Whitted's alone, compiled without the sampler's branch.
template <bool kMaySample = true, class R>
SRT_HD_INLINE bool generate_ray(const FrameContext& f, uint32_t i, R& r) {
    uint32_t x, y;
    if (!ray_to_pixel(f, i, x, y)) return false;  // pad lane: dead from the start
    glm::vec2 o(f.sample_dx, f.sample_dy);
    const bool scrambled = kMaySample && f.path && f.sampler.kind != SamplerKind::Independent;
    if (scrambled) o = sample_pixel_offset(path_key(f, i, 0));
    const glm::vec3 d = camera_dir(f.camera, f.width, f.full_height, float(x) + o.x, float(y + f.row_offset) + o.y);
    const CameraRay c = camera_ray(f.camera, d, f.sampler, path_key(f, i, 0), scrambled);
    r.set_ray(c.origin, c.dir, Cone{0.0f, f.camera.pixel_spread});
    r.set_path_state(PathState{});  // weight 1 (and no BSDF density: the camera's)
    if (f.sample == 0) r.clear_sum();
    return true;
}

// A ray's closest hit, kept; a miss adds what the sky sends (the environment map or the
// background; under the path integrator, `path`, weighed against the map's light samples)
// and ends the path.
// kInstances: whether the hit's instance is kept too (accel/variant.h instances_of).
template <PathStrategy kStrategy = PathStrategy::Mis, bool kInstances = false, class R>
SRT_HD_INLINE bool take_hit(const SceneView& s, R& r, const Hit& h, bool path) {
    if (h.id < 0) {
        const glm::vec3 d = r.dir();
        r.add_radiance(r.weight() * (path ? path_escape<kStrategy>(s, d, r.path_state().prev_pdf) : sky_radiance(s, d)));
        return false;
    }
    r.set_hit(h.t, h.id);
    if constexpr (kInstances) r.set_hit_inst(h.inst);
    return true;
}

template <int kWidth, class R>
SRT_HD_INLINE bool intersect_ray(const SceneView& s, R& r, bool path) {
    return take_hit<PathStrategy::Mis, instances_of(kWidth)>(s, r, intersect_closest<kWidth>(s, r.origin(), r.dir(), 3.0e38f), path);
}

template <int kWidth, class R>
SRT_HD_INLINE Surface ray_surface(const SceneView& s, const R& r) {
    return surface_at<kWidth>(s, r.origin(), r.dir(), r.hit_t(), r.hit_id(), r.cone(),
                              instances_of(kWidth) ? r.hit_inst() : kNoInstance);
}

// Whether a ray reflected at `bounce` (0 = the primary hit) is still within the depth
// limit; a reflected ray would be level bounce + 2.
SRT_HD_INLINE bool depth_left(const FrameContext& f, int bounce) { return bounce + 1 < f.max_depth; }

// The mirror bounce: weight *= kr; a surface without kr ends the path.
// kVariant: as surface_at's; a scene without mip chains carries no cone.
template <int kVariant, class R>
SRT_HD_INLINE bool reflect_ray(const Surface& sf, R& r) {
    if (!(sf.kr.x > 0.0f || sf.kr.y > 0.0f || sf.kr.z > 0.0f)) return false;
    const glm::vec3 d = r.dir();
    r.set_weight(r.weight() * sf.kr);
    r.set_ray(offset_origin(sf), unit(reflect_dir(d, sf.ns)), ray_cones_of(kVariant) ? reflected_cone(sf, r.cone()) : Cone{});
    return true;
}

// ---------------------------------------------------------------------------
// Whitted's ray tree (render/ray_tree.h): the same three stages where a ray may split
// ---------------------------------------------------------------------------

// Whitted's intersect: the closest hit; a miss adds the sky and, in a ray tree's
// kernels (kRayTree), the slot takes its next deferred ray, until one hits or none is
// left (the pixel's tree is done).
// `path`: the frame's integrator is the path integrator's (a miss is weighed against the
// map's light samples): the wavefront's intersect, which both integrators share, asks the
// frame; a Whitted kernel knows it is not.
template <int kWidth, class R>
SRT_HD_INLINE bool whitted_intersect_ray(const FrameContext& f, uint32_t i, R& r, bool path) {
    for (;;) {
        if (intersect_ray<kWidth>(f.scene, r, path)) return true;
        if (!ray_tree_of(kWidth) || !tree_pop(f.tree, i, r)) return false;
    }
}

// Whitted's shade: in a ray tree's kernels, what travelled inside glass lost to absorption
// on the way (Beer-Lambert), and shadow rays that pass through glass; then direct light. A
// Fresnel dielectric sends nothing of its own: the scene compiler gives it no kd, ka or
// kr (render/scene_gpu.cpp).
template <int kWidth, class R>
SRT_HD_INLINE uint32_t whitted_shade_ray(const FrameContext& f, const Surface& sf, R& r) {
    if constexpr (ray_tree_of(kWidth)) {
        const f4 medium = load_f4(&f.scene.materials[sf.material].medium);
        if (medium.w > 0.0f && !sf.front) r.set_weight_level(r.weight() * beer_lambert(medium, r.hit_t()), r.level());
    }
    uint32_t shadow_rays = 0;
    const glm::vec3 direct = surface_light<kWidth>(f.scene, sf, shadow_rays, ray_tree_of(kWidth));
    r.add_radiance(r.weight() * direct);
    return shadow_rays;
}

// The rays the hit sends on (whitted_rays), one level deeper, within the depth limit: the
// refracted ray goes on in the slot and the reflected one waits on the stack; with one
// ray, that one goes on. With none, the slot takes its next deferred ray. Returns whether
// the slot holds a ray.
template <int kVariant, class R>
SRT_HD_INLINE bool reflect_tree_ray(const FrameContext& f, const Surface& sf, R& r, uint32_t i) {
    const int level = int(r.level());
    if (depth_left(f, level)) {
        const f4 medium = load_f4(&f.scene.materials[sf.material].medium);
        const f4 glossy = medium.w > 0.0f ? load_f4(&f.scene.materials[sf.material].glossy) : f4{};
        const WhittedRays w = whitted_rays(sf, r.dir(), medium, glossy);
        const glm::vec3 weight = r.weight();
        const Cone in = r.cone();
        const Cone rc = ray_cones_of(kVariant) ? reflected_cone(sf, in) : Cone{};
        const float next = float(level + 1);
        if (w.refracted) {
            if (w.reflected) tree_push(f.tree, i, w.r_origin, w.r_dir, rc, weight * w.r_weight, level + 1);
            r.set_ray(w.t_origin, w.t_dir, ray_cones_of(kVariant) ? refracted_cone(sf, in) : Cone{});
            r.set_weight_level(weight * w.t_weight, next);
            return true;
        }
        if (w.reflected) {
            r.set_ray(w.r_origin, w.r_dir, rc);
            r.set_weight_level(weight * w.r_weight, next);
            return true;
        }
    }
    return tree_pop(f.tree, i, r);
}

// ---------------------------------------------------------------------------
// The path integrator's shade and reflect (render/path_vertex.h, one vertex)
// ---------------------------------------------------------------------------

// What shade finds at a hit: the light the surface sends back along the segment (its
// absorption on the way in applied to the path's throughput), and, where the path may go
// on (`scatter`), the light sample's shadow ray and what it brings (path_vertex.h).
struct PathShade {
    glm::vec3 emitted{0.0f};
    LightQuery light;
};

template <int kVariant, PathStrategy kStrategy = PathStrategy::Mis, class R>
SRT_HD_INLINE PathShade path_shade_query(const FrameContext& f, const Surface& sf, R& r, const RngKey& key,
                                         bool scatter) {
    PathState st = r.path_state();
    const glm::vec3 d = r.dir();
    PathShade v;
    v.emitted = path_arrive<kVariant, kStrategy>(f.scene, sf, r.hit_id(), d, r.hit_t(), st);
    if (scatter) {
        const BsdfParams b = surface_bsdf<kVariant>(f.scene, sf);
        const Frame frame = Frame::around(sf.ns);
        v.light = path_light<kStrategy, materials_of(kVariant)>(f.scene, sf, b, frame, frame.to_local(-d), sample_uniform4(f.sampler, key, 0u),
                                        st);
    }
    r.set_path_state(st);  // absorbed on the way in
    return v;
}

// The wavefront's shade: the emission, then the light sample with its shadow ray traced
// here. Returns the shadow rays traced.
template <int kVariant, PathStrategy kStrategy = PathStrategy::Mis, class R>
SRT_HD_INLINE uint32_t path_shade_ray(const FrameContext& f, const Surface& sf, R& r, const RngKey& key,
                                      bool scatter) {
    const PathShade v = path_shade_query<kVariant, kStrategy>(f, sf, r, key, scatter);
    if (!scatter) {
        r.add_radiance(v.emitted);
        return 0u;
    }
    const LightQuery& q = v.light;
    const bool lit = q.trace && !occluded<kVariant>(f.scene, q.origin, q.dir, q.tmax);
    r.add_radiance(v.emitted, lit ? q.lit : glm::vec3(0.0f));
    return q.trace ? 1u : 0u;
}

// The next segment, sampled from the BSDF. Its ray carries no cone: a scattered ray's
// footprint is not a mirror's, and textures are read at their full resolution past the
// camera ray's hit.
template <int kVariant, class R>
SRT_HD_INLINE bool path_scatter_ray(const FrameContext& f, const Surface& sf, R& r, const RngKey& key, int bounce) {
    PathState st = r.path_state();
    const BsdfParams b = surface_bsdf<kVariant>(f.scene, sf);
    const Frame frame = Frame::around(sf.ns);
    glm::vec3 o, d;
    if (!path_scatter<materials_of(kVariant)>(sf, b, frame, frame.to_local(-r.dir()), sample_uniform4(f.sampler, key, 1u), bounce, st, o, d)) return false;
    if (!finite3(st.throughput)) {  // every term after would be a NaN: the film drops the path
        r.drop_sample();
        return false;
    }
    r.set_ray(o, d, Cone{});
    r.set_path_state(st);
    return true;
}

// Whether ray i lives into bounce b under --kill (render/kill.h): only a kill frame's
// kernels (kKill) test it.
template <int kVariant>
SRT_HD_INLINE bool survives_kill(const FrameContext& f, uint32_t i, int b) {
    if constexpr (!kill_of(kVariant)) return true;
    uint32_t x, y;
    ray_to_pixel(f, i, x, y);
    return kill_survives_pixel(f.kill, x, y + f.row_offset, f.width, f.tile_shift, f.sample, b);
}

// One vertex of a path held in registers: the wavefront's intersect, shade and reflect,
// the same functions in the same order, with one traversal for both of the vertex's rays:
// the segment that reaches it (closest hit) and then, where the vertex samples a light,
// the shadow ray (any hit), traced after the next segment has been sampled. A kernel that
// inlined a traversal for each held both copies of its code, and the path kernels were
// bound by fetching instructions (docs/performance.md, "The path vertex's instruction
// budget"). The radiance is added in the wavefront's order: the emission, then the light
// sample's contribution (0 where blocked).
template <int kWidth, PathStrategy kStrategy>
SRT_HD_INLINE bool trace_path_vertex(const FrameContext& f, PathRay& r, uint32_t i, int bounce,
                                     uint32_t& shadow_rays) {
    const bool more = depth_left(f, bounce);
    bool goes_on = false;  // the next segment is in r
    bool shadow = false;   // the ray traversed is the light sample's
    bool arrives = false;  // ...and it reached the light
    LightQuery q;
    glm::vec3 o = r.origin(), d = r.dir();
    float tmax = 3.0e38f;
    SRT_NO_UNROLL
    for (;;) {
        const Hit h = traverse<kHitAsked, kWidth>(f.scene, o, d, tmax, false, shadow);
        if (shadow) {
            arrives = h.id < 0;
            break;
        }
        if (!take_hit<kStrategy, instances_of(kWidth)>(f.scene, r, h, true)) return false;
        const Surface sf = ray_surface<kWidth>(f.scene, r);
        const RngKey key = path_key(f, i, bounce);
        const PathShade v = path_shade_query<kWidth, kStrategy>(f, sf, r, key, more);
        r.add_radiance(v.emitted);
        q = v.light;
        shadow_rays += q.trace ? 1u : 0u;
        goes_on = more && path_scatter_ray<kWidth>(f, sf, r, key, bounce);
        if (!q.trace) break;
        o = q.origin;
        d = q.dir;
        tmax = q.tmax;
        shadow = true;
    }
    if (more) r.add_radiance(arrives ? q.lit : glm::vec3(0.0f));
    return goes_on && survives_kill<kWidth>(f, i, bounce + 1);
}

// One bounce of a path held in registers: intersect, shade and reflect, exactly as the
// three wavefront stages do them (the surface is found once for both shade and reflect;
// it is a pure function of the hit). `i` is the ray's slot (its pixel). Returns whether
// the path goes on (with Whitted's ray tree: whether the slot still holds a ray).
// (kStrategy: the path integrator's estimators, path_vertex.h; only the tests ask for
// another than MIS.)
template <int kWidth, PathStrategy kStrategy = PathStrategy::Mis>
SRT_HD_INLINE bool trace_bounce(const FrameContext& f, PathRay& r, uint32_t i, int bounce, uint32_t& shadow_rays) {
    if constexpr (path_tracing_of(kWidth)) {
        return trace_path_vertex<kWidth, kStrategy>(f, r, i, bounce, shadow_rays);
    } else {
        if (!whitted_intersect_ray<kWidth>(f, i, r, false)) return false;
        const Surface sf = ray_surface<kWidth>(f.scene, r);
        shadow_rays += whitted_shade_ray<kWidth>(f, sf, r);
        if constexpr (ray_tree_of(kWidth)) return reflect_tree_ray<kWidth>(f, sf, r, i);
        else return depth_left(f, bounce) && reflect_ray<kWidth>(sf, r) && survives_kill<kWidth>(f, i, bounce + 1);
    }
}

// The steps a loop that follows rays in registers runs at most: the depth, or, in
// Whitted's ray tree's kernels, as many as the largest tree needs. And the stats row of step b:
// with a ray tree, the last bounce's row also counts every later step.
template <int kVariant>
SRT_HD_INLINE int trace_steps(const FrameContext& f) { return ray_tree_of(kVariant) ? 0x7fffffff : f.max_depth; }
SRT_HD_INLINE int stats_row(const FrameContext& f, int b) { return b < f.max_depth ? b : f.max_depth - 1; }

SRT_HD_INLINE uint32_t pack_rgba(const float* thresholds, const glm::vec3& c) {
    return encode_srgb8(thresholds, c.x) | (encode_srgb8(thresholds, c.y) << 8) |
           (encode_srgb8(thresholds, c.z) << 16) | (255u << 24);
}

// A pixel's sum of samples -> its 8-bit sRGB output; the samples its sum dropped are
// counted (the film, above).
SRT_HD_INLINE void resolve_pixel(const FrameContext& f, uint32_t pixel, const glm::vec3& radiance, float dropped) {
    const glm::vec3 c = radiance * f.inv_spp;  // the linear radiance (EXR, PFM)
    f.out_rgba[pixel] = pack_rgba(f.srgb_thresholds, c * f.exposure_scale);
    count_nonfinite(f, dropped);
}

// ---------------------------------------------------------------------------
// The wavefront stages: one stage of ray i over the SoA buffers
// ---------------------------------------------------------------------------

SRT_HD_INLINE bool stage_generate(const FrameContext& f, uint32_t i) {
    const RaySlot r{&f.rays, i};
    return generate_ray(f, i, r);
}

template <int kWidth>
SRT_HD_INLINE bool stage_intersect(const FrameContext& f, uint32_t i) {
    const RaySlot r{&f.rays, i};
    return whitted_intersect_ray<kWidth>(f, i, r, f.path);
}

// Returns the number of shadow rays traced. `bounce` is 0 for the primary hit.
template <int kWidth>
SRT_HD_INLINE uint32_t stage_shade(const FrameContext& f, uint32_t i, int bounce) {
    const RaySlot r{&f.rays, i};
    const Surface sf = ray_surface<kWidth>(f.scene, r);
    if constexpr (path_tracing_of(kWidth))
        return path_shade_ray<kWidth>(f, sf, r, path_key(f, i, bounce), depth_left(f, bounce));
    else
        return whitted_shade_ray<kWidth>(f, sf, r);
}

template <int kWidth>
SRT_HD_INLINE bool stage_reflect(const FrameContext& f, uint32_t i, int bounce) {
    // Beyond the depth limit: black. (With a ray tree the ray's own level, not the bounce,
    // says how deep it is, and the slot may still take a deferred ray.)
    if (!ray_tree_of(kWidth) && !depth_left(f, bounce)) return false;
    const RaySlot r{&f.rays, i};
    const Surface sf = ray_surface<kWidth>(f.scene, r);
    if constexpr (path_tracing_of(kWidth))
        return path_scatter_ray<kWidth>(f, sf, r, path_key(f, i, bounce), bounce) && survives_kill<kWidth>(f, i, bounce + 1);
    else if constexpr (ray_tree_of(kWidth))
        return reflect_tree_ray<kWidth>(f, sf, r, i);  // (--kill does not apply to ray trees)
    else
        return reflect_ray<kWidth>(sf, r) && survives_kill<kWidth>(f, i, bounce + 1);
}

// Calls fn(std::integral_constant<int, V>{}) for the frame's kernel variant V: the
// scene's (accel/variant.h with_bvh_width) and the integrator's bit.
template <class Fn>
SRT_HD_INLINE decltype(auto) with_variant(const FrameContext& f, Fn&& fn) {
    if (f.kill.active()) {
        if (f.path) return with_kill_variant<kPathTracing>(f.scene, fn);
        return with_kill_variant<0>(f.scene, fn);
    }
    if (f.path) return with_path_variant(f.scene, fn);
    if (f.ray_tree) return with_tree_variant(f.scene, fn);
    return with_bvh_width(f.scene, fn);
}
// The same for the intersect stage, which both integrators share (its variant has no
// integrator bit; a ray tree's pops from the stack of deferred rays; a path frame's finds
// what its path kernels find).
template <class Fn>
SRT_HD_INLINE decltype(auto) with_intersect_variant(const FrameContext& f, Fn&& fn) {
    if (f.kill.active()) return with_kill_variant<0>(f.scene, fn);
    if (f.ray_tree) return with_tree_variant(f.scene, fn);
    if (f.path) return with_path_intersect_variant(f.scene, fn);
    return with_bvh_width(f.scene, fn);
}

SRT_HD_INLINE void stage_resolve(const FrameContext& f, uint32_t pixel) {
    const uint32_t ray = pixel_to_ray(f, pixel % f.width, pixel / f.width);
    const f4 sum = f.rays.radiance[ray];
    resolve_pixel(f, pixel, xyz(sum), sum.w);
}

}  // namespace srt
