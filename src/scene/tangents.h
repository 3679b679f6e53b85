// tangents.h - tangent frames for normal-mapped triangles whose file gives none.
//
// glTF 2.0 asks for MikkTSpace tangents where a normal-mapped mesh has no TANGENT: the
// frame the tools that bake normal maps (Blender, Substance, xNormal) use, so that a map
// baked there tilts the same normals here. This is Mikkelsen's construction (Mikkelsen
// 2008, "Simulation of Wrinkled Surfaces Revisited"), written here from the thesis (no
// code of the reference implementation is used; third_party/README.md says why): each
// triangle's tangent is the direction of +u over its surface, from its edges and their
// texture coordinates; at a corner it is made orthogonal to the corner's normal and
// weighed by the corner's angle; corners that share a position, a normal, texture
// coordinates and a handedness share the sum. The handedness w is +1 where the bitangent
// cross(n, t) points up the image (+v up, the normal map's green), else -1.
#pragma once

#include "scene/scene.h"

#include <cstddef>

namespace srt {

// Gives every triangle from `first` on whose material is normal-mapped, that has texture
// coordinates and no tangents of its own, tangents (Triangle::t0..t2, has_tangent).
// A corner whose triangles have no usable texture coordinates (all three alike, or in a
// line) gets a tangent orthogonal to its normal, so the map still tilts something
// defined. Returns how many triangles it gave tangents to.
size_t generate_tangents(Scene& scene, size_t first = 0);

}  // namespace srt
