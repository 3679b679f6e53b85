// glTF 2.0 (scene/load_gltf.cpp): files written by a tool that is not ours (assimp) and
// files of our own (embedded base64 buffers, external .bin, .glb) render bit-identical
// to the OBJ they hold; node transforms, the camera, KHR_lights_punctual and materials
// map as docs/scene-format.md says. Bad files are in test_parsers.cpp's table.
#include "core/error.h"
#include "core/image.h"
#include "render/settings.h"
#include "scene/instances.h"
#include "scene/load.h"
#include "scene/scene.h"
#include "support/oracle.h"
#include "support/process.h"
#include "support/texture_reference.h"

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

// A mesh that several nodes place: one Mesh and an instance a node, which render as the
// copies would, to the bit where the transforms move floats exactly (scales by powers of
// two and mirrors, seen from the origin); read as a JSON scene's mesh, copies.
TEST(Gltf, AMeshPlacedByManyNodesBecomesInstances) {
    json g = quad_gltf(false);
    g["nodes"] = {{{"mesh", 0}, {"scale", {4, 4, -4}}}, {{"mesh", 0}, {"scale", {-8, 8, -8}}},
                  {{"mesh", 0}, {"scale", {2, -2, -2}}}, {{"camera", 0}}};
    g["scenes"][0]["nodes"] = {0, 1, 2, 3};
    g["cameras"] = {{{"type", "perspective"}, {"perspective", {{"yfov", 1.2}, {"aspectRatio", 1.5}, {"znear", 0.1}}}}};
    TempDir dir;
    write_text(dir / "placed.gltf", g.dump(1));
    const Scene s = load_scene(dir / "placed.gltf");
    ASSERT_EQ(s.meshes.size(), 1u);
    ASSERT_EQ(s.instances.size(), 3u);
    EXPECT_TRUE(s.triangles.empty());
    EXPECT_EQ(s.meshes[0].triangles.size(), 2u);
    EXPECT_EQ(s.camera.from, Point3(0.0));
    EXPECT_LT(glm::determinant(s.instances[0].linear), 0.0);  // a mirror: (4, 4, -4)
    Scene flat = s;
    flatten_instances(flat);
    ASSERT_EQ(flat.triangles.size(), 6u);
    EXPECT_EQ(flat.triangles[0].v1, Point3(4, -4, 0));  // (1, -1, 0) scaled by the first node
    const Image a = render_scene(s), b = render_scene(flat);
    EXPECT_EQ(a.rgba, b.rgba);
    // As a JSON scene's mesh: its triangles, copied.
    write_text(dir / "j.json", wrap(dir / "placed.gltf", "{}"));
    const Scene j = load_scene(dir / "j.json");
    EXPECT_TRUE(j.instances.empty());
    EXPECT_EQ(j.triangles.size(), 6u);
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

// Materials beyond Whitted's terms (docs/scene-format.md, "Materials"): the quad once per
// material, side by side, and a lamp (an emissive quad) placed twice, above and below.
// The file requires every material extension it uses.
json materials_gltf() {
    json g = quad_gltf(false);
    const json ext_names = {"KHR_materials_transmission", "KHR_materials_ior", "KHR_materials_volume",
                            "KHR_materials_emissive_strength"};
    g["extensionsUsed"] = ext_names;
    g["extensionsRequired"] = ext_names;
    auto pbr = [](double metal, double rough) {
        return json{{"baseColorFactor", {0.9, 0.8, 0.7, 1}}, {"metallicFactor", metal}, {"roughnessFactor", rough}};
    };
    json mats = json::array();
    mats.push_back({{"name", "glass"}, {"pbrMetallicRoughness", pbr(0, 0.1)},
                    {"extensions", {{"KHR_materials_transmission", {{"transmissionFactor", 1}}},
                                    {"KHR_materials_ior", {{"ior", 1.33}}},
                                    {"KHR_materials_volume", {{"thicknessFactor", 0.1}, {"attenuationColor", {0.5, 0.25, 1}},
                                                              {"attenuationDistance", 2}}}}}});
    mats.push_back({{"name", "rough-metal"}, {"pbrMetallicRoughness", pbr(1, 0.4)}});
    mats.push_back({{"name", "plastic"}, {"pbrMetallicRoughness", pbr(0, 0.6)}});
    mats.push_back({{"name", "gem"}, {"pbrMetallicRoughness", pbr(0.2, 0)}, {"extensions", {{"KHR_materials_ior", {{"ior", 2.4}}}}}});
    mats.push_back({{"name", "thin-glass"}, {"pbrMetallicRoughness", pbr(0, 0)},
                    {"extensions", {{"KHR_materials_transmission", {{"transmissionFactor", 0.5}}}}}});
    mats.push_back({{"name", "clear-volume"}, {"pbrMetallicRoughness", pbr(0, 0)},
                    {"extensions", {{"KHR_materials_transmission", {{"transmissionFactor", 1}}},
                                    {"KHR_materials_volume", {{"attenuationColor", {0.5, 0.5, 0.5}}}}}}});
    mats.push_back({{"name", "lamp"}, {"pbrMetallicRoughness", pbr(0, 1)}, {"emissiveFactor", {1, 0.5, 0.25}},
                    {"doubleSided", true},
                    {"extensions", {{"KHR_materials_emissive_strength", {{"emissiveStrength", 8}}}}}});
    g["materials"] = mats;
    const json prim = g["meshes"][0]["primitives"][0];
    json prims = json::array();
    for (int i = 0; i < 6; ++i) {
        json p = prim;
        p["material"] = i;
        prims.push_back(p);
    }
    g["meshes"][0]["primitives"] = prims;
    json lamp = prim;
    lamp["material"] = 6;
    g["meshes"].push_back({{"primitives", {lamp}}});
    g["nodes"][0].erase("translation");
    g["nodes"].push_back({{"mesh", 1}, {"translation", {0, 3, 0}}});
    g["nodes"].push_back({{"mesh", 1}, {"translation", {0, -3, 0}}});
    g["scenes"][0]["nodes"] = {0, 1, 2};
    return g;
}

const Material& material_named(const Scene& s, const std::string& name) {
    for (const Material& m : s.materials)
        if (m.name == name) return m;
    ADD_FAILURE() << "no material " << name;
    return s.materials[0];
}

TEST(Gltf, MaterialExtensionsMapAsDocumented) {
    TempDir dir;
    write_text(dir / "m.gltf", materials_gltf().dump(1));
    const Scene s = load_scene(dir / "m.gltf");  // requiring the four extensions is fine
    EXPECT_EQ(s.triangles.size(), 16u);
    const glm::vec3 base(0.9f, 0.8f, 0.7f);

    const Material& glass = material_named(s, "glass");
    EXPECT_TRUE(glass.is_dielectric());
    EXPECT_FLOAT_EQ(glass.ior, 1.33f);
    // attenuationColor after attenuationDistance 2: sigma_a = -ln(colour) / 2.
    EXPECT_NEAR(glass.absorption.x, std::log(2.0) / 2.0, 1e-6);
    EXPECT_NEAR(glass.absorption.y, std::log(4.0) / 2.0, 1e-6);
    EXPECT_EQ(glass.absorption.z, 0.0f);
    EXPECT_FLOAT_EQ(glass.roughness, 0.1f);
    EXPECT_EQ(glass.glossy, glm::vec3(0.0f));  // the dielectric reflects by Fresnel itself
    EXPECT_FALSE(glass.pbr);                    // glass, rough as roughnessFactor says
    EXPECT_EQ(glass.kt, 0.0f);
    EXPECT_EQ(glass.kd, 1.0f);                  // Whitted's mapping, as without the extensions
    EXPECT_EQ(glass.kr, glm::vec3(0.0f));
    EXPECT_EQ(glass.colour, base);

    const Material& metal = material_named(s, "rough-metal");
    EXPECT_FLOAT_EQ(metal.roughness, 0.4f);
    EXPECT_EQ(metal.glossy, glm::vec3(0.0f));
    EXPECT_FALSE(metal.is_dielectric());
    EXPECT_TRUE(metal.pbr);  // the specification's BRDF for the path integrator
    EXPECT_EQ(metal.metallic, 1.0f);
    EXPECT_FLOAT_EQ(metal.dielectric_f0, 0.04f);
    EXPECT_FLOAT_EQ(metal.kr.x, 0.9f * 0.36f);  // m (1 - r)^2 x colour
    EXPECT_FLOAT_EQ(metal.kd, 0.64f);

    const Material& plastic = material_named(s, "plastic");
    EXPECT_FLOAT_EQ(plastic.roughness, 0.6f);
    EXPECT_TRUE(plastic.pbr);
    EXPECT_EQ(plastic.metallic, 0.0f);
    EXPECT_FLOAT_EQ(plastic.dielectric_f0, 0.04f);  // F0 of the core specification's ior 1.5
    EXPECT_EQ(plastic.glossy, glm::vec3(0.0f));
    EXPECT_EQ(plastic.kr, glm::vec3(0.0f));
    EXPECT_EQ(plastic.kd, 1.0f);

    const Material& gem = material_named(s, "gem");
    EXPECT_FALSE(gem.is_dielectric());  // an index without transmission: opaque
    EXPECT_NEAR(gem.dielectric_f0, (1.4 / 3.4) * (1.4 / 3.4), 1e-6);
    EXPECT_FLOAT_EQ(gem.metallic, 0.2f);
    EXPECT_EQ(gem.roughness, 0.0f);
    EXPECT_FLOAT_EQ(gem.kr.x, 0.2f * 0.9f);
    EXPECT_FLOAT_EQ(gem.kd, 0.8f);

    const Material& thin = material_named(s, "thin-glass");
    EXPECT_EQ(thin.ior, 1.5f);  // KHR_materials_ior's default
    EXPECT_EQ(thin.absorption, glm::vec3(0.0f));
    const Material& clear = material_named(s, "clear-volume");
    EXPECT_EQ(clear.ior, 1.5f);
    EXPECT_EQ(clear.absorption, glm::vec3(0.0f));  // no attenuationDistance: infinite

    const Material& lamp = material_named(s, "lamp");
    EXPECT_EQ(lamp.emission, glm::vec3(8.0f, 4.0f, 2.0f));  // emissiveFactor x emissiveStrength
    EXPECT_TRUE(lamp.emission_two_sided);                   // doubleSided
    EXPECT_FALSE(glass.emission_two_sided);
    EXPECT_EQ(glass.emission, glm::vec3(0.0f));
    EXPECT_FLOAT_EQ(lamp.dielectric_f0, 0.04f);
    EXPECT_EQ(lamp.roughness, 1.0f);

    // No lights in the file: a stand-in point light at each emissive primitive, as OBJ's
    // Ke gets, nudged towards the bounds centre (the origin), scaled to a peak of 1.
    ASSERT_EQ(s.lights.size(), 2u);
    EXPECT_FALSE(s.auto_light.has_value());
    for (const Light& l : s.lights) {
        EXPECT_TRUE(l.from_emission);
        EXPECT_EQ(l.type, LightType::Point);
        EXPECT_FLOAT_EQ(l.colour.x, 1.0f);
        EXPECT_FLOAT_EQ(l.colour.y, 0.5f);
        EXPECT_FLOAT_EQ(l.colour.z, 0.25f);
        EXPECT_NEAR(l.position.x, 0.0, 1e-3);
        EXPECT_NEAR(l.position.z, 0.25, 1e-2);  // the quad's area-weighted centroid
    }
    EXPECT_LT(s.lights[0].position.y, 3.0);
    EXPECT_GT(s.lights[0].position.y, 2.99);
    EXPECT_GT(s.lights[1].position.y, -3.0);
    EXPECT_LT(s.lights[1].position.y, -2.99);
    bool noted = false;
    for (const std::string& n : s.notes) noted = noted || n.find("2 point light(s) placed at emissive (emissiveFactor) surfaces, scaled by 1/8") != std::string::npos;
    EXPECT_TRUE(noted);

    // An extension we still do not render, required, refuses the file by name.
    json g = materials_gltf();
    g["extensionsRequired"].push_back("KHR_materials_sheen");
    write_text(dir / "sheen.gltf", g.dump());
    try {
        load_scene(dir / "sheen.gltf");
        ADD_FAILURE() << "loaded";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("/extensionsRequired/4: the file requires the extension 'KHR_materials_sheen', which stencilrt does not support"),
                  std::string::npos)
            << e.what();
    }
}

