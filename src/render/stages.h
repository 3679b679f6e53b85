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

// A ray's cone (Akenine-Moller et al. 2019, "Texture Level of Detail Strategies for
// Real-Time Ray Tracing", section 3.4), what picks a texture's mip level: its width where
// the ray starts and the angle it spreads by along it. A camera ray starts as a point
// spreading by one pixel's angle; a mirror passes the width on, and a curved one bends
// the spread by twice its curvature times the width, as a curved mirror focuses or
// spreads a beam. Carried in the w of the ray's origin and direction slots.
struct Cone {
    float width = 0.0f;
    float spread = 0.0f;
};

// What shading needs to know about a hit.
struct Surface {
    glm::vec3 p;       // hit point (accel/hit_point.h)
    glm::vec3 p_err;   // bound on p's error per component
    glm::vec3 n;       // unit geometric normal, facing the incoming ray: where rays leave from
    glm::vec3 ns;      // unit shading normal, facing the incoming ray: lighting and mirror
                       // direction (the interpolated vertex normal on smooth triangles, else n)
    glm::vec3 colour;  // after the checker and the texture
    float cone_width;  // the ray cone's width at the hit (signed: negative past a focus)
    float curvature;   // 1/r of a sphere seen from outside, -1/r from inside; 0 if flat
    float kd;
    float ka;
    glm::vec3 kr;
};

// Both normals turned to face the incoming ray (winding does not matter), each on its own.
SRT_HD_INLINE void face_ray(Surface& sf, const glm::vec3& d) {
    if (glm::dot(sf.n, d) > 0.0f) sf.n = -sf.n;
    if (glm::dot(sf.ns, d) > 0.0f) sf.ns = -sf.ns;
}

SRT_HD_INLINE uint32_t meta_of(const SceneView& s, int32_t id) { return float_bits(load_f4(&s.prims[id].p0).w); }

// A plane hit's coordinates along the plane's own axes u and v = n x u, from its anchor
// point: where its checker and its texture are laid out (n before facing the ray).
SRT_HD_INLINE glm::vec2 plane_coords(const PlaneGpu* pl, const Surface& sf) {
    const glm::vec3 u = xyz(load_f4(&pl->u));
    const glm::vec3 v = glm::cross(sf.n, u);
    const glm::vec3 local = sf.p - xyz(load_f4(&pl->point_mat));
    return glm::vec2(glm::dot(local, u), glm::dot(local, v));
}

