// bvh4_build.cpp - the BVH2 collapsed into four-wide nodes (accel/bvh4.h) on the host:
// depth first; and the GPU's steps (accel/bvh4_collapse.h: counts, then places) run
// here, for the tests that hold the two to the same nodes.
#include "accel/bvh4.h"

#include "accel/bvh4_collapse.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

namespace srt {
namespace {

using collapse::Entry;

class Collapser {
public:
    explicit Collapser(const std::vector<BvhNode>& bvh2) : in_(bvh2) {}

    // The BVH4 node for BVH2 node `i`; returns its index. `depth`: of the new node.
    int32_t build(int32_t i, uint32_t depth, uint32_t& stack_need) {
        Entry c[8];
        const int count = collapse::open_largest(in_.data(), i, 4, c);
        const int32_t index = int32_t(out_.size());
        out_.emplace_back();
        stats_.max_depth = std::max(stats_.max_depth, depth);
        int32_t ref[4] = {kBvh4Empty, kBvh4Empty, kBvh4Empty, kBvh4Empty};
        uint32_t deepest = 0;  // the most stack any child subtree needs
        for (int k = 0; k < count; ++k) {
            if (c[k].inner()) {
                uint32_t need = 0;
                ref[k] = build(c[k].link, depth + 1, need);
                deepest = std::max(deepest, need);
            } else {
                ++stats_.leaves;
                ref[k] = bvh4::leaf_ref(c[k]);
            }
        }
        // A ray here pushes every hit child but the nearest.
        stack_need = uint32_t(count > 0 ? count - 1 : 0) + deepest;
        out_[size_t(index)] = bvh4::make_node(c, count, ref);
        return index;
    }

    std::vector<Bvh4Node> take() { return std::move(out_); }
    Bvh4Stats& stats() { return stats_; }

private:
    const std::vector<BvhNode>& in_;
    std::vector<Bvh4Node> out_;
    Bvh4Stats stats_;
};

}  // namespace

void check_bvh4(Bvh4& b4) {
    b4.stats.nodes = uint32_t(b4.nodes.size());
    if (b4.stats.max_stack > uint32_t(kBvh4StackSize))
        throw std::length_error("BVH4: a traversal could need " + std::to_string(b4.stats.max_stack) +
                                " stack entries, more than " + std::to_string(kBvh4StackSize));
}

Bvh4 collapse_bvh4(const std::vector<BvhNode>& bvh2) {
    const auto t0 = std::chrono::steady_clock::now();
    Bvh4 out;
    if (bvh2.empty()) return out;
    Collapser c(bvh2);
    uint32_t need = 0;
    c.build(0, 0, need);
    out.stats = c.stats();
    out.nodes = c.take();
    out.stats.max_stack = need + 1;  // + the bottom-of-stack marker
    check_bvh4(out);
    out.stats.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

Bvh4 collapse_bvh4_by_counts(const std::vector<BvhNode>& bvh2) {
    Bvh4 out;
    if (bvh2.empty()) return out;
    // Step 1: every BVH2 node's count.
    const std::vector<bvh4::Count> counts = collapse::counts_bottom_up<bvh4::Count>(
        bvh2, 4, [](const collapse::AreaEntry* c, int n, auto load) { return bvh4::count(c, n, load); });
    // Step 2: every node's place follows from the counts, in any order (the GPU's is a
    // level at a time).
    const bvh4::Count& root = counts[0];
    out.nodes.resize(size_t(root.nodes) + 1);
    out.stats.leaves = root.leaves;
    out.stats.max_depth = root.depth;
    out.stats.max_stack = root.stack + 1;
    std::vector<bvh4::Task> todo{bvh4::Task{0, 0u}};
    while (!todo.empty()) {
        const bvh4::Task t = todo.back();
        todo.pop_back();
        Entry c[8];
        const int n = collapse::open_largest(bvh2.data(), t.src, 4, c);
        int32_t ref[4];
        bvh4::place(c, n, t, counts, ref, [&todo](int, const bvh4::Task& kid) { todo.push_back(kid); });
        out.nodes[t.pos] = bvh4::make_node(c, n, ref);
    }
    check_bvh4(out);
    return out;
}

}  // namespace srt
