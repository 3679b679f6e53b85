// fly_camera.h - the viewer's camera controls over srt::Camera.
#pragma once

#include "scene/scene.h"

#include <glm/glm.hpp>

#include <algorithm>
#include <cmath>

namespace srt::viewer::detail {

// A fly camera over srt::Camera. It edits `from` and `at` only when the user moves,
// so an untouched (or reset) camera is bit-for-bit the scene's, and the viewer's
// image equals the headless render's.
class FlyCamera {
public:
    FlyCamera(const Camera& home, float speed) : home_(home), cam_(home), home_speed_(speed), speed_(speed) {}

    const Camera& camera() const { return cam_; }
    void reset() {
        cam_ = home_;
        speed_ = home_speed_;
    }
    float speed() const { return speed_; }
    void scale_speed(double wheel) { speed_ = std::clamp(speed_ * std::pow(1.2f, float(wheel)), 1e-4f, 1e6f); }

    // `dir`: x = right, y = up, z = forward, each -1..1.
    void move(const glm::vec3& dir, float dt) {
        if (dir == glm::vec3(0.0f)) return;
        glm::vec3 f, r, u;
        basis(f, r, u);
        const glm::vec3 d = (dir.x * r + dir.y * u + dir.z * f) * (speed_ * dt);
        cam_.from += d;
        cam_.at += d;
    }

    // Mouse-look: yaw about the camera's up vector, pitch about its right vector;
    // pitch stops short of the up vector, where the basis would degenerate.
    void look(double dx, double dy) {
        const float k = 0.003f;  // radians per pixel
        glm::vec3 f, r, u;
        basis(f, r, u);
        const float dist = glm::length(cam_.at - cam_.from);
        const glm::vec3 up = glm::normalize(cam_.up);
        f = rotate(f, up, -float(dx) * k);
        const glm::vec3 pitched = rotate(f, glm::normalize(glm::cross(f, up)), -float(dy) * k);
        if (std::fabs(glm::dot(pitched, up)) < 0.995f) f = pitched;
        cam_.at = cam_.from + glm::normalize(f) * dist;
    }

private:
    void basis(glm::vec3& f, glm::vec3& r, glm::vec3& u) const {
        f = glm::normalize(cam_.at - cam_.from);
        r = glm::normalize(glm::cross(f, cam_.up));
        u = glm::cross(r, f);
    }
    static glm::vec3 rotate(const glm::vec3& v, const glm::vec3& axis, float angle) {
        // Rodrigues' formula; glm's gtx rotate would need GLM_ENABLE_EXPERIMENTAL.
        const float c = std::cos(angle), s = std::sin(angle);
        return v * c + glm::cross(axis, v) * s + axis * glm::dot(axis, v) * (1.0f - c);
    }

    Camera home_, cam_;
    float home_speed_, speed_;
};

}  // namespace srt::viewer::detail
