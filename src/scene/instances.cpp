// instances.cpp - instances as copies (scene/instances.h).
#include "scene/instances.h"

#include <glm/gtc/matrix_inverse.hpp>

#include <cmath>
#include <string>

namespace srt {

bool similarity_scale(const glm::dmat3& a, double& s) {
    // A = s R with R orthogonal: the columns are orthogonal and of one length s.
    const double l0 = glm::dot(a[0], a[0]), l1 = glm::dot(a[1], a[1]), l2 = glm::dot(a[2], a[2]);
    const double tol = 1e-12 * l0;
    if (std::fabs(l1 - l0) > tol || std::fabs(l2 - l0) > tol) return false;
    if (std::fabs(glm::dot(a[0], a[1])) > tol || std::fabs(glm::dot(a[0], a[2])) > tol ||
        std::fabs(glm::dot(a[1], a[2])) > tol)
        return false;
    s = std::sqrt(l0);
    return s > 0.0;
}

Triangle instance_triangle(const Triangle& t, const Instance& inst) {
    Triangle w = t;
    const glm::dmat3& a = inst.linear;
    w.v0 = a * t.v0 + inst.translate;
    w.v1 = a * t.v1 + inst.translate;
    w.v2 = a * t.v2 + inst.translate;
    double s = 1.0;
    const bool similar = similarity_scale(a, s);
    const glm::dmat3 normal_matrix = glm::inverseTranspose(a);
    const auto unit_of = [&](const glm::dvec3& v, double scale) {
        if (similar) return glm::vec3(v * scale);
        const double len = glm::length(v);
        return len > 0.0 ? glm::vec3(v / len) : glm::vec3(0.0f);
    };
    if (t.smooth) {
        w.n0 = unit_of(normal_matrix * glm::dvec3(t.n0), s);
        w.n1 = unit_of(normal_matrix * glm::dvec3(t.n1), s);
        w.n2 = unit_of(normal_matrix * glm::dvec3(t.n2), s);
    }
    if (t.has_tangent) {
        const float flip = glm::determinant(a) < 0.0 ? -1.0f : 1.0f;
        const auto tangent = [&](const glm::vec4& v) {
            return glm::vec4(unit_of(a * glm::dvec3(v), 1.0 / s), v.w * flip);
        };
        w.t0 = tangent(t.t0);
        w.t1 = tangent(t.t1);
        w.t2 = tangent(t.t2);
    }
    return w;
}

Bounds3 instance_bounds(const Mesh& m, const Instance& inst) {
    Bounds3 obj;
    for (const Triangle& t : m.triangles) {
        obj.grow(t.v0);
        obj.grow(t.v1);
        obj.grow(t.v2);
    }
    Bounds3 b;
    if (obj.empty()) return b;
    for (int c = 0; c < 8; ++c) {
        const Point3 p((c & 1) ? obj.hi.x : obj.lo.x, (c & 2) ? obj.hi.y : obj.lo.y, (c & 4) ? obj.hi.z : obj.lo.z);
        b.grow(inst.linear * p + inst.translate);
    }
    return b;
}

size_t stored_triangle_count(const Scene& s) {
    size_t n = s.triangles.size();
    for (const Mesh& m : s.meshes) n += m.triangles.size();
    return n;
}

std::string instances_text(const Scene& s) {
    if (s.instances.empty()) return "";
    return ", " + std::to_string(s.instances.size()) + " instances of " + std::to_string(s.meshes.size()) +
           (s.meshes.size() == 1 ? " mesh (" : " meshes (") + std::to_string(s.instanced_triangle_count()) +
           " triangles placed, " + std::to_string(stored_triangle_count(s) - s.triangles.size()) + " stored)";
}

void flatten_instances(Scene& s) {
    s.triangles.reserve(s.triangles.size() + s.instanced_triangle_count());
    for (const Instance& inst : s.instances)
        for (const Triangle& t : s.meshes[inst.mesh].triangles) s.triangles.push_back(instance_triangle(t, inst));
    s.meshes.clear();
    s.instances.clear();
}

}  // namespace srt
