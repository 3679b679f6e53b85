// prim_hits.h - the ray/primitive tests traversal runs (a triangle by its precomputed
// transform, a sphere, a plane), shared by host and device; accel/intersect.h walks the
// BVHs with them. Conventions as there: `d` is unit length, a hit needs 0 < t < tmax.
#pragma once

#include "accel/bvh.h"
#include "core/fma.h"
#include "core/hd.h"

#include <glm/glm.hpp>

#include <cmath>

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

// A triangle by its precomputed transform (accel/bvh.h PrimTestGpu): with tv = o - v0,
// the ray meets the plane w = 0 at t = -(r2 . tv) / (r2 . d), where the barycentrics
// are u = r0 . tv + t (r0 . d) and v = r1 . tv + t (r1 . d). Every product is relative
// to v0, as in Moller-Trumbore, so the rounding follows the ray's distance to the
// triangle, not to the origin. Exactly parallel rays (r2 . d == 0) and degenerate
// triangles (rows of 0) miss. Measured against Moller-Trumbore on the stored vertices
// (which shading still uses for the hit point, accel/hit_point.h): 4-11% faster
// traversal on the H100 (docs/performance.md, "BVH layouts").
// `bary`, when given, receives the hit's barycentrics (u, v) (an alpha mask's texture
// coordinates: accel/traversal_common.h).
SRT_HD_INLINE bool hit_triangle(const glm::vec3& o, const glm::vec3& d, const f4& a, const f4& b, const f4& c,
                                float tmax, float& t, glm::vec2* bary = nullptr) {
    const glm::vec3 tv = o - xyz(a);
    const glm::vec3 r2(a.w, b.x, b.y), r0(b.z, b.w, c.x), r1(c.y, c.z, c.w);
    const float tt = -dot_fma(r2, tv) / dot_fma(r2, d);
    if (!(tt > 0.0f && tt < tmax)) return false;
    const float u = fma1(tt, dot_fma(r0, d), dot_fma(r0, tv));
    if (!(u >= 0.0f && u <= 1.0f)) return false;
    const float v = fma1(tt, dot_fma(r1, d), dot_fma(r1, tv));
    if (!(v >= 0.0f && u + v <= 1.0f)) return false;
    t = tt;
    if (bary) *bary = glm::vec2(u, v);
    return true;
}

// |o - c|^2 - r^2 in double, on the scene's sphere (c + lo.xyz, r + lo.w): o - c and the
// squares' inputs exact, the rest to 2^-50.
SRT_HD_INLINE float sphere_cc_double(const glm::vec3& o, const glm::vec3& c, float r, const f4* lo) {
    const f4 l = load_f4(lo);
    const double dx = (double(o.x) - double(c.x)) - double(l.x);
    const double dy = (double(o.y) - double(c.y)) - double(l.y);
    const double dz = (double(o.z) - double(c.z)) - double(l.z);
    const double rr = double(r) + double(l.w);
    return float((dx * dx + dy * dy + dz * dz) - rr * rr);
}

// Nearest root in (0, tmax); from inside, that is the far root. Written for precision
// (Haines et al., "Precision Improvements for Ray/Sphere Intersection", Ray Tracing
// Gems, 2019): the discriminant comes from the ray's closest approach to the centre,
// not from b^2 - c (which cancels catastrophically for small, distant spheres and
// puts hit points inside the sphere: shadow acne), and the near root comes from the
// product of the roots instead of a difference.
// `lo`: in a scene whose spheres are computed in double (SceneView::precise_spheres), what
// rounding lost of the centre (xyz) and the radius (w), read only near the surface; null
// in the others, which stay in float.
SRT_HD_INLINE bool hit_sphere(const glm::vec3& o, const glm::vec3& d, const glm::vec3& c, float r2, float r,
                              float tmax, float& t, const f4* lo = nullptr) {
    const glm::vec3 oc = o - c;
    const float b = glm::dot(oc, d);
    const glm::vec3 l = oc - b * d;  // from the centre to the closest point of the ray line
    const float disc = r2 - glm::dot(l, l);
    if (disc < 0.0f) return false;
    const float s = sqrtf(disc);
    const float q = b > 0.0f ? -b - s : -b + s;  // the root of larger magnitude
    if (q == 0.0f) return false;                  // ray through the centre of a point sphere
    float cc = glm::dot(oc, oc) - r2;  // |oc|^2 - r^2: where the origin is, inside or out
    // Near the surface cc is a small difference of two large numbers, and oc itself
    // rounded at the centre's magnitude: for a sphere of radius 1000 the float cc is
    // unreliable for origins within about 5e-5 of it, which is where a ray leaving a
    // small sphere resting on it starts, and the near root t0 = cc / q came out
    // negative or far off. There cc is computed again in double, against the sphere the
    // scene gave (hi + lo, the one hit points are projected onto: accel/hit_point.h), so
    // that a ray leaving it outside never finds it again; the near root is then as good
    // as q.
    if (lo && fabsf(cc) < 0x1p-12f * (glm::dot(oc, oc) + r2)) cc = sphere_cc_double(o, c, r, lo);
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

template <bool kPrecise>
SRT_HD_INLINE bool hit_prim(const PrimTestGpu* tests, uint32_t k, const glm::vec3& o,
                            const glm::vec3& d, float tmax, float& t, glm::vec2* bary = nullptr) {
    const f4 a = load_f4(&tests[k].a);
    const f4 b = load_f4(&tests[k].b);
    if (float_bits(a.w) == kSphereTestTag)
        return hit_sphere(o, d, xyz(a), b.x, b.y, tmax, t, kPrecise ? &tests[k].c : nullptr);
    const f4 c = load_f4(&tests[k].c);
    return hit_triangle(o, d, a, b, c, tmax, t, bary);
}

}  // namespace srt
