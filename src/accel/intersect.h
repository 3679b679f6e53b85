// intersect.h - BVH traversal (the primitive tests are accel/prim_hits.h), shared by host
// and device. The kernels' variant bits and the dispatch to them are accel/variant.h.
//
// Conventions: `d` is unit length; a hit needs 0 < t < tmax (secondary rays start
// offset from the surface, so no tmin is needed). Hits are identified by a "hit id":
//   [0, prim_count)                       -> primitive in BVH order (scene.prims)
//   [prim_count, prim_count + plane_count) -> plane (scene.planes)
//   -1                                     -> miss
#pragma once

#include "accel/bvh.h"
#include "accel/bvh4.h"
#include "accel/bvh8.h"
#include "accel/prim_hits.h"
#include "core/fma.h"
#include "core/hd.h"
#include "accel/scene_view.h"
#include "accel/traversal_stack.h"
#include "accel/variant.h"

#include <glm/glm.hpp>

#include <cmath>
#include <cstring>
#include <type_traits>

namespace srt {

struct Hit {
    float t;
    int32_t id;  // hit id, -1 = miss
};

// The original id of primitive k (the scene's order, PrimGpu::p2.w), which no layout
// changes.
SRT_HD_INLINE uint32_t prim_key(const PrimGpu* prims, int32_t k) { return float_bits(load_f4(&prims[k].p2).w); }

// Tests primitive k against the hit so far, ties included: a hit at the same t goes to
// the lower original primitive id, and a primitive beats a plane (whose ids come after
// every primitive's). Every traversal order and every layout's primitive order then
// finds the same primitive. An initial h (t = tmax, id -1) is never replaced by a hit at
// tmax itself.
// Triangle k's texture coordinates at barycentrics (u, v) of v1 and v2.
SRT_HD_INLINE glm::vec2 triangle_uv(const SceneView& s, uint32_t k, float u, float v) {
    const f4 a = load_f4(&s.uvs[2 * k]);
    const f4 b = load_f4(&s.uvs[2 * k + 1]);
    const float w = 1.0f - u - v;
    return glm::vec2(w * a.x + u * a.z + v * b.x, w * a.y + u * a.w + v * b.y);
}

// Whether triangle k is there at barycentrics `bary`: its material's alpha (factor times
// the alpha texture, bilinear) reaches the cutoff, or it has no mask. A masked-out hit is
// no hit, for every kind of ray, because traversal asks this before taking it.
SRT_HD_INLINE bool alpha_opaque(const SceneView& s, uint32_t k, const glm::vec2& bary) {
    if (s.prim_alpha == nullptr) return true;  // a scene without masks (kernels of every texture bit: with_tree_variant)
    const uint32_t m = load_u32(&s.prim_alpha[k]);
    if (m == kNoMaskGpu) return true;
    const f4 mt = load_f4(&s.materials[m].tex);
    float alpha = mt.w;
    const uint32_t tex = float_bits(mt.y);
    if (tex != kNoTextureGpu) alpha = alpha * sample_alpha(s.textures, s.texels, tex, triangle_uv(s, k, bary.x, bary.y));
    return alpha >= mt.z;
}

// Whether material m is a dielectric (glass, water): the shadow rays of Whitted's ray
// tree pass through it (render/ray_tree.h).
SRT_HD_INLINE bool glass_material(const SceneView& s, uint32_t m) { return load_f4(&s.materials[m].medium).w > 0.0f; }

// `through_glass` (any-hit rays only): a dielectric's hit is no hit.
template <int kVariant>
SRT_HD_INLINE bool closer_prim(const SceneView& s, uint32_t k, const glm::vec3& o, const glm::vec3& d, Hit& h,
                               bool through_glass = false) {
    float t;
    glm::vec2 bary(0.0f);
    // The tests' own bound is strict (t < tmax); give them one past any distance and
    // apply the bound here, where a tie can still count.
    if (!hit_prim<precise_spheres_of(kVariant)>(s.prim_tests, k, o, d, 3.4e38f, t,
                                                 alpha_masks_of(kVariant) ? &bary : nullptr))
        return false;
    if (!(t < h.t || (t == h.t && h.id >= 0 &&
                      (uint32_t(h.id) >= s.prim_count || prim_key(s.prims, int32_t(k)) < prim_key(s.prims, h.id)))))
        return false;
    if (alpha_masks_of(kVariant) && !alpha_opaque(s, k, bary)) return false;
    if (through_glass && glass_material(s, float_bits(load_f4(&s.prims[k].p0).w) & kPrimMaterialMask)) return false;
    h.t = t;
    h.id = int32_t(k);
    return true;
}

// min and max with fminf's rule for NaN (the other operand wins): on the device fminf,
// one FMNMX (a ternary compiles to a compare and a select, and the slab tests are
// mostly min and max); on the host the same rule spelled out (fminf is a libm call
// there). The two sides may differ in the sign of a zero result, which no comparison
// sees: min and max results are only ever compared.
SRT_HD_INLINE float min2(float a, float b) {
#if defined(__CUDA_ARCH__)
    return fminf(a, b);
#else
    return (a < b || b != b) ? a : b;
#endif
}
SRT_HD_INLINE float max2(float a, float b) {
#if defined(__CUDA_ARCH__)
    return fmaxf(a, b);
#else
    return (a > b || b != b) ? a : b;
#endif
}

// Box tests are conservative, so that which primitives a ray tests never depends on the
// order it meets them in, nor on the layout (the BVH2, BVH4 and BVH8 give the same hit,
// ties included):
// - A slab distance (lo - o) * inv is within gamma(3) of the exact one (three roundings),
//   so the far distance, grown by 1 + 2 gamma(3), is never below the exact box's (Ize,
//   "Robust BVH Ray Traversal", JCGT 2013; pbrt-v4's Bounds3::IntersectP). Its errors are
//   relative to the distance itself. (The one-fma form lo * inv - o * inv, measured
//   faster on its own, has an error relative to o * inv instead: covering it made the
//   flat boxes under a ray's origin, a floor's, look hit, and cost Sponza's shadow rays
//   43% on the H100.)
// - Boxes are culled against the hit so far grown by kCullSlack: a primitive at the same
//   distance as the hit so far (a tie, to be broken by id) or an ulp nearer sits on its
//   box's face, and the box's entry distance and the primitive test's distance round
//   differently.
constexpr float kBoxFarPad = 1.0000005f;            // > 1 + 2 gamma(3) = 1 + 3.6e-7
constexpr float kCullSlack = 1.000244140625f;       // 1 + 2^-12
constexpr float kQuantSlack = 4.76837158203125e-7f;  // 2^-21, for the BVH8's quantized planes
SRT_HD_INLINE float cull_distance(float t_hit) { return t_hit * kCullSlack; }

// Per-ray constants for slab tests. Zero direction components become +-1e-20 so
// that 0 * inf never makes a NaN.
struct RayInv {
    glm::vec3 inv;
    glm::vec3 o;
};
SRT_HD_INLINE RayInv make_ray_inv(const glm::vec3& o, const glm::vec3& d) {
    auto safe = [](float x) { return fabsf(x) > 1e-20f ? x : copysignf(1e-20f, x); };
    RayInv r;
    r.inv = glm::vec3(1.0f / safe(d.x), 1.0f / safe(d.y), 1.0f / safe(d.z));
    r.o = o;
    return r;
}

// Slab test of box [lo.x hi.x lo.y hi.y] (xy) and [lo.z hi.z] (z0, z1) against a ray
// culled at `tcull` (cull_distance); returns entry t.
SRT_HD_INLINE bool hit_box(const RayInv& r, const f4& xy, float z0, float z1, float tcull, float& tenter) {
    const float tx0 = (xy.x - r.o.x) * r.inv.x, tx1 = (xy.y - r.o.x) * r.inv.x;
    const float ty0 = (xy.z - r.o.y) * r.inv.y, ty1 = (xy.w - r.o.y) * r.inv.y;
    const float tz0 = (z0 - r.o.z) * r.inv.z, tz1 = (z1 - r.o.z) * r.inv.z;
    const float tn = max2(max2(min2(tx0, tx1), min2(ty0, ty1)), max2(min2(tz0, tz1), 0.0f));
    const float tf = min2(min2(max2(tx0, tx1), max2(ty0, ty1)), max2(tz0, tz1)) * kBoxFarPad;
    tenter = tn;
    return tn <= min2(tf, tcull);
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

// How many lanes of the warp are running this call; on the host a whole warp's worth,
// so that the host never postpones work for the sake of SIMT use (traverse_bvh8).
SRT_HD_INLINE uint32_t lanes_running() {
#if defined(__CUDA_ARCH__)
    return uint32_t(__popc(__activemask()));
#else
    return 32u;
#endif
}

// A traversal reference: >= 0 an inner node, < 0 a leaf packed as ~(first << 3 | count)
// (count <= kMaxLeafPrims < 8), kTraversalDone the bottom of the stack.
constexpr int32_t kTraversalDone = 0x7fffffff;
SRT_HD_INLINE int32_t child_ref(int32_t link, int32_t count) {
    return link >= 0 ? link : ~((~link << 3) | count);
}

// How many entries of each traversal's stack are in shared memory on the device
// (accel/traversal_stack.h): none, all are in local memory. Measured on the H100
// (old and new binary in one device call, 2026-11-23): with the first 32 bytes
// a thread in shared memory (8 entries of the BVH2's and BVH4's stacks, 4 node groups of
// the BVH8's) every frame was 0-3% slower, and Conference's primary intersect executed
// 3-5% more instructions (BVH8: 92.7 -> 97.1 M; 212 -> 217 us). The kernels are bound
// by instruction issue, and each push and pop then pays a shared-or-local branch and an
// address computation, while the local stack's few accesses a ray hit L1 anyway. Rays
// seldom need more than those 32 bytes: of Conference's primary rays (README camera, a
// 256x192 grid, counted on the CPU) the BVH2's stack (with its bottom marker) held no
// more than 8 entries for 95.6% and at most 15, the BVH4's no more than 8 for 96.1% and
// at most 16, and the BVH8's no more than 4 node groups for 98.6% and at most 7.
constexpr int kBvh2ShortStack = 0;
using Bvh2Stack = TraversalStack<int32_t, kBvhStackSize, kBvh2ShortStack>;
constexpr int kBvh4ShortStack = 0;
using Bvh4Stack = TraversalStack<int32_t, kBvh4StackSize, kBvh4ShortStack>;

// BVH traversal, "while-while" with postponed leaves (Aila & Laine 2009): each lane
// walks inner nodes until it has found a leaf, keeps that leaf aside and walks on,
// until every lane of the warp holds a leaf; then all lanes test their leaves together.
// That keeps the warp's lanes doing the same kind of work (box tests or primitive
// tests) at the same time. kAnyHit: stop at the first hit (shadow rays), testing each
// leaf as soon as it is found.
template <bool kAnyHit, int kVariant>
SRT_HD_INLINE Hit traverse_bvh2(const SceneView& s, const glm::vec3& o, const glm::vec3& d, Hit h,
                                 bool through_glass) {
    const RayInv r = make_ray_inv(o, d);
    Bvh2Stack::Spill spill;
    Bvh2Stack stack(spill);
    stack.push(kTraversalDone);
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
            if (kAnyHit ? leaf < 0 : !any_lane(leaf >= 0)) break;
        }
        // Leaves, all lanes together.
        while (leaf < 0) {
            const uint32_t packed = uint32_t(~leaf);
            const uint32_t first = packed >> 3, count = packed & 7u;
            for (uint32_t k = first; k < first + count; ++k)
                if (closer_prim<kVariant>(s, k, o, d, h, kAnyHit && through_glass) && kAnyHit) return h;
            leaf = node;  // the node in hand may be a leaf too
            if (node < 0) node = stack.pop();
        }
    }
    return h;
}

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
template <bool kAnyHit, int kVariant>
SRT_HD_INLINE Hit traverse_bvh4(const SceneView& s, const glm::vec3& o, const glm::vec3& d, Hit h,
                                 bool through_glass) {
    const RayInv r = make_ray_inv(o, d);
    Bvh4Stack::Spill spill;
    Bvh4Stack stack(spill);
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
            const float tcull = cull_distance(h.t);
            for (int k = 0; k < 4; ++k) {
                float t;
                if (refs[k] == kBvh4Empty ||
                    !hit_box(r, f4{lxs[k], hxs[k], lys[k], hys[k]}, lzs[k], hzs[k], tcull, t))
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
                for (int j = nh - 1; j > 0; --j) stack.push(hr[j]);  // the far ones wait, farthest deepest
                node = hr[0];
                continue;
            }
        } else {
            // A closest-hit lane alone in its warp on a leaf lets it wait under the next
            // inner node on the stack (kBvh4PostponeLanes).
            if (!kAnyHit && !stack.empty() && lanes_running() < kBvh4PostponeLanes) {
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
                if (closer_prim<kVariant>(s, k, o, d, h, kAnyHit && through_glass) && kAnyHit) return h;
        }
        if (stack.empty()) return h;
        node = stack.pop();
    }
}

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
template <bool kAnyHit, int kVariant>
SRT_HD_INLINE Hit traverse_bvh8(const SceneView& s, const glm::vec3& o, const glm::vec3& d, Hit h,
                                 bool through_glass) {
    const RayInv r = make_ray_inv(o, d);
    const uint32_t oct = (r.inv.x < 0.0f ? 1u : 0u) | (r.inv.y < 0.0f ? 2u : 0u) | (r.inv.z < 0.0f ? 4u : 0u);
    Bvh8Stack::Spill spill;
    Bvh8Stack stack(spill);
    // The root, as the one inner child (slot 0) of a parent whose children start at 0.
    Bvh8Group g{0u, (1u << (24u + oct)) | 1u};
    for (;;) {
        uint32_t prim_hits, prim_base;
        if (!kAnyHit && (g.base & kPrimGroupTag)) {  // a postponed primitive group
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
            if (!kAnyHit && (g.hits & 0xff000000u) && lanes_running() < kBvh8PostponeLanes) {
                stack.push(Bvh8Group{prim_base | kPrimGroupTag, prim_hits});
                break;
            }
            const uint32_t k = prim_base + uint32_t(lowest_bit(prim_hits));
            prim_hits &= prim_hits - 1u;
            if (closer_prim<kVariant>(s, k, o, d, h, kAnyHit && through_glass) && kAnyHit) return h;
        }
        if (!(g.hits & 0xff000000u)) {
            if (stack.empty()) return h;
            g = stack.pop();
        }
    }
}

