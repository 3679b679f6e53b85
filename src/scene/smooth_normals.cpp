// smooth_normals.cpp - angle-weighted vertex normals for meshes without any (load.h).
#include "scene/load.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace srt {

void compute_smooth_normals(std::vector<Triangle>& tris, size_t first) {
    // Corners are welded by exact position (the loaders copy each vertex's coordinates
    // into its triangles, so shared vertices compare equal).
    using Key = std::tuple<double, double, double>;
    auto key = [](const Point3& p) { return Key{p.x, p.y, p.z}; };
    std::map<Key, glm::dvec3> sum;
    for (size_t i = first; i < tris.size(); ++i) {
        const Triangle& t = tris[i];
        const Point3 v[3] = {t.v0, t.v1, t.v2};
        const glm::dvec3 face = glm::cross(v[1] - v[0], v[2] - v[0]);
        const double area2 = glm::length(face);
        if (!(area2 > 0.0)) continue;
        const glm::dvec3 n = face / area2;
        for (int k = 0; k < 3; ++k) {
            const glm::dvec3 a = v[(k + 1) % 3] - v[k], b = v[(k + 2) % 3] - v[k];
            const double la = glm::length(a), lb = glm::length(b);
            if (!(la > 0.0 && lb > 0.0)) continue;
            const double angle = std::acos(std::clamp(glm::dot(a, b) / (la * lb), -1.0, 1.0));
            sum[key(v[k])] += angle * n;
        }
    }
    for (size_t i = first; i < tris.size(); ++i) {
        Triangle& t = tris[i];
        const Point3 v[3] = {t.v0, t.v1, t.v2};
        glm::vec3* out[3] = {&t.n0, &t.n1, &t.n2};
        bool ok = true;
        for (int k = 0; k < 3; ++k) {
            const glm::dvec3 n = sum[key(v[k])];
            const double len = glm::length(n);
            ok = ok && len > 1e-12;
            *out[k] = ok ? glm::vec3(n / len) : glm::vec3(0.0f);
        }
        t.smooth = ok;
        if (!ok) t.n0 = t.n1 = t.n2 = glm::vec3(0.0f);
    }
}

}  // namespace srt
