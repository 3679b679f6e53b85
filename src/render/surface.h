// surface.h - a hit as shading sees it: the Surface at a ray's closest hit (position
// with its error bound, normals, material and texture colour), and the ray cone that
// picks a texture's mip level there and is passed on by mirrors. Used by the stage
// functions (render/stages.h) and the recursive reference (render/reference.cpp).
#pragma once

#include "accel/hit_point.h"
#include "accel/intersect.h"
#include "core/hd.h"

#include <glm/glm.hpp>

namespace srt {

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
    glm::vec2 maps;    // what the metallic and roughness maps multiply the factors by (1: no map)
    glm::vec3 emission;  // what the emission texture multiplies the emission by (1: none)
    float cone_width;  // the ray cone's width at the hit (signed: negative past a focus)
    float curvature;   // 1/r of a sphere seen from outside, -1/r from inside; 0 if flat
    float kd;
    float ka;
    glm::vec3 kr;
    uint32_t material;  // into SceneView::materials
    bool front;         // the ray came from the side the surface faces (a triangle's counter-clockwise side, a sphere's outside)
};

// A shading normal that a normal map tilted, bent where it must be so that the mirror
// direction of wo (unit, towards the viewer) about it lies above the surface whose normal
// n faces wo: else the path integrator's specular lobes would send their rays under the
// surface, and a normal-mapped metal would show black where its bumps turn away from the
// eye. Where the reflection r falls below a small height q above the surface, it is
// lifted to that height (its direction along the surface kept) and the normal becomes the
// half vector of wo and the lifted reflection, the normal that reflects wo there. The
// idea of Blender Cycles' ensure_valid_reflection, with its threshold q = min(0.9 cos,
// 0.01), written here from that statement; nothing changes where the reflection is above
// q, so the bend is continuous. Diffuse samples below the surface still end the path
// (render/path_vertex.h path_scatter): light never leaks through.
SRT_HD_INLINE glm::vec3 reflection_above(const glm::vec3& ns, const glm::vec3& n, const glm::vec3& wo) {
    const float q = fminf(0.9f * glm::dot(n, wo), 0.01f);
    const glm::vec3 r = 2.0f * glm::dot(ns, wo) * ns - wo;
    const float rz = glm::dot(r, n);
    if (rz >= q) return ns;
    const glm::vec3 along = r - rz * n;
    const float len2 = glm::dot(along, along);
    if (!(len2 > 0.0f)) return n;  // r straight into the surface: no direction along it to keep
    const glm::vec3 lifted = along * (sqrtf(1.0f - q * q) / sqrtf(len2)) + q * n;
    return glm::normalize(wo + lifted);
}

// The shading normal a normal map gives: the map's value m (signed, accel/texture.h
// kTexSigned) in the tangent frame of the shading normal ns (not yet facing the ray): the
// tangent t (along +u) made orthogonal to ns, the bitangent cross(ns, t) times the
// handedness (+v up the image), and normalize(t m.x scale + b m.y scale + ns m.z), as
// glTF 2.0 defines it. A texel that tilts nothing (m.x = m.y = 0, a flat map's 128)
// leaves ns as it is, bit for bit.
SRT_HD_INLINE glm::vec3 mapped_normal(const glm::vec3& ns, const glm::vec3& t, float handedness, const glm::vec3& m,
                                      float scale) {
    if (m.x == 0.0f && m.y == 0.0f) return ns;
    const glm::vec3 tp = t - glm::dot(t, ns) * ns;
    const float len2 = glm::dot(tp, tp);
    if (!(len2 > 0.0f)) return ns;  // the tangent along the normal: no frame
    const glm::vec3 tu = tp * (1.0f / sqrtf(len2));
    const glm::vec3 bu = glm::cross(ns, tu) * handedness;
    const glm::vec3 n = tu * (m.x * scale) + bu * (m.y * scale) + ns * m.z;
    const float n2 = glm::dot(n, n);
    return n2 > 0.0f ? n * (1.0f / sqrtf(n2)) : ns;
}

