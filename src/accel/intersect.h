// intersect.h - ray/primitive tests and BVH traversal, shared by host and device.
//
// Conventions: `d` is unit length; a hit needs 0 < t < tmax (secondary rays start
// offset from the surface, so no tmin is needed). Hits are identified by a "hit id":
//   [0, prim_count)                       -> primitive in BVH order (scene.prims)
//   [prim_count, prim_count + plane_count) -> plane (scene.planes)
//   -1                                     -> miss
#pragma once

#include "accel/bvh.h"
#include "accel/bvh4.h"
#include "core/hd.h"
#include "accel/scene_view.h"

#include <glm/glm.hpp>

#include <cmath>
#include <cstring>

namespace srt {

SRT_HD_INLINE f4 load_f4(const f4* p) {
#if defined(__CUDA_ARCH__)
    const float4 v = __ldg(reinterpret_cast<const float4*>(p));
    return f4{v.x, v.y, v.z, v.w};
#else
    return *p;
#endif
}
SRT_HD_INLINE glm::vec3 xyz(const f4& v) { return glm::vec3(v.x, v.y, v.z); }

// Unit vector with IEEE sqrt and division on both sides (bit-identical host/device).
SRT_HD_INLINE glm::vec3 unit(const glm::vec3& v) { return v * (1.0f / sqrtf(glm::dot(v, v))); }

struct Hit {
    float t;
    int32_t id;  // hit id, -1 = miss
};

// Moller-Trumbore. Exactly parallel rays (det == 0) miss.
SRT_HD_INLINE bool hit_triangle(const glm::vec3& o, const glm::vec3& d, const glm::vec3& v0,
                                const glm::vec3& e1, const glm::vec3& e2, float tmax, float& t) {
    const glm::vec3 pv = glm::cross(d, e2);
    const float det = glm::dot(e1, pv);
    if (det == 0.0f) return false;
    const float inv = 1.0f / det;
    const glm::vec3 tv = o - v0;
    const float u = glm::dot(tv, pv) * inv;
    if (!(u >= 0.0f && u <= 1.0f)) return false;
    const glm::vec3 qv = glm::cross(tv, e1);
    const float v = glm::dot(d, qv) * inv;
    if (!(v >= 0.0f && u + v <= 1.0f)) return false;
    const float tt = glm::dot(e2, qv) * inv;
    if (!(tt > 0.0f && tt < tmax)) return false;
    t = tt;
    return true;
}

// Nearest root in (0, tmax); from inside, that is the far root. Written for precision
// (Haines et al., "Precision Improvements for Ray/Sphere Intersection", Ray Tracing
// Gems, 2019): the discriminant comes from the ray's closest approach to the centre,
// not from b^2 - c (which cancels catastrophically for small, distant spheres and
// puts hit points inside the sphere: shadow acne), and the near root comes from the
// product of the roots instead of a difference.
SRT_HD_INLINE bool hit_sphere(const glm::vec3& o, const glm::vec3& d, const glm::vec3& c, float r2,
                              float tmax, float& t) {
    const glm::vec3 oc = o - c;
    const float b = glm::dot(oc, d);
    const glm::vec3 l = oc - b * d;  // from the centre to the closest point of the ray line
    const float disc = r2 - glm::dot(l, l);
    if (disc < 0.0f) return false;
    const float s = sqrtf(disc);
    const float q = b > 0.0f ? -b - s : -b + s;  // the root of larger magnitude
    if (q == 0.0f) return false;                  // ray through the centre of a point sphere
    const float cc = glm::dot(oc, oc) - r2;
    float t0 = cc / q, t1 = q;
    if (t0 > t1) {
        const float tmp = t0;
        t0 = t1;
        t1 = tmp;
    }
    const float tt = t0 > 0.0f ? t0 : t1;
    if (!(tt > 0.0f && tt < tmax)) return false;
    t = tt;
    return true;
}

SRT_HD_INLINE bool hit_plane(const glm::vec3& o, const glm::vec3& d, const glm::vec3& p,
                             const glm::vec3& n, float tmax, float& t) {
    const float denom = glm::dot(n, d);
    if (denom == 0.0f) return false;
    const float tt = glm::dot(p - o, n) / denom;
    if (!(tt > 0.0f && tt < tmax)) return false;
    t = tt;
    return true;
}

SRT_HD_INLINE bool hit_prim(const PrimGpu* prims, uint32_t k, const glm::vec3& o,
                            const glm::vec3& d, float tmax, float& t) {
    const f4 a = load_f4(&prims[k].p0);
    const f4 b = load_f4(&prims[k].p1);
    if (float_bits(a.w) & kPrimSphereBit) return hit_sphere(o, d, xyz(a), b.y, tmax, t);
    const f4 c = load_f4(&prims[k].p2);
    return hit_triangle(o, d, xyz(a), xyz(b), xyz(c), tmax, t);
}

// Tests primitive k against the hit so far, ties included: a hit at the same t goes to
// the lower id. Every traversal order then finds the same hit (the BVH2 and the BVH4
// visit leaves in different orders). An initial h (t = tmax, id -1) is never replaced by
// a hit at tmax itself: ids are >= 0.
SRT_HD_INLINE bool closer_prim(const PrimGpu* prims, uint32_t k, const glm::vec3& o, const glm::vec3& d, Hit& h) {
    float t;
    // The tests' own bound is strict (t < tmax); give them one past any distance and
    // apply the bound here, where a tie can still count.
    if (!hit_prim(prims, k, o, d, 3.4e38f, t)) return false;
    if (!(t < h.t || (t == h.t && int32_t(k) < h.id))) return false;
    h.t = t;
    h.id = int32_t(k);
    return true;
}

// Per-ray constants for slab tests. Zero direction components become +-1e-20 so
// that 0 * inf never makes a NaN.
struct RayInv {
    glm::vec3 inv;
    glm::vec3 o_inv;  // o * inv
};
SRT_HD_INLINE RayInv make_ray_inv(const glm::vec3& o, const glm::vec3& d) {
    auto safe = [](float x) { return fabsf(x) > 1e-20f ? x : copysignf(1e-20f, x); };
    RayInv r;
    r.inv = glm::vec3(1.0f / safe(d.x), 1.0f / safe(d.y), 1.0f / safe(d.z));
    r.o_inv = o * r.inv;
    return r;
}

// Plain min/max: the slab values are never NaN (see make_ray_inv), so the NaN rules
// of fminf are not needed, and on the host fminf is a libm call rather than one
// instruction.
SRT_HD_INLINE float min2(float a, float b) { return a < b ? a : b; }
SRT_HD_INLINE float max2(float a, float b) { return a > b ? a : b; }

// Slab test of box [lo.x hi.x lo.y hi.y] (xy) and [lo.z hi.z] (z0, z1); returns entry t.
SRT_HD_INLINE bool hit_box(const RayInv& r, const f4& xy, float z0, float z1, float tmax,
                           float& tenter) {
    const float tx0 = xy.x * r.inv.x - r.o_inv.x, tx1 = xy.y * r.inv.x - r.o_inv.x;
    const float ty0 = xy.z * r.inv.y - r.o_inv.y, ty1 = xy.w * r.inv.y - r.o_inv.y;
    const float tz0 = z0 * r.inv.z - r.o_inv.z, tz1 = z1 * r.inv.z - r.o_inv.z;
    const float tn = max2(max2(min2(tx0, tx1), min2(ty0, ty1)), max2(min2(tz0, tz1), 0.0f));
    const float tf = min2(min2(max2(tx0, tx1), max2(ty0, ty1)), min2(max2(tz0, tz1), tmax));
    tenter = tn;
    return tn <= tf;
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

// A traversal reference: >= 0 an inner node, < 0 a leaf packed as ~(first << 3 | count)
// (count <= kMaxLeafPrims < 8), kTraversalDone the bottom of the stack.
constexpr int32_t kTraversalDone = 0x7fffffff;
SRT_HD_INLINE int32_t child_ref(int32_t link, int32_t count) {
    return link >= 0 ? link : ~((~link << 3) | count);
}

// BVH traversal, "while-while" with postponed leaves (Aila & Laine 2009): each lane
// walks inner nodes until it has found a leaf, keeps that leaf aside and walks on,
// until every lane of the warp holds a leaf; then all lanes test their leaves together.
// That keeps the warp's lanes doing the same kind of work (box tests or primitive
// tests) at the same time. kAnyHit: stop at the first hit (shadow rays), testing each
// leaf as soon as it is found.
template <bool kAnyHit>
SRT_HD_INLINE Hit traverse_bvh2(const SceneView& s, const glm::vec3& o, const glm::vec3& d, Hit h) {
    const RayInv r = make_ray_inv(o, d);
    int32_t stack[kBvhStackSize];
    int sp = 0;
    stack[sp++] = kTraversalDone;
    int32_t node = 0;  // the root is always an inner node
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
            const bool hl = hit_box(r, lxy, lrz.x, lrz.y, h.t, tl);
            const bool hr = hit_box(r, rxy, lrz.z, lrz.w, h.t, tr);
            const int32_t c0 = child_ref(int32_t(float_bits(lk.x)), int32_t(float_bits(lk.z)));
            const int32_t c1 = child_ref(int32_t(float_bits(lk.y)), int32_t(float_bits(lk.w)));
            if (hl && hr) {
                // Nearer child first; the other waits on the stack.
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
            if (node < 0 && leaf >= 0) {  // a leaf: keep it aside, walk on
                leaf = node;
                node = stack[--sp];
            }
            // Closest hit waits for the whole warp; any-hit tests its leaf at once,
            // since one hit ends the ray (measured: postponing cost shadow rays 20%).
            if (kAnyHit ? leaf < 0 : !any_lane(leaf >= 0)) break;
        }
        // Leaves, all lanes together.
        while (leaf < 0) {
            const uint32_t packed = uint32_t(~leaf);
            const uint32_t first = packed >> 3, count = packed & 7u;
            for (uint32_t k = first; k < first + count; ++k)
                if (closer_prim(s.prims, k, o, d, h) && kAnyHit) return h;
            leaf = node;  // the node in hand may be a leaf too
            if (node < 0) node = stack[--sp];
        }
    }
    return h;
}

// The BVH4 (accel/bvh4.h): at each inner node the four boxes are tested at once; for
// closest hits the children hit are sorted by entry distance, the nearest is taken and
// the others pushed (farthest deepest); any-hit rays keep the children's order (sorting
// them measured 6-18% slower shadow rays on the H100). Leaves are tested as they are reached. (Pushing the entry distances
// too, to drop popped nodes the closest hit has passed, measured 1-3% slower on the H100:
// a second local array for a test the slab test of the popped node repeats anyway.)
template <bool kAnyHit>
SRT_HD_INLINE Hit traverse_bvh4(const SceneView& s, const glm::vec3& o, const glm::vec3& d, Hit h) {
    const RayInv r = make_ray_inv(o, d);
    int32_t stack[kBvh4StackSize];
    int sp = 0;
    int32_t node = 0;  // the root is always an inner node
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
            for (int k = 0; k < 4; ++k) {
                float t;
                if (refs[k] == kBvh4Empty ||
                    !hit_box(r, f4{lxs[k], hxs[k], lys[k], hys[k]}, lzs[k], hzs[k], h.t, t))
                    continue;
                int j = nh++;
                // Any-hit stops at the first hit wherever it is: no order to keep.
                while (!kAnyHit && j > 0 && ht[j - 1] > t) {
                    ht[j] = ht[j - 1];
                    hr[j] = hr[j - 1];
                    --j;
                }
                ht[j] = t;
                hr[j] = refs[k];
            }
            if (nh > 0) {
                for (int j = nh - 1; j > 0; --j) stack[sp++] = hr[j];  // the far ones wait, farthest deepest
                node = hr[0];
                continue;
            }
        } else {
            const uint32_t packed = uint32_t(~node);
            const uint32_t first = packed >> 3, count = packed & 7u;
            for (uint32_t k = first; k < first + count; ++k)
                if (closer_prim(s.prims, k, o, d, h) && kAnyHit) return h;
        }
        if (sp == 0) return h;
        node = stack[--sp];
    }
}

