// bvh_build.cpp - binned SAH build (Wald, "On fast Construction of SAH-based Bounding
// Volume Hierarchies", 2007) with spatial splits where objects overlap (Stich et al. 2009,
// accel/spatial_split.h), then flattening into the 64-byte two-box node layout.
#include "core/parallel.h"
#include "accel/bvh.h"
#include "accel/box4.h"
#include "accel/spatial_split.h"

#include <algorithm>
#include <array>
#include <cstddef>
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

// Nodes of at most this many references touch only the bins they fall in (sweep_few),
// rather than clear and sweep 32 bins an axis: most nodes are near the leaves. (32 and
// 64 measured no faster: a large node's bins are mostly full.)
constexpr uint32_t kFewRefs = 16;

glm::vec3 scale_of(const glm::vec3& extent) { return float(kBins) / glm::max(extent, glm::vec3(1e-30f)); }

// The SAH sweeps of a node of a few references, on each axis its centres spread along
// (`consider(axis, sweep)`), as sweep_bins sweeps the node's bins: only the bins that hold
// something are touched (each set empty before a reference grows it) and swept, in order,
// through a mask of them. The same candidates in the same order, each side's box grown
// from the same boxes, so the same split, without clearing or reading 32 bins an axis.
// (A side's box may come out with a zero's other sign, where +0 and -0 meet in one bound;
// its area is the same.)
template <class Consider>
void sweep_few(RefRange refs, const glm::vec3& extent, __m128 lo4, __m128 scale4, const Consider& consider) {
    const int n = int(refs.size());
    __m128 lo[kFewRefs], hi[kFewRefs];
    alignas(16) int32_t bin[kFewRefs][4];
    for (int i = 0; i < n; ++i) {
        lo[i] = ref_lo(refs.first[i]);
        hi[i] = ref_hi(refs.first[i]);
        _mm_store_si128(reinterpret_cast<__m128i*>(bin[i]),
                        _mm_cvttps_epi32(_mm_mul_ps(_mm_sub_ps(centre4(lo[i], hi[i]), lo4), scale4)));
    }
    static_assert(kBins <= 32);
    for (int a = 0; a < 3; ++a) {
        if (!(extent[a] > 0.0f)) continue;
        // Bin b's box and count, set only where bit b of `held` is (raw vectors: an array
        // of Box4 would be set empty whole).
        __m128 box_lo[kBins], box_hi[kBins];
        uint32_t count[kBins];
        uint32_t held = 0;
        const Box4 empty;
        for (int i = 0; i < n; ++i) {
            const int b = std::min(kBins - 1, bin[i][a]);
            bin[i][a] = b;
            box_lo[b] = empty.lo;
            box_hi[b] = empty.hi;
            count[b] = 0;
            held |= 1u << b;
        }
        for (int i = 0; i < n; ++i) {
            const int b = bin[i][a];
            box_lo[b] = _mm_min_ps(lo[i], box_lo[b]);
            box_hi[b] = _mm_max_ps(hi[i], box_hi[b]);
            ++count[b];
        }
        // The plane after held bin b has on its right the held bins from the next one up,
        // t: their box, area and count are kept at [t].
        __m128 right_lo[kBins], right_hi[kBins];
        float right_area[kBins];
        uint32_t right_count[kBins];
        Box4 acc;
        uint32_t nr = 0;
        const int lowest = __builtin_ctz(held);
        for (uint32_t m = held & ~(1u << lowest); m != 0;) {
            const int t = 31 - __builtin_clz(m);
            m &= ~(1u << t);
            acc.grow(box_lo[t], box_hi[t]);
            nr += count[t];
            right_lo[t] = acc.lo;
            right_hi[t] = acc.hi;
            right_area[t] = area4(acc);
            right_count[t] = nr;
        }
        float best_cost = 1e30f;
        int best = -1, best_next = -1;
        Box4 best_left;
        uint32_t nl = 0, best_nl = 0;
        acc = Box4{};
        for (uint32_t m = held; ;) {
            const int b = __builtin_ctz(m);
            m &= m - 1;
            if (m == 0) break;
            const int t = __builtin_ctz(m);
            acc.grow(box_lo[b], box_hi[b]);
            nl += count[b];
            const float cost = area4(acc) * float(nl) + right_area[t] * float(right_count[t]);
            if (cost < best_cost) {
                best_cost = cost;
                best = b;
                best_next = t;
                best_left = acc;
                best_nl = nl;
            }
        }
        if (best < 0) continue;
        consider(a, SahSweep{best_cost, best + 1, best_left.box(),
                             Box4{right_lo[best_next], right_hi[best_next]}.box(), best_nl,
                             right_count[best_next]});
    }
}

