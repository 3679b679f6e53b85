// split_executor.cpp - see split_executor.h.
#include "render/split_executor.h"

#include "render/frame.h"
#include "render/stencil.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace srt {

SplitExecutor::SplitExecutor(std::vector<std::unique_ptr<Executor>> parts)
    : parts_(std::move(parts)), threads_(parts_.size()) {
    if (parts_.empty()) throw std::invalid_argument("SplitExecutor: no executors");
    speed_.assign(parts_.size(), 1.0);
}

std::string SplitExecutor::name() const {
    std::string s = "split over " + std::to_string(parts_.size()) + ": ";
    for (size_t i = 0; i < parts_.size(); ++i) s += (i ? " + " : "") + parts_[i]->name();
    return s;
}

void SplitExecutor::set_scene(const CompiledScene& scene) {
    threads_.run([&](size_t i) { parts_[i]->set_scene(scene); });
}

void SplitExecutor::plan(const RenderSettings& s) {
    const int tile_h = 32 / std::max(1, s.warp_width);
    const bool same = s.width == planned_w_ && s.height == planned_h_ && tile_h == planned_tile_ && !bands_.empty();
    // New speeds move the bands only where a new sum starts: an accumulating frame
    // (sample_begin > 0) adds to each part's own rows, so they must stay put.
    if (same && !(dirty_ && s.sample_begin == 0)) return;
    dirty_ = false;
    planned_w_ = s.width;
    planned_h_ = s.height;
    planned_tile_ = tile_h;
    // Whole tile rows, split in proportion to the parts' speeds (equal at first).
    const int tile_rows = (s.height + tile_h - 1) / tile_h;
    const size_t n = std::min(parts_.size(), size_t(tile_rows));
    double total = 0.0;
    for (size_t i = 0; i < n; ++i) total += speed_[i];
    std::vector<int> rows(n, 1);
    int left = tile_rows - int(n);
    double acc = 0.0;
    int given = 0;
    for (size_t i = 0; i < n; ++i) {
        acc += speed_[i] / total * double(left);
        const int upto = i + 1 == n ? left : int(std::lround(acc));
        rows[i] += upto - given;
        given = upto;
    }
    std::vector<Band> next(parts_.size());
    int y = 0;
    for (size_t i = 0; i < n; ++i) {
        next[i].y = y * tile_h;
        next[i].rows = std::min(rows[i] * tile_h, s.height - y * tile_h);
        y += rows[i];
    }
    bool moved = next.size() != bands_.size();
    for (size_t i = 0; !moved && i < next.size(); ++i) moved = next[i].y != bands_[i].y || next[i].rows != bands_[i].rows;
    if (moved) settling_ = true;
    bands_ = std::move(next);
}

std::vector<RenderSettings> SplitExecutor::band_settings(const RenderSettings& s) const {
    std::vector<RenderSettings> out(parts_.size(), s);
    for (size_t i = 0; i < parts_.size(); ++i) {
        out[i].band_y = bands_[i].y;
        out[i].band_h = bands_[i].rows;
    }
    return out;
}

void SplitExecutor::rebalance() {
    last_ = bands_;
    // The first frame of new bands pays for each part's new graph and buffers: its
    // times say nothing about speed, and balancing by them would move the bands again.
    if (settling_) {
        settling_ = false;
        return;
    }
    // Rows per ms of the frame just done, smoothed over frames.
    for (size_t i = 0; i < parts_.size(); ++i)
        if (bands_[i].rows > 0 && bands_[i].ms > 0.0) {
            const double v = double(bands_[i].rows) / bands_[i].ms;
            speed_[i] = measured_ ? 0.5 * speed_[i] + 0.5 * v : v;
        }
    measured_ = true;
    // The bands move when, at the smoothed speeds, the fastest band would finish in
    // under 95% of the slowest one's time: moving them costs every CUDA executor a new
    // graph capture, and chasing one frame's noise would pay that every frame.
    double lo = 1e300, hi = 0.0;
    for (size_t i = 0; i < parts_.size(); ++i)
        if (bands_[i].rows > 0) {
            const double t = double(bands_[i].rows) / speed_[i];
            lo = std::min(lo, t);
            hi = std::max(hi, t);
        }
    if (hi > 0.0 && lo < 0.95 * hi) dirty_ = true;  // the next frame that starts a sum gets new bands
}

void SplitExecutor::merge(const std::vector<FrameStats>& parts, FrameStats& out) {
    out = FrameStats{};
    for (const FrameStats& p : parts) {
        if (out.bounces.size() < p.bounces.size()) out.bounces.resize(p.bounces.size());
        for (size_t b = 0; b < p.bounces.size(); ++b) {
            out.bounces[b].live_rays += p.bounces[b].live_rays;
            out.bounces[b].live_warps += p.bounces[b].live_warps;
        }
        out.rays_traced += p.rays_traced;
        out.nonfinite_samples += p.nonfinite_samples;
        out.lane_steps += p.lane_steps;
        out.warp_steps += p.warp_steps;
        out.bounces_run = std::max(out.bounces_run, p.bounces_run);
        for (const StageTime& t : p.stage_ms) {
            auto it = std::find_if(out.stage_ms.begin(), out.stage_ms.end(), [&](const StageTime& x) { return x.stage == t.stage; });
            if (it == out.stage_ms.end()) out.stage_ms.push_back(t);
            else it->ms = std::max(it->ms, t.ms);  // the parts run at once: the slowest counts
        }
    }
}

