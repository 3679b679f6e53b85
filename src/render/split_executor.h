// split_executor.h - one frame over several executors (one per GPU: --devices): each
// renders a horizontal band of whole warp tiles (RenderSettings::band_y/band_h), all at
// once on their own threads, and the bands are copied into one image. The image is the
// one executor's, bit for bit: a band is exactly those rows of the whole frame.
//
// Bands follow each executor's measured speed, as Cycles balances its devices: after a
// frame, band i gets rows in proportion to rows_i / time_i (smoothed over frames), rounded
// to whole tile rows (at least one each), so a faster device gets more; the bands move
// only when a frame was more than 5% out of balance. Bands move only at a frame
// that starts a new sum (sample_begin 0): accumulating frames keep them.
#pragma once

#include "render/executor.h"

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

    size_t parts() const { return parts_.size(); }
    // The last frame: each part's band (first row, rows) and time in ms.
    struct Band {
        int y = 0, rows = 0;
        double ms = 0.0;
    };
    const std::vector<Band>& bands() const { return last_; }

private:
    // Bands for a frame of `settings` (from the weights of the last frame of that size).
    void plan(const RenderSettings& settings);
    std::vector<RenderSettings> band_settings(const RenderSettings& settings) const;
    void rebalance(const RenderSettings& settings);
    static void merge(const std::vector<FrameStats>& parts, FrameStats& out);

    std::vector<std::unique_ptr<Executor>> parts_;
    std::vector<Band> bands_;  // the plan for the next frame
    std::vector<Band> last_;   // the bands of the last frame, with their times
    std::vector<double> speed_;  // rows per ms of each part, from the last frame
    int planned_w_ = 0, planned_h_ = 0, planned_tile_ = 0;
    int last_w_ = 0, last_h_ = 0;
    bool dirty_ = false;     // out of balance: plan again at the next new sum
    bool measured_ = false;  // speed_ holds measurements
    std::vector<Image> images_;
};

}  // namespace srt
