// hit_point.h - hit points with a known error bound, and ray origins offset past it.
//
// A ray that leaves a surface must not hit that surface again. Each primitive computes
// its hit point in a way whose floating-point error has a bound (per component, in world
// units), and rays leave from the hit point pushed along the geometric normal by more
// than that bound, then rounded away from the surface (Pharr, Jakob and Humphreys,
// "Physically Based Rendering", 4th ed., section 6.8). Because the bounds follow the
// magnitudes involved, this holds at any scale and any distance from the origin: the
// ground sphere of radius 1000 (scenes/big-sphere.json), a scene moved to x = 1e5, or
// one scaled by 1e-3.
//
//   sphere   : o + t*d re-projected onto the sphere (its radial error is then a few
//              ulps of the radius), then moved back by the centre; for a sphere large
//              against its distance from the camera, t solved again and the projection
//              done in double, then rounded once to float (half an ulp of the point)
//   triangle : v0 + u*e1 + v*e2 from the barycentrics of the hit: exactly in the
//              triangle's plane but for the rounding of that sum, whatever error t had
//   plane    : o + t*d with its coordinate along the normal's largest axis recomputed
//              from the plane equation
//
// All of it is plain IEEE float arithmetic without FMA contraction (CMakeLists.txt),
// and explicit fmas (core/fma.h) where it says so, so host and device compute the same
// bits.
#pragma once

#include "core/fma.h"
#include "core/hd.h"

#include <glm/glm.hpp>

#include <cmath>
#include <cstdint>

