// bvh_build.cpp - binned SAH build (Wald, "On fast Construction of SAH-based Bounding
// Volume Hierarchies", 2007) with spatial splits where objects overlap (Stich et al. 2009,
// accel/spatial_split.h), then flattening into the 64-byte two-box node layout.
#include "accel/bvh.h"
#include "accel/spatial_split.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <future>
#include <thread>
#include <chrono>
#include <cmath>
#include <cassert>

namespace srt {
namespace {

constexpr int kBins = 32;
static_assert(kBins <= kMaxSweepBins);
constexpr float kTraversalCost = 1.0f;   // relative to one primitive test
constexpr int kMedianSplitDepth = 32;    // beyond this, split by count: 32 + log2(2^31) < 64
// A spatial split is sought only where the best object split's children overlap by
// more than this fraction of the root's area (Stich et al.'s alpha): elsewhere the
// object split is as good, and the search is the build's cost.
constexpr float kSplitOverlap = 1e-5f;
// References may grow to about this many times the primitives; beyond, only object
// splits. The allowance is shared out down the tree in proportion to each side's
// references, so that the tree does not depend on the order in which subtrees are built;
// the split that uses up a subtree's share may overshoot it.
constexpr double kMaxReferences = 4.0;
// Subtrees of at least this many references are built on threads of their own.
constexpr size_t kParallelRefs = 4096;

using Box = BuildBox;

struct BuildNode {
    Box box;
    int left = -1, right = -1;  // build-node indices; -1 for a leaf
    uint32_t first = 0, count = 0;
    bool leaf() const { return left < 0; }
};

// A built subtree: its nodes (root first) and its leaves' references, in the order a
// depth-first walk meets them.
struct Subtree {
    std::vector<BuildNode> nodes;
    std::vector<uint32_t> order;
    uint32_t max_depth = 0;
    uint32_t spatial_splits = 0;

    // Appends `t` after this subtree's nodes and references; returns where its root went.
    int append(Subtree&& t) {
        const int base = int(nodes.size());
        const uint32_t first = uint32_t(order.size());
        for (BuildNode n : t.nodes) {
            if (n.leaf()) n.first += first;
            else n.left += base, n.right += base;
            nodes.push_back(n);
        }
        order.insert(order.end(), t.order.begin(), t.order.end());
        max_depth = std::max(max_depth, t.max_depth);
        spatial_splits += t.spatial_splits;
        return base;
    }
};

class Builder {
public:
    Builder(const std::vector<BuildPrim>& prims, const BvhBuildOptions& options)
        : prims_(prims), options_(options),
          threads_left_(int(std::max(1u, std::thread::hardware_concurrency())) - 1) {}

    // Builds the subtree over `refs` (which it frees) into `out`; `allowance` is how many
    // references its spatial splits may add.
    int build(Subtree& out, std::vector<BuildRef>& refs, uint32_t depth, size_t allowance) {
        const int index = int(out.nodes.size());
        out.nodes.emplace_back();
        Box box, cbox;
        for (const BuildRef& r : refs) {
            box.grow(r.box);
            cbox.grow(r.box.centre());
        }
        out.nodes[index].box = box;
        if (depth == 0) root_area_ = std::max(box.area(), 1e-30f);
        out.max_depth = std::max(out.max_depth, depth);

        std::vector<BuildRef> left, right;
        uint32_t cut = 0;
        if (refs.size() > 1 && split(box, cbox, refs, depth, allowance, left, right, cut)) {
            out.spatial_splits += cut > 0;
            std::vector<BuildRef>().swap(refs);  // free before the subtrees grow theirs
            const size_t rest = allowance - std::min(allowance, size_t(cut));
            const size_t left_share = size_t(double(rest) * double(left.size()) / double(left.size() + right.size()));
            int l, r;
            if (right.size() >= kParallelRefs && take_thread()) {
                Subtree rt;
                auto other = std::async(std::launch::async, [&] { build(rt, right, depth + 1, rest - left_share); });
                l = build(out, left, depth + 1, left_share);
                other.get();
                threads_left_.fetch_add(1);
                r = out.append(std::move(rt));
            } else {
                l = build(out, left, depth + 1, left_share);
                r = build(out, right, depth + 1, rest - left_share);
            }
            out.nodes[index].left = l;
            out.nodes[index].right = r;
        } else {
            out.nodes[index].first = uint32_t(out.order.size());
            out.nodes[index].count = uint32_t(refs.size());
            for (const BuildRef& r : refs) out.order.push_back(r.prim);
        }
        return index;
    }