// A file with lights of its own keeps them alone: its emitters get no stand-ins.
TEST(Gltf, PunctualLightsWinOverEmitters) {
    TempDir dir;
    json g = quad_gltf(true);
    g["materials"][0]["emissiveFactor"] = {1, 1, 1};
    write_text(dir / "q.gltf", g.dump());
    const Scene s = load_scene(dir / "q.gltf");
    EXPECT_EQ(s.materials[s.triangles[0].material].emission, glm::vec3(1.0f));
    ASSERT_EQ(s.lights.size(), 2u);
    for (const Light& l : s.lights) EXPECT_FALSE(l.from_emission);
}

// An emissiveTexture multiplies emissiveFactor: the material keeps the factor, and the
// texture (colour, sRGB) is its emission texture.
TEST(Gltf, EmissiveTextureMultipliesTheFactor) {
    TempDir dir;
    json g = quad_gltf(true);
    g["materials"][0]["emissiveFactor"] = {1, 1, 1};
    g["materials"][0]["emissiveTexture"] = {{"index", 0}};
    g["textures"] = {{{"source", 0}}};
    g["images"] = {{{"uri", "grid.png"}}};
    std::filesystem::copy_file(texref::kTex + "grid.png", dir / "grid.png");
    write_text(dir / "q.gltf", g.dump());
    const Scene s = load_scene(dir / "q.gltf");
    const Material& m = s.materials[s.triangles[0].material];
    EXPECT_EQ(m.emission, glm::vec3(1.0f));
    ASSERT_NE(m.emission_texture, kNoTexture);
    EXPECT_FALSE(s.images[s.textures[size_t(m.emission_texture)].image].linear);  // colour: sRGB
    for (const std::string& n : s.notes) EXPECT_EQ(n.find("emissiveTexture"), std::string::npos) << n;
}

