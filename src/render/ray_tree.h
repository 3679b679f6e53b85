// ray_tree.h - Whitted's (1980) ray tree: glass under the Whitted integrator.
//
// At a dielectric hit a Whitted ray splits in two, the reflected and the refracted ray,
// each weighted (by Fresnel, or by NFF's constant Ks and T) and each one trace level
// deeper. A pixel's rays then form a tree, not a path. Every mode walks it depth first,
// one ray per pixel at a time, so that the wavefront keeps one slot per pixel:
//   - at a split the ray goes on as the refracted ray, and the reflected one is pushed
//     onto the pixel's stack of deferred rays (its origin, direction, cone, weight and
//     level);
//   - when the ray ends (a miss, a surface that sends nothing on, the depth limit) the
//     last deferred ray is popped into the slot and traced next.
// A slot is live while it holds a ray, so a dead slot's stack is empty, and a pixel's
// sum gets its terms in the order a recursive renderer adds them (render/reference.cpp):
// the same order in every mode. A ray's level (0: the camera's) rides in the w of its
// weight; the loop's bounce no longer says how deep a ray is.
//
// The stack holds at most depth - 1 rays: one deferred sibling per level of the current
// branch. Its slots are SoA planes, [entry][ray], so that a warp's pushes and pops at one
// entry are coalesced. A frame's loop runs as many steps as the largest tree needs
// (pipeline.h: the loop runs `depth` steps, and the rays still live then are finished
// in registers).
#pragma once

#include "core/hd.h"
#include "render/bsdf.h"
#include "render/frame.h"
#include "render/sampling.h"
#include "render/surface.h"

#include <glm/glm.hpp>

#include <cstdint>

namespace srt {

SRT_HD_INLINE void tree_push(const RayTree& t, uint32_t i, const glm::vec3& o, const glm::vec3& d, const Cone& c,
                             const glm::vec3& w, int level) {
    const uint32_t k = t.size[i];
    const size_t at = size_t(k) * t.ray_count + i;
    t.origin[at] = f4{o.x, o.y, o.z, c.width};
    t.dir[at] = f4{d.x, d.y, d.z, c.spread};
    t.weight[at] = f4{w.x, w.y, w.z, float(level)};
    t.size[i] = k + 1u;
}

// The last deferred ray of slot i into `r` (render/stages.h RaySlot or PathRay); false
// when there is none: the pixel's tree is done.
template <class R>
SRT_HD_INLINE bool tree_pop(const RayTree& t, uint32_t i, R& r) {
    const uint32_t k = t.size[i];
    if (k == 0) return false;
    const size_t at = size_t(k - 1u) * t.ray_count + i;
    const f4 o = t.origin[at], d = t.dir[at], w = t.weight[at];
    r.set_ray(glm::vec3(o.x, o.y, o.z), glm::vec3(d.x, d.y, d.z), Cone{o.w, d.w});
    r.set_weight_level(glm::vec3(w.x, w.y, w.z), w.w);
    t.size[i] = k - 1u;
    return true;
}

// The rays a Whitted hit sends on, with the weights they carry (multipliers of the
// incoming ray's). A dielectric sends a refracted ray (weight 1 - F, or NFF's kt) and a
// reflected one (F, or kr); under total internal reflection the refracted ray's weight
// goes to the reflected one, which POV-Ray does too. Any other surface reflects kr.
struct WhittedRays {
    bool refracted = false, reflected = false;
    glm::vec3 t_origin, t_dir, t_weight;
    glm::vec3 r_origin, r_dir, r_weight;
};

SRT_HD_INLINE glm::vec3 reflect_dir(const glm::vec3& d, const glm::vec3& n) {
    return d - (2.0f * glm::dot(d, n)) * n;
}

// `medium` and `glossy`: the material's slots (accel/scene_view.h MaterialGpu): ior in
// medium.w (0: not a dielectric), NFF's kt in glossy.x for a dielectric (0: Fresnel's).
SRT_HD_INLINE WhittedRays whitted_rays(const Surface& sf, const glm::vec3& d, const f4& medium, const f4& glossy) {
    WhittedRays out;
    const glm::vec3 kr = sf.kr;
    if (medium.w > 0.0f) {
        const float eta = sf.front ? medium.w : 1.0f / medium.w;  // n far side / n near side
        const float cos_i = fminf(fmaxf(-glm::dot(d, sf.ns), 0.0f), 1.0f);
        const float sin2_t = (1.0f - cos_i * cos_i) / (eta * eta);
        const float kt = glossy.x;
        glm::vec3 wr, wt;
        if (kt > 0.0f) {  // Whitted's constants
            wr = kr;
            wt = glm::vec3(kt);
        } else {  // Fresnel's
            const float f = fresnel_dielectric(cos_i, eta);
            wr = glm::vec3(f);
            wt = glm::vec3(1.0f - f);
        }
        if (sin2_t < 1.0f) {
            const float cos_t = sqrtf(1.0f - sin2_t);
            const float inv_eta = 1.0f / eta;
            out.refracted = true;
            out.t_dir = unit(d * inv_eta + (cos_i * inv_eta - cos_t) * sf.ns);
            out.t_origin = offset_ray_origin(sf.p, sf.p_err, -sf.n);
            out.t_weight = wt;
        } else {
            wr = wr + wt;  // total internal reflection
        }
        out.reflected = wr.x > 0.0f || wr.y > 0.0f || wr.z > 0.0f;
        out.r_weight = wr;
    } else {
        out.reflected = kr.x > 0.0f || kr.y > 0.0f || kr.z > 0.0f;
        out.r_weight = kr;
    }
    if (out.reflected) {
        out.r_origin = offset_origin(sf);
        out.r_dir = unit(reflect_dir(d, sf.ns));
    }
    return out;
}

// What a ray keeps of its light after `t` inside a dielectric of absorption medium.xyz.
SRT_HD_INLINE glm::vec3 beer_lambert(const f4& medium, float t) {
    return glm::vec3(exp_portable(-medium.x * t), exp_portable(-medium.y * t), exp_portable(-medium.z * t));
}

// The cone a refracted ray carries: as wide as the incoming one at the hit, spreading as
// it did (what a lens does to it is left out: glass picks the same mip levels a flat
// window would).
SRT_HD_INLINE Cone refracted_cone(const Surface& sf, const Cone& in) { return Cone{sf.cone_width, in.spread}; }

}  // namespace srt
