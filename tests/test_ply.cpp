// PLY meshes (scene/load_ply.cpp): the torus knot of assets/ written as ASCII, binary
// little-endian and binary big-endian PLY renders bit-identical to the OBJ it came from,
// with and without vertex normals; files shaped like the Stanford scans (extra vertex
// properties, a face property before the index list, big-endian) load; bad files are in
// test_parsers.cpp's table.
#include "core/error.h"
#include "core/image.h"
#include "render/settings.h"
#include "scene/load.h"
#include "scene/scene.h"
#include "support/oracle.h"
#include "support/process.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace srt;
using namespace srt::test;

namespace {

const std::string kSource = SRT_SOURCE_DIR;

struct Mesh {
    std::vector<glm::vec3> v;
    std::vector<std::array<int, 3>> f;
};

// The OBJ's vertices and faces, as its text has them (floats round-trip through %.9g).
Mesh read_torus_knot() {
    Mesh m;
    std::ifstream in(kSource + "/assets/torus-knot.obj");
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string kw;
        ls >> kw;
        if (kw == "v") {
            glm::vec3 p;
            ls >> p.x >> p.y >> p.z;
            m.v.push_back(p);
        } else if (kw == "f") {
            std::array<int, 3> f{};
            std::string a;
            for (int k = 0; k < 3; ++k) {
                ls >> a;
                f[size_t(k)] = std::stoi(a.substr(0, a.find('/'))) - 1;
            }
            m.f.push_back(f);
        }
    }
    return m;
}

// Angle-free, simple per-vertex normals (the sum of incident face normals), for a PLY
// with normals and the OBJ with the same `vn`.
std::vector<glm::vec3> vertex_normals(const Mesh& m) {
    std::vector<glm::vec3> n(m.v.size(), glm::vec3(0.0f));
    for (const auto& f : m.f) {
        const glm::vec3 fn = glm::cross(m.v[size_t(f[1])] - m.v[size_t(f[0])], m.v[size_t(f[2])] - m.v[size_t(f[0])]);
        for (int k : f) n[size_t(k)] += fn;
    }
    for (glm::vec3& x : n) x = glm::normalize(x);
    return n;
}

std::string fmt(float x) {
    char b[32];
    std::snprintf(b, sizeof b, "%.9g", double(x));
    return b;
}

std::string obj_text(const Mesh& m, const std::vector<glm::vec3>* normals) {
    std::string s;
    for (const glm::vec3& p : m.v) s += "v " + fmt(p.x) + " " + fmt(p.y) + " " + fmt(p.z) + "\n";
    if (normals)
        for (const glm::vec3& n : *normals) s += "vn " + fmt(n.x) + " " + fmt(n.y) + " " + fmt(n.z) + "\n";
    for (const auto& f : m.f) {
        s += "f";
        for (int k : f) s += " " + std::to_string(k + 1) + (normals ? "//" + std::to_string(k + 1) : "");
        s += "\n";
    }
    return s;
}

enum class Enc { Ascii, LE, BE };

template <class T>
void put(std::string& out, T v, bool big) {
    unsigned char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    if (big) std::reverse(b, b + sizeof(T));
    out.append(reinterpret_cast<const char*>(b), sizeof(T));
}

// A PLY of `m` the way scanners write them: extra vertex properties (confidence,
// intensity) and, with `face_flags`, a uchar face property before the index list.
std::string ply_text(const Mesh& m, Enc enc, const std::vector<glm::vec3>* normals, bool face_flags) {
    std::string h = "ply\nformat ";
    h += enc == Enc::Ascii ? "ascii" : enc == Enc::LE ? "binary_little_endian" : "binary_big_endian";
    h += " 1.0\ncomment written by tests/test_ply.cpp\nobj_info like a Stanford scan\n";
    h += "element vertex " + std::to_string(m.v.size()) + "\nproperty float x\nproperty float y\nproperty float z\n";
    if (normals) h += "property float nx\nproperty float ny\nproperty float nz\n";
    h += "property float confidence\nproperty float intensity\n";
    h += "element face " + std::to_string(m.f.size()) + "\n";
    if (face_flags) h += "property uchar flags\n";
    h += "property list uchar int vertex_indices\nelement edge 1\nproperty int vertex1\nproperty int vertex2\nend_header\n";
    const bool big = enc == Enc::BE;
    std::string d;
    for (size_t i = 0; i < m.v.size(); ++i) {
        float vals[8] = {m.v[i].x, m.v[i].y, m.v[i].z, 0, 0, 0, 0, 0};
        int n = 3;
        if (normals) {
            vals[3] = (*normals)[i].x;
            vals[4] = (*normals)[i].y;
            vals[5] = (*normals)[i].z;
            n = 6;
        }
        vals[n++] = 0.75f;  // confidence
        vals[n++] = 0.5f;   // intensity
        if (enc == Enc::Ascii) {
            for (int k = 0; k < n; ++k) d += (k ? " " : "") + fmt(vals[k]);
            d += "\n";
        } else {
            for (int k = 0; k < n; ++k) put(d, vals[k], big);
        }
    }
    for (const auto& f : m.f) {
        if (enc == Enc::Ascii) {
            d += (face_flags ? "7 " : "") + std::string("3 ") + std::to_string(f[0]) + " " + std::to_string(f[1]) + " " +
                 std::to_string(f[2]) + "\n";
        } else {
            if (face_flags) put<uint8_t>(d, 7, big);
            put<uint8_t>(d, 3, big);
            for (int k : f) put<int32_t>(d, k, big);
        }
    }
    if (enc == Enc::Ascii) d += "0 1\n";
    else {
        put<int32_t>(d, 0, big);
        put<int32_t>(d, 1, big);
    }
    return h + d;
}

