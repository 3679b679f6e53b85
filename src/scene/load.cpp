// load.cpp - picks a scene loader by file extension.
#include "scene/load.h"
#include "scene/tangents.h"
#include "core/file_reason.h"
#include "core/load_progress.h"

#include "core/error.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace srt {

namespace {

std::string lower_extension(const std::string& path) {
    const size_t slash = path.find_last_of("/\\");
    const size_t dot = path.find_last_of('.');
    // A dot inside a directory name ("./scenes/x") is not an extension.
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string ext = path.substr(dot);
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

}  // namespace

namespace {
Scene load_by_extension(const std::string& path) {
    const std::string ext = lower_extension(path);
    if (ext == ".json") return load_json_scene(path);
    if (ext == ".obj") return load_obj_scene(path);
    if (ext == ".nff") return load_nff_scene(path);
    if (ext == ".ply") return load_ply_scene(path);
    if (ext == ".gltf" || ext == ".glb") return load_gltf_scene(path);
    throw InputError(path, 0,
                     "unknown scene file extension '" + ext +
                         "' (expected .json, .obj, .ply, .gltf, .glb or .nff)");
}
}  // namespace

// Whatever the format, normal-mapped triangles without tangents of their own get
// MikkTSpace's; those without texture coordinates have nothing to read the map at.
Scene load_scene(const std::string& path) {
    Scene scene = load_by_extension(path);
    generate_tangents(scene);
    size_t unmapped = 0;
    for (const Triangle& t : scene.triangles)
        if (!t.has_uv && scene.materials[t.material].normal_mapped()) ++unmapped;
    if (unmapped > 0)
        scene.notes.push_back(path + ": " + std::to_string(unmapped) +
                              " normal-mapped triangle(s) have no texture coordinates: their normal map is not used");
    return scene;
}

namespace {
// "not found" where there is no such file; else why it cannot be read.
std::string not_found_or_why(const std::string& path) {
    const std::string why = unreadable_reason(path);
    return why.empty() || errno == ENOENT ? "not found" : "cannot be read: " + why;
}

[[noreturn]] void mesh_file_error(const std::string& path, const std::string& referenced_from, int ref_line,
                                  const std::string& referenced_msg, const std::string& own_msg) {
    if (!referenced_from.empty()) throw InputError(referenced_from, ref_line, "mesh file '" + path + "' " + referenced_msg);
    throw InputError(path, 0, own_msg);
}
}  // namespace

void check_mesh_file(const std::string& path, const std::string& referenced_from, int ref_line, const char* what) {
    std::error_code ec;
    const auto st = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(st))
        mesh_file_error(path, referenced_from, ref_line, not_found_or_why(path), cannot_open(path, what));
    if (!std::filesystem::is_regular_file(st))  // a device or FIFO would be read until memory runs out
        mesh_file_error(path, referenced_from, ref_line, "is not a regular file", "not a regular file");
}

std::string read_mesh_file(const std::string& path, const std::string& referenced_from, int ref_line,
                           const char* what) {
    check_mesh_file(path, referenced_from, ref_line, what);
    // Straight into the string, sized once: a stream's copy through a stringbuf took a
    // quarter of Conference's load.
    std::string bytes;
    std::FILE* f = std::fopen(path.c_str(), "rb");
    bool ok = f != nullptr;
    if (ok) {
        char buf[1 << 16];
        std::error_code ec;
        const auto size = std::filesystem::file_size(path, ec);
        if (!ec) bytes.reserve(size_t(size));
        load_progress::Stage stage("read", ec ? 0 : uint64_t(size), "bytes");
        for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) {
            bytes.append(buf, n);
            load_progress::advance(n);
        }
        ok = !std::ferror(f);
        std::fclose(f);
    }
    if (!ok) mesh_file_error(path, referenced_from, ref_line, not_found_or_why(path), cannot_open(path, what));
    return bytes;
}

size_t append_mesh_file(Scene& scene, const std::string& path, const glm::mat4& xform,
                        std::optional<uint32_t> material, const std::string& referenced_from, int ref_line) {
    const std::string ext = lower_extension(path);
    if (ext == ".ply") return append_ply_mesh(scene, path, xform, material, referenced_from, ref_line);
    if (ext == ".gltf" || ext == ".glb") return append_gltf_mesh(scene, path, xform, material, referenced_from, ref_line);
    // OBJ is what a mesh was before there were others, so a name without an extension is one.
    if (ext == ".obj" || ext.empty()) return append_obj_mesh(scene, path, xform, material, referenced_from, ref_line);
    throw InputError(referenced_from, ref_line, "mesh file '" + path + "': unknown extension '" + ext +
                                                    "' (expected .obj, .ply, .gltf or .glb)");
}

}  // namespace srt