// kVariant: the kernels' variant (accel/intersect.h with_bvh_width): whether spheres
// computed in double are, in this scene and this code.
template <int kVariant>
SRT_HD_INLINE Surface surface_at(const SceneView& s, const glm::vec3& o, const glm::vec3& d, float t,
                                 int32_t id, const Cone& cone = Cone{}) {
    Surface sf;
    sf.cone_width = ray_cones_of(kVariant) ? cone.width + cone.spread * t : 0.0f;
    sf.curvature = 0.0f;
    float inv_radius = 0.0f;  // of a sphere hit
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
            if (precise_spheres_of(kVariant)) {          // in double (accel/bvh.h)
                const f4 lo = load_f4(&s.prims[id].p2);  // what rounding lost
                hp = sphere_hit_point_double(o, d, t, xyz(a), b.x, xyz(lo), b.z);
            } else {
                hp = sphere_hit_point_float(o, d, t, xyz(a), b.x);
            }
            inv_radius = b.w;
            if (ray_cones_of(kVariant)) sf.curvature = glm::dot(hp.n, d) < 0.0f ? inv_radius : -inv_radius;
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
    const f4 mc = load_f4(&s.materials[material].colour);
    const f4 mr = load_f4(&s.materials[material].kr);
    sf.colour = xyz(mc);
    sf.kd = mc.w;
    sf.kr = xyz(mr);
    sf.ka = mr.w;
    if (pl != nullptr) {
        const float size = load_f4(&pl->normal).w;
        if (size > 0.0f) {
            const glm::vec2 c = plane_coords(pl, sf);
            if (int(floorf(c.x / size) + floorf(c.y / size)) & 1) sf.colour = xyz(load_f4(&pl->checker));
        }
    }
    // A texture multiplies the colour (the checker's too) at the hit's texture coordinates,
    // filtered over the cone's footprint: its width at the hit, stretched by the slant
    // (1 / |cos|), in texels of the image (how many uv units a unit of length spans, times
    // the image's size).
    const uint32_t tex = textures_of(kVariant) ? float_bits(load_f4(&s.materials[material].tex).x) : kNoTextureGpu;
    if (tex != kNoTextureGpu) {
        glm::vec2 uv;
        float uv_per_length;
        if (pl != nullptr) {
            const float size = load_f4(&pl->u).w;
            uv = plane_coords(pl, sf) / size;
            uv_per_length = 1.0f / size;
        } else if (inv_radius > 0.0f) {
            uv = sphere_uv(hp.n);
            // A latitude-longitude map spans 2 pi r by pi r: sqrt(1 / (2 pi^2 r^2)).
            uv_per_length = 0.225079079f * inv_radius;
        } else {
            uv = triangle_uv(s, uint32_t(id), hp.u, hp.v);
            uv_per_length = load_f4(&s.uvs[2 * uint32_t(id) + 1]).z;
        }
        const TextureGpu t0 = load_texture(&s.textures[tex]);
        float lod = 0.0f;  // no mip chain: level 0
        if (ray_cones_of(kVariant) && tex_levels(t0) > 1) {
            const float cos_theta = fmaxf(fabsf(glm::dot(hp.n, d)), 1e-4f);
            const float texels = fabsf(sf.cone_width) * uv_per_length * sqrtf(float(t0.width) * float(t0.height)) / cos_theta;
            lod = log2_portable(texels);
        }
        sf.colour = sf.colour * sample_colour_lod(s.textures, s.texels, s.srgb_lut, tex, uv, lod);
    }
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

// The cone of the ray a mirror reflects: it starts as wide as the incoming one was at the
// hit, and a sphere adds twice its curvature times that width to the spread (a convex
// mirror spreads the beam, a concave one focuses it).
SRT_HD_INLINE Cone reflected_cone(const Surface& sf, const Cone& in) {
    return Cone{sf.cone_width, in.spread + 2.0f * sf.curvature * sf.cone_width};
}

SRT_HD_INLINE glm::vec3 load3(const f4* p, uint32_t i) { return xyz(p[i]); }
SRT_HD_INLINE void store3(f4* p, uint32_t i, const glm::vec3& v) { p[i] = f4{v.x, v.y, v.z, 0.0f}; }

// ---------------------------------------------------------------------------
// A ray as the stages see it. The stage logic below is written once, over either form:
//   RaySlot - ray i's slots in the frame's SoA buffers: a field is loaded when read and
//             stored when written, so a wavefront stage moves only the fields it needs;
//   PathRay - one ray in registers, for kernels that follow a path through every bounce
//             (the megakernel, path regeneration, the stencil's path tail).
// Both do the same arithmetic in the same order, so every mode makes the same image.
// ---------------------------------------------------------------------------
struct RaySlot {
    const RayBuffers* b;
    uint32_t i;
    SRT_HD_INLINE glm::vec3 origin() const { return load3(b->origin, i); }
    SRT_HD_INLINE glm::vec3 dir() const { return load3(b->dir, i); }
    SRT_HD_INLINE glm::vec3 weight() const { return load3(b->weight, i); }
    SRT_HD_INLINE glm::vec3 radiance() const { return load3(b->radiance, i); }
    SRT_HD_INLINE float hit_t() const { return b->hit_t[i]; }
    SRT_HD_INLINE int32_t hit_id() const { return b->hit_id[i]; }
    SRT_HD_INLINE Cone cone() const { return Cone{b->origin[i].w, b->dir[i].w}; }
    SRT_HD_INLINE void set_ray(const glm::vec3& o, const glm::vec3& d, const Cone& c) const {
        b->origin[i] = f4{o.x, o.y, o.z, c.width};
        b->dir[i] = f4{d.x, d.y, d.z, c.spread};
    }
    SRT_HD_INLINE void set_weight(const glm::vec3& v) const { store3(b->weight, i, v); }
    SRT_HD_INLINE void set_radiance(const glm::vec3& v) const { store3(b->radiance, i, v); }
    SRT_HD_INLINE void set_hit(float t, int32_t id) const {
        b->hit_t[i] = t;
        b->hit_id[i] = id;
    }
};

struct PathRay {
    glm::vec3 o, d, w, rad;
    Cone c;
    float t = 0.0f;
    int32_t id = -1;
    SRT_HD_INLINE glm::vec3 origin() const { return o; }
    SRT_HD_INLINE glm::vec3 dir() const { return d; }
    SRT_HD_INLINE glm::vec3 weight() const { return w; }
    SRT_HD_INLINE glm::vec3 radiance() const { return rad; }
    SRT_HD_INLINE float hit_t() const { return t; }
    SRT_HD_INLINE int32_t hit_id() const { return id; }
    SRT_HD_INLINE Cone cone() const { return c; }
    SRT_HD_INLINE void set_ray(const glm::vec3& ro, const glm::vec3& rd, const Cone& rc) {
        o = ro;
        d = rd;
        c = rc;
    }
    SRT_HD_INLINE void set_weight(const glm::vec3& v) { w = v; }
    SRT_HD_INLINE void set_radiance(const glm::vec3& v) { rad = v; }
    SRT_HD_INLINE void set_hit(float ht, int32_t hid) {
        t = ht;
        id = hid;
    }
    // The whole ray from its slots (a path tail picks up where the wavefront left it).
    SRT_HD_INLINE static PathRay load(const RayBuffers& b, uint32_t i) {
        PathRay r;
        const f4 o = b.origin[i], d = b.dir[i];
        r.o = xyz(o);
        r.d = xyz(d);
        r.c = Cone{o.w, d.w};
        r.w = load3(b.weight, i);
        r.rad = load3(b.radiance, i);
        return r;
    }
};

// ---------------------------------------------------------------------------
// The stage logic, once
// ---------------------------------------------------------------------------

// Camera ray for ray i's pixel, at this frame's sample; sample 0 starts the pixel's sum.
template <class R>
SRT_HD_INLINE bool generate_ray(const FrameContext& f, uint32_t i, R& r) {
    uint32_t x, y;
    if (!ray_to_pixel(f, i, x, y)) return false;  // pad lane: dead from the start
    const glm::vec3 d = camera_dir(f.camera, f.width, f.full_height, float(x) + f.sample_dx,
                                   float(y + f.row_offset) + f.sample_dy);
    r.set_ray(f.camera.origin, d, Cone{0.0f, f.camera.pixel_spread});
    r.set_weight(glm::vec3(1.0f));
    if (f.sample == 0) r.set_radiance(glm::vec3(0.0f));
    return true;
}

// Closest hit; a miss adds the background and ends the path.
template <int kWidth, class R>
SRT_HD_INLINE bool intersect_ray(const SceneView& s, R& r) {
    const Hit h = intersect_closest<kWidth>(s, r.origin(), r.dir(), 3.0e38f);
    if (h.id < 0) {
        r.set_radiance(r.radiance() + r.weight() * s.background);
        return false;
    }
    r.set_hit(h.t, h.id);
    return true;
}

template <int kWidth, class R>
SRT_HD_INLINE Surface ray_surface(const SceneView& s, const R& r) {
    return surface_at<kWidth>(s, r.origin(), r.dir(), r.hit_t(), r.hit_id(), r.cone());
}

// Direct light at the hit, added to the pixel's sum; returns the shadow rays traced.
template <int kWidth, class R>
SRT_HD_INLINE uint32_t shade_ray(const SceneView& s, const Surface& sf, R& r) {
    uint32_t shadow_rays = 0;
    const glm::vec3 direct = surface_light<kWidth>(s, sf, shadow_rays);
    r.set_radiance(r.radiance() + r.weight() * direct);
    return shadow_rays;
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

// One bounce of a path held in registers: intersect, shade and reflect, exactly as the
// three wavefront stages do them (the surface is found once for both shade and reflect;
// it is a pure function of the hit). Returns whether the path goes on.
template <int kWidth>
SRT_HD_INLINE bool trace_bounce(const FrameContext& f, PathRay& r, int bounce, uint32_t& shadow_rays) {
    if (!intersect_ray<kWidth>(f.scene, r)) return false;
    const Surface sf = ray_surface<kWidth>(f.scene, r);
    shadow_rays += shade_ray<kWidth>(f.scene, sf, r);
    return depth_left(f, bounce) && reflect_ray<kWidth>(sf, r);
}

SRT_HD_INLINE uint32_t pack_rgba(const float* thresholds, const glm::vec3& c) {
    return encode_srgb8(thresholds, c.x) | (encode_srgb8(thresholds, c.y) << 8) |
           (encode_srgb8(thresholds, c.z) << 16) | (255u << 24);
}

// A pixel's sum of samples -> its 8-bit sRGB output.
SRT_HD_INLINE void resolve_pixel(const FrameContext& f, uint32_t pixel, const glm::vec3& radiance) {
    const glm::vec3 c = radiance * f.inv_spp;  // the linear radiance (EXR, PFM)
    f.out_rgba[pixel] = pack_rgba(f.srgb_thresholds, c * f.exposure_scale);
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
    return intersect_ray<kWidth>(f.scene, r);
}

// Returns the number of shadow rays traced.
template <int kWidth>
SRT_HD_INLINE uint32_t stage_shade(const FrameContext& f, uint32_t i) {
    const RaySlot r{&f.rays, i};
    return shade_ray<kWidth>(f.scene, ray_surface<kWidth>(f.scene, r), r);
}

// `bounce` is 0 for the primary hit.
template <int kWidth>
SRT_HD_INLINE bool stage_reflect(const FrameContext& f, uint32_t i, int bounce) {
    if (!depth_left(f, bounce)) return false;  // beyond the depth limit: black
    const RaySlot r{&f.rays, i};
    return reflect_ray<kWidth>(ray_surface<kWidth>(f.scene, r), r);
}

SRT_HD_INLINE void stage_resolve(const FrameContext& f, uint32_t pixel) {
    const uint32_t ray = pixel_to_ray(f, pixel % f.width, pixel / f.width);
    resolve_pixel(f, pixel, load3(f.rays.radiance, ray));
}

}  // namespace srt
