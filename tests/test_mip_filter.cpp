// Texture filtering from far off: the mip chain (render/mip_chain.h) against a box
// filter written from its definition, the portable log2, trilinear sampling against the
// reference's bilinear samples of two levels, and whole frames whose every pixel's level
// is computed in double from the geometry (the ray cone of accel/texture.h and
// render/stages.h), through a flat mirror too, and at other scales.
#include "accel/texture.h"
#include "render/executor.h"
#include "render/mip_chain.h"
#include "render/scene_gpu.h"
#include "render/stages.h"
#include "support/oracle.h"
#include "support/texture_reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace srt;
using namespace srt::texref;

namespace {

// Random texels, so that any level or weight gone wrong shows.
TextureImage noise_image(int w, int h, uint32_t seed) {
    TextureImage img;
    img.name = "noise";
    img.width = w;
    img.height = h;
    std::mt19937 rng(seed);
    img.texels.resize(size_t(w) * size_t(h));
    for (uint32_t& t : img.texels) t = rng();
    return img;
}

TextureImage as_image(const MipLevel& l) {
    TextureImage img;
    img.width = int(l.width);
    img.height = int(l.height);
    img.texels = l.texels;
    return img;
}

int byte_of(uint32_t t, int c) { return int((t >> (8 * c)) & 255u); }

// The box filter from its definition: texel (x, y) of a w x h level made from a level of
// W x H averages, in linear light, that level over the rectangle [x W/w, (x+1) W/w) x
// [y H/h, (y+1) H/h), each texel weighted by the area of it inside.
std::vector<std::array<double, 4>> box_ref(const std::vector<std::array<double, 4>>& in, int W, int H, int w, int h) {
    std::vector<std::array<double, 4>> out(size_t(w) * size_t(h));
    const double sx = double(W) / w, sy = double(H) / h;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            std::array<double, 4> sum{};
            for (int j = 0; j < H; ++j)
                for (int i = 0; i < W; ++i) {
                    const double ox = std::min((x + 1) * sx, i + 1.0) - std::max(x * sx, double(i));
                    const double oy = std::min((y + 1) * sy, j + 1.0) - std::max(y * sy, double(j));
                    if (ox <= 0 || oy <= 0) continue;
                    for (int c = 0; c < 4; ++c) sum[size_t(c)] += ox * oy * in[size_t(j) * size_t(W) + size_t(i)][size_t(c)];
                }
            for (double& c : sum) c /= sx * sy;
            out[size_t(y) * size_t(w) + size_t(x)] = sum;
        }
    return out;
}

// A perfect mirror: no diffuse or ambient light of its own.
Material mirror_material() {
    Material m;
    m.kd = 0.0f;
    m.ka = 0.0f;
    m.kr = glm::vec3(1.0f);
    return m;
}

// A square quad of half-size `half` at z = `z`, facing +z, with u from left to right and
// v from top to bottom over it, textured by `img`; lit by ambient light alone (ka = 1,
// kd = 0), so a pixel is the texture's colour.
void add_textured_quad(Scene& s, const TextureImage& img, double half, double z, double scale = 1.0,
                       Point3 offset = Point3(0.0)) {
    s.images.push_back(img);
    s.textures.push_back(Texture{uint32_t(s.images.size() - 1), Wrap::Repeat, Wrap::Repeat});
    Material m;
    m.colour = glm::vec3(1.0f);
    m.kd = 0.0f;
    m.ka = 1.0f;
    m.texture = int32_t(s.textures.size() - 1);
    const uint32_t mat = s.add_material(m);
    const Point3 p[4] = {{-half, -half, z}, {half, -half, z}, {half, half, z}, {-half, half, z}};
    const glm::vec2 uv[4] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    static const int kTris[2][3] = {{0, 1, 2}, {0, 2, 3}};
    for (const auto& t : kTris) {
        Triangle tri;
        tri.v0 = p[t[0]] * scale + offset, tri.v1 = p[t[1]] * scale + offset, tri.v2 = p[t[2]] * scale + offset;
        tri.uv0 = uv[t[0]], tri.uv1 = uv[t[1]], tri.uv2 = uv[t[2]];
        tri.has_uv = true;
        tri.material = mat;
        s.triangles.push_back(tri);
    }
    s.ambient = glm::vec3(1.0f);
    s.background = glm::vec3(0.0f);
    s.lights.clear();
    s.texture_filter = TextureFilter::Trilinear;
}

}  // namespace

