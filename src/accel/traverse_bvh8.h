// traverse_bvh8.h - the BVH8's traversal (accel/bvh8.h): the quantized node test and
// the walk over node and primitive groups, host and device.
#pragma once

#include "accel/traversal_common.h"

namespace srt {

// 1 + q * 2^-15 for byte b of w (q), exactly: the byte put into the mantissa of 1.0,
// one byte permute on the device. A quantized plane's distance is then one fma
// (traverse_bvh8), with no integer to float conversion.
SRT_HD_INLINE float byte_one(uint32_t w, uint32_t b) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(__byte_perm(w, 0x3f800000u, 0x7604u | (b << 4)));
#else
    return bits_float(0x3f800000u | (w >> (8u * b) & 0xffu) << 8);
#endif
}

// A BVH8 traversal's stack entry (traverse_bvh8): a node group, or, with kPrimGroupTag
// set in `base`, a primitive group (postponed primitive tests: the first primitive's
// index and the bit mask of those to test).
struct Bvh8Group {
    uint32_t base, hits;
};
// A node's primitive tests wait on the stack when fewer lanes than this would run them
// together (Ylitie et al. section 4's postponing). Measured on the H100 (Conference,
// Sibenik, Sponza, the bunny and the teapot, primary rays, 2026-11-23) against testing at
// once: thresholds 2 to 8 gave -5 to -16% on all but Sponza (+1 to +10%, not
// investigated: presumably the early hit culls more there); 4 keeps Sponza within 1.5%.
// Shadow rays test at once (one hit ends them; postponing measured no better).
constexpr uint32_t kBvh8PostponeLanes = 4;
constexpr int kBvh8ShortStack = 0;  // see kBvh2ShortStack
using Bvh8Stack = TraversalStack<Bvh8Group, kBvh8StackSize, kBvh8ShortStack>;

// One BVH8 node's eight boxes against a ray (traverse_bvh8): all at once against the
// node's quantized grid. Per axis, the plane p + q * step lies at
// t = q * step / d + (p - o) / d = (1 + q 2^-15) * S + (p - o) / d - S with
// S = 2^15 step / d, one fma a plane (byte_one), the near and far planes picked by the
// ray's octant `oct`. Returns the node's group of inner children hit (bits 24..31, child
// slot s at bit 24 + (s ^ oct), with the node's imask in bits 0..7) and sets the bit mask
// of the primitives of its leaves hit, over the node's 32 from prim_base.
SRT_HD_INLINE Bvh8Group bvh8_test_node(const Bvh8Node* node, const RayInv& r, uint32_t oct, float tcull,
                                       uint32_t& prim_hits, uint32_t& prim_base) {
    const f4* n = reinterpret_cast<const f4*>(node);
    const f4 head = load_f4(n), refs = load_f4(n + 1);
    const f4 q0 = load_f4(n + 2), q1 = load_f4(n + 3), q2 = load_f4(n + 4);
    const uint32_t eim = float_bits(head.w);
    // S = 2^15 step / d: the biased exponent e + 15 (the builder keeps e <= 239).
    const float sx = bits_float(((eim & 0xffu) + 15u) << 23) * r.inv.x;
    const float sy = bits_float(((eim >> 8 & 0xffu) + 15u) << 23) * r.inv.y;
    const float sz = bits_float(((eim >> 16 & 0xffu) + 15u) << 23) * r.inv.z;
    const float ox = (head.x - r.o.x) * r.inv.x - sx, oy = (head.y - r.o.y) * r.inv.y - sy,
                oz = (head.z - r.o.z) * r.inv.z - sz;
    // A plane's distance is within 6 roundings of the exact one, each at most 2^-24
    // of |(p - o) / d| + |S|: near planes move nearer and far planes farther by 2^-21
    // of that (|ox| + 2|S| bounds it), so the box test is conservative (see hit_box).
    // The error is relative to the node's corner, not to the distance, so the flat
    // box under a ray's origin can look hit (a false positive, never a miss).
    const float ex = (fabsf(ox) + 2.0f * fabsf(sx)) * kQuantSlack;
    const float ey = (fabsf(oy) + 2.0f * fabsf(sy)) * kQuantSlack;
    const float ez = (fabsf(oz) + 2.0f * fabsf(sz)) * kQuantSlack;
    const float nox = ox - ex, noy = oy - ey, noz = oz - ez, fox = ox + ex, foy = oy + ey, foz = oz + ez;
    const uint32_t imask = eim >> 24;
    // Slots 0..3 and 4..7 of each plane: q0 = lo x, lo y; q1 = lo z, hi x; q2 = hi y, hi z.
    const bool fx = oct & 1u, fy = oct & 2u, fz = oct & 4u;
    const uint32_t lo_x[2] = {float_bits(q0.x), float_bits(q0.y)}, lo_y[2] = {float_bits(q0.z), float_bits(q0.w)};
    const uint32_t lo_z[2] = {float_bits(q1.x), float_bits(q1.y)}, hi_x[2] = {float_bits(q1.z), float_bits(q1.w)};
    const uint32_t hi_y[2] = {float_bits(q2.x), float_bits(q2.y)}, hi_z[2] = {float_bits(q2.z), float_bits(q2.w)};
    const uint32_t meta[2] = {float_bits(refs.z), float_bits(refs.w)};
    uint32_t inner_hits = 0;
    prim_hits = 0;
    for (int half = 0; half < 2; ++half) {
        const uint32_t nx = fx ? hi_x[half] : lo_x[half], kx = fx ? lo_x[half] : hi_x[half];
        const uint32_t ny = fy ? hi_y[half] : lo_y[half], ky = fy ? lo_y[half] : hi_y[half];
        const uint32_t nz = fz ? hi_z[half] : lo_z[half], kz = fz ? lo_z[half] : hi_z[half];
        for (int j = 0; j < 4; ++j) {
            const uint32_t b = uint32_t(j);
            const float tn = max2(max2(fma1(byte_one(nx, b), sx, nox), fma1(byte_one(ny, b), sy, noy)),
                                  max2(fma1(byte_one(nz, b), sz, noz), 0.0f));
            const float tf = min2(min2(fma1(byte_one(kx, b), sx, fox), fma1(byte_one(ky, b), sy, foy)),
                                  min2(fma1(byte_one(kz, b), sz, foz), tcull));
            if (!(tn <= tf)) continue;
            const uint32_t sl = uint32_t(4 * half + j);
            if (imask >> sl & 1u) {
                inner_hits |= 1u << (24u + (sl ^ oct));
            } else {
                const uint32_t m = meta[half] >> (8u * b) & 0xffu;
                prim_hits |= ((1u << (m >> 5)) - 1u) << (m & 31u);
            }
        }
    }
    prim_base = float_bits(refs.y);
    return Bvh8Group{float_bits(refs.x), inner_hits | imask};
}

