// ploc_build.cpp - PLOC on the host's cores (accel/ploc.h's steps, as the GPU runs them),
// and the leaves and layout that turn either side's clustering into accel/bvh.h's tree.
#include "accel/ploc.h"

#include "core/parallel.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

namespace srt {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }


// The primitives under node `id`, left to right, from `out` on; returns the end.
uint32_t* gather(const std::vector<PlocNode>& nodes, int32_t id, uint32_t* out) {
    const int32_t l = ploc_left(nodes[size_t(id)]);
    if (l < 0) {
        *out = uint32_t(~l);
        return out + 1;
    }
    return gather(nodes, ploc_right(nodes[size_t(id)]), gather(nodes, l, out));
}

}  // namespace

PlocTree ploc_cluster_host(const std::vector<f4>& boxes) {
    PlocTree t;
    const uint32_t n = uint32_t(boxes.size() / 2);
    if (n == 0) return t;
    const int threads = host_cores();
    auto t0 = Clock::now();
    f4 clo{3e38f, 3e38f, 3e38f, 0}, chi{-3e38f, -3e38f, -3e38f, 0};
    for (uint32_t i = 0; i < n; ++i) {
        const f4& lo = boxes[2 * i];
        const f4& hi = boxes[2 * i + 1];
        const float c[3] = {0.5f * (lo.x + hi.x), 0.5f * (lo.y + hi.y), 0.5f * (lo.z + hi.z)};
        clo = f4{std::min(clo.x, c[0]), std::min(clo.y, c[1]), std::min(clo.z, c[2]), 0};
        chi = f4{std::max(chi.x, c[0]), std::max(chi.y, c[1]), std::max(chi.z, c[2]), 0};
    }
    f4 grid_lo, scale;
    ploc_grid(clo, chi, grid_lo, scale);
    // Code in the high word, index in the low: sorting these is CUB's stable sort by code.
    std::vector<uint64_t> keys(n);
    parallel_for(n, 16384, threads, [&](uint32_t b, uint32_t e) {
        for (uint32_t i = b; i < e; ++i)
            keys[i] = (uint64_t(ploc_morton(boxes[2 * i], boxes[2 * i + 1], grid_lo, scale)) << 32) | i;
    });
    t.times.morton = ms_since(t0);
    t0 = Clock::now();
    std::sort(keys.begin(), keys.end());
    t.times.sort = ms_since(t0);

    t0 = Clock::now();
    t.nodes.resize(2 * size_t(n) - 1);
    std::vector<uint32_t> cluster(n), next(n), nn(n);
    std::vector<PlocNode> box(n), next_box(n);
    std::vector<uint64_t> flag(n), sum(n);
    for (uint32_t k = 0; k < n; ++k) {
        const uint32_t p = uint32_t(keys[k]);
        t.nodes[k] = box[k] = ploc_leaf(boxes[2 * p], boxes[2 * p + 1], p);
        cluster[k] = k;
    }
    std::vector<uint64_t>().swap(keys);
    uint32_t count = n, made = n;
    while (count > 1) {
        if (t.times.rounds == kPlocMaxRounds) {
            t.complete = false;
            break;
        }
        parallel_for(count, 4096, threads, [&](uint32_t b, uint32_t e) {
            for (uint32_t i = b; i < e; ++i) nn[i] = ploc_nearest(i, count, box.data());
        });
        uint64_t total = 0;
        for (uint32_t i = 0; i < count; ++i) {
            flag[i] = ploc_flag(i, nn.data());
            sum[i] = total;
            total += flag[i];
        }
        parallel_for(count, 4096, threads, [&](uint32_t b, uint32_t e) {
            for (uint32_t i = b; i < e; ++i)
                ploc_merge(i, cluster.data(), box.data(), nn.data(), flag[i], sum[i], made, t.nodes.data(),
                           next.data(), next_box.data());
        });
        made += uint32_t(total >> 32);
        count = uint32_t(total & 0xffffffffu);
        cluster.swap(next);
        box.swap(next_box);
        ++t.times.rounds;
    }
    t.times.cluster = ms_since(t0);
    return t;
}

