// scene_geometry.cpp - a scene's primitives and their BVHs (render/scene_geometry.h).
#include "render/scene_geometry.h"

#include "accel/bvh8_collapse.h"
#include "accel/intersect.h"
#include "accel/ploc.h"
#include "core/error.h"
#include "core/load_progress.h"
#include "core/parallel.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

namespace srt {

namespace {

glm::dvec3 dvec(const glm::vec3& v) { return glm::dvec3(v.x, v.y, v.z); }

// The optional per-primitive arrays a triangle writes: one rule for the scan that sizes
// them and the pass that fills them.
struct TriangleArrays {
    bool normals, tangents, uvs, alpha;
};
TriangleArrays arrays_of(const Triangle& tri, const Material& mat) {
    return {tri.smooth, mat.normal_mapped() && tri.has_tangent && tri.has_uv, mat.reads_uvs(), mat.alpha_mask};
}

// How many texture-coordinate units one unit of length on the triangle spans, on average:
// sqrt(area in uv / area in the scene), from the scene's own double corners so that a
// moved scene gets the same value (render/surface.h: the ray cone's footprint in texels); 0 for a
// triangle without area in either. A mesh's, per unit of its object space (surface_at
// scales it by its instance's).
double uv_per_length(const Triangle& t) {
    const double area = glm::length(glm::cross(t.v1 - t.v0, t.v2 - t.v0));
    const glm::dvec2 a = glm::dvec2(t.uv1) - glm::dvec2(t.uv0), b = glm::dvec2(t.uv2) - glm::dvec2(t.uv0);
    const double uv_area = std::fabs(a.x * b.y - a.y * b.x);
    return area > 0.0 ? std::sqrt(uv_area / area) : 0.0;
}

struct Corners {
    glm::vec3 v0, v1, v2;
};

// One BVH's primitives: the scene's own spheres and triangles, in rendering space, or a
// mesh's triangles, in its object space (rounded from the file's doubles once, unmoved).
struct GeometrySet {
    const std::vector<Sphere>* spheres = nullptr;
    const std::vector<Triangle>* triangles = nullptr;
    Point3 origin{0.0};  // subtracted from every position: the rendering origin, or none
    // Built:
    std::vector<glm::vec3> centres;
    std::vector<Corners> tris;
    glm::vec3 lo{std::numeric_limits<float>::max()}, hi{-std::numeric_limits<float>::max()};  // its box
    Bvh bvh;  // order: into spheres, then triangles
    Bvh4 b4;
    Bvh8 b8;
    uint32_t node_base = 0, prim_base = 0;  // in the layout's arrays
    size_t ns() const { return spheres ? spheres->size() : 0; }
    size_t size() const { return ns() + triangles->size(); }
};

constexpr uint32_t kGrain = 16384;

void build_set(GeometrySet& g, AccelLayout accel, const BvhBuildOptions& options) {
    const int threads = host_cores();
    const size_t ns = g.ns(), nt = g.triangles->size();
    g.centres.resize(ns);
    for (size_t i = 0; i < ns; ++i) g.centres[i] = relative_to((*g.spheres)[i].centre, g.origin);
    g.tris.resize(nt);
    parallel_for(uint32_t(nt), kGrain, threads, [&](uint32_t b, uint32_t e) {
        for (size_t i = b; i < e; ++i) {
            const Triangle& t = (*g.triangles)[i];
            g.tris[i] = {relative_to(t.v0, g.origin), relative_to(t.v1, g.origin), relative_to(t.v2, g.origin)};
        }
    });
    // Primitives the BVH is built over: spheres first, then triangles.
    std::vector<BuildPrim> build(ns + nt);
    for (size_t i = 0; i < ns; ++i) {
        const float r = float((*g.spheres)[i].radius);
        build[i] = {g.centres[i] - glm::vec3(r), g.centres[i] + glm::vec3(r)};
    }
    parallel_for(uint32_t(nt), kGrain, threads, [&](uint32_t b, uint32_t e) {
        for (size_t i = b; i < e; ++i) {
            const Corners& t = g.tris[i];
            build[ns + i] = {glm::min(t.v0, glm::min(t.v1, t.v2)), glm::max(t.v0, glm::max(t.v1, t.v2)), true, t.v0, t.v1, t.v2};
        }
    });
    for (const BuildPrim& p : build) {
        g.lo = glm::min(g.lo, p.lo);
        g.hi = glm::max(g.hi, p.hi);
    }
    load_progress::Stage stage("build", build.size(), "primitives");
    // Where the GPU builds the tree it collapses it too, into the layout's own tree: the
    // host's collapse is most of what a quick build costs on the host.
    bool on_device = false;
    const bool ploc_on_device = options.builder == BvhBuilder::Ploc && options.device;
    if (accel == AccelLayout::Bvh8 && ploc_on_device)
        on_device = build_bvh_ploc_bvh8(build, options.device, g.bvh, g.b8);
    else if (accel == AccelLayout::Bvh4 && ploc_on_device)
        on_device = build_bvh_ploc_bvh4(build, options.device, g.bvh, g.b4);
    else
        g.bvh = build_bvh(build, options);
    if (accel == AccelLayout::Bvh4 && !on_device && !g.bvh.nodes.empty()) g.b4 = collapse_bvh4(g.bvh.nodes);
    if (accel == AccelLayout::Bvh8 && !g.bvh.nodes.empty()) {
        // The BVH8 wants each node's leaves together: the primitives move (and the BVH2's
        // leaves with them); ties go by original id, so no hit changes.
        if (on_device) relink_bvh2(g.bvh.nodes, g.b8.prim_order);
        else g.b8 = collapse_bvh8(g.bvh.nodes, g.bvh.order.size());
        std::vector<uint32_t> order(g.b8.prim_order.size());
        for (size_t k = 0; k < order.size(); ++k) order[k] = g.bvh.order[g.b8.prim_order[k]];
        g.bvh.order = std::move(order);
    }
}

// A set's nodes appended to the layout's array, their links moved by where its nodes and
// primitives start there.
void append_nodes(std::vector<BvhNode>& out, const std::vector<BvhNode>& in, uint32_t node_base, uint32_t prim_base) {
    for (BvhNode n : in) {
        for (int side = 0; side < 2; ++side) {
            int32_t& link = n.link[side];
            if (link >= 0) link += int32_t(node_base);
            else if (n.link[2 + side] > 0) link = ~(~link + int32_t(prim_base));
        }
        out.push_back(n);
    }
}
void append_nodes(std::vector<Bvh4Node>& out, const std::vector<Bvh4Node>& in, uint32_t node_base, uint32_t prim_base) {
    for (Bvh4Node n : in) {
        for (int32_t& c : n.child) {
            if (c >= 0) c += int32_t(node_base);
            else if (c != kBvh4Empty) {
                const uint32_t packed = uint32_t(~c);
                c = ~int32_t((((packed >> 3) + prim_base) << 3) | (packed & 7u));
            }
        }
        out.push_back(n);
    }
}
void append_nodes(std::vector<Bvh8Node>& out, const std::vector<Bvh8Node>& in, uint32_t node_base, uint32_t prim_base) {
    for (Bvh8Node n : in) {
        n.child_base += node_base;
        n.prim_base += prim_base;
        out.push_back(n);
    }
}

template <class Stats>
void add_stats(Stats& to, const Stats& from) {
    to.nodes += from.nodes;
    to.leaves += from.leaves;
    to.build_ms += from.build_ms;
    to.max_depth = std::max(to.max_depth, from.max_depth);
}

// Whether a transform moves every float exactly: a diagonal of powers of two (or their
// negatives), no translation.
bool exact_transform(const glm::dmat3& m, const glm::dvec3& t) {
    if (t != glm::dvec3(0.0)) return false;
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r) {
            const double v = m[c][r];
            if (r != c) {
                if (v != 0.0) return false;
            } else {
                int e;
                if (std::fabs(std::frexp(v, &e)) != 0.5) return false;
            }
        }
    return true;
}

float round_up(double v) {
    float f = float(v);
    if (double(f) < v) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    return f;
}

// Instance `inst` of a mesh whose object box is [lo, hi], in rendering space about
// `origin`: its record and its box there.
InstanceGpu make_instance(const Instance& inst, const glm::vec3& lo, const glm::vec3& hi, const Point3& origin,
                          BuildPrim& box) {
    const glm::dmat3& m = inst.linear;
    const glm::dvec3 t = inst.translate - origin;
    const glm::dmat3 a = glm::inverse(m);
    const glm::dvec3 b = -(a * t);
    InstanceGpu g;
    glm::dmat3 mf, af;  // the floats stored, column-major
    glm::dvec3 tf, bf;
    for (int r = 0; r < 3; ++r) {
        g.to_world[r] = f4{float(m[0][r]), float(m[1][r]), float(m[2][r]), float(t[r])};
        g.to_object[r] = f4{float(a[0][r]), float(a[1][r]), float(a[2][r]), float(b[r])};
        for (int c = 0; c < 3; ++c) {
            mf[c][r] = double(float(m[c][r]));
            af[c][r] = double(float(a[c][r]));
        }
        tf[r] = double(float(t[r]));
        bf[r] = double(float(b[r]));
    }
    const double det = glm::determinant(m);
    const bool exact = exact_transform(m, t);
    uint32_t flags = (det < 0.0 ? kInstanceMirror : 0u) | (exact ? kInstanceExact : 0u);
    // How far a point moved back by the stored to_world (x_r) can lie from the surface the
    // traversal hit through the stored to_object (x_t = af^-1 (p - bf)): both affine in
    // the object point p, so their difference is largest at a corner of the mesh's box.
    const glm::dmat3 af_inv = glm::inverse(af);
    double mismatch = 0.0;
    glm::dvec3 wlo(std::numeric_limits<double>::max()), whi(-std::numeric_limits<double>::max());
    for (int c = 0; c < 8; ++c) {
        const glm::dvec3 p((c & 1) ? hi.x : lo.x, (c & 2) ? hi.y : lo.y, (c & 4) ? hi.z : lo.z);
        const glm::dvec3 xr = mf * p + tf, xt = af_inv * (p - bf), xe = m * p + t;
        const glm::dvec3 e = glm::abs(xr - xt);
        mismatch = std::max({mismatch, e.x, e.y, e.z});
        wlo = glm::min(wlo, glm::min(xe, xt));
        whi = glm::max(whi, glm::max(xe, xt));
    }
    g.meta = f4{bits_float(0u), bits_float(flags), float(std::fabs(det)), exact ? 0.0f : round_up(2.0 * mismatch)};
    // The box in rendering space, grown by the mismatch and a margin relative to its size
    // and place, so that the hits the traversal finds in object space lie inside it.
    const double pad = 2.0 * mismatch + 1e-6 * (glm::length(whi - wlo) + glm::length(glm::abs(whi) + glm::abs(wlo)));
    box.lo = glm::vec3(wlo - glm::dvec3(pad));
    box.hi = glm::vec3(whi + glm::dvec3(pad));
    for (int k = 0; k < 3; ++k) {
        if (double(box.lo[k]) > wlo[k] - pad) box.lo[k] = std::nextafter(box.lo[k], -std::numeric_limits<float>::infinity());
        if (double(box.hi[k]) < whi[k] + pad) box.hi[k] = std::nextafter(box.hi[k], std::numeric_limits<float>::infinity());
    }
    return g;
}

}  // namespace

