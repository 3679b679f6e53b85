// Normal maps (glTF's normalTexture, MTL's norm, JSON's normal_texture): the signed
// decoding that makes a flat map exactly flat, the tangent frames (the file's TANGENT,
// and MikkTSpace's where a file has none, scene/tangents.h), the tilted shading normal
// against a reference computed in double from the map's bytes, and a flat map rendering
// the plain mesh bit for bit in every mode.
#include "accel/intersect.h"
#include "accel/texture.h"
#include "accel/variant.h"
#include "render/executor.h"
#include "render/scene_gpu.h"
#include "render/surface.h"
#include "scene/load.h"
#include "scene/tangents.h"
#include "scene/texture_file.h"
#include "support/settings.h"
#include "support/texture_reference.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <glm/gtc/quaternion.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

using namespace srt;

namespace {

const std::string kFlat = texref::kTex + "normal-flat.png";
const std::string kBump = texref::kTex + "normal-bump.png";

// The kernels' variant for a textured scene with the extended materials, BVH2.
constexpr int kMapped = 2 | kEveryPathBit;

glm::vec3 corner_tangent(const Triangle& t, int k) { return glm::vec3(k == 0 ? t.t0 : k == 1 ? t.t1 : t.t2); }
float corner_handedness(const Triangle& t, int k) { return (k == 0 ? t.t0 : k == 1 ? t.t1 : t.t2).w; }

// The normal map's value at (u, v) in double: bilinear between texel centres, wrapping
// (the quads' sampler repeats), each byte b read as (b - 128) / 127.
glm::dvec3 map_value(const TextureImage& img, double u, double v) {
    const auto wrap = [](long i, long n) { return ((i % n) + n) % n; };
    const double x = u * img.width - 0.5, y = v * img.height - 0.5;
    const long x0 = long(std::floor(x)), y0 = long(std::floor(y));
    const double fx = x - double(x0), fy = y - double(y0);
    glm::dvec3 sum(0.0);
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i) {
            const uint32_t t = img.texels[size_t(wrap(y0 + j, img.height) * img.width + wrap(x0 + i, img.width))];
            const double w = (i ? fx : 1.0 - fx) * (j ? fy : 1.0 - fy);
            for (int c = 0; c < 3; ++c) sum[c] += w * std::max(-1.0, (double((t >> (8 * c)) & 255u) - 128.0) / 127.0);
        }
    return sum;
}

// The quads of normal-quad.* (2x2 at z = 0, facing +z, u to the right, v down the image)
// seen head-on from z = 1: for pixel rays across them, the shading normal surface_at
// gives against the map's tilt in the frame (+x, +y, +z) with x and y times `scale`,
// computed in double. Returns the largest difference of a component.
double worst_against_double(const std::string& file, double scale) {
    Scene scene = load_scene(texref::kTex + file);
    scene.render_origin = Point3(0.0);  // rays in world space
    const CompiledScene cs = compile_scene(scene);
    const SceneView v = cs.view();
    const Material& m = scene.materials.back();
    EXPECT_TRUE(m.normal_mapped()) << file;
    EXPECT_FLOAT_EQ(m.normal_scale, float(scale)) << file;
    const TextureImage& img = scene.images[scene.textures[size_t(m.normal_texture)].image];
    EXPECT_TRUE(img.normal_map);
    double worst = 0.0;
    int hits = 0;
    const glm::vec3 o(0.0f, 0.0f, 1.0f);
    for (int j = 0; j < 23; ++j)
        for (int i = 0; i < 23; ++i) {
            const glm::vec3 target(-0.97f + 1.94f * float(i) / 22.0f, -0.97f + 1.94f * float(j) / 22.0f, 0.0f);
            const glm::vec3 d = glm::normalize(target - o);
            const Hit h = intersect_closest(v, o, d, 3.0e38f);
            if (h.id < 0) continue;
            ++hits;
            const Surface sf = surface_at<kMapped>(v, o, d, h.t, h.id);
            const glm::dvec3 p = glm::dvec3(o) + double(h.t) * glm::dvec3(d);
            const glm::dvec3 mv = map_value(img, (p.x + 1.0) / 2.0, (1.0 - p.y) / 2.0);
            const glm::dvec3 want = glm::normalize(glm::dvec3(mv.x * scale, mv.y * scale, mv.z));
            for (int c = 0; c < 3; ++c) worst = std::max(worst, std::fabs(double(sf.ns[c]) - want[c]));
        }
    EXPECT_EQ(hits, 23 * 23) << file;
    return worst;
}

