// ploc_build.cu - PLOC's five steps (accel/ploc.h) as kernels: the same functions the
// host runs, one thread an index, so the GPU's tree is the host's bit for bit. Only the
// finished layout and its order come back.
//
// A round is four launches (nearest, flags, CUB's exclusive sum, merge). The host
// learns the cluster count only every kRoundsPerSync rounds: the kernels read the count
// of their round from the device, and a round with one cluster left changes nothing,
// so rounds past the end are harmless.
#include "cuda/ploc_device.h"

#include "cuda/bvh8_device.h"

#include "cuda/check.h"
#include "cuda/device_buffer.h"
#include "cuda/event.h"

#include <cub/cub.cuh>

#include <cuda_runtime.h>

namespace srt {
namespace {

constexpr int kBlock = 256;
constexpr int kRoundsPerSync = 4;

// A float's bits in an order that unsigned comparison keeps (for atomicMin/atomicMax).
__device__ uint32_t ordered(float f) {
    const uint32_t b = __float_as_uint(f);
    return (b & 0x80000000u) ? ~b : b | 0x80000000u;
}
float unordered(uint32_t u) { return bits_float((u & 0x80000000u) ? u & 0x7fffffffu : ~u); }

// The clustering's counts of a round: clusters left, nodes made so far.
struct RoundState {
    uint32_t count, made;
};

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

__global__ void k_morton(const f4* boxes, uint32_t n, f4 lo, f4 scale, uint32_t* keys, uint32_t* vals) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
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

__global__ void k_nearest(const RoundState* state, const PlocNode* box, uint32_t* nn) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t count = state->count;
    if (i >= count) return;
    nn[i] = ploc_nearest(i, count, box);
}

__global__ void k_flags(const RoundState* state, const uint32_t* nn, uint32_t bound, uint64_t* flag) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= bound) return;
    flag[i] = i < state->count ? ploc_flag(i, nn) : 0u;
}

__global__ void k_merge(const RoundState* state, const uint32_t* cluster, const PlocNode* box, const uint32_t* nn,
                        const uint64_t* flag, const uint64_t* sum, PlocNode* nodes, uint32_t* next_cluster,
                        PlocNode* next_box, RoundState* next_state) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    const RoundState s = *state;
    if (i >= s.count) return;
    ploc_merge(i, cluster, box, nn, flag, sum, s.made, nodes, next_cluster, next_box);
    if (i == s.count - 1) {
        const uint64_t total = sum[i] + flag[i];
        *next_state = RoundState{uint32_t(total & 0xffffffffu), s.made + uint32_t(total >> 32)};
    }
}

// The last rounds, once few clusters are left, in one block, the clusters' boxes in its
// shared memory: __syncthreads stands in for the launches between a round's steps, whose
// cost (some 5 us each, four a round) is most of a round's there, and the neighbour search
// reads shared memory, not L2. The same steps, so the same tree: a round's merges are
// worked out (ploc_merged) before any cluster moves to its place, so the boxes can move
// in place; a cluster's box is its node's, so each mover reads it from `nodes`.
constexpr int kTailThreads = 1024;
constexpr int kTailItems = 4;
constexpr uint32_t kTailClusters = uint32_t(kTailThreads * kTailItems);
constexpr size_t kTailShared = kTailClusters * (sizeof(PlocNode) + 2 * sizeof(uint32_t));

