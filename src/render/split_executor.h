// split_executor.h - one frame over several executors (one per GPU: --devices): each
// renders a horizontal band of whole warp tiles (RenderSettings::band_y/band_h), all at
// once on their own threads, and the bands are copied into one image. The image is the
// one executor's, bit for bit: a band is exactly those rows of the whole frame.
//
// Bands follow each executor's measured speed, as Cycles balances its devices: after a
// frame, band i gets rows in proportion to rows_i / time_i (smoothed over frames), rounded
// to whole tile rows (at least one each), so a faster device gets more. The bands move
// only when, at the smoothed speeds, they are more than 5% out of balance; the first
// frame after a move (new graphs, new buffers) is not taken as a measurement. Bands move
// only at a frame that starts a new sum (sample_begin 0): accumulating frames keep them.
//
// This class gathers bands in host memory, for any executors (the CPU's too: the tests
// split over CPU executors). On GPUs, cuda/multi_gpu_executor.h wraps it and gathers on
// the device instead, by peer copies or through pinned host memory.
#pragma once

#include "render/executor.h"
#include "render/part_threads.h"

#include <functional>
#include <map>
#include <memory>
#include <vector>

namespace srt {

class SplitExecutor final : public Executor {
public:
    explicit SplitExecutor(std::vector<std::unique_ptr<Executor>> parts);

    std::string name() const override;
    void set_scene(const CompiledScene& scene) override;
    void render(const Camera& camera, const RenderSettings& settings, Image& out, FrameStats* stats = nullptr) override;
    void read_linear(LinearImage& out) override;
    double timed_frame(const Camera& camera, const RenderSettings& settings, FrameStats* stats = nullptr) override;

    SplitExecutor* split() override { return this; }
    // The probe sees the whole frame's words: each part's band words, in band order
    // (bands are whole tile rows, so they are the frame's words in order), zeros for a
    // band whose rays had all died before that bounce.
    void set_stencil_probe(StencilProbe probe) override;

    size_t parts() const { return parts_.size(); }
    Executor& part(size_t i) { return *parts_[i]; }
    const Executor& part(size_t i) const { return *parts_[i]; }
    // The last frame: each part's band (first row, rows), its time in ms, and the part
    // of that time spent gathering the band into the one image (device gathers only).
    struct Band {
        int y = 0, rows = 0;
        double ms = 0.0, gather_ms = 0.0;
    };
    const std::vector<Band>& bands() const { return last_; }

    // The frame loop for executors that gather elsewhere (cuda/multi_gpu_executor.h):
    // plans the bands of a frame of `settings`, runs render_band(i, band settings) on
    // part i's thread for every part with rows, all at once, and rebalances from the
    // times it returns (ms; a negative time: the host clock around the call). When
    // `stats` is given, render_band must fill part_stats[i]; they are merged into it.
    // Returns the host's wall time of the whole, in ms.
    struct BandTime {
        double ms = -1.0, gather_ms = 0.0;
    };
    using BandFn = std::function<BandTime(size_t part, const RenderSettings& band)>;
    double run_bands(const RenderSettings& settings, const BandFn& render_band, FrameStats* stats = nullptr,
                     std::vector<FrameStats>* part_stats = nullptr);

private:
    // Bands for a frame of `settings` (from the weights of the last frame of that size).
    void plan(const RenderSettings& settings);
    std::vector<RenderSettings> band_settings(const RenderSettings& settings) const;
    void rebalance();
    void forward_probes(const RenderSettings& settings);  // the parts' words as the whole frame's
    static void merge(const std::vector<FrameStats>& parts, FrameStats& out);

    std::vector<std::unique_ptr<Executor>> parts_;
    std::vector<Band> bands_;  // the plan for the next frame
    std::vector<Band> last_;   // the bands of the last frame, with their times
    std::vector<double> speed_;  // rows per ms of each part, from the last frame
    int planned_w_ = 0, planned_h_ = 0, planned_tile_ = 0;
    int last_w_ = 0, last_h_ = 0;
    bool dirty_ = false;     // out of balance: plan again at the next new sum
    bool measured_ = false;  // speed_ holds measurements
    bool settling_ = false;  // the bands just moved: the next frame's times are not speeds
    std::vector<Image> images_;
    std::vector<FrameStats> part_stats_;
    // Each part's probed words of the frame under way, by (sample, bounce).
    std::vector<std::map<std::pair<int, int>, std::vector<uint32_t>>> probed_;
    PartThreads threads_;
};

}  // namespace srt
