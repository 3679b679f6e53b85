// traversal_common.h - what the three BVH traversals (accel/traverse_bvh2.h, _bvh4.h,
// _bvh8.h) share, on host and device: the hit and the primitive test with its tie rule
// (closer_prim), the conservative slab test, the warp queries that postponing asks, and
// the traversal stacks. Conventions as accel/intersect.h's.
#pragma once

#include "accel/bvh.h"
#include "accel/bvh4.h"
#include "accel/bvh8.h"
#include "accel/prim_hits.h"
#include "accel/scene_view.h"
#include "accel/texture.h"
#include "accel/traversal_stack.h"
#include "accel/variant.h"
#include "core/fma.h"
#include "core/hd.h"

#include <glm/glm.hpp>

#include <cmath>
#include <cstdint>

namespace srt {

struct Hit {
    float t;
    int32_t id;                   // hit id, -1 = miss
    uint32_t inst = kNoInstance;  // the instance whose mesh the primitive is (SceneView::instances)
};

// What a traversal looks for: the closest hit, any hit (a shadow ray: the first hit ends
// it), or either, as each call asks (kHitAsked: the path vertex's one traversal for both
// of its rays, render/stages.h trace_path_vertex). The first two are fixed when the kernel
// is compiled, so their code holds no test of the other.
enum HitQuery : int { kClosestHit = 0, kAnyHit = 1, kHitAsked = 2 };

// Inside a traversal templated on kQuery, with the call's `any_hit_asked`: whether the
// first hit ends it. Written out where it is used, not held in a local bool: held in a
// local, it changed nvcc's code for up to 216 of the 301 kernels of frames_whitted.cu,
// which never ask; written out, none (tools/bench/cubin_diff.py).
#define SRT_STOPS_AT_FIRST_HIT (kQuery == kHitAsked ? any_hit_asked : kQuery == kAnyHit)

// The original id of primitive k (the scene's order, PrimGpu::p2.w), which no layout
// changes.
SRT_HD_INLINE uint32_t prim_key(const PrimGpu* prims, int32_t k) { return float_bits(load_f4(&prims[k].p2).w); }

// The instance a traversal of one mesh's BVH walks (accel/traverse_instances.h): its
// index, which a hit there carries, and what its primitives' ids count from; the scene's
// own primitives: kNoInstance and 0.
struct InstanceKey {
    uint32_t inst = kNoInstance;
    uint32_t key_base = 0;
};
// The original id of the hit so far: in a mesh, counted from its instance's base.
template <int kVariant>
SRT_HD_INLINE uint32_t hit_key(const SceneView& s, const Hit& h) {
    uint32_t base = 0u;
    if constexpr (instances_of(kVariant)) {
        if (h.inst != kNoInstance) base = float_bits(load_f4(&s.instances[h.inst].keys).x);
    }
    return base + prim_key(s.prims, h.id);
}

// Tests primitive k against the hit so far, ties included: a hit at the same t goes to
// the lower original primitive id, and a primitive beats a plane (whose ids come after
// every primitive's). Every traversal order and every layout's primitive order then
// finds the same primitive. An initial h (t = tmax, id -1) is never replaced by a hit at
// tmax itself.
// Triangle k's texture coordinates at barycentrics (u, v) of v1 and v2.
SRT_HD_INLINE glm::vec2 triangle_uv(const SceneView& s, uint32_t k, float u, float v) {
    const f4 a = load_f4(&s.uvs[2 * k]);
    const f4 b = load_f4(&s.uvs[2 * k + 1]);
    const float w = 1.0f - u - v;
    return glm::vec2(w * a.x + u * a.z + v * b.x, w * a.y + u * a.w + v * b.y);
}

// Texture entry tex's coordinates at the triangles' (or a plane's, a sphere's) uv: as they
// are, or moved as the texture lies (TexTransformGpu), with fmas, the same bits on both
// sides; the identity's are uv's own.
SRT_HD_INLINE glm::vec2 texture_uv(const SceneView& s, uint32_t tex, const glm::vec2& uv) {
    if (s.tex_transforms == nullptr) return uv;
    const f4 m = load_f4(&s.tex_transforms[tex].m), o = load_f4(&s.tex_transforms[tex].o);
    return glm::vec2(fma1(m.x, uv.x, fma1(m.y, uv.y, o.x)), fma1(m.z, uv.x, fma1(m.w, uv.y, o.y)));
}

// The emission texture (MaterialGpu::emission.w, kEmissionTextureShift) of a material,
// plus one; 0 without one.
SRT_HD_INLINE uint32_t emission_texture_of(const SceneView& s, uint32_t material) {
    return float_bits(load_f4(&s.materials[material].emission).w) >> kEmissionTextureShift;
}

// What emission texture `tex` (emission_texture_of's, not 0: the caller has tested it)
// multiplies its material's emission by at texture coordinates uv: the image's level 0,
// bilinear, wherever it is read (a light sample has no ray cone to pick a level with, and
// the estimators MIS combines must see the same emission).
SRT_HD_INLINE glm::vec3 emission_texture_at(const SceneView& s, uint32_t tex_plus_one, const glm::vec2& uv) {
    const uint32_t t = tex_plus_one - 1u;
    return sample_colour(s.textures, s.texels, s.srgb_lut, t, texture_uv(s, t, uv));
}

// Whether triangle k is there at barycentrics `bary`: its material's alpha (factor times
// the alpha texture, bilinear) reaches the cutoff, or it has no mask. A masked-out hit is
// no hit, for every kind of ray, because traversal asks this before taking it.
SRT_HD_INLINE bool alpha_opaque(const SceneView& s, uint32_t k, const glm::vec2& bary) {
    if (s.prim_alpha == nullptr) return true;  // a scene without masks (kernels of every texture bit: with_tree_variant)
    const uint32_t m = load_u32(&s.prim_alpha[k]);
    if (m == kNoMaskGpu) return true;
    const f4 mt = load_f4(&s.materials[m].tex);
    float alpha = mt.w;
    const uint32_t tex = float_bits(mt.y);
    if (tex != kNoTextureGpu)
        alpha = alpha * sample_alpha(s.textures, s.texels, tex, texture_uv(s, tex, triangle_uv(s, k, bary.x, bary.y)));
    return alpha >= mt.z;
}

// Whether material m is a dielectric (glass, water): the shadow rays of Whitted's ray
// tree pass through it (render/ray_tree.h).
SRT_HD_INLINE bool glass_material(const SceneView& s, uint32_t m) { return load_f4(&s.materials[m].medium).w > 0.0f; }

// `through_glass` (any-hit rays only): a dielectric's hit is no hit. `ik`: the instance
// whose mesh k is in (ids, and the hit's instance), where the scene has instances.
template <int kVariant>
SRT_HD_INLINE bool closer_prim(const SceneView& s, uint32_t k, const glm::vec3& o, const glm::vec3& d, Hit& h,
                               bool through_glass = false, InstanceKey ik = {}) {
    float t;
    glm::vec2 bary(0.0f);
    // The tests' own bound is strict (t < tmax); give them one past any distance and
    // apply the bound here, where a tie can still count.
    if (!hit_prim<precise_spheres_of(kVariant)>(s.prim_tests, k, o, d, 3.4e38f, t,
                                                 alpha_masks_of(kVariant) ? &bary : nullptr))
        return false;
    if (!(t < h.t || (t == h.t && h.id >= 0 &&
                      (uint32_t(h.id) >= s.prim_count ||
                       (instances_of(kVariant) ? ik.key_base : 0u) + prim_key(s.prims, int32_t(k)) < hit_key<kVariant>(s, h)))))
        return false;
    if (alpha_masks_of(kVariant) && !alpha_opaque(s, k, bary)) return false;
    if (through_glass && glass_material(s, float_bits(load_f4(&s.prims[k].p0).w) & kPrimMaterialMask)) return false;
    h.t = t;
    h.id = int32_t(k);
    if constexpr (instances_of(kVariant)) h.inst = ik.inst;
    return true;
}

// min and max with fminf's rule for NaN (the other operand wins): on the device fminf,
// one FMNMX (a ternary compiles to a compare and a select, and the slab tests are
// mostly min and max); on the host the same rule spelled out (fminf is a libm call
// there). The two sides may differ in the sign of a zero result, which no comparison
// sees: min and max results are only ever compared.
SRT_HD_INLINE float min2(float a, float b) {
#if defined(__CUDA_ARCH__)
    return fminf(a, b);
#else
    return (a < b || b != b) ? a : b;
#endif
}
SRT_HD_INLINE float max2(float a, float b) {
#if defined(__CUDA_ARCH__)
    return fmaxf(a, b);
#else
    return (a > b || b != b) ? a : b;
#endif
}

// Box tests are conservative, so that which primitives a ray tests never depends on the
// order it meets them in, nor on the layout (the BVH2, BVH4 and BVH8 give the same hit,
// ties included):
// - A slab distance (lo - o) * inv is within gamma(3) of the exact one (three roundings),
//   so the far distance, grown by 1 + 2 gamma(3), is never below the exact box's (Ize,
//   "Robust BVH Ray Traversal", JCGT 2013; pbrt-v4's Bounds3::IntersectP). Its errors are
//   relative to the distance itself. (The one-fma form lo * inv - o * inv, measured
//   faster on its own, has an error relative to o * inv instead: covering it made the
//   flat boxes under a ray's origin, a floor's, look hit, and cost Sponza's shadow rays
//   43% on the H100.)
// - Boxes are culled against the hit so far grown by kCullSlack: a primitive at the same
//   distance as the hit so far (a tie, to be broken by id) or an ulp nearer sits on its
//   box's face, and the box's entry distance and the primitive test's distance round
//   differently.
constexpr float kBoxFarPad = 1.0000005f;            // > 1 + 2 gamma(3) = 1 + 3.6e-7
constexpr float kCullSlack = 1.000244140625f;       // 1 + 2^-12
constexpr float kQuantSlack = 4.76837158203125e-7f;  // 2^-21, for the BVH8's quantized planes
SRT_HD_INLINE float cull_distance(float t_hit) { return t_hit * kCullSlack; }

// Per-ray constants for slab tests. Zero direction components become +-1e-20 so
// that 0 * inf never makes a NaN.
struct RayInv {
    glm::vec3 inv;
    glm::vec3 o;
};
SRT_HD_INLINE RayInv make_ray_inv(const glm::vec3& o, const glm::vec3& d) {
    auto safe = [](float x) { return fabsf(x) > 1e-20f ? x : copysignf(1e-20f, x); };
    RayInv r;
    r.inv = glm::vec3(1.0f / safe(d.x), 1.0f / safe(d.y), 1.0f / safe(d.z));
    r.o = o;
    return r;
}

// Slab test of box [lo.x hi.x lo.y hi.y] (xy) and [lo.z hi.z] (z0, z1) against a ray
// culled at `tcull` (cull_distance); returns entry t.
SRT_HD_INLINE bool hit_box(const RayInv& r, const f4& xy, float z0, float z1, float tcull, float& tenter) {
    const float tx0 = (xy.x - r.o.x) * r.inv.x, tx1 = (xy.y - r.o.x) * r.inv.x;
    const float ty0 = (xy.z - r.o.y) * r.inv.y, ty1 = (xy.w - r.o.y) * r.inv.y;
    const float tz0 = (z0 - r.o.z) * r.inv.z, tz1 = (z1 - r.o.z) * r.inv.z;
    const float tn = max2(max2(min2(tx0, tx1), min2(ty0, ty1)), max2(min2(tz0, tz1), 0.0f));
    const float tf = min2(min2(max2(tx0, tx1), max2(ty0, ty1)), max2(tz0, tz1)) * kBoxFarPad;
    tenter = tn;
    return tn <= min2(tf, tcull);
}

// True when any lane of the warp that is running this call has `pred` set; on the
// host (one lane) just `pred`.
SRT_HD_INLINE bool any_lane(bool pred) {
#if defined(__CUDA_ARCH__)
    return __any_sync(__activemask(), pred);
#else
    return pred;
#endif
}

// How many lanes of the warp are running this call; on the host a whole warp's worth,
// so that the host never postpones work for the sake of SIMT use (traverse_bvh8).
SRT_HD_INLINE uint32_t lanes_running() {
#if defined(__CUDA_ARCH__)
    return uint32_t(__popc(__activemask()));
#else
    return 32u;
#endif
}

// A traversal reference: >= 0 an inner node, < 0 a leaf packed as ~(first << 3 | count)
// (count <= kMaxLeafPrims < 8), kTraversalDone the bottom of the stack.
constexpr int32_t kTraversalDone = 0x7fffffff;
SRT_HD_INLINE int32_t child_ref(int32_t link, int32_t count) {
    return link >= 0 ? link : ~((~link << 3) | count);
}

// How many entries of each traversal's stack are in shared memory on the device
// (accel/traversal_stack.h): none, all are in local memory. Measured on the H100
// (old and new binary in one device call, 2026-11-23): with the first 32 bytes
// a thread in shared memory (8 entries of the BVH2's and BVH4's stacks, 4 node groups of
// the BVH8's) every frame was 0-3% slower, and Conference's primary intersect executed
// 3-5% more instructions (BVH8: 92.7 -> 97.1 M; 212 -> 217 us). The kernels are bound
// by instruction issue, and each push and pop then pays a shared-or-local branch and an
// address computation, while the local stack's few accesses a ray hit L1 anyway. Rays
// seldom need more than those 32 bytes: of Conference's primary rays (README camera, a
// 256x192 grid, counted on the CPU) the BVH2's stack (with its bottom marker) held no
// more than 8 entries for 95.6% and at most 15, the BVH4's no more than 8 for 96.1% and
// at most 16, and the BVH8's no more than 4 node groups for 98.6% and at most 7.
constexpr int kBvh2ShortStack = 0;
using Bvh2Stack = TraversalStack<int32_t, kBvhStackSize, kBvh2ShortStack>;
constexpr int kBvh4ShortStack = 0;
using Bvh4Stack = TraversalStack<int32_t, kBvh4StackSize, kBvh4ShortStack>;

}  // namespace srt
