// glTF 2.0 (scene/load_gltf.cpp): files written by a tool that is not ours (assimp) and
// files of our own (embedded base64 buffers, external .bin, .glb) render bit-identical
// to the OBJ they hold; node transforms, the camera, KHR_lights_punctual and materials
// map as docs/scene-format.md says. Bad files are in test_parsers.cpp's table.
#include "core/error.h"
#include "core/image.h"
#include "render/settings.h"
#include "scene/load.h"
#include "scene/scene.h"
#include "support/oracle.h"
#include "support/process.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <iterator>
#include <fstream>

using namespace srt;
using namespace srt::test;
using json = nlohmann::json;

namespace {

const std::string kKnot = std::string(SRT_SOURCE_DIR) + "/assets/torus-knot.obj";

Image render_scene(const Scene& s) {
    RenderSettings rs;
    rs.width = 160;
    rs.height = 90;
    rs.depth = 3;
    return render_cpu(s, rs);
}

// The mesh inside a JSON scene of fixed camera, light and material.
std::string wrap(const std::string& mesh_file, const std::string& transform = "{\"rotate\": [30, 0, 10]}") {
    return "{\"camera\": {\"from\": [0, 1, 6], \"at\": [0, 0, 0]},\n"
           " \"materials\": {\"c\": {\"colour\": [0.9, 0.5, 0.3], \"kr\": 0.2}},\n"
           " \"lights\": [{\"type\": \"point\", \"position\": [3, 5, 4]}],\n"
           " \"objects\": [{\"type\": \"mesh\", \"file\": \"" + mesh_file + "\", \"material\": \"c\", \"transform\": " +
           transform + "}]}\n";
}

TEST(Gltf, AssimpsGltfAndGlbRenderLikeTheObj) {
    if (std::system("command -v assimp >/dev/null 2>&1") != 0) GTEST_SKIP() << "assimp (Debian assimp-utils) not installed";
    TempDir dir;
    for (const char* f : {"glb2", "gltf2"}) {
        const std::string out = dir / (std::string("knot.") + (f[2] == 'b' ? "glb" : "gltf"));
        ASSERT_EQ(std::system(("assimp export '" + kKnot + "' '" + out + "' -f " + f + " >/dev/null 2>&1").c_str()), 0) << f;
    }
    write_text(dir / "obj.json", wrap(kKnot));
    write_text(dir / "glb.json", wrap(dir / "knot.glb"));
    write_text(dir / "gltf.json", wrap(dir / "knot.gltf"));  // with its external knot.bin
    const Image ref = render_scene(load_scene(dir / "obj.json"));
    EXPECT_EQ(render_scene(load_scene(dir / "glb.json")).rgba, ref.rgba);
    EXPECT_EQ(render_scene(load_scene(dir / "gltf.json")).rgba, ref.rgba);
    EXPECT_EQ(load_scene(dir / "knot.glb").triangles.size(), 6144u);
}

// Our own glTF: a quad of two triangles with normals in an embedded base64 buffer, under a
// node that translates it, against the same OBJ moved by hand.
std::string b64(const std::string& bytes) {
    static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const uint32_t v = uint32_t(uint8_t(bytes[i])) << 16 | uint32_t(uint8_t(bytes[i + 1])) << 8 | uint8_t(bytes[i + 2]);
        for (int k = 3; k >= 0; --k) out += t[(v >> (6 * k)) & 63];
    }
    if (bytes.size() - i == 1) {
        const uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
        out += t[v >> 18];
        out += t[(v >> 12) & 63];
        out += "==";
    } else if (bytes.size() - i == 2) {
        const uint32_t v = uint32_t(uint8_t(bytes[i])) << 16 | uint32_t(uint8_t(bytes[i + 1])) << 8;
        out += t[v >> 18];
        out += t[(v >> 12) & 63];
        out += t[(v >> 6) & 63];
        out += '=';
    }
    return out;
}
template <class T>
void put(std::string& s, T v) {
    s.append(reinterpret_cast<const char*>(&v), sizeof v);
}