PlocResult ploc_layout_host(const PlocTree& tree) {
    const auto t0 = Clock::now();
    PlocResult res;
    res.times = tree.times;
    res.complete = tree.complete;
    Bvh& bvh = res.bvh;
    const std::vector<PlocNode>& nodes = tree.nodes;
    if (nodes.empty() || !tree.complete) return res;
    const size_t total = nodes.size(), n = (total + 1) / 2;
    const int32_t root = int32_t(total - 1);

    // Bottom up: children have lower ids than their parent.
    std::vector<PlocFold> fold(total);
    for (size_t i = 0; i < n; ++i) fold[i] = ploc_fold_leaf(nodes[i]);
    for (size_t i = n; i < total; ++i)
        fold[i] = ploc_fold(nodes[i], fold[size_t(ploc_left(nodes[i]))], fold[size_t(ploc_right(nodes[i]))]);

    const auto lo_of = [&](int32_t id) { const f4& v = nodes[size_t(id)].lo; return glm::vec3(v.x, v.y, v.z); };
    const auto hi_of = [&](int32_t id) { const f4& v = nodes[size_t(id)].hi; return glm::vec3(v.x, v.y, v.z); };
    bvh.order.resize(n);
    // A node that became one leaf: its primitives at `first`, left to right.
    const auto leaf_prims = [&](int32_t id, uint32_t first) { gather(nodes, id, bvh.order.data() + first); };
    if (fold[size_t(root)].inner == 0) {
        // The whole scene is one leaf: wrapped as build_bvh wraps it (accel/bvh.h).
        bvh.nodes.resize(1);
        leaf_prims(root, 0);
        set_bvh_child(bvh.nodes[0], 0, lo_of(root), hi_of(root), ~int32_t(0), int32_t(fold[size_t(root)].count));
        set_bvh_child(bvh.nodes[0], 1, glm::vec3(1e30f), glm::vec3(-1e30f), ~int32_t(0), 0);
    } else {
        // Top down, each inner node of the layout placed by ploc_place_child, as the
        // device places them.
        bvh.nodes.resize(fold[size_t(root)].inner);
        struct Item {
            int32_t id;
            uint32_t flat, first;
        };
        std::vector<Item> stack{{root, 0, 0}};
        while (!stack.empty()) {
            const Item it = stack.back();
            stack.pop_back();
            const PlocNode& p = nodes[size_t(it.id)];
            const int32_t kids[2] = {ploc_left(p), ploc_right(p)};
            for (int side = 0; side < 2; ++side) {
                const int32_t c = kids[side];
                uint32_t flat, first;
                ploc_place_child(side == 1, fold[size_t(kids[0])], it.flat, it.first, flat, first);
                BvhNode& out = bvh.nodes[it.flat];
                if (fold[size_t(c)].inner == 0) {
                    leaf_prims(c, first);
                    set_bvh_child(out, side, lo_of(c), hi_of(c), ~int32_t(first), int32_t(fold[size_t(c)].count));
                } else {
                    set_bvh_child(out, side, lo_of(c), hi_of(c), int32_t(flat), 0);
                    stack.push_back({c, flat, first});
                }
            }
        }
    }
    res.times.leaves = ms_since(t0);
    return res;
}

void ploc_count_stats(Bvh& bvh, const std::string& where, const PlocTimes& tm) {
    BvhBuildStats& st = bvh.stats;
    st.nodes = uint32_t(bvh.nodes.size());
    st.primitives = st.references = uint32_t(bvh.order.size());
    st.builder = "ploc (" + where + ")";
    char collapse[64] = "";
    if (tm.collapse > 0) std::snprintf(collapse, sizeof collapse, "collapse to BVH%u %.2f ms, ", tm.collapse_width, tm.collapse);
    char device[64] = "";
    if (tm.device > 0) std::snprintf(device, sizeof device, "; on the device %.2f ms", tm.device);
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  "allocate %.2f ms, upload %.2f ms, morton %.2f ms, sort %.2f ms, cluster %.2f ms (%u rounds), "
                  "leaves %.2f ms, %sdownload %.2f ms%s",
                  tm.allocate, tm.upload, tm.morton, tm.sort, tm.cluster, tm.rounds, tm.leaves, collapse, tm.download,
                  device);
    st.steps = buf;
    if (bvh.nodes.empty()) return;
    // Depth first over the layout, as the SAH builder counts: a node or leaf at its depth,
    // its area against the root's.
    const auto half_area = [](const BvhNode& n, int side) {
        const f4& xy = side == 0 ? n.lxy : n.rxy;
        const float dx = xy.y - xy.x, dy = xy.w - xy.z;
        const float dz = side == 0 ? n.lrz.y - n.lrz.x : n.lrz.w - n.lrz.z;
        return dx * dy + dy * dz + dz * dx;
    };
    const BvhNode& r = bvh.nodes[0];
    PlocNode root_box;
    const bool single = r.link[1] < 0 && r.link[3] == 0;
    root_box.lo = f4{single ? r.lxy.x : std::min(r.lxy.x, r.rxy.x), single ? r.lxy.z : std::min(r.lxy.z, r.rxy.z),
                     single ? r.lrz.x : std::min(r.lrz.x, r.lrz.z), 0};
    root_box.hi = f4{single ? r.lxy.y : std::max(r.lxy.y, r.rxy.y), single ? r.lxy.w : std::max(r.lxy.w, r.rxy.w),
                     single ? r.lrz.y : std::max(r.lrz.y, r.lrz.w), 0};
    const float root_area = std::max(2.0f * ploc_half_area(root_box), 1e-30f);
    struct Item {
        uint32_t node, depth;
    };
    std::vector<Item> stack{{0, 0}};
    st.sah_cost = single ? 0.0 : 1.0;
    while (!stack.empty()) {
        const Item it = stack.back();
        stack.pop_back();
        st.max_depth = std::max(st.max_depth, it.depth);
        const BvhNode& n = bvh.nodes[it.node];
        for (int side = 1; side >= 0; --side) {
            const int32_t link = n.link[side], count = n.link[2 + side];
            if (link < 0 && count == 0) continue;  // the single leaf's empty slot
            const double area = double(2.0f * half_area(n, side) / root_area);
            if (link >= 0) {
                st.sah_cost += area;
                stack.push_back({uint32_t(link), it.depth + 1});
            } else {
                st.leaves++;
                st.max_leaf_size = std::max(st.max_leaf_size, uint32_t(count));
                st.max_depth = std::max(st.max_depth, single ? 0u : it.depth + 1);
                st.sah_cost += area * double(count);
            }
        }
    }
}