Image render_file(const std::string& path) {
    Scene s = load_scene(path);
    // The same camera for every file (they frame the same bounds anyway).
    RenderSettings rs;
    rs.width = 160;
    rs.height = 90;
    rs.depth = 3;
    return render_cpu(s, rs);
}

TEST(Ply, EveryEncodingRendersLikeTheObj) {
    TempDir dir;
    const Mesh m = read_torus_knot();
    ASSERT_EQ(m.f.size(), 6144u);
    write_text(dir / "knot.obj", obj_text(m, nullptr));
    const Image ref = render_file(dir / "knot.obj");
    for (Enc enc : {Enc::Ascii, Enc::LE, Enc::BE})
        for (bool flags : {false, true}) {
            const std::string name = std::string("knot-") + (enc == Enc::Ascii ? "ascii" : enc == Enc::LE ? "le" : "be") +
                                     (flags ? "-flags" : "") + ".ply";
            write_text(dir / name, ply_text(m, enc, nullptr, flags));
            const Scene s = load_scene(dir / name);
            EXPECT_EQ(s.triangles.size(), m.f.size()) << name;
            EXPECT_EQ(render_file(dir / name).rgba, ref.rgba) << name;
        }
}

TEST(Ply, VertexNormalsShadeSmoothLikeObjVn) {
    TempDir dir;
    const Mesh m = read_torus_knot();
    const std::vector<glm::vec3> n = vertex_normals(m);
    write_text(dir / "knot.obj", obj_text(m, &n));
    const Image ref = render_file(dir / "knot.obj");
    write_text(dir / "flat.obj", obj_text(m, nullptr));
    EXPECT_NE(render_file(dir / "flat.obj").rgba, ref.rgba) << "normals change the image";
    for (Enc enc : {Enc::Ascii, Enc::BE}) {
        const std::string name = enc == Enc::Ascii ? "n-ascii.ply" : "n-be.ply";
        write_text(dir / name, ply_text(m, enc, &n, true));
        const Scene s = load_scene(dir / name);
        size_t smooth = 0;
        for (const Triangle& t : s.triangles) smooth += t.smooth;
        EXPECT_EQ(smooth, m.f.size()) << name;
        EXPECT_EQ(render_file(dir / name).rgba, ref.rgba) << name;
    }
}

TEST(Ply, AJsonMeshTakesAPlyWithTransformAndMaterial) {
    TempDir dir;
    const Mesh m = read_torus_knot();
    write_text(dir / "knot.ply", ply_text(m, Enc::LE, nullptr, false));
    write_text(dir / "knot.obj", obj_text(m, nullptr));
    auto scene = [&](const char* file) {
        return std::string("{\"camera\": {\"from\": [0, 1, 6], \"at\": [0, 0, 0]},\n"
                           " \"materials\": {\"copper\": {\"colour\": [0.9, 0.5, 0.3]}},\n"
                           " \"lights\": [{\"type\": \"point\", \"position\": [3, 5, 4]}],\n"
                           " \"objects\": [{\"type\": \"mesh\", \"file\": \"") +
               file + "\", \"material\": \"copper\", \"smooth\": true,\n"
                      "   \"transform\": {\"scale\": 1.2, \"rotate\": [30, 0, 10], \"translate\": [0.2, 0, 0]}}]}\n";
    };
    write_text(dir / "a.json", scene("knot.ply"));
    write_text(dir / "b.json", scene("knot.obj"));
    const Image a = render_file(dir / "a.json"), b = render_file(dir / "b.json");
    EXPECT_EQ(a.rgba, b.rgba);
    const Scene s = load_scene(dir / "a.json");
    ASSERT_FALSE(s.triangles.empty());
    EXPECT_TRUE(s.triangles[0].smooth);
    EXPECT_EQ(s.materials[s.triangles[0].material].name, "copper");
}

TEST(Ply, RenderAPlyOnItsOwn) {
    TempDir dir;
    write_text(dir / "tri.ply",
               "ply\nformat ascii 1.0\nelement vertex 4\nproperty double x\nproperty double y\nproperty double z\n"
               "element face 1\nproperty list uchar uint vertex_indices\nend_header\n"
               "0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n");
    const Scene s = load_scene(dir / "tri.ply");
    EXPECT_EQ(s.triangles.size(), 2u);  // a quad, fan-triangulated
    EXPECT_EQ(s.lights.size(), 1u);     // the default light
    const Result r = run_binary(SRT_BINARY, dir, {"render", dir / "tri.ply", "--backend", "cpu", "-W", "32", "-H", "18",
                                                  "-o", dir / "tri.png"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
