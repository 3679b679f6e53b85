// Textures, the parts: decoding against the files PIL wrote (tools/assets/
// gen_textures.py), and sampling (accel/texture.h) against the reference in double
// (support/texture_reference.h). Whole textured and masked scenes:
// test_textured_scenes.cpp.
#include "accel/texture.h"
#include "core/error.h"
#include "core/image.h"
#include "core/image_decode.h"
#include "render/executor.h"
#include "render/scene_gpu.h"
#include "scene/load.h"
#include "scene/texture_file.h"
#include "support/oracle.h"
#include "support/texture_reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using namespace srt;
using namespace srt::texref;

namespace {

std::vector<unsigned char> file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<unsigned char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}


// A texture's GPU-side arrays for one image, as compile_scene makes them.
struct OneTexture {
    Scene scene;
    CompiledScene cs;
    explicit OneTexture(const std::string& file, Wrap wu = Wrap::Repeat, Wrap wv = Wrap::Repeat,
                        TextureUse use = TextureUse::Colour) {
        Material m;
        m.texture = texture_from_file(scene, file, use, wu, wv, "", 0);
        scene.add_material(m);
        scene.spheres.push_back(Sphere{});
        cs = compile_scene(scene);
    }
    const TextureImage& image() const { return scene.images.at(0); }
};

// A camera one unit in front of the 2x2 quad at z = 0 with a 90 degree field: the quad
// fills a square image exactly, pixel (x, y) sees texture coordinates ((x + 0.5) / W,
// (y + 0.5) / H) (v down). Lit head-on by a white directional light, kd = 1: each pixel

}  // namespace

// ---------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------

// grid.png as PIL wrote it: 16 known colours, row 0 at the top.
TEST(TextureDecode, PngTexelsInFileOrder) {
    const DecodedImage d = decode_image_file(kTex + "grid.png");
    ASSERT_EQ(d.width, 4);
    ASSERT_EQ(d.height, 4);
    EXPECT_EQ(d.channels, 3);
    EXPECT_EQ(d.rgba[0], 0xff0000ffu);   // red, opaque
    EXPECT_EQ(d.rgba[1], 0xff00ff00u);   // green
    EXPECT_EQ(d.rgba[7], 0xff000000u);   // black, end of row 1
    EXPECT_EQ(d.rgba[12], 0xff3264c8u);  // (200, 100, 50), row 3
}

// grid.jpg is grid.png scaled by 16 (nearest) and JPEG-coded at quality 95: the centre
// of each 16x16 block is that texel's colour within JPEG's error.
TEST(TextureDecode, JpegMatchesItsSource) {
    const DecodedImage png = decode_image_file(kTex + "grid.png");
    const DecodedImage jpg = decode_image_file(kTex + "grid.jpg");
    ASSERT_EQ(jpg.width, 64);
    ASSERT_EQ(jpg.height, 64);
    for (int ty = 0; ty < 4; ++ty)
        for (int tx = 0; tx < 4; ++tx) {
            const uint32_t a = png.rgba[size_t(ty * 4 + tx)], b = jpg.rgba[size_t((ty * 16 + 8) * 64 + tx * 16 + 8)];
            for (int c = 0; c < 3; ++c)
                EXPECT_NEAR(int((a >> (8 * c)) & 255), int((b >> (8 * c)) & 255), 24) << tx << "," << ty << " channel " << c;
            EXPECT_EQ(b >> 24, 255u);
        }
}

// Every prefix of a PNG and a JPEG, and every single-byte corruption of a PNG's first
// 200 bytes, either decodes or fails with an InputError naming the image: never a
// crash, never an allocation beyond the file's limit (ASan in CI watches both).
TEST(TextureDecode, TruncatedAndCorruptFilesFailCleanly) {
    for (const char* f : {"assets/textures/tiles.png", "assets/textures/marble.jpg"}) {
        const std::vector<unsigned char> b = file_bytes(std::string(SRT_SOURCE_DIR) + "/" + f);
        ASSERT_GT(b.size(), 1000u);
        int failed = 0;
        for (size_t n = 0; n < b.size(); n += std::max<size_t>(1, b.size() / 300)) {
            try {
                decode_image(b.data(), n, "cut.img");
            } catch (const InputError& e) {
                ++failed;
                EXPECT_EQ(std::string(e.what()).rfind("cut.img: ", 0), 0u) << e.what();
            }
        }
        std::printf("[textures] %s: %d of the prefixes refused\n", f, failed);
        EXPECT_GT(failed, 250) << f;
    }
    std::vector<unsigned char> b = file_bytes(std::string(SRT_SOURCE_DIR) + "/assets/textures/tiles.png");
    std::mt19937 rng(5);
    for (size_t i = 0; i < 200; ++i) {
        std::vector<unsigned char> c = b;
        c[i] ^= uint8_t(1u + rng() % 255u);
        try {
            decode_image(c.data(), c.size(), "flip.png");
        } catch (const InputError&) {
        }
    }
}

// A header claiming more texels than its file can hold is refused from the header.
TEST(TextureDecode, ClaimBeyondTheFileIsRefusedBeforeAllocating) {
    const std::vector<unsigned char> b = file_bytes(std::string(SRT_TEST_DATA) + "/bad/tex_huge_claim.png");
    try {
        decode_image(b.data(), b.size(), "huge.png");
        FAIL() << "decoded";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("huge.png: the header claims 16384 x 16384 texels"), std::string::npos) << e.what();
    }
    const unsigned char junk[] = {'B', 'M', 0, 0};
    EXPECT_THROW(decode_image(junk, sizeof junk, "j.bmp"), InputError);
    EXPECT_THROW(decode_image(junk, 0, "empty.png"), InputError);
}

