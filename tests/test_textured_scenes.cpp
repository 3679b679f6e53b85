// Textured and masked scenes through the loaders and the renderer: head-on quads from OBJ
// and glTF whose every pixel is predicted by the reference in double (support/
// texture_reference.h), the wrap modes and texture transforms on them, a masked quad in
// front of a wall whose holes, and the holes in its shadow, are predicted by ray
// geometry, and glTF's rules (node nesting, extensions).
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

// is the texture's linear colour, encoded to sRGB.
void frame_quad(Scene& s) {
    s.camera.from = {0, 0, 1};
    s.camera.at = {0, 0, 0};
    s.camera.up = {0, 1, 0};
    s.camera.fov_deg = 90.0f;
    s.lights.clear();
    Light l;
    l.type = LightType::Directional;
    l.direction = {0, 0, -1};
    s.lights.push_back(l);
    s.background = glm::vec3(0.0f);
    s.ambient = glm::vec3(0.0f);
    for (Material& m : s.materials) {
        m.kd = 1.0f;
        m.kr = glm::vec3(0.0f);
    }
}

// Every pixel of a head-on quad against the reference, within one 8-bit step.
// `at` gives the texture's coordinates at the quad's own (a, b) in [0, 1]^2, a to the
// right and b down.
template <class At>
void expect_quad_matches(const Scene& s, const TextureImage& img, Wrap wu, Wrap wv, At at, const char* what) {
    constexpr int W = 44, H = 44;  // a texel centre of grid.png every 11 pixels
    const Image out = render_cpu(s, frame_settings(W, H));
    int worst = 0, bad = 0;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            const glm::dvec2 uv = at((x + 0.5) / W, (y + 0.5) / H);
            const double u = uv.x, v = uv.y;
            const RefSample r = sample_ref(img, wu, wv, u, v);
            for (int c = 0; c < 3; ++c) {
                const int d = std::abs(int(out.pixel(x, y)[c]) - srgb8_ref(r.rgb[c]));
                if (d > 1 && bad < 3)
                    std::printf("[textures] %s: pixel (%d, %d) channel %d: %d, the reference %d (uv %.4f %.4f)\n", what, x, y,
                                c, int(out.pixel(x, y)[c]), srgb8_ref(r.rgb[c]), u, v);
                worst = std::max(worst, d);
                bad += d > 1;
            }
        }
    std::printf("[textures] %-40s worst difference to the reference %d/255\n", what, worst);
    if (bad) write_png_atomic(oracle_output_dir() + "/texture-" + std::to_string(std::hash<std::string>()(what)) + ".png", out);
    EXPECT_EQ(bad, 0) << what << ": worst " << worst;
}

// The quad's coordinates from (u0, v0) at its top-left corner to (u1, v1) at its
// bottom-right.
void expect_quad_matches_reference(const Scene& s, const TextureImage& img, Wrap wu, Wrap wv, double u0, double u1,
                                   double v0, double v1, const char* what) {
    expect_quad_matches(
        s, img, wu, wv, [&](double a, double b) { return glm::dvec2(u0 + (u1 - u0) * a, v0 + (v1 - v0) * b); }, what);
}


// tests/data/textures/quad.gltf with its baseColorTexture entry replaced by `entry`.
std::string quad_gltf_with(const std::string& entry) {
    std::string g = read_text(kTex + "quad.gltf");
    const size_t at = g.find("\"baseColorTexture\"");
    EXPECT_NE(at, std::string::npos) << g;
    if (at != std::string::npos) g.replace(at, g.find('}', at) + 1 - at, entry);
    return g;
}

}  // namespace

// ---------------------------------------------------------------------------
// Head-on quads: orientation and wrap modes, through the loaders and the renderer
// ---------------------------------------------------------------------------

