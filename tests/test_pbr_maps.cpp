// Maps of metallic and roughness (glTF's metallicRoughnessTexture, MTL's map_Pm and
// map_Pr, JSON's metallic_texture and roughness_texture): data textures read as values,
// not sRGB colour, their mip chains averaged as values, and each channel multiplying its
// factor in the path integrator's BSDF, checked bit for bit against the same surface with
// the factor alone where the map reads exactly 0 or 1.
#include "accel/texture.h"
#include "core/error.h"
#include "render/executor.h"
#include "render/mip_chain.h"
#include "render/path_vertex.h"
#include "render/scene_gpu.h"
#include "scene/load.h"
#include "scene/texture_file.h"
#include "support/texture_reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

using namespace srt;

namespace {

// orm.png: 8x2 texels, red 128 everywhere, green 255, blue 0 in columns 0-3 and 255 in
// columns 4-7 (tools/assets/gen_textures.py).
const std::string kOrm = texref::kTex + "orm.png";

// A texel centre of a one-image scene's texture, sampled as the kernels do.
glm::vec3 texel_centre(TextureUse use, int x, int y) {
    Scene scene;
    Material m;
    m.texture = texture_from_file(scene, kOrm, use, Wrap::Clamp, Wrap::Clamp, "", 0);
    scene.add_material(m);
    scene.spheres.push_back(Sphere{});
    const CompiledScene cs = compile_scene(scene);
    const SceneView v = cs.view();
    return sample_colour(v.textures, v.texels, v.srgb_lut, 0, glm::vec2((x + 0.5f) / 8.0f, (y + 0.5f) / 2.0f));
}

// One path sample of pixel (x, y) of a 32x32 frame, depth 4.
glm::vec3 path_sample(const CompiledScene& cs, int x, int y, uint32_t s) {
    const CameraGpu cam = make_camera(cs.camera, 32, 32, cs.render_origin);
    return reference_path_sample(cs, cam, 32, 32, x, y, s, 4, 0u);
}

// The quad of orm-quad.* seen head-on, filling a square frame: pixel column x sees
// u = (x + 0.5) / 32, so columns 0-12 read only the map's left texels (u * 8 - 0.5 < 3)
// and columns 19-31 only its right ones (>= 4), bilinear filtering and all.
Scene head_on(const std::string& file) {
    Scene s = load_scene(texref::kTex + file);
    s.camera.from = Point3(0.0, 0.0, 1.0);
    s.camera.at = Point3(0.0);
    s.camera.up = glm::vec3(0.0f, 1.0f, 0.0f);
    s.camera.fov_deg = 90.0f;
    place_auto_light(s);
    return s;
}

// The scene with its material's maps taken away and `metallic` given instead: what the
// mapped surface is where its map reads metallic 0 or 1 and roughness 1 (the textures
// stay, so that both run the same kernel variant).
Scene unmapped(Scene s, float metallic) {
    for (Material& m : s.materials) {
        if (!m.has_maps()) continue;
        m.metallic_texture = m.roughness_texture = kNoTexture;
        m.metallic = metallic;
    }
    return s;
}

// Every sample of the left columns equals the plastic's, of the right columns the metal's,
// bit for bit; and the two differ, so the check can fail.
void expect_regions(const std::string& file) {
    const Scene mapped = head_on(file);
    ASSERT_EQ(mapped.materials.size(), 2u) << file;  // the default material and the quad's
    ASSERT_TRUE(mapped.materials[1].has_maps()) << file;
    ASSERT_TRUE(mapped.materials[1].pbr) << file;
    const CompiledScene a = compile_scene(mapped), plastic = compile_scene(unmapped(mapped, 0.0f)),
                        metal = compile_scene(unmapped(mapped, 1.0f));
    int differ = 0;
    for (int y = 2; y < 30; y += 3)
        for (int x : {1, 6, 12, 19, 25, 30})
            for (uint32_t s = 0; s < 4; ++s) {
                const glm::vec3 got = path_sample(a, x, y, s);
                const glm::vec3 want = path_sample(x < 16 ? plastic : metal, x, y, s);
                const glm::vec3 other = path_sample(x < 16 ? metal : plastic, x, y, s);
                ASSERT_EQ(got, want) << file << " pixel (" << x << ", " << y << ") sample " << s;
                differ += got != other;
            }
    EXPECT_GT(differ, 100) << file << ": the metal and the plastic should not look alike";
}

}  // namespace

TEST(PbrMaps, DataTexturesReadBytesNotSrgb) {
    // Red 128: the data texture's value is 128 / 255, the colour texture's sRGB-decoded.
    EXPECT_EQ(texel_centre(TextureUse::Data, 1, 0).x, 128.0f / 255.0f);
    EXPECT_EQ(texel_centre(TextureUse::Colour, 1, 0).x, float(texref::srgb_to_linear(128)));
    EXPECT_NE(texel_centre(TextureUse::Data, 1, 0).x, texel_centre(TextureUse::Colour, 1, 0).x);
    EXPECT_EQ(texel_centre(TextureUse::Data, 6, 1), glm::vec3(128.0f / 255.0f, 1.0f, 1.0f));
    EXPECT_EQ(texel_centre(TextureUse::Data, 2, 1), glm::vec3(128.0f / 255.0f, 1.0f, 0.0f));
}

