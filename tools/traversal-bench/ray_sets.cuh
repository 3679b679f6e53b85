// ray_sets.cuh - the four ray sets that traversal_bench.cu traces, and how they are built.
//
// For a W x H frame, slot i holds ray i of a set, in the renderer's 8x4 tile order (k_primary):
//   primary : the camera ray through pixel centre (x, y)              closest hit
//   shadow  : from a primary hit towards the scene's first light,     any hit
//             as shading starts it (render/stages.h direct_light)
//   mirror  : from every primary hit, the Whitted reflect stage's     closest hit
//             ray (render/stages.h reflect_ray), whatever the material's kr
//   diffuse : from every primary hit, a cosine-weighted direction     closest hit
//             about the flat normal (diffuse_dir below)
// A slot whose primary ray missed has no shadow, mirror or diffuse ray; nor has a shadow
// slot whose surface has no kd or faces away from the light.
//
// The diffuse directions are specified so that another program can reproduce them: every
// step is one float operation, rounded to nearest, with no FMA (the intrinsics below on
// the device; on the host, plain operations under the project's -ffp-contract=off), and
// the angle's cosine and sine are CUDA's cosf and sinf on the device (no fast math). The
// part above the CUDA kernels compiles as plain C++ too (its host twin, which
// tests/test_diffuse_set.cpp checks), where they are the host's std::cos(float) and
// std::sin(float). So the host twin gives the device's directions except where the host's
// cosf/sinf round differently from CUDA's in the last place (CUDA's are within 2 ulps of
// the true values, glibc's within 1; against glibc 2.36 about a fifth of the diffuse
// angles' cosines and a sixth of their sines differ, by 1 ulp, a few sines by 2): a CPU
// program reproduces the set to within an ulp or two of lx and ly (and the world direction
// to within a few ulps); a GPU program with CUDA's cosf and sinf reproduces it bit for bit.
#pragma once

#include "core/hd.h"

#include <glm/glm.hpp>

#include <cmath>
#include <cstdint>

namespace srt::bench {

// One float operation each, rounded to nearest: intrinsics on the device, which nvcc never
// contracts into an FMA; plain operations on the host, compiled without contraction.
SRT_HD_INLINE float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
SRT_HD_INLINE float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
SRT_HD_INLINE float sub_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fsub_rn(a, b);
#else
    return a - b;
#endif
}
SRT_HD_INLINE float div_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fdiv_rn(a, b);
#else
    return a / b;
#endif
}
SRT_HD_INLINE float sqrt_rn(float a) {
#if defined(__CUDA_ARCH__)
    return __fsqrt_rn(a);
#else
    return std::sqrt(a);
#endif
}

// The diffuse angle's cosine and sine: CUDA's cosf and sinf on the device, the host's
// std::cos(float) and std::sin(float) in the host twin.
SRT_HD_INLINE float dir_cosf(float x) {
#if defined(__CUDA_ARCH__)
    return cosf(x);
#else
    return std::cos(x);
#endif
}
SRT_HD_INLINE float dir_sinf(float x) {
#if defined(__CUDA_ARCH__)
    return sinf(x);
#else
    return std::sin(x);
#endif
}

// The diffuse angle of a 24-bit uniform u (u2 = u * 2^-24).
SRT_HD_INLINE float diffuse_phi(uint32_t u) {
    return mul_rn(6.28318548f, mul_rn(float(u), 1.0f / 16777216.0f));
}

// PCG's output permutation as a hash (Jarzynski and Olano, "Hash Functions for GPU
// Rendering", JCGT 2020). All uint32, wrapping.
SRT_HD_INLINE uint32_t pcg_hash(uint32_t v) {
    const uint32_t s = v * 747796405u + 2891336453u;
    const uint32_t w = ((s >> ((s >> 28) + 4u)) ^ s) * 277803737u;
    return (w >> 22) ^ w;
}

// (b1 * lx + b2 * ly) + n * lz for one component.
SRT_HD_INLINE float basis_sum(float b1, float b2, float n, float lx, float ly, float lz) {
    return add_rn(add_rn(mul_rn(b1, lx), mul_rn(b2, ly)), mul_rn(n, lz));
}

