// wide_collapse.cu - the BVH2 collapsed into the BVH4 or the BVH8 on the device: the
// steps of accel/bvh4_collapse.h and accel/bvh8_collapse.h as kernels, one thread a node,
// so the nodes are the host's bit for bit (accel/bvh4_build.cpp collapse_bvh4,
// accel/bvh8_build.cpp collapse_bvh8).
//
//   k_parents   each node's parent
//   k_count     bottom up: a thread starts at every node without inner children and
//               climbs; at a node, the last of its inner children's threads to arrive
//               goes on (the others stop), so a node is counted once its subtree is
//   k_level     top down, one launch a level: each wide node of the level is made, with
//               its children's places and tasks, the next level's. The tasks' order in
//               the level is the arrival's, but each task carries its place, so what is
//               written is not.
// The two widths differ only in what a count holds and how a node is made (Bvh4Steps,
// Bvh8Steps below).
#include "cuda/wide_collapse.h"

#include "accel/bvh4_collapse.h"
#include "accel/bvh8_collapse.h"
#include "cuda/check.h"
#include "cuda/event.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace srt {
namespace {

constexpr int kBlock = 256;
constexpr int32_t kRoot = -1;              // the root's parent
constexpr uint32_t kLevels = 64;           // a level count for each level, at most
constexpr uint32_t kLevelBlocks = 264;     // a grid that strides keeps the many small levels' launches short

struct Bvh8Steps {
    using Count = bvh8::Count;
    using Task = bvh8::Task;
    using Node = Bvh8Node;
    static constexpr int kWidth = 8;
    __device__ static Task root_task() { return Task{0, 0u, 1u, 0u}; }
    template <class E, class Load>
    __device__ static Count count(const E* c, int n, Load load) {
        return bvh8::count(c, n, load);
    }
    // The wide node of task t, its children's tasks to emit(k, task) (`inner` of them,
    // known before any is emitted).
    template <class Emit>
    __device__ static void make(const collapse::Entry* c, int n, const Task& t, const Count* counts, Node* nodes,
                                uint32_t* order, uint32_t* fault, Emit emit) {
        collapse::Entry by_slot[8];
        Bvh8Node node;
        const uint32_t f = bvh8::encode(c, n, node, by_slot);
        const uint32_t at = emit.reserve(uint32_t(__popc(node.imask)));
        bvh8::place(by_slot, counts, t, node, order, [&](int k, const Task& kid) { emit(at, k, kid); });
        nodes[t.pos] = node;
        if (f) atomicOr(fault, f);
    }
};

struct Bvh4Steps {
    using Count = bvh4::Count;
    using Task = bvh4::Task;
    using Node = Bvh4Node;
    static constexpr int kWidth = 4;
    __device__ static Task root_task() { return Task{0, 0u}; }
    template <class E, class Load>
    __device__ static Count count(const E* c, int n, Load load) {
        return bvh4::count(c, n, load);
    }
    template <class Emit>
    __device__ static void make(const collapse::Entry* c, int n, const Task& t, const Count* counts, Node* nodes,
                                uint32_t*, uint32_t*, Emit emit) {
        uint32_t inner = 0;
        SRT_COLLAPSE_UNROLL
        for (int k = 0; k < 4; ++k) inner += k < n && c[k].inner() ? 1u : 0u;
        const uint32_t at = emit.reserve(inner);
        int32_t ref[4];
        bvh4::place(c, n, t, counts, ref, [&](int k, const Task& kid) { emit(at, k, kid); });
        nodes[t.pos] = bvh4::make_node(c, n, ref);
    }
};
static_assert(sizeof(bvh4::Count) == 16 && sizeof(bvh8::Count) == 16, "a count is one 16-byte load");
static_assert(sizeof(bvh4::Task) <= 16 && sizeof(bvh8::Task) <= 16, "a task fits a level's 16-byte slot");

__device__ int inner_children(const BvhNode& n) { return int(n.link[0] >= 0) + int(n.link[1] >= 0); }

__global__ void k_parents(const BvhNode* bvh2, const uint32_t* m, int32_t* parent) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= *m) return;
    if (i == 0) parent[0] = kRoot;
    const BvhNode n = bvh2[i];
    for (int side = 0; side < 2; ++side)
        if (n.link[side] >= 0) parent[n.link[side]] = int32_t(i);
}