TEST(PbrMaps, DataMipChainsAverageValues) {
    TextureImage img;
    img.width = 2;
    img.height = 1;
    img.texels = {0xff000000u, 0xff0000ffu};  // red 0 and 255
    img.linear = true;
    std::vector<MipLevel> chain = build_mip_chain(img);
    ASSERT_EQ(chain.size(), 1u);
    EXPECT_EQ(chain[0].texels[0] & 255u, 128u);  // 127.5, rounded
    img.linear = false;
    chain = build_mip_chain(img);
    EXPECT_EQ(chain[0].texels[0] & 255u, 188u);  // sRGB's encoding of linear 0.5
}

TEST(PbrMaps, FileAndDataImagesAreKeptApart) {
    Scene scene;
    const int32_t c = texture_from_file(scene, kOrm, TextureUse::Colour, Wrap::Repeat, Wrap::Repeat, "", 0);
    const int32_t d = texture_from_file(scene, kOrm, TextureUse::Data, Wrap::Repeat, Wrap::Repeat, "", 0);
    const int32_t d2 = texture_from_file(scene, kOrm, TextureUse::Data, Wrap::Repeat, Wrap::Repeat, "", 0);
    ASSERT_EQ(scene.images.size(), 2u);
    EXPECT_NE(c, d);
    EXPECT_EQ(d, d2);
    EXPECT_FALSE(scene.images[scene.textures[size_t(c)].image].linear);
    EXPECT_TRUE(scene.images[scene.textures[size_t(d)].image].linear);
}

TEST(PbrMaps, GltfMetallicRoughnessTextureBlueMetalGreenRoughness) { expect_regions("orm-quad.gltf"); }

TEST(PbrMaps, MtlMapPmAndMapPrByTheirChannels) { expect_regions("orm-quad.obj"); }

TEST(PbrMaps, LoadersReadTheChannelsAndWhittedTheMeans) {
    for (const char* file : {"orm-quad.gltf", "orm-quad.obj"}) {
        const Scene s = load_scene(texref::kTex + file);
        ASSERT_EQ(s.materials.size(), 2u) << file;
        const Material& m = s.materials[1];
        EXPECT_EQ(m.metallic_channel, 2) << file;
        EXPECT_EQ(m.roughness_channel, 1) << file;
        EXPECT_EQ(m.metallic, 1.0f) << file;
        EXPECT_EQ(m.roughness, 0.5f) << file;
        // Whitted's mirror: metallic's mean (blue: half 0, half 1) times (1 - roughness)^2
        // (green: 1 everywhere, times 0.5).
        EXPECT_FLOAT_EQ(m.kr.x, 0.5f * 0.25f * m.colour.x) << file;
        EXPECT_FLOAT_EQ(m.kd, 1.0f - 0.125f) << file;
    }
}

// A map that reads 1 everywhere is its factor alone, in every kernel.
TEST(PbrMaps, JsonMapsOfOneAreTheFactors) {
    const std::string dir = ::testing::TempDir() + "pbr_maps_json";
    std::filesystem::create_directories(dir);
    const auto write = [&](const std::string& name, const std::string& material) {
        std::ofstream(dir + "/" + name) << R"({"camera": {"from": [0, 0, 1], "at": [0, 0, 0], "fov": 90},
            "materials": {"m": )" << material << R"(},
            "lights": [{"type": "point", "position": [0.3, 0.5, 2], "colour": [4, 4, 4]}],
            "objects": [{"type": "sphere", "centre": [0, 0, -0.5], "radius": 0.8, "material": "m"}]})";
    };
    const std::string orm = texref::kTex + "orm.png";
    write("mapped.json", R"({"colour": [0.9, 0.6, 0.3], "metallic": 0.7, "roughness": 0.4,
        "metallic_texture": {"file": ")" + orm + R"(", "channel": "g"},
        "roughness_texture": {"file": ")" + orm + R"(", "channel": "g"}})");
    write("plain.json", R"({"colour": [0.9, 0.6, 0.3], "metallic": 0.7, "roughness": 0.4,
        "texture": ")" + orm + R"("})");
    Scene mapped = load_scene(dir + "/mapped.json"), plain = load_scene(dir + "/plain.json");
    ASSERT_TRUE(mapped.materials.back().has_maps());
    // The plain one's colour texture is taken away again: it is there to make both scenes
    // textured (the same kernel variant).
    plain.materials.back().texture = kNoTexture;
    const CompiledScene a = compile_scene(mapped), b = compile_scene(plain);
    for (int y = 1; y < 32; y += 5)
        for (int x = 1; x < 32; x += 5)
            for (uint32_t s = 0; s < 2; ++s)
                ASSERT_EQ(path_sample(a, x, y, s), path_sample(b, x, y, s)) << "pixel (" << x << ", " << y << ")";
}

TEST(PbrMaps, ValidateRefusesMapsOutOfRange) {
    Scene s = load_scene(texref::kTex + "orm-quad.gltf");
    EXPECT_NO_THROW(validate(s));
    Scene far = s;
    far.materials[1].roughness_texture = int32_t(far.textures.size());
    EXPECT_THROW(validate(far), InputError);
    Scene alpha = s;
    alpha.materials[1].metallic_channel = 3;
    EXPECT_THROW(validate(alpha), InputError);
}
