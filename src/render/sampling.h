// sampling.h - the arithmetic of Monte Carlo light transport, the same bits on the CPU and
// the GPU: sine, cosine and exp from + - * alone (libm's and CUDA's sinf, cosf and expf
// differ in their last bits, and an image must not), an orthonormal frame around a
// normal, and the warps from uniform numbers to directions and points that the path
// integrator samples, each with its density.
#pragma once

#include "core/hd.h"

#include <glm/glm.hpp>

#include <cmath>

namespace srt {

constexpr float kPi = 3.14159265f;
constexpr float kInvPi = 0.318309886f;

// sin and cos of 2 pi u, for u in [0, 1]: u in quarter turns is split into the nearest
// quarter q and a remainder of at most an eighth of a turn, where Cephes' minimax
// polynomials for sinf and cosf hold to a few ulps; q swaps and negates them.
SRT_HD_INLINE void sincos_turns(float u, float& s, float& c) {
    const float t = u * 4.0f;
    const float q = floorf(t + 0.5f);
    const float r = (t - q) * 1.57079637f;  // |r| <= pi / 4
    const float r2 = r * r;
    const float sr = r + r * r2 * (-1.6666654611e-1f + r2 * (8.3321608736e-3f + r2 * -1.9515295891e-4f));
    const float cr = 1.0f - 0.5f * r2 + r2 * r2 * (4.166664568298827e-2f + r2 * (-1.388731625493765e-3f +
                                                                              r2 * 2.443315711809948e-5f));
    switch (int(q) & 3) {
        case 0: s = sr; c = cr; break;
        case 1: s = cr; c = -sr; break;
        case 2: s = -sr; c = -cr; break;
        default: s = -cr; c = sr; break;
    }
}

// atan2(y, x) / (2 pi): the angle in turns, in [-1/2, 1/2], from + - * / alone. The
// smaller of |x|, |y| over the larger is in [0, 1]; past tan(pi/8) it is reduced by the
// identity atan t = pi/4 + atan((t - 1)/(t + 1)), and Cephes' minimax polynomial for atanf
// holds there to about 1e-7. Quadrants by the signs. 0 for (0, 0).
SRT_HD_INLINE float atan2_turns(float y, float x) {
    const float ax = fabsf(x), ay = fabsf(y);
    const float hi = fmaxf(ax, ay), lo = fminf(ax, ay);
    if (!(hi > 0.0f)) return 0.0f;
    float t = lo / hi, a = 0.0f;
    if (t > 0.414213562f) {
        t = (t - 1.0f) / (t + 1.0f);
        a = 0.785398163f;
    }
    const float z = t * t;
    a = a + ((((8.05374449538e-2f * z - 1.38776856032e-1f) * z + 1.99777106478e-1f) * z - 3.33329491539e-1f) * z * t + t);
    if (ay > ax) a = 1.57079633f - a;
    if (x < 0.0f) a = 3.14159265f - a;
    return (y < 0.0f ? -a : a) * 0.159154943f;
}

// e^x: x = k ln 2 + r with k the nearest integer to x / ln 2 and |r| <= ln 2 / 2 (ln 2 in
// two parts, Cody and Waite, so that r is exact); e^r by its Taylor series to r^7
// (relative error below 1e-8 there), 2^k by the exponent bits. Below -87 the result is 0
// (past float's normal range), above 88 infinity.
SRT_HD_INLINE float exp_portable(float x) {
    if (!(x > -87.0f)) return 0.0f;
    if (x > 88.0f) return bits_float(0x7f800000u);
    const float k = floorf(x * 1.44269504f + 0.5f);
    const float r = (x - k * 0.693145752f) - k * 1.42860677e-6f;
    const float p = 1.0f + r * (1.0f + r * (0.5f + r * (0.166666672f + r * (0.0416666679f + r * (0.00833333377f +
                    r * (0.00138888892f + r * 0.000198412701f))))));
    return p * bits_float(uint32_t(int(k) + 127) << 23);
}

// An orthonormal frame (t, b, n) around the unit vector n, branchless and continuous
// except across n.z = 0 (Duff et al. 2017, "Building an Orthonormal Basis, Revisited").
struct Frame {
    glm::vec3 t, b, n;
    SRT_HD_INLINE static Frame around(const glm::vec3& n) {
        const float sign = copysignf(1.0f, n.z);
        const float a = -1.0f / (sign + n.z);
        const float b = n.x * n.y * a;
        Frame f;
        f.t = glm::vec3(1.0f + sign * n.x * n.x * a, sign * b, -sign * n.x);
        f.b = glm::vec3(b, sign + n.y * n.y * a, -n.y);
        f.n = n;
        return f;
    }
    SRT_HD_INLINE glm::vec3 to_local(const glm::vec3& v) const {
        return glm::vec3(glm::dot(v, t), glm::dot(v, b), glm::dot(v, n));
    }
    SRT_HD_INLINE glm::vec3 to_world(const glm::vec3& v) const { return t * v.x + b * v.y + n * v.z; }
};

// A cosine-weighted direction about +z (Malley: a uniform point on the unit disk, lifted
// to the hemisphere); density cos(theta) / pi per unit solid angle.
SRT_HD_INLINE glm::vec3 sample_cosine_hemisphere(float u1, float u2) {
    const float r = sqrtf(u1);
    float s, c;
    sincos_turns(u2, s, c);
    return glm::vec3(r * c, r * s, sqrtf(fmaxf(0.0f, 1.0f - u1)));
}
SRT_HD_INLINE float cosine_hemisphere_pdf(float cos_theta) { return cos_theta > 0.0f ? cos_theta * kInvPi : 0.0f; }

// Barycentrics (b1, b2) of a uniform point on a triangle (the square folded onto it):
// the point is (1 - b1 - b2) v0 + b1 v1 + b2 v2; density 1 / area.
SRT_HD_INLINE glm::vec2 sample_triangle(float u1, float u2) {
    if (u1 + u2 > 1.0f) {
        u1 = 1.0f - u1;
        u2 = 1.0f - u2;
    }
    return glm::vec2(u1, u2);
}

// A uniform direction on the unit sphere; density 1 / (4 pi).
SRT_HD_INLINE glm::vec3 sample_uniform_sphere(float u1, float u2) {
    const float z = 1.0f - 2.0f * u1;
    const float r = sqrtf(fmaxf(0.0f, 1.0f - z * z));
    float s, c;
    sincos_turns(u2, s, c);
    return glm::vec3(r * c, r * s, z);
}

// Veach's power heuristic (beta = 2) for one sample of density pa against density pb:
// pa^2 / (pa^2 + pb^2), as a ratio of the two, because the squares overflow: an area
// light seen edge-on from far off has a solid-angle density past 1e19 (a ray that
// skimmed a floor plane for 1e7 units made inf / inf, a NaN pixel).
SRT_HD_INLINE float power_heuristic(float pa, float pb) {
    if (!(pa > 0.0f)) return 0.0f;
    if (pa >= pb) {
        const float r = pb / pa;
        return r == r ? 1.0f / (1.0f + r * r) : 0.5f;  // both infinite: an even split
    }
    const float r = pa / pb;
    return (r * r) / (1.0f + r * r);
}

SRT_HD_INLINE float luminance(const glm::vec3& c) { return 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z; }
SRT_HD_INLINE float max_component(const glm::vec3& c) { return fmaxf(c.x, fmaxf(c.y, c.z)); }

}  // namespace srt
