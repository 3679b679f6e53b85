// cuda_executor_impl.cuh - the CUDA executor's class: the captured graph, the frame's
// upload and stats, over its scene (cuda/device_scene.h) and ray buffers
// (cuda/device_rays.cuh). Included by cuda/cuda_executor.cu (the factory) and by the files
// that compile each set of kernels (cuda/frames_*.cu), which instantiate
// cuda/frame_launcher.cuh's launcher for it.
#pragma once

#include "cuda/cuda_executor.h"

#include "cuda/check.h"
#include "cuda/device_buffer.h"
#include "cuda/device_rays.cuh"
#include "cuda/device_scene.h"
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
        stack_sets_ = 0;  // a new scene's variant may need more stack (reserve_stack)
        scene_.upload(s);
        render_origin_ = s.render_origin;
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
        rays_.grow(settings);  // outside the timing
        CUDA_CHECK(cudaEventRecord(frame_begin_.get(), stream_));
        render_device(camera, settings, out_.get(), stats);
        CUDA_CHECK(cudaEventRecord(frame_end_.get(), stream_));
        CUDA_CHECK(cudaEventSynchronize(frame_end_.get()));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, frame_begin_.get(), frame_end_.get()));
        return double(ms);
    }

    // Stream launches: a graph captured here would be captured again for the viewer's
    // own buffer (the output is in FrameKey); the kernels load alike.
    void warm_up(const Camera& camera, const RenderSettings& settings) override {
        RenderSettings s = settings;
        s.launch = LaunchMode::Stream;
        timed_frame(camera, s, nullptr);
    }

    void render_device(const Camera& camera, const RenderSettings& settings, uint32_t* device_rgba,
                       FrameStats* stats) override {
        bind();
        rays_.grow(settings);

        FrameContext f;
        f.scene = scene_.view();
        f.camera = make_camera(camera, settings.width, settings.height, render_origin_);  // the CPU side's copy
        f.rays = rays_.rays();
        set_band_geometry(f, uint32_t(settings.width), uint32_t(settings.height), uint32_t(settings.band_y),
                          uint32_t(settings.band_h), uint32_t(settings.warp_width));
        if (uses_ray_tree(scene_.view(), settings)) f.tree = rays_.tree(f.ray_count, settings.depth, stream_);
        f.srgb_thresholds = thresholds_.get();
        f.out_rgba = device_rgba;
        f.nonfinite = &ctrl_.get()->nonfinite;  // (an address on the device, not read here)

        // The per-frame values (the camera, which samples, the output weights) are read by
        // the kernels from FrameControl, which starts each frame in one copy (no kernel
        // resets it), so that one captured graph serves every frame.
        set_samples(f, settings);
        frame_start_ = cuda::frame_start(f);
        CUDA_CHECK(cudaMemcpyAsync(ctrl_.get(), &frame_start_, sizeof frame_start_, cudaMemcpyHostToDevice, stream_));

        reserve_stack(f.scene, settings);  // before a graph is captured
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
        CUDA_CHECK(cudaMemcpy(radiance.data(), rays_.radiance.get(), radiance.size() * sizeof(f4), cudaMemcpyDeviceToHost));
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
            CUDA_CHECK(cudaMemcpy(words.data(), rays_.stencil.get(), words.size() * 4, cudaMemcpyDeviceToHost));
        } else if (s.mode == DeadRayMode::Flags) {
            std::vector<uint32_t> flags(ray_count);
            CUDA_CHECK(cudaMemcpy(flags.data(), rays_.flags.get(), flags.size() * 4, cudaMemcpyDeviceToHost));
            for (uint32_t i = 0; i < ray_count; ++i)
                if (flags[i]) words[i >> 5] |= 1u << (i & 31);
        } else {  // compaction's list 0, and the stencil's once it handed a sample to compaction
            const uint32_t n = s.mode == DeadRayMode::Stencil ? c.packed_live[0] : c.live[0];
            std::vector<uint32_t> list(n);
            CUDA_CHECK(cudaMemcpy(list.data(), rays_.list[0].get(), size_t(n) * 4, cudaMemcpyDeviceToHost));
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
        uint32_t sampler[3];  // its SamplerLayout's fields (render/sampler.h), without padding
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
        const SamplerLayout l = sampler_layout(s);
        k.sampler[0] = uint32_t(l.kind);
        k.sampler[1] = l.log2_spp;
        k.sampler[2] = l.digits;
        k.kill = s.kill;
        k.counting = counting;
        k.launch = sizes_.config();
        const void* b[10] = {device_rgba,    rays_.origin.get(),   rays_.stencil.get(),  rays_.flags.get(),
                             rays_.list[0].get(), rays_.list[1].get(), counters_.get(), reached_.get(),
                             rays_.tree_entries.get(), rays_.pool_sample.get()};
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
        stats.nonfinite_samples = c.nonfinite;
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
        with_set(f.scene, settings, [&](auto set) {
            issue_with<Launcher<decltype(set)::value>>(f, settings, counting, timing, root, hybrid);
        });
    }
    // Calls fn(std::integral_constant<int, kSet>{}) for the set of kernels that renders
    // the frame.
    template <class Fn>
    static void with_set(const SceneView& scene, const RenderSettings& settings, Fn&& fn) {
        const bool path = settings.integrator == Integrator::Path;
        if (settings.kill.active() && path) fn(std::integral_constant<int, kKill | kPathTracing>{});
        else if (settings.kill.active()) fn(std::integral_constant<int, kKill>{});
        else if (path) fn(std::integral_constant<int, kPathTracing>{});
        else if (uses_ray_tree(scene, settings)) fn(std::integral_constant<int, kRayTree>{});
        else fn(std::integral_constant<int, 0>{});
    }
    template <class L>
    void issue_with(FrameContext& f, const RenderSettings& settings, bool counting, bool timing, cudaGraph_t root,
                    bool hybrid) {
        L launch{*this, settings, counting, timing, stream_, LoopHandles{}};
        launch.root = root;
        launch.hybrid = hybrid;
        run_frame(launch, f, settings);
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
    // Each set of kernels is asked for its stack at its first frame of a scene, not all
    // of them at set_scene: asking loads a kernel's module (lazy loading), and asking all
    // five made Conference's upload 420-576 ms on the H200, against 5-7 ms now
    // (docs/performance.md, "The viewer's first frame").
    void reserve_stack(const SceneView& view, const RenderSettings& settings) {
        with_set(view, settings, [&](auto set) {
            constexpr int kSet = decltype(set)::value;
            constexpr uint32_t bit = 1u << (kSet >> 8);  // kPathTracing, kRayTree and kKill are bits 8-10
            if (stack_sets_ & bit) return;
            const size_t need = Launcher<kSet>::stack_bytes(view);
            size_t current = 0;
            CUDA_CHECK(cudaDeviceGetLimit(&current, cudaLimitStackSize));
            if (need > current) CUDA_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, need));
            stack_sets_ |= bit;
        });
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

    // The stencil hands a sample's bounces to compaction (cuda/stencil_kernels.cuh, PACKED) once
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
    FrameContext last_frame_;        // for read_linear
    Point3 render_origin_{0.0};  // CompiledScene::render_origin of the scene uploaded
    cuda::DeviceScene scene_;
    DeviceBuffer<float> thresholds_;
    cuda::DeviceRays rays_;
    DeviceBuffer<uint32_t> out_;
    DeviceBuffer<FrameControl> ctrl_;
    DeviceBuffer<uint32_t> word_counts_;  // dense reflect's live words (cuda::kWordCountSlots)
    DeviceBuffer<BounceCounters> counters_;
    DeviceBuffer<uint32_t> reached_;               // path modes and pool, stats: per sample, the bounces reached
    DeviceBuffer<cuda::PathCounters> path_steps_;  // regenerate, stats: its SIMD efficiency
    FrameControl frame_start_{};               // staging for the per-frame upload (camera, reset state)
    cudaStream_t side_[4] = {};  // capture of the sample and bounce loop bodies, the dense/sparse and packed branches
    cuda::GraphExec graph_;
    FrameKey graph_key_{};
    uint64_t scene_generation_ = 0;
    uint32_t stack_sets_ = 0;  // the sets whose stack this scene's frames reserved (reserve_stack)
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