json quad_gltf(bool with_camera_and_light) {
    const float pos[12] = {-1, -1, 0, 1, -1, 0, 1, 1, 0.5f, -1, 1, 0.5f};
    const float nrm[12] = {0, -0.2f, 1, 0, -0.2f, 1, 0.3f, 0, 1, -0.3f, 0, 1};
    std::string buf;
    for (float f : pos) put(buf, f);
    for (float f : nrm) put(buf, f);
    for (uint16_t i : {0, 1, 2, 0, 2, 3}) put(buf, i);
    json g = {
        {"asset", {{"version", "2.0"}}},
        {"scene", 0},
        {"scenes", {{{"nodes", {0}}}}},
        {"nodes", {{{"mesh", 0}, {"translation", {0.5, 0.25, -1.0}}}}},
        {"meshes", {{{"primitives", {{{"attributes", {{"POSITION", 0}, {"NORMAL", 1}}}, {"indices", 2}, {"material", 0}}}}}}},
        {"materials", {{{"name", "brass"}, {"pbrMetallicRoughness", {{"baseColorFactor", {0.8, 0.6, 0.2, 1}}, {"metallicFactor", 1.0}, {"roughnessFactor", 0.5}}}}}},
        {"buffers", {{{"byteLength", buf.size()}, {"uri", "data:application/octet-stream;base64," + b64(buf)}}}},
        {"bufferViews", {{{"buffer", 0}, {"byteOffset", 0}, {"byteLength", 48}},
                         {{"buffer", 0}, {"byteOffset", 48}, {"byteLength", 48}},
                         {{"buffer", 0}, {"byteOffset", 96}, {"byteLength", 12}}}},
        {"accessors", {{{"bufferView", 0}, {"componentType", 5126}, {"count", 4}, {"type", "VEC3"}, {"min", {-1, -1, 0}}, {"max", {1, 1, 0.5}}},
                       {{"bufferView", 1}, {"componentType", 5126}, {"count", 4}, {"type", "VEC3"}},
                       {{"bufferView", 2}, {"componentType", 5123}, {"count", 6}, {"type", "SCALAR"}}}}};
    if (with_camera_and_light) {
        g["nodes"].push_back({{"camera", 0}, {"translation", {0, 0, 4}}});
        g["nodes"].push_back({{"translation", {1, 2, 3}}, {"extensions", {{"KHR_lights_punctual", {{"light", 0}}}}}});
        g["nodes"].push_back({{"rotation", {-0.7071068, 0, 0, 0.7071068}}, {"extensions", {{"KHR_lights_punctual", {{"light", 1}}}}}});
        g["scenes"][0]["nodes"] = {0, 1, 2, 3};
        g["cameras"] = {{{"type", "perspective"}, {"perspective", {{"yfov", 0.8}, {"aspectRatio", 2.0}, {"znear", 0.1}}}}};
        g["extensionsUsed"] = {"KHR_lights_punctual"};
        json lights = json::array();
        lights.push_back({{"type", "point"}, {"color", {1, 0.5, 0.25}}, {"intensity", 20}});
        lights.push_back({{"type", "directional"}, {"intensity", 10}});
        g["extensions"]["KHR_lights_punctual"]["lights"] = lights;
    }
    return g;
}

TEST(Gltf, EmbeddedBufferWithNormalsAndANodeTransformRendersLikeTheObj) {
    TempDir dir;
    write_text(dir / "quad.gltf", quad_gltf(false).dump(1));
    // The OBJ: the same corners moved by the node's translation, the same normals.
    write_text(dir / "quad.obj",
               "v -0.5 -0.75 -1\nv 1.5 -0.75 -1\nv 1.5 1.25 -0.5\nv -0.5 1.25 -0.5\n"
               "vn 0 -0.2 1\nvn 0 -0.2 1\nvn 0.3 0 1\nvn -0.3 0 1\nf 1//1 2//2 3//3\nf 1//1 3//3 4//4\n");
    write_text(dir / "a.json", wrap(dir / "quad.gltf", "{}"));
    write_text(dir / "b.json", wrap(dir / "quad.obj", "{}"));
    const Scene a = load_scene(dir / "a.json");
    ASSERT_EQ(a.triangles.size(), 2u);
    EXPECT_TRUE(a.triangles[0].smooth);
    EXPECT_EQ(render_scene(a).rgba, render_scene(load_scene(dir / "b.json")).rgba);
}

