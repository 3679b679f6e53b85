// ploc_build.cu - PLOC's five steps (accel/ploc.h) as kernels: the same functions the
// host runs, one thread an index, so the GPU's tree is the host's bit for bit. The
// clustering's rounds are in cuda/ploc_rounds.cu; for a scene that traces the BVH4 or
// the BVH8, the collapse follows (cuda/wide_collapse.cu). Only the finished layout, its
// order and the wide tree come back.
//
// The build's memory is one allocation made before its first step. The host waits on
// the device twice: for the clustering's end, and for the layout's size. A round is one
// launch; the host learns the cluster count every kRoundsPerSync rounds, a batch late,
// through page-locked memory: the kernels read the count of their round from the
// device, and a round with one cluster left changes nothing, so rounds past the end are
// harmless.
#include "cuda/ploc_device.h"

#include "cuda/device_arena.h"
#include "cuda/ploc_rounds.h"
#include "cuda/wide_collapse.h"

#include "cuda/check.h"
#include "cuda/device_buffer.h"
#include "cuda/event.h"

#include <cub/cub.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace srt {
namespace {

constexpr int kBlock = 256;
constexpr int kRoundsPerSync = 4;

// A float's bits in an order that unsigned comparison keeps (for atomicMin/atomicMax).
__device__ uint32_t ordered(float f) {
    const uint32_t b = __float_as_uint(f);
    return (b & 0x80000000u) ? ~b : b | 0x80000000u;
}
__device__ float unordered(uint32_t u) { return __uint_as_float((u & 0x80000000u) ? u & 0x7fffffffu : ~u); }

__global__ void k_centroid_bounds(const f4* boxes, uint32_t n, uint32_t* bounds) {
    uint32_t lo[3] = {0xffffffffu, 0xffffffffu, 0xffffffffu}, hi[3] = {0, 0, 0};
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const f4 a = boxes[2 * i], b = boxes[2 * i + 1];
        const float c[3] = {0.5f * (a.x + b.x), 0.5f * (a.y + b.y), 0.5f * (a.z + b.z)};
        for (int k = 0; k < 3; ++k) {
            lo[k] = min(lo[k], ordered(c[k]));
            hi[k] = max(hi[k], ordered(c[k]));
        }
    }
    for (int k = 0; k < 3; ++k) {
        for (int off = 16; off > 0; off /= 2) {
            lo[k] = min(lo[k], __shfl_xor_sync(0xffffffffu, lo[k], off));
            hi[k] = max(hi[k], __shfl_xor_sync(0xffffffffu, hi[k], off));
        }
    }
    if ((threadIdx.x & 31) == 0) {
        for (int k = 0; k < 3; ++k) {
            atomicMin(&bounds[k], lo[k]);
            atomicMax(&bounds[3 + k], hi[k]);
        }
    }
}

// The round state's start, and the bounds' identities.
__global__ void k_init_bounds(uint32_t* bounds, RoundState* state, uint32_t n) {
    if (threadIdx.x < 6) bounds[threadIdx.x] = threadIdx.x < 3 ? 0xffffffffu : 0u;
    if (threadIdx.x == 0) state[0] = RoundState{n, n};
}

__global__ void k_morton(const f4* boxes, uint32_t n, const uint32_t* bounds, uint32_t* keys, uint32_t* vals) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    f4 lo, scale;
    ploc_grid(f4{unordered(bounds[0]), unordered(bounds[1]), unordered(bounds[2]), 0},
              f4{unordered(bounds[3]), unordered(bounds[4]), unordered(bounds[5]), 0}, lo, scale);
    keys[i] = ploc_morton(boxes[2 * i], boxes[2 * i + 1], lo, scale);
    vals[i] = i;
}

__global__ void k_leaves(const f4* boxes, const uint32_t* sorted, uint32_t n, PlocNode* nodes, uint32_t* cluster,
                         PlocNode* box) {
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const uint32_t p = sorted[k];
    nodes[k] = box[k] = ploc_leaf(boxes[2 * p], boxes[2 * p + 1], p);
    cluster[k] = k;
}