// Reads a count through L2: another SM wrote it, and this one's L1 may hold old lines.
template <class Count>
__device__ Count load_count(const uint4* counts, int32_t i) {
    const uint4 v = __ldcg(counts + i);
    Count c;
    memcpy(&c, &v, sizeof c);
    return c;
}

template <class S>
__global__ void k_count(const BvhNode* bvh2, const uint32_t* m, const int32_t* parent, uint32_t* visits, uint4* counts) {
    using Count = typename S::Count;
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= *m || inner_children(bvh2[i]) > 0) return;
    int32_t x = int32_t(i);
    while (true) {
        collapse::AreaEntry c[8];  // the counts read no boxes
        const int n = collapse::open_largest(bvh2, x, S::kWidth, c);
        const Count r = S::count(c, n, [counts](int32_t k) { return load_count<Count>(counts, k); });
        uint4 v;
        memcpy(&v, &r, sizeof v);
        __stcg(counts + x, v);
        const int32_t p = parent[x];
        if (p == kRoot) return;
        __threadfence();  // this node's count, before its arrival is counted
        if (atomicAdd(&visits[p], 1u) + 1u < uint32_t(inner_children(bvh2[p]))) return;
        __threadfence();
        x = p;
    }
}

// The level counts, zeroed here, and the root's task: no copy from the host waits on
// pageable memory.
template <class S>
__global__ void k_first(uint4* level0, uint32_t* level_count) {
    reinterpret_cast<typename S::Task*>(level0)[0] = S::root_task();
    for (uint32_t d = 0; d < kLevels; ++d) level_count[d] = d == 0 ? 1u : 0u;
}

// A level's children's tasks, appended to the next level's.
template <class Task>
struct Appender {
    Task* next;
    uint32_t* next_count;
    __device__ uint32_t reserve(uint32_t k) const { return k > 0 ? atomicAdd(next_count, k) : 0u; }
    __device__ void operator()(uint32_t at, int k, const Task& t) const { next[at + uint32_t(k)] = t; }
};

// The level's tasks in `tasks[0 .. *count)`; the next level's appended at `next`.
template <class S>
__global__ void k_level(const BvhNode* bvh2, const uint4* counts, const uint4* tasks, const uint32_t* count,
                        uint4* next, uint32_t* next_count, void* nodes, uint32_t* order, uint32_t* fault) {
    using Task = typename S::Task;
    const uint32_t n_tasks = *count;
    const Appender<Task> emit{reinterpret_cast<Task*>(next), next_count};
    for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < n_tasks; t += gridDim.x * blockDim.x) {
        const Task task = reinterpret_cast<const Task*>(tasks)[t];
        collapse::Entry c[8];
        const int n = collapse::open_largest(bvh2, task.src, S::kWidth, c);
        S::make(c, n, task, reinterpret_cast<const typename S::Count*>(counts), static_cast<typename S::Node*>(nodes),
                order, fault, emit);
    }
}

template <class S>
void enqueue_counts_of(const BvhNode* bvh2, const uint32_t* m, uint32_t max_nodes, int32_t* parent, uint32_t* visits,
                       uint4* counts) {
    const uint32_t blocks = (std::max(max_nodes, 1u) + kBlock - 1) / kBlock;
    CUDA_CHECK(cudaMemsetAsync(visits, 0, size_t(max_nodes) * sizeof(uint32_t)));
    k_parents<<<blocks, kBlock>>>(bvh2, m, parent);
    k_count<S><<<blocks, kBlock>>>(bvh2, m, parent, visits, counts);
    CUDA_CHECK_LAUNCH("wide collapse: counts");
}