// A run of references' bounds: their boxes' and their centres'.
struct Bounds {
    Box box, centres;
    bool valid = false;
    const Bounds* known() const { return valid ? this : nullptr; }
};

// The bounds of a run of references, in one pass.
Bounds bounds_of(const BuildRef* first, const BuildRef* end) {
    Box4 box, centres;
    for (const BuildRef* r = first; r != end; ++r) {
        const __m128 lo = ref_lo(*r), hi = ref_hi(*r), c = centre4(lo, hi);
        box.grow(lo, hi);
        centres.grow(c, c);
    }
    return Bounds{box.box(), centres.box(), true};
}

// std::partition's order (libstdc++'s for bidirectional iterators: from both ends, a
// swap per pair out of place), so that the tree is the one it gave, without its scans'
// branches on each reference's side, mispredicted where the sides interleave. The scans
// swap the k-th reference of the right side found from the left end with the k-th of the
// left side found from the right end, until they meet: at the partition point, past
// which are as many of the left side as before it are of the right. So each reference's
// side is marked, the misplaced ones' places listed on either side of the point (a store
// each, the list's end moved by the mark), and the lists swapped pairwise. Then each
// side's bounds, for the children. (Min and max do not depend on the order they see the
// boxes in, but for the sign of a zero: where +0 and -0 meet in one bound it may take the
// other sign than the child's own pass gave. The tree is still the same on every run.)
template <class Left>
BuildRef* partition_with_bounds(RefRange refs, Bounds sides[2], Left goes_left) {
    const uint32_t n = uint32_t(refs.size());
    // Per thread, grown only: the root's lists are the largest.
    thread_local std::vector<uint8_t> left;
    thread_local std::vector<uint32_t> wrong;
    if (left.size() < n) left.resize(n);
    if (wrong.size() < n) wrong.resize(n);
    uint32_t mid = 0;
    for (uint32_t i = 0; i < n; ++i) {
        left[i] = goes_left(refs.first[i]) ? 1 : 0;
        mid += left[i];
    }
    // The right side's places before the point, upwards from wrong[0]; the left side's
    // after it, downwards from the end: as many of each.
    uint32_t m = 0, k = n;
    for (uint32_t i = 0; i < mid; ++i) {
        wrong[m] = i;
        m += 1u - left[i];
    }
    for (uint32_t j = n; j-- > mid;) {
        wrong[k - 1] = j;
        k -= left[j];
    }
    assert(n - k == m);
    for (uint32_t t = 0; t < m; ++t) std::swap(refs.first[wrong[t]], refs.first[wrong[n - 1 - t]]);
    sides[0] = bounds_of(refs.begin(), refs.begin() + mid);
    sides[1] = bounds_of(refs.begin() + mid, refs.end());
    return refs.begin() + mid;
}

class Builder {
public:
    Builder(const std::vector<BuildPrim>& prims, const BvhBuildOptions& options)
        : prims_(prims), options_(options),
          threads_left_(host_cores() - 1) {}

