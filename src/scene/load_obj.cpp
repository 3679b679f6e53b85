// load_obj.cpp - a strict Wavefront OBJ + MTL reader.
//
// Our own parser rather than tinyobjloader: every malformed number, bad index or
// missing file must be reported as "file:line: what", and nothing may be read as 0
// silently (third_party/README.md). The text is read on every core (obj_parse.cpp); this
// file turns its triangles into the scene's.
//
// Supported: v, f (triangles and polygons, fan-triangulated; v, v/vt, v//vn, v/vt/vn;
// negative indices), usemtl, mtllib; vt (texture coordinates, v flipped to our v down)
// and vn (smooth normals); o/g/s and the free-form/curve statements are ignored. MTL:
// newmtl, Kd, Ks + illum 3/5 (mirror), Ke (emissive marker), map_Kd (colour texture) and
// map_d (alpha mask) with -clamp, -o and -s (load_mtl.cpp); everything else in an MTL is
// ignored.
#include "scene/load.h"
#include "scene/obj_mtl.h"
#include "scene/obj_parse.h"
#include "scene/obj_text.h"

#include "core/error.h"
#include "core/parallel.h"

#include <glm/glm.hpp>

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace srt {

namespace {

using namespace obj;

ObjMesh read_obj(const std::string& path, const std::string& ref_file, int ref_line) {
    const std::string text = read_mesh_file(path, ref_file, ref_line, "OBJ");
    return parse_obj(text, path);
}

// `groups`, when given, gets one EmitterGroup per usemtl run, whatever its material.
size_t append_mesh(Scene& scene, const ObjMesh& mesh, const std::string& path,
                   const glm::mat4& xform, std::optional<uint32_t> material_override,
                   std::vector<EmitterGroup>* groups) {
    std::vector<int64_t> scene_mtl(mesh.lib.mtls.size(), -1);
    if (groups) groups->assign(mesh.group_mtl.size(), EmitterGroup{});
    size_t added = 0, degenerate = 0;
    const size_t ntri = mesh.tri_group.size();
    scene.triangles.reserve(scene.triangles.size() + ntri);
    const glm::dmat4 m(xform);
    const glm::dmat3 normal_matrix = glm::transpose(glm::inverse(glm::dmat3(m)));  // normals: inverse transpose
    // Each triangle transformed on its own, on every core; then, in file order, what
    // depends on order: materials added at first use, the emitter groups' sums.
    std::vector<Triangle> tris(ntri);
    std::vector<uint8_t> keep(ntri);
    parallel_for(uint32_t(ntri), 8192, host_cores(), [&](uint32_t lo, uint32_t hi) {
        for (size_t i = lo; i < hi; ++i) {
            Triangle& tri = tris[i];
            tri.v0 = Point3(m * glm::dvec4(mesh.corners[3 * i + 0], 1.0));
            tri.v1 = Point3(m * glm::dvec4(mesh.corners[3 * i + 1], 1.0));
            tri.v2 = Point3(m * glm::dvec4(mesh.corners[3 * i + 2], 1.0));
            // Zero area (relative to the triangle's own size) after the transform: such a
            // triangle can never be hit, and its normal is undefined.
            keep[i] = !degenerate_triangle(tri.v0, tri.v1, tri.v2);
            if (!keep[i]) continue;
            if (mesh.tri_has_uv[i]) {
                tri.has_uv = true;
                tri.uv0 = mesh.corner_uvs[3 * i + 0];
                tri.uv1 = mesh.corner_uvs[3 * i + 1];
                tri.uv2 = mesh.corner_uvs[3 * i + 2];
            }
            if (mesh.tri_smooth[i]) {
                glm::vec3* out[3] = {&tri.n0, &tri.n1, &tri.n2};
                bool ok = true;
                for (int k = 0; k < 3; ++k) {
                    const glm::dvec3 n = normal_matrix * glm::dvec3(mesh.corner_normals[3 * i + size_t(k)]);
                    const double len = glm::length(n);
                    ok = ok && len > 0.0;
                    *out[k] = ok ? glm::vec3(n / len) : glm::vec3(0.0f);
                }
                tri.smooth = ok;
            }
        }
    });
    for (size_t i = 0; i < ntri; ++i) {
        if (!keep[i]) {
            ++degenerate;
            continue;
        }
        Triangle& tri = tris[i];
        const int group = mesh.tri_group[i];
        const int mi = mesh.group_mtl[group];
        if (material_override) {
            tri.material = *material_override;
        } else if (mi < 0) {
            tri.material = 0;
        } else {
            if (scene_mtl[mi] < 0) scene_mtl[mi] = scene.add_material(scene_material(scene, mesh.lib.mtls[mi]));
            tri.material = static_cast<uint32_t>(scene_mtl[mi]);
        }
        if (groups) (*groups)[group].add(glm::dvec3(tri.v0), glm::dvec3(tri.v1), glm::dvec3(tri.v2));
        scene.triangles.push_back(tri);
        ++added;
    }
    scene.notes.insert(scene.notes.end(), mesh.warnings.begin(), mesh.warnings.end());
    if (degenerate > 0)
        scene.notes.push_back(path + ": dropped " + std::to_string(degenerate) +
                              " degenerate (zero-area) triangle" + (degenerate == 1 ? "" : "s"));
    if (mesh.ignored_elements > 0)
        scene.notes.push_back(path + ": ignored " + std::to_string(mesh.ignored_elements) +
                              " point/line element(s)");
    return added;
}

struct MeshFraming {
    Point3 centre;
    float radius;
};

// The centre of the scene's finite bounds and the length of their half extents.
MeshFraming bounds_sphere(const Scene& scene, glm::vec3& half) {
    const Bounds3 b = finite_bounds(scene);
    half = glm::max(glm::vec3(0.5 * (b.hi - b.lo)), glm::vec3(1e-6f));
    return {0.5 * (b.lo + b.hi), glm::length(half)};
}

// Frame the bounding box from the +z side: its front face must fit both the 50 degree
// horizontal fov and the vertical fov of a 16:9 image. The camera is placed in double,
// as the mesh is: a mesh moved far from the origin gets the same camera, moved with it.
MeshFraming frame_camera(Scene& scene) {
    glm::vec3 half;
    const MeshFraming bs = bounds_sphere(scene, half);
    const Point3 centre = bs.centre;
    const double hfov = 50.0;
    const double half_h = 0.5 * hfov * 3.14159265358979323846 / 180.0;
    const double half_v = std::atan(std::tan(half_h) * 9.0 / 16.0);
    const float radius = bs.radius;
    const float dist = 1.1f * static_cast<float>(std::max(double(half.x) / std::tan(half_h),
                                                          double(half.y) / std::tan(half_v))) + half.z;
    scene.camera.from = centre + Point3(0.0, 0.0, dist);
    scene.camera.at = centre;
    scene.camera.up = glm::vec3(0.0f, 1.0f, 0.0f);
    scene.camera.fov_deg = static_cast<float>(hfov);
    return {centre, radius};
}

void add_default_light(Scene& scene, float radius, const std::string& why) {
    Light l;
    l.colour = glm::vec3(1.0f);
    scene.lights.push_back(l);
    scene.auto_light = Scene::AutoLight{scene.lights.size() - 1, double(radius)};
    place_auto_light(scene);
    scene.add_light_note(why + "; added a white light above and behind the camera");
}

}  // namespace

void EmitterGroup::add(const Point3& a, const Point3& b, const Point3& c) {
    const glm::dvec3 cr = glm::cross(b - a, c - a);
    const double area2 = glm::length(cr);
    area += 0.5 * area2;
    weighted_centre += (0.5 * area2) * (a + b + c) / 3.0;
    normal_sum += 0.5 * cr;
}

size_t add_emitter_lights(Scene& scene, const std::vector<EmitterGroup>& groups, const std::string& path,
                          const std::string& what) {
    glm::vec3 half;
    const MeshFraming bs = bounds_sphere(scene, half);
    const glm::vec3 centre(bs.centre);
    const float radius = bs.radius;
    const size_t first = scene.lights.size();
    for (const EmitterGroup& g : groups) {
        const bool emits = g.emission.x > 0.0f || g.emission.y > 0.0f || g.emission.z > 0.0f;
        if (!emits || g.area <= 0.0) continue;
        const glm::dvec3 c = g.weighted_centre / g.area;
        glm::dvec3 n = g.normal_sum;
        const double nl = glm::length(n);
        n = nl > 0.0 ? n / nl : glm::dvec3(0.0, -1.0, 0.0);
        // Winding is arbitrary: "into the scene" is the side facing the bounds centre.
        if (glm::dot(n, glm::dvec3(centre) - c) < 0.0) n = -n;
        // Just off the emitter so that the emitting surface itself does not shadow the light.
        Light l;
        l.type = LightType::Point;
        l.position = c + n * (1e-3 * radius);
        l.colour = g.emission;
        l.from_emission = true;
        scene.lights.push_back(l);
    }
    const size_t added = scene.lights.size() - first;
    if (added == 0) return 0;
    // Emission is an area light's radiance (McGuire's Cornell boxes use Ke 17 12 4); as a
    // point light with no falloff it would wash everything out. Scale these lights
    // together so the brightest channel is 1, keeping their colours and ratios.
    float peak = 0.0f;
    for (size_t i = first; i < scene.lights.size(); ++i) {
        const glm::vec3& c = scene.lights[i].colour;
        peak = std::max(peak, std::max(c.x, std::max(c.y, c.z)));
    }
    if (peak > 1.0f)
        for (size_t i = first; i < scene.lights.size(); ++i) scene.lights[i].colour /= peak;
    scene.add_light_note(path + ": " + std::to_string(added) + " point light(s) placed at emissive (" + what +
                          ") surfaces" +
                          (peak > 1.0f ? ", scaled by 1/" + short_number(peak) + " so the brightest channel is 1" : "") +
                          ", for the Whitted integrator (--integrator path lights with the surfaces themselves)");
    return added;
}

void frame_mesh_scene(Scene& scene, const std::string& path) {
    const MeshFraming fr = frame_camera(scene);
    if (scene.lights.empty()) add_default_light(scene, fr.radius, path + ": no lights");
    validate(scene);
}

size_t append_obj_mesh(Scene& scene, const std::string& obj_path, const glm::mat4& xform,
                       std::optional<uint32_t> material_override,
                       const std::string& referenced_from, int ref_line) {
    const ObjMesh mesh = read_obj(obj_path, referenced_from, ref_line);
    return append_mesh(scene, mesh, obj_path, xform, material_override, nullptr);
}

Scene load_obj_scene(const std::string& path) {
    const ObjMesh mesh = read_obj(path, "", 0);
    Scene scene;
    scene.name = path;
    scene.background = glm::vec3(0.0f);
    Material grey;
    grey.name = "default";
    scene.add_material(grey);
    std::vector<EmitterGroup> groups;
    append_mesh(scene, mesh, path, glm::mat4(1.0f), std::nullopt, &groups);
    if (scene.triangles.empty()) throw InputError(path, 0, "OBJ file has no (non-degenerate) faces");

    const MeshFraming fr = frame_camera(scene);
    for (size_t g = 0; g < groups.size(); ++g) {
        const int mi = mesh.group_mtl[g];
        if (mi >= 0) groups[g].emission = mesh.lib.mtls[size_t(mi)].ke;
    }
    if (add_emitter_lights(scene, groups, path, "Ke") == 0)
        add_default_light(scene, fr.radius, path + ": no emissive (Ke) material");
    validate(scene);
    return scene;
}

}  // namespace srt
