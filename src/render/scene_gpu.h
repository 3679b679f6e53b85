// scene_gpu.h - a Scene compiled for rendering: the flat arrays of accel/scene_view.h,
// owned on the host (`CompiledScene`), ready for the CPU executor or an upload.
//
// Rendering space is world space moved so that the camera is at the origin (pbrt-v4's
// "camera-world" space): floats are densest near zero, so the hit points that matter
// most, those near the camera, keep their precision wherever the scene lies. A scene
// translated by 1e4 renders as the original does, up to the rounding of its input.
// Positions are moved in double and rounded once.
#pragma once

#include "accel/bvh.h"
#include "accel/bvh4.h"
#include "accel/bvh8.h"
#include "accel/scene_view.h"
#include "scene/scene.h"

#include <glm/glm.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace srt {

// Everything needed to render a Scene, on the host, ready to upload.
// The acceleration structure traversal walks (docs/performance.md compares them).
enum class AccelLayout {
    Bvh2,  // two boxes a 64-byte node (accel/bvh.h)
    Bvh4,  // four boxes a 128-byte node, collapsed from the BVH2 (accel/bvh4.h)
    Bvh8,  // eight quantized boxes an 80-byte node, collapsed from the BVH2 (accel/bvh8.h)
};
const char* to_string(AccelLayout a);
bool parse_accel(const std::string& s, AccelLayout& out);

struct CompiledScene {
    std::vector<BvhNode> nodes;
    std::vector<Bvh4Node> nodes4;  // AccelLayout::Bvh4 only; then traversal uses these
    std::vector<Bvh8Node> nodes8;  // AccelLayout::Bvh8 only; then traversal uses these
    // Instances (accel/traverse_instances.h), empty in a scene without them: the top-level
    // BVH2 and the instances in its order. `nodes` (nodes4, nodes8) then hold a BVH per
    // mesh and one over the scene's own primitives, back to back, and `prims` theirs.
    std::vector<BvhNode> tlas;
    std::vector<InstanceGpu> instances;
    // With instances: the box of everything in rendering space (the scene's own primitives
    // and each placement's mesh box moved in double), where `prims` cannot say it.
    glm::dvec3 instanced_lo{0.0}, instanced_hi{0.0};
    std::vector<PrimGpu> prims;
    std::vector<PrimTestGpu> prim_tests;  // one per primitive, in the same order
    std::vector<f4> normals;  // 3 per primitive when any triangle is smooth, else empty
    std::vector<f4> tangents;  // 3 per primitive when a triangle with tangents is normal-mapped, else empty
    std::vector<PlaneGpu> planes;
    std::vector<MaterialGpu> materials;
    std::vector<LightGpu> lights;
    // Textures (accel/texture.h), empty in a scene without them.
    std::vector<TextureGpu> textures;
    std::vector<uint32_t> texels;
    std::vector<float> srgb_lut;      // 3 x 256 entries when there are textures (SceneView::srgb_lut)
    std::vector<TexTransformGpu> tex_transforms;  // 1 per entry of `textures` when one is transformed, else empty
    std::vector<f4> uvs;              // 2 per primitive when a textured or masked material is on a triangle
    std::vector<uint32_t> prim_alpha; // 1 per primitive when a triangle is masked
    // The path integrator's lights (SceneView, render/light_table.cpp): the emitters, the
    // selection distribution over lights then emitters, and each primitive's emitter.
    std::vector<EmitterGpu> emitters;
    std::vector<float> light_cdf, light_pmf;
    std::vector<uint32_t> prim_emitter;  // 1 per primitive when any emits, else empty
    glm::vec3 background{0.0f};
    // The environment map (render/environment.h), empty without one: its texels times its
    // intensity, its sampling cdfs (render/environment_table.cpp), and the view's counts.
    std::vector<f4> env_texels;
    std::vector<float> env_row_cdf, env_col_cdf;
    EnvironmentView env;
    double env_power = 0.0;  // what the light table weighs it by: pi r^2 times its integral of luminance
    glm::vec3 ambient{0.0f};
    bool precise_spheres = false;  // some sphere is computed in double (accel/bvh.h sphere_needs_double)
    bool ray_cones = false;        // the textures have mip chains (SceneView::ray_cones)
    bool dielectrics = false;      // some material is glass (SceneView::dielectrics)
    bool extended_materials = false;  // glTF's BRDF, rough glass or maps (SceneView::extended_materials)
    Camera camera;                  // world space, as the scene gave it
    Point3 render_origin{0.0};      // world position of rendering space's origin: the camera's, in double
    BvhBuildStats bvh_stats;
    Bvh4Stats bvh4_stats;  // AccelLayout::Bvh4 only
    Bvh8Stats bvh8_stats;  // AccelLayout::Bvh8 only
    // The layout traversal walks: "bvh8", "bvh4" or "bvh2" (a scene with instances always
    // gets the BVH8, render/scene_geometry.cpp).
    const char* layout_name() const { return !nodes8.empty() ? "bvh8" : !nodes4.empty() ? "bvh4" : "bvh2"; }
    size_t device_bytes() const;   // bytes of the arrays above
    size_t texture_bytes() const;  // of which textures (texels and their descriptors)

    SceneView view() const;  // host pointers
};

// A primitive that the BVH's spatial splits cut is stored once a reference (accel/bvh.h):
// `prims` and the arrays beside it hold copies, each with the primitive's original id.
// A scene with instances gets the BVH8 layout whatever `accel` asks (accel/variant.h
// kInstanced).
CompiledScene compile_scene(const Scene& scene, AccelLayout accel = AccelLayout::Bvh2,
                            const BvhBuildOptions& options = {});
// The light table of a compiled scene (its emitters and the selection distribution): its
// primitives in BVH order and rendering space, the scene's materials and lights.
void compile_light_table(const Scene& scene, CompiledScene& cs);
// The environment map of a compiled scene: its texels and its sampling distribution, and
// its power for the light table, on a scene of bounding radius `radius`.
void compile_environment(const Scene& scene, double radius, CompiledScene& cs);
// The map's turn about +Y, for a frame that turns it without compiling again (the viewer).
void set_environment_rotation(EnvironmentView& env, float degrees);
// The camera in rendering space: its position relative to `render_origin`, subtracted
// in double and rounded once. A frame's camera (a camera path's, the viewer's) need not
// be the one the scene was compiled for; it keeps its precision all the same.
CameraGpu make_camera(const Camera& c, int width, int height, const Point3& render_origin);

}  // namespace srt
