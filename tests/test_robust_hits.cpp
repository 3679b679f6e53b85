// Robust hit points and ray offsets (accel/hit_point.h): a ray that leaves a surface
// never hits that surface again, at any scale and any distance from the origin.
//
// Each case is a scene of ONE convex or flat primitive (a sphere seen from outside, a
// plane, a triangle). A reflected ray leaving such a surface, and a shadow ray towards a
// light on the lit side, can never meet it again in exact arithmetic, so every hit they
// report is a self-intersection: the bug of a hit point with more error than its offset.
// Rays are aimed at random points of the primitive, from random directions down to
// grazing ones, and the cases run over scales 1e-3 .. 1e3 and translations to 1e5 (not
// both at once: a sphere of radius 2e-4 at x = 1e4, where one float step is 1e-3, is
// not a sphere any more).
#include "accel/intersect.h"
#include "render/scene_gpu.h"
#include "render/stages.h"
#include "scene/scene.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

using namespace srt;

namespace {

struct Counts {
    int hits = 0;             // primary rays that hit the primitive
    int reflect_rehits = 0;   // reflected rays that hit it again
    int shadow_rehits = 0;    // shadow rays (light on the lit side) that hit it again
    double worst_origin = 0;  // largest |o - p| / scale: how far offsets push
};

glm::vec3 random_unit(std::mt19937& rng) {
    std::normal_distribution<float> g;
    for (;;) {
        const glm::vec3 v(g(rng), g(rng), g(rng));
        const float l = glm::length(v);
        if (l > 1e-3f) return v / l;
    }
}

// Shoots `n` rays at points `target()` from directions on the side `outward(point)`
// faces, from `dist` away, and counts self-intersections of the secondary rays.
template <class Target, class Outward>
Counts shoot(const Scene& s, int n, float scale, float dist, Target target, Outward outward,
             uint32_t seed, float min_cos = 1e-3f) {
    // Rendering space is world space here (the camera at the origin, see scene_gpu.h):
    // these cases test the hit points themselves, far from the origin as well.
    Scene world = s;
    world.camera.from = glm::vec3(0.0f);
    world.camera.at = glm::vec3(0.0f, 0.0f, -1.0f);
    const CompiledScene cs = compile_scene(world);
    const SceneView v = cs.view();
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u01(0.0f, 1.0f);
    Counts c;
    for (int k = 0; k < n; ++k) {
        const glm::vec3 p = target(rng);
        const glm::vec3 out = outward(p);
        // A direction towards p from the outside, from head-on to grazing (cos down to
        // min_cos): mix the outward normal with a tangent.
        glm::vec3 t = glm::cross(out, random_unit(rng));
        t = glm::normalize(t);
        const float cosine = k % 4 == 0 ? min_cos + 0.02f * u01(rng) : min_cos + (1.0f - min_cos) * u01(rng);
        const glm::vec3 back = cosine * out + std::sqrt(1.0f - cosine * cosine) * t;
        const glm::vec3 o = p + (dist * scale) * back;
        const glm::vec3 d = unit(p - o);
        const Hit h = intersect_closest(v, o, d, 3.0e38f);
        if (h.id < 0) continue;
        ++c.hits;
        const Surface sf = with_bvh_width(v, [&](auto w) { return surface_at<decltype(w)::value>(v, o, d, h.t, h.id); });
        const glm::vec3 so = offset_origin(sf);
        c.worst_origin = std::max(c.worst_origin, double(glm::length(so - sf.p)) / scale);
        const glm::vec3 r = unit(reflect_dir(d, sf.n));
        if (intersect_closest(v, so, r, 3.0e38f).id >= 0) ++c.reflect_rehits;
        // A light low over the surface: 1e-3 rad above its tangent plane, far away.
        glm::vec3 tl = glm::normalize(glm::cross(sf.n, random_unit(rng)));
        const glm::vec3 to_light = unit(std::sin(1e-3f + 0.05f * u01(rng)) * sf.n + tl);
        if (glm::dot(sf.n, to_light) > 0.0f && occluded(v, so, to_light, 100.0f * scale))
            ++c.shadow_rehits;
    }
    return c;
}

struct Case {
    float scale;
    glm::vec3 offset;
};
std::string name(const Case& k) {
    char b[96];
    std::snprintf(b, sizeof b, "scale %g at (%g, %g, %g)", k.scale, k.offset.x, k.offset.y,
                  k.offset.z);
    return b;
}
const Case kCases[] = {
    {1.0f, {0, 0, 0}},     {1e-3f, {0, 0, 0}},         {1e3f, {0, 0, 0}},
    {1.0f, {1e4f, 0, 1e4f}}, {1.0f, {-3e4f, 7e3f, 1e5f}}, {1e-3f, {10.0f, 0, 10.0f}},
    {1e3f, {1e4f, -2e4f, 5e3f}},
};

void expect_none(const Counts& c, int n, const std::string& what) {
    // The rays were aimed at it; a quarter of them graze it, and some of those miss.
    EXPECT_GT(c.hits, n * 3 / 4) << what;
    EXPECT_EQ(c.reflect_rehits, 0) << what << ": reflected rays hit their own surface again";
    EXPECT_EQ(c.shadow_rehits, 0) << what << ": shadow rays shadowed their own surface";
}

TEST(RobustHits, BigSphereFromOutside) {
    // The ground of scenes/big-sphere.json: radius 1000, hits near its top.
    for (const Case& k : kCases) {
        Scene s;
        s.add_material({});
        const float r = 1000.0f * k.scale;
        const glm::vec3 centre = glm::vec3(0, -1000.0f, 0) * k.scale + k.offset;
        s.spheres.push_back({Point3(centre), r, 0});
        const int n = 4000;
        std::uniform_real_distribution<float> patch(-15.0f, 15.0f);
        const Counts c = shoot(
            s, n, k.scale, 20.0f,
            [&](std::mt19937& rng) {
                // Points on the sphere near its top, within 15 units of it.
                const glm::vec3 dir = glm::normalize(glm::vec3(patch(rng), 1000.0f, patch(rng)));
                return centre + r * dir;
            },
            [&](const glm::vec3& p) { return glm::normalize(p - centre); }, 17);
        expect_none(c, n, "radius-1000 sphere, " + name(k));
    }
}

TEST(RobustHits, SmallSpheresFromOutside) {
    for (const Case& k : kCases) {
        for (const float radius : {0.2f, 1.0f, 37.0f}) {
            Scene s;
            s.add_material({});
            const float r = radius * k.scale;
            const glm::vec3 centre = glm::vec3(3.0f, 0.2f, -2.0f) * k.scale + k.offset;
            s.spheres.push_back({Point3(centre), r, 0});
            const int n = 2000;
            // A hit point is good to a float step of its coordinates, so a sphere's
            // normal is good to about step / r radians. Grazing rays are only aimed
            // above that (16 steps): below it the reflected ray may point into the
            // sphere, which no hit point or offset can fix. Far from the origin, the
            // smallest spheres lose their most grazing rays to this (radius 0.2 at
            // x = 1e5 is 25 float steps, and is aimed at no lower than cos 0.5).
            const float far = std::max({std::fabs(centre.x), std::fabs(centre.y), std::fabs(centre.z)});
            const float step = std::nextafter(far, 2.0f * far + 1.0f) - far;
            const float min_cos = std::min(0.5f, std::max(1e-3f, 16.0f * step / r));
            const Counts c = shoot(
                s, n, k.scale, 5.0f * radius,
                [&](std::mt19937& rng) { return centre + r * random_unit(rng); },
                [&](const glm::vec3& p) { return glm::normalize(p - centre); }, 23, min_cos);
            expect_none(c, n, "sphere of radius " + std::to_string(radius) + ", " + name(k));
        }
    }
}

TEST(RobustHits, LargeTriangles) {
    for (const Case& k : kCases) {
        // A ground triangle 2000 units across, and a tilted one.
        const glm::vec3 tris[2][3] = {
            {{-1000, 0, -1000}, {1000, 0, -1000}, {0, 0, 1000}},
            {{-800, -300, -500}, {900, 250, -700}, {-100, 400, 900}},
        };
        for (int which = 0; which < 2; ++which) {
            Scene s;
            s.add_material({});
            struct {
                glm::vec3 v0, v1, v2;
            } tri;  // the float corners the renderer gets
            tri.v0 = tris[which][0] * k.scale + k.offset;
            tri.v1 = tris[which][1] * k.scale + k.offset;
            tri.v2 = tris[which][2] * k.scale + k.offset;
            s.triangles.push_back({Point3(tri.v0), Point3(tri.v1), Point3(tri.v2), 0});
            const glm::vec3 n = glm::normalize(glm::cross(tri.v1 - tri.v0, tri.v2 - tri.v0));
            const int n_rays = 3000;
            std::uniform_real_distribution<float> u(0.0f, 1.0f);
            const Counts c = shoot(
                s, n_rays, k.scale, 30.0f,
                [&](std::mt19937& rng) {
                    // Near the middle (hits near 0 where it passes the origin, too).
                    float a = 0.25f + 0.5f * u(rng), b = 0.5f * u(rng);
                    if (a + b > 0.95f) b = 0.95f - a;
                    return tri.v0 + a * (tri.v1 - tri.v0) + b * (tri.v2 - tri.v0);
                },
                [&](const glm::vec3&) { return n; }, 29 + which);
            expect_none(c, n_rays, (which ? "tilted triangle, " : "ground triangle, ") + name(k));
        }
    }
}

TEST(RobustHits, Planes) {
    for (const Case& k : kCases) {
        const glm::vec3 normals[3] = {
            {0, 1, 0}, glm::normalize(glm::vec3(0.3f, 1.0f, -0.2f)),
            glm::normalize(glm::vec3(1.0f, 0.7f, 0.9f))};
        for (int which = 0; which < 3; ++which) {
            Scene s;
            s.add_material({});
            Plane pl;
            pl.normal = normals[which];
            // The point that defines it is far from where the rays hit.
            pl.point = glm::vec3(400.0f, 0.0f, 250.0f) * k.scale + k.offset;
            s.planes.push_back(pl);
            const glm::vec3 a = glm::normalize(glm::cross(pl.normal, glm::vec3(0.3f, 0.1f, 1.0f)));
            const glm::vec3 b = glm::cross(pl.normal, a);
            // Where the rays hit: around the plane's point nearest the translation.
            const glm::vec3 centre =
                k.offset + pl.normal * glm::dot(glm::vec3(pl.point) - k.offset, pl.normal);
            std::uniform_real_distribution<float> u(-20.0f, 20.0f);
            const int n = 3000;
            const Counts c = shoot(
                s, n, k.scale, 10.0f,
                [&](std::mt19937& rng) { return centre + k.scale * (u(rng) * a + u(rng) * b); },
                [&](const glm::vec3&) { return pl.normal; }, 31 + which);
            expect_none(c, n, "plane " + std::to_string(which) + ", " + name(k));
        }
    }
}

}  // namespace