// kWidth: which layout to walk, 2 (SceneView::nodes), 4 (SceneView::nodes4) or 8
// (SceneView::nodes8). A
// kernel is compiled for one width (the executors choose by the scene), so that it holds
// one traversal's code and registers, not both.
// `through_glass`: an any-hit ray that passes through dielectrics (Whitted's shadow rays
// in a frame with glass, render/ray_tree.h).
template <bool kAnyHit, int kWidth>
SRT_HD_INLINE Hit traverse(const SceneView& s, const glm::vec3& o, const glm::vec3& d, float tmax,
                           bool through_glass = false) {
    static_assert(bvh_of(kWidth) == 2 || bvh_of(kWidth) == 4 || bvh_of(kWidth) == 8, "BVH width 2, 4 or 8");
    Hit h{tmax, -1};
    // Planes first: they are few and often the nearest thing (floors, mirrors).
    for (uint32_t j = 0; j < s.plane_count; ++j) {
        const f4 pm = load_f4(&s.planes[j].point_mat);
        const f4 pn = load_f4(&s.planes[j].normal);
        float t;
        if (hit_plane(o, d, xyz(pm), xyz(pn), h.t, t)) {
            if (kAnyHit && through_glass && glass_material(s, float_bits(pm.w))) continue;
            h.t = t;
            h.id = int32_t(s.prim_count + j);
            if (kAnyHit) return h;
        }
    }
    if (s.node_count == 0) return h;
    if (bvh_of(kWidth) == 8) return traverse_bvh8<kAnyHit, kWidth>(s, o, d, h, through_glass);
    if (bvh_of(kWidth) == 4) return traverse_bvh4<kAnyHit, kWidth>(s, o, d, h, through_glass);
    return traverse_bvh2<kAnyHit, kWidth>(s, o, d, h, through_glass);
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
    return traverse<false, kWidth>(s, o, d, tmax);
}
template <int kWidth>
SRT_HD_INLINE bool occluded(const SceneView& s, const glm::vec3& o, const glm::vec3& d, float tmax,
                            bool through_glass = false) {
    return traverse<true, kWidth>(s, o, d, tmax, through_glass).id >= 0;
}
// The same, choosing the width per call (host code, tests).
SRT_HD_INLINE Hit intersect_closest(const SceneView& s, const glm::vec3& o, const glm::vec3& d, float tmax) {
    return with_bvh_width(s, [&](auto w) { return intersect_closest<decltype(w)::value>(s, o, d, tmax); });
}
SRT_HD_INLINE bool occluded(const SceneView& s, const glm::vec3& o, const glm::vec3& d, float tmax) {
    return with_bvh_width(s, [&](auto w) { return occluded<decltype(w)::value>(s, o, d, tmax); });
}

}  // namespace srt
