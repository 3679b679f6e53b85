// The traversals' short stack on the device (accel/traversal_stack.h): every thread of
// blocks of odd and even sizes fills its stack past the shared part into the local
// spill and back, pushing again half way; each pop must return what that thread pushed
// there, so a column that overlapped another thread's, or an entry lost at the boundary
// between shared and local memory, fails.
#include "accel/intersect.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>

using namespace srt;

namespace {

__device__ int32_t entry(int32_t*, uint32_t id, int k) { return int32_t(id * 1000u + uint32_t(k)); }
__device__ Bvh8Group entry(Bvh8Group*, uint32_t id, int k) { return Bvh8Group{id, uint32_t(k) * 7u + 1u}; }
__device__ bool same(int32_t a, int32_t b) { return a == b; }
__device__ bool same(Bvh8Group a, Bvh8Group b) { return a.base == b.base && a.hits == b.hits; }

template <class Stack, class T>
__global__ void k_stack_round_trip(uint32_t* errors) {
    typename Stack::Spill spill;
    Stack st(spill);
    const uint32_t id = blockIdx.x * blockDim.x + threadIdx.x;
    const int n = Stack::kCapacity - int(id % 5u);  // threads of a warp at different depths
    const int half = n / 2;
    uint32_t bad = 0;
    for (int k = 0; k < n; ++k) st.push(entry((T*)nullptr, id, k));
    for (int k = n - 1; k >= half; --k) bad += !same(st.pop(), entry((T*)nullptr, id, k));
    for (int k = half; k < n; ++k) st.push(entry((T*)nullptr, id, k + 500));
    for (int k = n - 1; k >= half; --k) bad += !same(st.pop(), entry((T*)nullptr, id, k + 500));
    for (int k = half - 1; k >= 0; --k) bad += !same(st.pop(), entry((T*)nullptr, id, k));
    bad += !st.empty();
    if (bad) atomicAdd(errors, bad);
}

template <class Stack, class T>
void round_trip(const char* name) {
    uint32_t* errors = nullptr;
    ASSERT_EQ(cudaMalloc(&errors, sizeof(uint32_t)), cudaSuccess);
    for (int block : {97, 128, 1024}) {
        ASSERT_EQ(cudaMemset(errors, 0, sizeof(uint32_t)), cudaSuccess);
        k_stack_round_trip<Stack, T><<<3, block, size_t(block) * Stack::kSharedBytesPerThread>>>(errors);
        ASSERT_EQ(cudaGetLastError(), cudaSuccess) << name << " block " << block;
        uint32_t bad = 1;
        ASSERT_EQ(cudaMemcpy(&bad, errors, sizeof bad, cudaMemcpyDeviceToHost), cudaSuccess);
        EXPECT_EQ(bad, 0u) << name << ", blocks of " << block << ": entries that came back wrong";
        std::printf("[stack] %-11s blocks of %4d: %u wrong entries\n", name, block, bad);
    }
    cudaFree(errors);
}

}  // namespace

// The traversals' own stacks (accel/intersect.h), and short stacks of both entry types
// with their first entries in shared memory, whatever the traversals use now.
TEST(Gpu, TraversalStackRoundTrips) {
    round_trip<Bvh2Stack, int32_t>("bvh2");
    round_trip<Bvh4Stack, int32_t>("bvh4");
    round_trip<Bvh8Stack, Bvh8Group>("bvh8");
    round_trip<TraversalStack<int32_t, kBvhStackSize, 8>, int32_t>("short-int32");
    round_trip<TraversalStack<Bvh8Group, kBvh8StackSize, 4>, Bvh8Group>("short-group");
}