// The BVH8 (accel/bvh8.h). The stack holds groups: a node group is a node's inner
// children still to visit (bvh8_test_node), the highest bit the next in the ray's rough
// front-to-back order; a primitive group (kPrimGroupTag) is a node's leaves' primitives
// still to test. A node's primitives are tested as soon as it is visited or, for closest
// hits when fewer than kBvh8PostponeLanes lanes of the warp would test at the same time,
// pushed as a primitive group and tested when popped.
template <int kQuery, int kVariant>
SRT_HD_INLINE Hit traverse_bvh8(const SceneView& s, const glm::vec3& o, const glm::vec3& d, Hit h,
                                 bool through_glass, bool any_hit_asked, int32_t root = 0,
                                 InstanceKey ik = {}) {
    const RayInv r = make_ray_inv(o, d);
    const uint32_t oct = (r.inv.x < 0.0f ? 1u : 0u) | (r.inv.y < 0.0f ? 2u : 0u) | (r.inv.z < 0.0f ? 4u : 0u);
    Bvh8Stack::Spill spill;
    Bvh8Stack stack(spill);
    // The root, as the one inner child (slot 0) of a parent whose children start there.
    Bvh8Group g{uint32_t(root), (1u << (24u + oct)) | 1u};
    for (;;) {
        uint32_t prim_hits, prim_base;
        if (!SRT_STOPS_AT_FIRST_HIT && (g.base & kPrimGroupTag)) {  // a postponed primitive group
            prim_hits = g.hits;
            prim_base = g.base & ~kPrimGroupTag;
            g = Bvh8Group{0u, 0u};
        } else {  // the next inner child of the node group
            const int bit = highest_bit(g.hits);
            g.hits &= ~(1u << bit);
            const uint32_t slot = uint32_t(bit - 24) ^ oct;
            const uint32_t child = g.base + popc32(g.hits & ((1u << slot) - 1u));
            if (g.hits & 0xff000000u) stack.push(g);
            g = bvh8_test_node(&s.nodes8[child], r, oct, cull_distance(h.t), prim_hits, prim_base);
        }
        while (prim_hits) {
            // Postponed only while this lane has inner children to go on with, so that
            // the group is popped after them, never straight back.
            if (!SRT_STOPS_AT_FIRST_HIT && (g.hits & 0xff000000u) && lanes_running() < kBvh8PostponeLanes) {
                stack.push(Bvh8Group{prim_base | kPrimGroupTag, prim_hits});
                break;
            }
            const uint32_t k = prim_base + uint32_t(lowest_bit(prim_hits));
            prim_hits &= prim_hits - 1u;
            if (closer_prim<kVariant>(s, k, o, d, h, SRT_STOPS_AT_FIRST_HIT && through_glass, ik) &&
                SRT_STOPS_AT_FIRST_HIT)
                return h;
        }
        if (!(g.hits & 0xff000000u)) {
            if (stack.empty()) return h;
            g = stack.pop();
        }
    }
}

}  // namespace srt
