// frame_launcher.cuh - how the CUDA executor issues a frame: the stage launchers and
// the sample and bounce loops that render/pipeline.h's run_frame calls.
//
// With stream launches every call launches its kernel at once and the loops run on the
// host. While a graph is captured the same calls are recorded, and the loops become
// conditional WHILE nodes (and, for the stencil, an IF/ELSE node per bounce) whose
// bodies are captured on side streams (cuda/frame_graph.h). The executor owns the
// buffers; this is a friend that reads them.
#pragma once

#include "cuda/frame_graph.h"
#include "cuda/kernels.cuh"
#include "cuda/path_kernels.cuh"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace srt::cuda {

constexpr int kStages = 6;
constexpr const char* kStageNames[kStages] = {"generate", "intersect", "shade", "reflect", "resolve", "paths"};
enum Stage { kGenerate = 0, kIntersect, kShade, kReflect, kResolve, kPaths };

// Events around one launch, for per-stage times (stats, stream launches).
struct StageTiming {
    int stage;
    size_t begin, end;
    int bounce;  // the host loop's bounce, -1 outside it
};

// The stage launchers and loops run_frame calls. Every <<<>>> of the renderer is in
// launch(). While a graph is captured, `stream` is the stream capturing the current
// loop body, and `loops` hold the WHILE nodes' conditions (0 with stream launches).
// kSet, the set of kernels it launches, is the variant bits every one of them carries
// (accel/intersect.h): 0 for Whitted's, kPathTracing for the path integrator's, kRayTree
// for Whitted's with glass (render/ray_tree.h), and kKill with either integrator for
// frames under --kill (render/kill.h). The loops are here; the stage launchers, which
// instantiate the kernels, are declared here and defined in
// cuda/frame_launcher_stages.cuh, which only the files that compile a set's kernels
// include (cuda/frames_*.cu), so that each set compiles once, side by side in a build.
template <class Executor, int kSet>
struct FrameLauncher {
    static constexpr bool kPath = path_tracing_of(kSet);
    static constexpr bool kTree = ray_tree_of(kSet);
    static constexpr bool kKilling = kill_of(kSet);
    Executor& ex;
    const RenderSettings& settings;
    bool counting;  // stats counters
    bool timing;    // events around every launch (stream launches only)
    cudaStream_t stream;
    LoopHandles loops;        // made as the loop nodes are (a handle without a node fails to instantiate)
    cudaGraph_t root = nullptr;  // the graph being captured; null with stream launches
    bool hybrid = false;      // stencil in a graph: dense or sparse bounces (else dense only)
    int bounce = -1;          // stream launches: the bounce the host loop is issuing

    bool graph() const { return root != nullptr; }
    bool stencil() const { return settings.mode == DeadRayMode::Stencil; }
    FrameControl* ctrl() const { return ex.ctrl_.get(); }
    uint32_t* live(int k) const { return &ex.ctrl_.get()->live[k]; }
    BounceCounters* counters() const { return counting ? ex.counters_.get() : nullptr; }

    // Calls fn(std::integral_constant<int, V>{}) for the kernel variant V of the frame's
    // scene and this launcher's integrator (render/stages.h with_variant).
    template <class Fn>
    static void variant(const FrameContext& f, Fn&& fn) {
        if constexpr (kKilling) with_kill_variant<kSet & kPathTracing>(f.scene, fn);
        else if constexpr (kPath) with_path_variant</*kLeanLobes=*/true>(f.scene, fn);
        else if constexpr (kTree) with_tree_variant(f.scene, fn);
        else if (f.path) with_path_intersect_variant(f.scene, fn);  // a path set's intersect (as<0>())
        else with_bvh_width(f.scene, fn);
    }
    // The per-thread stack the scene's kernels of this integrator need (local arrays: the
    // traversal stacks), for the executor to raise the limit to before any capture.
    static size_t stack_bytes(const SceneView& view);
    // The same launcher for another set: set 0 for the kernels of no variant (generate,
    // the live-word list, resolve), the Whitted set of the same kill for intersect.
    template <int kOther>
    FrameLauncher<Executor, kOther> as() const {
        return {ex, settings, counting, timing, stream, loops, root, hybrid, bounce};
    }

