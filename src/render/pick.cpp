#include "render/pick.h"

#include "accel/intersect.h"
#include "render/stages.h"

#include <limits>

namespace srt {

std::optional<float> focus_at(const CompiledScene& scene, const Camera& camera, int width, int height, float px,
                              float py) {
    const CameraGpu c = make_camera(camera, width, height, scene.render_origin);
    const glm::vec3 d = camera_dir(c, uint32_t(width), uint32_t(height), px, py);
    const Hit h = intersect_closest(scene.view(), c.origin, d, std::numeric_limits<float>::infinity());
    if (h.id < 0) return std::nullopt;
    return h.t * glm::dot(d, c.forward);
}

}  // namespace srt
