// cuda_executor.cu - the wavefront pipeline on the GPU.
//
// Ray state lives in device memory as SoA (render/frame.h); the frame loop is
// render/pipeline.h's run_frame, shared with the CPU executor. This file owns the
// buffers, chooses launch sizes, and is the one place where kernels are launched.
#include "cuda/cuda_executor.h"

#include "cuda/check.h"
#include "cuda/device_buffer.h"
#include "cuda/kernels.cuh"
#include "render/pipeline.h"
#include "render/srgb.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

namespace srt {
namespace {

using cuda::BounceCounters;

constexpr int kStages = 5;
constexpr const char* kStageNames[kStages] = {"generate", "intersect", "shade", "reflect", "resolve"};
enum Stage { kGenerate = 0, kIntersect, kShade, kReflect, kResolve };

// Owns a cudaEvent_t.
class Event {
public:
    Event() { CUDA_CHECK(cudaEventCreate(&e_)); }
    ~Event() { cudaEventDestroy(e_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return e_; }

private:
    cudaEvent_t e_{};
};

class CudaExecutorImpl final : public CudaExecutor {
public:
    explicit CudaExecutorImpl(int device) : device_(device) {
        CUDA_CHECK(cudaSetDevice(device_));
        CUDA_CHECK(cudaGetDeviceProperties(&props_, device_));
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        const auto t = make_srgb_thresholds();
        thresholds_.upload(std::vector<float>(t.begin(), t.end()), "sRGB table");
        resolve_default_launch();
        apply_launch_env();
    }
    ~CudaExecutorImpl() override {
        if (stream_) cudaStreamDestroy(stream_);
    }

    std::string name() const override { return "cuda (" + device_name() + ")"; }
    std::string device_name() const override { return props_.name; }
    int sm_count() const override { return props_.multiProcessorCount; }

    void set_launch_config(const LaunchConfig& c) override {
        auto pick = [](int want, int def) { return want > 0 ? ((want + 31) / 32) * 32 : def; };
        launch_.generate = pick(c.generate, default_.generate);
        launch_.intersect = pick(c.intersect, default_.intersect);
        launch_.shade = pick(c.shade, default_.shade);
        launch_.reflect = pick(c.reflect, default_.reflect);
        launch_.resolve = pick(c.resolve, default_.resolve);
        launch_.compact = pick(c.compact, default_.compact);
    }
    LaunchConfig launch_config() const override { return launch_; }

    void set_scene(const CompiledScene& s) override {
        nodes_.upload(s.nodes, "BVH nodes");
        prims_.upload(s.prims, "primitives");
        planes_.upload(s.planes, "planes");
        materials_.upload(s.materials, "materials");
        lights_.upload(s.lights, "lights");
        view_ = s.view();
        view_.nodes = nodes_.get();
        view_.prims = prims_.get();
        view_.planes = planes_.get();
        view_.materials = materials_.get();
        view_.lights = lights_.get();
    }