// A smooth, textured UV sphere of `rings` x 2 `rings` quads, as a mesh: positions,
// normals along the radius, u around +y from +x, v down from the top.
void add_uv_sphere(Scene& s, uint32_t material, int rings) {
    const double pi = 3.14159265358979323846;
    const auto at = [&](int i, int j, Point3& p, glm::vec3& n, glm::vec2& uv) {
        const double theta = pi * j / rings, phi = 2.0 * pi * i / (2 * rings);
        const glm::dvec3 dir(std::sin(theta) * std::cos(phi), std::cos(theta), -std::sin(theta) * std::sin(phi));
        p = Point3(0.0, 1.0, 0.0) + dir;
        n = glm::vec3(dir);
        uv = glm::vec2(float(i) / float(2 * rings), float(j) / float(rings));
    };
    for (int j = 0; j < rings; ++j)
        for (int i = 0; i < 2 * rings; ++i) {
            Triangle a, b;
            a.material = b.material = material;
            a.smooth = b.smooth = a.has_uv = b.has_uv = true;
            glm::vec2 uv11;
            Point3 p11;
            glm::vec3 n11;
            at(i, j, a.v0, a.n0, a.uv0);
            at(i, j + 1, a.v1, a.n1, a.uv1);
            at(i + 1, j + 1, a.v2, a.n2, a.uv2);
            at(i, j, b.v0, b.n0, b.uv0);
            at(i + 1, j + 1, b.v1, b.n1, b.uv1);
            at(i + 1, j, b.v2, b.n2, b.uv2);
            if (j + 1 < rings) s.triangles.push_back(a);  // the poles' triangles would be lines
            if (j > 0) s.triangles.push_back(b);
        }
}

// A normal-mapped glossy sphere and a mapped diffuse floor, lit by a point light and the
// background: `map` on both (kNoTexture: none), each material rough enough to scatter
// widely and smooth enough to show a tilt.
Scene sphere_scene(const std::string& map) {
    Scene s;
    s.name = "normal-mapped sphere";
    s.camera.from = Point3(0.0, 1.6, 3.5);
    s.camera.at = Point3(0.0, 0.9, 0.0);
    s.camera.fov_deg = 50.0f;
    s.background = glm::vec3(0.3f, 0.35f, 0.4f);
    Material metal;
    metal.name = "metal";
    metal.pbr = true;
    metal.colour = glm::vec3(0.9f, 0.6f, 0.3f);
    metal.metallic = 1.0f;
    metal.roughness = 0.3f;
    Material floor;
    floor.name = "floor";
    floor.pbr = true;
    floor.colour = glm::vec3(0.7f);
    floor.roughness = 0.8f;
    if (!map.empty()) {
        metal.normal_texture = floor.normal_texture = texture_from_file(s, map, TextureUse::Normal, Wrap::Repeat, Wrap::Repeat, "", 0);
        metal.normal_scale = 1.5f;
    }
    s.add_material(Material{});
    const uint32_t mm = s.add_material(metal), fm = s.add_material(floor);
    add_uv_sphere(s, mm, 12);
    for (const auto& q : {std::array<double, 4>{-3, -3, 3, 3}}) {
        Triangle a, b;
        a.material = b.material = fm;
        a.has_uv = b.has_uv = true;
        a.v0 = Point3(q[0], 0, q[1]), a.v1 = Point3(q[0], 0, q[3]), a.v2 = Point3(q[2], 0, q[3]);
        b.v0 = Point3(q[0], 0, q[1]), b.v1 = Point3(q[2], 0, q[3]), b.v2 = Point3(q[2], 0, q[1]);
        a.uv0 = b.uv0 = glm::vec2(0, 0), a.uv1 = glm::vec2(0, 3), a.uv2 = b.uv1 = glm::vec2(3, 3), b.uv2 = glm::vec2(3, 0);
        s.triangles.push_back(a);
        s.triangles.push_back(b);
    }
    Light l;
    l.position = Point3(2.0, 4.0, 3.0);
    l.colour = glm::vec3(20.0f);
    s.lights.push_back(l);
    s.light_model = LightModel::Physical;
    generate_tangents(s);
    validate(s);
    return s;
}

RenderSettings path_settings(DeadRayMode mode) { return test::Frame(48, 40, 6, mode).spp(3).path(); }

}  // namespace

