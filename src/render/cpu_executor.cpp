// cpu_executor.cpp - the wavefront pipeline on the host, warp by warp.
//
// This is the GPU's reference and its fallback. It runs the same stage functions as
// the CUDA kernels, in the same order, over the same SoA buffers, and it keeps the
// stencil exactly as the GPU does: each stage reads its warp's word at entry, skips a
// zero word whole, skips dead lanes, and a stage that changes liveness rebuilds the
// word from the 32 lanes' votes as __ballot_sync would (render/stencil.h).
#include "render/executor.h"
#include "render/pipeline.h"
#include "core/parallel.h"
#include "render/stages.h"
#include "render/stencil.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <cstdio>
#include <thread>

namespace srt {
namespace {

using Clock = std::chrono::steady_clock;

class CpuExecutor final : public Executor {
public:
    explicit CpuExecutor(int threads)
        : threads_(threads > 0 ? threads : std::max(1, int(std::thread::hardware_concurrency()))),
          thresholds_(make_srgb_thresholds()) {}

    std::string name() const override { return "cpu (" + std::to_string(threads_) + " threads)"; }

    void set_scene(const CompiledScene& scene) override { scene_ = &scene; }

    void render(const Camera& camera, const RenderSettings& settings, Image& out,
                FrameStats* stats) override {
        // The CPU runs the stencil wavefront and the megakernel's lock-step warps; the
        // other modes differ only in how a GPU schedules the same work.
        if ((settings.mode == DeadRayMode::Flags || settings.mode == DeadRayMode::Compact ||
             settings.mode == DeadRayMode::Pool) && !mode_notice_) {
            std::fprintf(stderr, "note: the CPU executor runs --mode %s as the stencil; the mode "
                                 "applies to the CUDA executor\n", to_string(settings.mode));
            mode_notice_ = true;
        }
        if (settings.mode == DeadRayMode::Regenerate && !mode_notice_) {
            std::fprintf(stderr, "note: the CPU executor runs --mode regenerate as the megakernel; its "
                                 "dynamic fetch applies to the CUDA executor\n");
            mode_notice_ = true;
        }
        allocate(frame_geometry(uint32_t(settings.width), uint32_t(settings.rows()),
                                uint32_t(settings.warp_width)).ray_count);
        if (out.width != settings.width || out.height != settings.rows())
            out = Image(settings.width, settings.rows());

        FrameContext f;
        f.scene = scene_->view();
        f.camera = make_camera(camera, settings.width, settings.height, scene_->render_origin);
        f.rays = RayBuffers{origin_.data(), dir_.data(), weight_.data(), radiance_.data(),
                            hit_t_.data(), hit_id_.data(), hit_inst_.data()};
        if (uses_ray_tree(f.scene, settings)) f.tree = allocate_tree(origin_.size(), settings.depth);
        set_band_geometry(f, uint32_t(settings.width), uint32_t(settings.height), uint32_t(settings.band_y),
                          uint32_t(settings.band_h), uint32_t(settings.warp_width));
        f.srgb_thresholds = thresholds_.data();
        f.out_rgba = reinterpret_cast<uint32_t*>(out.rgba.data());
        unsigned long long nonfinite = 0;  // resolve's threads add to it
        f.nonfinite = &nonfinite;

        Launcher launch{*this, stats};
        if (stats) *stats = FrameStats{};
        RenderSettings run = settings;
        if (run.mode == DeadRayMode::Pool) run.mode = DeadRayMode::Stencil;  // (the note above)
        run_frame(launch, f, run);
        f.nonfinite = nullptr;
        last_frame_ = f;
        if (stats) {
            stats->nonfinite_samples = nonfinite;
            if (follows_paths(settings.mode)) {
                stats->stage_ms.push_back({"paths", launch.paths_ms});
            } else {
                for (int s = 0; s < 5; ++s) stats->stage_ms.push_back({kStageNames[s], launch.ms[s]});
            }
            stats->rays_traced = launch.rays.load() + launch.shadow_rays.load();
            stats->steps_from_bounces();
        }
    }

    void read_linear(LinearImage& out) override { resolve_linear(last_frame_, radiance_.data(), out); }

    double timed_frame(const Camera& camera, const RenderSettings& settings, FrameStats* stats) override {
        const auto t0 = Clock::now();
        render(camera, settings, scratch_, stats);
        return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    }

private:
    static constexpr const char* kStageNames[5] = {"generate", "intersect", "shade", "reflect",
                                                   "resolve"};

    struct Launcher {
        CpuExecutor& ex;
        FrameStats* stats;
        double ms[5] = {0, 0, 0, 0, 0};
        double paths_ms = 0.0;
        std::atomic<uint64_t> rays{0}, shadow_rays{0};

