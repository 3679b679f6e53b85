// intersect.h - BVH traversal, shared by host and device: a ray against the planes, then
// the BVH of the kernel's width (accel/traverse_bvh2.h, _bvh4.h, _bvh8.h, over what they
// share in accel/traversal_common.h; the primitive tests are accel/prim_hits.h). The
// kernels' variant bits and the dispatch to them are accel/variant.h.
//
// Conventions: `d` is unit length; a hit needs 0 < t < tmax (secondary rays start
// offset from the surface, so no tmin is needed). Hits are identified by a "hit id":
//   [0, prim_count)                       -> primitive in BVH order (scene.prims)
//   [prim_count, prim_count + plane_count) -> plane (scene.planes)
//   -1                                     -> miss
// and, in a scene with instances, the instance whose mesh holds the primitive (Hit::inst,
// accel/traverse_instances.h).
#pragma once

#include "accel/traversal_common.h"
#include "accel/traverse_bvh2.h"
#include "accel/traverse_bvh4.h"
#include "accel/traverse_bvh8.h"
#include "accel/traverse_instances.h"
#include "accel/variant.h"

#include <glm/glm.hpp>

namespace srt {

// kWidth: which layout to walk, 2 (SceneView::nodes), 4 (SceneView::nodes4) or 8
// (SceneView::nodes8). A
// kernel is compiled for one width (the executors choose by the scene), so that it holds
// one traversal's code and registers, not both.
// kQuery: a HitQuery (traversal_common.h); under kHitAsked, `any_hit_asked` says which.
// `through_glass`: an any-hit ray that passes through dielectrics (Whitted's shadow rays
// in a frame with glass, render/ray_tree.h).
template <int kQuery, int kWidth>
SRT_HD_INLINE Hit traverse(const SceneView& s, const glm::vec3& o, const glm::vec3& d, float tmax,
                           bool through_glass = false, bool any_hit_asked = false) {
    static_assert(bvh_of(kWidth) == 2 || bvh_of(kWidth) == 4 || bvh_of(kWidth) == 8, "BVH width 2, 4 or 8");
    Hit h{tmax, -1};
    // Planes first: they are few and often the nearest thing (floors, mirrors).
    for (uint32_t j = 0; j < s.plane_count; ++j) {
        const f4 pm = load_f4(&s.planes[j].point_mat);
        const f4 pn = load_f4(&s.planes[j].normal);
        float t;
        if (hit_plane(o, d, xyz(pm), xyz(pn), h.t, t)) {
            if (SRT_STOPS_AT_FIRST_HIT && through_glass && glass_material(s, float_bits(pm.w))) continue;
            h.t = t;
            h.id = int32_t(s.prim_count + j);
            if (SRT_STOPS_AT_FIRST_HIT) return h;
        }
    }
    if (s.node_count == 0) return h;
    if constexpr (instances_of(kWidth)) {
        if (s.instances != nullptr) return traverse_instances<kQuery, kWidth>(s, o, d, h, through_glass, any_hit_asked);
    }
    if (bvh_of(kWidth) == 8) return traverse_bvh8<kQuery, kWidth>(s, o, d, h, through_glass, any_hit_asked);
    if (bvh_of(kWidth) == 4) return traverse_bvh4<kQuery, kWidth>(s, o, d, h, through_glass, any_hit_asked);
    return traverse_bvh2<kQuery, kWidth>(s, o, d, h, through_glass, any_hit_asked);
}

// The shared memory a thread's traversal of width kWidth needs on the device (its short
// stack).
template <int kWidth>
constexpr uint32_t traversal_shared_bytes() {
    return bvh_of(kWidth) == 8   ? Bvh8Stack::kSharedBytesPerThread
           : bvh_of(kWidth) == 4 ? Bvh4Stack::kSharedBytesPerThread
                                 : Bvh2Stack::kSharedBytesPerThread;
}

template <int kWidth>
SRT_HD_INLINE Hit intersect_closest(const SceneView& s, const glm::vec3& o, const glm::vec3& d, float tmax) {
    return traverse<kClosestHit, kWidth>(s, o, d, tmax);
}
template <int kWidth>
SRT_HD_INLINE bool occluded(const SceneView& s, const glm::vec3& o, const glm::vec3& d, float tmax,
                            bool through_glass = false) {
    return traverse<kAnyHit, kWidth>(s, o, d, tmax, through_glass).id >= 0;
}
// The same, choosing the width per call (host code, tests).
SRT_HD_INLINE Hit intersect_closest(const SceneView& s, const glm::vec3& o, const glm::vec3& d, float tmax) {
    return with_bvh_width(s, [&](auto w) { return intersect_closest<decltype(w)::value>(s, o, d, tmax); });
}
SRT_HD_INLINE bool occluded(const SceneView& s, const glm::vec3& o, const glm::vec3& d, float tmax) {
    return with_bvh_width(s, [&](auto w) { return occluded<decltype(w)::value>(s, o, d, tmax); });
}

}  // namespace srt
