// cuda_executor_impl.cuh - the CUDA executor's class: its buffers, the captured graph,
// the frame's upload and stats. Included by cuda/cuda_executor.cu (the factory) and by
// the two files that compile the kernels of each integrator (cuda/frames_whitted.cu,
// cuda/frames_path.cu), which instantiate cuda/frame_launcher.cuh's launcher for it.
#pragma once

#include "cuda/cuda_executor.h"

#include "cuda/check.h"
#include "cuda/device_buffer.h"
#include "cuda/event.h"
#include "cuda/frame_graph.h"
#include "cuda/frame_launcher.cuh"
#include "cuda/kernels.cuh"
#include "cuda/launch_sizer.h"
#include "cuda/pool_kernels.cuh"
#include "render/pipeline.h"
#include "render/srgb.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace srt {

using cuda::BounceCounters;
using cuda::FrameControl;
using cuda::LoopHandles;

using cuda::kStageNames;
using cuda::kStages;

using cuda::Event;

class CudaExecutorImpl final : public CudaExecutor {
public:
    explicit CudaExecutorImpl(int device) : device_(device), select_(device) {
        CUDA_CHECK(cudaSetDevice(device_));
        CUDA_CHECK(cudaGetDeviceProperties(&props_, device_));
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        for (cudaStream_t& s : side_) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        ctrl_.allocate(1, "frame control");
        // Zero once: every dense reflect's counts are summed and cleared by k_end_bounce.
        word_counts_.allocate(cuda::kWordCountWords, "live word counts");
        CUDA_CHECK(cudaMemset(word_counts_.get(), 0, word_counts_.bytes()));
        CUDA_CHECK(cudaMemset(ctrl_.get(), 0, ctrl_.bytes()));  // every byte defined (initcheck)
        path_steps_.allocate(1, "path counters");
        const auto t = make_srgb_thresholds();
        thresholds_.upload(std::vector<float>(t.begin(), t.end()), "sRGB table");
        sizes_.set_defaults(default_launch(), props_.multiProcessorCount);
    }
    ~CudaExecutorImpl() override {
        cudaSetDevice(device_);  // the buffers and streams below belong to it
        graph_.reset();
        for (cudaStream_t s : side_)
            if (s) cudaStreamDestroy(s);
        if (stream_) cudaStreamDestroy(stream_);
    }

    std::string name() const override {
        return "cuda (" + device_name() + (device_ ? ", device " + std::to_string(device_) : std::string()) + ")";
    }
    // Every entry point makes this executor's device current: a split frame drives each
    // device's executor from its own thread (render/split_executor.h).
    void bind() const { CUDA_CHECK(cudaSetDevice(device_)); }
    std::string device_name() const override { return props_.name; }
    int sm_count() const override { return props_.multiProcessorCount; }

    void set_launch_config(const LaunchConfig& c) override { sizes_.set(c); }
    LaunchConfig launch_config() const override { return sizes_.config(); }

