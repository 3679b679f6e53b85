// camera_path.cpp - a camera that moves: CameraPath in scene.h.
#include "scene/scene.h"

#include <algorithm>
#include <cmath>

namespace srt {

namespace {

struct Sample {  // one key's camera as numbers to interpolate
    glm::dvec3 from, at, up;
    double fov;
};
Sample sample_of(const Camera& c) {
    return {c.from, c.at, glm::dvec3(c.up), double(c.fov_deg)};
}
Sample mix(const Sample& a, const Sample& b, double wa, double wb) {
    return {wa * a.from + wb * b.from, wa * a.at + wb * b.at, wa * a.up + wb * b.up, wa * a.fov + wb * b.fov};
}
// The point at t on the line through (ta, a) and (tb, b).
Sample lerp_at(const Sample& a, double ta, const Sample& b, double tb, double t) {
    return mix(a, b, (tb - t) / (tb - ta), (t - ta) / (tb - ta));
}

}  // namespace

const char* to_string(CameraPath::Interpolation i) {
    return i == CameraPath::Interpolation::Linear ? "linear" : "catmull-rom";
}

int CameraPath::frame_count() const {
    if (keys.size() < 2) return keys.empty() ? 0 : 1;
    const double span = keys.back().time - keys.front().time;
    // The last frame at or just before the last key (a tiny epsilon absorbs 1.0/fps
    // steps that land on it: 2 s at 30 fps is 61 frames, 0..60).
    return int(std::floor(span * fps + 1e-9)) + 1;
}

Camera CameraPath::at_time(double t) const {
    if (keys.size() == 1) return keys.front().camera;
    t = std::clamp(t, keys.front().time, keys.back().time);
    // The segment [keys[i], keys[i+1]] holding t.
    size_t i = 0;
    while (i + 2 < keys.size() && t >= keys[i + 1].time) ++i;
    const double t1 = keys[i].time, t2 = keys[i + 1].time;
    const Sample p1 = sample_of(keys[i].camera), p2 = sample_of(keys[i + 1].camera);
    Sample s;
    if (interpolation == Interpolation::Linear) {
        s = lerp_at(p1, t1, p2, t2, t);
    } else {
        // Neighbours; at the ends, the mirror image of the other side.
        double t0, t3;
        Sample p0, p3;
        if (i > 0) {
            t0 = keys[i - 1].time;
            p0 = sample_of(keys[i - 1].camera);
        } else {
            t0 = 2.0 * t1 - t2;
            p0 = mix(p1, p2, 2.0, -1.0);
        }
        if (i + 2 < keys.size()) {
            t3 = keys[i + 2].time;
            p3 = sample_of(keys[i + 2].camera);
        } else {
            t3 = 2.0 * t2 - t1;
            p3 = mix(p2, p1, 2.0, -1.0);
        }
        // Barry-Goldman: three linear levels with the key times as knots.
        const Sample a1 = lerp_at(p0, t0, p1, t1, t), a2 = lerp_at(p1, t1, p2, t2, t), a3 = lerp_at(p2, t2, p3, t3, t);
        const Sample b1 = lerp_at(a1, t0, a2, t2, t), b2 = lerp_at(a2, t1, a3, t3, t);
        s = lerp_at(b1, t1, b2, t2, t);
    }
    Camera c;
    c.from = s.from;  // positions stay double (scene.h)
    c.at = s.at;
    const double ul = glm::length(s.up);
    c.up = ul > 0.0 ? glm::vec3(s.up / ul) : keys[i].camera.up;
    c.fov_deg = float(std::clamp(s.fov, 0.01, 179.0));
    // The lens is the scene camera's (keys do not set it); a focus at `at`, the default,
    // follows `at` as it moves.
    c.aperture = keys[i].camera.aperture;
    c.focus_distance = keys[i].camera.focus_distance;
    return c;
}

}  // namespace srt
