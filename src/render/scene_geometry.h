// scene_geometry.h - the part of compile_scene (render/scene_gpu.h) that compiles a
// scene's primitives: their BVHs of the chosen layout and the per-primitive arrays, and,
// in a scene with instances, the two-level structure (accel/traverse_instances.h).
#pragma once

#include "render/scene_gpu.h"

namespace srt {

inline f4 make_f4(const glm::vec3& v, float w) { return f4{v.x, v.y, v.z, w}; }

// World position -> rendering space: subtracted in double, rounded once.
inline glm::vec3 relative_to(const Point3& p, const Point3& origin) { return glm::vec3(p - origin); }

// Fills cs's nodes (nodes4, nodes8), prims, prim_tests and the optional per-primitive
// arrays, precise_spheres, bvh_stats (bvh4_stats, bvh8_stats), and, where the scene has
// instances, tlas and instances; cs.render_origin must be set. Every instance's mesh is
// triangles that do not emit (compile_scene places those of emissive meshes as copies).
// Original ids (PrimGpu::p2.w): the scene's spheres, then its triangles, then its planes
// (which compile_scene numbers after these), then each mesh's triangles.
void compile_geometry(const Scene& scene, AccelLayout accel, const BvhBuildOptions& options, CompiledScene& cs);

}  // namespace srt