// What the Whitted model reads of a material does not depend on the extensions and
// terms it does not read (emission, a volume's attenuation): the lit quad renders the
// same bits with and without them. Transmission it reads: the quad turns to glass.
TEST(Gltf, PathTermsLeaveWhittedAlone) {
    TempDir dir;
    json plain = quad_gltf(true);
    json rich = plain;
    rich["extensionsUsed"].push_back("KHR_materials_emissive_strength");
    rich["extensionsUsed"].push_back("KHR_materials_volume");
    rich["materials"][0]["emissiveFactor"] = {0.5, 0.5, 0.5};
    rich["materials"][0]["doubleSided"] = true;
    rich["materials"][0]["extensions"] = {{"KHR_materials_emissive_strength", {{"emissiveStrength", 4}}},
                                          {"KHR_materials_volume", {{"attenuationColor", {0.5, 0.5, 0.5}}, {"attenuationDistance", 1}}}};
    json glass = rich;
    glass["extensionsUsed"].push_back("KHR_materials_ior");
    glass["extensionsUsed"].push_back("KHR_materials_transmission");
    glass["materials"][0]["extensions"]["KHR_materials_ior"] = {{"ior", 1.7}};
    glass["materials"][0]["extensions"]["KHR_materials_transmission"] = {{"transmissionFactor", 1}};
    write_text(dir / "plain.gltf", plain.dump());
    write_text(dir / "rich.gltf", rich.dump());
    write_text(dir / "glass.gltf", glass.dump());
    const Scene a = load_scene(dir / "plain.gltf"), b = load_scene(dir / "rich.gltf"), c = load_scene(dir / "glass.gltf");
    ASSERT_EQ(a.materials.size(), b.materials.size());
    for (size_t i = 0; i < a.materials.size(); ++i) {
        const Material &x = a.materials[i], &y = b.materials[i];
        EXPECT_EQ(x.colour, y.colour);
        EXPECT_EQ(x.kd, y.kd);
        EXPECT_EQ(x.kr, y.kr);
        EXPECT_EQ(x.ka, y.ka);
        EXPECT_EQ(x.texture, y.texture);
        EXPECT_EQ(x.alpha_mask, y.alpha_mask);
    }
    EXPECT_FALSE(b.materials[1].is_dielectric());
    EXPECT_TRUE(b.materials[1].emits());
    EXPECT_EQ(render_scene(a).rgba, render_scene(b).rgba);
    EXPECT_TRUE(c.materials[1].is_dielectric());
    EXPECT_NE(render_scene(a).rgba, render_scene(c).rgba);
}

