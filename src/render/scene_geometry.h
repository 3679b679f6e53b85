// scene_geometry.h - the part of compile_scene (render/scene_gpu.h) that compiles a
// scene's primitives: their BVHs of the chosen layout and the per-primitive arrays, and,
// in a scene with instances, the two-level structure (accel/traverse_instances.h).
#pragma once

#include "render/scene_gpu.h"

namespace srt {

inline f4 make_f4(const glm::vec3& v, float w) { return f4{v.x, v.y, v.z, w}; }

// World position -> rendering space: subtracted in double, rounded once.
inline glm::vec3 relative_to(const Point3& p, const Point3& origin) { return glm::vec3(p - origin); }

// Grows [lo, hi] by primitive p as stored (rendering space, or a mesh's object space):
// a sphere's box, a triangle's corners v0, v0 + e1, v0 + e2 in double.
inline void grow_prim_bounds(const PrimGpu& p, glm::dvec3& lo, glm::dvec3& hi) {
    const glm::dvec3 a(p.p0.x, p.p0.y, p.p0.z);
    if (float_bits(p.p0.w) & kPrimSphereBit) {
        lo = glm::min(lo, a - glm::dvec3(p.p1.x));
        hi = glm::max(hi, a + glm::dvec3(p.p1.x));
        return;
    }
    for (const glm::dvec3& v : {a, a + glm::dvec3(p.p1.x, p.p1.y, p.p1.z), a + glm::dvec3(p.p2.x, p.p2.y, p.p2.z)}) {
        lo = glm::min(lo, v);
        hi = glm::max(hi, v);
    }
}

// Fills cs's nodes (nodes4, nodes8), prims, prim_tests and the optional per-primitive
// arrays, precise_spheres, bvh_stats (bvh4_stats, bvh8_stats), and, where the scene has
// instances, tlas and instances (and then the BVH8, whatever `accel` says); cs.render_origin
// must be set. Every instance's mesh is
// triangles that do not emit (compile_scene places those of emissive meshes as copies).
// Original ids (PrimGpu::p2.w): the scene's spheres, then its triangles, then its planes
// (which compile_scene numbers after these); a mesh's, its triangles' indices, counted from
// each instance's base (InstanceGpu::keys): the flattened scene's ids.
void compile_geometry(const Scene& scene, AccelLayout accel, const BvhBuildOptions& options, CompiledScene& cs);

}  // namespace srt
