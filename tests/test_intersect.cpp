// Intersection: the primitive tests against analytic answers, and BVH traversal
// against brute force over every primitive.
#include "accel/hit_point.h"
#include "accel/intersect.h"
#include "render/scene_gpu.h"
#include "scene/load.h"
#include "scene/scene.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

using namespace srt;

namespace {

// The primitive tests as the scene's kernels run them (accel/intersect.h with_bvh_width:
// spheres in double where the scene has such spheres).
bool hit_prim_as_traversal(const SceneView& s, uint32_t k, const glm::vec3& o, const glm::vec3& d, float tmax,
                           float& t) {
    return s.precise_spheres ? hit_prim<true>(s.prim_tests, k, o, d, tmax, t)
                             : hit_prim<false>(s.prim_tests, k, o, d, tmax, t);
}
bool closer_prim_as_traversal(const SceneView& s, uint32_t k, const glm::vec3& o, const glm::vec3& d, Hit& h) {
    return s.precise_spheres ? closer_prim<kPreciseSpheres>(s, k, o, d, h) : closer_prim<0>(s, k, o, d, h);
}

constexpr float kInf = 3.0e38f;

// ---------------------------------------------------------------------------
// Analytic cases
// ---------------------------------------------------------------------------

TEST(IntersectSphere, HeadOnFromOutside) {
    float t = -1;
    ASSERT_TRUE(hit_sphere({0, 0, 10}, {0, 0, -1}, {0, 0, 0}, 4.0f, 2.0f, kInf, t));
    EXPECT_FLOAT_EQ(t, 8.0f);  // |o - c| - r
}

TEST(IntersectSphere, FromInsideHitsTheFarSide) {
    float t = -1;
    ASSERT_TRUE(hit_sphere({0, 0, 0}, {1, 0, 0}, {0, 0, 0}, 9.0f, 3.0f, kInf, t));
    EXPECT_FLOAT_EQ(t, 3.0f);
    ASSERT_TRUE(hit_sphere({1, 0, 0}, {-1, 0, 0}, {0, 0, 0}, 9.0f, 3.0f, kInf, t));
    EXPECT_FLOAT_EQ(t, 4.0f);
}

TEST(IntersectSphere, BehindTheOriginMisses) {
    float t = -1;
    EXPECT_FALSE(hit_sphere({0, 0, 10}, {0, 0, 1}, {0, 0, 0}, 4.0f, 2.0f, kInf, t));
}

TEST(IntersectSphere, Grazing) {
    float t = -1;
    // Tangent at x = 2 (r = 2): the discriminant is exactly 0, one touching point.
    ASSERT_TRUE(hit_sphere({2, 0, 10}, {0, 0, -1}, {0, 0, 0}, 4.0f, 2.0f, kInf, t));
    EXPECT_NEAR(t, 10.0f, 1e-4f);
    // Just outside the silhouette: a miss.
    EXPECT_FALSE(hit_sphere({2.001f, 0, 10}, {0, 0, -1}, {0, 0, 0}, 4.0f, 2.0f, kInf, t));
    // Just inside: two roots close together, the near one taken.
    ASSERT_TRUE(hit_sphere({1.999f, 0, 10}, {0, 0, -1}, {0, 0, 0}, 4.0f, 2.0f, kInf, t));
    EXPECT_NEAR(t, 10.0f - std::sqrt(4.0f - 1.999f * 1.999f), 1e-3f);
}

TEST(IntersectSphere, RespectsTmax) {
    float t = -1;
    EXPECT_FALSE(hit_sphere({0, 0, 10}, {0, 0, -1}, {0, 0, 0}, 4.0f, 2.0f, 7.9f, t));
    EXPECT_TRUE(hit_sphere({0, 0, 10}, {0, 0, -1}, {0, 0, 0}, 4.0f, 2.0f, 8.1f, t));
}

TEST(IntersectSphere, SmallDistantSphereIsPrecise) {
    // A tiny sphere far away: the hit point must lie on the sphere to float
    // precision (the b^2 - c form put such points well inside).
    const glm::vec3 c(1000.0f, 1000.0f, 1000.0f);
    const float r = 0.01f;
    const glm::vec3 o(0.0f);
    const glm::vec3 d = unit(c + glm::vec3(0.0f, 0.006f, 0.0f) - o);
    float t = -1;
    ASSERT_TRUE(hit_sphere(o, d, c, r * r, r, kInf, t));
    const float dist = glm::length(o + t * d - c);
    EXPECT_NEAR(dist, r, 2e-4f);  // |p| ~ 1700: ulp ~ 1.2e-4
}

TEST(IntersectPlane, HitBothSidesAndParallel) {
    float t = -1;
    ASSERT_TRUE(hit_plane({0, 5, 0}, {0, -1, 0}, {0, 0, 0}, {0, 1, 0}, kInf, t));
    EXPECT_FLOAT_EQ(t, 5.0f);
    ASSERT_TRUE(hit_plane({0, -5, 0}, {0, 1, 0}, {0, 0, 0}, {0, 1, 0}, kInf, t));  // from behind
    EXPECT_FLOAT_EQ(t, 5.0f);
    EXPECT_FALSE(hit_plane({0, 5, 0}, {1, 0, 0}, {0, 0, 0}, {0, 1, 0}, kInf, t));  // parallel
    EXPECT_FALSE(hit_plane({0, 0, 0}, {1, 0, 0}, {0, 0, 0}, {0, 1, 0}, kInf, t));  // in the plane
    EXPECT_FALSE(hit_plane({0, 5, 0}, {0, 1, 0}, {0, 0, 0}, {0, 1, 0}, kInf, t));  // behind
    EXPECT_FALSE(hit_plane({0, 5, 0}, {0, -1, 0}, {0, 0, 0}, {0, 1, 0}, 4.0f, t)); // beyond tmax
}

struct Tri {
    glm::vec3 v0, v1, v2;
};
bool tri_hit(const Tri& tr, glm::vec3 o, glm::vec3 d, float& t, float tmax = kInf) {
    const PrimTestGpu p = make_triangle_test(tr.v0, tr.v1 - tr.v0, tr.v2 - tr.v0);
    return hit_triangle(o, d, p.a, p.b, p.c, tmax, t);
}

TEST(IntersectTriangle, InsideEdgesOutside) {
    const Tri tr{{0, 0, 0}, {4, 0, 0}, {0, 4, 0}};
    float t = -1;
    ASSERT_TRUE(tri_hit(tr, {1, 1, 3}, {0, 0, -1}, t));
    EXPECT_FLOAT_EQ(t, 3.0f);
    // On an edge and on a vertex: inside (the tests use >= 0 and <= 1).
    EXPECT_TRUE(tri_hit(tr, {2, 0, 3}, {0, 0, -1}, t));
    EXPECT_TRUE(tri_hit(tr, {0, 0, 3}, {0, 0, -1}, t));
    EXPECT_TRUE(tri_hit(tr, {2, 2, 3}, {0, 0, -1}, t));  // on the hypotenuse
    EXPECT_FALSE(tri_hit(tr, {2.01f, 2.01f, 3}, {0, 0, -1}, t));
    EXPECT_FALSE(tri_hit(tr, {-0.01f, 1, 3}, {0, 0, -1}, t));
}

TEST(IntersectTriangle, BothWindingsBehindParallelTmax) {
    const Tri ccw{{0, 0, 0}, {4, 0, 0}, {0, 4, 0}};
    const Tri cw{{0, 0, 0}, {0, 4, 0}, {4, 0, 0}};
    float t = -1;
    EXPECT_TRUE(tri_hit(ccw, {1, 1, 3}, {0, 0, -1}, t));
    EXPECT_TRUE(tri_hit(cw, {1, 1, 3}, {0, 0, -1}, t));
    EXPECT_TRUE(tri_hit(ccw, {1, 1, -3}, {0, 0, 1}, t));   // from the back
    EXPECT_FALSE(tri_hit(ccw, {1, 1, 3}, {0, 0, 1}, t));   // behind the origin
    EXPECT_FALSE(tri_hit(ccw, {-1, 1, 0}, {1, 0, 0}, t));  // parallel, in its plane
    EXPECT_FALSE(tri_hit(ccw, {1, 1, 1}, {1, 0, 0}, t));   // parallel, above it
    EXPECT_FALSE(tri_hit(ccw, {1, 1, 3}, {0, 0, -1}, t, 2.9f));
}

TEST(IntersectTriangle, DegenerateTrianglesAreNeverHit) {
    float t = -1;
    EXPECT_FALSE(tri_hit({{0, 0, 0}, {4, 0, 0}, {8, 0, 0}}, {2, 1, 0}, {0, -1, 0}, t));  // collinear
    EXPECT_FALSE(tri_hit({{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, {0, 1, 0}, {0, -1, 0}, t));  // a point
    // Rows beyond float (an area of 1e-60) are set to 0 too.
    EXPECT_FALSE(tri_hit({{0, 0, 0}, {1e-30f, 0, 0}, {0, 1e-30f, 0}}, {1e-31f, 1e-31f, 1}, {0, 0, -1}, t));
}

// The precomputed transform against the barycentrics shading computes from the stored
// vertices (accel/hit_point.h, Moller-Trumbore): on random triangles and rays, wherever
// the hit is clear of the triangle's edges, both say hit or both say miss, and they agree
// on the distance.
TEST(IntersectTriangle, TransformAgreesWithMollerTrumbore) {
    uint32_t state = 12345u;
    auto rnd = [&] {
        state = state * 1664525u + 1013904223u;
        return float(state >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
    };
    int hits = 0, compared = 0;
    for (int i = 0; i < 20000; ++i) {
        const float scale = std::ldexp(1.0f, int(rnd() * 20.0f));  // 2^-20 .. 2^20
        const glm::vec3 c = glm::vec3(rnd(), rnd(), rnd()) * scale * 100.0f;
        const Tri tr{c + glm::vec3(rnd(), rnd(), rnd()) * scale, c + glm::vec3(rnd(), rnd(), rnd()) * scale,
                     c + glm::vec3(rnd(), rnd(), rnd()) * scale};
        const glm::vec3 o = c + glm::vec3(rnd(), rnd(), rnd()) * scale * 3.0f;
        const glm::vec3 target = c + glm::vec3(rnd(), rnd(), rnd()) * scale * 0.7f;
        const glm::vec3 d = unit(target - o);
        const glm::vec3 e1 = tr.v1 - tr.v0, e2 = tr.v2 - tr.v0;
        const HitPoint hp = triangle_hit_point(o, d, tr.v0, e1, e2);
        const float margin = 1e-3f;
        if (!(std::isfinite(hp.u) && std::isfinite(hp.v))) continue;
        const bool clearly_in = hp.u > margin && hp.v > margin && hp.u + hp.v < 1.0f - margin;
        const bool clearly_out = hp.u < -margin || hp.v < -margin || hp.u + hp.v > 1.0f + margin;
        if (!clearly_in && !clearly_out) continue;
        const glm::vec3 n = glm::cross(e1, e2);
        const float t_plane = glm::dot(tr.v0 - o, n) / glm::dot(d, n);
        if (!(t_plane > 1e-3f * scale)) continue;  // behind, or too close to the origin to judge
        float t = -1;
        const bool hit = tri_hit(tr, o, d, t);
        ++compared;
        ASSERT_EQ(hit, clearly_in) << "triangle " << i << ": u " << hp.u << " v " << hp.v;
        if (hit) {
            ++hits;
            EXPECT_NEAR(t, t_plane, 1e-4f * t_plane) << "triangle " << i;
        }
    }
    EXPECT_GT(compared, 5000);
    EXPECT_GT(hits, 1000);
}

TEST(IntersectTriangle, GrazingAngle) {
    const Tri tr{{0, 0, 0}, {4, 0, 0}, {0, 4, 0}};
    // Nearly parallel to the plane, descending 1e-3 over ~1 unit.
    const glm::vec3 d = unit(glm::vec3(1.0f, 0.0f, -1e-3f));
    float t = -1;
    ASSERT_TRUE(tri_hit(tr, {0.5f, 1.0f, 1e-3f}, d, t));
    const glm::vec3 p = glm::vec3(0.5f, 1.0f, 1e-3f) + t * d;
    EXPECT_NEAR(p.z, 0.0f, 1e-5f);
    EXPECT_NEAR(p.x, 1.5f, 1e-2f);
}

// ---------------------------------------------------------------------------
// BVH traversal against brute force
// ---------------------------------------------------------------------------

// Closest hit over every primitive and plane, no BVH.
Hit brute_closest(const SceneView& s, const glm::vec3& o, const glm::vec3& d) {
    Hit h{kInf, -1};
    for (uint32_t j = 0; j < s.plane_count; ++j) {
        float t;
        if (hit_plane(o, d, xyz(s.planes[j].point_mat), xyz(s.planes[j].normal), h.t, t)) {
            h.t = t;
            h.id = int32_t(s.prim_count + j);
        }
    }
    // Ties go as in traversal (closer_prim): a primitive beats a plane at the same
    // distance, and of two primitives the lower original id wins.
    for (uint32_t k = 0; k < s.prim_count; ++k) {
        float t;
        if (hit_prim_as_traversal(s, k, o, d, std::nextafter(h.t, kInf), t) &&
            (t < h.t || (t == h.t && h.id >= 0 &&
                         (uint32_t(h.id) >= s.prim_count || prim_key(s.prims, int32_t(k)) < prim_key(s.prims, h.id))))) {
            h.t = t;
            h.id = int32_t(k);
        }
    }
    return h;
}

// What a hit is, whichever copy of a primitive found it (a spatial split stores a cut
// primitive once a leaf, render/scene_gpu.h): its original id, or a plane's index.
uint64_t hit_key(const SceneView& s, int32_t id) {
    if (id < 0) return ~uint64_t(0);
    if (uint32_t(id) >= s.prim_count) return (uint64_t(1) << 32) | uint64_t(uint32_t(id) - s.prim_count);
    return prim_key(s.prims, id);
}

bool brute_any(const SceneView& s, const glm::vec3& o, const glm::vec3& d, float tmax) {
    const Hit h = brute_closest(s, o, d);
    return h.id >= 0 && h.t < tmax;
}

// Random rays through the scene's bounds: half from outside aimed at random points
// inside, half from random points inside in random directions.
void check_layout_against_brute_force(const Scene& scene, AccelLayout accel, const BvhBuildOptions& build, int rays,
                                      uint32_t seed, int min_hits);

constexpr AccelLayout kLayouts[] = {AccelLayout::Bvh2, AccelLayout::Bvh4, AccelLayout::Bvh8};
// Both builders (accel/bvh.h BvhBuilder): the SAH's tree and PLOC's, on the host.
const BvhBuildOptions kBuilders[] = {BvhBuildOptions{}, BvhBuildOptions{false, BvhBuilder::Ploc, nullptr}};

// Every layout (accel/bvh.h, bvh4.h, bvh8.h) of both builders' trees, each against brute force.
void check_against_brute_force(const Scene& scene, int rays, uint32_t seed, int min_hits = -1) {
    for (const BvhBuildOptions& b : kBuilders)
        for (AccelLayout a : kLayouts) {
            SCOPED_TRACE(std::string(to_string(a)) + (b.builder == BvhBuilder::Ploc ? " ploc" : " sah"));
            check_layout_against_brute_force(scene, a, b, rays, seed, min_hits);
        }
}

void check_layout_against_brute_force(const Scene& scene, AccelLayout accel, const BvhBuildOptions& build, int rays,
                                      uint32_t seed, int min_hits) {
    const CompiledScene cs = compile_scene(scene, accel, build);
    ASSERT_EQ(cs.nodes4.empty(), accel != AccelLayout::Bvh4 || cs.nodes.empty());
    ASSERT_EQ(cs.nodes8.empty(), accel != AccelLayout::Bvh8 || cs.nodes.empty());
    const SceneView s = cs.view();
    Bounds3 b = finite_bounds(scene);
    const glm::vec3 lo(b.lo), size(b.hi - b.lo);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    auto in_box = [&](float margin) {
        return lo - margin * size + (1.0f + 2.0f * margin) * glm::vec3(u(rng), u(rng), u(rng)) * size;
    };
    auto random_dir = [&]() {
        for (;;) {
            const glm::vec3 v(2 * u(rng) - 1, 2 * u(rng) - 1, 2 * u(rng) - 1);
            const float l = glm::dot(v, v);
            if (l > 1e-4f && l <= 1.0f) return unit(v);
        }
    };
    int hits = 0;
    for (int r = 0; r < rays; ++r) {
        glm::vec3 o, d;
        if (r % 2 == 0) {
            o = in_box(0.0f) + random_dir() * (2.0f * glm::length(size));
            d = unit(in_box(0.0f) - o);
        } else {
            o = in_box(0.1f);
            d = random_dir();
        }
        o -= glm::vec3(cs.render_origin);  // the compiled scene is in rendering space (scene_gpu.h)
        const Hit bvh = intersect_closest(s, o, d, kInf);
        const Hit ref = brute_closest(s, o, d);
        ASSERT_EQ(bvh.id >= 0, ref.id >= 0) << "ray " << r;
        if (ref.id >= 0) {
            ++hits;
            // Same primitive tests, so the same closest distance to the bit, and the
            // same original id: ties go to the lower one in both.
            ASSERT_EQ(bvh.t, ref.t) << "ray " << r;
            ASSERT_EQ(hit_key(s, bvh.id), hit_key(s, ref.id)) << "ray " << r;
        }
        // Any-hit (shadow rays) with a finite tmax: half the closest distance, or 1.
        const float tmax = ref.id >= 0 ? (r % 3 == 0 ? ref.t * 0.5f : ref.t * 1.5f) : 1.0f;
        ASSERT_EQ(occluded(s, o, d, tmax), brute_any(s, o, d, tmax)) << "ray " << r;
    }
    // Guard against a test that passes because nothing is ever hit.
    EXPECT_GT(hits, min_hits >= 0 ? min_hits : rays / 10);
    EXPECT_LT(hits, rays);
}

Scene random_soup(int triangles, int spheres, uint32_t seed) {
    Scene s;
    s.name = "test:soup";
    s.add_material(Material{});
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-10.0f, 10.0f), small(-1.0f, 1.0f), rad(0.05f, 1.0f);
    for (int i = 0; i < triangles; ++i) {
        const glm::vec3 c(u(rng), u(rng), u(rng));
        s.triangles.push_back({Point3(c + glm::vec3(small(rng), small(rng), small(rng))),
                               Point3(c + glm::vec3(small(rng), small(rng), small(rng))),
                               Point3(c + glm::vec3(small(rng), small(rng), small(rng))), 0});
    }
    for (int i = 0; i < spheres; ++i) s.spheres.push_back({Point3{u(rng), u(rng), u(rng)}, rad(rng), 0});  // braces: left to right
    return s;
}

// A closed torus of quads (shared edges and vertices: the cases where rays pass
// between two triangles).
Scene torus(int nu, int nv) {
    Scene s;
    s.name = "test:torus";
    s.add_material(Material{});
    auto p = [&](int i, int j) {
        const float a = 6.2831853f * float(i % nu) / float(nu), b = 6.2831853f * float(j % nv) / float(nv);
        return Point3(glm::vec3((3.0f + std::cos(b)) * std::cos(a), std::sin(b), (3.0f + std::cos(b)) * std::sin(a)));
    };
    for (int i = 0; i < nu; ++i)
        for (int j = 0; j < nv; ++j) {
            s.triangles.push_back({p(i, j), p(i + 1, j), p(i + 1, j + 1), 0});
            s.triangles.push_back({p(i, j), p(i + 1, j + 1), p(i, j + 1), 0});
        }
    return s;
}

// Long thin triangles across the scene, every way, as in architecture (Conference's
// walls and rails): their boxes overlap, so the build cuts them with spatial splits.
Scene slivers(int n, uint32_t seed) {
    Scene s;
    s.name = "test:slivers";
    s.add_material(Material{});
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-10.0f, 10.0f), w(0.02f, 0.3f);
    for (int i = 0; i < n; ++i) {
        const glm::vec3 a(u(rng), u(rng), u(rng)), b(u(rng), u(rng), u(rng));
        const glm::vec3 side = w(rng) * unit(glm::cross(b - a, glm::vec3(u(rng), u(rng), u(rng))));
        s.triangles.push_back({Point3(a), Point3(b), Point3(a + side), 0});
    }
    for (int i = 0; i < n; ++i) s.spheres.push_back({Point3{u(rng), u(rng), u(rng)}, 0.2, 0});
    return s;
}

TEST(Bvh, MatchesBruteForceOnSlivers) {
    const Scene s = slivers(1500, 7);
    ASSERT_GT(compile_scene(s).bvh_stats.references, s.triangles.size() + s.spheres.size())
        << "no primitive was cut: the test would not test spatial splits";
    check_against_brute_force(s, 4000, 18);
}

// With spatial splits and without, every layout finds the same primitive at the same
// distance: a copy of a cut primitive is the same bytes, and ties go by original id.
TEST(Bvh, SpatialSplitsChangeNoHit) {
    const Scene s = slivers(1000, 8);
    for (AccelLayout a : kLayouts) {
        SCOPED_TRACE(to_string(a));
        const CompiledScene on = compile_scene(s, a, BvhBuildOptions{true});
        const CompiledScene off = compile_scene(s, a, BvhBuildOptions{false});
        const size_t prims = s.triangles.size() + s.spheres.size();
        ASSERT_EQ(off.bvh_stats.references, prims);
        ASSERT_EQ(off.prims.size(), prims);
        ASSERT_GT(on.bvh_stats.spatial_splits, 0u);
        ASSERT_EQ(on.prims.size(), on.bvh_stats.references);
        // Each copy is its primitive's bytes.
        std::vector<int> seen(prims, -1);
        for (size_t k = 0; k < on.prims.size(); ++k) {
            const uint32_t id = prim_key(on.view().prims, int32_t(k));
            ASSERT_LT(id, prims);
            if (seen[id] < 0) { seen[id] = int(k); continue; }
            EXPECT_EQ(std::memcmp(&on.prims[k], &on.prims[size_t(seen[id])], sizeof(PrimGpu)), 0);
            EXPECT_EQ(std::memcmp(&on.prim_tests[k], &on.prim_tests[size_t(seen[id])], sizeof(PrimTestGpu)), 0);
        }
        for (size_t id = 0; id < prims; ++id) ASSERT_GE(seen[id], 0) << "primitive " << id << " is in no leaf";
        const SceneView von = on.view(), voff = off.view();
        std::mt19937 rng(9);
        std::uniform_real_distribution<float> u(-12.0f, 12.0f);
        int hits = 0;
        for (int r = 0; r < 20000; ++r) {
            const glm::vec3 o = glm::vec3(u(rng), u(rng), u(rng)) - glm::vec3(on.render_origin);
            const glm::vec3 d = unit(glm::vec3(u(rng), u(rng), u(rng)));
            const Hit h1 = intersect_closest(von, o, d, kInf), h0 = intersect_closest(voff, o, d, kInf);
            ASSERT_EQ(hit_key(von, h1.id), hit_key(voff, h0.id)) << "ray " << r;
            ASSERT_EQ(h1.t, h0.t) << "ray " << r;
            hits += h1.id >= 0;
            const float tmax = h0.id >= 0 ? h0.t * (r % 2 ? 0.999f : 1.001f) : 1e3f;
            ASSERT_EQ(occluded(von, o, d, tmax), occluded(voff, o, d, tmax)) << "ray " << r;
        }
        EXPECT_GT(hits, 20000 / 4);
    }
}

TEST(Bvh, MatchesBruteForceOnTriangleSoup) { check_against_brute_force(random_soup(3000, 0, 1), 4000, 11); }

TEST(Bvh, MatchesBruteForceOnSpheresTrianglesAndPlanes) {
    Scene s = random_soup(500, 500, 2);
    Plane floor;
    floor.point = {0, -11, 0};
    s.planes.push_back(floor);
    check_against_brute_force(s, 4000, 12);
}

TEST(Bvh, MatchesBruteForceOnAClosedMesh) { check_against_brute_force(torus(64, 32), 4000, 13); }

TEST(Bvh, MatchesBruteForceOnTinyScenes) {
    // One primitive (the root is a single leaf wrapped in one node) and a handful.
    check_against_brute_force(random_soup(1, 0, 3), 500, 14, 0);
    check_against_brute_force(random_soup(3, 2, 4), 500, 15, 5);
    check_against_brute_force(random_soup(40, 0, 5), 1000, 16, 10);
}

TEST(Bvh, MatchesBruteForceOnThousandsOfSpheres) { check_against_brute_force(random_soup(0, 4000, 6), 3000, 17); }

// The tie rule itself: a hit at the same distance replaces the hit so far only with a
// lower original id (not a lower position in the layout's order) or when the hit so far
// is a plane, and a hit at the initial tmax never counts.
TEST(Bvh, CloserPrimBreaksTiesByLowerOriginalId) {
    Scene s;
    s.name = "test:tie-rule";
    s.add_material(Material{});
    for (int i = 0; i < 3; ++i) s.triangles.push_back({{-1, -1, 0}, {2, -1, 0}, {-1, 2, 0}, 0});
    for (AccelLayout a : kLayouts) {
        SCOPED_TRACE(to_string(a));
        const CompiledScene cs = compile_scene(s, a);
        const SceneView v = cs.view();
        uint32_t at[3];  // at[i]: the position of original triangle i
        for (uint32_t k = 0; k < 3; ++k) at[prim_key(v.prims, int32_t(k))] = k;
        const glm::vec3 o = glm::vec3(0.1f, 0.2f, 3.0f) - glm::vec3(cs.render_origin), d(0, 0, -1);
        float t = 0.0f;
        ASSERT_TRUE(hit_prim_as_traversal(v, at[1], o, d, kInf, t));
        Hit h{t, int32_t(at[2])};
        EXPECT_TRUE(closer_prim_as_traversal(v, at[1], o, d, h));  // same t, lower original id: replaces
        EXPECT_EQ(h.id, int32_t(at[1]));
        EXPECT_FALSE(closer_prim_as_traversal(v, at[2], o, d, h));  // same t, higher: does not
        EXPECT_EQ(h.id, int32_t(at[1]));
        Hit plane{t, int32_t(v.prim_count)};  // a plane's id at the same t: the primitive wins
        EXPECT_TRUE(closer_prim_as_traversal(v, at[2], o, d, plane));
        Hit at_tmax{t, -1};  // a hit exactly at the initial tmax is not a hit
        EXPECT_FALSE(closer_prim_as_traversal(v, at[0], o, d, at_tmax));
        EXPECT_EQ(at_tmax.id, -1);
        EXPECT_EQ(prim_key(v.prims, intersect_closest(v, o, d, kInf).id), 0u);  // traversal agrees
    }
}

// Every triangle of a grid twice: each ray that hits the grid hits two primitives at
// exactly the same distance (the same arithmetic), and every layout returns the
// primitive brute force returns, the same original primitive in all. (The rule itself is
// tested above.) The rays are oblique: a ray parallel to a box face
// and lying exactly in it is outside the slab test's reach (a zero direction component
// becomes 1e-20, and the face's slab then ends at t = 0), so axis-aligned rays along the
// grid lines would test that, not the ties.
TEST(Bvh, TiesGoToTheLowestIdInBothLayouts) {
    Scene s;
    s.name = "test:ties";
    s.add_material(Material{});
    for (int copy = 0; copy < 2; ++copy)
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 16; ++j) {
                const glm::vec3 p(float(i), float(j), 0.0f);
                s.triangles.push_back({p, p + glm::vec3(1, 0, 0), p + glm::vec3(1, 1, 0), 0});
                s.triangles.push_back({p, p + glm::vec3(1, 1, 0), p + glm::vec3(0, 1, 0), 0});
            }
    const glm::vec3 d = unit(glm::vec3(0.013f, 0.021f, -1.0f));
    std::vector<uint32_t> first_keys;  // the original ids the first layout hit
    for (const BvhBuildOptions& b : kBuilders)
    for (AccelLayout a : kLayouts) {
        const CompiledScene cs = compile_scene(s, a, b);
        const SceneView v = cs.view();
        std::vector<uint32_t> keys;
        int ties = 0;
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 16; ++j)
                for (float off : {0.3f, 0.5f, 0.7f}) {
                    const glm::vec3 target(float(i) + off, float(j) + 1.0f - off * 0.9f, 0.0f);
                    const glm::vec3 o = target - 5.0f * d - glm::vec3(cs.render_origin);
                    const Hit h = intersect_closest(v, o, d, kInf);
                    const Hit ref = brute_closest(v, o, d);
                    ASSERT_GE(ref.id, 0);
                    ASSERT_EQ(hit_key(v, h.id), hit_key(v, ref.id)) << to_string(a) << " at " << i << "," << j << "+" << off;
                    ASSERT_EQ(h.t, ref.t);
                    keys.push_back(prim_key(v.prims, h.id));
                    int n = 0;  // primitives hit at that distance
                    for (uint32_t k = 0; k < v.prim_count; ++k) {
                        float t;
                        if (hit_prim_as_traversal(v, k, o, d, kInf, t) && t == ref.t) ++n;
                    }
                    ties += n > 1;
                }
        EXPECT_EQ(ties, 16 * 16 * 3) << "every ray must meet a tie, or the test tests nothing";
        if (first_keys.empty()) first_keys = keys;
        EXPECT_EQ(keys, first_keys) << to_string(a) << " hit other primitives than bvh2";
    }
}

