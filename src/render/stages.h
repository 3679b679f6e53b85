// stages.h - the per-ray stage functions of the wavefront pipeline.
//
// Each function does one stage for one ray (or pixel). The CPU executor calls them in
// warp-by-warp loops; the CUDA kernels are thin __global__ wrappers around them. The
// stencil is NOT handled here: callers test the ray's bit before calling a stage and
// ballot the returned liveness afterwards (render/stencil.h).
//
//   generate  : camera ray for pixel ray_to_pixel(i)   -> alive = (that pixel is inside the image)
//   intersect : closest hit; a miss adds background    -> alive = hit something
//   shade     : Lambert + one shadow ray per light     (liveness unchanged)
//   reflect   : mirror bounce, weight *= kr            -> alive = kr > 0 and depth left
//   resolve   : radiance / spp -> 8-bit sRGB pixel
#pragma once

#include "accel/hit_point.h"
#include "accel/intersect.h"
#include "core/hd.h"
#include "render/frame.h"
#include "render/srgb.h"

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

// What shading needs to know about a hit.
struct Surface {
    glm::vec3 p;       // hit point (accel/hit_point.h)
    glm::vec3 p_err;   // bound on p's error per component
    glm::vec3 n;       // unit geometric normal, facing the incoming ray: where rays leave from
    glm::vec3 ns;      // unit shading normal, facing the incoming ray: lighting and mirror
                       // direction (the interpolated vertex normal on smooth triangles, else n)
    glm::vec3 colour;  // after the checker
    float kd;
    float ka;
    glm::vec3 kr;
};

// Both normals turned to face the incoming ray (winding does not matter), each on its own.
SRT_HD_INLINE void face_ray(Surface& sf, const glm::vec3& d) {
    if (glm::dot(sf.n, d) > 0.0f) sf.n = -sf.n;
    if (glm::dot(sf.ns, d) > 0.0f) sf.ns = -sf.ns;
}

SRT_HD_INLINE Surface surface_at(const SceneView& s, const glm::vec3& o, const glm::vec3& d, float t,
                                 int32_t id) {
    Surface sf;
    HitPoint hp;
    bool smooth = false;
    uint32_t material;
    const PlaneGpu* pl = nullptr;
    if (uint32_t(id) < s.prim_count) {
        const f4 a = load_f4(&s.prims[id].p0);
        const f4 b = load_f4(&s.prims[id].p1);
        const uint32_t meta = float_bits(a.w);
        material = meta & kPrimMaterialMask;
        if (meta & kPrimSphereBit) {
            hp = sphere_hit_point(o, d, t, xyz(a), b.x);
        } else {
            const f4 c = load_f4(&s.prims[id].p2);
            hp = triangle_hit_point(o, d, xyz(a), xyz(b), xyz(c));
            if (meta & kPrimSmoothBit) {
                const f4* vn = &s.normals[3 * uint32_t(id)];
                const glm::vec3 n = (1.0f - hp.u - hp.v) * xyz(load_f4(&vn[0])) + hp.u * xyz(load_f4(&vn[1])) +
                                    hp.v * xyz(load_f4(&vn[2]));
                const float len2 = glm::dot(n, n);
                sf.ns = len2 > 0.0f ? n * (1.0f / sqrtf(len2)) : hp.n;
                smooth = true;
            }
        }
    } else {
        pl = &s.planes[uint32_t(id) - s.prim_count];
        const f4 pm = load_f4(&pl->point_mat);
        material = float_bits(pm.w);
        hp = plane_hit_point(o, d, t, xyz(pm), xyz(load_f4(&pl->normal)));
    }
    sf.p = hp.p;
    sf.p_err = hp.err;
    sf.n = hp.n;
    if (!smooth) sf.ns = hp.n;
    if (pl != nullptr) {
        const f4 pm = load_f4(&pl->point_mat);
        const f4 pn = load_f4(&pl->normal);
        const float size = pn.w;
        if (size > 0.0f) {
            // Checker on the plane's own axes u and v = n x u.
            const glm::vec3 u = xyz(load_f4(&pl->u));
            const glm::vec3 v = glm::cross(sf.n, u);
            const glm::vec3 local = sf.p - xyz(pm);
            const float cu = floorf(glm::dot(local, u) / size);
            const float cv = floorf(glm::dot(local, v) / size);
            const int parity = int(cu + cv) & 1;
            if (parity) {
                const MaterialGpu m = s.materials[material];
                sf.colour = xyz(load_f4(&pl->checker));
                sf.kd = m.colour.w;
                sf.ka = m.kr.w;
                sf.kr = xyz(m.kr);
                face_ray(sf, d);
                return sf;
            }
        }
    }
    const f4 mc = load_f4(&s.materials[material].colour);
    sf.colour = xyz(mc);
    sf.kd = mc.w;
    const f4 mr = load_f4(&s.materials[material].kr);
    sf.kr = xyz(mr);
    sf.ka = mr.w;
    face_ray(sf, d);
    return sf;
}

// Origin for rays leaving a surface on the side its normal faces: past the hit point's
// error bound (accel/hit_point.h), so they never meet that surface again.
SRT_HD_INLINE glm::vec3 offset_origin(const Surface& sf) { return offset_ray_origin(sf.p, sf.p_err, sf.n); }

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