// Step 5 (accel/ploc.h ploc_fold, ploc_place_child) on the device.
constexpr uint32_t kNone = 0xffffffffu;     // the root's parent
constexpr uint32_t kHidden = 0xffffffffu;   // flat: inside a node that became one leaf
constexpr uint32_t kLeafSlot = 0xfffffffeu; // flat: a node that became one leaf

__global__ void k_parents(const PlocNode* nodes, uint32_t n, uint32_t* parent) {
    const uint32_t i = n + blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 2 * n - 1) return;
    parent[ploc_left(nodes[i])] = i;
    parent[ploc_right(nodes[i])] = i;
}

// Bottom up from every leaf; at each inner node the second child's thread goes on (the
// first stops), so a node is folded once both its children are. Which thread comes
// second does not matter: the fold is a function of the children alone.
__device__ PlocFold load_fold(const PlocFold* fold, uint32_t i) {
    return PlocFold{__ldcg(&fold[i].count), __ldcg(&fold[i].inner), __ldcg(&fold[i].cost)};
}
__global__ void k_fold(const PlocNode* nodes, uint32_t n, const uint32_t* parent, uint32_t* visits, PlocFold* fold) {
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    fold[k] = ploc_fold_leaf(nodes[k]);
    for (uint32_t x = parent[k]; x != kNone; x = parent[x]) {
        __threadfence();  // this child's fold, before its arrival is counted
        if (atomicAdd(&visits[x - n], 1u) == 0) return;
        __threadfence();
        const PlocNode p = nodes[x];
        fold[x] = ploc_fold(p, load_fold(fold, uint32_t(ploc_left(p))), load_fold(fold, uint32_t(ploc_right(p))));
    }
}

// Every node's place, from the root down its path: the sum of ploc_place_child's steps.
__global__ void k_place(const PlocNode* nodes, uint32_t n, const uint32_t* parent, const PlocFold* fold,
                        uint32_t* flat, uint32_t* first) {
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= 2 * n - 1) return;
    uint32_t f = 0, o = 0;
    for (uint32_t y = x, p; (p = parent[y]) != kNone; y = p) {
        const PlocFold fp = fold[p];
        if (fp.inner == 0) {
            flat[x] = kHidden;
            return;
        }
        const int32_t left = ploc_left(nodes[p]);
        ploc_place_child(int32_t(y) != left, fold[left], f, o, f, o);
    }
    flat[x] = fold[x].inner == 0 ? kLeafSlot : f;
    first[x] = o;
}

// The layout's nodes, and each leaf's primitives in order.
__global__ void k_emit(const PlocNode* nodes, uint32_t n, const PlocFold* fold, const uint32_t* flat,
                       const uint32_t* first, BvhNode* out, uint32_t* order) {
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= 2 * n - 1 || flat[x] == kHidden) return;
    if (flat[x] == kLeafSlot) {
        // At most kMaxLeafPrims leaves below: left to right with a short stack.
        int32_t stack[2 * kMaxLeafPrims];
        int top = 0;
        uint32_t at = first[x];
        stack[top++] = int32_t(x);
        while (top > 0) {
            const PlocNode& c = nodes[stack[--top]];
            if (ploc_left(c) < 0) {
                order[at++] = uint32_t(~ploc_left(c));
            } else {
                stack[top++] = ploc_right(c);
                stack[top++] = ploc_left(c);
            }
        }
        return;
    }
    const PlocNode& p = nodes[x];
    BvhNode b;
    const int32_t kids[2] = {ploc_left(p), ploc_right(p)};
    for (int side = 0; side < 2; ++side) {
        const PlocNode& c = nodes[kids[side]];
        const glm::vec3 lo(c.lo.x, c.lo.y, c.lo.z), hi(c.hi.x, c.hi.y, c.hi.z);
        const PlocFold fc = fold[kids[side]];
        if (fc.inner == 0)
            set_bvh_child(b, side, lo, hi, ~int32_t(first[kids[side]]), int32_t(fc.count));
        else
            set_bvh_child(b, side, lo, hi, int32_t(flat[kids[side]]), 0);
    }
    out[flat[x]] = b;
}

uint32_t blocks(uint32_t n) { return (n + kBlock - 1) / kBlock; }

class CudaPlocDevice final : public PlocDevice {
public:
    CudaPlocDevice(int device, std::string name) : device_(device), name_(std::move(name)) {}
    std::string name() const override { return name_; }