    // Builds the subtree over store[b, e) into `out`; `allowance` is how many references
    // its spatial splits may add. An object split partitions the run in place and its
    // children build over its two halves; a spatial split deals the references into two
    // new vectors. `owned`: the node's run is all of `store`, which it may free once a
    // spatial split has copied it (so that the references held along a path shrink as
    // the nodes do).
    // `bounds`, where the parent's partition has computed them: the run's boxes' bounds and
    // their centres'.
    int build(Subtree& out, std::vector<BuildRef>& store, size_t b, size_t e, bool owned, uint32_t depth,
              size_t allowance, const Bounds* bounds = nullptr) {
        const int index = int(out.nodes.size());
        out.nodes.emplace_back();
        const RefRange refs{store.data() + b, e - b};
        const Bounds run = bounds ? *bounds : bounds_of(refs.begin(), refs.end());
        const Box& box = run.box;
        const Box& cbox = run.centres;
        out.nodes[index].box = box;
        if (depth == 0) root_area_ = std::max(box.area(), 1e-30f);
        out.max_depth = std::max(out.max_depth, depth);

        std::vector<BuildRef> left, right;
        uint32_t cut = 0;
        size_t mid = 0;
        Bounds sides[2];
        const Split kind = refs.size() > 1 ? split(box, cbox, refs, depth, allowance, left, right, cut, mid, sides) : Split::Leaf;
        if (kind == Split::Leaf) {
            out.nodes[index].first = uint32_t(out.order.size());
            out.nodes[index].count = uint32_t(refs.size());
            for (const BuildRef& r : refs) out.order.push_back(r.prim);
            return index;
        }
        out.spatial_splits += cut > 0;
        if (kind == Split::Spatial && owned) std::vector<BuildRef>().swap(store);
        const size_t nl = kind == Split::Spatial ? left.size() : mid, nr = kind == Split::Spatial ? right.size() : refs.size() - mid;
        const size_t rest = allowance - std::min(allowance, size_t(cut));
        const size_t left_share = size_t(double(rest) * double(nl) / double(nl + nr));
        const auto build_left = [&](Subtree& t) {
            return kind == Split::Spatial ? build(t, left, 0, nl, true, depth + 1, left_share)
                                          : build(t, store, b, b + mid, false, depth + 1, left_share, sides[0].known());
        };
        const auto build_right = [&](Subtree& t) {
            return kind == Split::Spatial ? build(t, right, 0, nr, true, depth + 1, rest - left_share)
                                          : build(t, store, b + mid, e, false, depth + 1, rest - left_share, sides[1].known());
        };
        int l, r;
        if (nr >= kParallelRefs && take_thread()) {
            Subtree rt;
            // A slot is a core a thread runs on: the other side's thread gives its slot
            // back when it ends, so that this side, if it is the larger, can split its
            // work again; and this thread gives its own back while it waits (for the
            // other side's use), and takes it again after.
            auto other = std::async(std::launch::async, [&] {
                build_right(rt);
                threads_left_.fetch_add(1);
            });
            l = build_left(out);
            threads_left_.fetch_add(1);
            other.get();
            threads_left_.fetch_sub(1);
            r = out.append(std::move(rt));
        } else {
            l = build_left(out);
            r = build_right(out);
        }
        out.nodes[index].left = l;
        out.nodes[index].right = r;
        return index;
    }

    size_t initial_allowance() const {
        return options_.spatial_splits ? size_t((kMaxReferences - 1.0) * double(prims_.size())) : 0;
    }

private:
    enum class Split { Leaf, Object, Spatial };

