// settings.h - a frame's RenderSettings for tests, built in one expression:
//   Frame(203, 117, 8, DeadRayMode::Compact).spp(3).path()
// Whatever is not set keeps RenderSettings' default, so a test names only what it varies.
#pragma once

#include "render/kill.h"
#include "render/settings.h"

#include <stdexcept>
#include <string>

namespace srt::test {

class Frame {
public:
    Frame(int width, int height, int depth, DeadRayMode mode = DeadRayMode::Stencil) {
        rs_.width = width;
        rs_.height = height;
        rs_.depth = depth;
        rs_.mode = mode;
    }
    Frame& spp(int n) { return rs_.spp = n, *this; }
    Frame& from(int sample) { return rs_.sample_begin = sample, *this; }  // the first sample
    Frame& launch(LaunchMode l) { return rs_.launch = l, *this; }
    Frame& integrator(Integrator i) { return rs_.integrator = i, *this; }
    Frame& path() { return integrator(Integrator::Path); }
    // A --kill pattern ("ray:0.5", "" for none); a malformed one is the test's own error.
    Frame& kill(const std::string& pattern) {
        if (pattern.empty()) return *this;
        const std::string why = parse_kill(pattern, rs_.kill);
        if (!why.empty()) throw std::invalid_argument(pattern + ": " + why);
        return *this;
    }
    operator RenderSettings() const { return rs_; }

private:
    RenderSettings rs_;
};

}  // namespace srt::test