TEST(Gltf, CameraLightsAndMaterialsMapAsDocumented) {
    TempDir dir;
    write_text(dir / "q.gltf", quad_gltf(true).dump(1));
    const Scene s = load_scene(dir / "q.gltf");
    EXPECT_EQ(s.camera.from, Point3(0, 0, 4));
    EXPECT_EQ(s.camera.at, Point3(0, 0, 3));
    // yfov 0.8 at aspect 2: horizontal 2 atan(2 tan 0.4) = 80.87 degrees.
    EXPECT_NEAR(s.camera.fov_deg, 2.0 * std::atan(2.0 * std::tan(0.4)) * 180.0 / 3.14159265358979, 1e-3);
    ASSERT_EQ(s.lights.size(), 2u);
    EXPECT_EQ(s.lights[0].type, LightType::Point);
    EXPECT_EQ(s.lights[0].position, Point3(1, 2, 3));
    EXPECT_FLOAT_EQ(s.lights[0].colour.x, 1.0f);   // 20 x (1, 0.5, 0.25), scaled to a peak of 1
    EXPECT_FLOAT_EQ(s.lights[0].colour.y, 0.5f);
    EXPECT_FLOAT_EQ(s.lights[1].colour.x, 0.5f);   // 10 x white: half of the peak
    EXPECT_EQ(s.lights[1].type, LightType::Directional);
    EXPECT_NEAR(s.lights[1].direction.y, -1.0f, 1e-6);  // -z turned down by -90 degrees about x
    const Material& m = s.materials[s.triangles[0].material];
    EXPECT_EQ(m.name, "brass");
    EXPECT_FLOAT_EQ(m.colour.x, 0.8f);
    EXPECT_FLOAT_EQ(m.kr.x, 0.8f * 0.25f);  // metallic 1, roughness 0.5: mirror weight 0.25
    EXPECT_FLOAT_EQ(m.kd, 0.75f);
    const Result r = run_binary(SRT_BINARY, dir, {"render", dir / "q.gltf", "--backend", "cpu", "-W", "40", "-H", "20",
                                                  "-o", dir / "q.png"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

// A GLB whose chunk lengths do not fit the file is an InputError naming the file and
// the chunk, never a read past the end (the fuzzer's finding, kept in its corpus as
// tests/fuzz/corpus/gltf/bin-chunk-past-end.glb: a BIN chunk of 48 bytes with 44 left).
TEST(Gltf, GlbChunkLengthsAreCheckedAgainstTheFile) {
    const std::string good = std::string(SRT_SOURCE_DIR) + "/tests/fuzz/corpus/gltf/good.glb";
    std::ifstream in(good, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(bytes.size(), 28u);
    EXPECT_NO_THROW(load_scene(good));
    const std::string dir = ::testing::TempDir();
    auto expect_rejected = [&](std::string b, const std::string& name, const std::string& what) {
        const std::string path = dir + "/" + name + ".glb";
        std::ofstream(path, std::ios::binary).write(b.data(), std::streamsize(b.size()));
        try {
            load_scene(path);
            ADD_FAILURE() << name << ": no error";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
        }
    };
    std::string truncated = bytes.substr(0, bytes.size() - 4);  // header length fixed up below
    const uint32_t len = uint32_t(truncated.size());
    std::memcpy(&truncated[8], &len, 4);
    expect_rejected(truncated, "truncated", "runs past the end");
    std::string wrong_length = bytes;
    const uint32_t longer = uint32_t(bytes.size() + 100);
    std::memcpy(&wrong_length[8], &longer, 4);
    expect_rejected(wrong_length, "wrong-length", "header gives a length");
    std::string huge_json = bytes;
    const uint32_t huge = 0xfffffff0u;
    std::memcpy(&huge_json[12], &huge, 4);
    expect_rejected(huge_json, "huge-json", "JSON chunk");
    expect_rejected(bytes.substr(0, 10), "short", "shorter than its 20-byte header");
}

}  // namespace
