// kernels.cuh - the wavefront stages as CUDA kernels: thin wrappers that map a thread
// to a ray, apply the dead-ray strategy, and call the shared stage function
// (render/stages.h) that the CPU executor also calls.
//
// One kernel template per (strategy, reads-or-writes-liveness); the stage is an `Op`
// functor. The stencil invariant is in render/stencil.h; the rules that matter here:
//   * a warp whose word is 0 does no pass over it (warp-uniform, no collective skipped);
//   * inside a live warp no lane returns before __ballot_sync: a dead lane votes 0.
//
// The frame runs without the host between bounces: the sample and bounce counters, the
// live-set sizes and the camera live on the device in a FrameControl, and the kernels
// advance them (k_end_bounce, k_end_sample). In a CUDA graph the bounce and sample loops
// are conditional WHILE nodes that those kernels steer (cuda/frame_graph.h); with
// stream launches the host loops and a dead bounce's kernels find nothing to do.
//
// Where each part is: the frame's device state (cuda/frame_control.cuh), the stages as
// functors (cuda/stage_ops.cuh), the warp-level pieces they share (cuda/warp_ops.cuh),
// each strategy's kernels (cuda/stencil_kernels.cuh, flags_kernels.cuh,
// compact_kernels.cuh; the pool, the megakernels and the tail in pool_kernels.cuh and
// path_kernels.cuh), and the loops' bookkeeping (cuda/loop_kernels.cuh).
#pragma once

#include "cuda/compact_kernels.cuh"
#include "cuda/flags_kernels.cuh"
#include "cuda/frame_control.cuh"
#include "cuda/loop_kernels.cuh"
#include "cuda/stage_ops.cuh"
#include "cuda/stencil_kernels.cuh"
#include "cuda/warp_ops.cuh"
