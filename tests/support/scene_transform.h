// scene_transform.h - a whole scene moved by a similarity transform, for the tests that
// an image does not change when the scene is translated or scaled.
#pragma once

#include "scene/scene.h"

#include <glm/glm.hpp>

namespace srt {

// Every position p becomes scale * p + translate, in double: the camera (from, at) and
// the animation's keys, spheres (and their radii), planes (and their checker size),
// triangles and point lights. Directions (camera up, plane normals, directional lights)
// and materials stay as they are.
Scene transformed(const Scene& s, float scale, const Point3& translate);

}  // namespace srt
