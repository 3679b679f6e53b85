// bvh4_build.cpp - the BVH2 collapsed into four-wide nodes (accel/bvh4.h).
#include "accel/bvh4.h"

#include "accel/collapse.h"

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
        float lo[3][4], hi[3][4];
        int32_t ref[4];
        uint32_t deepest = 0;  // the most stack any child subtree needs
        for (int k = 0; k < 4; ++k) {
            if (k >= count) {
                for (int a = 0; a < 3; ++a) {
                    lo[a][k] = 1e30f;
                    hi[a][k] = -1e30f;
                }
                ref[k] = kBvh4Empty;
                continue;
            }
            const Entry& e = c[k];
            for (int a = 0; a < 3; ++a) {
                lo[a][k] = e.lo[a];
                hi[a][k] = e.hi[a];
            }
            if (e.inner()) {
                uint32_t need = 0;
                ref[k] = build(e.link, depth + 1, need);
                deepest = std::max(deepest, need);
            } else {
                ++stats_.leaves;
                ref[k] = ~((int32_t(~e.link) << 3) | e.count);
            }
        }
        // A ray here pushes every hit child but the nearest.
        stack_need = uint32_t(count > 0 ? count - 1 : 0) + deepest;
        Bvh4Node& n = out_[size_t(index)];
        n.lo_x = f4{lo[0][0], lo[0][1], lo[0][2], lo[0][3]};
        n.hi_x = f4{hi[0][0], hi[0][1], hi[0][2], hi[0][3]};
        n.lo_y = f4{lo[1][0], lo[1][1], lo[1][2], lo[1][3]};
        n.hi_y = f4{hi[1][0], hi[1][1], hi[1][2], hi[1][3]};
        n.lo_z = f4{lo[2][0], lo[2][1], lo[2][2], lo[2][3]};
        n.hi_z = f4{hi[2][0], hi[2][1], hi[2][2], hi[2][3]};
        for (int k = 0; k < 4; ++k) {
            n.child[k] = ref[k];
            n.pad[k] = 0;
        }
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

Bvh4 collapse_bvh4(const std::vector<BvhNode>& bvh2) {
    const auto t0 = std::chrono::steady_clock::now();
    Bvh4 out;
    if (bvh2.empty()) return out;
    Collapser c(bvh2);
    uint32_t need = 0;
    c.build(0, 0, need);
    out.stats = c.stats();
    out.nodes = c.take();
    out.stats.nodes = uint32_t(out.nodes.size());
    out.stats.max_stack = need + 1;  // + the bottom-of-stack marker
    if (out.stats.max_stack > uint32_t(kBvh4StackSize))
        throw std::length_error("BVH4: a traversal could need " + std::to_string(out.stats.max_stack) +
                                " stack entries, more than " + std::to_string(kBvh4StackSize));
    out.stats.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

}  // namespace srt