// A normal map's texel m in the tangent frame of the coordinates it is read at: (x, y)
// turned onto them as texture entry tex lies (TexTransformGpu::axes); m itself where no
// texture is transformed, and the identity's numbers give m's bits.
SRT_HD_INLINE glm::vec3 normal_texel_in_frame(const SceneView& s, uint32_t tex, const glm::vec3& m) {
    if (s.tex_transforms == nullptr) return m;
    const f4 a = load_f4(&s.tex_transforms[tex].axes);
    return glm::vec3(fma1(a.x, m.x, a.y * m.y), fma1(a.z, m.x, a.w * m.y), m.z);
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

// Channel k (0 red, 1 green, 2 blue) of a texture's value, without indexing a vector by a
// variable (which a GPU does in local memory).
SRT_HD_INLINE float channel(const glm::vec3& c, uint32_t k) { return k == 0u ? c.x : k == 1u ? c.y : c.z; }

// A triangle hit of instance `inst` (accel/traverse_instances.h): its hit point found in
// the mesh's object space with the ray moved there, as triangle_hit_point finds it, then
// moved back to rendering space. Its error bound grows as pbrt-v4's Transform moves one:
// the object bound through |M|, gamma(3) of |M| |p| + |T| for the three fmas, and what
// the instance's mismatch (InstanceGpu::meta.w) adds; an exact instance (kInstanceExact)
// moves every float exactly and adds nothing. The geometric normal is the object cross
// product by the cofactor matrix (to_object's transpose, turned over by a mirror), as the
// cross product of the moved edges would be. `area_scale`: world area over object area.
SRT_HD_INLINE HitPoint instance_hit_point(const InstanceGpu* inst, const glm::vec3& o, const glm::vec3& d,
                                          const glm::vec3& v0, const glm::vec3& e1, const glm::vec3& e2,
                                          float& area_scale) {
    glm::vec3 oo, od;
    ray_to_object(inst, o, d, oo, od);
    const HitPoint ho = triangle_hit_point(oo, od, v0, e1, e2);
    const f4 w0 = load_f4(&inst->to_world[0]), w1 = load_f4(&inst->to_world[1]), w2 = load_f4(&inst->to_world[2]);
    const f4 meta = load_f4(&inst->meta);
    const uint32_t flags = float_bits(meta.y);
    HitPoint h = ho;
    h.p = apply_rows(w0, w1, w2, ho.p, true);
    const f4 a0{fabsf(w0.x), fabsf(w0.y), fabsf(w0.z), fabsf(w0.w)}, a1{fabsf(w1.x), fabsf(w1.y), fabsf(w1.z), fabsf(w1.w)},
        a2{fabsf(w2.x), fabsf(w2.y), fabsf(w2.z), fabsf(w2.w)};
    h.err = apply_rows(a0, a1, a2, ho.err, false);
    if (!(flags & kInstanceExact)) {
        const glm::vec3 mag = apply_rows(a0, a1, a2, abs3(ho.p), true);  // |M| |p| + |T|
        h.err = h.err * (1.0f + gamma_bound(3)) + gamma_bound(3) * mag + glm::vec3(meta.w);
    }
    const f4 r0 = load_f4(&inst->to_object[0]), r1 = load_f4(&inst->to_object[1]), r2 = load_f4(&inst->to_object[2]);
    const glm::vec3 c = glm::cross(e1, e2);
    glm::vec3 n = apply_rows_transposed(r0, r1, r2, c);
    if (flags & kInstanceMirror) n = -n;
    const float n2 = glm::dot(n, n);
    h.n = n * (1.0f / sqrtf(n2));
    area_scale = meta.z * sqrtf(n2 / glm::dot(c, c));
    return h;
}

// kVariant: the kernels' variant (accel/variant.h with_bvh_width): whether spheres
// computed in double are, in this scene and this code, and whether hits may lie in
// instances (`inst`, Hit::inst; kNoInstance: the scene's own primitives).
template <int kVariant>
SRT_HD_INLINE Surface surface_at(const SceneView& s, const glm::vec3& o, const glm::vec3& d, float t,
                                 int32_t id, const Cone& cone = Cone{}, uint32_t inst = kNoInstance) {
    const InstanceGpu* in = instances_of(kVariant) && inst != kNoInstance ? &s.instances[inst] : nullptr;
    float area_scale = 1.0f;  // an instance's world area over its object area
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
            if (in != nullptr) hp = instance_hit_point(in, o, d, xyz(a), xyz(b), xyz(c), area_scale);
            else hp = triangle_hit_point(o, d, xyz(a), xyz(b), xyz(c));
            if (meta & kPrimSmoothBit) {
                const f4* vn = &s.normals[3 * uint32_t(id)];
                glm::vec3 n = (1.0f - hp.u - hp.v) * xyz(load_f4(&vn[0])) + hp.u * xyz(load_f4(&vn[1])) +
                              hp.v * xyz(load_f4(&vn[2]));
                if (in != nullptr)  // by the inverse transpose, as scene/instances.h moves vertex normals
                    n = apply_rows_transposed(load_f4(&in->to_object[0]), load_f4(&in->to_object[1]),
                                              load_f4(&in->to_object[2]), n);
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
    sf.material = material;
    sf.front = glm::dot(hp.n, d) < 0.0f;
    if (!smooth) sf.ns = hp.n;
    const f4 mc = load_f4(&s.materials[material].colour);
    const f4 mr = load_f4(&s.materials[material].kr);
    sf.colour = xyz(mc);
    sf.maps = glm::vec2(1.0f);
    sf.emission = glm::vec3(1.0f);
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
    // the image's size). The maps of metallic and roughness are read at the same
    // coordinates, only by kernels with the extended materials (accel/variant.h).
    const uint32_t tex = textures_of(kVariant) ? float_bits(load_f4(&s.materials[material].tex).x) : kNoTextureGpu;
    uint32_t metal_tex = kNoTextureGpu, rough_tex = kNoTextureGpu, normal_tex = kNoTextureGpu, channels = 0u;
    uint32_t emission_tex = 0u;  // emission_texture_of: the texture + 1, 0 for none
    float normal_scale = 1.0f;
    if constexpr (textures_of(kVariant) && materials_of(kVariant)) {
        const f4 maps = load_f4(&s.materials[material].maps);
        metal_tex = float_bits(maps.x);
        rough_tex = float_bits(maps.y);
        channels = float_bits(maps.z);
        // A frame to tilt in: a triangle's tangents (the loaders give every normal-mapped one
        // that has texture coordinates), or a plane's axes; not a sphere's.
        if ((channels >> kNormalMapShift) != 0u && (pl != nullptr || (s.tangents != nullptr && !(inv_radius > 0.0f))))
            normal_tex = (channels >> kNormalMapShift) - 1u;
        normal_scale = maps.w;
        emission_tex = emission_texture_of(s, material);
    }
    const glm::vec3 ns_unmapped = sf.ns;
    bool mapped = false;
    if (tex != kNoTextureGpu || metal_tex != kNoTextureGpu || rough_tex != kNoTextureGpu || normal_tex != kNoTextureGpu ||
        emission_tex != 0u) {
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
            if (in != nullptr) uv_per_length = uv_per_length / sqrtf(area_scale);  // per object length: per world length
        }
        // Each texture at its own coordinates (texture_uv), where it is transformed a
        // footprint wider by its scale.
        const auto sample = [&](uint32_t t) {
            const TextureGpu t0 = load_texture(&s.textures[t]);
            float lod = 0.0f;  // no mip chain: level 0
            if (ray_cones_of(kVariant) && tex_levels(t0) > 1) {
                const float cos_theta = fmaxf(fabsf(glm::dot(hp.n, d)), 1e-4f);
                float texels = fabsf(sf.cone_width) * uv_per_length * sqrtf(float(t0.width) * float(t0.height)) / cos_theta;
                if (s.tex_transforms != nullptr) texels = texels * load_f4(&s.tex_transforms[t].o).z;
                lod = log2_portable(texels);
            }
            return sample_colour_lod(s.textures, s.texels, s.srgb_lut, t, texture_uv(s, t, uv), lod);
        };
        if (tex != kNoTextureGpu) sf.colour = sf.colour * sample(tex);
        if (metal_tex != kNoTextureGpu) {  // glTF's one texture for both: read once
            const glm::vec3 c = sample(metal_tex);
            sf.maps.x = channel(c, channels & 3u);
            if (rough_tex == metal_tex) sf.maps.y = channel(c, (channels >> 2) & 3u);
        }
        if (rough_tex != kNoTextureGpu && rough_tex != metal_tex) sf.maps.y = channel(sample(rough_tex), (channels >> 2) & 3u);
        if (emission_tex != 0u) sf.emission = emission_texture_at(s, emission_tex, uv);
        if (normal_tex != kNoTextureGpu) {
            glm::vec3 t;
            float handedness;
            if (pl != nullptr) {  // u along the plane's u axis, the image's v down along n x u
                t = xyz(load_f4(&pl->u));
                handedness = -1.0f;
            } else {
                const f4* tan = &s.tangents[3 * uint32_t(id)];
                const f4 a = load_f4(&tan[0]), b = load_f4(&tan[1]), c = load_f4(&tan[2]);
                t = (1.0f - hp.u - hp.v) * xyz(a) + hp.u * xyz(b) + hp.v * xyz(c);
                handedness = a.w < 0.0f ? -1.0f : 1.0f;
                if (in != nullptr) {  // tangents by the linear part; a mirror turns the frame's handedness
                    t = apply_rows(load_f4(&in->to_world[0]), load_f4(&in->to_world[1]), load_f4(&in->to_world[2]), t, false);
                    if (float_bits(load_f4(&in->meta).y) & kInstanceMirror) handedness = -handedness;
                }
            }
            sf.ns = mapped_normal(sf.ns, t, handedness, normal_texel_in_frame(s, normal_tex, sample(normal_tex)), normal_scale);
            mapped = sf.ns != ns_unmapped;  // a texel without tilt leaves the normal as a plain mesh's
        }
    }
    // Both normals turned to face the incoming ray (winding does not matter): the
    // geometric one on its own, the shading one as the normal it was mapped from turns
    // (a bump seen from behind is the same bump), then bent where the map tilts it too far.
    if (glm::dot(sf.n, d) > 0.0f) sf.n = -sf.n;
    if (glm::dot(ns_unmapped, d) > 0.0f) sf.ns = -sf.ns;
    if (mapped) sf.ns = reflection_above(sf.ns, sf.n, -d);
    return sf;
}

// Origin for rays leaving a surface on the side its normal faces: past the hit point's
// error bound (accel/hit_point.h), so they never meet that surface again.
SRT_HD_INLINE glm::vec3 offset_origin(const Surface& sf) { return offset_ray_origin(sf.p, sf.p_err, sf.n); }

// The cone of the ray a mirror reflects: it starts as wide as the incoming one was at the
// hit, and a sphere adds twice its curvature times that width to the spread (a convex
// mirror spreads the beam, a concave one focuses it).
SRT_HD_INLINE Cone reflected_cone(const Surface& sf, const Cone& in) {
    return Cone{sf.cone_width, in.spread + 2.0f * sf.curvature * sf.cone_width};
}

}  // namespace srt
