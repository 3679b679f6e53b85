// bvh8_collapse.cu - the BVH2 collapsed into the BVH8 on the device: the steps of
// accel/bvh8_collapse.h as kernels, one thread a node, so the nodes are the host's bit
// for bit (accel/bvh8_build.cpp collapse_bvh8).
//
//   k_c8_parents   each node's parent
//   k_c8_count     bottom up: a thread starts at every node without inner children and
//                  climbs; at a node, the last of its inner children's threads to arrive
//                  goes on (the others stop), so a node is counted once its subtree is
//   k_c8_level     top down, one launch a level: each wide node of the level encodes
//                  itself, writes its leaves' primitives and its children's tasks, the
//                  next level's. The tasks' order in the level is the arrival's, but each
//                  task carries its place, so what is written is not.
#include "cuda/bvh8_device.h"

#include "accel/bvh8_collapse.h"
#include "cuda/check.h"
#include "cuda/event.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace srt {
namespace {

constexpr int kBlock = 256;
constexpr int32_t kRoot = -1;  // the root's parent

__device__ int inner_children(const BvhNode& n) { return int(n.link[0] >= 0) + int(n.link[1] >= 0); }

__global__ void k_c8_parents(const BvhNode* bvh2, const uint32_t* m, int32_t* parent) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= *m) return;
    if (i == 0) parent[0] = kRoot;
    const BvhNode n = bvh2[i];
    for (int side = 0; side < 2; ++side)
        if (n.link[side] >= 0) parent[n.link[side]] = int32_t(i);
}

// Reads the counts through L2: another SM wrote them, and this one's L1 may hold old lines.
__device__ bvh8::Count load_count(const bvh8::Count* counts, int32_t i) {
    const uint4 v = __ldcg(reinterpret_cast<const uint4*>(counts + i));
    return bvh8::Count{v.x, v.y, v.z, v.w};
}

__device__ bvh8::Count count_node(const BvhNode* bvh2, int32_t i, const bvh8::Count* counts) {
    collapse::Entry c[8];
    const int n = collapse::open_largest(bvh2, i, 8, c);
    return bvh8::count(c, n, [counts](int32_t k) { return load_count(counts, k); });
}

__global__ void k_c8_count(const BvhNode* bvh2, const uint32_t* m, const int32_t* parent, uint32_t* visits,
                           bvh8::Count* counts) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= *m || inner_children(bvh2[i]) > 0) return;
    int32_t x = int32_t(i);
    while (true) {
        const bvh8::Count r = count_node(bvh2, x, counts);
        __stcg(reinterpret_cast<uint4*>(counts + x), make_uint4(r.nodes, r.prims, r.depth, r.leaves));
        const int32_t p = parent[x];
        if (p == kRoot) return;
        __threadfence();  // this node's count, before its arrival is counted
        if (atomicAdd(&visits[p], 1u) + 1u < uint32_t(inner_children(bvh2[p]))) return;
        __threadfence();
        x = p;
    }
}

// A level count for each level (kBvh8Levels at most), zeroed here, and the root's task.
constexpr uint32_t kBvh8Levels = 64;
__global__ void k_c8_first(bvh8::Task* level0, uint32_t* level_count) {
    level0[0] = bvh8::Task{0, 0u, 1u, 0u};
    for (uint32_t d = 0; d < kBvh8Levels; ++d) level_count[d] = d == 0 ? 1u : 0u;
}

// The level's tasks in `tasks[0 .. *count)`; the next level's appended at `next`.
__global__ void k_c8_level(const BvhNode* bvh2, const bvh8::Count* counts, const bvh8::Task* tasks,
                           const uint32_t* count, bvh8::Task* next, uint32_t* next_count, Bvh8Node* nodes,
                           uint32_t* order, uint32_t* fault) {
    const uint32_t n_tasks = *count;
    for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < n_tasks; t += gridDim.x * blockDim.x) {
        const bvh8::Task task = tasks[t];
        collapse::Entry c[8];
        const int n = collapse::open_largest(bvh2, task.src, 8, c);
        collapse::Entry by_slot[8];
        Bvh8Node node;
        const uint32_t f = bvh8::encode(c, n, node, by_slot);
        const uint32_t inner = uint32_t(__popc(node.imask));
        const uint32_t at = inner > 0 ? atomicAdd(next_count, inner) : 0u;
        bvh8::place(by_slot, counts, task, node, order,
                    [next, at](int k, const bvh8::Task& kid) { next[at + uint32_t(k)] = kid; });
        nodes[task.pos] = node;
        if (f) atomicOr(fault, f);
    }
}

}  // namespace