template <class S>
void enqueue_levels_of(const BvhNode* bvh2, uint32_t levels, uint32_t total, const uint4* counts, uint4* const level[2],
                       uint32_t* level_count, void* nodes, uint32_t* order, uint32_t* fault) {
    k_first<S><<<1, 1>>>(level[0], level_count);
    const uint32_t blocks = std::min((total + kBlock - 1) / kBlock, kLevelBlocks);
    for (uint32_t d = 0; d < levels; ++d) {
        const int in = int(d & 1u), out = in ^ 1;
        k_level<S><<<blocks, kBlock>>>(bvh2, counts, level[in], level_count + d, level[out], level_count + d + 1, nodes,
                                       order, fault);
    }
    CUDA_CHECK_LAUNCH("wide collapse: levels");
}

template <class Count>
Count as_count(const uint4& v) {
    Count c;
    std::memcpy(&c, &v, sizeof c);
    return c;
}

}  // namespace

void WideCollapse::carve(DeviceArena& a, WideLayout layout, uint32_t max_nodes, size_t prims) {
    // Every wide node comes from its own BVH2 node: max_nodes bounds the nodes and a
    // level's tasks.
    layout_ = layout;
    max_nodes_ = std::max<uint32_t>(max_nodes, 1u);
    prims_ = prims;
    const size_t m = max_nodes_;
    parent_ = a.take<int32_t>(m);
    visits_ = a.take<uint32_t>(m);
    counts_ = a.take<uint4>(m);
    nodes_ = layout == WideLayout::Bvh8 ? static_cast<void*>(a.take<Bvh8Node>(m)) : a.take<Bvh4Node>(m);
    order_ = layout == WideLayout::Bvh8 ? a.take<uint32_t>(std::max<size_t>(prims, 1)) : nullptr;
    level_count_ = a.take<uint32_t>(kLevels);
    fault_ = a.take<uint32_t>(1);
    for (auto& l : level_) l = a.take<uint4>(m);
}

void WideCollapse::enqueue_counts(const BvhNode* bvh2, const uint32_t* m) const {
    if (layout_ == WideLayout::Bvh8) {
        CUDA_CHECK(cudaMemsetAsync(order_, 0xff, prims_ * sizeof(uint32_t)));
        CUDA_CHECK(cudaMemsetAsync(fault_, 0, sizeof(uint32_t)));
        enqueue_counts_of<Bvh8Steps>(bvh2, m, max_nodes_, parent_, visits_, counts_);
    } else {
        enqueue_counts_of<Bvh4Steps>(bvh2, m, max_nodes_, parent_, visits_, counts_);
    }
}

bool WideCollapse::read_root(uint32_t bvh2_nodes) {
    CUDA_CHECK(cudaMemcpy(&root_, counts_, sizeof root_, cudaMemcpyDeviceToHost));
    if (layout_ == WideLayout::Bvh8) {
        const bvh8::Count r = as_count<bvh8::Count>(root_);
        if (r.prims != prims_ || r.nodes + 1u > bvh2_nodes || r.depth + 1u >= kLevels)
            throw std::logic_error("BVH8 collapse on the device: the counts do not match the BVH2");
        return 2 * (r.depth + 1) <= uint32_t(kBvh8StackSize);
    }
    const bvh4::Count r = as_count<bvh4::Count>(root_);
    if (r.nodes + 1u > bvh2_nodes || r.depth + 1u >= kLevels)
        throw std::logic_error("BVH4 collapse on the device: the counts do not match the BVH2");
    return r.stack + 1u <= uint32_t(kBvh4StackSize);
}

