// bench_scenes.h - a scene the GPU tests share with the benchmark: Conference (331k
// triangles) from inside the room, with the camera and light of tools/gpu/lib.sh's
// CONF_CAM.
#pragma once

#include "scene/load.h"
#include "scene/scene.h"

#include <string>

namespace srt::test {

inline Scene conference_benchmark_view(const std::string& obj) {
    Scene s = load_scene(obj);
    s.camera.from = {1600, 500, 90};
    s.camera.at = {200, 100, 10};
    s.camera.up = {0, 1, 0};
    s.camera.fov_deg = 75;
    Light l;
    l.position = {600, 600, 50};
    s.lights = {l};
    return s;
}

}  // namespace srt::test