    void set_scene(const CompiledScene& s) override {
        bind();
        reserve_stack(s.view());
        nodes_.upload(s.nodes, "BVH nodes");
        nodes4_.upload(s.nodes4, "BVH4 nodes");
        nodes8_.upload(s.nodes8, "BVH8 nodes");
        prims_.upload(s.prims, "primitives");
        prim_tests_.upload(s.prim_tests, "primitive tests");
        if (!s.normals.empty()) normals_.upload(s.normals, "vertex normals");
        planes_.upload(s.planes, "planes");
        materials_.upload(s.materials, "materials");
        lights_.upload(s.lights, "lights");
        if (!s.texels.empty()) texels_.upload(s.texels, "texture images");
        if (!s.textures.empty()) textures_.upload(s.textures, "textures");
        if (!s.srgb_lut.empty()) srgb_lut_.upload(s.srgb_lut, "sRGB table");
        if (!s.uvs.empty()) uvs_.upload(s.uvs, "texture coordinates");
        if (!s.prim_alpha.empty()) prim_alpha_.upload(s.prim_alpha, "alpha masks");
        if (!s.emitters.empty()) emitters_.upload(s.emitters, "emitters");
        if (!s.prim_emitter.empty()) prim_emitter_.upload(s.prim_emitter, "emitters by primitive");
        if (!s.light_cdf.empty()) light_cdf_.upload(s.light_cdf, "light distribution");
        if (!s.light_pmf.empty()) light_pmf_.upload(s.light_pmf, "light probabilities");
        view_ = s.view();
        render_origin_ = s.render_origin;
        view_.nodes = nodes_.get();
        view_.nodes4 = s.nodes4.empty() ? nullptr : nodes4_.get();
        view_.nodes8 = s.nodes8.empty() ? nullptr : nodes8_.get();
        view_.prims = prims_.get();
        view_.prim_tests = prim_tests_.get();
        view_.normals = s.normals.empty() ? nullptr : normals_.get();
        view_.planes = planes_.get();
        view_.materials = materials_.get();
        view_.lights = lights_.get();
        view_.texels = s.texels.empty() ? nullptr : texels_.get();
        view_.textures = s.textures.empty() ? nullptr : textures_.get();
        view_.srgb_lut = s.srgb_lut.empty() ? nullptr : srgb_lut_.get();
        view_.uvs = s.uvs.empty() ? nullptr : uvs_.get();
        view_.prim_alpha = s.prim_alpha.empty() ? nullptr : prim_alpha_.get();
        view_.emitters = s.emitters.empty() ? nullptr : emitters_.get();
        view_.prim_emitter = s.prim_emitter.empty() ? nullptr : prim_emitter_.get();
        view_.light_cdf = s.light_cdf.empty() ? nullptr : light_cdf_.get();
        view_.light_pmf = s.light_pmf.empty() ? nullptr : light_pmf_.get();
        ++scene_generation_;
    }

    void render(const Camera& camera, const RenderSettings& settings, Image& out,
                FrameStats* stats) override {
        bind();
        const size_t pixels = size_t(settings.width) * size_t(settings.rows());
        out_.allocate(pixels, "output image");
        render_device(camera, settings, out_.get(), stats);
        if (out.width != settings.width || out.height != settings.rows())
            out = Image(settings.width, settings.rows());
        CUDA_CHECK(cudaMemcpyAsync(out.rgba.data(), out_.get(), pixels * 4, cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    double timed_frame(const Camera& camera, const RenderSettings& settings, FrameStats* stats) override {
        bind();
        out_.allocate(size_t(settings.width) * size_t(settings.rows()), "output image");
        allocate(uint32_t(settings.width) * uint32_t(settings.rows()), settings);  // outside the timing
        CUDA_CHECK(cudaEventRecord(frame_begin_.get(), stream_));
        render_device(camera, settings, out_.get(), stats);
        CUDA_CHECK(cudaEventRecord(frame_end_.get(), stream_));
        CUDA_CHECK(cudaEventSynchronize(frame_end_.get()));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, frame_begin_.get(), frame_end_.get()));
        return double(ms);
    }

    void render_device(const Camera& camera, const RenderSettings& settings, uint32_t* device_rgba,
                       FrameStats* stats) override {
        bind();
        const uint32_t pixels = uint32_t(settings.width) * uint32_t(settings.rows());
        allocate(pixels, settings);

        FrameContext f;
        f.scene = view_;
        f.camera = make_camera(camera, settings.width, settings.height, render_origin_);  // the CPU side's copy
        f.rays = RayBuffers{origin_.get(), dir_.get(), weight_.get(), radiance_.get(), hit_t_.get(),
                            hit_id_.get()};
        set_band_geometry(f, uint32_t(settings.width), uint32_t(settings.height), uint32_t(settings.band_y),
                          uint32_t(settings.band_h), uint32_t(settings.warp_width));
        if (uses_ray_tree(view_, settings)) f.tree = allocate_tree(f.ray_count, settings.depth);
        f.srgb_thresholds = thresholds_.get();
        f.out_rgba = device_rgba;

        // The per-frame values (the camera, which samples, the output weights) are read by
        // the kernels from FrameControl, which starts each frame in one copy (no kernel
        // resets it), so that one captured graph serves every frame.
        set_samples(f, settings);
        frame_start_ = cuda::frame_start(f);
        CUDA_CHECK(cudaMemcpyAsync(ctrl_.get(), &frame_start_, sizeof frame_start_, cudaMemcpyHostToDevice, stream_));

        const bool counting = stats != nullptr;
        // Per-stage times need events between the kernels, and the probe a copy after
        // every bounce: both only with stream launches.
        const bool use_graph = settings.launch == LaunchMode::Graph && !probe_;
        const bool timing = counting && !use_graph;
        if (counting) {
            counters_.allocate(size_t(trace_levels(settings)), "stats counters");
            CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, counters_.bytes(), stream_));
            reached_.allocate(size_t(settings.spp), "bounces reached");
            CUDA_CHECK(cudaMemsetAsync(reached_.get(), 0, reached_.bytes(), stream_));
            CUDA_CHECK(cudaMemsetAsync(path_steps_.get(), 0, path_steps_.bytes(), stream_));
            timings_.clear();
            next_event_ = 0;
        }