// A mask of a file without alpha is its grey level; with alpha, the alpha channel, and
// then one image serves both uses.
TEST(TextureDecode, MaskChannels) {
    Scene s;
    const int32_t m = texture_from_file(s, kTex + "mask.png", TextureUse::Mask, Wrap::Repeat, Wrap::Repeat, "", 0);
    ASSERT_GE(m, 0);
    const TextureImage& img = s.images[s.textures[size_t(m)].image];
    EXPECT_EQ(img.texels[0] >> 24, 255u);
    EXPECT_EQ(img.texels[1] >> 24, 0u);
    Scene t;
    const int32_t c = texture_from_file(t, kTex + "grid-alpha.png", TextureUse::Colour, Wrap::Repeat, Wrap::Repeat, "", 0);
    const int32_t a = texture_from_file(t, kTex + "grid-alpha.png", TextureUse::Mask, Wrap::Repeat, Wrap::Repeat, "", 0);
    EXPECT_EQ(c, a);
    EXPECT_EQ(t.images.size(), 1u);
    // A missing file is a note, not an error: the material keeps its colour.
    Scene u;
    EXPECT_EQ(texture_from_file(u, kTex + "no-such.png", TextureUse::Colour, Wrap::Repeat, Wrap::Repeat, "x.mtl", 3),
              kNoTexture);
    EXPECT_EQ(texture_from_file(u, kTex + "no-such.png", TextureUse::Colour, Wrap::Repeat, Wrap::Repeat, "x.mtl", 9),
              kNoTexture);
    ASSERT_EQ(u.notes.size(), 1u);  // once per file
    EXPECT_NE(u.notes[0].find("x.mtl:3: texture '"), std::string::npos) << u.notes[0];
}

// ---------------------------------------------------------------------------
// Sampling (accel/texture.h) against the reference
// ---------------------------------------------------------------------------

// Random coordinates over [-3, 3]^2 (and huge and non-finite ones), every wrap mode pair,
// on grid.png: the sampled colour and alpha within float rounding of the reference.
TEST(TextureSample, BilinearInLinearLightWithWrapModes) {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uni(-3.0f, 3.0f);
    const Wrap modes[] = {Wrap::Repeat, Wrap::MirroredRepeat, Wrap::Clamp};
    for (Wrap wu : modes)
        for (Wrap wv : modes) {
            OneTexture t(kTex + "grid.png", wu, wv);
            const SceneView v = t.cs.view();
            double worst = 0;
            for (int i = 0; i < 4000; ++i) {
                const glm::vec2 uv(uni(rng), uni(rng));
                const glm::vec3 c = sample_colour(v.textures, v.texels, v.srgb_lut, 0, uv);
                const RefSample r = sample_ref(t.image(), wu, wv, uv.x, uv.y);
                for (int k = 0; k < 3; ++k) worst = std::max(worst, std::fabs(double(c[k]) - r.rgb[k]));
                worst = std::max(worst, std::fabs(double(sample_alpha(v.textures, v.texels, 0, uv)) - r.alpha));
            }
            EXPECT_LT(worst, 2e-6) << int(wu) << " " << int(wv);
            for (float bad : {1e30f, -1e30f, INFINITY, NAN}) {
                const glm::vec3 c = sample_colour(v.textures, v.texels, v.srgb_lut, 0, glm::vec2(bad, bad));
                EXPECT_TRUE(std::isfinite(c.x) && std::isfinite(c.y) && std::isfinite(c.z));
            }
        }
}

// Halfway between a black and a white texel the filter gives linear 0.5 (sRGB 188), not
// the sRGB midpoint 128: the blend is in linear light.
TEST(TextureSample, FiltersInLinearLight) {
    OneTexture t(kTex + "bw.png", Wrap::Clamp, Wrap::Clamp);
    const SceneView v = t.cs.view();
    EXPECT_EQ(sample_colour(v.textures, v.texels, v.srgb_lut, 0, glm::vec2(0.5f, 0.5f)).x, 0.5f);
    EXPECT_EQ(sample_colour(v.textures, v.texels, v.srgb_lut, 0, glm::vec2(0.25f, 0.5f)).x, 0.0f);  // a texel centre
    EXPECT_EQ(sample_colour(v.textures, v.texels, v.srgb_lut, 0, glm::vec2(0.75f, 0.5f)).x, 1.0f);
    EXPECT_EQ(sample_colour(v.textures, v.texels, v.srgb_lut, 0, glm::vec2(-5.0f, 0.5f)).x, 0.0f);  // clamp
}

TEST(TextureSample, SphereCoordinates) {
    const glm::vec2 top = sphere_uv(glm::vec3(0, 1, 0)), bottom = sphere_uv(glm::vec3(0, -1, 0));
    EXPECT_NEAR(top.y, 0.0f, 1e-6f);
    EXPECT_NEAR(bottom.y, 1.0f, 1e-6f);
    EXPECT_NEAR(sphere_uv(glm::vec3(0, 0, 1)).x, 0.5f, 1e-6f);
    EXPECT_NEAR(sphere_uv(glm::vec3(1, 0, 0)).x, 0.75f, 1e-6f);
    EXPECT_NEAR(sphere_uv(glm::vec3(-1, 0, 0)).x, 0.25f, 1e-6f);
    EXPECT_NEAR(sphere_uv(glm::vec3(0, 0, 1)).y, 0.5f, 1e-6f);
    // The portable atan2 against libm's over the circle.
    for (int i = 0; i < 3600; ++i) {
        const double a = i * 2.0 * M_PI / 3600.0;
        const float y = float(std::sin(a)), x = float(std::cos(a));
        EXPECT_NEAR(atan2_portable(y, x), std::atan2(y, x), 2e-5) << i;
    }
}