TEST(Bvh, DegenerateInputsKeepTheDepthBound) {
    // Every triangle at the same place: SAH cannot split; the builder must still
    // produce a valid tree within the traversal stack.
    Scene s;
    s.name = "test:stack";
    s.add_material(Material{});
    for (int i = 0; i < 5000; ++i) s.triangles.push_back({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, 0});
    const CompiledScene cs4 = compile_scene(s, AccelLayout::Bvh4);  // its stack bound holds too
    EXPECT_LE(cs4.bvh4_stats.max_stack, uint32_t(kBvh4StackSize));
    EXPECT_EQ(intersect_closest(cs4.view(), glm::vec3(0.25f, 0.25f, 1.0f) - glm::vec3(cs4.render_origin), {0, 0, -1}, kInf).t, 1.0f);
    const CompiledScene cs8 = compile_scene(s, AccelLayout::Bvh8);  // and the BVH8's
    EXPECT_LT(cs8.bvh8_stats.max_depth, uint32_t(kBvh8StackSize));
    const Hit h8 = intersect_closest(cs8.view(), glm::vec3(0.25f, 0.25f, 1.0f) - glm::vec3(cs8.render_origin), {0, 0, -1}, kInf);
    EXPECT_EQ(h8.t, 1.0f);
    EXPECT_EQ(prim_key(cs8.view().prims, h8.id), 0u);  // of 5,000 at the same distance, the first
    const CompiledScene cs = compile_scene(s);
    EXPECT_LT(cs.bvh_stats.max_depth, uint32_t(kBvhStackSize - 1));
    EXPECT_LE(cs.bvh_stats.max_leaf_size, uint32_t(kMaxLeafPrims));
    const glm::vec3 o = glm::vec3(0.25f, 0.25f, 1.0f) - glm::vec3(cs.render_origin);  // rendering space
    const Hit h = intersect_closest(cs.view(), o, {0, 0, -1}, kInf);
    EXPECT_GE(h.id, 0);
    EXPECT_FLOAT_EQ(h.t, 1.0f);
}

TEST(Bvh, MatchesBruteForceOnSharedMeshes) {
    const std::string dir = std::string(SRT_SHARED_DATA) + "/meshes";
    if (!std::filesystem::exists(dir)) GTEST_SKIP() << "shared data not found: " << dir;
    uint32_t seed = 20;
    for (const char* name : {"suzanne.obj", "teapot.obj", "spot.obj", "stanford-bunny.obj"}) {
        SCOPED_TRACE(name);
        const Scene s = load_scene(dir + "/" + name);
        check_against_brute_force(s, std::string(name) == "stanford-bunny.obj" ? 600 : 2000, seed++);
    }
}

}  // namespace