void compile_geometry(const Scene& scene, AccelLayout accel, const BvhBuildOptions& options, CompiledScene& cs) {
    const int threads = host_cores();
    // The sets: the scene's own primitives first, then each mesh an instance places.
    std::vector<GeometrySet> sets(1);
    sets[0].spheres = &scene.spheres;
    sets[0].triangles = &scene.triangles;
    sets[0].origin = cs.render_origin;
    std::vector<uint32_t> set_of_mesh(scene.meshes.size(), 0u);  // 0: none (set 0 is the scene's own)
    for (const Instance& inst : scene.instances) {
        const Mesh& m = scene.meshes[inst.mesh];
        if (set_of_mesh[inst.mesh] != 0u || m.triangles.empty()) continue;
        set_of_mesh[inst.mesh] = uint32_t(sets.size());
        GeometrySet g;
        g.triangles = &m.triangles;  // ids: each triangle's index, counted from its instance's base
        sets.push_back(std::move(g));
    }
    const bool instanced = sets.size() > 1;
    // A scene with instances is traversed as a BVH8, whatever was asked: its kernels are
    // compiled for that width alone (accel/variant.h kInstanced).
    if (instanced) accel = AccelLayout::Bvh8;
    for (GeometrySet& g : sets) build_set(g, accel, options);

    // Where each set's nodes and primitives start.
    size_t np = 0, nodes = 0;
    for (GeometrySet& g : sets) {
        g.prim_base = uint32_t(np);
        g.node_base = uint32_t(nodes);
        np += g.bvh.order.size();
        nodes += accel == AccelLayout::Bvh8 ? g.b8.nodes.size() : accel == AccelLayout::Bvh4 ? g.b4.nodes.size() : g.bvh.nodes.size();
    }
    if (np > size_t(std::numeric_limits<int32_t>::max()) / 8)
        throw InputError(scene.name, 0, "the scene holds more than 2^28 primitives (counting each mesh once)");
    uint32_t bvh2_base = 0;
    for (GeometrySet& g : sets) {
        append_nodes(cs.nodes, g.bvh.nodes, bvh2_base, g.prim_base);
        if (accel == AccelLayout::Bvh4) append_nodes(cs.nodes4, g.b4.nodes, g.node_base, g.prim_base);
        if (accel == AccelLayout::Bvh8) append_nodes(cs.nodes8, g.b8.nodes, g.node_base, g.prim_base);
        bvh2_base += uint32_t(g.bvh.nodes.size());
    }
    // The stats of the largest tree (its builder, steps and SAH cost), with every other's
    // counts and times added.
    size_t largest = 0;
    for (size_t i = 1; i < sets.size(); ++i)
        if (sets[i].size() > sets[largest].size()) largest = i;
    cs.bvh_stats = sets[largest].bvh.stats;
    cs.bvh4_stats = sets[largest].b4.stats;
    cs.bvh8_stats = sets[largest].b8.stats;
    for (size_t i = 0; i < sets.size(); ++i) {
        if (i == largest) continue;
        const BvhBuildStats& s = sets[i].bvh.stats;
        cs.bvh_stats.nodes += s.nodes;
        cs.bvh_stats.leaves += s.leaves;
        cs.bvh_stats.primitives += s.primitives;
        cs.bvh_stats.references += s.references;
        cs.bvh_stats.spatial_splits += s.spatial_splits;
        cs.bvh_stats.build_ms += s.build_ms;
        cs.bvh_stats.max_depth = std::max(cs.bvh_stats.max_depth, s.max_depth);
        add_stats(cs.bvh4_stats, sets[i].b4.stats);
        add_stats(cs.bvh8_stats, sets[i].b8.stats);
    }

    cs.prims.resize(np);
    cs.prim_tests.resize(np);
    // The optional per-primitive arrays exist where some triangle needs them.
    std::atomic<bool> any_smooth{false}, any_tangents{false}, any_uvs{false}, any_alpha{false};
    for (const GeometrySet& g : sets) {
        parallel_for(uint32_t(g.triangles->size()), kGrain, threads, [&](uint32_t b, uint32_t e) {
            bool smooth = false, tangents = false, uvs = false, alpha = false;
            for (size_t i = b; i < e; ++i) {
                const Triangle& tri = (*g.triangles)[i];
                const TriangleArrays a = arrays_of(tri, scene.materials[tri.material]);
                smooth = smooth || a.normals;
                tangents = tangents || a.tangents;
                uvs = uvs || a.uvs;
                alpha = alpha || a.alpha;
            }
            if (smooth) any_smooth = true;
            if (tangents) any_tangents = true;
            if (uvs) any_uvs = true;
            if (alpha) any_alpha = true;
        });
    }
    if (any_smooth) cs.normals.assign(3 * np, f4{0, 0, 0, 0});
    if (any_tangents) cs.tangents.assign(3 * np, f4{0, 0, 0, 0});
    if (any_uvs) cs.uvs.assign(2 * np, f4{0, 0, 0, 0});
    if (any_alpha) cs.prim_alpha.assign(np, kNoMaskGpu);
    for (size_t i = 0; i < sets[0].ns(); ++i) {
        // A scene with a sphere large against its distance from the camera, whose float
        // hit points would err by more than those of the things around it, computes
        // every sphere in double; a scene without one runs kernels without that code
        // (SceneView::precise_spheres).
        cs.precise_spheres = cs.precise_spheres || sphere_needs_double(sets[0].centres[i], float(scene.spheres[i].radius));
    }
    for (const GeometrySet& g : sets) {
        const size_t ns = g.ns();
        parallel_for(uint32_t(g.bvh.order.size()), kGrain, threads, [&](uint32_t kb, uint32_t ke) {
            for (size_t j = kb; j < ke; ++j) {
                const size_t k = g.prim_base + j;
                const uint32_t src = g.bvh.order[j];
                PrimGpu& p = cs.prims[k];
                if (src < ns) {
                    const Sphere& s = (*g.spheres)[src];
                    p.p0 = make_f4(g.centres[src], bits_float(kPrimSphereBit | s.material));
                    const float r = float(s.radius);
                    // What rounding the centre (in rendering space) and the radius to float lost,
                    // so that hit points can be found on the sphere the scene gave, in double
                    // (accel/hit_point.h): for a ground sphere of radius 1000 the float centre is
                    // up to 3e-5 off, more than the gaps at contacts.
                    const glm::vec3 centre_lo(s.centre - g.origin - dvec(g.centres[src]));
                    const float r_lo = float(s.radius - double(r));
                    p.p1 = f4{r, r * r, r_lo, float(1.0 / s.radius)};  // 1/r: the cone's curvature (render/surface.h)
                    p.p2 = f4{centre_lo.x, centre_lo.y, centre_lo.z, bits_float(src)};
                    cs.prim_tests[k] = make_sphere_test(g.centres[src], r, centre_lo, r_lo);
                } else {
                    const Corners& t = g.tris[src - ns];
                    const Triangle& tri = (*g.triangles)[src - ns];
                    p.p0 = make_f4(t.v0, bits_float((tri.material & kPrimMaterialMask) | (tri.smooth ? kPrimSmoothBit : 0u)));
                    const TriangleArrays a = arrays_of(tri, scene.materials[tri.material]);
                    if (a.normals) {
                        cs.normals[3 * k + 0] = make_f4(tri.n0, 0.0f);
                        cs.normals[3 * k + 1] = make_f4(tri.n1, 0.0f);
                        cs.normals[3 * k + 2] = make_f4(tri.n2, 0.0f);
                    }
                    if (a.tangents) {
                        cs.tangents[3 * k + 0] = make_f4(glm::vec3(tri.t0), tri.t0.w);
                        cs.tangents[3 * k + 1] = make_f4(glm::vec3(tri.t1), tri.t1.w);
                        cs.tangents[3 * k + 2] = make_f4(glm::vec3(tri.t2), tri.t2.w);
                    }
                    if (a.uvs) {
                        cs.uvs[2 * k + 0] = f4{tri.uv0.x, tri.uv0.y, tri.uv1.x, tri.uv1.y};
                        cs.uvs[2 * k + 1] = f4{tri.uv2.x, tri.uv2.y, float(uv_per_length(tri)), 0.0f};
                    }
                    if (a.alpha) cs.prim_alpha[k] = tri.material;
                    const glm::vec3 e1 = t.v1 - t.v0, e2 = t.v2 - t.v0;
                    p.p1 = make_f4(e1, 0.0f);
                    p.p2 = make_f4(e2, bits_float(src));
                    cs.prim_tests[k] = make_triangle_test(t.v0, e1, e2);
                }
            }
        });
    }
    if (!instanced) return;

    // The top level: the scene's own primitives (in rendering space already) and each
    // instance, over their boxes there; the instances stored in its order.
    std::vector<InstanceGpu> records;
    std::vector<BuildPrim> boxes;
    // The box of everything, as compile_light_table measures a scene without instances
    // (prim_bounds), each mesh's moved in double: a flattened copy's, where the transforms
    // move floats exactly.
    const auto set_bounds = [&](const GeometrySet& g, glm::dvec3& lo, glm::dvec3& hi) {
        lo = glm::dvec3(std::numeric_limits<double>::max());
        hi = -lo;
        for (size_t k = g.prim_base; k < g.prim_base + g.bvh.order.size(); ++k) grow_prim_bounds(cs.prims[k], lo, hi);
    };
    set_bounds(sets[0], cs.instanced_lo, cs.instanced_hi);
    if (sets[0].size() > 0) {
        InstanceGpu own{};
        for (int r = 0; r < 3; ++r) {
            own.to_object[r] = f4{r == 0 ? 1.0f : 0.0f, r == 1 ? 1.0f : 0.0f, r == 2 ? 1.0f : 0.0f, 0.0f};
            own.to_world[r] = own.to_object[r];
        }
        own.meta = f4{bits_float(sets[0].node_base), bits_float(kInstanceIdentity | kInstanceExact), 1.0f, 0.0f};
        own.keys = f4{bits_float(0u), bits_float(kNoInstance), 0.0f, 0.0f};
        records.push_back(own);
        boxes.push_back(BuildPrim{sets[0].lo, sets[0].hi});
    }
    // An instance's primitives are counted from the id its first triangle has in the
    // flattened scene (scene/instances.h): after the spheres and the scene's own triangles,
    // and every earlier instance's.
    size_t key_base = scene.spheres.size() + scene.triangles.size();
    for (const Instance& inst : scene.instances) {
        const uint32_t set = set_of_mesh[inst.mesh];
        const size_t base = key_base;
        key_base += scene.meshes[inst.mesh].triangles.size();
        if (key_base > 0xffffffffu) throw InputError(scene.name, 0, "the instances place more than 2^32 triangles");
        if (set == 0u) continue;  // a mesh without triangles
        const GeometrySet& g = sets[set];
        BuildPrim box;
        InstanceGpu rec = make_instance(inst, g.lo, g.hi, cs.render_origin, box);
        glm::dvec3 lo, hi;
        set_bounds(g, lo, hi);
        for (int c = 0; c < 8; ++c) {
            const glm::dvec3 p((c & 1) ? hi.x : lo.x, (c & 2) ? hi.y : lo.y, (c & 4) ? hi.z : lo.z);
            const glm::dvec3 w = inst.linear * p + (inst.translate - cs.render_origin);
            cs.instanced_lo = glm::min(cs.instanced_lo, w);
            cs.instanced_hi = glm::max(cs.instanced_hi, w);
        }
        rec.meta.x = bits_float(g.node_base);
        rec.keys = f4{bits_float(uint32_t(base)), bits_float(uint32_t(&inst - scene.instances.data())), 0.0f, 0.0f};
        records.push_back(rec);
        boxes.push_back(box);
    }
    BvhBuildOptions top;
    top.spatial_splits = false;
    Bvh tlas = build_bvh(boxes, top);
    cs.tlas = std::move(tlas.nodes);
    cs.instances.resize(tlas.order.size());
    for (size_t k = 0; k < tlas.order.size(); ++k) cs.instances[k] = records[tlas.order[k]];
}

}  // namespace srt
