// ploc_rounds.cu - PLOC's clustering rounds (accel/ploc.h step 4) as kernels: the same
// functions the host runs, so the rounds merge the same pairs into the same nodes.
//
//   k_round  one launch a round (as PLOC++, Benthin et al. 2022): a block takes a tile
//            of 256 clusters and the 32 on either side into shared memory, finds the
//            nearest neighbours of its tile and of the 16 on either side (the flags read
//            a neighbour's neighbour), sums its flags, learns the sum of the tiles
//            before it by a decoupled look-back (Merrill and Garland 2016), and merges.
//            Four launches a round before (nearest, flags, CUB's scan, merge): their
//            gaps were most of a round once clusters were few.
//   k_tail   the last rounds in one block, the boxes in its shared memory.
//
// Determinism: a tile's sum is exact whatever order the tiles finish in, so the places,
// the new nodes' ids and the tree are the host's.
#include "cuda/ploc_rounds.h"

#include "cuda/check.h"

#include <cub/cub.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>

namespace srt {
namespace {

// A block's clusters, one a thread: four a thread made a round one tile's latency, four
// neighbour searches in a row (docs/performance.md, "The GPU builder").
constexpr uint32_t kThreads = 256;
constexpr uint32_t kTile = kThreads;
constexpr uint32_t kHalo = 2 * kPlocRadius;    // boxes a tile reads past its ends

// A window of a round's array, held from `base` on: indexed by the cluster, as the
// accel/ploc.h steps index the whole array.
template <class T>
struct Window {
    const T* at;
    int32_t base;
    __device__ T operator[](uint32_t i) const { return at[int32_t(i) - base]; }
};

// A tile's status for the look-back, in one word, so that a reader sees a sum and its
// kind together: the kind in the top two bits (0 not yet, 1 the tile's own sum, 2 the
// sum of it and every tile before it), then the merges and the clusters kept, 31 bits
// each (a round has fewer than 2^31 clusters).
constexpr uint64_t kOwn = 1ull << 62, kInclusive = 2ull << 62;
__device__ uint64_t pack(uint64_t kind, uint64_t sum) { return kind | (sum >> 32) << 31 | (sum & 0x7fffffffu); }
__device__ uint64_t unpack(uint64_t st) { return (st >> 31 & 0x7fffffffu) << 32 | (st & 0x7fffffffu); }
__device__ void publish(uint64_t* status, uint32_t tile, uint64_t word) {
    *reinterpret_cast<volatile uint64_t*>(status + tile) = word;
}

using Reduce = cub::BlockReduce<uint64_t, kThreads>;
struct LookBack {
    typename Reduce::TempStorage reduce;
    uint32_t stop;
    uint64_t sum;
};

// The whole block: the sum of the flags of every tile before `tile`, read kThreads tiles
// at a time from the nearest back, until one has published its inclusive sum. Tiles
// that run together finish together, so most have only their own sums out when the
// others look: a window as wide as the block keeps the walk back short (one warp's 32
// made it 30 us a round at Conference's 1,294 tiles).
__device__ uint64_t look_back(const uint64_t* status, uint32_t tile, LookBack& lb) {
    uint64_t before = 0;
    for (int32_t last = int32_t(tile) - 1;; last -= int32_t(kThreads)) {
        const int32_t p = last - int32_t(threadIdx.x);
        uint64_t st = kInclusive;  // before tile 0: nothing
        if (p >= 0)
            do {
                st = *reinterpret_cast<const volatile uint64_t*>(status + p);
            } while ((st >> 62) == 0);
        if (threadIdx.x == 0) lb.stop = kThreads;
        __syncthreads();
        if ((st >> 62) == 2) atomicMin(&lb.stop, threadIdx.x);
        __syncthreads();
        const uint32_t stop = lb.stop;
        const uint64_t window = Reduce(lb.reduce).Sum(threadIdx.x <= stop ? unpack(st) : 0u);
        if (threadIdx.x == 0) lb.sum = window;
        __syncthreads();
        before += lb.sum;
        if (stop < kThreads) return before;
        __syncthreads();  // lb reused
    }
}

__global__ void __launch_bounds__(kThreads)
    k_round(RoundState* state, int in, const uint32_t* cluster, const PlocNode* box, PlocNode* nodes,
            uint32_t* next_cluster, PlocNode* next_box, uint64_t* status, uint64_t* next_status, uint32_t* ticket) {
    // `in` picks this round's state and ticket; the other ones are the next round's.
    using Scan = cub::BlockScan<uint64_t, kThreads>;
    __shared__ union {
        typename Scan::TempStorage scan;
        LookBack look_back;
    } temp;
    __shared__ PlocNode s_box[kTile + 2 * kHalo];
    __shared__ uint32_t s_nn[kTile + 2 * kPlocRadius];
    __shared__ uint32_t s_tile;
    // Tiles in the order blocks start, so that a tile's look-back waits only on started ones.
    if (threadIdx.x == 0) {
        s_tile = atomicAdd(&ticket[in], 1u);
        if (s_tile == 0) ticket[in ^ 1] = 0;  // the next round's, unused since the last round
    }
    __syncthreads();
    const uint32_t tile = s_tile;
    if (threadIdx.x == 0) next_status[tile] = 0;  // the next round has no more tiles than this one
    const RoundState s = state[in];
    const uint32_t begin = tile * kTile;
    if (begin >= s.count) return;

    const int32_t box_base = int32_t(begin) - int32_t(kHalo);
    for (uint32_t t = threadIdx.x; t < kTile + 2 * kHalo; t += kThreads) {
        const int32_t j = box_base + int32_t(t);
        if (j >= 0 && uint32_t(j) < s.count) s_box[t] = box[j];
    }
    __syncthreads();
    const Window<PlocNode> boxes{s_box, box_base};
    const int32_t nn_base = int32_t(begin) - int32_t(kPlocRadius);
    for (uint32_t t = threadIdx.x; t < kTile + 2 * kPlocRadius; t += kThreads) {
        const int32_t i = nn_base + int32_t(t);
        if (i >= 0 && uint32_t(i) < s.count) s_nn[t] = ploc_nearest(uint32_t(i), s.count, boxes);
    }
    __syncthreads();
    const Window<uint32_t> nn{s_nn, nn_base};
    const uint32_t i = begin + threadIdx.x;  // this thread's cluster
    const uint64_t flag = i < s.count ? ploc_flag(i, nn) : 0u;
    uint64_t sum, tile_sum;
    Scan(temp.scan).ExclusiveSum(flag, sum, tile_sum);
    uint64_t before = 0;
    if (tile == 0) {
        if (threadIdx.x == 0) publish(status, tile, pack(kInclusive, tile_sum));
    } else {
        if (threadIdx.x == 0) publish(status, tile, pack(kOwn, tile_sum));
        __syncthreads();  // the scan's storage, reused
        before = look_back(status, tile, temp.look_back);
        if (threadIdx.x == 0) publish(status, tile, pack(kInclusive, before + tile_sum));
    }
    if (i >= s.count) return;
    ploc_merge(i, cluster, boxes, nn, flag, before + sum, s.made, nodes, next_cluster, next_box);
    if (i == s.count - 1) {
        const uint64_t total = before + sum + flag;
        state[in ^ 1] = RoundState{uint32_t(total & 0xffffffffu), s.made + uint32_t(total >> 32)};
    }
}

// The last rounds, once few clusters are left, in one block, the clusters' boxes in its
// shared memory: __syncthreads stands in for a round's launch. The same steps, so the
// same tree: a round's merges are worked out (ploc_merged) before any cluster moves to
// its place, so the boxes can move in place; a cluster's box is its node's, so each mover
// reads it from `nodes`.
constexpr int kTailThreads = 1024;
constexpr int kTailItems = 4;
constexpr uint32_t kTailMax = uint32_t(kTailThreads * kTailItems);
constexpr size_t kTailShared = kTailMax * (sizeof(PlocNode) + 2 * sizeof(uint32_t));

__global__ void __launch_bounds__(kTailThreads)
    k_tail(RoundState* state, const uint32_t* cluster_in, const PlocNode* box_in, PlocNode* nodes,
           uint32_t rounds_left, uint32_t* rounds_run) {
    using Scan = cub::BlockScan<uint64_t, kTailThreads>;
    __shared__ typename Scan::TempStorage scan;
    extern __shared__ uint4 tail_shared[];
    PlocNode* box = reinterpret_cast<PlocNode*>(tail_shared);
    uint32_t* cluster = reinterpret_cast<uint32_t*>(box + kTailMax);
    uint32_t* nn = cluster + kTailMax;
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

}  // namespace

uint32_t ploc_tail_clusters() {
    // SRT_PLOC_TAIL: where the tail starts, for measuring it (docs/performance.md); the
    // tree does not depend on it.
    static const uint32_t v = [] {
        const char* env = std::getenv("SRT_PLOC_TAIL");
        const unsigned long t = env ? std::strtoul(env, nullptr, 10) : 2048ul;
        return uint32_t(std::min<unsigned long>(std::max<unsigned long>(t, 1ul), kTailMax));
    }();
    return v;
}

void PlocRoundScratch::carve(DeviceArena& a, uint32_t clusters) {
    tiles = std::max<uint32_t>((clusters + kTile - 1) / kTile, 1u);
    status[0] = a.take<uint64_t>(tiles);
    status[1] = a.take<uint64_t>(tiles);
    ticket = a.take<uint32_t>(2);
}

void PlocRoundScratch::reset() const {
    CUDA_CHECK(cudaMemsetAsync(status[0], 0, tiles * sizeof(uint64_t)));
    CUDA_CHECK(cudaMemsetAsync(ticket, 0, 2 * sizeof(uint32_t)));
}

void enqueue_ploc_round(RoundState* state, uint32_t round, const uint32_t* cluster, const PlocNode* box,
                        PlocNode* nodes, uint32_t* next_cluster, PlocNode* next_box, uint32_t bound,
                        const PlocRoundScratch& s) {
    const uint32_t tiles = (bound + kTile - 1) / kTile;
    const int in = int(round & 1u);
    k_round<<<tiles, kThreads>>>(state, in, cluster, box, nodes, next_cluster, next_box, s.status[in], s.status[in ^ 1],
                                 s.ticket);
    CUDA_CHECK_LAUNCH("PLOC round");
}

void enqueue_ploc_tail(RoundState* state, const uint32_t* cluster, const PlocNode* box, PlocNode* nodes,
                       uint32_t rounds_left, uint32_t* rounds_run) {
    CUDA_CHECK(cudaFuncSetAttribute(k_tail, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kTailShared)));
    k_tail<<<1, kTailThreads, kTailShared>>>(state, cluster, box, nodes, rounds_left, rounds_run);
    CUDA_CHECK_LAUNCH("k_tail");
}

}  // namespace srt
