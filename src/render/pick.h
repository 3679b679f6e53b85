// pick.h - what the camera sees through one point of the image, on the host: the
// viewer's click-to-focus.
#pragma once

#include "render/scene_gpu.h"
#include "scene/scene.h"

#include <optional>

namespace srt {

// The focus distance (along the view direction, as Camera::focus_distance) that puts the
// surface seen through image position (px, py) of a width x height frame in focus: the
// pinhole ray's closest hit there. None where that ray hits nothing.
std::optional<float> focus_at(const CompiledScene& scene, const Camera& camera, int width, int height, float px,
                              float py);

}  // namespace srt
