// scene_gpu.cpp - Scene -> CompiledScene: BVH build and flat GPU-ready arrays.
#include "render/scene_gpu.h"

#include "accel/intersect.h"

#include <cmath>

namespace srt {

namespace {
f4 make_f4(const glm::vec3& v, float w) { return f4{v.x, v.y, v.z, w}; }
}  // namespace

CameraGpu make_camera(const Camera& c, int width, int height) {
    CameraGpu g;
    g.origin = c.from;
    g.forward = unit(c.at - c.from);
    const glm::vec3 right_unit = unit(glm::cross(g.forward, c.up));
    const glm::vec3 up_unit = glm::cross(right_unit, g.forward);
    const float half = float(std::tan(double(c.fov_deg) * 0.5 * 3.14159265358979323846 / 180.0));
    g.right = right_unit * half;
    g.up = up_unit * (half * float(height) / float(width));
    return g;
}

CompiledScene compile_scene(const Scene& scene) {
    CompiledScene cs;
    cs.camera = scene.camera;
    cs.background = scene.background;

    // Primitives the BVH is built over: spheres first, then triangles.
    const size_t ns = scene.spheres.size(), nt = scene.triangles.size();
    std::vector<BuildPrim> build(ns + nt);
    for (size_t i = 0; i < ns; ++i) {
        const Sphere& s = scene.spheres[i];
        build[i] = {s.centre - glm::vec3(s.radius), s.centre + glm::vec3(s.radius)};
    }
    for (size_t i = 0; i < nt; ++i) {
        const Triangle& t = scene.triangles[i];
        build[ns + i] = {glm::min(t.v0, glm::min(t.v1, t.v2)), glm::max(t.v0, glm::max(t.v1, t.v2))};
    }
    Bvh bvh = build_bvh(build);
    cs.nodes = std::move(bvh.nodes);
    cs.bvh_stats = bvh.stats;

    cs.prims.resize(bvh.order.size());
    for (size_t k = 0; k < bvh.order.size(); ++k) {
        const uint32_t src = bvh.order[k];
        PrimGpu& p = cs.prims[k];
        if (src < ns) {
            const Sphere& s = scene.spheres[src];
            p.p0 = make_f4(s.centre, bits_float(kPrimSphereBit | s.material));
            p.p1 = f4{s.radius, s.radius * s.radius, 0.0f, 0.0f};
            p.p2 = f4{0.0f, 0.0f, 0.0f, bits_float(src)};
        } else {
            const Triangle& t = scene.triangles[src - ns];
            p.p0 = make_f4(t.v0, bits_float(t.material & kPrimMaterialMask));
            p.p1 = make_f4(t.v1 - t.v0, 0.0f);
            p.p2 = make_f4(t.v2 - t.v0, bits_float(src));
        }
    }

    for (size_t j = 0; j < scene.planes.size(); ++j) {
        const Plane& pl = scene.planes[j];
        PlaneGpu g;
        const glm::vec3 n = unit(pl.normal);
        // The plane's own axes: u = n x h, v = n x u, h = +z unless n is close to it.
        const glm::vec3 h = std::fabs(n.z) < 0.9f ? glm::vec3(0, 0, 1) : glm::vec3(1, 0, 0);
        const glm::vec3 u = unit(glm::cross(n, h));
        g.point_mat = make_f4(pl.point, bits_float(pl.material));
        g.normal = make_f4(n, pl.checker ? pl.checker_size : 0.0f);
        g.u = make_f4(u, 0.0f);
        g.checker = make_f4(pl.checker_colour, bits_float(uint32_t(ns + nt + j)));
        cs.planes.push_back(g);
    }

    for (const Material& m : scene.materials)
        cs.materials.push_back({make_f4(m.colour, m.kd), make_f4(m.kr, 0.0f)});

    for (const Light& l : scene.lights) {
        LightGpu g;
        if (l.type == LightType::Point)
            g.pos_or_dir = make_f4(l.position, 1.0f);
        else
            g.pos_or_dir = make_f4(-unit(l.direction), 0.0f);
        g.colour = make_f4(l.colour, 0.0f);
        cs.lights.push_back(g);
    }

    return cs;
}

SceneView CompiledScene::view() const {
    SceneView v;
    v.nodes = nodes.data();
    v.prims = prims.data();
    v.planes = planes.data();
    v.materials = materials.data();
    v.lights = lights.data();
    v.node_count = uint32_t(nodes.size());
    v.prim_count = uint32_t(prims.size());
    v.plane_count = uint32_t(planes.size());
    v.light_count = uint32_t(lights.size());
    v.background = background;
    return v;
}

size_t CompiledScene::device_bytes() const {
    return nodes.size() * sizeof(BvhNode) + prims.size() * sizeof(PrimGpu) +
           planes.size() * sizeof(PlaneGpu) + materials.size() * sizeof(MaterialGpu) +
           lights.size() * sizeof(LightGpu);
}

}  // namespace srt
