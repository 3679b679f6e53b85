// traverse_bvh2.h - the BVH2's traversal (accel/bvh.h), host and device.
#pragma once

#include "accel/traversal_common.h"

namespace srt {

// BVH traversal, "while-while" with postponed leaves (Aila & Laine 2009): each lane
// walks inner nodes until it has found a leaf, keeps that leaf aside and walks on,
// until every lane of the warp holds a leaf; then all lanes test their leaves together.
// That keeps the warp's lanes doing the same kind of work (box tests or primitive
// tests) at the same time. An any-hit traversal (a shadow ray) stops at the first hit, testing each
// leaf as soon as it is found.
template <int kQuery, int kVariant>
SRT_HD_INLINE Hit traverse_bvh2(const SceneView& s, const glm::vec3& o, const glm::vec3& d, Hit h,
                                 bool through_glass, bool any_hit_asked, int32_t root = 0,
                                 InstanceKey ik = {}) {
    const RayInv r = make_ray_inv(o, d);
    Bvh2Stack::Spill spill;
    Bvh2Stack stack(spill);
    stack.push(kTraversalDone);
    int32_t node = root;  // the root is always an inner node
    int32_t leaf = 0;  // >= 0: no postponed leaf
    while (node != kTraversalDone) {
        // Inner nodes until every lane holds a leaf (or has finished).
        while (uint32_t(node) < uint32_t(kTraversalDone)) {
            const BvhNode* n = &s.nodes[node];
            const f4 lxy = load_f4(&n->lxy);
            const f4 rxy = load_f4(&n->rxy);
            const f4 lrz = load_f4(&n->lrz);
            const f4 lk = load_f4(reinterpret_cast<const f4*>(&n->link[0]));
            float tl, tr;
            const float tcull = cull_distance(h.t);
            const bool hl = hit_box(r, lxy, lrz.x, lrz.y, tcull, tl);
            const bool hr = hit_box(r, rxy, lrz.z, lrz.w, tcull, tr);
            const int32_t c0 = child_ref(int32_t(float_bits(lk.x)), int32_t(float_bits(lk.z)));
            const int32_t c1 = child_ref(int32_t(float_bits(lk.y)), int32_t(float_bits(lk.w)));
            if (hl && hr) {
                // Nearer child first; the other waits on the stack.
                const bool left_first = tl <= tr;
                stack.push(left_first ? c1 : c0);
                node = left_first ? c0 : c1;
            } else if (hl) {
                node = c0;
            } else if (hr) {
                node = c1;
            } else {
                node = stack.pop();
            }
            if (node < 0 && leaf >= 0) {  // a leaf: keep it aside, walk on
                leaf = node;
                node = stack.pop();
            }
            // Closest hit waits for the whole warp; any-hit tests its leaf at once,
            // since one hit ends the ray (measured: postponing cost shadow rays 20%).
            if (SRT_STOPS_AT_FIRST_HIT ? leaf < 0 : !any_lane(leaf >= 0)) break;
        }
        // Leaves, all lanes together.
        while (leaf < 0) {
            const uint32_t packed = uint32_t(~leaf);
            const uint32_t first = packed >> 3, count = packed & 7u;
            for (uint32_t k = first; k < first + count; ++k)
                if (closer_prim<kVariant>(s, k, o, d, h, SRT_STOPS_AT_FIRST_HIT && through_glass, ik) &&
                    SRT_STOPS_AT_FIRST_HIT)
                    return h;
            leaf = node;  // the node in hand may be a leaf too
            if (node < 0) node = stack.pop();
        }
    }
    return h;
}

}  // namespace srt