void Bvh8DeviceScratch::carve(DeviceArena& a, uint32_t max_nodes, size_t prims) {
    // Every wide node comes from its own BVH2 node: max_nodes bounds the nodes and a
    // level's tasks.
    const size_t m = std::max<uint32_t>(max_nodes, 1u);
    parent = a.take<int32_t>(m);
    visits = a.take<uint32_t>(m);
    counts = a.take<bvh8::Count>(m);
    nodes = a.take<Bvh8Node>(m);
    order = a.take<uint32_t>(std::max<size_t>(prims, 1));
    level_count = a.take<uint32_t>(kBvh8Levels);
    fault = a.take<uint32_t>(1);
    for (auto& l : level) l = a.take<bvh8::Task>(m);
}

void enqueue_bvh8_counts(const BvhNode* bvh2, const uint32_t* m, uint32_t max_nodes, size_t prims,
                         const Bvh8DeviceScratch& s) {
    const uint32_t blocks = (std::max(max_nodes, 1u) + kBlock - 1) / kBlock;
    CUDA_CHECK(cudaMemsetAsync(s.visits, 0, size_t(max_nodes) * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemsetAsync(s.order, 0xff, prims * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemsetAsync(s.fault, 0, sizeof(uint32_t)));
    k_c8_parents<<<blocks, kBlock>>>(bvh2, m, s.parent);
    k_c8_count<<<blocks, kBlock>>>(bvh2, m, s.parent, s.visits, s.counts);
    CUDA_CHECK_LAUNCH("BVH8 collapse: counts");
}

void enqueue_bvh8_levels(const BvhNode* bvh2, const bvh8::Count& root, const Bvh8DeviceScratch& s) {
    const uint32_t total = root.nodes + 1u;
    if (root.depth + 1u >= kBvh8Levels) throw std::length_error("BVH8: " + std::to_string(root.depth) + " levels deep");
    // The root's task and the level counts, written by a kernel: no copy from the host
    // waits on pageable memory.
    k_c8_first<<<1, 1>>>(s.level[0], s.level_count);
    // A grid that strides keeps the many small levels' launches short.
    const uint32_t level_blocks = std::min((total + kBlock - 1) / kBlock, 264u);
    for (uint32_t d = 0; d <= root.depth; ++d) {
        const int in = int(d & 1u), out = in ^ 1;
        k_c8_level<<<level_blocks, kBlock>>>(bvh2, s.counts, s.level[in], s.level_count + d, s.level[out],
                                             s.level_count + d + 1, s.nodes, s.order, s.fault);
    }
    CUDA_CHECK_LAUNCH("BVH8 collapse: levels");
}

Bvh8 download_bvh8(const bvh8::Count& root, size_t prims, const Bvh8DeviceScratch& s) {
    Bvh8 out;
    const uint32_t total = root.nodes + 1u;
    uint32_t f = 0;
    out.nodes.resize(total);
    out.prim_order.resize(prims);
    CUDA_CHECK(cudaMemcpy(&f, s.fault, sizeof f, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(out.nodes.data(), s.nodes, total * sizeof(Bvh8Node), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(out.prim_order.data(), s.order, prims * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    out.stats.leaves = root.leaves;
    out.stats.max_depth = root.depth;
    check_bvh8(out, prims, f);
    return out;
}

Bvh8 collapse_bvh8_on_device(const BvhNode* bvh2, uint32_t m, size_t prims, double& device_ms) {
    device_ms = 0.0;
    if (m == 0) return Bvh8{};
    DeviceArena arena;
    Bvh8DeviceScratch s{};
    uint32_t* d_m = nullptr;
    arena.carve(
        [&](DeviceArena& a) {
            s.carve(a, m, prims);
            d_m = a.take<uint32_t>(1);
        },
        "the BVH8 collapse");
    CUDA_CHECK(cudaMemcpy(d_m, &m, sizeof m, cudaMemcpyHostToDevice));
    cuda::Event e0, e1;
    CUDA_CHECK(cudaEventRecord(e0.get()));
    enqueue_bvh8_counts(bvh2, d_m, m, prims, s);
    bvh8::Count root;
    CUDA_CHECK(cudaMemcpy(&root, s.counts, sizeof root, cudaMemcpyDeviceToHost));
    if (root.prims != prims || root.nodes + 1u > m)
        throw std::logic_error("BVH8 collapse on the device: the counts do not match the BVH2");
    enqueue_bvh8_levels(bvh2, root, s);
    CUDA_CHECK(cudaEventRecord(e1.get()));
    CUDA_CHECK(cudaEventSynchronize(e1.get()));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, e0.get(), e1.get()));
    device_ms = double(ms);
    Bvh8 out = download_bvh8(root, prims, s);
    out.stats.build_ms = device_ms;
    return out;
}

}  // namespace srt
