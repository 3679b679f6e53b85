// traverse_bvh4.h - the BVH4's traversal (accel/bvh4.h), host and device.
#pragma once

#include "accel/traversal_common.h"

namespace srt {

// A closest-hit BVH4 leaf waits under the next inner node on the stack when fewer than
// this many lanes of the warp would test leaves together. Measured on the H100
// (Conference, Sibenik, Sponza, the bunny and the teapot, primary rays, 2026-11-23)
// against testing at once: 2 gave -10 to -16% on all but Sponza (+6%, not investigated:
// presumably the early hit culls more there); 4, 8 and 16 less, or worse.
constexpr uint32_t kBvh4PostponeLanes = 2;

// The BVH4 (accel/bvh4.h): at each inner node the four boxes are tested at once; for
// closest hits the children hit are sorted by entry distance, the nearest is taken and
// the others pushed (farthest deepest); any-hit rays keep the children's order (sorting
// them measured 6-18% slower shadow rays on the H100). Leaves are tested as they are
// reached or, for closest hits, postponed (kBvh4PostponeLanes). (Pushing the entry
// distances too, to drop popped nodes the closest hit has passed, measured 1-3% slower on
// the H100: a second local array for a test the slab test of the popped node repeats
// anyway.)
template <int kQuery, int kVariant>
SRT_HD_INLINE Hit traverse_bvh4(const SceneView& s, const glm::vec3& o, const glm::vec3& d, Hit h,
                                 bool through_glass, bool any_hit_asked, int32_t root = 0,
                                 InstanceKey ik = {}) {
    const RayInv r = make_ray_inv(o, d);
    Bvh4Stack::Spill spill;
    Bvh4Stack stack(spill);
    int32_t node = root;  // the root is always an inner node
    for (;;) {
        if (node >= 0) {
            const Bvh4Node* n = &s.nodes4[node];
            const f4 lx = load_f4(&n->lo_x), hx = load_f4(&n->hi_x);
            const f4 ly = load_f4(&n->lo_y), hy = load_f4(&n->hi_y);
            const f4 lz = load_f4(&n->lo_z), hz = load_f4(&n->hi_z);
            const f4 cf = load_f4(reinterpret_cast<const f4*>(&n->child[0]));
            const float lxs[4] = {lx.x, lx.y, lx.z, lx.w}, hxs[4] = {hx.x, hx.y, hx.z, hx.w};
            const float lys[4] = {ly.x, ly.y, ly.z, ly.w}, hys[4] = {hy.x, hy.y, hy.z, hy.w};
            const float lzs[4] = {lz.x, lz.y, lz.z, lz.w}, hzs[4] = {hz.x, hz.y, hz.z, hz.w};
            const int32_t refs[4] = {int32_t(float_bits(cf.x)), int32_t(float_bits(cf.y)), int32_t(float_bits(cf.z)),
                                     int32_t(float_bits(cf.w))};
            // The children hit, sorted by entry distance (insertion into at most 4).
            float ht[4];
            int32_t hr[4];
            int nh = 0;
            const float tcull = cull_distance(h.t);
            for (int k = 0; k < 4; ++k) {
                float t;
                if (refs[k] == kBvh4Empty ||
                    !hit_box(r, f4{lxs[k], hxs[k], lys[k], hys[k]}, lzs[k], hzs[k], tcull, t))
                    continue;
                int j = nh++;
                // Any-hit stops at the first hit wherever it is: no order to keep.
                while (!SRT_STOPS_AT_FIRST_HIT && j > 0 && ht[j - 1] > t) {
                    ht[j] = ht[j - 1];
                    hr[j] = hr[j - 1];
                    --j;
                }
                ht[j] = t;
                hr[j] = refs[k];
            }
            if (nh > 0) {
                for (int j = nh - 1; j > 0; --j) stack.push(hr[j]);  // the far ones wait, farthest deepest
                node = hr[0];
                continue;
            }
        } else {
            // A closest-hit lane alone in its warp on a leaf lets it wait under the next
            // inner node on the stack (kBvh4PostponeLanes).
            if (!SRT_STOPS_AT_FIRST_HIT && !stack.empty() && lanes_running() < kBvh4PostponeLanes) {
                const int32_t next = stack.pop();
                if (next >= 0) {
                    stack.push(node);
                    node = next;
                    continue;
                }
                stack.push(next);
            }
            const uint32_t packed = uint32_t(~node);
            const uint32_t first = packed >> 3, count = packed & 7u;
            for (uint32_t k = first; k < first + count; ++k)
                if (closer_prim<kVariant>(s, k, o, d, h, SRT_STOPS_AT_FIRST_HIT && through_glass, ik) &&
                    SRT_STOPS_AT_FIRST_HIT)
                    return h;
        }
        if (stack.empty()) return h;
        node = stack.pop();
    }
}

}  // namespace srt