// kWidth: which layout to walk, 2 (SceneView::nodes) or 4 (SceneView::nodes4). A
// kernel is compiled for one width (the executors choose by the scene), so that it holds
// one traversal's code and registers, not both.
template <bool kAnyHit, int kWidth>
SRT_HD_INLINE Hit traverse(const SceneView& s, const glm::vec3& o, const glm::vec3& d, float tmax) {
    static_assert(kWidth == 2 || kWidth == 4, "BVH width 2 or 4");
    Hit h{tmax, -1};
    // Planes first: they are few and often the nearest thing (floors, mirrors).
    for (uint32_t j = 0; j < s.plane_count; ++j) {
        const f4 pm = load_f4(&s.planes[j].point_mat);
        const f4 pn = load_f4(&s.planes[j].normal);
        float t;
        if (hit_plane(o, d, xyz(pm), xyz(pn), h.t, t)) {
            h.t = t;
            h.id = int32_t(s.prim_count + j);
            if (kAnyHit) return h;
        }
    }
    if (s.node_count == 0) return h;
    if (kWidth == 4) return traverse_bvh4<kAnyHit>(s, o, d, h);
    return traverse_bvh2<kAnyHit>(s, o, d, h);
}

// The width the scene was compiled for (render/scene_gpu.h: --accel).
SRT_HD_INLINE int bvh_width(const SceneView& s) { return s.nodes4 ? 4 : 2; }

template <int kWidth>
SRT_HD_INLINE Hit intersect_closest(const SceneView& s, const glm::vec3& o, const glm::vec3& d, float tmax) {
    return traverse<false, kWidth>(s, o, d, tmax);
}
template <int kWidth>
SRT_HD_INLINE bool occluded(const SceneView& s, const glm::vec3& o, const glm::vec3& d, float tmax) {
    return traverse<true, kWidth>(s, o, d, tmax).id >= 0;
}
// The same, choosing the width per call (host code, tests).
SRT_HD_INLINE Hit intersect_closest(const SceneView& s, const glm::vec3& o, const glm::vec3& d, float tmax) {
    return bvh_width(s) == 4 ? intersect_closest<4>(s, o, d, tmax) : intersect_closest<2>(s, o, d, tmax);
}
SRT_HD_INLINE bool occluded(const SceneView& s, const glm::vec3& o, const glm::vec3& d, float tmax) {
    return bvh_width(s) == 4 ? occluded<4>(s, o, d, tmax) : occluded<2>(s, o, d, tmax);
}

}  // namespace srt