// Each level's size halves, rounded down, to 1x1; power-of-two sizes nest exactly, odd
// ones split the texel on the boundary: both against the definition, to one 8-bit step.
TEST(MipChain, LevelsAreTheBoxAverageInLinearLight) {
    EXPECT_EQ(build_mip_chain(noise_image(1, 1, 1)).size(), 0u);
    EXPECT_EQ(build_mip_chain(noise_image(256, 256, 1)).size(), 8u);
    EXPECT_EQ(build_mip_chain(noise_image(5, 3, 1)).size(), 2u);  // 2x1, 1x1
    EXPECT_EQ(build_mip_chain(noise_image(1, 9, 1)).size(), 3u);  // 1x4, 1x2, 1x1
    for (const auto& [w, h] : {std::pair{16, 8}, std::pair{5, 3}, std::pair{7, 13}, std::pair{1, 9}}) {
        const TextureImage img = noise_image(w, h, uint32_t(w * 31 + h));
        const std::vector<MipLevel> chain = build_mip_chain(img);
        std::vector<std::array<double, 4>> cur(img.texels.size());
        for (size_t i = 0; i < cur.size(); ++i) {
            for (int c = 0; c < 3; ++c) cur[i][size_t(c)] = srgb_to_linear(byte_of(img.texels[i], c));
            cur[i][3] = byte_of(img.texels[i], 3) / 255.0;
        }
        int W = w, H = h, worst = 0;
        for (const MipLevel& l : chain) {
            const int nw = std::max(1, W / 2), nh = std::max(1, H / 2);
            ASSERT_EQ(int(l.width), nw);
            ASSERT_EQ(int(l.height), nh);
            cur = box_ref(cur, W, H, nw, nh);
            for (size_t i = 0; i < cur.size(); ++i) {
                for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(byte_of(l.texels[i], c) - srgb8_ref(cur[i][size_t(c)])));
                worst = std::max(worst, std::abs(byte_of(l.texels[i], 3) - int(std::lround(cur[i][3] * 255.0))));
            }
            W = nw, H = nh;
        }
        EXPECT_LE(worst, 1) << w << "x" << h;
    }
    // A power-of-two level is the plain average of its 2^k x 2^k block of the image.
    const TextureImage img = noise_image(8, 8, 7);
    const std::vector<MipLevel> chain = build_mip_chain(img);
    double sum = 0;
    for (uint32_t t : img.texels) sum += srgb_to_linear(byte_of(t, 1));
    EXPECT_NEAR(byte_of(chain.back().texels[0], 1), srgb8_ref(sum / 64), 1.0);
}

TEST(MipChain, PortableLog2) {
    double worst = 0;
    for (float x = 1e-30f; x < 1e30f; x *= 1.0137f) worst = std::max(worst, std::fabs(double(log2_portable(x)) - std::log2(double(x))));
    EXPECT_LT(worst, 1e-5);  // the polynomial within 5e-6, then the sum rounds to float
    EXPECT_EQ(log2_portable(1.0f), 0.0f);
    EXPECT_EQ(log2_portable(8.0f), 3.0f);
    EXPECT_EQ(log2_portable(0.0f), -128.0f);
    EXPECT_EQ(log2_portable(-1.0f), -128.0f);
    EXPECT_EQ(log2_portable(std::nanf("")), -128.0f);
    EXPECT_EQ(log2_portable(INFINITY), 128.0f);
}