namespace {

// `wide`: the tree the device collapses, into `res` (dropped where the BVH2 is replaced).
Bvh build_ploc(const std::vector<BuildPrim>& prims, PlocDevice* device, PlocCollapse wide, PlocResult* wide_out) {
    const auto t0 = Clock::now();
    std::vector<f4> boxes(2 * prims.size());
    for (size_t i = 0; i < prims.size(); ++i) {
        boxes[2 * i] = f4{prims[i].lo.x, prims[i].lo.y, prims[i].lo.z, 0.0f};
        boxes[2 * i + 1] = f4{prims[i].hi.x, prims[i].hi.y, prims[i].hi.z, 0.0f};
    }
    PlocResult res = device ? device->build(boxes, wide) : ploc_layout_host(ploc_cluster_host(boxes));
    if (!res.complete) {
        Bvh bvh = build_bvh(prims, BvhBuildOptions{false, BvhBuilder::Sah, nullptr});
        bvh.stats.builder = "sah (PLOC merged too slowly: " + std::to_string(kPlocMaxRounds) + " rounds)";
        bvh.stats.build_ms = ms_since(t0);
        return bvh;
    }
    Bvh bvh = std::move(res.bvh);
    if (wide_out) {
        wide_out->bvh4 = std::move(res.bvh4);
        wide_out->bvh8 = std::move(res.bvh8);
    }
    ploc_count_stats(bvh, device ? device->name() : "host", res.times);
    if (bvh.stats.max_depth >= uint32_t(kBvhStackSize)) {
        // Deeper than traversal's stack (a clustering of a pathological scene): the SAH
        // builder, which bounds its depth, makes the tree instead.
        const uint32_t deep = bvh.stats.max_depth;
        bvh = build_bvh(prims, BvhBuildOptions{false, BvhBuilder::Sah, nullptr});
        bvh.stats.builder = "sah (PLOC's tree was " + std::to_string(deep) + " deep)";
        if (wide_out) {
            wide_out->bvh4.reset();
            wide_out->bvh8.reset();
        }
    }
    bvh.stats.build_ms = ms_since(t0);
    return bvh;
}

}  // namespace

Bvh build_bvh_ploc(const std::vector<BuildPrim>& prims, PlocDevice* device) {
    return build_ploc(prims, device, PlocCollapse::None, nullptr);
}

bool build_bvh_ploc_bvh8(const std::vector<BuildPrim>& prims, PlocDevice* device, Bvh& bvh, Bvh8& bvh8) {
    PlocResult wide;
    bvh = build_ploc(prims, device, PlocCollapse::Bvh8, device ? &wide : nullptr);
    if (!wide.bvh8) return false;
    bvh8 = std::move(*wide.bvh8);
    return true;
}

bool build_bvh_ploc_bvh4(const std::vector<BuildPrim>& prims, PlocDevice* device, Bvh& bvh, Bvh4& bvh4) {
    PlocResult wide;
    bvh = build_ploc(prims, device, PlocCollapse::Bvh4, device ? &wide : nullptr);
    if (!wide.bvh4) return false;
    bvh4 = std::move(*wide.bvh4);
    return true;
}

}  // namespace srt