        if (use_graph) {
            const FrameKey key = frame_key(settings, device_rgba, counting);
            if (!graph_ || std::memcmp(&key, &graph_key_, sizeof key) != 0) {
                graph_ = capture_frame(f, settings, counting);
                graph_key_ = key;
                ++captures_;
            }
            graph_.launch(stream_);
        } else {
            issue_frame(f, settings, counting, timing, nullptr, false);
        }

        if (counting) read_stats(settings, *stats, timing);
        last_frame_ = f;
    }

    void read_linear(LinearImage& out) override {
        bind();
        std::vector<f4> radiance(last_frame_.ray_count);
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        CUDA_CHECK(cudaMemcpy(radiance.data(), radiance_.get(), radiance.size() * sizeof(f4), cudaMemcpyDeviceToHost));
        resolve_linear(last_frame_, radiance.data(), out);
    }

    int graph_captures() const override { return captures_; }
    bool sparse_bounces() const override { return hybrid_ok_; }

    // The stencil words as they are now, for the stencil probe. For flags and compact
    // (and the stencil's bounces handed to compaction) the same words are derived on the
    // host from the per-ray flags / the live list.
    std::vector<uint32_t> stencil_words(const RenderSettings& s, uint32_t ray_count) {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        std::vector<uint32_t> words(ray_count / kWarpSize, 0u);
        FrameControl c{};
        CUDA_CHECK(cudaMemcpy(&c, ctrl_.get(), sizeof c, cudaMemcpyDeviceToHost));
        if (s.mode == DeadRayMode::Stencil && !c.packed) {
            CUDA_CHECK(cudaMemcpy(words.data(), stencil_.get(), words.size() * 4, cudaMemcpyDeviceToHost));
        } else if (s.mode == DeadRayMode::Flags) {
            std::vector<uint32_t> flags(ray_count);
            CUDA_CHECK(cudaMemcpy(flags.data(), flags_.get(), flags.size() * 4, cudaMemcpyDeviceToHost));
            for (uint32_t i = 0; i < ray_count; ++i)
                if (flags[i]) words[i >> 5] |= 1u << (i & 31);
        } else {  // compaction's list 0, and the stencil's once it handed a sample to compaction
            const uint32_t n = s.mode == DeadRayMode::Stencil ? c.packed_live[0] : c.live[0];
            std::vector<uint32_t> list(n);
            CUDA_CHECK(cudaMemcpy(list.data(), list_[0].get(), size_t(n) * 4, cudaMemcpyDeviceToHost));
            for (uint32_t i : list) words[i >> 5] |= 1u << (i & 31);
        }
        return words;
    }

