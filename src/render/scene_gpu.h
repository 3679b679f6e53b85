// scene_gpu.h - a Scene compiled for rendering: the flat arrays of accel/scene_view.h,
// owned on the host (`CompiledScene`), ready for the CPU executor or an upload.
#pragma once

#include "accel/bvh.h"
#include "accel/scene_view.h"
#include "scene/scene.h"

#include <glm/glm.hpp>

#include <cstdint>
#include <vector>

namespace srt {

// Everything needed to render a Scene, on the host, ready to upload.
struct CompiledScene {
    std::vector<BvhNode> nodes;
    std::vector<PrimGpu> prims;
    std::vector<PlaneGpu> planes;
    std::vector<MaterialGpu> materials;
    std::vector<LightGpu> lights;
    glm::vec3 background{0.0f};
    Camera camera;
    BvhBuildStats bvh_stats;
    size_t device_bytes() const;  // bytes of the arrays above

    SceneView view() const;  // host pointers
};

CompiledScene compile_scene(const Scene& scene);
CameraGpu make_camera(const Camera& c, int width, int height);

}  // namespace srt
