// tangents.cpp - Mikkelsen's tangent frames (scene/tangents.h).
#include "scene/tangents.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace srt {
namespace {

// A welded corner: the exact bits of its position, normal and texture coordinates, and
// its handedness. Corners the loaders copied from one vertex compare equal.
struct CornerKey {
    double p[3];
    float n[3];
    float uv[2];
    int w;
    bool operator==(const CornerKey& o) const { return std::memcmp(this, &o, sizeof(CornerKey)) == 0; }
};
static_assert(sizeof(CornerKey) == 3 * 8 + 5 * 4 + 4, "CornerKey must have no padding: it is compared as bytes");

struct CornerHash {
    size_t operator()(const CornerKey& k) const {
        uint64_t h = 1469598103934665603ull;  // FNV-1a over the bytes
        const unsigned char* b = reinterpret_cast<const unsigned char*>(&k);
        for (size_t i = 0; i < sizeof(CornerKey); ++i) h = (h ^ b[i]) * 1099511628211ull;
        return size_t(h);
    }
};

// A unit vector orthogonal to n (Duff et al. 2017's branchless basis).
glm::dvec3 any_orthogonal(const glm::dvec3& n) {
    const double sign = std::copysign(1.0, n.z);
    const double a = -1.0 / (sign + n.z), b = n.x * n.y * a;
    return glm::dvec3(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x);
}

struct Corners {
    Point3 p[3];
    glm::dvec3 n[3];  // unit
    glm::vec2 uv[3];
};

Corners corners_of(const Triangle& t) {
    Corners c{{t.v0, t.v1, t.v2}, {}, {t.uv0, t.uv1, t.uv2}};
    const glm::dvec3 face = glm::cross(t.v1 - t.v0, t.v2 - t.v0);
    const glm::dvec3 fn = glm::length(face) > 0.0 ? glm::normalize(face) : glm::dvec3(0, 0, 1);
    const glm::vec3 vn[3] = {t.n0, t.n1, t.n2};
    for (int k = 0; k < 3; ++k) c.n[k] = t.smooth ? glm::normalize(glm::dvec3(vn[k])) : fn;
    return c;
}

CornerKey key_of(const Corners& c, int k, int w) {
    CornerKey key;
    std::memset(&key, 0, sizeof(key));
    for (int i = 0; i < 3; ++i) {
        key.p[i] = c.p[k][i] == 0.0 ? 0.0 : c.p[k][i];  // -0 and +0 alike
        key.n[i] = float(c.n[k][i]) == 0.0f ? 0.0f : float(c.n[k][i]);
    }
    key.uv[0] = c.uv[k].x == 0.0f ? 0.0f : c.uv[k].x;
    key.uv[1] = c.uv[k].y == 0.0f ? 0.0f : c.uv[k].y;
    key.w = w;
    return key;
}

// A triangle's frame over its texture coordinates: the tangent along +u and the
// bitangent along +v up the image (the coordinates' v runs down, scene.h Triangle).
struct FaceFrame {
    glm::dvec3 t{0.0}, b{0.0};
    bool ok = false;
};

FaceFrame face_frame(const Corners& c) {
    const glm::dvec3 e1 = c.p[1] - c.p[0], e2 = c.p[2] - c.p[0];
    const double du1 = double(c.uv[1].x) - c.uv[0].x, du2 = double(c.uv[2].x) - c.uv[0].x;
    const double dv1 = -(double(c.uv[1].y) - c.uv[0].y), dv2 = -(double(c.uv[2].y) - c.uv[0].y);
    const double det = du1 * dv2 - du2 * dv1;
    FaceFrame f;
    if (!(std::fabs(det) > 0.0) || !std::isfinite(det)) return f;
    f.t = (e1 * dv2 - e2 * dv1) / det;
    f.b = (e2 * du1 - e1 * du2) / det;
    f.ok = std::isfinite(f.t.x + f.t.y + f.t.z + f.b.x + f.b.y + f.b.z) && glm::length(f.t) > 0.0;
    return f;
}

// The corner's handedness: whether cross(n, t) runs with the face's bitangent.
int handedness(const glm::dvec3& n, const FaceFrame& f) {
    return f.ok && glm::dot(glm::cross(n, f.t), f.b) < 0.0 ? -1 : 1;
}

bool wants_tangents(const Scene& s, const Triangle& t) {
    return !t.has_tangent && t.has_uv && s.materials[t.material].normal_mapped();
}

}  // namespace

size_t generate_tangents(Scene& scene, size_t first) {
    std::unordered_map<CornerKey, glm::dvec3, CornerHash> sum;
    for (size_t i = first; i < scene.triangles.size(); ++i) {
        const Triangle& t = scene.triangles[i];
        if (!wants_tangents(scene, t)) continue;
        const Corners c = corners_of(t);
        const FaceFrame f = face_frame(c);
        for (int k = 0; k < 3; ++k) {
            glm::dvec3& acc = sum[key_of(c, k, handedness(c.n[k], f))];
            if (!f.ok) continue;
            const glm::dvec3 a = c.p[(k + 1) % 3] - c.p[k], b = c.p[(k + 2) % 3] - c.p[k];
            const double la = glm::length(a), lb = glm::length(b);
            const glm::dvec3 tp = f.t - glm::dot(f.t, c.n[k]) * c.n[k];
            const double lt = glm::length(tp);
            if (!(la > 0.0 && lb > 0.0 && lt > 0.0)) continue;
            const double angle = std::acos(std::clamp(glm::dot(a, b) / (la * lb), -1.0, 1.0));
            acc += angle * (tp / lt);
        }
    }
    size_t given = 0;
    for (size_t i = first; i < scene.triangles.size(); ++i) {
        Triangle& t = scene.triangles[i];
        if (!wants_tangents(scene, t)) continue;
        const Corners c = corners_of(t);
        const FaceFrame f = face_frame(c);
        glm::vec4* out[3] = {&t.t0, &t.t1, &t.t2};
        for (int k = 0; k < 3; ++k) {
            const int w = handedness(c.n[k], f);
            glm::dvec3 v = sum[key_of(c, k, w)];
            v -= glm::dot(v, c.n[k]) * c.n[k];
            const double len = glm::length(v);
            v = len > 1e-12 && std::isfinite(len) ? v / len : any_orthogonal(c.n[k]);
            *out[k] = glm::vec4(glm::vec3(v), float(w));
        }
        t.has_tangent = true;
        ++given;
    }
    return given;
}

}  // namespace srt
