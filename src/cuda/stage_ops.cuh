// stage_ops.cuh - the wavefront's stages as functors (an `Op` per stage: generate,
// intersect, shade, reflect), which the strategies' kernels (cuda/kernels.cuh) call for a
// ray, and what a kernel learns from its ops (dynamic shared memory, lane counting).
#pragma once

#include "cuda/frame_control.cuh"
#include "render/stages.h"

#include <algorithm>
#include <type_traits>

namespace srt::cuda {

// ---------------------------------------------------------------------------
// Stage functors
// ---------------------------------------------------------------------------
struct GenerateOp {
    const FrameControl* ctrl;
    __device__ bool operator()(const FrameContext& f, uint32_t i) const {
        FrameContext g = f;
        g.camera = ctrl->camera;
        g.sample = ctrl->sample;
        sample_offset(g.sample, g.sample_dx, g.sample_dy);
        return stage_generate(g, i);
    }
};
// kWidth: the BVH width (accel/intersect.h); the launcher picks the instantiation.
// An Op that traverses the BVH says how much dynamic shared memory a thread's traversal
// needs (kSharedBytesPerThread: its short stack, accel/traversal_stack.h); the launcher
// gives a kernel the most any of its Op parameters needs (kernel_shared_bytes).
template <int kWidth>
struct IntersectOp {
    static constexpr uint32_t kSharedBytesPerThread = traversal_shared_bytes<kWidth>();
    __device__ bool operator()(const FrameContext& f, uint32_t i) const { return stage_intersect<kWidth>(f, i); }
};
// The path integrator's shade and reflect key their random numbers by the sample, which
// a captured graph's FrameContext does not know: they read it from FrameControl.
__device__ __forceinline__ FrameContext with_sample(const FrameContext& f, const FrameControl* ctrl) {
    FrameContext g = f;
    g.sample = ctrl->sample;
    return g;
}
template <int kWidth>
struct ReflectOp {
    const FrameControl* ctrl;
    __device__ bool operator()(const FrameContext& f, uint32_t i) const {
        // The path integrator's random numbers and --kill (render/kill.h) are keyed by the
        // sample; Whitted's reflect without a kill reads nothing of it.
        if constexpr (path_tracing_of(kWidth) || kill_of(kWidth))
            return stage_reflect<kWidth>(with_sample(f, ctrl), i, int(ctrl->bounce));
        else return stage_reflect<kWidth>(f, i, int(ctrl->bounce));
    }
};
// Whitted's shade needs neither the sample nor the bounce: its op carries nothing, so that
// its kernels are the ones they were before the path integrator (an op holding the
// FrameControl pointer measured 1.5-2% slower in compaction's shade).
template <int kWidth>
struct WhittedShadeOp {
    static constexpr uint32_t kSharedBytesPerThread = traversal_shared_bytes<kWidth>();
    __device__ uint32_t operator()(const FrameContext& f, uint32_t i) const { return stage_shade<kWidth>(f, i, 0); }
};
template <int kWidth>
struct PathShadeOp {
    static constexpr uint32_t kSharedBytesPerThread = traversal_shared_bytes<kWidth>();
    const FrameControl* ctrl;
    __device__ uint32_t operator()(const FrameContext& f, uint32_t i) const {
        return stage_shade<kWidth>(with_sample(f, ctrl), i, int(ctrl->bounce));
    }
};
template <int kWidth>
using ShadeOp = std::conditional_t<path_tracing_of(kWidth), PathShadeOp<kWidth>, WhittedShadeOp<kWidth>>;
template <int kWidth>
ShadeOp<kWidth> shade_op(const FrameControl* ctrl) {
    if constexpr (path_tracing_of(kWidth)) return ShadeOp<kWidth>{ctrl};
    else return ShadeOp<kWidth>{};
}

// Whether a reflect op's dense kernel also counts the live lanes, beside the live words,
// for k_end_bounce's choice of a packed bounce: only the sets that may pack (the path
// integrator's and --kill's), so that Whitted's reflect stays what it was.
template <class T>
struct CountsLanes : std::false_type {};
template <int kWidth>
struct CountsLanes<ReflectOp<kWidth>> : std::bool_constant<path_tracing_of(kWidth) || kill_of(kWidth)> {};

// The dynamic shared memory per thread that kernel `k` needs: the most that any of its
// Op parameters asks for (0 for kernels that do not traverse).
template <class T, class = void>
struct OpSharedBytes {
    static constexpr uint32_t value = 0;
};
template <class T>
struct OpSharedBytes<T, std::void_t<decltype(T::kSharedBytesPerThread)>> {
    static constexpr uint32_t value = T::kSharedBytesPerThread;
};
template <class... P>
constexpr uint32_t kernel_shared_bytes(void (*)(P...)) {
    uint32_t m = 0;
    ((m = std::max(m, OpSharedBytes<P>::value)), ...);
    return m;
}

}  // namespace srt::cuda