__global__ void __launch_bounds__(kTailThreads)
    k_tail(RoundState* state, const uint32_t* cluster_in, const PlocNode* box_in, PlocNode* nodes,
           uint32_t rounds_left, uint32_t* rounds_run) {
    using Scan = cub::BlockScan<uint64_t, kTailThreads>;
    __shared__ typename Scan::TempStorage scan;
    extern __shared__ uint4 tail_shared[];
    PlocNode* box = reinterpret_cast<PlocNode*>(tail_shared);
    uint32_t* cluster = reinterpret_cast<uint32_t*>(box + kTailClusters);
    uint32_t* nn = cluster + kTailClusters;
    uint32_t count = state->count, made = state->made, rounds = 0;
    for (uint32_t i = threadIdx.x; i < count; i += blockDim.x) {
        box[i] = box_in[i];
        cluster[i] = cluster_in[i];
    }
    __syncthreads();
    while (count > 1 && rounds < rounds_left) {
        for (uint32_t i = threadIdx.x; i < count; i += blockDim.x) nn[i] = ploc_nearest(i, count, box);
        __syncthreads();
        uint64_t flag[kTailItems], sum[kTailItems];
        for (int k = 0; k < kTailItems; ++k) {
            const uint32_t i = threadIdx.x * kTailItems + uint32_t(k);
            flag[k] = i < count ? ploc_flag(i, nn) : 0u;
        }
        uint64_t total;
        Scan(scan).ExclusiveSum(flag, sum, total);
        uint32_t place[kTailItems], id[kTailItems];
        bool moves[kTailItems];
        for (int k = 0; k < kTailItems; ++k) {
            const uint32_t i = threadIdx.x * kTailItems + uint32_t(k);
            moves[k] = i < count && ploc_merged(i, cluster, box, nn, flag[k], sum[k], made, nodes, place[k], id[k]);
        }
        __syncthreads();  // every box read; the new nodes written
        for (int k = 0; k < kTailItems; ++k)
            if (moves[k]) {
                cluster[place[k]] = id[k];
                box[place[k]] = nodes[id[k]];
            }
        __syncthreads();
        made += uint32_t(total >> 32);
        count = uint32_t(total & 0xffffffffu);
        ++rounds;
    }
    if (threadIdx.x == 0) {
        *rounds_run = rounds;
        state->count = count;
    }
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

    PlocResult build(const std::vector<f4>& boxes, bool bvh8) override {
        CUDA_CHECK(cudaSetDevice(device_));
        PlocResult res;
        PlocTimes& times = res.times;
        const uint32_t n = uint32_t(boxes.size() / 2);
        if (n == 0) return res;
        cuda::Event e0, e1, e2, e3, e4, e5, e6;
        CUDA_CHECK(cudaEventRecord(e0.get()));
        DeviceBuffer<f4> d_boxes;
        d_boxes.upload(boxes, "the primitives' boxes");
        CUDA_CHECK(cudaEventRecord(e1.get()));

        // Morton codes over the centroids' grid, the grid as the host computes it.
        DeviceBuffer<uint32_t> bounds, keys, vals, keys_out, vals_out;
        bounds.allocate(6, "bounds");
        const uint32_t init[6] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0, 0, 0};
        CUDA_CHECK(cudaMemcpy(bounds.get(), init, sizeof init, cudaMemcpyHostToDevice));
        k_centroid_bounds<<<std::min(blocks(n), 1024u), kBlock>>>(d_boxes.get(), n, bounds.get());
        CUDA_CHECK_LAUNCH("k_centroid_bounds");
        uint32_t got[6];
        CUDA_CHECK(cudaMemcpy(got, bounds.get(), sizeof got, cudaMemcpyDeviceToHost));
        f4 grid_lo, scale;
        ploc_grid(f4{unordered(got[0]), unordered(got[1]), unordered(got[2]), 0},
                  f4{unordered(got[3]), unordered(got[4]), unordered(got[5]), 0}, grid_lo, scale);
        keys.allocate(n, "Morton codes");
        vals.allocate(n, "Morton order");
        keys_out.allocate(n, "Morton codes");
        vals_out.allocate(n, "Morton order");
        k_morton<<<blocks(n), kBlock>>>(d_boxes.get(), n, grid_lo, scale, keys.get(), vals.get());
        CUDA_CHECK_LAUNCH("k_morton");
        CUDA_CHECK(cudaEventRecord(e2.get()));

        // CUB's radix sort is stable: ties keep index order, as the host's sort of
        // (code, index) does.
        size_t sort_bytes = 0, scan_bytes = 0;
        CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys.get(), keys_out.get(), vals.get(),
                                                   vals_out.get(), n, 0, 30));
        DeviceBuffer<uint64_t> flag, sum;
        flag.allocate(n, "PLOC flags");
        sum.allocate(n, "PLOC sums");
        CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, flag.get(), sum.get(), n));
        DeviceBuffer<unsigned char> temp;
        temp.allocate(std::max(sort_bytes, scan_bytes), "CUB's temporary storage");
        CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(), sort_bytes, keys.get(), keys_out.get(), vals.get(),
                                                   vals_out.get(), n, 0, 30));
        CUDA_CHECK(cudaEventRecord(e3.get()));

        DeviceBuffer<PlocNode> nodes;
        nodes.allocate(2 * size_t(n) - 1, "PLOC nodes");
        DeviceBuffer<uint32_t> cluster[2], nn;
        DeviceBuffer<PlocNode> box[2];
        for (int k = 0; k < 2; ++k) {
            cluster[k].allocate(n, "PLOC clusters");
            box[k].allocate(n, "PLOC clusters' boxes");
        }
        nn.allocate(n, "PLOC neighbours");
        k_leaves<<<blocks(n), kBlock>>>(d_boxes.get(), vals_out.get(), n, nodes.get(), cluster[0].get(), box[0].get());
        CUDA_CHECK_LAUNCH("k_leaves");
        DeviceBuffer<RoundState> state;
        state.allocate(2, "PLOC state");
        const RoundState start{n, n};
        CUDA_CHECK(cudaMemcpy(state.get(), &start, sizeof start, cudaMemcpyHostToDevice));
        uint32_t bound = n;  // the count as the host last learnt it: no round has more
        int round = 0;
        while (bound > kTailClusters && uint32_t(round) < kPlocMaxRounds) {
            for (int k = 0; k < kRoundsPerSync; ++k, ++round) {
                const int in = round & 1, out = in ^ 1;
                const RoundState* s = state.get() + in;
                k_nearest<<<blocks(bound), kBlock>>>(s, box[in].get(), nn.get());
                k_flags<<<blocks(bound), kBlock>>>(s, nn.get(), bound, flag.get());
                CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), scan_bytes, flag.get(), sum.get(), bound));
                k_merge<<<blocks(bound), kBlock>>>(s, cluster[in].get(), box[in].get(), nn.get(), flag.get(), sum.get(),
                                                   nodes.get(), cluster[out].get(), box[out].get(), state.get() + out);
                CUDA_CHECK_LAUNCH("PLOC round");
            }
            RoundState now;
            CUDA_CHECK(cudaMemcpy(&now, state.get() + (round & 1), sizeof now, cudaMemcpyDeviceToHost));
            bound = now.count;
        }
        if (bound > 1 && uint32_t(round) < kPlocMaxRounds) {
            const int in = round & 1;
            DeviceBuffer<uint32_t> tail_rounds;
            tail_rounds.allocate(1, "PLOC rounds");
            CUDA_CHECK(cudaFuncSetAttribute(k_tail, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kTailShared)));
            k_tail<<<1, kTailThreads, kTailShared>>>(state.get() + in, cluster[in].get(), box[in].get(), nodes.get(),
                                                     kPlocMaxRounds - uint32_t(round), tail_rounds.get());
            CUDA_CHECK_LAUNCH("k_tail");
            uint32_t ran = 0;
            RoundState now;
            CUDA_CHECK(cudaMemcpy(&ran, tail_rounds.get(), sizeof ran, cudaMemcpyDeviceToHost));
            CUDA_CHECK(cudaMemcpy(&now, state.get() + in, sizeof now, cudaMemcpyDeviceToHost));
            round += int(ran);
            bound = now.count;
        }
        times.rounds = uint32_t(round);
        CUDA_CHECK(cudaEventRecord(e4.get()));
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
        const size_t total = 2 * size_t(n) - 1;
        if (n <= uint32_t(kMaxLeafPrims)) {
            // Perhaps one leaf, wrapped (accel/bvh.h): the host lays out these few nodes.
            PlocTree t;
            t.nodes.resize(total);
            CUDA_CHECK(cudaMemcpy(t.nodes.data(), nodes.get(), total * sizeof(PlocNode), cudaMemcpyDeviceToHost));
            CUDA_CHECK(cudaEventRecord(e5.get()));
            CUDA_CHECK(cudaEventSynchronize(e5.get()));
            record_times();
            t.times = times;
            t.times.download = ms(e4, e5);
            return ploc_layout_host(t);
        }

        // Step 5: the leaves and the layout.
        DeviceBuffer<uint32_t> parent, visits, flat, first;
        DeviceBuffer<PlocFold> fold;
        parent.allocate(total, "PLOC parents");
        visits.allocate(n - 1, "PLOC visits");
        fold.allocate(total, "PLOC folds");
        flat.allocate(total, "PLOC places");
        first.allocate(total, "PLOC places");
        CUDA_CHECK(cudaMemset(parent.get() + (total - 1), 0xff, sizeof(uint32_t)));
        CUDA_CHECK(cudaMemset(visits.get(), 0, (n - 1) * sizeof(uint32_t)));
        k_parents<<<blocks(n - 1), kBlock>>>(nodes.get(), n, parent.get());
        k_fold<<<blocks(n), kBlock>>>(nodes.get(), n, parent.get(), visits.get(), fold.get());
        k_place<<<blocks(uint32_t(total)), kBlock>>>(nodes.get(), n, parent.get(), fold.get(), flat.get(), first.get());
        CUDA_CHECK_LAUNCH("PLOC leaves");
        PlocFold root;
        CUDA_CHECK(cudaMemcpy(&root, fold.get() + (total - 1), sizeof root, cudaMemcpyDeviceToHost));
        DeviceBuffer<BvhNode> out;
        DeviceBuffer<uint32_t> order;
        out.allocate(root.inner, "BVH nodes");
        order.allocate(n, "BVH order");
        k_emit<<<blocks(uint32_t(total)), kBlock>>>(nodes.get(), n, fold.get(), flat.get(), first.get(), out.get(),
                                                    order.get());
        CUDA_CHECK_LAUNCH("k_emit");
        CUDA_CHECK(cudaEventRecord(e5.get()));
        if (bvh8) {
            try {
                res.bvh8 = std::make_shared<Bvh8>(collapse_bvh8_on_device(out.get(), root.inner, n, times.collapse));
            } catch (const std::length_error&) {
                // Too deep for traversal's stack: build_bvh_ploc makes the SAH builder's
                // tree instead, and the host collapses that.
            }
        }
        res.bvh.nodes.resize(root.inner);
        res.bvh.order.resize(n);
        CUDA_CHECK(cudaMemcpy(res.bvh.nodes.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(res.bvh.order.data(), order.get(), order.bytes(), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaEventRecord(e6.get()));
        CUDA_CHECK(cudaEventSynchronize(e6.get()));
        record_times();
        times.leaves = ms(e4, e5);
        times.download = ms(e5, e6) - times.collapse;
        return res;
    }

    Bvh8 collapse_bvh8(const std::vector<BvhNode>& bvh2, size_t prims, double& device_ms) override {
        CUDA_CHECK(cudaSetDevice(device_));
        DeviceBuffer<BvhNode> nodes;
        nodes.upload(bvh2, "BVH nodes");
        return collapse_bvh8_on_device(nodes.get(), uint32_t(bvh2.size()), prims, device_ms);
    }

private:
    int device_;
    std::string name_;
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