    // Chooses a split: a leaf; an object split, `refs` partitioned in place at `mid`; or a
    // spatial split, the references dealt into `left` and `right` (`cut` of them cut).
    // An object split by the SAH also gives each side's bounds (`sides`).
    Split split(const Box& box, const Box& cbox, RefRange refs, uint32_t depth, size_t allowance,
                std::vector<BuildRef>& left, std::vector<BuildRef>& right, uint32_t& cut, size_t& mid, Bounds sides[2]) {
        const uint32_t count = uint32_t(refs.size());
        const glm::vec3 extent = cbox.hi - cbox.lo;
        int axis = 0;
        if (extent.y > extent[axis]) axis = 1;
        if (extent.z > extent[axis]) axis = 2;

        auto median_split = [&]() {
            BuildRef* const m = refs.begin() + count / 2;
            std::nth_element(refs.begin(), m, refs.end(), [&](const BuildRef& a, const BuildRef& b) {
                return a.box.centre()[axis] < b.box.centre()[axis];
            });
            mid = count / 2;
            return Split::Object;
        };
        if (extent[axis] <= 0.0f) {
            // All centroids coincide: SAH cannot separate them. Split by count only
            // when a leaf would be too big.
            return count > uint32_t(kMaxLeafPrims) ? median_split() : Split::Leaf;
        }
        if (depth >= kMedianSplitDepth) return median_split();

        const glm::vec3 scale = scale_of(extent);
        // A centre's bin on axis a (its coordinate c rounded as centre4 rounds it).
        const auto bin_of = [&](float c, int a) { return std::min(kBins - 1, int((c - cbox.lo[a]) * scale[a])); };
        // Binned SAH over all three axes, on the references' centroids.
        float best_cost = 1e30f;
        int best_axis = -1, best_bin = -1;
        Box best_left, best_right;
        const auto consider = [&](int a, const SahSweep& sw) {
            if (sw.plane >= 0 && sw.cost < best_cost) {
                best_cost = sw.cost;
                best_axis = a;
                best_bin = sw.plane - 1;
                best_left = sw.left;
                best_right = sw.right;
            }
        };
        const __m128 lo4 = _mm_setr_ps(cbox.lo.x, cbox.lo.y, cbox.lo.z, 0.0f);
        const __m128 scale4 = _mm_setr_ps(scale.x, scale.y, scale.z, 0.0f);
        if (count <= kFewRefs) {
            sweep_few(refs, extent, lo4, scale4, consider);
        } else {
            // One pass over the references bins them on all three axes: bin_of's
            // arithmetic, lane by lane. Neighbouring references tend to fall in one bin,
            // whose box and count each would wait on the last one's update: in a large
            // node the even and the odd references fill two sets of bins, merged after
            // (a small one would spend more clearing the second set than it saves).
            const int sets = count >= kTwoBinSets ? 2 : 1;
            std::array<std::array<Box4, kBins>, 3> bins4[2];
            std::array<std::array<uint32_t, kBins>, 3> counts[2];
            for (int k = 0; k < sets; ++k) {
                bins4[k] = {};
                counts[k] = {};
            }
            const auto bin_ref = [&](const BuildRef& r, int set) {
                const __m128 lo = ref_lo(r), hi = ref_hi(r);
                alignas(16) int32_t bin[4];
                _mm_store_si128(reinterpret_cast<__m128i*>(bin),
                                _mm_cvttps_epi32(_mm_mul_ps(_mm_sub_ps(centre4(lo, hi), lo4), scale4)));
                for (int a = 0; a < 3; ++a) {
                    const int b = std::min(kBins - 1, bin[a]);
                    counts[set][size_t(a)][size_t(b)]++;
                    bins4[set][size_t(a)][size_t(b)].grow(lo, hi);
                }
            };
            size_t i = 0;
            if (sets == 2) {
                for (; i + 1 < refs.size(); i += 2) {
                    bin_ref(refs.first[i], 0);
                    bin_ref(refs.first[i + 1], 1);
                }
                for (int a = 0; a < 3; ++a)
                    for (int b = 0; b < kBins; ++b) {
                        counts[0][size_t(a)][size_t(b)] += counts[1][size_t(a)][size_t(b)];
                        bins4[0][size_t(a)][size_t(b)].grow(bins4[1][size_t(a)][size_t(b)]);
                    }
            }
            for (; i < refs.size(); ++i) bin_ref(refs.first[i], 0);
            for (int a = 0; a < 3; ++a)
                if (extent[a] > 0.0f)
                    consider(a, sweep_bins(bins4[0][size_t(a)].data(), counts[0][size_t(a)].data(), counts[0][size_t(a)].data(), kBins));
        }
        // A spatial split, where the object split's children overlap.
        SpatialSplit spatial;
        if (allowance > 0 && best_axis >= 0 && intersection(best_left, best_right).area() > kSplitOverlap * root_area_) {
            spatial = find_spatial_split(prims_, box, refs, best_cost);
        }

        const float cost = std::min(best_cost, spatial.cost());
        const float leaf_cost = float(count);
        const float split_cost = kTraversalCost + cost / std::max(box.area(), 1e-30f);
        if (best_axis < 0 && spatial.axis < 0) return count > uint32_t(kMaxLeafPrims) ? median_split() : Split::Leaf;
        if (count <= uint32_t(kMaxLeafPrims) && split_cost >= leaf_cost) return Split::Leaf;

        if (spatial.cost() < best_cost) {
            cut = partition_spatial(prims_, spatial, refs, left, right);
            if (!left.empty() && !right.empty()) return Split::Spatial;
            cut = 0;
            left.clear();
            right.clear();
            if (best_axis < 0) return median_split();
        }

        BuildRef* const m = partition_with_bounds(refs, sides, [&](const BuildRef& r) {
            return bin_of((r.box.lo[best_axis] + r.box.hi[best_axis]) * 0.5f, best_axis) <= best_bin;
        });
        if (m == refs.begin() || m == refs.end()) {
            axis = best_axis;
            sides[0] = sides[1] = Bounds{};
            return median_split();
        }
        mid = size_t(m - refs.begin());
        return Split::Object;
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

// Build nodes a chunk of the flattening's parallel passes.
constexpr uint32_t kFlattenGrain = 16384;

// Flattens the build nodes into two-box nodes, with the tree's statistics. The build
// nodes are in preorder (a node, its left subtree, then its right: build and
// Subtree::append keep them so), and the flat tree keeps that order of the inner nodes,
// a node's left child next to it; so an inner node's flat index is the count of inner
// nodes before it, and each is written apart from the others, on the host's cores.
// The statistics are summed a fixed chunk at a time, then the chunks in order, so that
// they do not depend on the number of cores.
void flatten(const std::vector<BuildNode>& bn, std::vector<BvhNode>& out, BvhBuildStats& st) {
    const uint32_t n = uint32_t(bn.size());
    std::vector<int32_t> flat(n);
    int32_t inner = 0;
    for (uint32_t i = 0; i < n; ++i) flat[i] = bn[i].leaf() ? -1 : inner++;
    out.resize(size_t(inner));
    struct Part {
        double sah = 0.0;
        uint32_t leaves = 0, max_leaf = 0;
    };
    std::vector<Part> parts((n + kFlattenGrain - 1) / kFlattenGrain);
    const float root_area = std::max(bn[0].box.area(), 1e-30f);
    parallel_for(n, kFlattenGrain, host_cores(), [&](uint32_t b, uint32_t e) {
        Part& part = parts[b / kFlattenGrain];
        for (uint32_t i = b; i < e; ++i) {
            const BuildNode& node = bn[i];
            if (node.leaf()) {
                part.leaves++;
                part.max_leaf = std::max(part.max_leaf, node.count);
                part.sah += double(node.box.area() / root_area) * double(node.count);
                continue;
            }
            part.sah += double(node.box.area() / root_area) * double(kTraversalCost);
            BvhNode& f = out[size_t(flat[i])];
            const int kids[2] = {node.left, node.right};
            for (int side = 0; side < 2; ++side) {
                const BuildNode& c = bn[size_t(kids[side])];
                if (c.leaf()) set_child(f, side, c.box, ~int32_t(c.first), int32_t(c.count));
                else set_child(f, side, c.box, flat[size_t(kids[side])], 0);
            }
        }
    });
    for (const Part& p : parts) {
        st.leaves += p.leaves;
        st.max_leaf_size = std::max(st.max_leaf_size, p.max_leaf);
        st.sah_cost += p.sah;
    }
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
        // The references and the root's bounds, on the host's cores.
        std::vector<BuildRef> refs(prims.size());
        constexpr uint32_t kGrain = 65536;
        std::vector<Bounds> part((prims.size() + kGrain - 1) / kGrain);
        parallel_for(uint32_t(prims.size()), kGrain, host_cores(), [&](uint32_t first, uint32_t end) {
            for (uint32_t i = first; i < end; ++i) refs[i] = BuildRef{Box{prims[i].lo, prims[i].hi}, i};
            part[first / kGrain] = bounds_of(refs.data() + first, refs.data() + end);
        });
        Bounds root = part[0];
        for (const Bounds& p : part) {
            root.box.grow(p.box);
            root.centres.grow(p.centres);
        }
        tree.nodes.reserve(2 * prims.size());
        b.build(tree, refs, 0, refs.size(), true, 0, b.initial_allowance(), &root);
    }
    bvh.order = std::move(tree.order);
    const std::vector<BuildNode>& bn = tree.nodes;

    BvhBuildStats& st = bvh.stats;
    if (bn[0].leaf()) {
        // A single leaf (the whole scene is <= kMaxLeafPrims primitives): wrap it in one
        // node whose right slot is an empty leaf (count 0). Its box is stored inverted, but
        // the min/max slab test makes that an all-space box, so rays visit the empty leaf
        // and test nothing there: harmless (accel/bvh.h).
        bvh.nodes.emplace_back();
        set_child(bvh.nodes[0], 0, bn[0].box, ~int32_t(0), int32_t(bn[0].count));
        set_child(bvh.nodes[0], 1, Box{}, ~int32_t(0), 0);
        st.leaves = 1;
        st.max_leaf_size = bn[0].count;
        st.sah_cost = double(bn[0].box.area() / std::max(bn[0].box.area(), 1e-30f)) * double(bn[0].count);
    } else {
        flatten(bn, bvh.nodes, st);
    }

    st.nodes = uint32_t(bvh.nodes.size());
    st.max_depth = tree.max_depth;
    st.primitives = uint32_t(prims.size());
    st.references = uint32_t(bvh.order.size());
    st.spatial_splits = tree.spatial_splits;
    st.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    assert(st.max_depth < uint32_t(kBvhStackSize));
    return bvh;
}

}  // namespace srt