// The wedge where a small sphere rests on a big one. A ray that reflects off the big
// sphere close to the contact must start outside the small sphere: the gap between the
// two there is x^2 / 2 (1/r + 1/R) at a distance x from the contact, 1e-4 at x = 6.3e-3
// for r = 0.2 and R = 1000. With the hit point projected in float its error bound was
// a few ulps of the radius, 3.6e-4, and the offset origin landed inside the small
// sphere wherever the gap was smaller (rings around every contact, and worse in their
// reflections: tests/test_contacts.cpp). Here every origin must be outside it, and the
// hit point must be where the exact intersection is, to 1e-6.
TEST(RobustHits, OriginsStayOutOfATouchingSphere) {
    Scene s;
    Material m;
    m.kr = {0.9f, 0.9f, 0.9f};
    s.materials = {m};
    const double R = 1000.0, r = 0.2;
    s.spheres.push_back({{0.0, -R, 0.0}, R, 0});
    s.spheres.push_back({{0.0, r, 0.0}, r, 0});  // touching at the origin
    s.camera.from = {1.5f, 0.8f, 1.1f};         // rendering space is relative to it
    const CompiledScene cs = compile_scene(s);
    const SceneView v = cs.view();
    const glm::dvec3 origin_w = glm::dvec3(cs.render_origin);  // rendering space -> world
    int inside = 0, shots = 0;
    double worst = 0.0;
    for (int k = 0; k < 400; ++k) {
        // Points of the big sphere at 2e-3 .. 2e-2 from the contact, each hit by a ray
        // that comes in low from outside, under the small sphere, and reflects into the wedge.
        const double x = 2e-3 + 1.8e-2 * (k / 400.0), a = 0.7 * k, el = 0.002 + 0.02 * ((k * 7) % 11) / 11.0;
        const glm::dvec3 target(x * std::cos(a), std::sqrt(R * R - x * x) - R, x * std::sin(a));
        const glm::dvec3 from = target + 5.0 * glm::dvec3(std::cos(a) * std::cos(el), std::sin(el), std::sin(a) * std::cos(el));
        const glm::vec3 o(from - origin_w), d = glm::vec3(glm::normalize(target - from));
        const Hit h = intersect_closest(v, o, d, 3.0e38f);
        if (h.id < 0 || prim_key(v.prims, h.id) != 0) continue;
        ++shots;
        const Surface sf = with_bvh_width(v, [&](auto w) { return surface_at<decltype(w)::value>(v, o, d, h.t, h.id); });
        // The exact hit of the same float ray, in double, on the scene's sphere.
        const glm::dvec3 dd(d), oc = (glm::dvec3(o) + origin_w) - glm::dvec3(0.0, -R, 0.0);
        const double b = glm::dot(oc, dd), a2 = glm::dot(dd, dd), cc = glm::dot(oc, oc) - R * R;
        const double t = (-b - std::sqrt(b * b - a2 * cc)) / a2;
        const glm::dvec3 exact = glm::dvec3(o) + t * dd;
        worst = std::max(worst, glm::length(glm::dvec3(sf.p) - exact));
        const glm::dvec3 start = glm::dvec3(offset_origin(sf)) + origin_w;
        if (glm::length(start - glm::dvec3(0.0, r, 0.0)) <= r) ++inside;
    }
    std::printf("[ robust ] %d rays on a big sphere near a touching small one: %d origins inside it, hit points "
                "within %.2e of the exact ones\n", shots, inside, worst);
    EXPECT_GT(shots, 300);
    EXPECT_EQ(inside, 0);
    EXPECT_LT(worst, 1e-6);
}