    template <class Kernel, class... Args>
    void launch(Stage stage, uint32_t grid, int block, Kernel kernel, Args... args) {
        size_t begin = 0;
        if (timing) begin = ex.record();
        kernel<<<grid, block, size_t(block) * kernel_shared_bytes(kernel), stream>>>(args...);
        CUDA_CHECK_LAUNCH(kStageNames[stage]);
        if (timing) ex.timings_.push_back({stage, begin, ex.record(), bounce});
    }
    // One thread per ray (flags, compact's generate).
    template <class Kernel>
    std::pair<uint32_t, int> per_ray(Kernel kernel, int block, uint32_t threads) const {
        block = ex.sizes_.clamp_block(reinterpret_cast<const void*>(kernel), block);
        return {std::max<uint32_t>(1u, (threads + uint32_t(block) - 1u) / uint32_t(block)), block};
    }
    // The persistent grid: as many blocks as the GPU holds at once (list walkers).
    template <class Kernel>
    std::pair<uint32_t, int> filling(Kernel kernel, int block) const {
        block = ex.sizes_.clamp_block(reinterpret_cast<const void*>(kernel), block);
        return {ex.sizes_.fill_blocks(reinterpret_cast<const void*>(kernel), block, kernel_shared_bytes(kernel)),
                block};
    }

    void begin_frame(const FrameContext&) {}  // FrameControl is uploaded before the frame (render_device)