void WideCollapse::enqueue_levels(const BvhNode* bvh2) const {
    if (layout_ == WideLayout::Bvh8) {
        const bvh8::Count r = as_count<bvh8::Count>(root_);
        enqueue_levels_of<Bvh8Steps>(bvh2, r.depth + 1, r.nodes + 1, counts_, level_, level_count_, nodes_, order_,
                                     fault_);
    } else {
        const bvh4::Count r = as_count<bvh4::Count>(root_);
        enqueue_levels_of<Bvh4Steps>(bvh2, r.depth + 1, r.nodes + 1, counts_, level_, level_count_, nodes_, nullptr,
                                     nullptr);
    }
}

Bvh8 WideCollapse::download_bvh8() const {
    const bvh8::Count r = as_count<bvh8::Count>(root_);
    Bvh8 out;
    uint32_t f = 0;
    out.nodes.resize(r.nodes + 1u);
    out.prim_order.resize(prims_);
    CUDA_CHECK(cudaMemcpy(&f, fault_, sizeof f, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(out.nodes.data(), nodes_, out.nodes.size() * sizeof(Bvh8Node), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(out.prim_order.data(), order_, prims_ * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    out.stats.leaves = r.leaves;
    out.stats.max_depth = r.depth;
    check_bvh8(out, prims_, f);
    return out;
}

Bvh4 WideCollapse::download_bvh4() const {
    const bvh4::Count r = as_count<bvh4::Count>(root_);
    Bvh4 out;
    out.nodes.resize(r.nodes + 1u);
    CUDA_CHECK(cudaMemcpy(out.nodes.data(), nodes_, out.nodes.size() * sizeof(Bvh4Node), cudaMemcpyDeviceToHost));
    out.stats.leaves = r.leaves;
    out.stats.max_depth = r.depth;
    out.stats.max_stack = r.stack + 1u;  // + the bottom-of-stack marker
    check_bvh4(out);
    return out;
}

namespace {

// A collapse of a BVH2 already on the device, with memory of its own; `download` brings
// the tree back.
template <class Download>
auto collapse_on_device(const BvhNode* bvh2, uint32_t m, size_t prims, WideLayout layout, double& device_ms,
                        Download download) {
    device_ms = 0.0;
    DeviceArena arena;
    WideCollapse w;
    uint32_t* d_m = nullptr;
    arena.carve(
        [&](DeviceArena& a) {
            w.carve(a, layout, m, prims);
            d_m = a.take<uint32_t>(1);
        },
        "the wide BVH collapse");
    CUDA_CHECK(cudaMemcpy(d_m, &m, sizeof m, cudaMemcpyHostToDevice));
    cuda::Event e0, e1;
    CUDA_CHECK(cudaEventRecord(e0.get()));
    w.enqueue_counts(bvh2, d_m);
    if (!w.read_root(m)) throw std::length_error("wide collapse on the device: the tree is too deep to traverse");
    w.enqueue_levels(bvh2);
    CUDA_CHECK(cudaEventRecord(e1.get()));
    CUDA_CHECK(cudaEventSynchronize(e1.get()));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, e0.get(), e1.get()));
    device_ms = double(ms);
    auto out = download(w);
    out.stats.build_ms = device_ms;
    return out;
}

}  // namespace

Bvh8 collapse_bvh8_on_device(const BvhNode* bvh2, uint32_t m, size_t prims, double& device_ms) {
    if (m == 0) {
        device_ms = 0.0;
        return Bvh8{};
    }
    return collapse_on_device(bvh2, m, prims, WideLayout::Bvh8, device_ms,
                              [](const WideCollapse& w) { return w.download_bvh8(); });
}

Bvh4 collapse_bvh4_on_device(const BvhNode* bvh2, uint32_t m, double& device_ms) {
    if (m == 0) {
        device_ms = 0.0;
        return Bvh4{};
    }
    return collapse_on_device(bvh2, m, 0, WideLayout::Bvh4, device_ms,
                              [](const WideCollapse& w) { return w.download_bvh4(); });
}

}  // namespace srt