// OBJ's vt has v up: vt (0, 0) at the quad's bottom-left corner shows the image's
// bottom-left texel there, so the image stands upright. The pixel at the first texel's
// centre is red (grid.png's first texel), the last one's (64, 64, 64).
TEST(TexturedQuad, ObjShowsTheImageUpright) {
    Scene s = load_scene(kTex + "quad.obj");
    frame_quad(s);
    ASSERT_EQ(s.images.size(), 1u);
    const Image out = render_cpu(s, frame_settings(44, 44));  // texel centres at pixels 5, 16, 27, 38
    EXPECT_EQ(out.pixel(5, 5)[0], 255);
    EXPECT_EQ(out.pixel(5, 5)[1], 0);
    EXPECT_EQ(out.pixel(38, 38)[0], 64);
    EXPECT_EQ(out.pixel(38, 5)[1], 255);  // top-right: yellow
    EXPECT_EQ(out.pixel(38, 5)[2], 0);
    expect_quad_matches_reference(s, s.images[0], Wrap::Repeat, Wrap::Repeat, 0, 1, 0, 1, "OBJ quad (v up)");
}

// glTF's TEXCOORD has v down: uv (0, 0) at the top-left corner; the same image results.
TEST(TexturedQuad, GltfShowsTheImageUpright) {
    Scene s = load_scene(kTex + "quad.gltf");
    frame_quad(s);
    ASSERT_EQ(s.images.size(), 1u);
    const Image gl = render_cpu(s, frame_settings(48, 48));
    Scene o = load_scene(kTex + "quad.obj");
    frame_quad(o);
    const Image obj = render_cpu(o, frame_settings(48, 48));
    EXPECT_EQ(gl.rgba, obj.rgba);
    expect_quad_matches_reference(s, s.images[0], Wrap::Repeat, Wrap::Repeat, 0, 1, 0, 1, "glTF quad (v down)");
}

// The quad with coordinates from -1 to 2 on both axes, under each pair of wrap modes.
TEST(TexturedQuad, WrapModes) {
    const Wrap modes[] = {Wrap::Repeat, Wrap::MirroredRepeat, Wrap::Clamp};
    const char* names[] = {"repeat", "mirrored", "clamp"};
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            Scene s;
            Material m;
            m.colour = glm::vec3(1.0f);
            m.texture = texture_from_file(s, kTex + "grid.png", TextureUse::Colour, modes[a], modes[b], "", 0);
            const uint32_t mat = s.add_material(m);
            const Point3 p[4] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
            const glm::vec2 uv[4] = {{-1, 2}, {2, 2}, {2, -1}, {-1, -1}};
            static const int kTris[2][3] = {{0, 1, 2}, {0, 2, 3}};
            for (const auto& t : kTris) {
                Triangle tri;
                tri.v0 = p[t[0]], tri.v1 = p[t[1]], tri.v2 = p[t[2]];
                tri.uv0 = uv[t[0]], tri.uv1 = uv[t[1]], tri.uv2 = uv[t[2]];
                tri.has_uv = true;
                tri.material = mat;
                s.triangles.push_back(tri);
            }
            frame_quad(s);
            expect_quad_matches_reference(s, s.images[0], modes[a], modes[b], -1, 2, -1, 2,
                                          (std::string("wrap u ") + names[a] + ", v " + names[b]).c_str());
        }
}

// ---------------------------------------------------------------------------
// Alpha masks
// ---------------------------------------------------------------------------

