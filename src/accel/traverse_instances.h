// traverse_instances.h - the two-level traversal of a scene with instances (scene.h
// Instance), host and device: a BVH2 over the instances' boxes in rendering space
// (SceneView::tlas), and at each instance its mesh's BVH, of the kernel's width, walked
// with the ray moved into the mesh's object space.
//
// The ray is moved, not renormalised (o' = A o + b, d' = A d): a point at parameter t on
// it is the point at t on the world ray, so the hit so far (h.t) culls and compares in
// every space alike, and a hit's t needs no conversion. Only triangles are instanced
// (the primitive tests of spheres assume a unit direction), as OptiX instances triangle
// geometry.
//
// Every layout finds the same hit: each mesh's BVH gives the closest of its primitives
// and the hit so far, whatever its layout, with closer_prim's ties (accel/
// traversal_common.h) to the lower original id, where an instance's primitives count
// from its base (InstanceGpu::keys): the ids of the flattened scene, which therefore
// breaks every tie as the instanced one does.
#pragma once

#include "accel/traversal_common.h"
#include "accel/traverse_bvh2.h"
#include "accel/traverse_bvh4.h"
#include "accel/traverse_bvh8.h"

namespace srt {

// x' = rows x + w, with fmas, the same bits on host and device: a point (w added) or,
// with `point` false, a direction.
SRT_HD_INLINE glm::vec3 apply_rows(const f4& r0, const f4& r1, const f4& r2, const glm::vec3& x, bool point) {
    const float w0 = point ? r0.w : 0.0f, w1 = point ? r1.w : 0.0f, w2 = point ? r2.w : 0.0f;
    return glm::vec3(fma1(r0.x, x.x, fma1(r0.y, x.y, fma1(r0.z, x.z, w0))),
                     fma1(r1.x, x.x, fma1(r1.y, x.y, fma1(r1.z, x.z, w1))),
                     fma1(r2.x, x.x, fma1(r2.y, x.y, fma1(r2.z, x.z, w2))));
}
// The transpose of the rows' linear part times x: how a matrix's inverse transpose moves
// a normal, given the inverse's rows.
SRT_HD_INLINE glm::vec3 apply_rows_transposed(const f4& r0, const f4& r1, const f4& r2, const glm::vec3& x) {
    return glm::vec3(fma1(r0.x, x.x, fma1(r1.x, x.y, r2.x * x.z)), fma1(r0.y, x.x, fma1(r1.y, x.y, r2.y * x.z)),
                     fma1(r0.z, x.x, fma1(r1.z, x.y, r2.z * x.z)));
}

// The ray in instance k's object space.
SRT_HD_INLINE void ray_to_object(const InstanceGpu* inst, const glm::vec3& o, const glm::vec3& d, glm::vec3& oo,
                                 glm::vec3& od) {
    const f4 r0 = load_f4(&inst->to_object[0]), r1 = load_f4(&inst->to_object[1]), r2 = load_f4(&inst->to_object[2]);
    oo = apply_rows(r0, r1, r2, o, true);
    od = apply_rows(r0, r1, r2, d, false);
}

// Instance k's mesh against the ray (in rendering space) and the hit so far.
template <int kQuery, int kVariant>
SRT_HD_INLINE Hit traverse_instance(const SceneView& s, uint32_t k, const glm::vec3& o, const glm::vec3& d, Hit h,
                                    bool through_glass, bool any_hit_asked) {
    const f4 meta = load_f4(&s.instances[k].meta);
    const int32_t root = int32_t(float_bits(meta.x));
    glm::vec3 oo = o, od = d;
    InstanceKey ik;
    if (!(float_bits(meta.y) & kInstanceIdentity)) {
        ray_to_object(&s.instances[k], o, d, oo, od);
        ik = InstanceKey{k, float_bits(load_f4(&s.instances[k].keys).x)};
    }
    if (bvh_of(kVariant) == 8) return traverse_bvh8<kQuery, kVariant>(s, oo, od, h, through_glass, any_hit_asked, root, ik);
    if (bvh_of(kVariant) == 4) return traverse_bvh4<kQuery, kVariant>(s, oo, od, h, through_glass, any_hit_asked, root, ik);
    return traverse_bvh2<kQuery, kVariant>(s, oo, od, h, through_glass, any_hit_asked, root, ik);
}

// The top level: a plain depth-first walk, nearer child first. A hit found in an
// instance carries its index (Hit::inst), or kNoInstance in the scene's own primitives.
template <int kQuery, int kVariant>
SRT_HD_INLINE Hit traverse_instances(const SceneView& s, const glm::vec3& o, const glm::vec3& d, Hit h,
                                     bool through_glass, bool any_hit_asked) {
    const RayInv r = make_ray_inv(o, d);
    int32_t stack[kBvhStackSize];
    int sp = 0;
    stack[sp++] = kTraversalDone;
    int32_t node = 0;  // the root is always an inner node
    while (node != kTraversalDone) {
        if (node >= 0) {
            const BvhNode* n = &s.tlas[node];
            const f4 lxy = load_f4(&n->lxy), rxy = load_f4(&n->rxy), lrz = load_f4(&n->lrz);
            const f4 lk = load_f4(reinterpret_cast<const f4*>(&n->link[0]));
            float tl, tr;
            const float tcull = cull_distance(h.t);
            const bool hl = hit_box(r, lxy, lrz.x, lrz.y, tcull, tl);
            const bool hr = hit_box(r, rxy, lrz.z, lrz.w, tcull, tr);
            const int32_t c0 = child_ref(int32_t(float_bits(lk.x)), int32_t(float_bits(lk.z)));
            const int32_t c1 = child_ref(int32_t(float_bits(lk.y)), int32_t(float_bits(lk.w)));
            if (hl && hr) {
                const bool left_first = tl <= tr;
                stack[sp++] = left_first ? c1 : c0;
                node = left_first ? c0 : c1;
            } else if (hl) {
                node = c0;
            } else if (hr) {
                node = c1;
            } else {
                node = stack[--sp];
            }
            continue;
        }
        const uint32_t packed = uint32_t(~node);
        const uint32_t first = packed >> 3, count = packed & 7u;
        for (uint32_t k = first; k < first + count; ++k) {
            h = traverse_instance<kQuery, kVariant>(s, k, o, d, h, through_glass, any_hit_asked);
            if (SRT_STOPS_AT_FIRST_HIT && h.id >= 0) return h;  // (a plane's hit returned before the top level)
        }
        node = stack[--sp];
    }
    return h;
}

}  // namespace srt