TEST(NormalMaps, SignedDecodingPutsZeroAt128) {
    Scene scene;
    Material m;
    m.normal_texture = texture_from_file(scene, kFlat, TextureUse::Normal, Wrap::Repeat, Wrap::Repeat, "", 0);
    scene.add_material(m);
    scene.spheres.push_back(Sphere{});
    const CompiledScene cs = compile_scene(scene);
    const SceneView v = cs.view();
    EXPECT_EQ(v.srgb_lut[kSignedLutOffset + 128], 0.0f);
    EXPECT_EQ(v.srgb_lut[kSignedLutOffset + 255], 1.0f);
    EXPECT_EQ(v.srgb_lut[kSignedLutOffset + 1], -1.0f);
    EXPECT_EQ(v.srgb_lut[kSignedLutOffset + 0], -1.0f);
    EXPECT_EQ(sample_colour(v.textures, v.texels, v.srgb_lut, 0, glm::vec2(0.3f, 0.7f)), glm::vec3(0.0f, 0.0f, 1.0f));
    // The same file as colour is another image, decoded as sRGB.
    const int32_t colour = texture_from_file(scene, kFlat, TextureUse::Colour, Wrap::Repeat, Wrap::Repeat, "", 0);
    EXPECT_NE(scene.textures[size_t(colour)].image, scene.textures[size_t(m.normal_texture)].image);
}

// The quad's u runs along +x and its image's up along +y: MikkTSpace's frame is (+x, +1).
// Mirrored by its node (x negated) with the file's TANGENT (+x, +1), the tangent turns to
// -x and the handedness over, so that the bitangent still points up the image; the
// frame made for the mirrored quad without its TANGENT is the same.
TEST(NormalMaps, TangentFramesFollowUAndTheImagesUp) {
    const Scene plain = load_scene(texref::kTex + "normal-quad.gltf");
    ASSERT_EQ(plain.triangles.size(), 2u);
    for (const Triangle& t : plain.triangles) {
        ASSERT_TRUE(t.has_tangent);
        for (int k = 0; k < 3; ++k) {
            EXPECT_NEAR(glm::length(corner_tangent(t, k) - glm::vec3(1, 0, 0)), 0.0f, 1e-6f);
            EXPECT_EQ(corner_handedness(t, k), 1.0f);
        }
    }
    Scene mirrored = load_scene(texref::kTex + "normal-quad-tangents.gltf");
    ASSERT_EQ(mirrored.triangles.size(), 2u);
    for (const Triangle& t : mirrored.triangles)
        for (int k = 0; k < 3; ++k) {
            EXPECT_NEAR(glm::length(corner_tangent(t, k) - glm::vec3(-1, 0, 0)), 0.0f, 1e-6f);
            EXPECT_EQ(corner_handedness(t, k), -1.0f);
        }
    const std::vector<Triangle> from_file = mirrored.triangles;
    for (Triangle& t : mirrored.triangles) t.has_tangent = false;
    EXPECT_EQ(generate_tangents(mirrored), 2u);
    for (size_t i = 0; i < 2; ++i)
        for (int k = 0; k < 3; ++k) {
            EXPECT_NEAR(glm::length(corner_tangent(mirrored.triangles[i], k) - corner_tangent(from_file[i], k)), 0.0f, 1e-6f);
            EXPECT_EQ(corner_handedness(mirrored.triangles[i], k), corner_handedness(from_file[i], k));
        }
}

// The tilted normal against the map's bytes read in double: glTF's scale 1, MTL's -bm 0.5,
// and the mirrored quad with the file's tangents (its tilt in x turns over with it).
TEST(NormalMaps, KnownBumpAgainstDoubleReference) {
    EXPECT_LT(worst_against_double("normal-quad.gltf", 1.0), 2e-6);
    EXPECT_LT(worst_against_double("normal-quad.obj", 0.5), 2e-6);
    // Mirrored in x by its node, with the file's tangents (-x, handedness -1): the map's
    // x tilts along -x in the world, its y still along +y.
    Scene scene = load_scene(texref::kTex + "normal-quad-tangents.gltf");
    scene.render_origin = Point3(0.0);
    const CompiledScene cs = compile_scene(scene);
    const SceneView v = cs.view();
    const TextureImage& img = scene.images[scene.textures[size_t(scene.materials.back().normal_texture)].image];
    const glm::vec3 o(0.0f, 0.0f, 1.0f);
    double worst = 0.0;
    for (int i = 0; i < 17; ++i) {
        const glm::vec3 target(-0.9f + 1.8f * float(i) / 16.0f, 0.31f, 0.0f);
        const glm::vec3 d = glm::normalize(target - o);
        const Hit h = intersect_closest(v, o, d, 3.0e38f);
        ASSERT_GE(h.id, 0);
        const Surface sf = surface_at<kMapped>(v, o, d, h.t, h.id);
        const glm::dvec3 p = glm::dvec3(o) + double(h.t) * glm::dvec3(d);
        // The node mirrors x: the quad's u = (1 - x) / 2 here.
        const glm::dvec3 mv = map_value(img, (1.0 - p.x) / 2.0, (1.0 - p.y) / 2.0);
        const glm::dvec3 want = glm::normalize(glm::dvec3(-mv.x, mv.y, mv.z));
        for (int c = 0; c < 3; ++c) worst = std::max(worst, std::fabs(double(sf.ns[c]) - want[c]));
    }
    EXPECT_LT(worst, 2e-6);
}

