// bvh8_build.cpp - the BVH2 collapsed into 8-wide quantized nodes (accel/bvh8.h), on the
// host, by the steps of accel/bvh8_collapse.h that the GPU runs too.
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

Bvh8 collapse_bvh8(std::vector<BvhNode>& bvh2, size_t prims) {
    const auto t0 = std::chrono::steady_clock::now();
    Bvh8 out;
    if (bvh2.empty()) return out;
    using bvh8::Entry;
    // Step 1: the layout puts children after their parents, so the nodes in reverse
    // order are bottom up.
    const int32_t m = int32_t(bvh2.size());
    std::vector<bvh8::Count> counts(bvh2.size());
    Entry c[8];
    for (int32_t i = m - 1; i >= 0; --i) {
        for (int side = 0; side < 2; ++side)
            if (bvh2[size_t(i)].link[side] >= 0 && (bvh2[size_t(i)].link[side] <= i || bvh2[size_t(i)].link[side] >= m))
                throw std::logic_error("BVH8: the BVH2's children must follow their parents");
        const int n = collapse::open_largest(bvh2.data(), i, 8, c);
        counts[size_t(i)] = bvh8::count(c, n, [&counts](int32_t k) { return counts[size_t(k)]; });
    }
    // Step 2: every node's place is known from the counts; depth first here, level by
    // level on the GPU, to the same places.
    const bvh8::Count& root = counts[0];
    out.nodes.resize(size_t(root.nodes) + 1);
    out.prim_order.assign(root.prims, UINT32_MAX);
    out.stats.leaves = root.leaves;
    out.stats.max_depth = root.depth;
    uint32_t fault = 0;
    std::vector<bvh8::Task> stack{bvh8::Task{0, 0u, 1u, 0u}};
    while (!stack.empty()) {
        const bvh8::Task t = stack.back();
        stack.pop_back();
        const int n = collapse::open_largest(bvh2.data(), t.src, 8, c);
        int in_slot[8];
        Bvh8Node& node = out.nodes[t.pos];
        fault |= bvh8::encode(c, n, node, in_slot);
        bvh8::Task kids[8];
        const int nk = bvh8::place(c, in_slot, counts.data(), t, node, out.prim_order.data(), kids);
        for (int k = nk - 1; k >= 0; --k) stack.push_back(kids[k]);
    }
    check_bvh8(out, prims, fault);
    relink_bvh2(bvh2, out.prim_order);
    out.stats.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

}  // namespace srt