// kd * colour * sum over lights of max(0, N.L) * light, with one hard shadow ray each.
// `shadow_rays` counts the shadow rays traced (for rays/s).
// kWidth: the BVH width the scene was compiled for (accel/intersect.h).
template <int kWidth>
SRT_HD_INLINE glm::vec3 direct_light(const SceneView& s, const Surface& sf, uint32_t& shadow_rays) {
    glm::vec3 sum(0.0f);
    if (sf.kd == 0.0f) return sum;
    const glm::vec3 o = offset_origin(sf);
    for (uint32_t l = 0; l < s.light_count; ++l) {
        const glm::vec3 lc = xyz(load_f4(&s.lights[l].colour));
        glm::vec3 to_light;
        const float dist = light_direction(s, l, o, to_light);
        const float ndotl = glm::dot(sf.ns, to_light);
        if (!(ndotl > 0.0f)) continue;
        ++shadow_rays;
        if (occluded<kWidth>(s, o, to_light, dist)) continue;
        sum += ndotl * lc;
    }
    return (sf.kd * sf.colour) * sum;
}

// What a surface sends back before its mirror term: the ambient term (lit or in shadow)
// plus direct light (scene.h's model).
template <int kWidth>
SRT_HD_INLINE glm::vec3 surface_light(const SceneView& s, const Surface& sf, uint32_t& shadow_rays) {
    return (sf.ka * s.ambient) * sf.colour + direct_light<kWidth>(s, sf, shadow_rays);
}

SRT_HD_INLINE glm::vec3 reflect_dir(const glm::vec3& d, const glm::vec3& n) {
    return d - (2.0f * glm::dot(d, n)) * n;
}

SRT_HD_INLINE glm::vec3 load3(const f4* p, uint32_t i) { return xyz(p[i]); }
SRT_HD_INLINE void store3(f4* p, uint32_t i, const glm::vec3& v) { p[i] = f4{v.x, v.y, v.z, 0.0f}; }

// ---------------------------------------------------------------------------
// The stages
// ---------------------------------------------------------------------------

SRT_HD_INLINE bool stage_generate(const FrameContext& f, uint32_t i) {
    uint32_t x, y;
    if (!ray_to_pixel(f, i, x, y)) return false;  // pad lane: dead from the start
    const glm::vec3 d = camera_dir(f.camera, f.width, f.full_height, float(x) + f.sample_dx,
                                   float(y + f.row_offset) + f.sample_dy);
    store3(f.rays.origin, i, f.camera.origin);
    store3(f.rays.dir, i, d);
    store3(f.rays.weight, i, glm::vec3(1.0f));
    if (f.sample == 0) store3(f.rays.radiance, i, glm::vec3(0.0f));
    return true;
}

template <int kWidth>
SRT_HD_INLINE bool stage_intersect(const FrameContext& f, uint32_t i) {
    const glm::vec3 o = load3(f.rays.origin, i), d = load3(f.rays.dir, i);
    const Hit h = intersect_closest<kWidth>(f.scene, o, d, 3.0e38f);
    if (h.id < 0) {
        store3(f.rays.radiance, i, load3(f.rays.radiance, i) + load3(f.rays.weight, i) * f.scene.background);
        return false;
    }
    f.rays.hit_t[i] = h.t;
    f.rays.hit_id[i] = h.id;
    return true;
}

// Returns the number of shadow rays traced.
template <int kWidth>
SRT_HD_INLINE uint32_t stage_shade(const FrameContext& f, uint32_t i) {
    const glm::vec3 o = load3(f.rays.origin, i), d = load3(f.rays.dir, i);
    const Surface sf = surface_at(f.scene, o, d, f.rays.hit_t[i], f.rays.hit_id[i]);
    uint32_t shadow_rays = 0;
    const glm::vec3 direct = surface_light<kWidth>(f.scene, sf, shadow_rays);
    store3(f.rays.radiance, i, load3(f.rays.radiance, i) + load3(f.rays.weight, i) * direct);
    return shadow_rays;
}

// `bounce` is 0 for the primary hit; a reflected ray would be level bounce + 2.
SRT_HD_INLINE bool stage_reflect(const FrameContext& f, uint32_t i, int bounce) {
    if (bounce + 1 >= f.max_depth) return false;  // beyond the depth limit: black
    const glm::vec3 o = load3(f.rays.origin, i), d = load3(f.rays.dir, i);
    const Surface sf = surface_at(f.scene, o, d, f.rays.hit_t[i], f.rays.hit_id[i]);
    if (!(sf.kr.x > 0.0f || sf.kr.y > 0.0f || sf.kr.z > 0.0f)) return false;
    store3(f.rays.weight, i, load3(f.rays.weight, i) * sf.kr);
    store3(f.rays.origin, i, offset_origin(sf));
    store3(f.rays.dir, i, unit(reflect_dir(d, sf.ns)));
    return true;
}

SRT_HD_INLINE uint32_t pack_rgba(const float* thresholds, const glm::vec3& c) {
    return encode_srgb8(thresholds, c.x) | (encode_srgb8(thresholds, c.y) << 8) |
           (encode_srgb8(thresholds, c.z) << 16) | (255u << 24);
}

SRT_HD_INLINE void stage_resolve(const FrameContext& f, uint32_t pixel) {
    const uint32_t ray = pixel_to_ray(f, pixel % f.width, pixel / f.width);
    const glm::vec3 c = load3(f.rays.radiance, ray) * f.inv_spp;  // the linear radiance (EXR, PFM)
    f.out_rgba[pixel] = pack_rgba(f.srgb_thresholds, c * f.exposure_scale);
}

}  // namespace srt