    void render(const Camera& camera, const RenderSettings& settings, Image& out,
                FrameStats* stats) override {
        const size_t pixels = size_t(settings.width) * size_t(settings.height);
        out_.allocate(pixels, "output image");
        render_device(camera, settings, out_.get(), stats);
        if (out.width != settings.width || out.height != settings.height)
            out = Image(settings.width, settings.height);
        CUDA_CHECK(cudaMemcpyAsync(out.rgba.data(), out_.get(), pixels * 4, cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    double timed_frame(const Camera& camera, const RenderSettings& settings, FrameStats* stats) override {
        out_.allocate(size_t(settings.width) * size_t(settings.height), "output image");
        allocate(uint32_t(settings.width) * uint32_t(settings.height), settings);  // outside the timing
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
        const uint32_t pixels = uint32_t(settings.width) * uint32_t(settings.height);
        allocate(pixels, settings);

        FrameContext f;
        f.scene = view_;
        f.camera = make_camera(camera, settings.width, settings.height);
        f.rays = RayBuffers{origin_.get(), dir_.get(), weight_.get(), radiance_.get(), hit_t_.get(),
                            hit_id_.get()};
        set_geometry(f, uint32_t(settings.width), uint32_t(settings.height), uint32_t(settings.warp_width));
        f.srgb_thresholds = thresholds_.get();
        f.out_rgba = device_rgba;

        const bool counting = stats != nullptr;
        if (counting) {
            const size_t n = size_t(settings.depth) * size_t(settings.spp);
            counters_.allocate(std::max<size_t>(n, 1), "stats counters");
            CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, counters_.bytes(), stream_));
            timings_.clear();
        }
        if (settings.mode == DeadRayMode::Compact) {
            // Counter slots: [0] generate's output, then 2 per bounce (hits, survivors),
            // per sample.
            CUDA_CHECK(cudaMemsetAsync(list_count_.get(), 0, list_count_.bytes(), stream_));
        }

        Launcher launch{*this, settings, counting,
                        cuda::stencil_words_per_warp(f.ray_count >> 5, uint32_t(props_.multiProcessorCount),
                                                     uint32_t(props_.maxThreadsPerMultiProcessor) / 32u)};
        run_frame(launch, f, settings);

        if (counting) {
            CUDA_CHECK(cudaStreamSynchronize(stream_));
            std::vector<BounceCounters> host(counters_.size());
            CUDA_CHECK(cudaMemcpy(host.data(), counters_.get(), counters_.bytes(), cudaMemcpyDeviceToHost));
            *stats = FrameStats{};
            stats->bounces.resize(size_t(settings.depth));
            for (size_t k = 0; k < host.size(); ++k) {
                BounceStats& b = stats->bounces[k % size_t(settings.depth)];
                b.live_rays += host[k].live_rays;
                b.live_warps += host[k].live_warps;
                stats->rays_traced += host[k].live_rays + host[k].shadow_rays;
            }
            while (!stats->bounces.empty() && stats->bounces.back().live_rays == 0) stats->bounces.pop_back();
            std::array<double, kStages> ms{};
            for (const Timing& t : timings_) {
                float e = 0.0f;
                CUDA_CHECK(cudaEventElapsedTime(&e, events_[t.begin]->get(), events_[t.end]->get()));
                ms[size_t(t.stage)] += double(e);
            }
            for (int s = 0; s < kStages; ++s) stats->stage_ms.push_back({kStageNames[s], ms[size_t(s)]});
        }
    }

    // The stencil words as they are now, for the stencil probe. For flags and compact
    // the same words are derived on the host from the per-ray flags / the live list.
    // `count_slot` indexes list_count_; `list_parity` picks the list buffer.
    std::vector<uint32_t> stencil_words(const RenderSettings& s, uint32_t ray_count, size_t count_slot,
                                        int list_parity) {
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        std::vector<uint32_t> words(ray_count / kWarpSize, 0u);
        if (s.mode == DeadRayMode::Stencil) {
            CUDA_CHECK(cudaMemcpy(words.data(), stencil_.get(), words.size() * 4, cudaMemcpyDeviceToHost));
        } else if (s.mode == DeadRayMode::Flags) {
            std::vector<uint32_t> flags(ray_count);
            CUDA_CHECK(cudaMemcpy(flags.data(), flags_.get(), flags.size() * 4, cudaMemcpyDeviceToHost));
            for (uint32_t i = 0; i < ray_count; ++i)
                if (flags[i]) words[i >> 5] |= 1u << (i & 31);
        } else {
            uint32_t n = 0;
            CUDA_CHECK(cudaMemcpy(&n, list_count_.get() + count_slot, 4, cudaMemcpyDeviceToHost));
            std::vector<uint32_t> list(n);
            CUDA_CHECK(cudaMemcpy(list.data(), list_[list_parity].get(), size_t(n) * 4, cudaMemcpyDeviceToHost));
            for (uint32_t i : list) words[i >> 5] |= 1u << (i & 31);
        }
        return words;
    }

private:
    struct Timing {
        int stage;
        size_t begin, end;
    };

    // The stage launchers run_frame calls. Every <<<>>> of the renderer is in launch().
    struct Launcher {
        CudaExecutorImpl& ex;
        const RenderSettings& settings;
        bool counting;
        uint32_t wpw;  // stencil words per launched warp (cuda::stencil_words_per_warp)

        BounceCounters* counters(const FrameContext& f, int bounce) const {
            if (!counting) return nullptr;
            return ex.counters_.get() + size_t(f.sample) * size_t(settings.depth) + size_t(bounce);
        }
        // Compact mode's list slots: generate writes slot 0; bounce b's intersect reads
        // 2b and writes 2b+1; its reflect reads 2b+1 and writes 2b+2. The lists
        // themselves are double-buffered by parity: list[slot % 2].
        uint32_t* list(int slot) const { return ex.list_[slot % 2].get(); }
        uint32_t* count(const FrameContext& f, int slot) const {
            return ex.list_count_.get() + size_t(f.sample) * size_t(2 * settings.depth + 1) + size_t(slot);
        }

        template <class Kernel, class... Args>
        void launch(Stage stage, uint32_t threads, int block, Kernel kernel, Args... args) {
            size_t begin = 0;
            if (counting) begin = ex.record();
            block = ex.clamp_block(reinterpret_cast<const void*>(kernel), block);
            const uint32_t grid = std::max<uint32_t>(1u, (threads + uint32_t(block) - 1u) / uint32_t(block));
            kernel<<<grid, block, 0, ex.stream_>>>(args...);
            CUDA_CHECK_LAUNCH(kStageNames[stage]);
            if (counting) ex.timings_.push_back({stage, begin, ex.record()});
        }
        // Grid for compact-mode loops: enough warps to fill the device, never more
        // than the rays.
        uint32_t compact_threads(const FrameContext& f) const {
            const uint32_t fill = uint32_t(ex.props_.multiProcessorCount) *
                                  uint32_t(ex.props_.maxThreadsPerMultiProcessor);
            return std::min(f.ray_count, fill);
        }

        bool all_dead() const { return false; }  // unknown without a sync: keep launching

        void generate(const FrameContext& f) {
            const cuda::GenerateOp op{};
            switch (settings.mode) {
                case DeadRayMode::Stencil:
                    launch(kGenerate, cuda::stencil_threads(f.ray_count, wpw), ex.launch_.generate, cuda::k_stencil_write<cuda::GenerateOp>,
                           f, ex.stencil_.get(), wpw, op, true, (BounceCounters*)nullptr);
                    break;
                case DeadRayMode::Flags:
                    launch(kGenerate, f.ray_count, ex.launch_.generate, cuda::k_flags_write<cuda::GenerateOp>,
                           f, ex.flags_.get(), op, true, (BounceCounters*)nullptr);
                    break;
                case DeadRayMode::Compact:
                    launch(kGenerate, f.ray_count, ex.launch_.generate, cuda::k_compact_generate<cuda::GenerateOp>,
                           f, op, list(0), count(f, 0));
                    break;
            }
        }
        // A stage that changes liveness, in the current mode. Compact mode reads the live
        // list of slot `in` and appends survivors to slot `out`.
        template <class Op>
        void write_stage(Stage stage, int block, const FrameContext& f, Op op, BounceCounters* c, int in,
                         int out) {
            switch (settings.mode) {
                case DeadRayMode::Stencil:
                    launch(stage, cuda::stencil_threads(f.ray_count, wpw), block, cuda::k_stencil_write<Op>, f,
                           ex.stencil_.get(), wpw, op, false, c);
                    break;
                case DeadRayMode::Flags:
                    launch(stage, f.ray_count, block, cuda::k_flags_write<Op>, f, ex.flags_.get(), op, false, c);
                    break;
                case DeadRayMode::Compact:
                    launch(stage, compact_threads(f), block, cuda::k_compact_write<Op>, f, (const uint32_t*)list(in),
                           (const uint32_t*)count(f, in), op, list(out), count(f, out), c);
                    break;
            }
        }
        void intersect(const FrameContext& f, int bounce) {
            write_stage(kIntersect, ex.launch_.intersect, f, cuda::IntersectOp{}, counters(f, bounce), 2 * bounce,
                        2 * bounce + 1);
        }
        void shade(const FrameContext& f, int bounce) {
            const cuda::ShadeOp op{};
            BounceCounters* c = counters(f, bounce);
            switch (settings.mode) {
                case DeadRayMode::Stencil:
                    launch(kShade, cuda::stencil_threads(f.ray_count, wpw), ex.launch_.shade, cuda::k_stencil_read<cuda::ShadeOp>, f,
                           (const uint32_t*)ex.stencil_.get(), wpw, op, c);
                    break;
                case DeadRayMode::Flags:
                    launch(kShade, f.ray_count, ex.launch_.shade, cuda::k_flags_read<cuda::ShadeOp>, f,
                           (const uint32_t*)ex.flags_.get(), op, c);
                    break;
                case DeadRayMode::Compact:
                    launch(kShade, compact_threads(f), ex.launch_.shade, cuda::k_compact_read<cuda::ShadeOp>, f,
                           (const uint32_t*)list(2 * bounce + 1), (const uint32_t*)count(f, 2 * bounce + 1), op, c);
                    break;
            }
        }
        void reflect(const FrameContext& f, int bounce) {
            write_stage(kReflect, ex.launch_.reflect, f, cuda::ReflectOp{bounce}, nullptr, 2 * bounce + 1,
                        2 * bounce + 2);
            if (ex.probe_) {
                const int slot = 2 * bounce + 2;
                ex.probe_(int(f.sample), bounce,
                          ex.stencil_words(settings, f.ray_count, size_t(count(f, slot) - ex.list_count_.get()),
                                           slot % 2));
            }
        }
        void resolve(const FrameContext& f) {
            launch(kResolve, f.pixel_count, ex.launch_.resolve, cuda::k_resolve, f);
        }
    };

    // A configured block size may exceed what a kernel can launch (its registers):
    // clamp to the kernel's limit, in whole warps.
    int clamp_block(const void* kernel, int block) {
        auto it = max_block_.find(kernel);
        if (it == max_block_.end()) {
            cudaFuncAttributes a{};
            CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
            it = max_block_.emplace(kernel, std::max(32, (a.maxThreadsPerBlock / 32) * 32)).first;
        }
        return std::min(block, it->second);
    }

    size_t record() {
        if (next_event_ == events_.size()) events_.push_back(std::make_unique<Event>());
        CUDA_CHECK(cudaEventRecord(events_[next_event_]->get(), stream_));
        return next_event_++;
    }

    void allocate(uint32_t /*pixels*/, const RenderSettings& s) {
        const size_t n = frame_geometry(uint32_t(s.width), uint32_t(s.height), uint32_t(s.warp_width)).ray_count;
        // Check the whole need against what is free before any allocation fails.
        size_t need = 0;
        if (origin_.size() != n) need += n * (4 * sizeof(f4) + sizeof(float) + sizeof(int32_t) + 4);
        if (need) {
            size_t free_b = 0, total_b = 0;
            CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
            if (need > free_b)
                throw DeviceOutOfMemory(cudaErrorMemoryAllocation,
                                        "out of device memory: " + std::to_string(s.width) + "x" +
                                            std::to_string(s.height) + " needs " + mib(need) +
                                            " of ray buffers, " + mib(free_b) + " free of " + mib(total_b));
        }
        origin_.allocate(n, "ray origins");
        dir_.allocate(n, "ray directions");
        weight_.allocate(n, "ray weights");
        radiance_.allocate(n, "radiance");
        hit_t_.allocate(n, "hit distances");
        hit_id_.allocate(n, "hit ids");
        stencil_.allocate(n / kWarpSize, "stencil");
        if (s.mode == DeadRayMode::Flags) flags_.allocate(n, "ray flags");
        if (s.mode == DeadRayMode::Compact) {
            list_[0].allocate(n, "live list 0");
            list_[1].allocate(n, "live list 1");
            list_count_.allocate(size_t(2 * s.depth + 1) * size_t(s.spp), "live counts");
        }
        next_event_ = 0;
    }

    // SRT_LAUNCH="intersect=128,shade=256": per-stage block sizes, for experiments
    // (bench --tune stores measured ones in the tuning cache instead).
    void apply_launch_env() {
        const char* env = std::getenv("SRT_LAUNCH");
        if (!env || !*env) return;
        LaunchConfig c{};
        std::string spec(env);
        size_t pos = 0;
        while (pos < spec.size()) {
            const size_t end = std::min(spec.find(',', pos), spec.size());
            const std::string item = spec.substr(pos, end - pos);
            const size_t eq = item.find('=');
            const int v = eq == std::string::npos ? 0 : std::atoi(item.c_str() + eq + 1);
            const std::string k = item.substr(0, eq);
            if (k == "generate") c.generate = v;
            else if (k == "intersect") c.intersect = v;
            else if (k == "shade") c.shade = v;
            else if (k == "reflect") c.reflect = v;
            else if (k == "resolve") c.resolve = v;
            else if (k == "compact") c.compact = v;
            else std::fprintf(stderr, "SRT_LAUNCH: unknown stage '%s' ignored\n", k.c_str());
            pos = end + 1;
        }
        set_launch_config(c);
        std::fprintf(stderr, "SRT_LAUNCH: block sizes generate=%d intersect=%d shade=%d reflect=%d resolve=%d\n",
                     launch_.generate, launch_.intersect, launch_.shade, launch_.reflect, launch_.resolve);
    }

    void resolve_default_launch() {
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
        default_.generate = best(cuda::k_stencil_write<cuda::GenerateOp>);
        default_.intersect = best(cuda::k_stencil_write<cuda::IntersectOp>, kTraversalBlockLimit);
        default_.shade = best(cuda::k_stencil_read<cuda::ShadeOp>, kTraversalBlockLimit);
        default_.reflect = best(cuda::k_stencil_write<cuda::ReflectOp>);
        default_.resolve = best(cuda::k_resolve);
        default_.compact = best(cuda::k_compact_write<cuda::IntersectOp>);
        launch_ = default_;
    }

    int device_;
    cudaDeviceProp props_{};
    cudaStream_t stream_ = nullptr;
    LaunchConfig default_, launch_;
    SceneView view_;
    DeviceBuffer<BvhNode> nodes_;
    DeviceBuffer<PrimGpu> prims_;
    DeviceBuffer<PlaneGpu> planes_;
    DeviceBuffer<MaterialGpu> materials_;
    DeviceBuffer<LightGpu> lights_;
    DeviceBuffer<float> thresholds_;
    DeviceBuffer<f4> origin_, dir_, weight_, radiance_;
    DeviceBuffer<float> hit_t_;
    DeviceBuffer<int32_t> hit_id_;
    DeviceBuffer<uint32_t> stencil_, flags_, list_[2], list_count_, out_;
    DeviceBuffer<BounceCounters> counters_;
    std::vector<std::unique_ptr<Event>> events_;
    Event frame_begin_, frame_end_;
    std::unordered_map<const void*, int> max_block_;
    size_t next_event_ = 0;
    std::vector<Timing> timings_;
};

}  // namespace

std::unique_ptr<CudaExecutor> make_cuda_executor(std::string& why_not) {
    int count = 0;
    const cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess) {
        why_not = std::string(cudaGetErrorName(rc)) + ": " + cudaGetErrorString(rc);
        cudaGetLastError();
        return nullptr;
    }
    if (count == 0) {
        why_not = "no CUDA device";
        return nullptr;
    }
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
        why_not = "cannot query CUDA device 0";
        return nullptr;
    }
    if (p.major < 7 || (p.major == 7 && p.minor < 5)) {
        why_not = std::string(p.name) + " is compute capability " + std::to_string(p.major) + "." +
                  std::to_string(p.minor) + "; stencilrt needs 7.5 or newer";
        return nullptr;
    }
    try {
        return std::make_unique<CudaExecutorImpl>(0);
    } catch (const CudaError& e) {
        why_not = e.what();
        return nullptr;
    }
}

}  // namespace srt