// A transformed normal map (KHR_texture_transform: turned 30 degrees, scaled 2 by 0.5,
// moved) tilts along its own axes as they lie on the surface: the reference, in double,
// reads the map at the transformed coordinates and builds the frame from the surface's
// derivatives along them, dp/du' and -dp/dv' (a texel's y runs up the image), each made
// unit. The identity's frame tilts otherwise, so the comparison can fail.
TEST(NormalMaps, TransformedMapTiltsAlongItsOwnAxes) {
    const double r = 0.5235987755982988, su = 2.0, sv = 0.5, ou = 0.3, ov = -0.1;
    Scene scene = load_scene(texref::kTex + "normal-quad.gltf");
    scene.render_origin = Point3(0.0);
    Material& m = scene.materials.back();
    ASSERT_TRUE(m.normal_mapped());
    Texture t = scene.textures[size_t(m.normal_texture)];
    t.transform = UvTransform::of(glm::dvec2(ou, ov), r, glm::dvec2(su, sv));
    scene.textures.push_back(t);
    m.normal_texture = int32_t(scene.textures.size() - 1);
    const CompiledScene cs = compile_scene(scene);
    const SceneView v = cs.view();
    const TextureImage& img = scene.images[t.image];
    // uv' = A uv + o, A = R S with R = (c, s; -s, c) by rows. On the quad x = 2u - 1 and
    // y = 1 - 2v, so dp/du' = (2 a.x, -2 a.y) and dp/dv' = (2 b.x, -2 b.y), a and b the
    // columns of A's inverse.
    const double c = std::cos(r), sn = std::sin(r);
    const glm::dmat2 a_mat(glm::dvec2(c * su, -sn * su), glm::dvec2(sn * sv, c * sv));  // column-major
    const glm::dmat2 inv = glm::inverse(a_mat);
    const glm::dvec3 tu = glm::normalize(glm::dvec3(2.0 * inv[0].x, -2.0 * inv[0].y, 0.0));
    const glm::dvec3 tv = glm::normalize(-glm::dvec3(2.0 * inv[1].x, -2.0 * inv[1].y, 0.0));
    // Rays straight down: the map tilts less than 45 degrees, so no view's reflection
    // falls below the surface and the normal is never bent (NormalMaps.BentNormals...).
    const glm::vec3 d(0.0f, 0.0f, -1.0f);
    double worst = 0.0, worst_plain = 0.0;
    for (int j = 0; j < 19; ++j)
        for (int i = 0; i < 19; ++i) {
            const glm::vec3 o(-0.95f + 1.9f * float(i) / 18.0f, -0.95f + 1.9f * float(j) / 18.0f, 1.0f);
            const Hit h = intersect_closest(v, o, d, 3.0e38f);
            ASSERT_GE(h.id, 0);
            const Surface sf = surface_at<kMapped>(v, o, d, h.t, h.id);
            const glm::dvec3 p = glm::dvec3(o) + double(h.t) * glm::dvec3(d);
            const glm::dvec2 uv((p.x + 1.0) / 2.0, (1.0 - p.y) / 2.0);
            const glm::dvec2 moved = a_mat * uv + glm::dvec2(ou, ov);
            const glm::dvec3 mv = map_value(img, moved.x, moved.y);
            const glm::dvec3 want = glm::normalize(mv.x * tu + mv.y * tv + mv.z * glm::dvec3(0, 0, 1));
            const glm::dvec3 plain = glm::normalize(glm::dvec3(mv.x, mv.y, mv.z));  // the triangles' own frame
            for (int k = 0; k < 3; ++k) {
                worst = std::max(worst, std::fabs(double(sf.ns[k]) - want[k]));
                worst_plain = std::max(worst_plain, std::fabs(double(sf.ns[k]) - plain[k]));
            }
        }
    std::printf("[normal maps] transformed map: worst %.3g against its own axes, %.3g against the triangles'\n", worst,
                worst_plain);
    EXPECT_LT(worst, 2e-6);
    EXPECT_GT(worst_plain, 0.05);
}