        // Stage with liveness output: for each live warp, run live lanes, ballot.
        // `all_lanes`: ignore the incoming word (generate decides liveness itself).
        // This bounce's slot in stats (grown as bounces are reached), or null.
        BounceStats* bounce_stats(int bounce) {
            if (!stats || bounce < 0) return nullptr;
            if (stats->bounces.size() <= size_t(bounce)) stats->bounces.resize(size_t(bounce) + 1);
            return &stats->bounces[size_t(bounce)];
        }

        template <class Stage>
        double write_stage(int s, const FrameContext& f, bool all_lanes, Stage&& stage) {
            const auto t0 = Clock::now();
            uint32_t* words = ex.stencil_.data();
            parallel_for(f.ray_count / kWarpSize, 64, ex.threads_, [&](uint32_t wb, uint32_t we) {
                for (uint32_t w = wb; w < we; ++w) {
                    const uint32_t word = all_lanes ? kFullMask : words[w];
                    if (word == 0) continue;  // whole warp dead: leaves at once
                    bool votes[kWarpSize];
                    for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
                        const uint32_t i = w * kWarpSize + lane;
                        votes[lane] = stencil_test(word, i) && stage(i);
                    }
                    words[w] = ballot_reference(votes);
                }
            });
            const double elapsed = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
            ms[s] += elapsed;
            return elapsed;
        }

        // Stage without liveness output (reads the stencil only). `stage` returns a
        // count (shadow rays traced), summed per chunk and added once.
        template <class Stage>
        uint64_t read_stage(int s, const FrameContext& f, Stage&& stage, double* elapsed_ms = nullptr) {
            const auto t0 = Clock::now();
            const uint32_t* words = ex.stencil_.data();
            std::atomic<uint64_t> total{0};
            parallel_for(f.ray_count / kWarpSize, 64, ex.threads_, [&](uint32_t wb, uint32_t we) {
                uint64_t sum = 0;
                for (uint32_t w = wb; w < we; ++w) {
                    const uint32_t word = words[w];
                    if (word == 0) continue;
                    for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
                        const uint32_t i = w * kWarpSize + lane;
                        if (stencil_test(word, i)) sum += stage(i);
                    }
                }
                total.fetch_add(sum, std::memory_order_relaxed);
            });
            const double elapsed = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
            ms[s] += elapsed;
            if (elapsed_ms) *elapsed_ms = elapsed;
            return total.load();
        }

        bool all_dead() const {
            for (uint32_t w : ex.stencil_)
                if (w) return false;
            return true;
        }

        void begin_frame(const FrameContext&) {}
        template <class Body>
        void for_each_sample(FrameContext& f, Body&& body) {
            for (uint32_t s = f.sample_begin; s < f.sample_begin + f.spp; ++s) {
                f.sample = s;
                sample_offset(s, f.sample_dx, f.sample_dy);
                body();
            }
        }
        // Stops once every ray is dead: the CUDA executor's graph stops after the same bounce.
        template <class Body>
        void for_each_bounce(const FrameContext& f, Body&& body) {
            for (int bounce = 0; bounce < f.max_depth && !all_dead(); ++bounce) {
                body(bounce);
                if (stats) ++stats->bounces_run;
            }
        }