void SplitExecutor::set_stencil_probe(StencilProbe probe) {
    probe_ = std::move(probe);
    probed_.assign(parts_.size(), {});
    for (size_t i = 0; i < parts_.size(); ++i) {
        if (!probe_) {
            parts_[i]->set_stencil_probe(nullptr);
            continue;
        }
        // Called on part i's thread; only that thread touches probed_[i] during a frame.
        parts_[i]->set_stencil_probe([this, i](int sample, int bounce, const std::vector<uint32_t>& words) {
            probed_[i][{sample, bounce}] = words;
        });
    }
}

void SplitExecutor::forward_probes(const RenderSettings& s) {
    std::map<std::pair<int, int>, bool> keys;
    for (const auto& m : probed_)
        for (const auto& kv : m) keys[kv.first] = true;
    const FrameGeometry whole = frame_geometry(uint32_t(s.width), uint32_t(s.height), uint32_t(s.warp_width));
    for (const auto& kv : keys) {
        std::vector<uint32_t> words;
        words.reserve(whole.ray_count / kWarpSize);
        for (size_t i = 0; i < parts_.size(); ++i) {
            if (bands_[i].rows <= 0) continue;
            const auto it = probed_[i].find(kv.first);
            const uint32_t n =
                frame_geometry(uint32_t(s.width), uint32_t(bands_[i].rows), uint32_t(s.warp_width)).ray_count /
                kWarpSize;
            if (it == probed_[i].end()) words.insert(words.end(), n, 0u);
            else words.insert(words.end(), it->second.begin(), it->second.end());
        }
        probe_(kv.first.first, kv.first.second, words);
    }
}

double SplitExecutor::run_bands(const RenderSettings& s, const BandFn& render_band, FrameStats* stats,
                                std::vector<FrameStats>* part_stats) {
    using Clock = std::chrono::steady_clock;
    plan(s);
    const std::vector<RenderSettings> bs = band_settings(s);
    if (part_stats) part_stats->assign(parts_.size(), FrameStats{});
    for (auto& m : probed_) m.clear();
    const auto t0 = Clock::now();
    threads_.run([&](size_t i) {
        bands_[i].ms = bands_[i].gather_ms = 0.0;
        if (bands_[i].rows <= 0) return;
        const auto start = Clock::now();
        const BandTime t = render_band(i, bs[i]);
        bands_[i].ms = t.ms >= 0.0 ? t.ms : std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        bands_[i].gather_ms = t.gather_ms;
    });
    const double wall = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (stats && part_stats) merge(*part_stats, *stats);
    if (probe_) forward_probes(s);
    last_w_ = s.width;
    last_h_ = s.height;
    rebalance();
    return wall;
}

void SplitExecutor::render(const Camera& camera, const RenderSettings& s, Image& out, FrameStats* stats) {
    images_.resize(parts_.size());
    run_bands(s, [&](size_t i, const RenderSettings& band) {
        parts_[i]->render(camera, band, images_[i], stats ? &part_stats_[i] : nullptr);
        return BandTime{};
    }, stats, &part_stats_);
    if (out.width != s.width || out.height != s.height) out = Image(s.width, s.height);
    const size_t row = size_t(s.width) * 4;
    for (size_t i = 0; i < parts_.size(); ++i)
        if (last_[i].rows > 0)
            std::memcpy(out.pixel(0, last_[i].y), images_[i].rgba.data(), row * size_t(last_[i].rows));
}

void SplitExecutor::read_linear(LinearImage& out) {
    std::vector<LinearImage> parts(parts_.size());
    threads_.run([&](size_t i) {
        if (i < last_.size() && last_[i].rows > 0) parts_[i]->read_linear(parts[i]);
    });
    out = LinearImage(last_w_, last_h_);
    for (size_t i = 0; i < last_.size(); ++i)
        if (last_[i].rows > 0)
            std::memcpy(out.pixel(0, last_[i].y), parts[i].rgb.data(),
                        sizeof(float) * 3 * size_t(last_w_) * size_t(last_[i].rows));
}

// The frame takes as long as its slowest band: each part's own timed frame (CUDA events on
// a GPU), without reading the image back, as one executor's timed_frame.
double SplitExecutor::timed_frame(const Camera& camera, const RenderSettings& s, FrameStats* stats) {
    run_bands(s, [&](size_t i, const RenderSettings& band) {
        return BandTime{parts_[i]->timed_frame(camera, band, stats ? &part_stats_[i] : nullptr), 0.0};
    }, stats, &part_stats_);
    double slowest = 0.0;
    for (const Band& b : last_) slowest = std::max(slowest, b.ms);
    return slowest;
}

}  // namespace srt
