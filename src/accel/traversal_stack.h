// traversal_stack.h - the traversals' stack, shared by host and device, with its first
// kShort entries in shared memory on the device (a "short stack", Ylitie et al. 2017
// section 4) or, with kShort = 0, all in local memory.
//
// On the device, entries 0 .. kShort-1 are in the block's dynamic shared memory, one
// column per thread: entry k of thread t is at (k * blockDim.x + t), so the lanes of a
// warp touch consecutive words whatever their depths (no bank conflicts). Deeper entries
// spill to a per-thread array in local memory (cached in L1). The launch must give the
// kernel blockDim.x * kShort * sizeof(T) bytes of dynamic shared memory: cuda/stage_ops.cuh's
// kernel_shared_bytes finds the bytes per thread from the kernel's Op parameters, and
// the launcher (cuda/frame_launcher.cuh) passes them.
//
// Which is faster is measured, per width, in accel/traversal_common.h (k*ShortStack): on the
// H100 the local stack is. On the host the whole stack is one local array.
#pragma once

#include "core/hd.h"

#include <cstdint>

namespace srt {

#if defined(__CUDA_ARCH__)
// The block's dynamic shared memory as entries of type T, where the short stacks are
// (every traversal of a kernel uses the same bytes: one traversal runs at a time per
// thread). Indexing the extern array itself at each access lets the compiler see that
// the access is to shared memory (LDS and STS, no generic loads).
template <class T>
__device__ __forceinline__ T* traversal_shared() {
    extern __shared__ __align__(16) unsigned char srt_dynamic_shared[];
    return reinterpret_cast<T*>(srt_dynamic_shared);
}
#endif

// T: a trivially copyable entry. kSize: the most entries a traversal can push. kShort:
// how many of them are in shared memory on the device; 0: all in local memory.
template <class T, int kSize, int kShort>
class TraversalStack {
    static_assert(kShort >= 0 && kShort < kSize, "the short part is the start of the stack");

public:
    static constexpr int kCapacity = kSize;
    // The shared memory each thread needs for the short part.
    static constexpr uint32_t kSharedBytesPerThread = uint32_t(kShort * sizeof(T));
    // The caller's array for the rest (on the host: all of it), declared apart from the
    // stack object. A first version held it, and a T* into shared memory, as members:
    // the compiler kept the whole object in local memory, and every push and pop loaded
    // the counter and the pointer from there and went through generic stores and loads
    // (seen in the SASS of the BVH8 intersect kernel; frames 2-4% slower on the H100).
#if defined(__CUDA_ARCH__)
    using Spill = T[kSize - kShort];
#else
    using Spill = T[kSize];
#endif

    SRT_HD_INLINE explicit TraversalStack(Spill& spill) : spill_(spill) {
#if defined(__CUDA_ARCH__)
        column_ = threadIdx.x;
        stride_ = blockDim.x;
#endif
    }
    SRT_HD_INLINE bool empty() const { return sp_ == 0; }
    SRT_HD_INLINE void push(T v) {
#if defined(__CUDA_ARCH__)
        if (kShort > 0 && sp_ < kShort)
            traversal_shared<T>()[uint32_t(sp_) * stride_ + column_] = v;
        else
            spill_[sp_ - kShort] = v;
#else
        spill_[sp_] = v;
#endif
        ++sp_;
    }
    SRT_HD_INLINE T pop() {
        --sp_;
#if defined(__CUDA_ARCH__)
        return kShort > 0 && sp_ < kShort ? traversal_shared<T>()[uint32_t(sp_) * stride_ + column_]
                                          : spill_[sp_ - kShort];
#else
        return spill_[sp_];
#endif
    }

private:
    T* spill_;
    int sp_ = 0;
#if defined(__CUDA_ARCH__)
    uint32_t column_;  // entry k is at k * stride_ + column_: a column per thread
    uint32_t stride_;
#endif
};

}  // namespace srt
