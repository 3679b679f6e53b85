// bvh8_build.cpp - the BVH2 collapsed into 8-wide quantized nodes (accel/bvh8.h).
#include "accel/bvh8.h"

#include "accel/collapse.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

namespace srt {
namespace {

using collapse::Entry;

// Per axis: the quantization step 2^(e - 127) as its biased exponent e, the smallest that
// puts `extent` within 255 steps.
uint8_t step_exponent(double extent) {
    int e = 1;  // 2^-126, the smallest normal float
    if (extent > 0.0) e = std::max(1, int(std::ceil(std::log2(extent / 255.0))) + 127);
    while (e < 239 && extent / std::ldexp(1.0, e - 127) > 255.0) ++e;
    // Traversal forms 2^15 steps as a float: e + 15 must stay a finite exponent.
    if (extent / std::ldexp(1.0, e - 127) > 255.0) throw std::length_error("BVH8: a node too large to quantize");
    return uint8_t(e);
}

class Collapser {
public:
    explicit Collapser(const std::vector<BvhNode>& bvh2, size_t prim_count)
        : in_(bvh2), new_pos_(prim_count, UINT32_MAX) {
        order_.reserve(prim_count);
    }

    // Fills out_[index] from BVH2 node `i` and, below it, the nodes of its subtree.
    void build(int32_t i, uint32_t index, uint32_t depth) {
        stats_.max_depth = std::max(stats_.max_depth, depth);
        std::vector<Entry> c = collapse::open_largest(in_, i, 8);
        float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};  // the node's box
        for (const Entry& e : c)
            for (int a = 0; a < 3; ++a) {
                lo[a] = std::min(lo[a], e.lo[a]);
                hi[a] = std::max(hi[a], e.hi[a]);
            }
        int in_slot[8];  // the child in slot s, or -1
        assign_slots(c, lo, hi, in_slot);

        Bvh8Node n{};
        n.px = float(lo[0]);
        n.py = float(lo[1]);
        n.pz = float(lo[2]);
        const double p[3] = {double(n.px), double(n.py), double(n.pz)};  // lo is a float: exact
        double step[3];
        for (int a = 0; a < 3; ++a) {
            n.e[a] = step_exponent(double(hi[a]) - p[a]);
            step[a] = std::ldexp(1.0, int(n.e[a]) - 127);
        }
        // Boxes, rounded outwards onto the grid (exact in double: a float plus a
        // multiple of a power of two).
        for (int s = 0; s < 8; ++s) {
            for (int a = 0; a < 3; ++a) {
                n.qlo[a][s] = 255;
                n.qhi[a][s] = 0;
            }
            if (in_slot[s] < 0) continue;
            const Entry& e = c[size_t(in_slot[s])];
            for (int a = 0; a < 3; ++a) {
                const double ql = std::floor((double(e.lo[a]) - p[a]) / step[a]);
                const double qh = std::ceil((double(e.hi[a]) - p[a]) / step[a]);
                if (ql < 0.0 || qh > 255.0 || ql > qh) throw std::logic_error("BVH8: a child box off its node's grid");
                n.qlo[a][s] = uint8_t(ql);
                n.qhi[a][s] = uint8_t(qh);
            }
        }
        // Leaf children: their primitives one after the other from prim_base.
        n.prim_base = uint32_t(order_.size());
        for (int s = 0; s < 8; ++s) {
            if (in_slot[s] < 0) continue;
            const Entry& e = c[size_t(in_slot[s])];
            if (e.inner()) continue;
            const uint32_t first = uint32_t(~e.link), offset = uint32_t(order_.size()) - n.prim_base;
            if (e.count < 1 || e.count > kBvh8LeafPrims || offset + uint32_t(e.count) > 32)
                throw std::logic_error("BVH8: a leaf outside its node's 32 primitives");
            n.meta[s] = uint8_t((uint32_t(e.count) << 5) | offset);
            for (int32_t k = 0; k < e.count; ++k) {
                new_pos_[first + uint32_t(k)] = uint32_t(order_.size());
                order_.push_back(first + uint32_t(k));
            }
            ++stats_.leaves;
        }
        // Inner children: a block of consecutive nodes, in slot order.
        n.child_base = uint32_t(out_.size());
        int inner = 0;
        for (int s = 0; s < 8; ++s)
            if (in_slot[s] >= 0 && c[size_t(in_slot[s])].inner()) {
                n.imask = uint8_t(n.imask | (1u << s));
                ++inner;
            }
        out_.resize(out_.size() + size_t(inner));
        out_[index] = n;
        uint32_t next = n.child_base;
        for (int s = 0; s < 8; ++s)
            if (in_slot[s] >= 0 && c[size_t(in_slot[s])].inner()) build(c[size_t(in_slot[s])].link, next++, depth + 1);
    }