// The masked quad (mask.png: opaque top-left and bottom-right, holes in the other two
// quadrants, bilinear with repeat so that alpha = 0.5 exactly on u = 0.5 and v = 0.5) at
// z = 0 in front of a red wall at z = -1, seen from z = 2, lit by a directional light
// from the upper right front. Each pixel is predicted by geometry and the reference's
// alpha: the quad where its ray meets an opaque part; else the wall, lit where the
// shadow ray from the wall point passes a hole or misses the quad, black (no ambient)
// where it meets an opaque part. Pixels within 0.05 of the cutoff are not judged.
TEST(AlphaMask, HolesShowTheWallAndTheShadowHasHoles) {
    for (const char* file : {"mask-quad.obj", "mask-quad.gltf"}) {
        Scene s = load_scene(kTex + file);
        ASSERT_EQ(s.triangles.size(), 2u);
        const uint32_t quad_mat = s.triangles[0].material;
        ASSERT_TRUE(s.materials[quad_mat].alpha_mask) << file;
        s.materials[quad_mat].texture = kNoTexture;  // a plain green quad: only its mask is judged
        s.materials[quad_mat].colour = {0.2f, 0.8f, 0.2f};
        Material red;
        red.colour = {0.9f, 0.1f, 0.1f};
        const uint32_t wall = s.add_material(red);
        for (const auto& [a, b, c] : {std::array<Point3, 3>{Point3(-6, -6, -1), Point3(6, -6, -1), Point3(6, 6, -1)},
                                      std::array<Point3, 3>{Point3(-6, -6, -1), Point3(6, 6, -1), Point3(-6, 6, -1)}}) {
            Triangle t;
            t.v0 = a, t.v1 = b, t.v2 = c;
            t.material = wall;
            s.triangles.push_back(t);
        }
        s.camera = Camera{{0.0f, 0.0f, 2.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, 90.0f};
        Light l;
        l.type = LightType::Directional;
        const glm::dvec3 to_light = glm::normalize(glm::dvec3(1.0, 0.8, 1.0));
        l.direction = -glm::vec3(to_light);
        s.lights = {l};
        s.background = glm::vec3(0.0f);
        const TextureImage& mask = s.images.at(s.textures.at(size_t(s.materials[quad_mat].alpha_texture)).image);
        const double cutoff = s.materials[quad_mat].alpha_cutoff;
        // The quad's alpha at a point (x, y, 0); NaN where the point is off the quad or
        // too close to the cutoff to judge.
        auto alpha_at = [&](double x, double y, bool& on) {
            on = std::fabs(x) < 1 && std::fabs(y) < 1;
            if (!on) return 0.0;
            const double u = (x + 1) / 2, v = (1 - y) / 2;  // both files: v down from the top edge
            return sample_ref(mask, Wrap::Repeat, Wrap::Repeat, u, v).alpha;
        };
        constexpr int W = 120, H = 120;
        const Image out = render_cpu(s, frame_settings(W, H));
        int quad_px = 0, hole_lit = 0, wall_shadow = 0, wall_lit = 0, shadow_hole = 0, wrong = 0;
        for (int py = 0; py < H; ++py)
            for (int px = 0; px < W; ++px) {
                // The primary ray through the pixel centre (90 degrees, square image).
                const double sx = (px + 0.5) * 2.0 / W - 1.0, sy = 1.0 - (py + 0.5) * 2.0 / H;
                const glm::dvec3 d(sx, sy, -1.0);
                const double x0 = 2.0 * d.x, y0 = 2.0 * d.y;  // meets z = 0 at t = 2
                bool on = false;
                const double a0 = alpha_at(x0, y0, on);
                const uint8_t* p = out.pixel(px, py);
                if (on && std::fabs(a0 - cutoff) < 0.05) continue;
                if (on && a0 >= cutoff) {
                    ++quad_px;
                    wrong += !(p[1] > p[0]);  // the quad is green
                    continue;
                }
                const glm::dvec3 w = glm::dvec3(0, 0, 2) + 3.0 * d;  // the wall, z = -1
                const glm::dvec3 q = w + (1.0 / to_light.z) * to_light;  // its shadow ray at z = 0
                bool qon = false;
                const double a1 = alpha_at(q.x, q.y, qon);
                if (qon && std::fabs(a1 - cutoff) < 0.05) continue;
                const bool shadow = qon && a1 >= cutoff;
                if (shadow) {
                    ++wall_shadow;
                    wrong += !(p[0] == 0 && p[1] == 0 && p[2] == 0);
                } else {
                    ++(on ? hole_lit : wall_lit);
                    shadow_hole += qon;  // lit through a hole in the quad's shadow
                    wrong += !(p[0] > 150 && p[1] < 120);
                }
            }
        std::printf("[textures] %s: %d quad pixels, %d lit wall pixels seen through holes, %d beside the quad, "
                    "%d in its shadow, %d lit through the shadow's holes; %d wrong\n",
                    file, quad_px, hole_lit, wall_lit, wall_shadow, shadow_hole, wrong);
        EXPECT_EQ(wrong, 0) << file;
        EXPECT_GT(hole_lit, 500) << file;
        EXPECT_GT(wall_shadow, 300) << file;
        EXPECT_GT(shadow_hole, 100) << file;
        EXPECT_GT(quad_px, 500) << file;
    }
}

// A mask that cuts everything away leaves no trace: not in the image, not in shadows.
TEST(AlphaMask, FullyCutAwayIsNoHitForAnyRay) {
    Scene s = load_scene(kTex + "mask-quad.obj");
    frame_quad(s);
    s.camera.from = {0, 0, 3};
    Scene without = s;
    without.triangles.clear();
    Triangle floor;
    floor.v0 = {-10, -10, -2}, floor.v1 = {10, -10, -2}, floor.v2 = {0, 10, -2};
    s.triangles.push_back(floor);
    without.triangles.push_back(floor);
    s.materials[s.triangles[0].material].alpha_factor = 0.0f;
    EXPECT_EQ(render_cpu(s, frame_settings(64, 64, 4)).rgba, render_cpu(without, frame_settings(64, 64, 4)).rgba);
}

// ---------------------------------------------------------------------------
// glTF's rules
// ---------------------------------------------------------------------------

// Skeletons and chains nest deeply: a 2000-level chain loads, every level's transform
// applied (each moves by 0.001 in x).
TEST(GltfRules, DeepNodeChainsLoad) {
    std::string g = read_text(kTex + "quad.gltf");
    const size_t at = g.find("\"nodes\"", g.find("\"nodes\"") + 1);  // the second: the first is the scene's
    ASSERT_NE(at, std::string::npos);
    const size_t end = g.find(']', at);
    constexpr int kDepth = 2000;
    std::string nodes = "\"nodes\": [";
    for (int i = 0; i < kDepth; ++i) {
        nodes += "{\"translation\": [0.001, 0, 0]";
        if (i + 1 < kDepth) nodes += ", \"children\": [" + std::to_string(i + 1) + "]";
        else nodes += ", \"mesh\": 0";
        nodes += i + 1 < kDepth ? "}," : "}";
    }
    g = g.substr(0, at) + nodes + g.substr(end);
    GridDir dir;
    const std::string path = dir.path + "/deep-chain.gltf";
    std::ofstream(path) << g;
    const Scene s = load_scene(path);
    ASSERT_EQ(s.triangles.size(), 2u);
    double min_x = 1e9;
    for (const Triangle& t : s.triangles) min_x = std::min({min_x, t.v0.x, t.v1.x, t.v2.x});
    EXPECT_NEAR(min_x, -1.0 + 0.001 * kDepth, 1e-9);
}

// An extension only used, not required, is ignored with a note.
TEST(GltfRules, UsedExtensionIsANote) {
    std::string g = read_text(kTex + "quad.gltf");
    g.insert(g.find('{') + 1, "\"extensionsUsed\": [\"KHR_materials_sheen\"],");
    GridDir dir;
    std::ofstream(dir.path + "/used-ext.gltf") << g;
    const Scene s = load_scene(dir.path + "/used-ext.gltf");
    bool noted = false;
    for (const std::string& n : s.notes) noted = noted || n.find("ignored the extension 'KHR_materials_sheen'") != std::string::npos;
    EXPECT_TRUE(noted);
    EXPECT_EQ(s.images.size(), 1u);
}

// KHR_texture_transform on the base colour texture: scale 2 and offset (0.25, -0.5) move
// the quad's coordinates from [0, 1]^2 to [0.25, 2.25] x [-0.5, 1.5] (repeat).
TEST(GltfRules, TextureTransform) {
    const std::string g = quad_gltf_with("\"baseColorTexture\": {\"index\": 0, \"extensions\": {\"KHR_texture_transform\": "
                                         "{\"scale\": [2, 2], \"offset\": [0.25, -0.5]}}}");
    GridDir dir;
    std::ofstream(dir.path + "/transform.gltf") << g;
    Scene s = load_scene(dir.path + "/transform.gltf");
    frame_quad(s);
    expect_quad_matches_reference(s, s.images.at(0), Wrap::Repeat, Wrap::Repeat, 0.25, 2.25, -0.5, 1.5,
                                  "glTF KHR_texture_transform");
}

// KHR_texture_transform's rotation, as the extension's matrix has it: uv' = T R S uv
// with R = (cos r, sin r; -sin r, cos r) by rows, written out here in double. A quarter
// turn and an eighth with unequal scales, so that every entry of the matrix counts.
TEST(GltfRules, TextureTransformRotates) {
    for (const double r : {1.5707963267948966, 0.7853981633974483}) {
        char ext[256];
        std::snprintf(ext, sizeof ext,
                      "\"baseColorTexture\": {\"index\": 0, \"extensions\": {\"KHR_texture_transform\": "
                      "{\"rotation\": %.17g, \"scale\": [1.5, 0.75], \"offset\": [0.1, 0.2]}}}", r);
        const std::string g = quad_gltf_with(ext);
        GridDir dir;
        std::ofstream(dir.path + "/rotated.gltf") << g;
        Scene s = load_scene(dir.path + "/rotated.gltf");
        frame_quad(s);
        const double c = std::cos(r), sn = std::sin(r);
        expect_quad_matches(
            s, s.images.at(0), Wrap::Repeat, Wrap::Repeat,
            [&](double a, double b) {
                const double x = 1.5 * a, y = 0.75 * b;  // S, then R, then T
                return glm::dvec2(c * x + sn * y + 0.1, -sn * x + c * y + 0.2);
            },
            r > 1.0 ? "glTF rotation pi/2" : "glTF rotation pi/4");
    }
}

// Each texture of a material lies as its own KHR_texture_transform says: a base colour
// tiled twice beside a metallic-roughness texture turned a quarter, no note, and the
// base colour where its transform puts it.
TEST(GltfRules, EachTextureKeepsItsTransform) {
    const std::string g = quad_gltf_with(
        "\"baseColorTexture\": {\"index\": 0, \"extensions\": {\"KHR_texture_transform\": {\"scale\": [2, 2]}}}, "
        "\"metallicRoughnessTexture\": {\"index\": 0, \"extensions\": {\"KHR_texture_transform\": "
        "{\"rotation\": 1.5707963267948966}}}, \"metallicFactor\": 0");
    GridDir dir;
    std::ofstream(dir.path + "/two.gltf") << g;
    Scene s = load_scene(dir.path + "/two.gltf");
    for (const std::string& n : s.notes) EXPECT_EQ(n.find("TEXCOORD"), std::string::npos) << n;
    const Material& m = s.materials.back();
    ASSERT_GE(m.texture, 0);
    ASSERT_GE(m.metallic_texture, 0);
    ASSERT_NE(m.texture, m.metallic_texture);
    const UvTransform& colour = s.textures[size_t(m.texture)].transform;
    const UvTransform& data = s.textures[size_t(m.metallic_texture)].transform;
    EXPECT_EQ(colour.linear, glm::dmat2(2.0));
    EXPECT_NEAR(data.linear[0][1], -1.0, 1e-15);  // column 0, row 1: -sin r
    EXPECT_NEAR(data.linear[1][0], 1.0, 1e-15);
    frame_quad(s);
    expect_quad_matches_reference(s, s.images.at(0), Wrap::Repeat, Wrap::Repeat, 0.0, 2.0, 0.0, 2.0,
                                  "glTF base colour beside a turned map");
}

// The triangles carry one TEXCOORD set, the material's first texture's: a texture that
// names another set is read at that one, and a note names both.
TEST(GltfRules, AnotherTexcoordSetIsANote) {
    const std::string g = quad_gltf_with(
        "\"baseColorTexture\": {\"index\": 0}, \"metallicRoughnessTexture\": {\"index\": 0, \"texCoord\": 1}");
    GridDir dir;
    std::ofstream(dir.path + "/sets.gltf") << g;
    const Scene s = load_scene(dir.path + "/sets.gltf");
    int noted = 0;
    for (const std::string& n : s.notes)
        noted += n.find("metallicRoughnessTexture reads TEXCOORD_1, the material's first texture TEXCOORD_0") !=
                 std::string::npos;
    EXPECT_EQ(noted, 1);
    for (const Triangle& t : s.triangles) EXPECT_TRUE(t.has_uv);
}

// JSON's texture object takes KHR_texture_transform's offset, rotation (degrees here)
// and scale.
TEST(JsonTextures, OffsetRotationScale) {
    GridDir dir;
    std::ofstream(dir.path + "/quad.json")
        << "{\"camera\": {\"from\": [0, 0, 1], \"at\": [0, 0, 0]},\n \"materials\": {\"g\": {\"colour\": [1, 1, 1], \"texture\": {\"file\": \"grid.png\", "
           "\"offset\": [0.25, 0], \"rotation\": 90, \"scale\": [1, 2]}}},\n"
           " \"objects\": [\n"
           "  {\"type\": \"triangle\", \"v0\": [-1, 1, 0], \"v1\": [1, 1, 0], \"v2\": [1, -1, 0], \"material\": \"g\","
           " \"uv\": [[0, 0], [1, 0], [1, 1]]},\n"
           "  {\"type\": \"triangle\", \"v0\": [-1, 1, 0], \"v1\": [1, -1, 0], \"v2\": [-1, -1, 0], \"material\": \"g\","
           " \"uv\": [[0, 0], [1, 1], [0, 1]]}]}\n";
    Scene s = load_scene(dir.path + "/quad.json");
    frame_quad(s);
    expect_quad_matches(
        s, s.images.at(0), Wrap::Repeat, Wrap::Repeat,
        [](double a, double b) { return glm::dvec2(2.0 * b + 0.25, -a); },  // R(90) S(1, 2): (2b, -a)
        "JSON offset, rotation, scale");
}

// MTL map options: -s scales and -o offsets OBJ's (u, v), whose v is up: with -s 2 2 and
// -o 0.5 0 the quad's corners go from u 0.5 to 2.5 and, in our v down, from -1 to 1.
TEST(TexturedQuad, MtlScaleAndOffset) {
    GridDir dir;
    std::ofstream(dir.path + "/quad.obj") << read_text(kTex + "quad.obj");
    std::ofstream(dir.path + "/quad.mtl") << "newmtl grid\nKd 1 1 1\nmap_Kd -s 2 2 -o 0.5 0 -blendu on grid.png\n";
    Scene s = load_scene(dir.path + "/quad.obj");
    frame_quad(s);
    expect_quad_matches_reference(s, s.images.at(0), Wrap::Repeat, Wrap::Repeat, 0.5, 2.5, -1.0, 1.0, "MTL -s 2 2 -o 0.5 0");
    // -clamp on clamps instead.
    std::ofstream(dir.path + "/quad.mtl") << "newmtl grid\nKd 1 1 1\nmap_Kd -clamp on -s 2 2 grid.png\n";
    Scene c = load_scene(dir.path + "/quad.obj");
    frame_quad(c);
    expect_quad_matches_reference(c, c.images.at(0), Wrap::Clamp, Wrap::Clamp, 0.0, 2.0, -1.0, 1.0, "MTL -clamp on");
}

