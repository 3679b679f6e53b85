// double_reference.cpp - see double_reference.h. Written from scene.h's model alone.
#include "support/double_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

namespace srt {
namespace {

using V = glm::dvec3;

V dv(const glm::vec3& v) { return V(double(v.x), double(v.y), double(v.z)); }
V norm(const V& v) { return v / std::sqrt(glm::dot(v, v)); }

constexpr double kInf = std::numeric_limits<double>::infinity();

// What a ray hit: which primitive (kind, index), where, and its normals.
enum Kind { kNone, kSphere, kPlane, kTriangle };
struct Hit {
    Kind kind = kNone;
    size_t index = 0;
    double t = kInf;
};

struct Tracer {
    const Scene& s;
    int max_depth;
    std::vector<V> plane_u;  // the checker's u axis per plane

    // The sphere's roots beyond 0; `self`: the ray leaves this sphere's surface, so only
    // the far root of a ray going inwards counts.
    double sphere_t(const Sphere& sp, const V& o, const V& d, bool self) const {
        const V oc = o - sp.centre;
        if (self) {
            const double t = -2.0 * glm::dot(oc, d);
            return t > 0.0 ? t : kInf;
        }
        const double b = glm::dot(oc, d);
        const V l = oc - b * d;  // from the centre to the line's closest point
        const double disc = sp.radius * sp.radius - glm::dot(l, l);
        if (disc < 0.0) return kInf;
        const double sq = std::sqrt(disc);
        const double q = b > 0.0 ? -b - sq : -b + sq;
        const double c = glm::dot(oc, oc) - sp.radius * sp.radius;
        double t0 = c / q, t1 = q;
        if (t0 > t1) std::swap(t0, t1);
        if (t0 > 0.0) return t0;
        if (t1 > 0.0) return t1;
        return kInf;
    }

    static double plane_t(const Plane& pl, const V& o, const V& d) {
        const V n = dv(pl.normal);
        const double den = glm::dot(n, d);
        if (den == 0.0) return kInf;
        const double t = glm::dot(pl.point - o, n) / den;
        return t > 0.0 ? t : kInf;
    }

    // Woop, Benthin and Wald's watertight test, in double; also the barycentrics.
    static double triangle_t(const Triangle& tr, const V& o, const V& d, double& b1, double& b2) {
        int kz = 0;
        if (std::fabs(d.y) > std::fabs(d[kz])) kz = 1;
        if (std::fabs(d.z) > std::fabs(d[kz])) kz = 2;
        int kx = (kz + 1) % 3, ky = (kx + 1) % 3;
        if (d[kz] < 0.0) std::swap(kx, ky);
        const double sx = d[kx] / d[kz], sy = d[ky] / d[kz], sz = 1.0 / d[kz];
        const V a = tr.v0 - o, b = tr.v1 - o, c = tr.v2 - o;
        const double ax = a[kx] - sx * a[kz], ay = a[ky] - sy * a[kz];
        const double bx = b[kx] - sx * b[kz], by = b[ky] - sy * b[kz];
        const double cx = c[kx] - sx * c[kz], cy = c[ky] - sy * c[kz];
        const double u = cx * by - cy * bx, v = ax * cy - ay * cx, w = bx * ay - by * ax;
        if ((u < 0.0 || v < 0.0 || w < 0.0) && (u > 0.0 || v > 0.0 || w > 0.0)) return kInf;
        const double det = u + v + w;
        if (det == 0.0) return kInf;
        const double t = (u * sz * a[kz] + v * sz * b[kz] + w * sz * c[kz]) / det;
        if (!(t > 0.0)) return kInf;
        b1 = v / det;  // weight of v1
        b2 = w / det;  // weight of v2
        return t;
    }

    // The closest hit within tmax, skipping what the ray leaves (`from`).
    Hit closest(const V& o, const V& d, double tmax, const Hit& from) const {
        Hit h;
        h.t = tmax;
        for (size_t i = 0; i < s.spheres.size(); ++i) {
            const double t = sphere_t(s.spheres[i], o, d, from.kind == kSphere && from.index == i);
            if (t < h.t) h = {kSphere, i, t};
        }
        for (size_t i = 0; i < s.planes.size(); ++i) {
            if (from.kind == kPlane && from.index == i) continue;
            const double t = plane_t(s.planes[i], o, d);
            if (t < h.t) h = {kPlane, i, t};
        }
        for (size_t i = 0; i < s.triangles.size(); ++i) {
            if (from.kind == kTriangle && from.index == i) continue;
            double b1, b2;
            const double t = triangle_t(s.triangles[i], o, d, b1, b2);
            if (t < h.t) h = {kTriangle, i, t};
        }
        if (h.t >= tmax) h.kind = kNone;
        return h;
    }

