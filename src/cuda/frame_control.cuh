// frame_control.cuh - the frame's state on the device (FrameControl), the per-bounce
// counters and the graph's loop handles: what the kernels (cuda/kernels.cuh) read and
// advance so that a frame runs without the host between bounces.
#pragma once

#include "render/stages.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace srt::cuda {

// Per-bounce counters, on the device, written only when stats are asked for.
struct BounceCounters {
    unsigned long long live_rays;
    unsigned long long live_warps;
    unsigned long long shadow_rays;
    unsigned long long pad;
};

// The frame's state on the device. The host writes `camera` before each frame; the
// kernels write the rest.
//
// Live sets (what the next stage walks):
//   stencil: the stencil words themselves while a bounce is DENSE (many live words:
//            one warp per word over the whole grid, the hardware schedules them);
//            while it is SPARSE, a list of the live words' indices, list[parity] with
//            live[parity] entries, walked by a grid that fills the GPU once and whose
//            one fused kernel appends the survivors to list[parity ^ 1]. k_end_bounce
//            picks the next bounce's kind from the live words it counted.
//            While it is PACKED (the sets that pack, once few lanes of each live word
//            live, and for the rest of the sample), compaction's lists, with sizes
//            packed_live[0] and [1] (zero in every other bounce, so that the kernels of
//            compaction that stream launches issue then find nothing).
//   compact: list 0 / list 1 of live ray ids: generate and reflect write list 0,
//            intersect reads list 0 and writes list 1, shade and reflect read list 1;
//   flags:   no list; live[0] != 0 says some ray survived reflect.
// A list's size is cleared by the last stage that read it before it is written
// again: shade clears live[0] (compact, flags), k_end_bounce the rest.
struct FrameControl {
    // Read by every thread (uniform loads, kept in L1): one cache line...
    CameraGpu camera;
    uint32_t sample;      // current sample, sample_begin .. sample_end-1 (RenderSettings::sample_begin)
    uint32_t sample_end;  // sample_begin + spp
    float inv_spp;        // 1 / sample_end: the running sum's weight in resolve
    float exposure_scale; // 2^exposure, the 8-bit output's scale
    uint32_t bounce;  // current bounce of this sample, 0 .. depth-1
    uint32_t dense;      // stencil: this bounce runs the dense kernels (else the sparse one)
    uint32_t parity;     // stencil, sparse: list[parity] holds the live words
    uint32_t need_list;  // stencil: a dense bounce is followed by a sparse one: list its words
    // ...and the counters that atomics hit on another, so that the appends do not keep
    // evicting the line every ray reads (measured: generate 2x slower when shared).
    alignas(128) uint32_t live[2];  // sizes of the two lists (above)
    uint32_t active;                // the current bounce started with live rays
    uint32_t bounces_run;           // bounces that started with live rays, summed over samples
    uint32_t tail;                  // stencil: so few live words that one launch follows their
                                    // paths to the end of the sample (k_path_tail)
    uint32_t tail_end;              // stencil: the bounce after the last one the tail ran
    uint32_t next_ray;              // regenerate: the next ray (pixel) to hand out
    uint32_t tree_end;              // Whitted's ray tree: the step after the last its tail ran (k_path_tail)
    uint32_t packed;                // stencil: 0, or the bounce is handed to compaction: 1 the first
                                    // (k_stencil_pack lists the lanes), 2 a later one of the sample
    uint32_t packed_live[2];        // stencil, packed: the sizes of compaction's lists 0 and 1
    unsigned long long nonfinite;   // the non-finite samples resolve found dropped (FrameContext::nonfinite)
};
static_assert(sizeof(FrameControl) == 256, "FrameControl: two 128-byte lines");

// The live words a dense reflect leaves, counted over kWordCountSlots counters 32 bytes
// apart (warp w adds to slot w % kWordCountSlots) and summed by k_end_bounce. One counter
// took one atomic per live warp at one L2 address: 26,000 of them after 1080p's first
// bounce, issued one after another (measured: 16 us of a depth-2 frame, where flags,
// which only loads and rarely stores its flag, paid nothing).
constexpr uint32_t kWordCountSlots = 32;
constexpr uint32_t kWordCountStride = 8;  // uint32s: one 32-byte sector per slot
constexpr uint32_t kWordCountWords = kWordCountSlots * kWordCountStride;

// The loop conditions of the frame's graph (cuda/frame_graph.h), or 0 with stream
// launches: the host then runs the loops and nothing is set.
struct LoopHandles {
    cudaGraphConditionalHandle samples = 0;
    cudaGraphConditionalHandle bounces = 0;
    cudaGraphConditionalHandle dense = 0;   // stencil: IF dense ELSE sparse (and tail), per bounce
    cudaGraphConditionalHandle packed = 0;  // stencil, in that ELSE: IF packed ELSE sparse (and tail)
};

}  // namespace srt::cuda