    void root() {
        out_.resize(1);
        build(0, 0, 0);
    }
    std::vector<Bvh8Node> take_nodes() { return std::move(out_); }
    std::vector<uint32_t> take_order() { return std::move(order_); }
    const std::vector<uint32_t>& new_pos() const { return new_pos_; }
    const Bvh8Stats& stats() const { return stats_; }

private:
    // Each child to the slot whose diagonal best matches the direction from the centre of
    // the node's box [lo, hi] to the child's: greedily, the best remaining (child, slot)
    // pair first.
    static void assign_slots(const std::vector<Entry>& c, const float lo[3], const float hi[3], int in_slot[8]) {
        float cost[8][8];
        for (size_t i = 0; i < c.size(); ++i)
            for (int s = 0; s < 8; ++s) {
                float dot = 0.0f;
                for (int a = 0; a < 3; ++a) {
                    const float off = 0.5f * (c[i].lo[a] + c[i].hi[a]) - 0.5f * (lo[a] + hi[a]);
                    dot += (s >> a & 1) ? -off : off;
                }
                cost[i][s] = dot;
            }
        bool child_done[8] = {}, slot_done[8] = {};
        for (int s = 0; s < 8; ++s) in_slot[s] = -1;
        for (size_t round = 0; round < c.size(); ++round) {
            int bi = -1, bs = -1;
            for (size_t i = 0; i < c.size(); ++i)
                for (int s = 0; s < 8; ++s)
                    if (!child_done[i] && !slot_done[s] && (bi < 0 || cost[i][s] > cost[bi][bs])) {
                        bi = int(i);
                        bs = s;
                    }
            child_done[bi] = slot_done[bs] = true;
            in_slot[bs] = bi;
        }
    }

    const std::vector<BvhNode>& in_;
    std::vector<Bvh8Node> out_;
    std::vector<uint32_t> order_;    // new position -> BVH2 position
    std::vector<uint32_t> new_pos_;  // BVH2 position -> new position
    Bvh8Stats stats_;
};

}  // namespace

Bvh8 collapse_bvh8(std::vector<BvhNode>& bvh2, size_t prims) {
    const auto t0 = std::chrono::steady_clock::now();
    Bvh8 out;
    if (bvh2.empty()) return out;
    Collapser c(bvh2, prims);
    c.root();
    out.stats = c.stats();
    out.nodes = c.take_nodes();
    out.prim_order = c.take_order();
    if (out.prim_order.size() != prims) throw std::logic_error("BVH8: the leaves do not cover every primitive once");
    // The BVH2 over the new order: each leaf keeps its primitives, now elsewhere.
    const std::vector<uint32_t>& moved = c.new_pos();
    for (BvhNode& node : bvh2)
        for (int side = 0; side < 2; ++side)
            if (node.link[side] < 0 && node.link[2 + side] > 0) node.link[side] = ~int32_t(moved[size_t(~node.link[side])]);
    out.stats.nodes = uint32_t(out.nodes.size());
    // A node group and a primitive group a level wait on the traversal stack, whose
    // groups tag primitive groups with the top bit of an index.
    if (out.nodes.size() >= kPrimGroupTag || prims >= kPrimGroupTag)
        throw std::length_error("BVH8: more than 2^31 nodes or primitives");
    if (2 * (out.stats.max_depth + 1) > uint32_t(kBvh8StackSize))
        throw std::length_error("BVH8: depth " + std::to_string(out.stats.max_depth) + " needs more than " +
                                std::to_string(kBvh8StackSize) + " stack entries");
    out.stats.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

}  // namespace srt
