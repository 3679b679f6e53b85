// Instances (scene.h Instance, accel/traverse_instances.h): a scene with a two-level BVH
// against its flattened copy (scene/instances.h). Where the transforms move every float
// exactly (powers of two, mirrors, no translation) the images are the same bytes, in
// every layout and mode; under any other transform the hits are checked against a
// brute-force reference in double over the moved triangles, and the hit points for
// self-intersection at scales from 1e-3 to 1e3, 1e4 from the origin.
#include "accel/intersect.h"
#include "core/image.h"
#include "render/executor.h"
#include "render/scene_gpu.h"
#include "render/settings.h"
#include "render/surface.h"
#include "scene/instances.h"
#include "scene/load.h"
#include "scene/scene.h"
#include "support/settings.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

using namespace srt;

namespace {

// A torus about +z through `centre`, radii R and r, smooth: its own small asset.
Mesh torus_mesh(const Point3& centre, double R, double r, int nu, int nv, uint32_t material) {
    Mesh m;
    m.name = "torus";
    const auto at = [&](int i, int j, Point3& p, glm::vec3& n) {
        const double u = 2.0 * M_PI * i / nu, v = 2.0 * M_PI * j / nv;
        const glm::dvec3 radial(std::cos(u), std::sin(u), 0.0);
        const glm::dvec3 nd = std::cos(v) * radial + glm::dvec3(0.0, 0.0, std::sin(v));
        p = centre + R * radial + r * nd;
        n = glm::vec3(nd);
    };
    for (int i = 0; i < nu; ++i)
        for (int j = 0; j < nv; ++j) {
            Point3 p[4];
            glm::vec3 n[4];
            at(i, j, p[0], n[0]);
            at(i + 1, j, p[1], n[1]);
            at(i + 1, j + 1, p[2], n[2]);
            at(i, j + 1, p[3], n[3]);
            for (int k : {0, 1}) {
                Triangle t;
                const int a = 0, b = k == 0 ? 1 : 2, c = k == 0 ? 2 : 3;
                t.v0 = p[a], t.v1 = p[b], t.v2 = p[c];
                t.n0 = n[a], t.n1 = n[b], t.n2 = n[c];
                t.smooth = true;
                t.material = material;
                m.triangles.push_back(t);
            }
        }
    return m;
}

Instance placed(const glm::dmat3& linear, const glm::dvec3& translate = glm::dvec3(0.0)) {
    Instance i;
    i.linear = linear;
    i.translate = translate;
    return i;
}
glm::dmat3 diag(double x, double y, double z) { return glm::dmat3(glm::dvec3(x, 0, 0), glm::dvec3(0, y, 0), glm::dvec3(0, 0, z)); }

// The camera at the origin (so rendering space is world space, unmoved), looking down -z
// at tori placed by transforms that move floats exactly: the identity, scales by 2 and
// 1/2, mirrors, one combined with a scale by 2; a mirror and a floor of the scene's own,
// and a light.
Scene exact_scene() {
    Scene s;
    s.name = "instances-exact";
    s.camera.from = Point3(0.0);
    s.camera.at = Point3(0.0, -0.1, -1.0);
    s.camera.fov_deg = 70.0f;
    Material base;
    base.colour = {0.8f, 0.8f, 0.8f};
    s.add_material(base);
    Material copper;
    copper.colour = {0.85f, 0.45f, 0.3f};
    copper.kd = 0.7f;
    copper.kr = {0.3f, 0.2f, 0.1f};
    const uint32_t cu = s.add_material(copper);
    Material mirror;
    mirror.colour = {1.0f, 1.0f, 1.0f};
    mirror.kd = 0.05f;
    mirror.kr = {0.9f, 0.9f, 0.9f};
    const uint32_t mi = s.add_material(mirror);
    s.meshes.push_back(torus_mesh(Point3(0.9, 0.25, -4.0), 0.6, 0.22, 24, 12, cu));
    for (const glm::dmat3& m : {glm::dmat3(1.0), diag(2, 2, 2), diag(0.5, 0.5, 0.5), diag(-1, 1, 1), diag(1, -1, 1),
                                diag(-2, 2, 2), diag(1, 1, -1)})
        s.instances.push_back(placed(m));
    // A mirror of the scene's own: a triangle (a scene with instances runs the kernels of
    // every bit, which compute spheres in double, accel/variant.h: a sphere's hit points
    // would not be the flattened scene's float ones).
    Triangle mirror_wall;
    mirror_wall.v0 = Point3(-2.5, -1.0, -6.0);
    mirror_wall.v1 = Point3(-0.5, -1.0, -7.0);
    mirror_wall.v2 = Point3(-1.5, 1.5, -6.5);
    mirror_wall.material = mi;
    s.triangles.push_back(mirror_wall);
    Plane floor;
    floor.point = Point3(0.0, -1.0, 0.0);
    floor.material = mi;
    floor.checker = true;
    s.planes.push_back(floor);
    Light l;
    l.position = Point3(2.0, 4.0, 1.0);
    s.lights.push_back(l);
    // For the path integrator, more lights than one, so that how it weighs them (by power,
    // which for a point light and the sky depends on the scene's size) matters: an
    // emissive sphere, and the sky.
    Material lamp;
    lamp.emission = {4.0f, 3.5f, 3.0f};
    Triangle panel;
    panel.v0 = Point3(-1.5, 1.5, -5.0);
    panel.v1 = Point3(-0.5, 1.5, -5.0);
    panel.v2 = Point3(-1.0, 1.5, -4.0);
    panel.material = s.add_material(lamp);
    s.triangles.push_back(panel);
    s.environment = environment_from_file(std::string(SRT_SOURCE_DIR) + "/assets/env/sky.hdr", 0.5f, 30.0f);
    validate(s);
    return s;
}

Image render_cpu_with(const CompiledScene& cs, const RenderSettings& rs) {
    auto ex = make_cpu_executor(2);
    ex->set_scene(cs);
    Image img;
    ex->render(cs.camera, rs, img, nullptr);
    return img;
}

TEST(Instances, ExactTransformsGiveTheFlattenedImage) {
    const Scene inst = exact_scene();
    Scene flat = inst;
    flatten_instances(flat);
    ASSERT_EQ(flat.triangles.size(), inst.triangles.size() + inst.instanced_triangle_count());
    for (AccelLayout layout : {AccelLayout::Bvh2, AccelLayout::Bvh4, AccelLayout::Bvh8}) {
        const CompiledScene a = compile_scene(inst, layout), b = compile_scene(flat, layout);
        ASSERT_FALSE(a.instances.empty());
        ASSERT_TRUE(b.instances.empty());
        for (const RenderSettings& rs : {RenderSettings(test::Frame(96, 64, 5)),
                                         RenderSettings(test::Frame(96, 64, 5, DeadRayMode::Megakernel)),
                                         RenderSettings(test::Frame(64, 48, 4).path().spp(2)),
                                         RenderSettings(test::Frame(64, 48, 4, DeadRayMode::Megakernel).path().spp(2))}) {
            const Image ia = render_cpu_with(a, rs), ib = render_cpu_with(b, rs);
            ASSERT_EQ(ia.rgba.size(), ib.rgba.size());
            size_t differ = 0;
            for (size_t k = 0; k < ia.rgba.size(); ++k) differ += ia.rgba[k] != ib.rgba[k];
            EXPECT_EQ(differ, 0u) << "channel values differ: " << to_string(layout) << " " << to_string(rs.mode) << " "
                                  << to_string(rs.integrator);
        }
    }
}

// The images change where the instance's transform does: the test above can fail.
TEST(Instances, AMovedInstanceChangesTheImage) {
    Scene s = exact_scene();
    const CompiledScene a = compile_scene(s, AccelLayout::Bvh2);
    s.instances[1].linear = diag(2, 2, -2);
    const CompiledScene b = compile_scene(s, AccelLayout::Bvh2);
    const RenderSettings rs = test::Frame(96, 64, 3);
    EXPECT_NE(render_cpu_with(a, rs).rgba, render_cpu_with(b, rs).rgba);
}

// ---------------------------------------------------------------------------
// Any transform, against double
// ---------------------------------------------------------------------------

glm::dmat3 rotation(double ax, double ay, double az) {
    const auto r = [](double a, int axis) {
        glm::dmat3 m(1.0);
        const int i = (axis + 1) % 3, j = (axis + 2) % 3;
        m[i][i] = std::cos(a), m[i][j] = std::sin(a), m[j][i] = -std::sin(a), m[j][j] = std::cos(a);
        return m;
    };
    return r(az, 2) * r(ay, 1) * r(ax, 0);
}

// Tori placed by rotations, non-uniform scales and mirrors about `centre`, all times
// `scale`, seen from `centre` + (0, 0, 6) scale.
Scene general_scene(const Point3& centre, double scale) {
    Scene s;
    s.name = "instances-general";
    s.camera.from = centre + Point3(0.0, 0.0, 6.0 * scale);
    s.camera.at = centre;
    s.add_material(Material{});
    s.meshes.push_back(torus_mesh(Point3(0.0), 0.6, 0.22, 20, 10, 0));
    const glm::dmat3 linears[] = {rotation(0.3, 0.7, 0.1) * diag(1.3, 0.6, 0.9), rotation(1.1, -0.4, 2.0),
                                  rotation(-0.2, 0.5, 0.9) * diag(-0.8, 1.0, 1.2), diag(0.7, 1.9, 0.4),
                                  rotation(2.2, 0.1, -1.3) * diag(1.0, -1.0, 0.5)};
    int k = 0;
    for (const glm::dmat3& m : linears) {
        const glm::dvec3 offset(1.4 * (k % 3) - 1.4, 1.2 * (k / 3) - 0.6, -0.3 * k);
        s.instances.push_back(placed(scale * m, centre + scale * offset));
        ++k;
    }
    validate(s);
    return s;
}

// The closest hit of a ray over the moved triangles, in double (Moller-Trumbore);
// `second`: the next distance of another triangle, to tell ambiguous rays.
struct RefHit {
    double t = std::numeric_limits<double>::infinity(), second = std::numeric_limits<double>::infinity();
    double edge = 0.0;  // the smallest barycentric of the hit: near 0, an edge
    glm::dvec3 n{0.0};
};
RefHit reference_hit(const std::vector<Triangle>& tris, const glm::dvec3& o, const glm::dvec3& d) {
    RefHit best;
    for (const Triangle& t : tris) {
        const glm::dvec3 e1 = t.v1 - t.v0, e2 = t.v2 - t.v0, p = glm::cross(d, e2);
        const double det = glm::dot(e1, p);
        if (det == 0.0) continue;
        const glm::dvec3 tv = o - t.v0;
        const double u = glm::dot(tv, p) / det;
        const glm::dvec3 q = glm::cross(tv, e1);
        const double v = glm::dot(d, q) / det, dist = glm::dot(e2, q) / det;
        if (u < 0.0 || v < 0.0 || u + v > 1.0 || !(dist > 0.0)) continue;
        if (dist < best.t) {
            best.second = best.t;
            best.t = dist;
            best.edge = std::min({u, v, 1.0 - u - v});
            best.n = glm::normalize(glm::cross(e1, e2));
        } else if (dist < best.second) {
            best.second = dist;
        }
    }
    return best;
}

void expect_hits_match_double(const Point3& centre, double scale) {
    const Scene s = general_scene(centre, scale);
    Scene flat = s;
    flatten_instances(flat);
    for (AccelLayout layout : {AccelLayout::Bvh2, AccelLayout::Bvh8}) {
        const CompiledScene cs = compile_scene(s, layout);
        const SceneView v = cs.view();
        std::mt19937 rng(7);
        std::uniform_real_distribution<double> jitter(-0.45, 0.45);
        int checked = 0, hits = 0, bad_t = 0, bad_n = 0, missed = 0;
        for (int i = 0; i < 4000; ++i) {
            const glm::dvec3 target = centre + scale * glm::dvec3(5.0 * jitter(rng), 3.0 * jitter(rng), 0.0);
            const glm::dvec3 dir = glm::normalize(target - s.camera.from);
            const glm::vec3 o(s.camera.from - cs.render_origin), d(dir);
            const RefHit ref = reference_hit(flat.triangles, s.camera.from, glm::dvec3(d));
            // Rays within a relative 1e-4 of an edge or of another triangle's distance
            // may go either way in float.
            if (std::isfinite(ref.t) && (ref.edge < 1e-4 || ref.second < ref.t * (1.0 + 1e-4))) continue;
            ++checked;
            const Hit h = intersect_closest(v, o, d, 3.0e38f);
            if (!std::isfinite(ref.t)) {
                EXPECT_LT(h.id, 0) << "a hit where double finds none";
                continue;
            }
            if (h.id < 0) {
                ++missed;
                continue;
            }
            ++hits;
            if (std::fabs(double(h.t) - ref.t) > 1e-5 * ref.t) ++bad_t;
            const Surface sf = with_bvh_width(v, [&](auto w) {
                return surface_at<decltype(w)::value>(v, o, d, h.t, h.id, Cone{}, h.inst);
            });
            if (std::fabs(std::fabs(glm::dot(glm::dvec3(sf.n), ref.n)) - 1.0) > 1e-4) ++bad_n;
        }
        EXPECT_GT(hits, 1000) << "too few rays hit the instances to test them";
        EXPECT_EQ(missed, 0) << to_string(layout) << ": rays double hits that traversal missed, of " << checked;
        EXPECT_EQ(bad_t, 0) << to_string(layout) << ": hits whose distance is off by more than 1e-5";
        EXPECT_EQ(bad_n, 0) << to_string(layout) << ": hits whose normal is not the moved triangle's";
    }
}

TEST(Instances, HitsMatchDoubleUnderAnyTransform) { expect_hits_match_double(Point3(0.0), 1.0); }
TEST(Instances, HitsMatchDoubleFarAndSmall) { expect_hits_match_double(Point3(1e4, -3e3, 1e4), 1e-3); }
TEST(Instances, HitsMatchDoubleFarAndLarge) { expect_hits_match_double(Point3(-1e4, 0.0, 2e4), 1e3); }

// A ray leaving a hit point on the side it came from, in any direction there, never
// meets the triangle it left: the moved hit point's error bound covers where it is.
void expect_no_self_hits(const Point3& centre, double scale) {
    const Scene s = general_scene(centre, scale);
    const CompiledScene cs = compile_scene(s, AccelLayout::Bvh2);
    const SceneView v = cs.view();
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> jitter(-0.45, 0.45);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    int left = 0, self = 0;
    for (int i = 0; i < 3000; ++i) {
        const glm::dvec3 target = centre + scale * glm::dvec3(5.0 * jitter(rng), 3.0 * jitter(rng), 0.0);
        const glm::vec3 o(s.camera.from - cs.render_origin), d(glm::normalize(target - s.camera.from));
        const Hit h = intersect_closest(v, o, d, 3.0e38f);
        if (h.id < 0 || h.inst == kNoInstance) continue;
        const Surface sf = with_bvh_width(v, [&](auto w) { return surface_at<decltype(w)::value>(v, o, d, h.t, h.id, Cone{}, h.inst); });
        const glm::vec3 start = offset_origin(sf);
        for (int k = 0; k < 4; ++k) {
            // A direction on the normal's side, down to grazing ones.
            glm::vec3 r(unit(rng) * 2.0f - 1.0f, unit(rng) * 2.0f - 1.0f, unit(rng) * 2.0f - 1.0f);
            r = glm::normalize(r - glm::dot(r, sf.n) * sf.n) + sf.n * (k == 0 ? 1e-3f : unit(rng));
            r = glm::normalize(r);
            const Hit back = intersect_closest(v, start, r, 3.0e38f);
            ++left;
            if (back.id == h.id && back.inst == h.inst) ++self;
        }
    }
    EXPECT_GT(left, 2000);
    EXPECT_EQ(self, 0) << "rays leaving an instance met the triangle they left, of " << left;
}

TEST(Instances, NoSelfHitsNearTheOrigin) { expect_no_self_hits(Point3(0.0), 1.0); }
TEST(Instances, NoSelfHitsFarAndSmall) { expect_no_self_hits(Point3(1e4, -3e3, 1e4), 1e-3); }
TEST(Instances, NoSelfHitsFarAndLarge) { expect_no_self_hits(Point3(-1e4, 0.0, 2e4), 1e3); }

// ---------------------------------------------------------------------------
// The scene file
// ---------------------------------------------------------------------------

TEST(Instances, JsonPlacesNamedMeshes) {
    const Scene s = load_scene(std::string(SRT_SOURCE_DIR) + "/scenes/instances.json");
    ASSERT_EQ(s.meshes.size(), 1u);
    EXPECT_EQ(s.instances.size(), 6u);
    EXPECT_GT(s.meshes[0].triangles.size(), 1000u);
    EXPECT_EQ(s.instanced_triangle_count(), 6 * s.meshes[0].triangles.size());
    // The mirrored one: a negative determinant; the first: scale 0.6 and a quarter turn
    // about x, exact.
    EXPECT_LT(glm::determinant(s.instances[2].linear), 0.0);
    EXPECT_DOUBLE_EQ(s.instances[0].linear[1][2], 0.6);
    EXPECT_DOUBLE_EQ(s.instances[0].linear[1][1], 0.0);
    const CompiledScene cs = compile_scene(s, AccelLayout::Bvh8);
    EXPECT_EQ(cs.instances.size(), 7u);  // six and the scene's own sphere
    // The mesh stored once (with the references spatial splits add), not six times.
    Scene flat = s;
    flatten_instances(flat);
    const CompiledScene cf = compile_scene(flat, AccelLayout::Bvh8);
    EXPECT_LT(cs.prims.size(), 2 * s.meshes[0].triangles.size());
    EXPECT_GT(cf.prims.size(), 6 * s.meshes[0].triangles.size());
}

}  // namespace
