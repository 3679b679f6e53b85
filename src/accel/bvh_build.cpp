// bvh_build.cpp - binned SAH build (Wald, "On fast Construction of SAH-based Bounding
// Volume Hierarchies", 2007), then flattening into the 64-byte two-box node layout.
#include "accel/bvh.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cassert>

namespace srt {
namespace {

constexpr int kBins = 32;
constexpr float kTraversalCost = 1.0f;   // relative to one primitive test
constexpr int kMedianSplitDepth = 32;    // beyond this, split by count: 32 + log2(2^31) < 64

struct Box {
    glm::vec3 lo{1e30f}, hi{-1e30f};
    void grow(const glm::vec3& p) { lo = glm::min(lo, p); hi = glm::max(hi, p); }
    void grow(const Box& b) { lo = glm::min(lo, b.lo); hi = glm::max(hi, b.hi); }
    float area() const {
        if (lo.x > hi.x) return 0.0f;
        const glm::vec3 d = hi - lo;
        return 2.0f * (d.x * d.y + d.y * d.z + d.z * d.x);
    }
};

struct BuildNode {
    Box box;
    int left = -1, right = -1;  // build-node indices; -1 for a leaf
    uint32_t first = 0, count = 0;
    bool leaf() const { return left < 0; }
};

class Builder {
public:
    explicit Builder(const std::vector<BuildPrim>& prims) : prims_(prims) {
        const size_t n = prims.size();
        order_.resize(n);
        centroid_.resize(n);
        for (size_t i = 0; i < n; ++i) {
            order_[i] = uint32_t(i);
            centroid_[i] = 0.5f * (prims[i].lo + prims[i].hi);
        }
        nodes_.reserve(2 * n);
    }

    int build(uint32_t first, uint32_t count, uint32_t depth) {
        const int index = int(nodes_.size());
        nodes_.emplace_back();
        Box box, cbox;
        for (uint32_t k = first; k < first + count; ++k) {
            const BuildPrim& p = prims_[order_[k]];
            box.grow(Box{p.lo, p.hi});
            cbox.grow(centroid_[order_[k]]);
        }
        nodes_[index].box = box;
        max_depth_ = std::max(max_depth_, depth);

        uint32_t mid = first;
        if (count > 1 && split(box, cbox, first, count, depth, mid)) {
            const int l = build(first, mid - first, depth + 1);
            const int r = build(mid, first + count - mid, depth + 1);
            nodes_[index].left = l;
            nodes_[index].right = r;
        } else {
            nodes_[index].first = first;
            nodes_[index].count = count;
        }
        return index;
    }

    std::vector<BuildNode> nodes_;
    std::vector<uint32_t> order_;
    uint32_t max_depth_ = 0;

private:
    // Chooses a split; returns false to make a leaf. `mid` is the partition point.
    bool split(const Box& box, const Box& cbox, uint32_t first, uint32_t count, uint32_t depth,
               uint32_t& mid) {
        const glm::vec3 extent = cbox.hi - cbox.lo;
        int axis = 0;
        if (extent.y > extent[axis]) axis = 1;
        if (extent.z > extent[axis]) axis = 2;

        auto median_split = [&]() {
            mid = first + count / 2;
            std::nth_element(order_.begin() + first, order_.begin() + mid,
                             order_.begin() + first + count, [&](uint32_t a, uint32_t b) {
                                 return centroid_[a][axis] < centroid_[b][axis];
                             });
            return true;
        };
        if (extent[axis] <= 0.0f) {
            // All centroids coincide: SAH cannot separate them. Split by count only
            // when a leaf would be too big.
            return count > uint32_t(kMaxLeafPrims) ? median_split() : false;
        }
        if (depth >= kMedianSplitDepth) return median_split();

        // Binned SAH over all three axes.
        float best_cost = 1e30f;
        int best_axis = -1, best_bin = -1;
        for (int a = 0; a < 3; ++a) {
            if (extent[a] <= 0.0f) continue;
            std::array<Box, kBins> bin_box{};
            std::array<uint32_t, kBins> bin_count{};
            const float scale = float(kBins) / extent[a];
            for (uint32_t k = first; k < first + count; ++k) {
                const uint32_t p = order_[k];
                const int b = std::min(kBins - 1, int((centroid_[p][a] - cbox.lo[a]) * scale));
                bin_count[b]++;
                bin_box[b].grow(Box{prims_[p].lo, prims_[p].hi});
            }
            // Sweep from the right, then from the left.
            std::array<float, kBins> right_area{};
            std::array<uint32_t, kBins> right_count{};
            Box acc;
            uint32_t n = 0;
            for (int b = kBins - 1; b > 0; --b) {
                acc.grow(bin_box[b]);
                n += bin_count[b];
                right_area[b] = acc.area();
                right_count[b] = n;
            }
            acc = Box{};
            n = 0;
            for (int b = 0; b < kBins - 1; ++b) {
                acc.grow(bin_box[b]);
                n += bin_count[b];
                if (n == 0 || right_count[b + 1] == 0) continue;
                const float cost = acc.area() * float(n) + right_area[b + 1] * float(right_count[b + 1]);
                if (cost < best_cost) {
                    best_cost = cost;
                    best_axis = a;
                    best_bin = b;
                }
            }
        }
        const float leaf_cost = float(count);
        const float split_cost = kTraversalCost + best_cost / std::max(box.area(), 1e-30f);
        if (best_axis < 0) return count > uint32_t(kMaxLeafPrims) ? median_split() : false;
        if (count <= uint32_t(kMaxLeafPrims) && split_cost >= leaf_cost) return false;

        const float scale = float(kBins) / extent[best_axis];
        const float lo = cbox.lo[best_axis];
        auto it = std::partition(order_.begin() + first, order_.begin() + first + count,
                                 [&](uint32_t p) {
                                     const int b = std::min(kBins - 1,
                                                            int((centroid_[p][best_axis] - lo) * scale));
                                     return b <= best_bin;
                                 });
        mid = uint32_t(it - order_.begin());
        if (mid == first || mid == first + count) {
            axis = best_axis;
            return median_split();
        }
        return true;
    }

