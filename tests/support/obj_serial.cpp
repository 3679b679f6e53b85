// obj_serial.cpp - the OBJ reader as it was before it read in pieces: one statement after
// another, numbers through strtod (obj_text.h parse_double). Kept as the reference the
// pieces' reader (src/scene/obj_parse.cpp) must equal, bit for bit and error for error
// (tests/test_obj_pieces.cpp).
#include "support/obj_serial.h"

#include "core/error.h"
#include "scene/obj_text.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace srt::obj {

namespace {

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

}  // namespace

ObjMesh serial_parse_obj(const std::string& text, const std::string& path) {
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


namespace {
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b, const char* name, std::string& why) {
    if (a.size() != b.size()) {
        why = std::string(name) + ": " + std::to_string(a.size()) + " against " + std::to_string(b.size());
        return false;
    }
    for (size_t i = 0; i < a.size(); ++i)
        if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) {
            why = std::string(name) + " [" + std::to_string(i) + "] differs";
            return false;
        }
    return true;
}
}  // namespace

bool same_mesh(const ObjMesh& a, const ObjMesh& b, std::string& why) {
    if (!same_bits(a.corners, b.corners, "corners", why) || !same_bits(a.corner_normals, b.corner_normals, "corner_normals", why) ||
        !same_bits(a.tri_smooth, b.tri_smooth, "tri_smooth", why) || !same_bits(a.corner_uvs, b.corner_uvs, "corner_uvs", why) ||
        !same_bits(a.tri_has_uv, b.tri_has_uv, "tri_has_uv", why) || !same_bits(a.tri_group, b.tri_group, "tri_group", why) ||
        !same_bits(a.group_mtl, b.group_mtl, "group_mtl", why))
        return false;
    if (a.lib.mtls.size() != b.lib.mtls.size() || a.lib.by_name != b.lib.by_name) {
        why = "material libraries differ";
        return false;
    }
    if (a.ignored_elements != b.ignored_elements || a.unknown_mtls != b.unknown_mtls || a.warnings != b.warnings) {
        why = "notes or counts differ";
        return false;
    }
    return true;
}

bool pieces_read_as_serial(const std::string& text, const std::string& path, PieceOptions opt, std::string& why) {
    std::string serial_error, pieces_error;
    ObjMesh serial, pieces;
    try {
        serial = serial_parse_obj(text, path);
    } catch (const InputError& e) {
        serial_error = e.what();
    }
    try {
        pieces = parse_obj(text, path, opt);
    } catch (const InputError& e) {
        pieces_error = e.what();
    }
    if (serial_error != pieces_error) {
        why = "serial: '" + serial_error + "'; in pieces: '" + pieces_error + "'";
        return false;
    }
    return !serial_error.empty() || same_mesh(serial, pieces, why);
}

}  // namespace srt::obj