    template <class Body>
    void for_each_sample(FrameContext& f, Body&& body) {
        auto end_sample = [&] { launch(kGenerate, 1, 1, cuda::k_end_sample, ctrl(), loops); };
        if (!graph()) {
            const uint32_t end = f.sample_begin + f.spp;
            for (f.sample = f.sample_begin; f.sample < end; ++f.sample) {  // f.sample: for the probe
                body();
                if (f.sample + 1 < end) end_sample();
            }
            return;
        }
        // The bounce IF node sits in the bounce loop's body, and its condition is made on
        // the sample loop's body, where k_end_sample also sets it. On the H100's 580
        // driver the graph failed to instantiate (cudaErrorInvalidValue) with that
        // condition made on the root graph, both below a sample loop and, for one sample,
        // without one; so one sample with an IF node is a loop of one.
        const bool if_nodes = hybrid && f.max_depth > 1;
        if (f.spp == 1 && !if_nodes) {  // a loop of one needs no loop node
            body();
            return;
        }
        loops.samples = cuda::make_loop_handle(root);
        in_body(ex.side_[0], loops.samples, [&] {
            if (if_nodes) loops.dense = cuda::make_loop_handle(cuda::capturing_graph(stream));
            if (if_nodes && pack_lanes()) loops.packed = cuda::make_loop_handle(cuda::capturing_graph(stream));
            body();
            end_sample();
        });
    }
    // Stencil: each bounce is dense (the three wavefront kernels, then the live-word
    // list if the next bounce is sparse), sparse (one fused kernel over the list), the
    // tail (one launch follows its paths through the rest of the sample) or, in the sets
    // that pack, packed (handed to compaction's kernels for the rest of the sample);
    // k_end_bounce decides. A graph holds an IF/ELSE node per bounce (ELSE: the sparse
    // and the tail kernels, or, in the sets that pack, a nested IF packed ELSE those two);
    // stream launches issue every kind and each kernel checks FrameControl::dense, ::tail
    // and ::packed.
    template <class Body>
    void for_each_bounce(const FrameContext& f, Body&& body) {
        const uint32_t depth = uint32_t(f.max_depth);
        const bool both = stencil() && (hybrid || !graph());
        const uint32_t sparse_words = both ? ex.sparse_words() : 0u;  // 0: every bounce dense
        const uint32_t tail_words = this->tail_words();
        const uint32_t pack_lanes = both ? this->pack_lanes() : 0u;
        auto end = [&] {
            launch(kReflect, 1, 1, cuda::k_end_bounce, ctrl(), ex.word_counts_.get(), depth, stencil(), sparse_words,
                   tail_words, kPath || kKilling, pack_lanes, loops);
        };
        if (!graph()) {
            for (uint32_t b = 0; b < depth; ++b) {
                bounce = int(b);
                body(int(b));
                if (both) sparse_bounce(f);
                if (tail_words) tail(f);
                if (pack_lanes) packed_bounce(f);
                if (ex.probe_) ex.probe_(int(f.sample), int(b), ex.stencil_words(settings, f.ray_count));
                end();
                if (both) list_words(f);
                if (pack_lanes) pack(f);
            }
            bounce = -1;
            return;
        }
        if (depth == 1) {  // a loop of one needs no loop node; bounce 0 is always dense
            body(0);
            end();
            return;
        }
        loops.bounces = cuda::make_loop_handle(root);
        in_body(ex.side_[1], loops.bounces, [&] {
            if (!both) {
                body(-1);  // the bounce is FrameControl::bounce, on the device
                end();
                return;
            }
            const cudaStream_t outer = stream;
            cuda::capture_if_else(
                outer, ex.side_[2], loops.dense,
                [&](cudaStream_t s) {
                    stream = s;
                    body(-1);
                    end();
                    list_words(f);
                    if (pack_lanes) pack(f);
                },
                [&](cudaStream_t s) {
                    stream = s;
                    // Sparse or tail: both kernels; the one that does not apply returns at
                    // entry. (A nested IF tail ELSE sparse node, launching only the one
                    // that works, measured 1-2% slower: the node costs more than the
                    // empty launch.)
                    const auto sparse_or_tail = [&] {
                        sparse_bounce(f);
                        if (tail_words) tail(f);
                        end();
                    };
                    if (!pack_lanes) return sparse_or_tail();
                    // Packed, or sparse or tail: a nested IF node, since a packed bounce is
                    // short and a tail's empty launch over the whole frame is not (16
                    // samples of the Cornell box at depth 16: 2 ms of 31).
                    const cudaStream_t inner = stream;
                    cuda::capture_if_else(
                        inner, ex.side_[3], loops.packed,
                        [&](cudaStream_t t) {
                            stream = t;
                            packed_bounce(f);
                            end();
                        },
                        [&](cudaStream_t t) {
                            stream = t;
                            sparse_or_tail();
                        });
                    stream = inner;
                });
            stream = outer;
        });
    }
    // The tail's threshold (cuda_executor.cu), or 0: no tail. Stencil only, as the
    // sparse bounce; not under the probe, which wants the words after every bounce.
    uint32_t tail_words() const { return stencil() && (hybrid || !graph()) && !ex.probe_ ? ex.tail_words() : 0u; }
    // The live lanes per live word below which a bounce is handed to compaction
    // (cuda_executor_impl.cuh), or 0: never. Only the path integrator's and --kill's sets
    // can: Whitted's rays end by whole tiles, where the tail pays, and its kernels stay as
    // they were.
    uint32_t pack_lanes() const { return (kPath || kKilling) && stencil() ? ex.pack_lanes(kPath) : 0u; }
    void sparse_bounce(const FrameContext& f);
    // After a dense bounce that hands the sample to compaction: its live lanes listed
    // from the words (k_stencil_pack; nothing to do otherwise).
    void pack(const FrameContext& f);
    // A packed bounce: compaction's intersect, shade and reflect over
    // FrameControl::packed_live's lists.
    void packed_bounce(const FrameContext& f);
    void packed_intersect(const FrameContext& f);  // (the Whitted set's, for the path integrator, as intersect)
    // The rest of the sample in one launch, once few words live: each warp follows a
    // listed word's paths to their ends (k_path_tail). One warp per word of the
    // frame, most of which find no entry and leave: the hardware then balances the words'
    // uneven paths (measured on the H100, default scene at 1080p, depth 8: 0.417 ms against
    // 0.432 with a GPU-filling grid that loops over the list).
    void tail(const FrameContext& f);
    // The path modes: one kernel runs the whole frame (cuda/path_kernels.cuh).
    void trace_paths(const FrameContext& f, DeadRayMode mode);
    // The pool (cuda/pool_kernels.cuh): its first paths, then steps while paths remain,
    // a WHILE node in a graph; stream launches read the queue's size after each step.
    void trace_pool(const FrameContext& f);
    // Whitted's ray trees still live after the bounce loop, followed to their ends in
    // registers (k_path_tail), in every wavefront mode.
    void finish_trees(const FrameContext& f);
    void list_words(const FrameContext& f);
    // Captures `body` into a WHILE node's body on the side stream `side`.
    template <class Body>
    void in_body(cudaStream_t side, cudaGraphConditionalHandle h, Body&& body) {
        const cudaStream_t outer = stream;
        cuda::capture_while(outer, side, h, [&](cudaStream_t s) {
            stream = s;
            body();
        });
        stream = outer;
    }

