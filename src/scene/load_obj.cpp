// load_obj.cpp - a strict Wavefront OBJ + MTL reader.
//
// Our own parser rather than tinyobjloader: every malformed number, bad index or
// missing file must be reported as "file:line: what", and nothing may be read as 0
// silently (third_party/README.md).
//
// Supported: v, f (triangles and polygons, fan-triangulated; v, v/vt, v//vn, v/vt/vn;
// negative indices), usemtl, mtllib; vt (texture coordinates, v flipped to our v down)
// and vn (smooth normals); o/g/s and the free-form/curve statements are ignored. MTL:
// newmtl, Kd, Ks + illum 3/5 (mirror), Ke (emissive marker), map_Kd (colour texture) and
// map_d (alpha mask) with -clamp, -o and -s (load_mtl.cpp); everything else in an MTL is
// ignored.
#include "scene/load.h"
#include "scene/obj_mtl.h"
#include "scene/obj_text.h"

#include "core/error.h"

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
#include <unordered_map>
#include <vector>

namespace srt {

namespace {

using namespace obj;

struct ObjMesh {
    std::vector<Point3> corners;  // 3 per triangle, object space
    std::vector<glm::vec3> corner_normals;  // 3 per triangle when every corner has a 'vn' (else zero)
    std::vector<uint8_t> tri_smooth;        // 1: that triangle's three corners have normals
    std::vector<glm::vec2> corner_uvs;      // 3 per triangle when every corner has a 'vt' (else zero)
    std::vector<uint8_t> tri_has_uv;
    std::vector<int> tri_group;      // usemtl run of each triangle
    std::vector<int> group_mtl;      // material (index into mtls, -1 = none) of each run
    MtlLibrary lib;
    size_t ignored_elements = 0;  // points and lines: no area, nothing to render
    std::vector<std::string> unknown_mtls;
    std::vector<std::string> warnings;  // copied into scene.notes
};


// Resolves one OBJ index (1-based, or negative = relative to the end) to 0-based.
size_t resolve_index(const std::string& tok, size_t count, const char* what, const char* plural,
                     const std::string& file, int line) {
    long long v = 0;
    if (!parse_long(tok, v))
        throw InputError(file, line, std::string("malformed ") + what + " index '" + tok + "'");
    if (v == 0)
        throw InputError(file, line, std::string(what) + " index 0 is not valid (OBJ indices start at 1)");
    const long long n = static_cast<long long>(count);
    const long long idx = v > 0 ? v - 1 : n + v;
    if (idx < 0 || idx >= n)
        throw InputError(file, line, std::string(what) + " index " + tok + " out of range (" +
                                         std::to_string(count) + " " + plural + " defined so far)");
    return static_cast<size_t>(idx);
}

ObjMesh read_obj(const std::string& path, const std::string& ref_file, int ref_line) {
    const std::string text = read_mesh_file(path, ref_file, ref_line, "OBJ");
    ObjMesh mesh;
    std::vector<Point3> positions;
    std::vector<glm::vec3> normals;
    std::vector<glm::vec2> texcoords;
    size_t n_vt = 0;
    int current_group = -1;
    int current_mtl = -1;
    std::vector<size_t> face;
    std::vector<long> face_normal;  // per face vertex: index into normals, -1 = none
    std::vector<long> face_uv;      // per face vertex: index into texcoords, -1 = none
    for_each_statement(text, [&](int line, const std::vector<std::string>& t, size_t line_begin,
                                 size_t eol) {
        const std::string& kw = t[0];
        if (kw == "v") {
            // "v x y z [w]" and the common "v x y z r g b" vertex-colour extension.
            if (t.size() != 4 && t.size() != 5 && t.size() != 7)
                throw InputError(path, line, "'v' expects 3 coordinates, got " + std::to_string(t.size() - 1));
            double c[3];
            for (int i = 0; i < 3; ++i)
                if (!parse_double(t[i + 1], c[i]))
                    throw InputError(path, line, "malformed number '" + t[i + 1] + "' in 'v'");
            for (size_t i = 4; i < t.size(); ++i) {
                float dummy;
                if (!parse_float(t[i], dummy))
                    throw InputError(path, line, "malformed number '" + t[i] + "' in 'v'");
            }
            positions.emplace_back(c[0], c[1], c[2]);
        } else if (kw == "vt" || kw == "vn") {
            const size_t lo = kw == "vt" ? 1 : 3, hi = 3;
            if (t.size() - 1 < lo || t.size() - 1 > hi)
                throw InputError(path, line, "'" + kw + "' has " + std::to_string(t.size() - 1) + " numbers");
            float c[3] = {0, 0, 0};
            for (size_t i = 1; i < t.size(); ++i)
                if (!parse_float(t[i], c[i - 1]))
                    throw InputError(path, line, "malformed number '" + t[i] + "' in '" + kw + "'");
            if (kw == "vt") {
                ++n_vt;
                // OBJ's v runs up from the image's bottom row; ours down from its top.
                texcoords.emplace_back(c[0], 1.0f - c[1]);
            } else {
                // Normalised here; a zero normal leaves its faces flat.
                const glm::vec3 n(c[0], c[1], c[2]);
                const float len = glm::length(n);
                normals.push_back(len > 0.0f && std::isfinite(len) ? n / len : glm::vec3(0.0f));
            }
        } else if (kw == "f") {
            if (t.size() < 4)
                throw InputError(path, line, "face has " + std::to_string(t.size() - 1) +
                                                 " vertices (at least 3 needed)");
            face.clear();
            face_normal.clear();
            face_uv.clear();
            for (size_t i = 1; i < t.size(); ++i) {
                const std::string& vtx = t[i];
                const size_t s1 = vtx.find('/');
                face.push_back(resolve_index(vtx.substr(0, s1), positions.size(), "vertex", "vertices", path, line));
                face_normal.push_back(-1);
                face_uv.push_back(-1);
                if (s1 == std::string::npos) continue;
                const size_t s2 = vtx.find('/', s1 + 1);
                const std::string vt = vtx.substr(s1 + 1, s2 == std::string::npos ? std::string::npos : s2 - s1 - 1);
                if (s2 == std::string::npos) {
                    face_uv.back() = long(resolve_index(vt, n_vt, "texture coordinate", "texture coordinates", path, line));
                } else {
                    if (!vt.empty())
                        face_uv.back() = long(resolve_index(vt, n_vt, "texture coordinate", "texture coordinates", path, line));
                    const std::string vn = vtx.substr(s2 + 1);
                    if (vn.find('/') != std::string::npos)
                        throw InputError(path, line, "malformed face vertex '" + vtx + "'");
                    face_normal.back() = long(resolve_index(vn, normals.size(), "normal", "normals", path, line));
                }
            }
            if (current_group < 0) {
                current_group = static_cast<int>(mesh.group_mtl.size());
                mesh.group_mtl.push_back(current_mtl);
            }
            // Fan triangulation: exact for the convex polygons OBJ exporters write.
            for (size_t i = 1; i + 1 < face.size(); ++i) {
                const size_t c[3] = {0, i, i + 1};
                bool smooth = true;
                for (size_t k : c) {
                    mesh.corners.push_back(positions[face[k]]);
                    smooth = smooth && face_normal[k] >= 0 && normals[size_t(face_normal[k])] != glm::vec3(0.0f);
                }
                for (size_t k : c)
                    mesh.corner_normals.push_back(smooth ? normals[size_t(face_normal[k])] : glm::vec3(0.0f));
                mesh.tri_smooth.push_back(smooth ? 1 : 0);
                const bool has_uv = face_uv[0] >= 0 && face_uv[i] >= 0 && face_uv[i + 1] >= 0;
                for (size_t k : c) mesh.corner_uvs.push_back(has_uv ? texcoords[size_t(face_uv[k])] : glm::vec2(0.0f));
                mesh.tri_has_uv.push_back(has_uv ? 1 : 0);
                mesh.tri_group.push_back(current_group);
            }
        } else if (kw == "usemtl") {
            const std::string name = rest_of_line(text, line_begin, eol, "usemtl");
            if (name.empty()) throw InputError(path, line, "'usemtl' without a name");
            auto it = mesh.lib.by_name.find(name);
            if (it == mesh.lib.by_name.end()) {
                // A warning, not an error: McGuire's CornellBox-Glossy.obj uses a 'light'
                // its MTL lacks, and other readers fall back to a default material too.
                if (std::find(mesh.unknown_mtls.begin(), mesh.unknown_mtls.end(), name) == mesh.unknown_mtls.end()) {
                    mesh.unknown_mtls.push_back(name);
                    mesh.warnings.push_back(path + ":" + std::to_string(line) + ": unknown material '" + name +
                                            "' (not defined by any mtllib so far); its faces use the default material");
                }
                current_mtl = -1;
            } else {
                current_mtl = it->second;
            }
            current_group = -1;  // a new usemtl run starts with the next face
        } else if (kw == "mtllib") {
            if (t.size() < 2) throw InputError(path, line, "'mtllib' without a file name");
            for (size_t i = 1; i < t.size(); ++i)
                read_mtl(resolve_relative(path, t[i]), path, line, mesh.lib);
        } else if (kw == "l" || kw == "p") {
            ++mesh.ignored_elements;  // lines and points have no area
        } else if (kw == "o" || kw == "g" || kw == "s" || kw == "mg" || kw == "vp" || kw == "lod" ||
                   kw == "usemap" || kw == "maplib" || kw == "shadow_obj" || kw == "trace_obj" ||
                   kw == "bevel" || kw == "c_interp" || kw == "d_interp" || kw == "cstype" ||
                   kw == "deg" || kw == "bmat" || kw == "step" || kw == "curv" || kw == "curv2" ||
                   kw == "surf" || kw == "parm" || kw == "trim" || kw == "hole" || kw == "scrv" ||
                   kw == "sp" || kw == "end" || kw == "con" || kw == "call" || kw == "csh") {
            // Grouping, smoothing and free-form geometry: no part in a triangle renderer.
        } else {
            throw InputError(path, line, "unknown OBJ statement '" + kw + "'");
        }
    });
    return mesh;
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
    for (size_t i = 0; i < ntri; ++i) {
        Triangle tri;
        tri.v0 = Point3(m * glm::dvec4(mesh.corners[3 * i + 0], 1.0));
        tri.v1 = Point3(m * glm::dvec4(mesh.corners[3 * i + 1], 1.0));
        tri.v2 = Point3(m * glm::dvec4(mesh.corners[3 * i + 2], 1.0));
        // Zero area (relative to the triangle's own size) after the transform: such a
        // triangle can never be hit, and its normal is undefined.
        const glm::dvec3 a(tri.v0), b(tri.v1), c(tri.v2);
        const glm::dvec3 cr = glm::cross(b - a, c - a);
        const double area2 = glm::length(cr);
        const double longest = std::max({glm::length(b - a), glm::length(c - a), glm::length(c - b)});
        if (!(area2 > 1e-12 * longest * longest)) {
            ++degenerate;
            continue;
        }
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
        if (mesh.tri_has_uv[i]) {
            tri.has_uv = true;
            tri.uv0 = mesh.corner_uvs[3 * i + 0];
            tri.uv1 = mesh.corner_uvs[3 * i + 1];
            tri.uv2 = mesh.corner_uvs[3 * i + 2];
        }
        if (groups) (*groups)[group].add(a, b, c);
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
