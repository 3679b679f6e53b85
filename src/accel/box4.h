// box4.h - boxes in SSE registers, for the builder's passes over every reference
// (accel/bvh_build.cpp's binning, partitioning and bounds; accel/spatial_split.cpp's
// search). A box grows as BuildBox::grow grows it, bit for bit: glm::min(a, b) is
// (b < a) ? b : a, which is minps(b, a), the signs of zeros included; glm::max(a, b) is
// (a < b) ? b : a, maxps(b, a). The fourth lane is unused.
#pragma once

#include "accel/spatial_split.h"

#include <immintrin.h>

#include <cstddef>

namespace srt {

struct Box4 {
    __m128 lo = _mm_set1_ps(1e30f), hi = _mm_set1_ps(-1e30f);
    void grow(__m128 l, __m128 h) {
        lo = _mm_min_ps(l, lo);
        hi = _mm_max_ps(h, hi);
    }
    void grow(__m128 p) { grow(p, p); }
    void grow(const Box4& b) { grow(b.lo, b.hi); }
    // Empty as BuildBox::empty is: lo above hi on an axis.
    bool empty() const { return (_mm_movemask_ps(_mm_cmpgt_ps(lo, hi)) & 7) != 0; }
    BuildBox box() const {
        alignas(16) float l[4], h[4];
        _mm_store_ps(l, lo);
        _mm_store_ps(h, hi);
        return BuildBox{glm::vec3(l[0], l[1], l[2]), glm::vec3(h[0], h[1], h[2])};
    }
};
// A reference's box corners: lo.xyz and hi.x; hi.xyz and the prim index (BuildRef's 28
// bytes, read within the reference).
static_assert(sizeof(BuildRef) == 28 && offsetof(BuildRef, box) == 0 && sizeof(BuildBox) == 24);
inline __m128 ref_lo(const BuildRef& r) { return _mm_loadu_ps(&r.box.lo.x); }
inline __m128 ref_hi(const BuildRef& r) { return _mm_loadu_ps(&r.box.hi.x); }
// Nodes of at least this many references bin into two sets of boxes, the even references
// into one and the odd into the other, merged after: neighbours tend to fall in one bin,
// whose box would wait on the last one's update (bvh_build.cpp's object binning,
// spatial_split.cpp's search). A smaller node spends more clearing the second set.
constexpr size_t kTwoBinSets = 256;
// BuildBox::area, bit for bit: 2 * ((dx dy + dy dz) + dz dx), each product and sum
// rounded as the scalar code rounds it (the build compiles with -ffp-contract=off).
inline float area4(const Box4& b) {
    if (b.empty()) return 0.0f;
    const __m128 d = _mm_sub_ps(b.hi, b.lo);
    const __m128 p = _mm_mul_ps(d, _mm_shuffle_ps(d, d, _MM_SHUFFLE(3, 0, 2, 1)));  // dx dy, dy dz, dz dx
    const __m128 s = _mm_add_ss(_mm_add_ss(p, _mm_shuffle_ps(p, p, _MM_SHUFFLE(3, 2, 1, 1))),
                                _mm_shuffle_ps(p, p, _MM_SHUFFLE(3, 2, 1, 2)));
    return 2.0f * _mm_cvtss_f32(s);
}
// The SAH's sweep (SahSweep, accel/spatial_split.h) over `bins` bins' boxes, enter and
// leave counts (bins <= kMaxSweepBins; a bin that holds nothing keeps Box4's empty box).
SahSweep sweep_bins(const Box4* box, const uint32_t* enter, const uint32_t* leave, int bins);
// BuildBox::centre, 0.5f * (lo + hi), lane by lane.
inline __m128 centre4(__m128 lo, __m128 hi) { return _mm_mul_ps(_mm_add_ps(lo, hi), _mm_set1_ps(0.5f)); }

}  // namespace srt
