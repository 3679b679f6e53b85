// load.h - scene loaders. Every loader throws InputError("file:line[:col]: what") on
// malformed input and never returns a half-built scene.
#pragma once

#include "scene/scene.h"

#include <glm/glm.hpp>

#include <algorithm>
#include <optional>
#include <string>

namespace srt {

// Picks the loader by extension: .json, .obj, .ply, .gltf, .glb, .nff (case-insensitive).
Scene load_scene(const std::string& path);

// Our own JSON scene format (docs/scene-format.md).
Scene load_json_scene(const std::string& path);

// An OBJ (+ its MTL files) rendered on its own: gets a camera that frames its bounds
// and a point light at the centre of each emissive (Ke) surface, or a default light.
Scene load_obj_scene(const std::string& path);

// NFF, Eric Haines' Standard Procedural Databases format (classic mapping, see
// docs/scene-format.md).
Scene load_nff_scene(const std::string& path);

// A PLY mesh (ASCII, binary little- or big-endian; scene/load_ply.cpp) rendered on its
// own: the default material, a camera that frames it and a default light.
Scene load_ply_scene(const std::string& path);
size_t append_ply_mesh(Scene& scene, const std::string& path, const glm::mat4& xform,
                       std::optional<uint32_t> material, const std::string& referenced_from = "",
                       int ref_line = 0);

// glTF 2.0, .gltf (embedded or external buffers) or .glb (scene/load_gltf.cpp): its
// meshes by their node transforms, its first camera, its KHR_lights_punctual lights and
// its materials; without a camera, framed as a mesh; without lights, a point light at
// each emissive primitive (as OBJ's Ke), or a white light when none emits.
Scene load_gltf_scene(const std::string& path);
// Its triangles only (a JSON 'mesh'): materials from the file unless `material` is set.
size_t append_gltf_mesh(Scene& scene, const std::string& path, const glm::mat4& xform,
                        std::optional<uint32_t> material, const std::string& referenced_from = "",
                        int ref_line = 0);

// Whether a triangle has no area relative to its own size (twice its area at most 1e-12
// of its longest edge squared): it can never be hit and has no normal, so the mesh
// loaders drop it. Shared by the OBJ, PLY, NFF and glTF loaders.
inline bool degenerate_triangle(const Point3& a, const Point3& b, const Point3& c) {
    const double area2 = glm::length(glm::cross(b - a, c - a));
    const double longest = std::max({glm::length(b - a), glm::length(c - a), glm::length(c - b)});
    return !(area2 > 1e-12 * longest * longest);
}

// For a mesh loaded on its own: a camera that frames its bounds from the +z side (50
// degrees, a 16:9 image), and, when it has no lights, a white point light above and
// behind the camera (with a note). Shared by the OBJ, PLY and glTF loaders.
void frame_mesh_scene(Scene& scene, const std::string& path);

// The emissive surfaces of a mesh loaded on its own, one group per emitter (an OBJ usemtl
// run, a glTF primitive under one node), summed for the point light that stands in for
// each under the Whitted model. Shared by the OBJ and glTF loaders.
struct EmitterGroup {
    glm::vec3 emission{0.0f};         // the material's; 0: not an emitter
    double area = 0.0;
    glm::dvec3 weighted_centre{0.0};  // sum of area x centroid
    glm::dvec3 normal_sum{0.0};       // sum of area x unit normal (half the cross products)
    void add(const Point3& a, const Point3& b, const Point3& c);  // one (non-degenerate) triangle
};

// One point light (from_emission) per group that emits and has area: at its area-weighted
// centroid, moved 0.1% of the bounding radius along its average normal towards the
// bounds centre (so the emitter does not shadow it), coloured by its emission; when any
// channel exceeds 1 these lights are all scaled by one factor so the brightest is 1. A
// note says how many, naming the emission's source `what` ("Ke"). Returns how many.
size_t add_emitter_lights(Scene& scene, const std::vector<EmitterGroup>& groups, const std::string& path,
                          const std::string& what);

// A mesh file's checks, shared by the OBJ, PLY and glTF loaders: a device or FIFO
// (/dev/zero) is refused unread, and a missing or unreadable file is reported where it
// was referenced (`referenced_from:ref_line: mesh file 'P' not found` / `... is not a
// regular file`) or, for a file loaded on its own, as `P: cannot open <what> file`.
// check_mesh_file only checks (for readers that open the file themselves);
// read_mesh_file also returns its bytes.
void check_mesh_file(const std::string& path, const std::string& referenced_from, int ref_line, const char* what);
std::string read_mesh_file(const std::string& path, const std::string& referenced_from, int ref_line,
                           const char* what);

// A mesh file by extension (.obj, .ply, .gltf, .glb) into `scene`, as a JSON 'mesh' object asks.
size_t append_mesh_file(Scene& scene, const std::string& path, const glm::mat4& xform,
                        std::optional<uint32_t> material, const std::string& referenced_from, int ref_line);

// Appends the triangles of an OBJ mesh to `scene`, transformed by `xform`.
// Materials come from the OBJ's MTL files unless `material_override` is set.
// `referenced_from` / `ref_line` name the file (and line) that asked for the mesh,
// so a missing mesh is reported together with the file that referenced it.
// Returns the number of triangles appended.
size_t append_obj_mesh(Scene& scene, const std::string& obj_path, const glm::mat4& xform,
                       std::optional<uint32_t> material_override,
                       const std::string& referenced_from = "", int ref_line = 0);

// Angle-weighted vertex normals (Thürmer and Wüthrich) for triangles[first..]: corners at
// the same position share a normal, each face contributing its unit normal times its
// angle at that corner. Makes those triangles smooth (a corner whose normals cancel
// stays flat). For meshes that carry no normals ("smooth": true on a JSON mesh).
void compute_smooth_normals(std::vector<Triangle>& triangles, size_t first = 0);

}  // namespace srt
