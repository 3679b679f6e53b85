// split_executor.cpp - see split_executor.h.
#include "render/split_executor.h"

#include "render/frame.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <thread>

namespace srt {

namespace {
// Runs fn(i) for every part on its own thread; rethrows the first failure.
template <class Fn>
void each_part(size_t n, Fn fn) {
    std::vector<std::thread> threads;
    std::vector<std::exception_ptr> errors(n);
    for (size_t i = 0; i < n; ++i)
        threads.emplace_back([&, i] {
            try {
                fn(i);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        });
    for (std::thread& t : threads) t.join();
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
}
}  // namespace

SplitExecutor::SplitExecutor(std::vector<std::unique_ptr<Executor>> parts) : parts_(std::move(parts)) {
    if (parts_.empty()) throw std::invalid_argument("SplitExecutor: no executors");
    speed_.assign(parts_.size(), 1.0);
}

std::string SplitExecutor::name() const {
    std::string s = "split over " + std::to_string(parts_.size()) + ": ";
    for (size_t i = 0; i < parts_.size(); ++i) s += (i ? " + " : "") + parts_[i]->name();
    return s;
}

void SplitExecutor::set_scene(const CompiledScene& scene) {
    each_part(parts_.size(), [&](size_t i) { parts_[i]->set_scene(scene); });
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
    bands_.assign(parts_.size(), Band{});
    int y = 0;
    for (size_t i = 0; i < n; ++i) {
        bands_[i].y = y * tile_h;
        bands_[i].rows = std::min(rows[i] * tile_h, s.height - y * tile_h);
        y += rows[i];
    }
}

std::vector<RenderSettings> SplitExecutor::band_settings(const RenderSettings& s) const {
    std::vector<RenderSettings> out(parts_.size(), s);
    for (size_t i = 0; i < parts_.size(); ++i) {
        out[i].band_y = bands_[i].y;
        out[i].band_h = bands_[i].rows;
    }
    return out;
}

void SplitExecutor::rebalance(const RenderSettings& s) {
    last_ = bands_;
    // Rows per ms of the frame just done, smoothed over frames. The bands move only when
    // the last frame was out of balance by more than 5% (fastest band under 95% of the
    // slowest): moving them costs each CUDA executor a new graph capture, and chasing
    // every frame's noise would pay that every frame.
    double lo = 1e300, hi = 0.0;
    for (const Band& b : bands_)
        if (b.rows > 0) {
            lo = std::min(lo, b.ms);
            hi = std::max(hi, b.ms);
        }
    for (size_t i = 0; i < parts_.size(); ++i)
        if (bands_[i].rows > 0 && bands_[i].ms > 0.0) {
            const double v = double(bands_[i].rows) / bands_[i].ms;
            speed_[i] = measured_ ? 0.5 * speed_[i] + 0.5 * v : v;
        }
    measured_ = true;
    if (hi > 0.0 && lo < 0.95 * hi) dirty_ = true;  // the next frame that starts a sum gets new bands
    (void)s;
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
        out.bounces_run = std::max(out.bounces_run, p.bounces_run);
        for (const StageTime& t : p.stage_ms) {
            auto it = std::find_if(out.stage_ms.begin(), out.stage_ms.end(), [&](const StageTime& x) { return x.stage == t.stage; });
            if (it == out.stage_ms.end()) out.stage_ms.push_back(t);
            else it->ms = std::max(it->ms, t.ms);  // the parts run at once: the slowest counts
        }
    }
}

void SplitExecutor::render(const Camera& camera, const RenderSettings& s, Image& out, FrameStats* stats) {
    plan(s);
    const std::vector<RenderSettings> bs = band_settings(s);
    images_.resize(parts_.size());
    std::vector<FrameStats> st(parts_.size());
    each_part(parts_.size(), [&](size_t i) {
        if (bands_[i].rows <= 0) return;
        const auto t0 = std::chrono::steady_clock::now();
        parts_[i]->render(camera, bs[i], images_[i], stats ? &st[i] : nullptr);
        bands_[i].ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    });
    if (out.width != s.width || out.height != s.height) out = Image(s.width, s.height);
    const size_t row = size_t(s.width) * 4;
    for (size_t i = 0; i < parts_.size(); ++i)
        if (bands_[i].rows > 0)
            std::memcpy(out.pixel(0, bands_[i].y), images_[i].rgba.data(), row * size_t(bands_[i].rows));
    if (stats) merge(st, *stats);
    last_w_ = s.width;
    last_h_ = s.height;
    rebalance(s);
}

void SplitExecutor::read_linear(LinearImage& out) {
    std::vector<LinearImage> parts(parts_.size());
    each_part(parts_.size(), [&](size_t i) {
        if (last_[i].rows > 0) parts_[i]->read_linear(parts[i]);
    });
    out = LinearImage(last_w_, last_h_);
    for (size_t i = 0; i < parts_.size(); ++i)
        if (last_[i].rows > 0)
            std::memcpy(out.pixel(0, last_[i].y), parts[i].rgb.data(),
                        sizeof(float) * 3 * size_t(last_w_) * size_t(last_[i].rows));
}

double SplitExecutor::timed_frame(const Camera& camera, const RenderSettings& s, FrameStats* stats) {
    plan(s);
    const std::vector<RenderSettings> bs = band_settings(s);
    std::vector<FrameStats> st(parts_.size());
    const auto t0 = std::chrono::steady_clock::now();
    each_part(parts_.size(), [&](size_t i) {
        if (bands_[i].rows > 0) bands_[i].ms = parts_[i]->timed_frame(camera, bs[i], stats ? &st[i] : nullptr);
    });
    const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (stats) merge(st, *stats);
    double slowest = 0.0;
    for (const Band& b : bands_) slowest = std::max(slowest, b.ms);
    rebalance(s);
    // The frame takes as long as its slowest band; the host's wall time includes the
    // threads' start, which a real multi-GPU frame loop would not pay every frame.
    (void)wall;
    return slowest;
}

}  // namespace srt