    const std::vector<BuildPrim>& prims_;
    std::vector<glm::vec3> centroid_;
};

void set_child(BvhNode& n, int side, const Box& b, int32_t link, int32_t count) {
    f4& xy = side == 0 ? n.lxy : n.rxy;
    xy = {b.lo.x, b.hi.x, b.lo.y, b.hi.y};
    if (side == 0) {
        n.lrz.x = b.lo.z;
        n.lrz.y = b.hi.z;
    } else {
        n.lrz.z = b.lo.z;
        n.lrz.w = b.hi.z;
    }
    n.link[side] = link;
    n.link[2 + side] = count;
}

// Emits build node `bi` (an inner node) and its subtree; returns its flat index.
int flatten(const std::vector<BuildNode>& bn, int bi, std::vector<BvhNode>& out) {
    const int index = int(out.size());
    out.emplace_back();
    const int kids[2] = {bn[bi].left, bn[bi].right};
    for (int side = 0; side < 2; ++side) {
        const BuildNode& c = bn[kids[side]];
        if (c.leaf()) {
            set_child(out[index], side, c.box, ~int32_t(c.first), int32_t(c.count));
        } else {
            const int child = flatten(bn, kids[side], out);
            set_child(out[index], side, c.box, child, 0);
        }
    }
    return index;
}

}  // namespace

Bvh build_bvh(const std::vector<BuildPrim>& prims) {
    const auto t0 = std::chrono::steady_clock::now();
    Bvh bvh;
    if (prims.empty()) return bvh;

    Builder b(prims);
    b.build(0, uint32_t(prims.size()), 0);
    bvh.order = std::move(b.order_);
    const std::vector<BuildNode>& bn = b.nodes_;

    if (bn[0].leaf()) {
        // A single leaf (the whole scene is <= kMaxLeafPrims primitives): wrap it in one
        // node whose right slot is an empty leaf (count 0). Its box is stored inverted, but
        // the min/max slab test makes that an all-space box, so rays visit the empty leaf
        // and test nothing there: harmless (accel/bvh.h).
        bvh.nodes.emplace_back();
        set_child(bvh.nodes[0], 0, bn[0].box, ~int32_t(0), int32_t(bn[0].count));
        set_child(bvh.nodes[0], 1, Box{}, ~int32_t(0), 0);
    } else {
        flatten(bn, 0, bvh.nodes);
    }

    BvhBuildStats& st = bvh.stats;
    st.nodes = uint32_t(bvh.nodes.size());
    st.max_depth = b.max_depth_;
    const float root_area = std::max(bn[0].box.area(), 1e-30f);
    for (const BuildNode& n : bn) {
        if (n.leaf()) {
            st.leaves++;
            st.max_leaf_size = std::max(st.max_leaf_size, n.count);
            st.sah_cost += double(n.box.area() / root_area) * double(n.count);
        } else {
            st.sah_cost += double(n.box.area() / root_area) * double(kTraversalCost);
        }
    }
    st.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    assert(st.max_depth < uint32_t(kBvhStackSize));
    return bvh;
}

}  // namespace srt