// A flat map (128, 128, 255) tilts nothing: the image is the plain mesh's, bit for bit, in
// every mode; the bump makes another image, so the comparison can fail.
TEST(NormalMaps, FlatMapRendersThePlainMeshBitForBit) {
    auto ex = make_cpu_executor(2);
    const Scene plain = sphere_scene(""), flat = sphere_scene(kFlat), bumpy = sphere_scene(kBump);
    const CompiledScene cp = compile_scene(plain), cf = compile_scene(flat), cb = compile_scene(bumpy);
    ASSERT_TRUE(cf.extended_materials && cp.extended_materials);  // one kernel variant for both
    ASSERT_FALSE(cf.tangents.empty());
    Image want, bump;
    ex->set_scene(cp);
    ex->render(plain.camera, path_settings(DeadRayMode::Stencil), want);
    ex->set_scene(cb);
    ex->render(bumpy.camera, path_settings(DeadRayMode::Stencil), bump);
    EXPECT_NE(bump.rgba, want.rgba);
    ex->set_scene(cf);
    for (DeadRayMode m : {DeadRayMode::Stencil, DeadRayMode::Flags, DeadRayMode::Compact, DeadRayMode::Megakernel,
                          DeadRayMode::Regenerate}) {
        Image img;
        ex->render(flat.camera, path_settings(m), img);
        EXPECT_EQ(img.rgba, want.rgba) << to_string(m);
    }
}

// A normal map tilted far from the view never sends a mirror's reflection below the
// surface: the bent normal reflects every view direction above it (render/surface.h
// reflection_above), and leaves alone those whose reflection was above already.
TEST(NormalMaps, BentNormalsReflectAboveTheSurface) {
    const glm::vec3 n(0.0f, 0.0f, 1.0f);
    int bent = 0;
    for (int i = 0; i < 400; ++i) {
        // From head-on (a = 0) to 0.6 degrees above the surface.
        const float a = 1.56f * float(i) / 400.0f, b = 0.37f * float(i);
        const glm::vec3 wo(std::cos(b) * std::sin(a), std::sin(b) * std::sin(a), std::cos(a));
        const glm::vec3 ns = glm::normalize(glm::vec3(std::sin(1.3f * i), std::cos(0.7f * i), 0.4f + 0.5f * std::sin(0.1f * i)));
        const glm::vec3 out = reflection_above(ns, n, wo);
        const glm::vec3 r = 2.0f * glm::dot(out, wo) * out - wo;
        EXPECT_GT(glm::dot(r, n), 0.0f) << i;
        EXPECT_NEAR(glm::length(out), 1.0f, 1e-5f);
        const glm::vec3 r0 = 2.0f * glm::dot(ns, wo) * ns - wo;
        if (glm::dot(r0, n) >= std::fmin(0.9f * glm::dot(n, wo), 0.01f)) EXPECT_EQ(out, ns) << i;
        else ++bent;
    }
    EXPECT_GT(bent, 50);  // the cases above do bend
}