// An emissive glTF written by a tool that is not ours: assimp turns the OBJ's Ke into
// emissiveFactor, and the lamp lights the scene as it does from the OBJ.
TEST(Gltf, AssimpsEmissiveGltfGetsTheObjsLight) {
    if (std::system("command -v assimp >/dev/null 2>&1") != 0) GTEST_SKIP() << "assimp (Debian assimp-utils) not installed";
    TempDir dir;
    write_text(dir / "lamp.obj",
               "mtllib lamp.mtl\nv -2 0 -2\nv 2 0 -2\nv 2 0 2\nv -2 0 2\nv -0.5 2 -0.5\nv 0.5 2 -0.5\nv 0.5 2 0.5\n"
               "v -0.5 2 0.5\nusemtl floor\nf 1 2 3\nf 1 3 4\nusemtl lamp\nf 5 8 7\nf 5 7 6\n");
    write_text(dir / "lamp.mtl", "newmtl floor\nKd 0.7 0.7 0.7\nillum 2\nnewmtl lamp\nKd 0.8 0.8 0.8\nKe 4 3 2\nillum 2\n");
    ASSERT_EQ(std::system(("assimp export '" + (dir / "lamp.obj") + "' '" + (dir / "lamp.gltf") + "' -f gltf2 >/dev/null 2>&1").c_str()), 0);
    const Scene g = load_scene(dir / "lamp.gltf");
    const Scene o = load_scene(dir / "lamp.obj");
    EXPECT_EQ(material_named(g, "lamp").emission, glm::vec3(4.0f, 3.0f, 2.0f));
    ASSERT_EQ(o.lights.size(), 1u);
    ASSERT_EQ(g.lights.size(), 1u);
    EXPECT_TRUE(g.lights[0].from_emission);
    EXPECT_EQ(g.lights[0].colour, o.lights[0].colour);
    EXPECT_NEAR(g.lights[0].position.x, o.lights[0].position.x, 1e-5);
    EXPECT_NEAR(g.lights[0].position.y, o.lights[0].position.y, 1e-5);
    EXPECT_NEAR(g.lights[0].position.z, o.lights[0].position.z, 1e-5);
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