namespace srt {

// gamma(n) = n u / (1 - n u), u = 2^-24: the bound on the relative error of n
// successive float roundings (Higham, "Accuracy and Stability of Numerical Algorithms").
SRT_HD_INLINE constexpr float gamma_bound(int n) {
    return (float(n) * 0x1p-24f) / (1.0f - float(n) * 0x1p-24f);
}

SRT_HD_INLINE glm::vec3 abs3(const glm::vec3& v) { return glm::vec3(fabsf(v.x), fabsf(v.y), fabsf(v.z)); }

// The next float above / below v (infinities stay; -0 counts as +0).
SRT_HD_INLINE float next_float_up(float v) {
    if (v == INFINITY) return v;
    if (v == 0.0f) v = 0.0f;
    uint32_t b = float_bits(v);
    b = v >= 0.0f ? b + 1 : b - 1;
    return bits_float(b);
}
SRT_HD_INLINE float next_float_down(float v) {
    if (v == -INFINITY) return v;
    if (v == 0.0f) v = -0.0f;
    uint32_t b = float_bits(v);
    b = v > 0.0f ? b - 1 : b + 1;
    return bits_float(b);
}

// A hit point, the bound on its error per component, and the geometric normal (unit,
// not yet turned towards the ray); for triangles also the barycentrics of v1 and v2.
struct HitPoint {
    glm::vec3 p;
    glm::vec3 err;
    glm::vec3 n;
    float u = 0.0f, v = 0.0f;
};

// A sphere's hit point, in float: o + t*d re-projected onto the sphere (its radial error
// is then a few ulps of the radius, whatever error t had), then moved back by the centre.
SRT_HD_INLINE HitPoint sphere_hit_point_float(const glm::vec3& o, const glm::vec3& d, float t,
                                              const glm::vec3& centre, float radius) {
    glm::vec3 local = (o + t * d) - centre;
    const float len2 = glm::dot(local, local);
    if (len2 > 0.0f) local = local * (radius / sqrtf(len2));
    HitPoint h;
    h.p = centre + local;
    // Re-projection leaves local within gamma(5)|local| of the sphere; adding the
    // centre back rounds once more, by at most gamma(1)|p|. One more of each for margin.
    h.err = gamma_bound(6) * abs3(local) + gamma_bound(2) * abs3(h.p);
    h.n = local * (1.0f / radius);
    return h;
}

// The same in double, in a scene with a sphere large against its distance from the
// camera (accel/bvh.h sphere_needs_double). In float the projection's error is a few ulps
// of the radius
// wherever the point is: 3.6e-4 for a ground sphere of radius 1000, more than the gap
// between it and a small sphere resting on it over a ring around their contact, where
// the offset origin then landed inside the small sphere (tests/test_robust_hits.cpp:
// 219 of 400 such origins; the contact scenes' rings, tests/test_contacts.cpp). Here:
//   - t is solved again: the float test's t is off by up to about 5e-5 / cos for such a
//     sphere (its |oc|^2 - r^2 rounds at 1e6), which moved a grazing hit sideways along
//     the ray, where the projection does not correct it (measured: a ray from a sphere
//     0.46 above the ground hit it at t 0.513591 against the double reference's
//     0.513546; four bounces later it hit another sphere). The root nearest t is taken;
//   - the sphere is the scene's: the centre and radius with what rounding them to float
//     lost (centre_lo, radius_lo: up to 3e-5 for that centre);
//   - the point is projected onto it and rounded once, to float: its error is half an ulp
//     of the point itself, as small near the camera as any float coordinate there.
// The inputs are floats and every double operation is IEEE-rounded without contraction,
// so the host and the device compute the same bits.
SRT_HD_INLINE HitPoint sphere_hit_point_double(const glm::vec3& o, const glm::vec3& d, float t,
                                               const glm::vec3& centre, float radius, const glm::vec3& centre_lo,
                                               float radius_lo) {
    const glm::dvec3 c = glm::dvec3(centre) + glm::dvec3(centre_lo), od(o), dd(d);
    const double rr = double(radius) + double(radius_lo);
    const glm::dvec3 oc = od - c;
    const double a = glm::dot(dd, dd), b = glm::dot(oc, dd), cc = glm::dot(oc, oc) - rr * rr;
    const double disc = b * b - a * cc;
    double tt = double(t);
    if (disc >= 0.0) {
        const double q = b > 0.0 ? -b - sqrt(disc) : -b + sqrt(disc);
        if (q != 0.0) {
            const double t0 = cc / q, t1 = q / a;
            tt = fabs(t0 - tt) <= fabs(t1 - tt) ? t0 : t1;
        }
    }
    glm::dvec3 local = (od + tt * dd) - c;
    const double len2 = glm::dot(local, local);
    if (len2 > 0.0) local = local * (rr / sqrt(len2));
    HitPoint h;
    h.p = glm::vec3(c + local);
    // Rounding to float: half an ulp of p, gamma(1)|p| with margin; the double steps: a
    // few units of 2^-53 of |c| + r, bounded generously by 2^-44 of it.
    h.err = gamma_bound(2) * abs3(h.p) + glm::vec3(0x1p-44f * (glm::dot(abs3(centre), glm::vec3(1.0f)) + radius));
    h.n = glm::vec3(local * (1.0 / rr));
    return h;
}

// The hit point from the stored vertices (v0, e1, e2) and Moller-Trumbore barycentrics,
// whichever test found the hit (traversal uses a precomputed transform: accel/bvh.h
// PrimTestGpu).
SRT_HD_INLINE HitPoint triangle_hit_point(const glm::vec3& o, const glm::vec3& d,
                                          const glm::vec3& v0, const glm::vec3& e1,
                                          const glm::vec3& e2) {
    const glm::vec3 pv = cross_fma(d, e2);
    const float inv = 1.0f / dot_fma(e1, pv);
    const glm::vec3 tv = o - v0;
    const float u = dot_fma(tv, pv) * inv;
    const float v = dot_fma(d, cross_fma(tv, e1)) * inv;
    // The triangle is {v0 + a e1 + b e2} for the stored floats v0, e1, e2, so the exact
    // sum lies in its plane for any u and v; two products and two sums round it.
    const glm::vec3 ue1 = u * e1, ve2 = v * e2;
    HitPoint h;
    h.p = (v0 + ue1) + ve2;
    h.err = gamma_bound(4) * (abs3(v0) + abs3(ue1) + abs3(ve2));
    const glm::vec3 c = glm::cross(e1, e2);
    h.n = c * (1.0f / sqrtf(glm::dot(c, c)));
    h.u = u;
    h.v = v;
    return h;
}

namespace detail {
// The plane coordinate k from the others: q_k - (n_a (p_a - q_a) + n_b (p_b - q_b)) / n_k,
// with |n_k| the largest of the three; `err` bounds its rounding.
SRT_HD_INLINE void plane_solve(float pa, float pb, float qa, float qb, float qk, float na,
                               float nb, float nk, float& pk, float& err) {
    const float da = pa - qa, db = pb - qb;
    pk = qk - (na * da + nb * db) / nk;
    err = gamma_bound(7) *
          (fabsf(qk) + fabsf(pk) + (fabsf(na) * (fabsf(pa) + fabsf(qa)) + fabsf(nb) * (fabsf(pb) + fabsf(qb))) / fabsf(nk));
}
}  // namespace detail

SRT_HD_INLINE HitPoint plane_hit_point(const glm::vec3& o, const glm::vec3& d, float t,
                                       const glm::vec3& q, const glm::vec3& n) {
    HitPoint h;
    h.p = o + t * d;
    h.err = glm::vec3(0.0f);
    h.n = n;
    const glm::vec3 an = abs3(n);
    if (an.x >= an.y && an.x >= an.z) {
        detail::plane_solve(h.p.y, h.p.z, q.y, q.z, q.x, n.y, n.z, n.x, h.p.x, h.err.x);
    } else if (an.y >= an.z) {
        detail::plane_solve(h.p.x, h.p.z, q.x, q.z, q.y, n.x, n.z, n.y, h.p.y, h.err.y);
    } else {
        detail::plane_solve(h.p.x, h.p.y, q.x, q.y, q.z, n.x, n.y, n.z, h.p.z, h.err.z);
    }
    return h;
}

// The origin of a ray leaving `p` on the side `n` faces: p moved along n by the extent
// of the error box in that direction, then each component rounded one float further
// out, so that no rounding of the sum can bring it back onto the surface.
SRT_HD_INLINE glm::vec3 offset_ray_origin(const glm::vec3& p, const glm::vec3& err,
                                          const glm::vec3& n) {
    const float dist = glm::dot(abs3(n), err);
    glm::vec3 po = p + dist * n;
    po.x = n.x > 0.0f ? next_float_up(po.x) : n.x < 0.0f ? next_float_down(po.x) : po.x;
    po.y = n.y > 0.0f ? next_float_up(po.y) : n.y < 0.0f ? next_float_down(po.y) : po.y;
    po.z = n.z > 0.0f ? next_float_up(po.z) : n.z < 0.0f ? next_float_down(po.z) : po.z;
    return po;
}

}  // namespace srt
