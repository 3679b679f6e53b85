// bvh8_build.cpp - the BVH2 collapsed into 8-wide quantized nodes (accel/bvh8.h) on the
// host: depth first, opening only the BVH2 nodes that become wide nodes; and the GPU's
// steps (accel/bvh8_collapse.h: counts, then places) run here, for the tests that hold
// the two to the same nodes.
#include "accel/bvh8.h"

#include "accel/bvh8_collapse.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

namespace srt {

namespace {

void check_fault(uint32_t fault) {
    if (fault & bvh8::kTooLarge) throw std::length_error("BVH8: a node too large to quantize");
    if (fault & bvh8::kOffGrid) throw std::logic_error("BVH8: a child box off its node's grid");
    if (fault & bvh8::kLeafOverflow) throw std::logic_error("BVH8: a leaf outside its node's 32 primitives");
}

}  // namespace

void check_bvh8(Bvh8& b8, size_t prims, uint32_t fault) {
    check_fault(fault);
    if (b8.prim_order.size() != prims || std::find(b8.prim_order.begin(), b8.prim_order.end(), UINT32_MAX) != b8.prim_order.end())
        throw std::logic_error("BVH8: the leaves do not cover every primitive once");
    b8.stats.nodes = uint32_t(b8.nodes.size());
    // A node group and a primitive group a level wait on the traversal stack, whose
    // groups tag primitive groups with the top bit of an index.
    if (b8.nodes.size() >= kPrimGroupTag || prims >= kPrimGroupTag)
        throw std::length_error("BVH8: more than 2^31 nodes or primitives");
    if (2 * (b8.stats.max_depth + 1) > uint32_t(kBvh8StackSize))
        throw std::length_error("BVH8: depth " + std::to_string(b8.stats.max_depth) + " needs more than " +
                                std::to_string(kBvh8StackSize) + " stack entries");
}

void relink_bvh2(std::vector<BvhNode>& bvh2, const std::vector<uint32_t>& prim_order) {
    std::vector<uint32_t> moved(prim_order.size());
    for (size_t k = 0; k < prim_order.size(); ++k) moved[prim_order[k]] = uint32_t(k);
    for (BvhNode& node : bvh2)
        for (int side = 0; side < 2; ++side)
            if (node.link[side] < 0 && node.link[2 + side] > 0) node.link[side] = ~int32_t(moved[size_t(~node.link[side])]);
}

namespace {

using bvh8::Entry;

// Depth first, as the places are defined (accel/bvh8_collapse.h): a node's block of
// inner children is the next free place when the node is made, its leaves' primitives
// the next free positions. Only the wide nodes' BVH2 nodes are opened.
class DepthFirst {
public:
    DepthFirst(const std::vector<BvhNode>& bvh2, Bvh8& out) : bvh2_(bvh2), out_(out) {}

    void node(int32_t src, uint32_t pos, uint32_t depth) {
        out_.stats.max_depth = std::max(out_.stats.max_depth, depth);
        Entry c[8];
        const int n = collapse::open_largest(bvh2_.data(), src, 8, c);
        Entry by_slot[8];
        Bvh8Node node;
        fault |= bvh8::encode(c, n, node, by_slot);
        node.prim_base = uint32_t(out_.prim_order.size());
        int32_t inner[8];
        uint32_t n_inner = 0;
        for (int s = 0; s < 8; ++s) {
            const Entry& e = by_slot[s];
            if (e.inner()) {
                inner[n_inner++] = e.link;
                continue;
            }
            const uint32_t count = node.meta[s] >> 5;  // 0: an empty slot
            if (count == 0) continue;
            ++out_.stats.leaves;
            for (uint32_t k = 0; k < count; ++k) out_.prim_order.push_back(uint32_t(~e.link) + k);
        }
        node.child_base = uint32_t(out_.nodes.size());
        out_.nodes.resize(out_.nodes.size() + n_inner);
        out_.nodes[pos] = node;
        for (uint32_t k = 0; k < n_inner; ++k) this->node(inner[k], node.child_base + k, depth + 1);
    }

    uint32_t fault = 0;

private:
    const std::vector<BvhNode>& bvh2_;
    Bvh8& out_;
};

}  // namespace

Bvh8 collapse_bvh8(std::vector<BvhNode>& bvh2, size_t prims) {
    const auto t0 = std::chrono::steady_clock::now();
    Bvh8 out;
    if (bvh2.empty()) return out;
    out.prim_order.reserve(prims);
    out.nodes.resize(1);
    DepthFirst walk(bvh2, out);
    walk.node(0, 0, 0);
    check_bvh8(out, prims, walk.fault);
    relink_bvh2(bvh2, out.prim_order);
    out.stats.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

Bvh8 collapse_bvh8_by_counts(const std::vector<BvhNode>& bvh2, size_t prims) {
    Bvh8 out;
    if (bvh2.empty()) return out;
    // Step 1: every BVH2 node's count.
    const std::vector<bvh8::Count> counts = collapse::counts_bottom_up<bvh8::Count>(
        bvh2, 8, [](const collapse::AreaEntry* c, int n, auto load) { return bvh8::count(c, n, load); });
    // Step 2: every node's place follows from the counts, in any order (the GPU's is a
    // level at a time).
    const bvh8::Count& root = counts[0];
    out.nodes.resize(size_t(root.nodes) + 1);
    out.prim_order.assign(root.prims, UINT32_MAX);
    out.stats.leaves = root.leaves;
    out.stats.max_depth = root.depth;
    uint32_t fault = 0;
    std::vector<bvh8::Task> todo{bvh8::Task{0, 0u, 1u, 0u}};
    while (!todo.empty()) {
        const bvh8::Task t = todo.back();
        todo.pop_back();
        Entry c[8];
        const int n = collapse::open_largest(bvh2.data(), t.src, 8, c);
        Entry by_slot[8];
        Bvh8Node& node = out.nodes[t.pos];
        fault |= bvh8::encode(c, n, node, by_slot);
        bvh8::place(by_slot, counts.data(), t, node, out.prim_order.data(),
                    [&todo](int, const bvh8::Task& kid) { todo.push_back(kid); });
    }
    check_bvh8(out, prims, fault);
    return out;
}

}  // namespace srt