    PlocResult build(const std::vector<f4>& boxes, PlocCollapse wide) override {
        CUDA_CHECK(cudaSetDevice(device_));
        PlocResult res;
        PlocTimes& times = res.times;
        const uint32_t n = uint32_t(boxes.size() / 2);
        if (n == 0) return res;
        const size_t total = 2 * size_t(n) - 1;
        const uint32_t inner_max = std::max(n - 1, 1u);  // the layout's nodes at most
        // Fewer primitives make one leaf, or a few: the host collapses those.
        const bool collapse = wide != PlocCollapse::None && n > uint32_t(kMaxLeafPrims);
        const WideLayout layout = wide == PlocCollapse::Bvh4 ? WideLayout::Bvh4 : WideLayout::Bvh8;
        const auto t_alloc = std::chrono::steady_clock::now();

        // Every buffer of the build in one allocation, before the first step: the steps'
        // times are then the work and its waits, as a build into buffers the caller sized
        // beforehand (OptiX's) is timed. CUB's temporary bytes first: they size a piece.
        size_t sort_bytes = 0;
        CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, static_cast<uint32_t*>(nullptr),
                                                   static_cast<uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
                                                   static_cast<uint32_t*>(nullptr), n, 0, 30));
        struct {
            f4* boxes;
            uint32_t *bounds, *keys, *vals, *keys_out, *vals_out, *cluster[2], *tail_rounds;
            PlocRoundScratch rounds;
            unsigned char* temp;
            PlocNode *nodes, *box[2];
            RoundState* state;
            uint32_t *parent, *visits, *flat, *first, *order;
            PlocFold* fold;
            BvhNode* out;
            WideCollapse wide;
        } d{};
        arena_.carve(
            [&](DeviceArena& a) {
                d.boxes = a.take<f4>(2 * size_t(n));
                d.bounds = a.take<uint32_t>(6);
                d.keys = a.take<uint32_t>(n);
                d.vals = a.take<uint32_t>(n);
                d.keys_out = a.take<uint32_t>(n);
                d.vals_out = a.take<uint32_t>(n);
                d.rounds.carve(a, n);
                d.temp = a.take<unsigned char>(sort_bytes);
                d.nodes = a.take<PlocNode>(total);
                for (int k = 0; k < 2; ++k) {
                    d.cluster[k] = a.take<uint32_t>(n);
                    d.box[k] = a.take<PlocNode>(n);
                }
                d.state = a.take<RoundState>(2);
                d.tail_rounds = a.take<uint32_t>(1);
                d.parent = a.take<uint32_t>(total);
                d.visits = a.take<uint32_t>(inner_max);
                d.fold = a.take<PlocFold>(total);
                d.flat = a.take<uint32_t>(total);
                d.first = a.take<uint32_t>(total);
                d.out = a.take<BvhNode>(inner_max);
                d.order = a.take<uint32_t>(n);
                if (collapse) d.wide.carve(a, layout, inner_max, n);
            },
            "the PLOC build");
        // The cluster counts come back through page-locked memory, without a blocking copy.
        auto* pinned = static_cast<RoundState*>(pinned_.reserve(4 * sizeof(RoundState)));
        times.allocate = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_alloc).count();
        // The arena is this build's: the renderer wants the memory back.
        struct Release {
            DeviceArena& a;
            ~Release() { a.release(); }
        } release{arena_};

        cuda::Event e0, e1, e2, e3, e4, e5, e6;
        CUDA_CHECK(cudaEventRecord(e0.get()));
        CUDA_CHECK(cudaMemcpy(d.boxes, boxes.data(), boxes.size() * sizeof(f4), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaEventRecord(e1.get()));

        // Morton codes over the centroids' grid, which each thread works out from the
        // bounds as the host does (ploc_grid): no copy back.
        k_init_bounds<<<1, 32>>>(d.bounds, d.state, n);
        k_centroid_bounds<<<std::min(blocks(n), 1024u), kBlock>>>(d.boxes, n, d.bounds);
        k_morton<<<blocks(n), kBlock>>>(d.boxes, n, d.bounds, d.keys, d.vals);
        CUDA_CHECK_LAUNCH("k_morton");
        CUDA_CHECK(cudaEventRecord(e2.get()));

        // CUB's radix sort is stable: ties keep index order, as the host's sort of
        // (code, index) does.
        CUDA_CHECK(cub::DeviceRadixSort::SortPairs(d.temp, sort_bytes, d.keys, d.keys_out, d.vals, d.vals_out, n, 0, 30));
        CUDA_CHECK(cudaEventRecord(e3.get()));

        k_leaves<<<blocks(n), kBlock>>>(d.boxes, d.vals_out, n, d.nodes, d.cluster[0], d.box[0]);
        CUDA_CHECK_LAUNCH("k_leaves");
        d.rounds.reset();
        // Rounds go in batches of kRoundsPerSync. The host learns a batch's cluster count
        // while the next batch runs, and sizes the next grids by it: the GPU never waits
        // for the host. A count is never more than the one it sizes for (counts only fall),
        // and rounds past the last merge change nothing.
        cuda::Event batch_done[2];
        const uint32_t tail = ploc_tail_clusters();
        uint32_t bound = n;
        int round = 0, batch = 0, pending = -1;
        while (bound > tail && uint32_t(round) < kPlocMaxRounds) {
            for (int k = 0; k < kRoundsPerSync && uint32_t(round) < kPlocMaxRounds; ++k, ++round) {
                const int in = round & 1, out = in ^ 1;
                enqueue_ploc_round(d.state, uint32_t(round), d.cluster[in], d.box[in], d.nodes, d.cluster[out],
                                   d.box[out], bound, d.rounds);
            }
            const int slot = batch & 1;
            CUDA_CHECK(cudaMemcpyAsync(pinned + slot, d.state + (round & 1), sizeof(RoundState), cudaMemcpyDeviceToHost));
            CUDA_CHECK(cudaEventRecord(batch_done[slot].get()));
            if (pending >= 0) {
                CUDA_CHECK(cudaEventSynchronize(batch_done[pending].get()));
                bound = pinned[pending].count;
            }
            pending = slot;
            ++batch;
        }
        if (bound > 1 && uint32_t(round) < kPlocMaxRounds) {
            const int in = round & 1;
            enqueue_ploc_tail(d.state + in, d.cluster[in], d.box[in], d.nodes, kPlocMaxRounds - uint32_t(round),
                              d.tail_rounds);
        } else {
            CUDA_CHECK(cudaMemsetAsync(d.tail_rounds, 0, sizeof(uint32_t)));
        }
        // Where the clustering ended: the state the last round (or the tail) left.
        CUDA_CHECK(cudaMemcpyAsync(pinned + 2, d.state + (round & 1), sizeof(RoundState), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpyAsync(&pinned[3].count, d.tail_rounds, sizeof(uint32_t), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaEventRecord(e4.get()));
        CUDA_CHECK(cudaEventSynchronize(e4.get()));
        round += int(pinned[3].count);
        bound = pinned[2].count;
        times.rounds = uint32_t(round);
        const auto ms = [](const cuda::Event& a, const cuda::Event& b) {
            float v = 0;
            CUDA_CHECK(cudaEventElapsedTime(&v, a.get(), b.get()));
            return double(v);
        };
        const auto record_times = [&] {
            times.upload = ms(e0, e1);
            times.morton = ms(e1, e2);
            times.sort = ms(e2, e3);
            times.cluster = ms(e3, e4);
        };
        if (bound > 1) {  // kPlocMaxRounds ran out
            res.complete = false;
            return res;
        }
        if (n <= uint32_t(kMaxLeafPrims)) {
            // Perhaps one leaf, wrapped (accel/bvh.h): the host lays out these few nodes.
            PlocTree t;
            t.nodes.resize(total);
            CUDA_CHECK(cudaMemcpy(t.nodes.data(), d.nodes, total * sizeof(PlocNode), cudaMemcpyDeviceToHost));
            CUDA_CHECK(cudaEventRecord(e5.get()));
            CUDA_CHECK(cudaEventSynchronize(e5.get()));
            record_times();
            t.times = times;
            t.times.download = ms(e4, e5);
            return ploc_layout_host(t);
        }

        // Step 5: the leaves and the layout; the layout's node count stays on the device
        // (the root's fold), where the collapse reads it.
        CUDA_CHECK(cudaMemsetAsync(d.parent + (total - 1), 0xff, sizeof(uint32_t)));
        CUDA_CHECK(cudaMemsetAsync(d.visits, 0, (n - 1) * sizeof(uint32_t)));
        k_parents<<<blocks(n - 1), kBlock>>>(d.nodes, n, d.parent);
        k_fold<<<blocks(n), kBlock>>>(d.nodes, n, d.parent, d.visits, d.fold);
        k_place<<<blocks(uint32_t(total)), kBlock>>>(d.nodes, n, d.parent, d.fold, d.flat, d.first);
        k_emit<<<blocks(uint32_t(total)), kBlock>>>(d.nodes, n, d.fold, d.flat, d.first, d.out, d.order);
        CUDA_CHECK_LAUNCH("PLOC leaves");
        const uint32_t* layout_nodes = &d.fold[total - 1].inner;
        if (collapse) d.wide.enqueue_counts(d.out, layout_nodes);
        CUDA_CHECK(cudaEventRecord(e5.get()));
        // The one wait of the last steps: the layout's size, and the collapse's levels.
        PlocFold root;
        CUDA_CHECK(cudaMemcpy(&root, d.fold + (total - 1), sizeof root, cudaMemcpyDeviceToHost));
        // A tree deeper than traversal's stack allows (a pathological clustering) is not
        // collapsed here; build_bvh_ploc makes the SAH builder's tree instead, and the
        // host collapses that.
        const bool collapsed = collapse && d.wide.read_root(root.inner);
        if (collapsed) d.wide.enqueue_levels(d.out);
        CUDA_CHECK(cudaEventRecord(e6.get()));
        CUDA_CHECK(cudaEventSynchronize(e6.get()));
        record_times();
        times.leaves = ms(e4, e5);
        times.collapse = collapsed ? ms(e5, e6) : 0.0;
        times.collapse_width = collapsed ? (layout == WideLayout::Bvh4 ? 4u : 8u) : 0u;
        times.device = ms(e1, e6);
        const auto t_down = std::chrono::steady_clock::now();
        res.bvh.nodes.resize(root.inner);
        res.bvh.order.resize(n);
        CUDA_CHECK(cudaMemcpy(res.bvh.nodes.data(), d.out, root.inner * sizeof(BvhNode), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(res.bvh.order.data(), d.order, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        if (collapsed && layout == WideLayout::Bvh8) {
            res.bvh8 = d.wide.download_bvh8();
            res.bvh8->stats.build_ms = times.collapse;
        } else if (collapsed) {
            res.bvh4 = d.wide.download_bvh4();
            res.bvh4->stats.build_ms = times.collapse;
        }
        times.download = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_down).count();
        return res;
    }

    Bvh8 collapse_bvh8(const std::vector<BvhNode>& bvh2, size_t prims, double& device_ms) override {
        CUDA_CHECK(cudaSetDevice(device_));
        DeviceBuffer<BvhNode> nodes;
        nodes.upload(bvh2, "BVH nodes");
        return collapse_bvh8_on_device(nodes.get(), uint32_t(bvh2.size()), prims, device_ms);
    }

    Bvh4 collapse_bvh4(const std::vector<BvhNode>& bvh2, double& device_ms) override {
        CUDA_CHECK(cudaSetDevice(device_));
        DeviceBuffer<BvhNode> nodes;
        nodes.upload(bvh2, "BVH nodes");
        return collapse_bvh4_on_device(nodes.get(), uint32_t(bvh2.size()), device_ms);
    }

private:
    int device_;
    std::string name_;
    DeviceArena arena_;
    PinnedBuffer pinned_;
};

}  // namespace

std::unique_ptr<PlocDevice> make_cuda_ploc_device(std::string& why_not, int device) {
    int count = 0;
    const cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess || count <= device) {
        why_not = rc != cudaSuccess ? cudaGetErrorString(rc) : "no CUDA device";
        cudaGetLastError();
        return nullptr;
    }
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    return std::make_unique<CudaPlocDevice>(device, prop.name);
}

}  // namespace srt