    size_t initial_allowance() const {
        return options_.spatial_splits ? size_t((kMaxReferences - 1.0) * double(prims_.size())) : 0;
    }

private:
    // Chooses a split and deals the references to its sides; returns false to make a leaf.
    bool split(const Box& box, const Box& cbox, std::vector<BuildRef>& refs, uint32_t depth, size_t allowance,
               std::vector<BuildRef>& left, std::vector<BuildRef>& right, uint32_t& cut) {
        const uint32_t count = uint32_t(refs.size());
        const glm::vec3 extent = cbox.hi - cbox.lo;
        int axis = 0;
        if (extent.y > extent[axis]) axis = 1;
        if (extent.z > extent[axis]) axis = 2;

        const auto deal = [&](std::vector<BuildRef>::iterator mid) {
            left.assign(refs.begin(), mid);
            right.assign(mid, refs.end());
            return true;
        };
        auto median_split = [&]() {
            const auto mid = refs.begin() + count / 2;
            std::nth_element(refs.begin(), mid, refs.end(), [&](const BuildRef& a, const BuildRef& b) {
                return a.box.centre()[axis] < b.box.centre()[axis];
            });
            return deal(mid);
        };
        if (extent[axis] <= 0.0f) {
            // All centroids coincide: SAH cannot separate them. Split by count only
            // when a leaf would be too big.
            return count > uint32_t(kMaxLeafPrims) ? median_split() : false;
        }
        if (depth >= kMedianSplitDepth) return median_split();

        // Binned SAH over all three axes, on the references' centroids.
        float best_cost = 1e30f;
        int best_axis = -1, best_bin = -1;
        Box best_left, best_right;
        // One pass over the references bins them on all three axes.
        std::array<std::array<Box, kBins>, 3> bins{};
        std::array<std::array<uint32_t, kBins>, 3> counts{};
        const glm::vec3 scale = float(kBins) / glm::max(extent, glm::vec3(1e-30f));
        for (const BuildRef& r : refs) {
            const glm::vec3 c = r.box.centre();
            for (int a = 0; a < 3; ++a) {
                const int b = std::min(kBins - 1, int((c[a] - cbox.lo[a]) * scale[a]));
                counts[size_t(a)][size_t(b)]++;
                bins[size_t(a)][size_t(b)].grow(r.box);
            }
        }
        for (int a = 0; a < 3; ++a) {
            if (extent[a] <= 0.0f) continue;
            const std::array<Box, kBins>& bin_box = bins[size_t(a)];
            const std::array<uint32_t, kBins>& bin_count = counts[size_t(a)];
            const SahSweep sw = sweep_bins(bin_box.data(), bin_count.data(), bin_count.data(), kBins);
            if (sw.plane >= 0 && sw.cost < best_cost) {
                best_cost = sw.cost;
                best_axis = a;
                best_bin = sw.plane - 1;
                best_left = sw.left;
                best_right = sw.right;
            }
        }
        // A spatial split, where the object split's children overlap.
        SpatialSplit spatial;
        if (allowance > 0 && best_axis >= 0 && intersection(best_left, best_right).area() > kSplitOverlap * root_area_) {
            spatial = find_spatial_split(prims_, box, refs);
        }

        const float cost = std::min(best_cost, spatial.cost());
        const float leaf_cost = float(count);
        const float split_cost = kTraversalCost + cost / std::max(box.area(), 1e-30f);
        if (best_axis < 0 && spatial.axis < 0) return count > uint32_t(kMaxLeafPrims) ? median_split() : false;
        if (count <= uint32_t(kMaxLeafPrims) && split_cost >= leaf_cost) return false;

        if (spatial.cost() < best_cost) {
            cut = partition_spatial(prims_, spatial, refs, left, right);
            if (!left.empty() && !right.empty()) return true;
            cut = 0;
            if (best_axis < 0) return median_split();
        }

        const float lo = cbox.lo[best_axis];
        const auto mid = std::partition(refs.begin(), refs.end(), [&](const BuildRef& r) {
            const int b = std::min(kBins - 1, int((r.box.centre()[best_axis] - lo) * scale[best_axis]));
            return b <= best_bin;
        });
        if (mid == refs.begin() || mid == refs.end()) {
            axis = best_axis;
            return median_split();
        }
        return deal(mid);
    }

    bool take_thread() {
        if (threads_left_.fetch_sub(1) > 0) return true;
        threads_left_.fetch_add(1);
        return false;
    }

    const std::vector<BuildPrim>& prims_;
    const BvhBuildOptions options_;
    std::atomic<int> threads_left_;
    float root_area_ = 1.0f;
};

void set_child(BvhNode& n, int side, const Box& b, int32_t link, int32_t count) {
    set_bvh_child(n, side, b.lo, b.hi, link, count);
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

Bvh build_bvh(const std::vector<BuildPrim>& prims, const BvhBuildOptions& options) {
    if (options.builder == BvhBuilder::Ploc) return build_bvh_ploc(prims, options.device);
    const auto t0 = std::chrono::steady_clock::now();
    Bvh bvh;
    if (prims.empty()) return bvh;

    Builder b(prims, options);
    Subtree tree;
    {
        std::vector<BuildRef> refs(prims.size());
        for (size_t i = 0; i < prims.size(); ++i) refs[i] = BuildRef{Box{prims[i].lo, prims[i].hi}, uint32_t(i)};
        tree.nodes.reserve(2 * prims.size());
        b.build(tree, refs, 0, b.initial_allowance());
    }
    bvh.order = std::move(tree.order);
    const std::vector<BuildNode>& bn = tree.nodes;

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
    st.max_depth = tree.max_depth;
    st.primitives = uint32_t(prims.size());
    st.references = uint32_t(bvh.order.size());
    st.spatial_splits = tree.spatial_splits;
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