// MikkTSpace's frames, ours, against the ones WaterBottle's file carries, read here from
// its JSON and buffer without our loader. That file (the 2017 revision) has each
// tangent's z turned over in model space: as given, 77% of its tangents are more than 5.7
// degrees from perpendicular to their normals, so the loader makes MikkTSpace's instead
// (and says so). With z turned back they are perpendicular, and ours must match them
// where the welding of seams agrees.
TEST(NormalMaps, GeneratedTangentsMatchWaterBottlesOwn) {
    const std::string dir = std::string(SRT_SHARED_DATA) + "/gltf/WaterBottle/";
    if (!std::filesystem::exists(dir + "WaterBottle.gltf")) GTEST_SKIP() << dir << " not present";
    const Scene scene = load_scene(dir + "WaterBottle.gltf");
    EXPECT_TRUE(std::any_of(scene.notes.begin(), scene.notes.end(),
                            [](const std::string& n) { return n.find("MikkTSpace tangents are used instead") != std::string::npos; }));
    std::ifstream jf(dir + "WaterBottle.gltf"), bf(dir + "WaterBottle.bin", std::ios::binary);
    const nlohmann::json g = nlohmann::json::parse(jf);
    const std::string bin((std::istreambuf_iterator<char>(bf)), std::istreambuf_iterator<char>());
    const auto floats = [&](int accessor, int n) {  // tightly packed or strided floats
        const auto& a = g["accessors"][accessor];
        const auto& v = g["bufferViews"][a["bufferView"].get<int>()];
        const size_t off = v.value("byteOffset", 0) + a.value("byteOffset", 0), stride = v.value("byteStride", 4 * n);
        std::vector<float> out(a["count"].get<size_t>() * size_t(n));
        for (size_t k = 0; k < a["count"].get<size_t>(); ++k) std::memcpy(&out[k * n], bin.data() + off + k * stride, 4 * size_t(n));
        return out;
    };
    const auto& prim = g["meshes"][0]["primitives"][0];
    const std::vector<float> normals = floats(prim["attributes"]["NORMAL"], 3), tangents = floats(prim["attributes"]["TANGENT"], 4);
    const auto& ia = g["accessors"][prim["indices"].get<int>()];
    ASSERT_EQ(ia["componentType"].get<int>(), 5123);
    std::vector<uint16_t> idx(ia["count"].get<size_t>());
    const auto& iv = g["bufferViews"][ia["bufferView"].get<int>()];
    std::memcpy(idx.data(), bin.data() + iv.value("byteOffset", 0) + ia.value("byteOffset", 0), 2 * idx.size());
    ASSERT_EQ(scene.triangles.size() * 3, idx.size());  // one node, one primitive, nothing degenerate
    // The node's rotation and uniform scale take model space to ours.
    const auto& r = g["nodes"][0]["rotation"];
    const glm::dmat3 rot = glm::mat3_cast(glm::dquat(r[3].get<double>(), r[0].get<double>(), r[1].get<double>(), r[2].get<double>()));
    std::vector<double> angles;
    size_t handedness_differs = 0;
    double worst_normal = 0.0;
    for (size_t i = 0; i < scene.triangles.size(); ++i) {
        const Triangle& t = scene.triangles[i];
        const glm::vec3 ns[3] = {t.n0, t.n1, t.n2};
        for (int k = 0; k < 3; ++k) {
            const size_t v = idx[3 * i + size_t(k)];
            const glm::dvec3 n = glm::normalize(rot * glm::dvec3(normals[3 * v], normals[3 * v + 1], normals[3 * v + 2]));
            worst_normal = std::max(worst_normal, glm::length(n - glm::dvec3(ns[k])));
            glm::dvec3 ft = rot * glm::dvec3(tangents[4 * v], tangents[4 * v + 1], -tangents[4 * v + 2]);  // z turned back
            ft = glm::normalize(ft - glm::dot(ft, n) * n);
            const double c = glm::dot(ft, glm::dvec3(corner_tangent(t, k)));
            angles.push_back(std::acos(std::clamp(c, -1.0, 1.0)) * 180.0 / 3.14159265358979323846);
            // The file's handedness is the frame's as it should be (only xyz's z was turned).
            handedness_differs += tangents[4 * v + 3] != corner_handedness(t, k);
        }
    }
    ASSERT_LT(worst_normal, 1e-5);  // the corners are the file's vertices
    std::sort(angles.begin(), angles.end());
    const double median = angles[angles.size() / 2], p95 = angles[angles.size() * 95 / 100];
    const size_t opposed = size_t(angles.end() - std::upper_bound(angles.begin(), angles.end(), 90.0));
    std::printf("WaterBottle: %zu corners; ours against the file's tangents (z turned back): median %.4f, 95th "
                "percentile %.3f degrees, %zu opposed (over 90); handedness differs at %zu\n",
                angles.size(), median, p95, opposed, handedness_differs);
    EXPECT_LT(median, 0.1);
    EXPECT_LT(p95, 5.0);
    // Where the file's exporter split a seam that ours welds (or the reverse) a corner's
    // frame can turn over: at most 1% of them.
    EXPECT_LT(double(opposed), 0.01 * double(angles.size()));
    EXPECT_LT(double(handedness_differs), 0.01 * double(angles.size()));
}