// Between two levels, the blend of their bilinear samples; at or below level 0 exactly
// the bilinear sample (no second level read); beyond the last, the last.
TEST(MipChain, TrilinearBlendsTwoLevels) {
    Scene s;
    add_textured_quad(s, noise_image(64, 32, 3), 1.0, 0.0);
    Scene plain = s;
    plain.texture_filter = TextureFilter::Bilinear;
    EXPECT_EQ(compile_scene(plain).textures.size(), 1u);  // no mip chain: level 0 alone
    const CompiledScene cs = compile_scene(s);
    const SceneView v = cs.view();
    ASSERT_EQ(cs.textures.size(), 7u);  // 64x32 .. 1x1
    const uint32_t tex = float_bits(cs.materials[s.triangles[0].material].tex.x);
    std::vector<TextureImage> levels{s.images[0]};
    for (const MipLevel& l : build_mip_chain(s.images[0])) levels.push_back(as_image(l));
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> uvd(-1.0f, 2.0f), lodd(-1.0f, 7.0f);
    double worst = 0;
    for (int k = 0; k < 2000; ++k) {
        const glm::vec2 uv(uvd(rng), uvd(rng));
        const float lod = lodd(rng);
        const glm::vec3 c = sample_colour_lod(v.textures, v.texels, v.srgb_lut, tex, uv, lod);
        if (lod <= 0.0f) {
            const glm::vec3 b = sample_colour(v.textures, v.texels, v.srgb_lut, tex, uv);
            ASSERT_TRUE(c == b) << lod;
            continue;
        }
        const double l = std::min(double(lod), 6.0);
        const int l0 = std::min(int(std::floor(l)), 5);
        const double f = l - l0;
        const RefSample a = sample_ref(levels[size_t(l0)], Wrap::Repeat, Wrap::Repeat, uv.x, uv.y);
        const RefSample b = sample_ref(levels[size_t(l0 + 1)], Wrap::Repeat, Wrap::Repeat, uv.x, uv.y);
        for (int ch = 0; ch < 3; ++ch) worst = std::max(worst, std::fabs(c[ch] - ((1 - f) * a.rgb[ch] + f * b.rgb[ch])));
    }
    EXPECT_LT(worst, 1e-5);
}