    // The colour a ray gathers, weighted, added to `sum`; level 1 is the primary ray.
    void trace(V o, V d, int level, V weight, const Hit& from, V& sum) const {
        if (level > max_depth) return;
        const Hit h = closest(o, d, kInf, from);
        if (h.kind == kNone) {
            sum += weight * dv(s.background);
            return;
        }
        const V p = o + h.t * d;
        V n, ns;
        uint32_t material = 0;
        V colour;
        if (h.kind == kSphere) {
            const Sphere& sp = s.spheres[h.index];
            n = ns = (p - sp.centre) / sp.radius;
            material = sp.material;
        } else if (h.kind == kPlane) {
            const Plane& pl = s.planes[h.index];
            n = ns = norm(dv(pl.normal));
            material = pl.material;
        } else {
            const Triangle& tr = s.triangles[h.index];
            n = ns = norm(glm::cross(tr.v1 - tr.v0, tr.v2 - tr.v0));
            material = tr.material;
            if (tr.smooth) {
                double b1, b2;
                triangle_t(tr, o, d, b1, b2);
                ns = norm((1.0 - b1 - b2) * dv(tr.n0) + b1 * dv(tr.n1) + b2 * dv(tr.n2));
            }
        }
        const Material& m = s.materials[material];
        colour = dv(m.colour);
        if (h.kind == kPlane && s.planes[h.index].checker) {
            const Plane& pl = s.planes[h.index];
            const V u = plane_u[h.index], v = glm::cross(n, u);
            const V local = p - pl.point;
            const double cu = std::floor(glm::dot(local, u) / pl.checker_size);
            const double cv = std::floor(glm::dot(local, v) / pl.checker_size);
            if ((long long)(cu + cv) & 1) colour = dv(pl.checker_colour);
        }
        if (glm::dot(n, d) > 0.0) n = -n;
        if (glm::dot(ns, d) > 0.0) ns = -ns;

        V light(0.0);
        if (m.kd != 0.0f) {
            for (const Light& l : s.lights) {
                V to;
                double dist;
                if (l.type == LightType::Point) {
                    to = l.position - p;
                    dist = std::sqrt(glm::dot(to, to));
                    to /= dist;
                } else {
                    to = norm(-dv(l.direction));
                    dist = kInf;
                }
                const double ndotl = glm::dot(ns, to);
                if (!(ndotl > 0.0)) continue;
                if (closest(p, to, dist, h).kind != kNone) continue;
                light += ndotl * dv(l.colour);
            }
        }
        sum += weight * (double(m.ka) * dv(s.ambient) * colour + double(m.kd) * colour * light);
        if (level + 1 > max_depth || !m.is_mirror()) return;
        trace(p, d - 2.0 * glm::dot(d, ns) * ns, level + 1, weight * dv(m.kr), h, sum);
    }
};

uint8_t srgb8(double c) {
    c = std::clamp(c, 0.0, 1.0);
    const double e = c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1.0 / 2.4) - 0.055;
    return uint8_t(std::lround(e * 255.0));
}

}  // namespace

Image render_double_reference(const Scene& s, int width, int height, int depth) {
    Tracer tr{s, depth, {}};
    for (const Plane& pl : s.planes) {
        const glm::vec3 n = glm::normalize(pl.normal);
        const glm::vec3 h = std::fabs(n.z) < 0.9f ? glm::vec3(0, 0, 1) : glm::vec3(1, 0, 0);
        tr.plane_u.push_back(norm(dv(glm::normalize(glm::cross(n, h)))));
    }
    const V from = s.camera.from;
    const V fwd = norm(s.camera.at - from);
    const V right = norm(glm::cross(fwd, dv(s.camera.up)));
    const V up = glm::cross(right, fwd);
    const double half = std::tan(double(s.camera.fov_deg) * 0.5 * 3.14159265358979323846 / 180.0);
    const V rx = right * half, uy = up * (half * double(height) / double(width));
    Image out(width, height);
    const int threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (int k = 0; k < threads; ++k)
        pool.emplace_back([&, k] {
            for (int y = k; y < height; y += threads)
                for (int x = 0; x < width; ++x) {
                    const double sx = (double(x) + 0.5) * (2.0 / width) - 1.0;
                    const double sy = 1.0 - (double(y) + 0.5) * (2.0 / height);
                    V sum(0.0);
                    tr.trace(from, norm(fwd + sx * rx + sy * uy), 1, V(1.0), Hit{}, sum);
                    uint8_t* px = out.pixel(x, y);
                    px[0] = srgb8(sum.x);
                    px[1] = srgb8(sum.y);
                    px[2] = srgb8(sum.z);
                    px[3] = 255;
                }
        });
    for (std::thread& t : pool) t.join();
    return out;
}

}  // namespace srt