private:

    // Everything a captured graph bakes in: when any of it changes, the frame is
    // captured again. (The camera is not here: it is read from FrameControl.)
    struct FrameKey {
        uint64_t scene_generation;
        int width, height, depth, spp, warp_width, band_y, band_h;
        DeadRayMode mode;
        Integrator integrator;
        uint32_t seed;
        KillPattern kill;  // in the kernels' FrameContext, and it picks their set
        bool counting;
        LaunchConfig launch;
        const void* buffers[10];
    };
    FrameKey frame_key(const RenderSettings& s, uint32_t* device_rgba, bool counting) const {
        FrameKey k;
        std::memset(&k, 0, sizeof k);  // padding too: keys are compared with memcmp
        k.scene_generation = scene_generation_;
        k.width = s.width;
        k.height = s.height;
        k.band_y = s.band_y;
        k.band_h = s.band_h;
        k.depth = s.depth;
        k.spp = s.spp;
        k.warp_width = s.warp_width;
        k.mode = s.mode;
        k.integrator = s.integrator;
        k.seed = s.seed;
        k.kill = s.kill;
        k.counting = counting;
        k.launch = sizes_.config();
        const void* b[10] = {device_rgba,    origin_.get(),   stencil_.get(),  flags_.get(),
                             list_[0].get(), list_[1].get(), counters_.get(), reached_.get(),
                             tree_entries_.get(), pool_sample_.get()};
        std::memcpy(k.buffers, b, sizeof b);
        return k;
    }

    // Records run_frame's launches into a graph, with the loops as WHILE nodes.
    // The stencil's per-bounce IF/ELSE node needs a driver with conditional IF/ELSE
    // (CUDA 12.8); where capturing or instantiating it fails, the frame is captured again
    // with dense bounces only (the WHILE loops and the early exit stay).
    cuda::GraphExec capture_frame(FrameContext& f, const RenderSettings& settings, bool counting) {
        const bool hybrid = settings.mode == DeadRayMode::Stencil && hybrid_ok_;
        try {
            return capture_frame(f, settings, counting, hybrid);
        } catch (const CudaError& e) {
            if (!hybrid) throw;
            cudaGetLastError();  // the failed call's error must not surface at the next launch check
            hybrid_ok_ = false;
            std::fprintf(stderr, "note: sparse stencil bounces disabled (%s); every bounce runs dense\n", e.what());
            return capture_frame(f, settings, counting, false);
        }
    }
    cuda::GraphExec capture_frame(FrameContext& f, const RenderSettings& settings, bool counting, bool hybrid) {
        CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed));
        cudaGraph_t graph = nullptr;
        try {
            issue_frame(f, settings, counting, false, cuda::capturing_graph(stream_), hybrid);
        } catch (...) {
            cudaStreamEndCapture(stream_, &graph);  // leave the stream usable
            if (graph) cudaGraphDestroy(graph);
            cudaGetLastError();
            throw;
        }
        CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
        const cuda::Graph owner(graph);
        return cuda::GraphExec(graph);
    }

    void read_stats(const RenderSettings& settings, FrameStats& stats, bool timing) {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        std::vector<BounceCounters> host(counters_.size());
        CUDA_CHECK(cudaMemcpy(host.data(), counters_.get(), counters_.bytes(), cudaMemcpyDeviceToHost));
        FrameControl c{};
        CUDA_CHECK(cudaMemcpy(&c, ctrl_.get(), sizeof c, cudaMemcpyDeviceToHost));
        stats = FrameStats{};
        stats.bounces.resize(size_t(trace_levels(settings)));
        for (size_t k = 0; k < host.size(); ++k) {
            BounceStats& b = stats.bounces[k];
            b.live_rays += host[k].live_rays;
            b.live_warps += host[k].live_warps;
            b.shadow_rays += host[k].shadow_rays;
            stats.rays_traced += host[k].live_rays + host[k].shadow_rays;
        }
        stats.bounces_run = c.bounces_run;
        stats.steps_from_bounces();
        if (mixes_samples(settings.mode)) {  // the path kernels and the pool count bounces per sample
            std::vector<uint32_t> reached(reached_.size());
            CUDA_CHECK(cudaMemcpy(reached.data(), reached_.get(), reached_.bytes(), cudaMemcpyDeviceToHost));
            stats.bounces_run = 0;
            for (uint32_t r : reached) stats.bounces_run += r;
        }
        if (settings.mode == DeadRayMode::Regenerate || settings.mode == DeadRayMode::Pool) {  // their warp steps mix bounces
            cuda::PathCounters steps{};
            CUDA_CHECK(cudaMemcpy(&steps, path_steps_.get(), sizeof steps, cudaMemcpyDeviceToHost));
            stats.lane_steps = steps.lane_steps;
            stats.warp_steps = steps.warp_steps;
        }
        if (timing) {
            std::array<double, kStages> ms{};
            for (const cuda::StageTiming& t : timings_) {
                float e = 0.0f;
                CUDA_CHECK(cudaEventElapsedTime(&e, events_[t.begin]->get(), events_[t.end]->get()));
                ms[size_t(t.stage)] += double(e);
                if (t.bounce >= 0 && size_t(t.bounce) < stats.bounces.size()) {
                    BounceStats& b = stats.bounces[size_t(t.bounce)];
                    if (t.stage == cuda::kIntersect) b.intersect_ms += double(e);
                    if (t.stage == cuda::kShade) b.shade_ms += double(e);
                }
            }
            for (int s = 0; s < kStages; ++s)
                if ((s == cuda::kPaths) == follows_paths(settings.mode))
                    stats.stage_ms.push_back({kStageNames[s], ms[size_t(s)]});
        }
        while (!stats.bounces.empty() && stats.bounces.back().live_rays == 0) stats.bounces.pop_back();
    }

    template <class, int> friend struct cuda::FrameLauncher;
    template <int kSet>
    using Launcher = cuda::FrameLauncher<CudaExecutorImpl, kSet>;

    // run_frame's launches, issued (root null) or captured into `root`, by the launcher of
    // the frame's set of kernels (its integrator, Whitted's ray tree for scenes with
    // glass, either integrator's under --kill), each compiled in a file of its own
    // (cuda/frames_*.cu), so that a build compiles the sets side by side.
    void issue_frame(FrameContext& f, const RenderSettings& settings, bool counting, bool timing, cudaGraph_t root,
                     bool hybrid) {
        const bool path = settings.integrator == Integrator::Path;
        if (settings.kill.active() && path) issue_with<Launcher<kKill | kPathTracing>>(f, settings, counting, timing, root, hybrid);
        else if (settings.kill.active()) issue_with<Launcher<kKill>>(f, settings, counting, timing, root, hybrid);
        else if (path) issue_with<Launcher<kPathTracing>>(f, settings, counting, timing, root, hybrid);
        else if (uses_ray_tree(f.scene, settings)) issue_with<Launcher<kRayTree>>(f, settings, counting, timing, root, hybrid);
        else issue_with<Launcher<0>>(f, settings, counting, timing, root, hybrid);
    }
    template <class L>
    void issue_with(FrameContext& f, const RenderSettings& settings, bool counting, bool timing, cudaGraph_t root,
                    bool hybrid) {
        L launch{*this, settings, counting, timing, stream_, LoopHandles{}};
        launch.root = root;
        launch.hybrid = hybrid;
        run_frame(launch, f, settings);
    }

    // The pool's buffers (cuda/pool_kernels.cuh) for `rays` slots: allocate() made them
    // for --mode pool.
    cuda::PoolBuffers pool_buffers(uint32_t rays) {
        const uint32_t words = rays / kWarpSize;
        return {pool_sample_.get(), pool_bounce_.get(), pool_hit_.get(), {list_[0].get(), list_[1].get()},
                pool_next_.get(), words};
    }
    // The paths in flight: as Cycles sizes its pool, 16 x what the GPU runs at once (and
    // at least 16 x 65,536), a whole number of warps; at most the frame's ray slots.
    // SRT_POOL_PATHS, read when the executor is made (so a captured graph's pool is the
    // executor's), overrides it, for experiments and the tests of small pools.
    uint32_t pool_paths(uint32_t ray_count) const {
        uint64_t n = 16ull * std::max<uint64_t>(uint64_t(props_.multiProcessorCount) *
                                                     uint64_t(props_.maxThreadsPerMultiProcessor),
                                                 65536ull);
        if (pool_override_ != 0) n = pool_override_;
        n = std::max<uint64_t>(32, (n + 31) / 32 * 32);
        return uint32_t(std::min<uint64_t>(n, ray_count));
    }
    const uint64_t pool_override_ = [] {
        const char* env = std::getenv("SRT_POOL_PATHS");
        return env ? uint64_t(std::strtoull(env, nullptr, 10)) : 0ull;
    }();

    // A bounce is sparse when its live words are no more than the warps of the sparse
    // kernel's grid: each then gets at most one word, so the bounce costs the latency of
    // one pass, and the dense kernels' whole-frame grids would be mostly empty.
    uint32_t sparse_words() {
        const auto k = cuda::k_stencil_sparse_bounce<cuda::IntersectOp<2>, cuda::ShadeOp<2>, cuda::ReflectOp<2>>;
        const void* kernel = reinterpret_cast<const void*>(k);
        // SRT_SPARSE_WORDS overrides it, for experiments (0: every bounce dense).
        if (const char* env = std::getenv("SRT_SPARSE_WORDS")) return uint32_t(std::atoi(env));
        const int block = sizes_.clamp_block(kernel, sizes_.config().intersect);
        return sizes_.fill_blocks(kernel, block, cuda::kernel_shared_bytes(k)) * uint32_t(block) / 32u;
    }

    // Local arrays (the traversal stacks) live in the per-thread stack. The driver grows
    // it for an ordinary launch that needs more; kernels launched from a graph's
    // conditional nodes are not launched that way, and the BVH8's one-block tail kernel (since
    // replaced by the path tail), with both
    // traversals inlined, needs 1,104 bytes against the default 1 KiB: under
    // compute-sanitizer it hit illegal addresses in 4 of 12 graph renders. So the limit
    // is raised, before any graph is captured, to what the scene's width needs.
    void reserve_stack(const SceneView& view) {
        // Either integrator may render the scene, with or without --kill: every set of
        // kernels it may run.
        size_t need = std::max({Launcher<0>::stack_bytes(view), Launcher<kPathTracing>::stack_bytes(view),
                                Launcher<kKill>::stack_bytes(view), Launcher<kKill | kPathTracing>::stack_bytes(view)});
        if (view.dielectrics) need = std::max(need, Launcher<kRayTree>::stack_bytes(view));
        size_t current = 0;
        CUDA_CHECK(cudaDeviceGetLimit(&current, cudaLimitStackSize));
        if (need > current) CUDA_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, need));
    }

    // A bounce that starts with no more live words than this runs, with every later
    // bounce of its sample, in the path tail (k_path_tail). By default every bounce
    // after the first: the wavefront generates and runs the dense first bounce, and one
    // launch follows every surviving path to its end. Measured on the H100 (default scene,
    // 1080p, graph launches; frame ms at depths 2 / 4 / 8 / 12), against tails from 128
    // live words (0.378 / 0.472 / 0.561 / 0.574), 4,096 (0.381 / 0.472 / 0.501 / 0.521) and
    // 16,384 (0.381 / 0.440 / 0.465 / 0.479): 0.380 / 0.402 / 0.417 / 0.431. Without a tail
    // (sparse bounces to the end) depth 8 took 0.570 ms.
    uint32_t tail_words() const {
        // SRT_TAIL_WORDS overrides it, for experiments (0: no tail).
        if (const char* env = std::getenv("SRT_TAIL_WORDS")) return uint32_t(std::strtoul(env, nullptr, 10));
        return 0xffffffffu;
    }

    // The stencil hands a sample's bounces to compaction (cuda/kernels.cuh, PACKED) once
    // a dense bounce leaves fewer live lanes than this per live word. By default the path
    // integrator's samples are handed over after their first bounce, and Whitted's under
    // --kill never are (their tail pays): measured on the H100 at 1080p
    // (tools/gpu/run.sh pack; docs/performance.md "The stencil's answer"), no threshold of
    // lanes per word told the two apart. Read when the executor is made; SRT_PACK_LANES
    // overrides it for both, for experiments and tests (0: never; 33: after the first bounce).
    uint32_t pack_lanes(bool path) const { return pack_override_ ? *pack_override_ : path ? 33u : 0u; }
    const std::optional<uint32_t> pack_override_ = []() -> std::optional<uint32_t> {
        const char* env = std::getenv("SRT_PACK_LANES");
        if (!env) return std::nullopt;
        return uint32_t(std::strtoul(env, nullptr, 10));
    }();

    size_t record() {
        if (next_event_ == events_.size()) events_.push_back(std::make_unique<Event>());
        CUDA_CHECK(cudaEventRecord(events_[next_event_]->get(), stream_));
        return next_event_++;
    }

    // The ray buffers for a frame of `s`: grown when too small, never shrunk (a split
    // frame's bands change size as they are balanced, and with peer access enabled
    // every cudaMalloc and cudaFree maps into or out of the other GPUs).
    void allocate(uint32_t /*pixels*/, const RenderSettings& s) {
        const size_t n = frame_geometry(uint32_t(s.width), uint32_t(s.rows()), uint32_t(s.warp_width)).ray_count;
        // Check the whole need against what is free before any allocation fails.
        size_t need = 0;
        if (origin_.size() < n) need += n * (4 * sizeof(f4) + sizeof(float) + sizeof(int32_t) + 4);
        if (need) {
            size_t free_b = 0, total_b = 0;
            CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
            if (need > free_b)
                throw DeviceOutOfMemory(cudaErrorMemoryAllocation,
                                        "out of device memory: " + std::to_string(s.width) + "x" +
                                            std::to_string(s.height) + " needs " + mib(need) +
                                            " of ray buffers, " + mib(free_b) + " free of " + mib(total_b));
        }
        origin_.grow(n, "ray origins");
        dir_.grow(n, "ray directions");
        weight_.grow(n, "ray weights");
        radiance_.grow(n, "radiance");
        hit_t_.grow(n, "hit distances");
        hit_id_.grow(n, "hit ids");
        stencil_.grow(n / kWarpSize, "stencil");
        if (s.mode == DeadRayMode::Flags) flags_.grow(n, "ray flags");
        // Live sets: stencil lists live words, and live rays where it hands bounces to
        // compaction (the path integrator, --kill); compact lists live rays (kernels.cuh), the pool
        // its queue of paths (pool_kernels.cuh).
        const bool rays_listed = s.mode == DeadRayMode::Compact || s.mode == DeadRayMode::Pool;
        const bool packs = s.mode == DeadRayMode::Stencil && (s.integrator == Integrator::Path || s.kill.active());
        if (s.mode != DeadRayMode::Flags) {
            const size_t entries = rays_listed ? n : n / kWarpSize;
            list_[0].grow(packs ? n : entries, "live list 0");
            list_[1].grow(packs ? n : entries, "live list 1");
        }
        if (s.mode == DeadRayMode::Pool) {  // grown together: the graph's key names the first
            const size_t words = n / kWarpSize;
            pool_sample_.grow(n, "pool samples");
            pool_bounce_.grow(n, "pool bounces");
            pool_hit_.grow(n, "pool hits");
            pool_next_.grow(words, "pool stencil");
        }
    }

    // Whitted's ray tree (render/ray_tree.h) for `rays` slots at `depth`: allocated for
    // frames with glass, zeroed when made, and left zeroed by every frame (a slot's stack
    // is empty when its tree ends).
    RayTree allocate_tree(uint32_t rays, int depth) {
        const size_t cap = depth > 1 ? size_t(depth - 1) : 0;
        const size_t entries = std::max<size_t>(1, 3 * cap * rays);
        if (tree_entries_.size() != entries || tree_size_.size() != rays) {
            size_t free_b = 0, total_b = 0;
            CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
            const size_t need = ray_tree_bytes(rays, depth);
            if (need > free_b + tree_entries_.bytes() + tree_size_.bytes())
                throw DeviceOutOfMemory(cudaErrorMemoryAllocation,
                                        "out of device memory: the ray tree of glass at depth " +
                                            std::to_string(depth) + " needs " + mib(need) + ", " + mib(free_b) +
                                            " free of " + mib(total_b));
            tree_entries_.allocate(entries, "ray tree");
            tree_size_.allocate(rays, "ray tree sizes");
            CUDA_CHECK(cudaMemsetAsync(tree_size_.get(), 0, tree_size_.bytes(), stream_));
        }
        RayTree t;
        t.origin = tree_entries_.get();
        t.dir = t.origin + cap * rays;
        t.weight = t.dir + cap * rays;
        t.size = tree_size_.get();
        t.capacity = uint32_t(cap);
        t.ray_count = rays;
        return t;
    }

    static LaunchConfig default_launch() {
        // The smallest block that reaches the kernel's best occupancy, up to `limit`.
        auto best = [](auto kernel, int limit = 0) {
            int min_grid = 0, block = 0;
            CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, kernel, 0, limit));
            return std::max(32, (block / 32) * 32);
        };
        // Traversal kernels are capped at 128 threads: their warps finish at very
        // different times, and a block holds its SM slot until its slowest warp is
        // done, so big blocks leave SMs part-empty (measured on an H100, Conference:
        // intersect 0.36 ms at 576 threads, 0.31 ms at 128; shade 0.35 -> 0.20 ms).
        constexpr int kTraversalBlockLimit = 128;
        LaunchConfig d;
        d.generate = best(cuda::k_stencil_write<cuda::GenerateOp>);
        d.intersect = best(cuda::k_stencil_write<cuda::IntersectOp<2>>, kTraversalBlockLimit);
        d.shade = best(cuda::k_stencil_read<cuda::ShadeOp<2>>, kTraversalBlockLimit);
        d.reflect = best(cuda::k_stencil_write<cuda::ReflectOp<2>>);
        d.resolve = best(cuda::k_resolve);
        d.compact = best(cuda::k_compact_write<cuda::IntersectOp<2>>);
        return d;
    }

    int device_;
    // Makes device_ current while the members below are built (their events are created
    // on the current device): it must stay declared right after device_.
    struct SelectDevice {
        explicit SelectDevice(int d) { CUDA_CHECK(cudaSetDevice(d)); }
    } select_{device_};
    cudaDeviceProp props_{};
    cuda::LaunchSizer sizes_;
    cudaStream_t stream_ = nullptr;
    SceneView view_;
    FrameContext last_frame_;        // for read_linear
    Point3 render_origin_{0.0};  // CompiledScene::render_origin of the scene uploaded
    DeviceBuffer<BvhNode> nodes_;
    DeviceBuffer<Bvh4Node> nodes4_;
    DeviceBuffer<Bvh8Node> nodes8_;
    DeviceBuffer<PrimGpu> prims_;
    DeviceBuffer<PrimTestGpu> prim_tests_;
    DeviceBuffer<f4> normals_;  // 3 per primitive, only for scenes with smooth triangles
    DeviceBuffer<PlaneGpu> planes_;
    DeviceBuffer<MaterialGpu> materials_;
    DeviceBuffer<LightGpu> lights_;
    DeviceBuffer<uint32_t> texels_;  // the texture arrays, only for scenes with textures
    DeviceBuffer<TextureGpu> textures_;
    DeviceBuffer<float> srgb_lut_;
    DeviceBuffer<f4> uvs_;
    DeviceBuffer<uint32_t> prim_alpha_;
    DeviceBuffer<EmitterGpu> emitters_;  // the path integrator's light table, only where there are lights to sample
    DeviceBuffer<uint32_t> prim_emitter_;
    DeviceBuffer<float> light_cdf_, light_pmf_;
    DeviceBuffer<float> thresholds_;
    DeviceBuffer<f4> origin_, dir_, weight_, radiance_;
    DeviceBuffer<float> hit_t_;
    DeviceBuffer<int32_t> hit_id_;
    DeviceBuffer<uint32_t> stencil_, flags_, list_[2], out_;
    DeviceBuffer<f4> tree_entries_;  // Whitted's ray tree, for frames with glass (allocate_tree)
    DeviceBuffer<uint32_t> tree_size_;
    DeviceBuffer<FrameControl> ctrl_;
    DeviceBuffer<uint32_t> word_counts_;  // dense reflect's live words (cuda::kWordCountSlots)
    DeviceBuffer<BounceCounters> counters_;
    DeviceBuffer<uint32_t> reached_;               // path modes and pool, stats: per sample, the bounces reached
    DeviceBuffer<uint32_t> pool_sample_, pool_bounce_, pool_hit_, pool_next_;  // the pool (pool_buffers)
    DeviceBuffer<cuda::PathCounters> path_steps_;  // regenerate, stats: its SIMD efficiency
    FrameControl frame_start_{};               // staging for the per-frame upload (camera, reset state)
    cudaStream_t side_[4] = {};  // capture of the sample and bounce loop bodies, the dense/sparse and packed branches
    cuda::GraphExec graph_;
    FrameKey graph_key_{};
    uint64_t scene_generation_ = 0;
    int captures_ = 0;
    bool hybrid_ok_ = true;
    std::vector<std::unique_ptr<Event>> events_;
    Event frame_begin_, frame_end_;
    size_t next_event_ = 0;
    std::vector<cuda::StageTiming> timings_;
};


// The launchers' stage kernels are compiled where they are instantiated, once each.
extern template struct cuda::FrameLauncher<CudaExecutorImpl, 0>;
extern template struct cuda::FrameLauncher<CudaExecutorImpl, kPathTracing>;
extern template struct cuda::FrameLauncher<CudaExecutorImpl, kRayTree>;
extern template struct cuda::FrameLauncher<CudaExecutorImpl, kKill>;
extern template struct cuda::FrameLauncher<CudaExecutorImpl, kKill | kPathTracing>;

}  // namespace srt