// A 256x256 texture on a quad filling a 64x64 image head-on, 4 texels a pixel at the
// centre. Pixel (x, y)'s ray meets the quad at t = |(sx, sy, -1)| (sx, sy: its position
// on the image plane), where the cone, spreading by 2 / 64 from the camera, is
// (2 / 64) t wide, and slanted by 1 / cos = t: 4 t^2 texels, level 2 + log2(t^2). Every
// pixel against the reference's trilinear sample there, in double.
TEST(MipFrame, EveryPixelAtItsLevel) {
    Scene s;
    add_textured_quad(s, noise_image(256, 256, 11), 1.0, 0.0);
    s.camera = Camera{{0.0f, 0.0f, 1.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, 90.0f};
    std::vector<TextureImage> levels{s.images[0]};
    for (const MipLevel& l : build_mip_chain(s.images[0])) levels.push_back(as_image(l));
    constexpr int W = 64;
    const Image out = render_cpu(s, frame_settings(W, W));
    int worst = 0;
    double lod_min = 99, lod_max = 0;
    for (int y = 0; y < W; ++y)
        for (int x = 0; x < W; ++x) {
            const double sx = (x + 0.5) * 2.0 / W - 1.0, sy = 1.0 - (y + 0.5) * 2.0 / W;
            const double lod = 2.0 + std::log2(sx * sx + sy * sy + 1.0);
            lod_min = std::min(lod_min, lod), lod_max = std::max(lod_max, lod);
            const int l0 = int(std::floor(lod));
            const double f = lod - l0, u = (sx + 1) / 2, v = (1 - sy) / 2;
            const RefSample a = sample_ref(levels[size_t(l0)], Wrap::Repeat, Wrap::Repeat, u, v);
            const RefSample b = sample_ref(levels[size_t(l0 + 1)], Wrap::Repeat, Wrap::Repeat, u, v);
            for (int c = 0; c < 3; ++c) {
                const int want = srgb8_ref((1 - f) * a.rgb[c] + f * b.rgb[c]);
                worst = std::max(worst, std::abs(int(out.pixel(x, y)[c]) - want));
            }
        }
    std::printf("[mips] levels %.3f .. %.3f over the frame; worst difference to the reference %d/255\n", lod_min, lod_max,
                worst);
    EXPECT_LE(worst, 1);
    // ... and the level matters: the full image alone gives another picture.
    s.texture_filter = TextureFilter::Bilinear;
    const Image sharp = render_cpu(s, frame_settings(W, W));
    int far = 0;
    for (size_t i = 0; i < out.rgba.size(); ++i) far += std::abs(int(out.rgba[i] & 255u) - int(sharp.rgba[i] & 255u)) > 8;
    EXPECT_GT(far, W * W / 4);
}

// A flat mirror passes the cone on as wide as it arrived: the quad seen in a mirror 1.5
// ahead of the camera, 3 behind it, is the same picture as the quad 4.5 ahead. Moved
// and scaled, the frames stay the same, up to float rounding (one 8-bit step).
TEST(MipFrame, ConeCrossesAFlatMirrorAndScalesWithTheScene) {
    const TextureImage img = noise_image(256, 256, 13);
    constexpr int W = 64;
    const auto direct = [&](double scale, Point3 offset) {
        Scene s;
        add_textured_quad(s, img, 4.5, -3.5, scale, offset);
        const glm::vec3 from = glm::vec3(Point3(0, 0, 1) * scale + offset), at = glm::vec3(offset);
        s.camera = Camera{from, at, {0.0f, 1.0f, 0.0f}, 90.0f};
        return render_cpu(s, frame_settings(W, W, 2));
    };
    Scene m;
    add_textured_quad(m, img, 4.5, 2.5);
    Plane pl;
    pl.point = Point3(0, 0, -0.5);
    pl.normal = {0.0f, 0.0f, 1.0f};
    pl.material = m.add_material(mirror_material());
    m.planes.push_back(pl);
    m.camera = Camera{{0.0f, 0.0f, 1.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, 90.0f};
    const Image seen = render_cpu(m, frame_settings(W, W, 2));
    const Image ref = direct(1.0, Point3(0.0));
    const auto worst = [](const Image& a, const Image& b) {
        int d = 0;
        for (size_t i = 0; i < a.rgba.size(); ++i)
            for (int c = 0; c < 3; ++c) d = std::max(d, std::abs(byte_of(a.rgba[i], c) - byte_of(b.rgba[i], c)));
        return d;
    };
    EXPECT_LE(worst(seen, ref), 1) << "through the mirror";
    EXPECT_LE(worst(direct(1e-3, Point3(0.0)), ref), 1) << "scaled by 1e-3";
    EXPECT_LE(worst(direct(1e3, Point3(0.0)), ref), 1) << "scaled by 1e3";
    EXPECT_LE(worst(direct(1.0, Point3(1e4, -2e3, 5e3)), ref), 1) << "moved by (1e4, -2e3, 5e3)";
}

// A convex mirror spreads the cone. A 64x64 texture 34 units down the path: a cone
// spreading by the camera's pixel angle alone would be 0.6 texels wide there, level 0,
// the bilinear sample; reflected off a ball of radius 1 from 6 away, it spreads about
// eleven times faster, some 2.5 levels up: the picture in the ball is smoother than the
// bilinear one. The renderer and the recursive reference agree on it bit for bit.
TEST(MipFrame, ConvexMirrorSpreadsTheCone) {
    Scene s;
    add_textured_quad(s, noise_image(64, 64, 17), 20.0, -30.0);
    Sphere ball;
    ball.centre = Point3(0, 0, -2);
    ball.radius = 1.0;
    ball.material = s.add_material(mirror_material());
    s.spheres.push_back(ball);
    s.camera = Camera{{0.0f, 0.0f, -8.0f}, {0.0f, 0.0f, -2.0f}, {0.0f, 1.0f, 0.0f}, 30.0f};
    const RenderSettings rs = frame_settings(48, 48, 3);
    const Image out = render_cpu(s, rs);
    const CompiledScene cs = compile_scene(s);
    Image ref;
    render_reference(cs, s.camera, rs, ref);
    EXPECT_EQ(out.rgba, ref.rgba);
    s.texture_filter = TextureFilter::Bilinear;
    const Image sharp = render_cpu(s, rs);
    const auto roughness = [](const Image& im) {
        double r = 0;
        for (int y = 16; y < 32; ++y)
            for (int x = 16; x < 31; ++x) r += std::abs(int(im.pixel(x, y)[1]) - int(im.pixel(x + 1, y)[1]));
        return r;
    };
    std::printf("[mips] mirror ball, pixel-to-pixel variation: trilinear %.0f, bilinear %.0f\n", roughness(out),
                roughness(sharp));
    EXPECT_LT(roughness(out), 0.7 * roughness(sharp));  // without the curvature: equal
}
