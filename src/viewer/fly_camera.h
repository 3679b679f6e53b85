// fly_camera.h - the viewer's camera controls over srt::Camera.
#pragma once

#include "scene/scene.h"

#include <glm/glm.hpp>

#include <algorithm>
#include <cmath>

namespace srt::viewer::detail {

// A fly camera over srt::Camera. It edits `from` and `at` only when the user moves,
// so an untouched (or reset) camera is bit-for-bit the scene's, and the viewer's
// image equals the headless render's. The motion is computed in double, as the camera
// is kept: a step added in float would round a camera far from the origin to the
// float grid there (a thousandth at 1e4).
class FlyCamera {
public:
    FlyCamera(const Camera& home, float speed) : home_(home), cam_(home), home_speed_(speed), speed_(speed) {}

    const Camera& camera() const { return cam_; }
    void reset() {
        cam_ = home_;
        speed_ = home_speed_;
    }
    float speed() const { return speed_; }
    // The thin lens (scene.h Camera): reset() restores the scene's.
    void set_lens(float aperture, float focus_distance) {
        cam_.aperture = aperture;
        cam_.focus_distance = focus_distance;
    }
    void scale_speed(double wheel) { speed_ = std::clamp(speed_ * std::pow(1.2f, float(wheel)), 1e-4f, 1e6f); }

    // `dir`: x = right, y = up, z = forward, each -1..1.
    void move(const glm::vec3& dir, float dt) {
        if (dir == glm::vec3(0.0f)) return;
        glm::dvec3 f, r, u;
        basis(f, r, u);
        const glm::dvec3 d = (double(dir.x) * r + double(dir.y) * u + double(dir.z) * f) * (double(speed_) * double(dt));
        cam_.from += d;
        cam_.at += d;
    }

    // Mouse-look: yaw about the camera's up vector, pitch about its right vector;
    // pitch stops short of the up vector, where the basis would degenerate.
    void look(double dx, double dy) {
        const double k = 0.003;  // radians per pixel
        glm::dvec3 f, r, u;
        basis(f, r, u);
        const double dist = glm::length(cam_.at - cam_.from);
        const glm::dvec3 up = glm::normalize(glm::dvec3(cam_.up));
        f = rotate(f, up, -dx * k);
        const glm::dvec3 pitched = rotate(f, glm::normalize(glm::cross(f, up)), -dy * k);
        if (std::fabs(glm::dot(pitched, up)) < 0.995) f = pitched;
        cam_.at = cam_.from + glm::normalize(f) * dist;
    }

private:
    void basis(glm::dvec3& f, glm::dvec3& r, glm::dvec3& u) const {
        f = glm::normalize(cam_.at - cam_.from);
        r = glm::normalize(glm::cross(f, glm::dvec3(cam_.up)));
        u = glm::cross(r, f);
    }
    static glm::dvec3 rotate(const glm::dvec3& v, const glm::dvec3& axis, double angle) {
        // Rodrigues' formula; glm's gtx rotate would need GLM_ENABLE_EXPERIMENTAL.
        const double c = std::cos(angle), s = std::sin(angle);
        return v * c + glm::cross(axis, v) * s + axis * glm::dot(axis, v) * (1.0 - c);
    }

    Camera home_, cam_;
    float home_speed_, speed_;
};

}  // namespace srt::viewer::detail