        void generate(const FrameContext& f) {
            write_stage(0, f, true, [&](uint32_t i) { return stage_generate(f, i); });
        }
        void intersect(const FrameContext& f, int bounce) {
            // Counting is one pass over N/32 words: cheap enough to do always.
            uint64_t live = 0, warps = 0;
            for (uint32_t w : ex.stencil_) {
                live += uint64_t(popc32(w));
                warps += w != 0;
            }
            rays += live;
            BounceStats* b = bounce_stats(bounce);
            if (b) {
                b->live_rays += live;
                b->live_warps += warps;
            }
            const double t = with_intersect_variant(f, [&](auto w) {
                return write_stage(1, f, false, [&](uint32_t i) { return stage_intersect<decltype(w)::value>(f, i); });
            });
            if (b) b->intersect_ms += t;
        }
        void shade(const FrameContext& f, int bounce) {
            double t = 0.0;
            const uint64_t n = with_variant(f, [&](auto w) {
                return read_stage(2, f, [&](uint32_t i) { return stage_shade<decltype(w)::value>(f, i, bounce); }, &t);
            });
            shadow_rays += n;
            if (BounceStats* b = bounce_stats(bounce)) {
                b->shade_ms += t;
                b->shadow_rays += n;
            }
        }
        void reflect(const FrameContext& f, int bounce) {
            with_variant(f, [&](auto w) {
                write_stage(3, f, false, [&](uint32_t i) { return stage_reflect<decltype(w)::value>(f, i, bounce); });
            });
            if (ex.probe_) ex.probe_(int(f.sample), bounce, ex.stencil_);
        }
        // The last bounce: every ray ends at the depth limit.
        void retire(const FrameContext& f, int bounce) {
            std::fill(ex.stencil_.begin(), ex.stencil_.end(), 0u);
            if (ex.probe_) ex.probe_(int(f.sample), bounce, ex.stencil_);
        }
        // The path modes: each warp's 32 lanes follow their pixels through every sample and
        // bounce in lock step, a bounce at a time, as a megakernel's warp runs on the GPU;
        // a warp whose lanes have all ended leaves the sample. Each lane sums its pixel's
        // samples in order, so the image is the wavefront's.
        void trace_paths(FrameContext& f, DeadRayMode) {
            const auto t0 = Clock::now();
            const uint32_t spp = f.spp, depth = uint32_t(f.max_depth);
            std::vector<BounceStats> bounces(depth);
            std::vector<uint32_t> reached(spp, 0u);  // per sample: the bounces that had a live ray
            std::mutex merge;
            with_variant(f, [&](auto width) {
                constexpr int W = decltype(width)::value;
                parallel_for(f.ray_count / kWarpSize, 16, ex.threads_, [&](uint32_t wb, uint32_t we) {
                    std::vector<BounceStats> local(depth);
                    std::vector<uint32_t> local_reached(spp, 0u);
                    for (uint32_t w = wb; w < we; ++w) trace_warp<W>(f, w, local, local_reached);
                    const std::lock_guard<std::mutex> lock(merge);
                    for (uint32_t b = 0; b < depth; ++b) {
                        bounces[b].live_rays += local[b].live_rays;
                        bounces[b].live_warps += local[b].live_warps;
                        bounces[b].shadow_rays += local[b].shadow_rays;
                    }
                    for (uint32_t k = 0; k < spp; ++k) reached[k] = std::max(reached[k], local_reached[k]);
                });
            });
            uint64_t live = 0, shadow = 0;
            for (const BounceStats& b : bounces) {
                live += b.live_rays;
                shadow += b.shadow_rays;
            }
            rays += live;
            shadow_rays += shadow;
            if (stats) {
                while (!bounces.empty() && bounces.back().live_rays == 0) bounces.pop_back();
                stats->bounces = std::move(bounces);
                for (uint32_t r : reached) stats->bounces_run += r;
            }
            paths_ms += std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        }
        template <int W>
        void trace_warp(const FrameContext& f, uint32_t w, std::vector<BounceStats>& bounces,
                        std::vector<uint32_t>& reached) {
            PathRay ray[kWarpSize];
            bool pixel[kWarpSize];
            uint32_t pixel_index[kWarpSize];
            for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
                const uint32_t i = w * kWarpSize + lane;
                uint32_t x, y;
                pixel[lane] = ray_to_pixel(f, i, x, y);
                pixel_index[lane] = y * f.width + x;
                if (pixel[lane] && f.sample_begin != 0) ray[lane].load_sum(f.rays, i);
            }
            FrameContext g = f;
            for (uint32_t s = f.sample_begin; s < f.sample_begin + f.spp; ++s) {
                g.sample = s;
                sample_offset(s, g.sample_dx, g.sample_dy);
                bool alive[kWarpSize];
                for (uint32_t lane = 0; lane < kWarpSize; ++lane)
                    alive[lane] = pixel[lane] && generate_ray(g, w * kWarpSize + lane, ray[lane]);
                follow_warp<W>(g, w, 0, ray, alive, bounces, reached[s - f.sample_begin]);
            }
            for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
                if (!pixel[lane]) continue;
                ray[lane].store_sum(f.rays, w * kWarpSize + lane);
                resolve_pixel(f, pixel_index[lane], ray[lane].rad, ray[lane].dropped);
            }
        }
        // A warp's live lanes from step `from` on, in lock step, each step counted as a
        // megakernel's warp counts it (stencil rows: render/stages.h stats_row), until
        // every lane's path (or ray tree) has ended.
        template <int W>
        static void follow_warp(const FrameContext& f, uint32_t w, int from, PathRay (&ray)[kWarpSize],
                                bool (&alive)[kWarpSize], std::vector<BounceStats>& bounces, uint32_t& reached) {
            for (int b = from; b < trace_steps<W>(f); ++b) {
                const uint32_t word = ballot_reference(alive);
                if (word == 0) break;  // every lane's path ended: the warp leaves the sample
                BounceStats& st = bounces[size_t(stats_row(f, b))];
                st.live_rays += uint64_t(popc32(word));
                st.live_warps += 1;
                reached = std::max(reached, uint32_t(b + 1));
                for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
                    if (!alive[lane]) continue;
                    uint32_t n = 0;
                    alive[lane] = trace_bounce<W>(f, ray[lane], w * kWarpSize + lane, b, n);
                    st.shadow_rays += n;
                }
            }
        }
        // Whitted's ray trees that outlast the loop's `depth` steps: each live warp's lanes
        // follow theirs to the end, in registers, as the megakernel does.
        // The pool runs as the stencil here (render()): run_frame never calls this.
        void trace_pool(FrameContext&) { throw std::logic_error("the CPU executor runs --mode pool as the stencil"); }
        void finish_trees(const FrameContext& f) {
            const auto t0 = Clock::now();
            const uint32_t depth = uint32_t(f.max_depth);
            std::vector<BounceStats> bounces(depth);
            uint32_t reached = 0;
            std::mutex merge;
            uint32_t* words = ex.stencil_.data();
            with_variant(f, [&](auto width) {
                constexpr int W = decltype(width)::value;
                parallel_for(f.ray_count / kWarpSize, 16, ex.threads_, [&](uint32_t wb, uint32_t we) {
                    std::vector<BounceStats> local(depth);
                    uint32_t local_reached = 0;
                    for (uint32_t w = wb; w < we; ++w) {
                        if (words[w] == 0) continue;
                        PathRay ray[kWarpSize];
                        bool alive[kWarpSize];
                        for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
                            const uint32_t i = w * kWarpSize + lane;
                            alive[lane] = stencil_test(words[w], i);
                            if (alive[lane]) ray[lane] = PathRay::load(f.rays, i);
                        }
                        follow_warp<W>(f, w, f.max_depth, ray, alive, local, local_reached);
                        for (uint32_t lane = 0; lane < kWarpSize; ++lane)
                            if (stencil_test(words[w], w * kWarpSize + lane))
                                ray[lane].store_sum(f.rays, w * kWarpSize + lane);
                        words[w] = 0;
                    }
                    const std::lock_guard<std::mutex> lock(merge);
                    for (uint32_t b = 0; b < depth; ++b) {
                        bounces[b].live_rays += local[b].live_rays;
                        bounces[b].live_warps += local[b].live_warps;
                        bounces[b].shadow_rays += local[b].shadow_rays;
                    }
                    reached = std::max(reached, local_reached);
                });
            });
            for (uint32_t b = 0; b < depth; ++b) {
                rays += bounces[b].live_rays;
                shadow_rays += bounces[b].shadow_rays;
                if (BounceStats* st = bounce_stats(int(b))) {
                    st->live_rays += bounces[b].live_rays;
                    st->live_warps += bounces[b].live_warps;
                    st->shadow_rays += bounces[b].shadow_rays;
                }
            }
            if (stats && reached > depth) stats->bounces_run += reached - depth;
            ms[3] += std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        }
        void resolve(const FrameContext& f) {
            const auto t0 = Clock::now();
            parallel_for(f.pixel_count, 4096, ex.threads_, [&](uint32_t b, uint32_t e) {
                for (uint32_t p = b; p < e; ++p) stage_resolve(f, p);
            });
            ms[4] += std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        }
    };

    void allocate(uint32_t rays) {
        const size_t n = rays;
        if (origin_.size() == n) return;
        origin_.assign(n, f4{});
        dir_.assign(n, f4{});
        weight_.assign(n, f4{});
        radiance_.assign(n, f4{});
        hit_t_.assign(n, 0.0f);
        hit_id_.assign(n, -1);
        hit_inst_.assign(n, kNoInstance);
        stencil_.assign(n / kWarpSize, 0u);
    }

    // Whitted's ray tree (render/ray_tree.h), for frames with glass; kept zeroed between
    // frames (every slot's stack is empty when its tree ends).
    RayTree allocate_tree(size_t rays, int depth) {
        const size_t entries = 3 * ray_tree_capacity(depth) * rays;
        if (tree_entries_.size() != entries) tree_entries_.assign(entries, f4{});
        if (tree_size_.size() != rays) tree_size_.assign(rays, 0u);
        return ray_tree_over(tree_entries_.data(), tree_size_.data(), uint32_t(rays), depth);
    }

    int threads_;
    std::array<float, kSrgbThresholds> thresholds_;
    const CompiledScene* scene_ = nullptr;
    FrameContext last_frame_;  // for read_linear
    bool mode_notice_ = false;
    std::vector<f4> origin_, dir_, weight_, radiance_;
    std::vector<float> hit_t_;
    std::vector<int32_t> hit_id_;
    std::vector<uint32_t> hit_inst_;
    std::vector<uint32_t> stencil_;
    std::vector<f4> tree_entries_;
    std::vector<uint32_t> tree_size_;
    Image scratch_;
};

}  // namespace

std::unique_ptr<Executor> make_cpu_executor(int threads) {
    return std::make_unique<CpuExecutor>(threads);
}

}  // namespace srt
