// instances.h - what the scene model's instances (scene.h Mesh, Instance) mean, as
// copies: an instance's triangles moved into world space, and a scene with its instances
// flattened into its own triangles. Renderers never flatten (render/scene_gpu.h builds a
// two-level BVH); the flattened scene is the oracle the tests compare against, and what
// --flatten-instances renders.
#pragma once

#include "scene/scene.h"

namespace srt {

// Triangle t of a mesh placed by `inst`, in world space: corners by the transform in
// double; vertex normals by the inverse transpose and tangents by the linear part, each
// rescaled to unit length (by the transform's scale where it is a similarity, so that a
// uniform scale by a power of two, or a mirror, gives the file's floats exactly); a
// mirror (negative determinant) turns the tangents' handedness.
Triangle instance_triangle(const Triangle& t, const Instance& inst);

// Whether `inst`'s linear part is a rotation (or mirror) times one scale s, and s; the
// normals then keep their length times s (instance_triangle).
bool similarity_scale(const glm::dmat3& linear, double& s);

// The world bounds of mesh `m` placed by `inst`: the transformed corners of its
// object-space box (the box of a box, never smaller than the triangles').
Bounds3 instance_bounds(const Mesh& m, const Instance& inst);

// The triangles a renderer stores: the scene's own and each mesh's once.
size_t stored_triangle_count(const Scene& s);

// For the scene lines of render and bench: "" without instances, else ", N instances of
// M meshes (T triangles placed, S stored)".
std::string instances_text(const Scene& s);

// Appends every instance's triangles to s.triangles (in instance order, each mesh's in
// its order) and empties s.meshes and s.instances.
void flatten_instances(Scene& s);

}  // namespace srt