// The diffuse ray of slot i about the unit flat normal n, already turned to face the
// incoming ray: a cosine-weighted direction from two uniforms of the slot's hash, taken
// into the world by Duff et al.'s branchless basis ("Building an Orthonormal Basis,
// Revisited", JCGT 2017). Not renormalised: unit length within a few ulps.
SRT_HD_INLINE glm::vec3 diffuse_dir(uint32_t i, const glm::vec3& n) {
    const float u1 = mul_rn(float(pcg_hash(2u * i) >> 8), 1.0f / 16777216.0f);
    const float r = sqrt_rn(u1), phi = diffuse_phi(pcg_hash(2u * i + 1u) >> 8);
    const float lx = mul_rn(r, dir_cosf(phi)), ly = mul_rn(r, dir_sinf(phi));
    const float lz = sqrt_rn(fmaxf(0.0f, sub_rn(1.0f, u1)));
    const float sign = copysignf(1.0f, n.z);
    const float a = div_rn(-1.0f, add_rn(sign, n.z));
    const float b = mul_rn(mul_rn(n.x, n.y), a);
    const float sx = mul_rn(sign, n.x);
    const glm::vec3 b1(add_rn(1.0f, mul_rn(mul_rn(sx, n.x), a)), mul_rn(sign, b), -sx);
    const glm::vec3 b2(b, add_rn(sign, mul_rn(mul_rn(n.y, n.y), a)), -n.y);
    return glm::vec3(basis_sum(b1.x, b2.x, n.x, lx, ly, lz), basis_sum(b1.y, b2.y, n.y, lx, ly, lz),
                     basis_sum(b1.z, b2.z, n.z, lx, ly, lz));
}

}  // namespace srt::bench

#if defined(__CUDACC__)
#include "render/stages.h"

#include <cuda_runtime.h>

namespace srt::bench {

// One ray set on the device, a slot per ray.
struct Rays {
    float4* o;  // w unused
    float4* d;  // w = tmax; 0 for no ray
    float* t;
    int* id;    // closest: hit id, -1 miss; any hit: 1 occluded, 0 not; -2: no ray
};

// The primary rays of a w x h frame (w a multiple of 8, h of 4): slot i is lane i % 32
// of tile i / 32, tiles of 8x4 pixels in rows, as the renderer orders them.
__global__ void k_primary(CameraGpu c, uint32_t w, uint32_t h, Rays r) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= w * h) return;
    const uint32_t tile = i >> 5, l = i & 31u, tiles_x = w / 8u;
    const uint32_t x = (tile % tiles_x) * 8u + (l & 7u), y = (tile / tiles_x) * 4u + (l >> 3);
    const glm::vec3 d = camera_dir(c, w, h, float(x) + 0.5f, float(y) + 0.5f);
    r.o[i] = make_float4(c.origin.x, c.origin.y, c.origin.z, 0.0f);
    r.d[i] = make_float4(d.x, d.y, d.z, 3.0e38f);
}

__device__ inline void set_ray(const Rays& r, uint32_t i, const glm::vec3& o, const glm::vec3& d, float tmax) {
    r.o[i] = make_float4(o.x, o.y, o.z, 0.0f);
    r.d[i] = make_float4(d.x, d.y, d.z, tmax);
}

// The shadow, mirror and diffuse rays of each primary hit (prim: after the closest-hit
// kernel), from the hit's Surface as shading sees it. kVariant: the scene's variant
// (accel/intersect.h with_bvh_width); only its kPreciseSpheres changes a Surface's geometry.
template <int kVariant>
__global__ void k_secondary(SceneView s, uint32_t n, Rays prim, Rays sh, Rays mir, Rays dif) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 none = make_float4(0.0f, 0.0f, 1.0f, 0.0f);
    sh.d[i] = none;
    mir.d[i] = none;
    dif.d[i] = none;
    if (prim.id[i] < 0) return;
    const float4 o4 = prim.o[i], d4 = prim.d[i];
    const glm::vec3 d(d4.x, d4.y, d4.z);
    // Both normals face the ray (surface_at ends with face_ray).
    const Surface sf = surface_at<kVariant>(s, glm::vec3(o4.x, o4.y, o4.z), d, prim.t[i], prim.id[i]);
    const glm::vec3 o = offset_origin(sf);
    // The reflect stage's ray (offset origin, reflect_dir about the shading normal, made
    // unit), from every hit: a kr of 1 stands in for the material's, which only decides
    // whether the renderer sends it.
    Surface mirror = sf;
    mirror.kr = glm::vec3(1.0f);
    PathRay r;
    r.d = d;
    r.w = glm::vec3(1.0f);
    reflect_ray<kVariant>(mirror, r);
    set_ray(mir, i, r.o, r.d, 3.0e38f);
    set_ray(dif, i, o, diffuse_dir(i, sf.n), 3.0e38f);
    if (sf.kd == 0.0f || s.light_count == 0) return;
    glm::vec3 l;
    const float dist = light_direction(s, 0, o, l);
    if (glm::dot(sf.ns, l) > 0.0f) set_ray(sh, i, o, l, dist);
}

}  // namespace srt::bench
#endif  // __CUDACC__
