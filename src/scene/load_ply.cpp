// load_ply.cpp - PLY meshes (Greg Turk's polygon file format, as the Stanford scans ship):
// ASCII, binary little-endian and binary big-endian.
//
// Strict, and errors say where: header and ASCII data as file:line, binary data as a
// byte offset (`bunny.ply: byte 1043: ...`). third_party/README.md says why this is our
// own reader rather than assimp's.
//
// What is read: `element vertex` with x, y, z (any numeric type) and optionally nx, ny,
// nz (vertex normals: the triangles are shaded smooth); `element face` with a list
// property `vertex_indices` (or `vertex_index`), polygons fan-triangulated. Every other
// property (confidence, intensity, a face's flags before its index list) and every other
// element (edges, materials) is read past according to its declared type.
//
// The header and the data are read by ply_read.h; here the mesh becomes the scene's
// triangles, transformed, on every core.
#include "scene/load.h"

#include "core/error.h"
#include "core/load_progress.h"
#include "core/parallel.h"
#include "scene/ply_read.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace srt {
namespace {

// Triangle t of the mesh, transformed; false where it has no area after the transform
// (relative to its own size), since it can never be hit and has no normal.
bool make_triangle(const ply::Mesh& mesh, size_t t, const glm::dmat4& m, const glm::dmat3& normal_matrix, Triangle& tri) {
    const uint32_t* idx = mesh.indices.data() + 3 * t;
    Point3* out[3] = {&tri.v0, &tri.v1, &tri.v2};
    for (int c = 0; c < 3; ++c) *out[c] = Point3(m * glm::dvec4(mesh.positions[idx[c]], 1.0));
    if (degenerate_triangle(tri.v0, tri.v1, tri.v2)) return false;
    if (!mesh.normals.empty()) {
        glm::vec3* nout[3] = {&tri.n0, &tri.n1, &tri.n2};
        bool ok = true;
        for (int c = 0; c < 3; ++c) {
            const glm::dvec3 nn = normal_matrix * glm::dvec3(mesh.normals[idx[c]]);
            const double len = glm::length(nn);
            ok = ok && len > 0.0 && std::isfinite(len);
            *nout[c] = ok ? glm::vec3(nn / len) : glm::vec3(0.0f);
        }
        tri.smooth = ok;
    }
    return true;
}

}  // namespace

size_t append_ply_mesh(Scene& scene, const std::string& path, const glm::mat4& xform,
                       std::optional<uint32_t> material, const std::string& referenced_from, int ref_line) {
    const std::string bytes = read_mesh_file(path, referenced_from, ref_line, "PLY");
    load_progress::Stage stage("parse", 0, "bytes");
    const ply::Mesh mesh = ply::read_data(bytes, ply::parse_header(bytes, path), path);

    // Triangles, transformed in chunks: which survive, then each written at its place. A
    // kept triangle is transformed twice, which costs less than a temporary copy of every
    // triangle (200 bytes each: 2 GB for 10 M) to compact from.
    const glm::dmat4 m(xform);
    const glm::dmat3 normal_matrix = glm::transpose(glm::inverse(glm::dmat3(m)));
    const uint32_t ntri = uint32_t(mesh.indices.size() / 3);
    constexpr uint32_t kGrain = 16384;
    const uint32_t nchunks = (ntri + kGrain - 1) / kGrain;
    const int threads = host_cores();
    std::vector<uint8_t> keep(ntri);
    std::vector<size_t> first(size_t(nchunks) + 1, 0);
    parallel_for(nchunks, 1, threads, [&](uint32_t cb, uint32_t ce) {
        Triangle tri;
        for (uint32_t c = cb; c < ce; ++c) {
            size_t kept = 0;
            for (uint32_t t = c * kGrain; t < std::min(ntri, (c + 1) * kGrain); ++t) kept += keep[t] = make_triangle(mesh, t, m, normal_matrix, tri);
            first[c + 1] = kept;
        }
    });
    for (uint32_t c = 0; c < nchunks; ++c) first[c + 1] += first[c];
    const size_t base = scene.triangles.size(), added = first[nchunks];
    scene.triangles.resize(base + added);
    parallel_for(nchunks, 1, threads, [&](uint32_t cb, uint32_t ce) {
        for (uint32_t c = cb; c < ce; ++c) {
            Triangle* out = scene.triangles.data() + base + first[c];
            for (uint32_t t = c * kGrain; t < std::min(ntri, (c + 1) * kGrain); ++t)
                if (keep[t]) {
                    make_triangle(mesh, t, m, normal_matrix, *out);
                    out->material = material.value_or(0u);
                    ++out;
                }
        }
    });
    const size_t degenerate = ntri - added;
    if (degenerate + mesh.dropped > 0)
        scene.notes.push_back(path + ": dropped " + std::to_string(degenerate) + " degenerate triangle(s) and " +
                              std::to_string(mesh.dropped) + " face(s) with fewer than 3 vertices");
    return added;
}

Scene load_ply_scene(const std::string& path) {
    Scene scene;
    scene.name = path;
    Material grey;
    grey.name = "default";
    scene.add_material(grey);
    append_ply_mesh(scene, path, glm::mat4(1.0f), std::nullopt, "", 0);
    if (scene.triangles.empty()) throw InputError(path, 0, "PLY file has no (non-degenerate) faces");
    frame_mesh_scene(scene, path);
    return scene;
}

}  // namespace srt