    void generate(const FrameContext& f);
    // A stage that changes liveness: reads live set `in`, writes live set `out`.
    template <class Op>
    void write_stage(Stage stage, int block, const FrameContext& f, Op op, BounceCounters* c, int in, int out) {
        switch (settings.mode) {
            case DeadRayMode::Stencil: {
                // Dense: reflect counts the live words k_end_bounce decides by.
                const auto kernel = cuda::k_stencil_write<Op>;
                const auto [grid, b] = per_ray(kernel, block, f.ray_count);
                launch(stage, grid, b, kernel, f, ex.rays_.stencil.get(), op, false,
                       out == 0 ? ex.word_counts_.get() : nullptr, c, (const FrameControl*)ctrl());
                break;
            }
            case DeadRayMode::Flags: {
                // Only reflect's survivors steer the bounce loop (k_end_bounce reads live[0]).
                const auto kernel = cuda::k_flags_write<Op>;
                const auto [grid, b] = per_ray(kernel, block, f.ray_count);
                launch(stage, grid, b, kernel, f, ex.rays_.flags.get(), op, false, out == 0 ? live(0) : nullptr, c,
                       (const FrameControl*)ctrl());
                break;
            }
            case DeadRayMode::Compact: compact_write(stage, block, f, op, c, in, out, live(0)); break;
            case DeadRayMode::Megakernel:
            case DeadRayMode::Regenerate:
                break;  // run_frame calls trace_paths instead
        }
    }
    // Compaction's kernels over live lists 0 and 1, whose sizes are sizes[0] and [1]:
    // --mode compact's (FrameControl::live), or the stencil's packed bounce's (packed_live).
    // A stage that changes liveness reads list `in` and writes list `out`; shade reads
    // list 1 and clears sizes[0], which reflect refills.
    template <class Op>
    void compact_write(Stage stage, int block, const FrameContext& f, Op op, BounceCounters* c, int in, int out,
                       uint32_t* sizes) {
        const auto kernel = cuda::k_compact_write<Op>;
        const auto [grid, b] = filling(kernel, block);
        launch(stage, grid, b, kernel, f, (const uint32_t*)ex.rays_.list[in].get(), (const uint32_t*)&sizes[in], op,
               ex.rays_.list[out].get(), &sizes[out], c, (const FrameControl*)ctrl());
    }
    template <class Op>
    void compact_shade(int block, const FrameContext& f, Op op, uint32_t* sizes) {
        const auto kernel = cuda::k_compact_read<Op>;
        const auto [grid, b] = filling(kernel, block);
        launch(kShade, grid, b, kernel, f, (const uint32_t*)ex.rays_.list[1].get(), (const uint32_t*)&sizes[1], op,
               counters(), ctrl(), &sizes[0]);
    }
    // The same kernels for both integrators (traversal has no integrator).
    void intersect(const FrameContext& f, int bounce);
    // Reads live set 1; clears live set 0's size, which reflect refills.
    void shade(const FrameContext& f, int bounce);
    template <int W>
    void shade_w(const FrameContext& f) {
        static_assert(shade_variant(W) == W, "shade kernels carry no kill");
        const cuda::ShadeOp<W> op = cuda::shade_op<W>(ctrl());
        const int block = ex.sizes_.config().shade;
        switch (settings.mode) {
            case DeadRayMode::Stencil: {
                const auto kernel = cuda::k_stencil_read<cuda::ShadeOp<W>>;
                const auto [grid, b] = per_ray(kernel, block, f.ray_count);
                launch(kShade, grid, b, kernel, f, (const uint32_t*)ex.rays_.stencil.get(), op, counters(),
                       (const FrameControl*)ctrl());
                break;
            }
            case DeadRayMode::Flags: {
                const auto kernel = cuda::k_flags_read<cuda::ShadeOp<W>>;
                const auto [grid, b] = per_ray(kernel, block, f.ray_count);
                launch(kShade, grid, b, kernel, f, (const uint32_t*)ex.rays_.flags.get(), op, counters(), ctrl(),
                       live(0));
                break;
            }
            case DeadRayMode::Compact: compact_shade(block, f, op, live(0)); break;
            case DeadRayMode::Megakernel:
            case DeadRayMode::Regenerate:
                break;  // run_frame calls trace_paths instead
        }
    }
    void reflect(const FrameContext& f, int bounce);
    // The last bounce, where the host knows it: every ray ends at the depth limit, so the
    // live set is cleared by a memset rather than a reflect kernel over every ray (at
    // 1080p depth 1: 10 us of a 0.226 ms frame). Not for a later stencil bounce: it may
    // be a sparse or tail bounce, whose kernels run after this and read the stencil, so
    // there the reflect kernels (which each check the bounce's kind) run as before.
    // Only the stencil probe sees the live set after the last bounce (the next sample's
    // generate rewrites all of it), so without a probe there is nothing to clear.
    void retire(const FrameContext& f, int bounce);
    void resolve(const FrameContext& f);
};

}  // namespace srt::cuda
