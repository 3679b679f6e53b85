// pathref: brute-force double-precision reference path tracer (see path_reference.md).
#include "support/path_reference.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace pathref {

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr double kInf = std::numeric_limits<double>::infinity();
// Ray origins leaving a surface are pushed off it along the normal by
// kRelEps * (1 + max |coordinate|). Double hit points are accurate to ~1e-15
// of the coordinate magnitude, so 1e-9 is safely above the rounding error
// and far below any feature size of sensible scenes.
constexpr double kRelEps = 1e-9;
}  // namespace

double dot(Vec3 a, Vec3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
Vec3 cross(Vec3 a, Vec3 b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
double length(Vec3 a) {
    return std::sqrt(dot(a, a));
}
Vec3 normalize(Vec3 a) {
    return a * (1.0 / length(a));
}

int Scene::add_material(const Material& m) {
    materials.push_back(m);
    return static_cast<int>(materials.size()) - 1;
}
void Scene::add_triangle(Vec3 v0, Vec3 v1, Vec3 v2, int material) {
    triangles.push_back({v0, v1, v2, material});
}
void Scene::add_quad(Vec3 v0, Vec3 v1, Vec3 v2, Vec3 v3, int material) {
    add_triangle(v0, v1, v2, material);
    add_triangle(v0, v2, v3, material);
}
void Scene::add_sphere(Vec3 center, double radius, int material) {
    spheres.push_back({center, radius, material});
}

Estimate Image::at(int x, int y) const {
    const size_t i = static_cast<size_t>(y) * width + x;
    return {mean[i], se[i]};
}

Vec3 camera_direction(const Camera& cam, double px, double py) {
    const Vec3 forward = normalize(cam.at - cam.from);
    const Vec3 right = normalize(cross(forward, cam.up));
    const Vec3 up = cross(right, forward);
    const double t = std::tan(cam.hfov_deg * kPi / 360.0);
    const double sx = 2.0 * px / cam.width - 1.0;
    const double sy = 1.0 - 2.0 * py / cam.height;
    return normalize(forward + right * (t * sx) + up * (t * cam.height / cam.width * sy));
}

Ray camera_ray(const Camera& cam, double px, double py, double lens_u, double lens_v) {
    const Vec3 pin = camera_direction(cam, px, py);
    if (!(cam.aperture > 0)) return {cam.from, pin};
    // Same frame as camera_direction: the lens lies in the image plane's directions.
    const Vec3 forward = normalize(cam.at - cam.from);
    const Vec3 right = normalize(cross(forward, cam.up));
    const Vec3 up = cross(right, forward);
    const double focus = cam.focus_distance > 0 ? cam.focus_distance : length(cam.at - cam.from);
    // All rays through one raster position meet where the pinhole ray crosses
    // the plane of focus (perpendicular to forward, at distance `focus`).
    const Vec3 target = cam.from + pin * (focus / dot(pin, forward));
    // Uniform point of the disk: radius sqrt(u) (area grows as r^2), angle 2 pi v.
    const double r = cam.aperture * std::sqrt(lens_u), phi = 2 * kPi * lens_v;
    const Vec3 origin = cam.from + right * (r * std::cos(phi)) + up * (r * std::sin(phi));
    return {origin, normalize(target - origin)};
}

double fresnel_dielectric(double cos_i, double eta) {
    cos_i = std::clamp(cos_i, 0.0, 1.0);
    const double sin2_t = (1.0 - cos_i * cos_i) / (eta * eta);  // Snell
    if (sin2_t >= 1.0) return 1.0;                              // total internal reflection
    const double cos_t = std::sqrt(1.0 - sin2_t);
    // Amplitude ratios divided through by n_incident.
    const double rs = (cos_i - eta * cos_t) / (cos_i + eta * cos_t);
    const double rp = (eta * cos_i - cos_t) / (eta * cos_i + cos_t);
    return 0.5 * (rs * rs + rp * rp);
}

double bonferroni_k(int comparisons, double family_alpha) {
    // Solve erfc(k / sqrt 2) = alpha / m by bisection (erfc is monotone).
    const double target = family_alpha / std::max(1, comparisons);
    double lo = 0, hi = 40;
    for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        (std::erfc(mid / std::sqrt(2.0)) > target ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

namespace {

// ------------------------------------------------------------------ random
// PCG32 (O'Neill, XSH-RR). One generator per (pixel, sample), so results do
// not depend on how work is spread over threads.
struct Pcg32 {
    std::uint64_t state = 0, inc = 1;
    Pcg32(std::uint64_t seed, std::uint64_t stream) : inc((stream << 1) | 1) {
        next();
        state += seed;
        next();
    }
    std::uint32_t next() {
        const std::uint64_t old = state;
        state = old * 6364136223846793005ULL + inc;
        const auto xorshifted = static_cast<std::uint32_t>(((old >> 18) ^ old) >> 27);
        const auto rot = static_cast<std::uint32_t>(old >> 59);
        return (xorshifted >> rot) | (xorshifted << ((32 - rot) & 31));
    }
    // Uniform in [0, 1) with 53 random bits (a double's full mantissa).
    double uniform() {
        const std::uint64_t a = next() >> 5, b = next() >> 6;
        return (static_cast<double>(a) * 67108864.0 + static_cast<double>(b)) * (1.0 / 9007199254740992.0);
    }
};

std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

Pcg32 make_rng(std::uint64_t seed, std::uint64_t pixel, std::uint64_t sample) {
    return Pcg32(splitmix64(splitmix64(seed) ^ sample),
                 splitmix64(seed + 0x632be59bd9b4e019ULL * (pixel + 1)));
}

// Welford running mean / sum of squared deviations per channel; merge() is
// Chan et al.'s pairwise combination (used in a fixed order => deterministic).
struct Accum {
    double n = 0;
    Rgb mean, m2;
    void add(Rgb x) {
        n += 1;
        const Rgb d = x - mean;
        mean = mean + d * (1.0 / n);
        m2 = m2 + d * (x - mean);
    }
    void merge(const Accum& o) {
        if (o.n == 0) return;
        const double n_ab = n + o.n;
        const Rgb d = o.mean - mean;
        mean = mean + d * (o.n / n_ab);
        m2 = m2 + o.m2 + d * d * (n * o.n / n_ab);
        n = n_ab;
    }
    Estimate result() const {
        Estimate e;
        e.mean = mean;
        if (n > 1) {
            const double k = 1.0 / ((n - 1) * n);  // sample variance / n
            e.se = {std::sqrt(m2.r * k), std::sqrt(m2.g * k), std::sqrt(m2.b * k)};
        }
        return e;
    }
};

Rgb exp_neg(Rgb sigma, double dist) {
    // Beer-Lambert transmittance; sigma = 0 over infinite distance stays 1.
    auto f = [dist](double s) { return s == 0 ? 1.0 : std::exp(-s * dist); };
    return {f(sigma.r), f(sigma.g), f(sigma.b)};
}

double max_abs(Vec3 p) {
    return std::max({std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
}
// Point p pushed off its surface to the side of `side_normal`.
Vec3 offset(Vec3 p, Vec3 side_normal) {
    return p + side_normal * (kRelEps * (1.0 + max_abs(p)));
}

struct Aabb {
    Vec3 lo{kInf, kInf, kInf}, hi{-kInf, -kInf, -kInf};
    void grow(Vec3 p) {
        lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
        hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
    }
    void grow(const Aabb& b) { grow(b.lo), grow(b.hi); }
    // Slab test. NaN (0 * inf, origin on a slab plane) compares false and so
    // leaves the interval unchanged: conservative, the exact test follows.
    bool hit(Vec3 o, Vec3 inv, double tmax) const {
        double t0 = 0, t1 = tmax;
        const double os[3] = {o.x, o.y, o.z}, is[3] = {inv.x, inv.y, inv.z};
        const double ls[3] = {lo.x, lo.y, lo.z}, hs[3] = {hi.x, hi.y, hi.z};
        for (int a = 0; a < 3; ++a) {
            double tn = (ls[a] - os[a]) * is[a], tf = (hs[a] - os[a]) * is[a];
            if (tn > tf) std::swap(tn, tf);
            if (tn > t0) t0 = tn;
            if (tf < t1) t1 = tf;
        }
        return t0 <= t1;
    }
};

// ----------------------------------------------------- the prepared scene
// Primitive ids: 0..T-1 triangles, T..T+S-1 spheres.
class Tracer {
public:
    Tracer(const Scene& s, const RenderOptions& opt) : scene_(s), opt_(opt) {
        if (opt.spp < 1 || opt.max_depth < 0)
            throw std::invalid_argument("pathref: spp >= 1 and max_depth >= 0 required");
        const int nm = static_cast<int>(s.materials.size());
        auto check = [nm](int m) {
            if (m < 0 || m >= nm) throw std::invalid_argument("pathref: material index out of range");
        };
        for (const Material& m : s.materials) check_material(m);
        for (const Triangle& t : s.triangles) {
            check(t.material);
            Tri tr{t.v0, t.v1 - t.v0, t.v2 - t.v0, {}, 0, t.material};
            const Vec3 c = cross(tr.e1, tr.e2);
            tr.area = 0.5 * length(c);
            if (!(tr.area > 0)) continue;  // degenerate: cannot be hit, has no normal
            tr.n = normalize(c);
            tris_.push_back(tr);
        }
        for (const Sphere& sp : s.spheres) {
            check(sp.material);
            if (sp.radius > 0) spheres_.push_back(sp);
        }
        has_env_ = s.environment.width > 0;
        env_sampler_ = EnvironmentSampler(s.environment);  // validates the map
        build_lights();
        build_bvh();
    }

    Rgb radiance(Vec3 o, Vec3 d, Pcg32& rng) const;

private:
    // The microfacet materials' parameters must lie in the documented ranges.
    static void check_material(const Material& m) {
        if (m.type != Material::Gltf && m.type != Material::RoughDielectric) return;
        const bool ok =
            m.roughness >= 0 && m.roughness <= 1 && m.ior > 0 && std::isfinite(m.ior) &&
            (m.type != Material::Gltf || (m.metallic >= 0 && m.metallic <= 1 && m.base_color.r >= 0 &&
                                          m.base_color.g >= 0 && m.base_color.b >= 0));
        if (!ok) throw std::invalid_argument("pathref: Gltf / RoughDielectric parameter out of range");
    }

    struct Tri {
        Vec3 v0, e1, e2, n;
        double area;
        int material;
    };
    struct Node {
        Aabb box;
        int first = 0, count = 0;  // leaf: range in order_; inner: count = 0
        int left = 0, right = 0, axis = 0;
    };
    struct Hit {
        double t = kInf;
        int prim = -1;
    };
    struct Surface {
        Vec3 p, n;  // position, geometric (front-face) normal
        const Material* mat;
    };

    int num_prims() const { return static_cast<int>(tris_.size() + spheres_.size()); }
    bool is_tri(int id) const { return id < static_cast<int>(tris_.size()); }
    const Sphere& sphere(int id) const { return spheres_[id - tris_.size()]; }
    double area(int id) const {
        return is_tri(id) ? tris_[id].area : 4 * kPi * sphere(id).radius * sphere(id).radius;
    }
    const Material& material(int id) const {
        return scene_.materials[is_tri(id) ? tris_[id].material : sphere(id).material];
    }

    Aabb bounds(int id) const {
        Aabb b;
        if (is_tri(id)) {
            const Tri& t = tris_[id];
            b.grow(t.v0), b.grow(t.v0 + t.e1), b.grow(t.v0 + t.e2);
        } else {
            const Sphere& s = sphere(id);
            const Vec3 r{s.radius, s.radius, s.radius};
            b.grow(s.center - r), b.grow(s.center + r);
        }
        // Pad so rounding in the slab test never culls a hit on a flat box.
        const double pad = kRelEps * (1.0 + std::max(max_abs(b.lo), max_abs(b.hi)));
        b.lo = b.lo - Vec3{pad, pad, pad};
        b.hi = b.hi + Vec3{pad, pad, pad};
        return b;
    }

    // Emitters: any primitive with nonzero emission, and the environment map
    // unless it is black. NEE picks the environment with probability env_prob_
    // (1/2 when there are both kinds: their powers are not comparable, the
    // environment's depends on the scene's size), else a primitive with
    // probability proportional to area * mean(emission), then a uniform point
    // by area. select_pdf_ includes the factor 1 - env_prob_.
    void build_lights() {
        select_pdf_.assign(num_prims(), 0.0);
        double total = 0;
        for (int id = 0; id < num_prims(); ++id) {
            const double w = area(id) * mean_component(material(id).emission);
            if (w > 0) {
                lights_.push_back(id);
                total += w;
                light_cdf_.push_back(total);
                select_pdf_[id] = w;
            }
        }
        if (env_sampler_.active()) env_prob_ = total > 0 ? 0.5 : 1.0;
        if (total <= 0) return;  // no emitting primitives: select_pdf_ stays 0
        for (double& p : select_pdf_) p *= (1 - env_prob_) / total;
        for (double& c : light_cdf_) c /= total;
    }

    // Median split on the longest centroid axis; leaves of <= 4 primitives.
    void build_bvh() {
        order_.resize(num_prims());
        for (int i = 0; i < num_prims(); ++i) order_[i] = i;
        if (num_prims() > 0) build_node(0, num_prims());
    }
    int build_node(int begin, int end) {
        const int idx = static_cast<int>(nodes_.size());
        nodes_.emplace_back();
        Aabb box, cbox;
        for (int i = begin; i < end; ++i) {
            const Aabb b = bounds(order_[i]);
            box.grow(b);
            cbox.grow((b.lo + b.hi) * 0.5);
        }
        nodes_[idx].box = box;
        const Vec3 ext = cbox.hi - cbox.lo;
        const int axis = ext.x >= ext.y && ext.x >= ext.z ? 0 : (ext.y >= ext.z ? 1 : 2);
        const double extent = axis == 0 ? ext.x : (axis == 1 ? ext.y : ext.z);
        if (end - begin <= 4 || !(extent > 0)) {
            nodes_[idx].first = begin;
            nodes_[idx].count = end - begin;
            return idx;
        }
        const int mid = (begin + end) / 2;
        auto key = [&](int id) {
            const Aabb b = bounds(id);
            const Vec3 c = b.lo + b.hi;
            return axis == 0 ? c.x : (axis == 1 ? c.y : c.z);
        };
        std::nth_element(order_.begin() + begin, order_.begin() + mid, order_.begin() + end,
                         [&](int a, int b) { return key(a) < key(b); });
        const int l = build_node(begin, mid), r = build_node(mid, end);
        nodes_[idx].left = l;
        nodes_[idx].right = r;
        nodes_[idx].axis = axis;
        return idx;
    }

    // Moller-Trumbore in double; inclusive edges; t in (0, tmax).
    static bool hit_tri(const Tri& tr, Vec3 o, Vec3 d, double tmax, double& t) {
        const Vec3 p = cross(d, tr.e2);
        const double det = dot(tr.e1, p);
        if (det == 0) return false;  // ray parallel to the plane
        const double inv = 1.0 / det;
        const Vec3 s = o - tr.v0;
        const double u = dot(s, p) * inv;
        if (u < 0 || u > 1) return false;
        const Vec3 q = cross(s, tr.e1);
        const double v = dot(d, q) * inv;
        if (v < 0 || u + v > 1) return false;
        t = dot(tr.e2, q) * inv;
        return t > 0 && t < tmax;
    }
    // |o + t d - c| = r with unit d. The discriminant is formed as
    // r^2 - |oc - (oc.d) d|^2 and the roots as q, c/q to avoid cancellation.
    static bool hit_sphere(const Sphere& s, Vec3 o, Vec3 d, double tmax, double& t) {
        const Vec3 oc = o - s.center;
        const double b = dot(oc, d);
        const Vec3 f = oc - d * b;
        const double disc = s.radius * s.radius - dot(f, f);
        if (disc < 0) return false;
        const double q = -b - std::copysign(std::sqrt(disc), b);
        if (q == 0) return false;
        const double c = dot(oc, oc) - s.radius * s.radius;
        double t0 = c / q, t1 = q;
        if (t0 > t1) std::swap(t0, t1);
        t = t0 > 0 ? t0 : t1;
        return t > 0 && t < tmax;
    }
    bool hit_prim(int id, Vec3 o, Vec3 d, double tmax, double& t) const {
        return is_tri(id) ? hit_tri(tris_[id], o, d, tmax, t) : hit_sphere(sphere(id), o, d, tmax, t);
    }

    // Closest hit (any_hit = false) or any hit (shadow rays) in (0, tmax); d unit.
    bool trace(Vec3 o, Vec3 d, double tmax, bool any_hit, Hit& hit) const {
        if (nodes_.empty()) return false;
        const Vec3 inv{1.0 / d.x, 1.0 / d.y, 1.0 / d.z};
        const bool neg[3] = {d.x < 0, d.y < 0, d.z < 0};
        int stack[128];
        int sp = 0;
        stack[sp++] = 0;
        hit.t = tmax;
        bool found = false;
        while (sp > 0) {
            const Node& nd = nodes_[stack[--sp]];
            if (!nd.box.hit(o, inv, hit.t)) continue;
            if (nd.count > 0) {
                for (int i = nd.first; i < nd.first + nd.count; ++i) {
                    double t;
                    if (hit_prim(order_[i], o, d, hit.t, t)) {
                        hit.t = t;
                        hit.prim = order_[i];
                        found = true;
                        if (any_hit) return true;
                    }
                }
            } else {  // visit the near child first (pushed last)
                const bool far_left = neg[nd.axis];
                stack[sp++] = far_left ? nd.left : nd.right;
                stack[sp++] = far_left ? nd.right : nd.left;
            }
        }
        return found;
    }

    Surface surface(int id, Vec3 o, Vec3 d, double t) const {
        if (is_tri(id)) return {o + d * t, tris_[id].n, &material(id)};
        const Sphere& s = sphere(id);
        const Vec3 n = normalize(o + d * t - s.center);
        return {s.center + n * s.radius, n, &material(id)};  // re-project onto the sphere
    }

    // Uniform point on emitter `id` by area.
    void sample_point(int id, double u1, double u2, Vec3& p, Vec3& n) const {
        if (is_tri(id)) {
            const Tri& t = tris_[id];
            const double su = std::sqrt(u1);  // standard area-uniform barycentrics
            p = t.v0 + t.e1 * (su * (1 - u2)) + t.e2 * (su * u2);
            n = t.n;
        } else {
            const Sphere& s = sphere(id);
            const double z = 1 - 2 * u1, r = std::sqrt(std::max(0.0, 1 - z * z)), phi = 2 * kPi * u2;
            n = {r * std::cos(phi), r * std::sin(phi), z};
            p = s.center + n * s.radius;
        }
    }

    // Solid-angle pdf with which NEE would pick point p (normal n) of emitter
    // `id` seen from a point at distance `dist` along unit direction w.
    double light_pdf(int id, Vec3 n, Vec3 w, double dist) const {
        const double cos_l = std::fabs(dot(n, w));
        if (cos_l == 0) return kInf;
        return select_pdf_[id] / area(id) * dist * dist / cos_l;
    }

    // Emitted radiance of a surface towards unit direction w_out.
    static Rgb emitted(const Surface& s, Vec3 w_out) {
        if (s.mat->two_sided_emission || dot(w_out, s.n) > 0) return s.mat->emission;
        return {};
    }

    // Power heuristic weight of a strategy with density p against one with q.
    static double power_heuristic(double p, double q) { return p * p / (p * p + q * q); }

    // Next-event estimate at a vertex of a reflecting non-delta BSDF (Diffuse,
    // Gltf): surface s, normal ns facing the incoming ray, wo = towards the
    // viewer. Returns the (MIS-weighted) contribution, excluding beta.
    Rgb nee(const Surface& s, Vec3 ns, Vec3 wo, Rgb sigma, Pcg32& rng) const {
        const Vec3 x = s.p;
        double u0 = rng.uniform();
        const double u1 = rng.uniform(), u2 = rng.uniform();
        if (env_prob_ > 0) {  // u0 picks the kind of light, then is reused rescaled to [0, 1)
            if (u0 < env_prob_) return nee_env(s, ns, wo, sigma, u0 / env_prob_, u1, u2);
            u0 = (u0 - env_prob_) / (1 - env_prob_);
        }
        const int k =
            static_cast<int>(std::upper_bound(light_cdf_.begin(), light_cdf_.end(), u0) - light_cdf_.begin());
        const int id = lights_[std::min<size_t>(k, lights_.size() - 1)];
        Vec3 y, ny;
        sample_point(id, u1, u2, y, ny);
        const Vec3 xo = offset(x, ns);
        const Vec3 to = y - xo;
        const double dist = length(to);
        if (!(dist > 0)) return {};
        const Vec3 wi = to * (1.0 / dist);
        const double cos_x = dot(ns, wi);
        if (cos_x <= 0) return {};
        const Surface ls{y, ny, &material(id)};
        const Rgb le = emitted(ls, -wi);
        if (max_component(le) <= 0) return {};
        const double pl = light_pdf(id, ny, wi, dist);
        if (!std::isfinite(pl)) return {};
        // Shadow ray to y pushed off the emitter towards x: any geometry blocks.
        const Vec3 yo = offset(y, dot(ny, wi) < 0 ? ny : -ny);
        const Vec3 sd = yo - xo;
        const double sdist = length(sd);
        Hit h;
        if (trace(xo, sd * (1.0 / sdist), sdist, true, h)) return {};
        const Rgb f = bsdf_f(*s.mat, s.n, wo, wi);
        const double w =
            opt_.strategy == Strategy::Mis ? power_heuristic(pl, bsdf_pdf(*s.mat, s.n, wo, wi)) : 1.0;
        return f * le * exp_neg(sigma, dist) * (cos_x * w / pl);
    }

    // NEE towards the environment: a direction from its sampler; the shadow
    // ray runs to infinity and any geometry blocks it.
    Rgb nee_env(const Surface& s, Vec3 ns, Vec3 wo, Rgb sigma, double u0, double u1, double u2) const {
        double pdf;
        const Vec3 wi = env_sampler_.sample(u0, u1, u2, &pdf);
        const double cos_x = dot(ns, wi);
        const double pl = env_prob_ * pdf;
        if (cos_x <= 0 || !(pl > 0)) return {};
        const Rgb le = environment_radiance(scene_.environment, wi);
        if (max_component(le) <= 0) return {};
        Hit h;
        if (trace(offset(s.p, ns), wi, kInf, true, h)) return {};
        const Rgb f = bsdf_f(*s.mat, s.n, wo, wi);
        const double w =
            opt_.strategy == Strategy::Mis ? power_heuristic(pl, bsdf_pdf(*s.mat, s.n, wo, wi)) : 1.0;
        return f * le * exp_neg(sigma, kInf) * (cos_x * w / pl);
    }

    // Radiance arriving along -d from infinity: the environment if present, else the background.
    Rgb escaped(Vec3 d) const { return has_env_ ? environment_radiance(scene_.environment, d) : scene_.background; }
    bool has_lights() const { return !lights_.empty() || env_prob_ > 0; }

    const Scene& scene_;
    RenderOptions opt_;
    std::vector<Tri> tris_;
    std::vector<Sphere> spheres_;
    std::vector<Node> nodes_;
    std::vector<int> order_;
    std::vector<int> lights_;
    std::vector<double> light_cdf_, select_pdf_;
    bool has_env_ = false;  // the environment replaces the background
    EnvironmentSampler env_sampler_;
    double env_prob_ = 0;  // probability that NEE samples the environment (0: it is not a sampled light)
};

Vec3 reflect(Vec3 d, Vec3 n) {
    return d - n * (2 * dot(d, n));
}

Rgb Tracer::radiance(Vec3 o, Vec3 d, Pcg32& rng) const {
    Rgb L, beta{1, 1, 1};
    Rgb sigma;  // absorption of the medium the ray is in (0 outside)
    // After the camera and vertices without NEE (Mirror, dielectrics) emission
    // gets weight 1; after Diffuse and Gltf vertices it is MIS'd with NEE.
    bool prev_no_nee = true;
    double prev_pdf = 0;  // solid-angle pdf of the last BSDF sample at a vertex with NEE
    Vec3 prev_p = o;
    const bool use_nee = opt_.strategy != Strategy::BsdfOnly && has_lights();
    for (int depth = 0;; ++depth) {  // depth = scattering vertices so far
        Hit h;
        if (!trace(o, d, kInf, false, h)) {
            // The background is not a sampled light: full weight in every
            // strategy. A non-black environment is, so after a vertex with NEE
            // its NEE shares this path (Mis) or stands for it (LightOnly).
            double w = 1;
            if (env_prob_ > 0 && !prev_no_nee) {
                if (opt_.strategy == Strategy::LightOnly)
                    w = 0;
                else if (opt_.strategy == Strategy::Mis)
                    w = power_heuristic(prev_pdf, env_prob_ * env_sampler_.pdf(d));
            }
            L = L + beta * exp_neg(sigma, kInf) * escaped(d) * w;
            break;
        }
        beta = beta * exp_neg(sigma, h.t);
        const Surface s = surface(h.prim, o, d, h.t);
        const Material& m = *s.mat;

        // Emission: a path with `depth` scattering vertices (depth <= max_depth here).
        const Rgb le = emitted(s, -d);
        if (max_component(le) > 0) {
            double w = 1;
            if (!prev_no_nee) {
                if (opt_.strategy == Strategy::LightOnly) {
                    w = 0;
                } else if (opt_.strategy == Strategy::Mis) {
                    const double pl = light_pdf(h.prim, s.n, d, length(s.p - prev_p));
                    w = std::isfinite(pl) ? power_heuristic(prev_pdf, pl) : 0;
                }
            }
            L = L + beta * le * w;
        }
        if (depth >= opt_.max_depth) break;

        // Scatter: this is scattering vertex depth + 1.
        const bool front = dot(d, s.n) < 0;
        const Vec3 ns = front ? s.n : -s.n;  // normal on the incident side
        const Vec3 wo = -d;
        if (m.type == Material::Diffuse || m.type == Material::Gltf) {
            if (use_nee) L = L + beta * nee(s, ns, wo, sigma, rng);
            // Diffuse has a single lobe: no lobe choice to draw.
            const double u0 = m.type == Material::Diffuse ? 0.0 : rng.uniform();
            const double u1 = rng.uniform(), u2 = rng.uniform();
            BsdfSample bs;
            if (!sample_bsdf(m, s.n, wo, u0, u1, u2, &bs))
                break;  // no sample: the path carries nothing further
            d = bs.wi;
            o = offset(s.p, ns);
            beta = beta * bs.weight;
            prev_pdf = bs.pdf;
            prev_no_nee = false;
        } else if (m.type == Material::Mirror) {
            d = normalize(reflect(d, ns));
            o = offset(s.p, ns);
            beta = beta * m.mirror_reflectance;
            prev_no_nee = true;
        } else if (!is_delta(m)) {  // RoughDielectric: BSDF sampling only, see path_reference.md
            const double u0 = rng.uniform(), u1 = rng.uniform(), u2 = rng.uniform();
            BsdfSample bs;
            if (!sample_bsdf(m, s.n, wo, u0, u1, u2, &bs)) break;
            d = bs.wi;
            const bool through = dot(d, ns) < 0;
            o = offset(s.p, through ? -ns : ns);
            if (through) sigma = front ? m.absorption : Rgb{};  // entering / leaving the object
            beta = beta * bs.weight;
            prev_no_nee = true;
        } else {  // smooth Dielectric (or RoughDielectric): entering iff the front face is hit
            const double eta = front ? m.ior : 1.0 / m.ior;  // n_t / n_i
            const double cos_i = -dot(d, ns);
            const double R = fresnel_dielectric(cos_i, eta);
            if (rng.uniform() < R) {
                d = normalize(reflect(d, ns));
                o = offset(s.p, ns);
                beta = beta * m.reflection_tint;
            } else {
                // Snell: w_t = d / eta + (cos_i / eta - cos_t) ns. Weight (1-R)/(1-R) = 1;
                // no eta^2 radiance scaling (see path_reference.md).
                const double cos_t = std::sqrt(std::max(0.0, 1 - (1 - cos_i * cos_i) / (eta * eta)));
                d = normalize(d * (1 / eta) + ns * (cos_i / eta - cos_t));
                o = offset(s.p, -ns);
                sigma = front ? m.absorption : Rgb{};  // entering / leaving the object
                beta = beta * m.transmission_tint;
            }
            prev_no_nee = true;
        }
        prev_p = s.p;

        // Russian roulette from the third scattering vertex on (unbiased: /q).
        if (opt_.russian_roulette && depth + 1 >= 3) {
            const double q = std::min(1.0, max_component(beta));
            if (!(rng.uniform() < q)) break;
            beta = beta * (1.0 / q);
        }
        if (max_component(beta) <= 0) break;
    }
    return L;
}

unsigned thread_count(const RenderOptions& opt) {
    unsigned n = opt.threads ? opt.threads : std::thread::hardware_concurrency();
    return std::max(1u, n);
}

// Runs body(i) for i in [0, n) on `threads` threads (dynamic scheduling).
template <class F>
void parallel_for(int n, unsigned threads, F body) {
    std::atomic<int> next{0};
    auto worker = [&] {
        for (int i; (i = next.fetch_add(1)) < n;) body(i);
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < std::min<unsigned>(threads, n); ++t) pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool) t.join();
}

}  // namespace

Image render(const Scene& scene, const Camera& cam, const RenderOptions& opt) {
    if (cam.width < 1 || cam.height < 1) throw std::invalid_argument("pathref: empty image");
    if (!(cam.aperture >= 0 && cam.focus_distance >= 0) || !std::isfinite(cam.aperture + cam.focus_distance))
        throw std::invalid_argument("pathref: aperture and focus_distance must be finite and >= 0");
    const Tracer tracer(scene, opt);
    Image img;
    img.width = cam.width;
    img.height = cam.height;
    img.mean.resize(static_cast<size_t>(cam.width) * cam.height);
    img.se.resize(img.mean.size());
    parallel_for(cam.height, thread_count(opt), [&](int y) {
        for (int x = 0; x < cam.width; ++x) {
            const size_t pix = static_cast<size_t>(y) * cam.width + x;
            Accum acc;
            for (int s = 0; s < opt.spp; ++s) {
                Pcg32 rng = make_rng(opt.seed, pix, s);
                const double u = rng.uniform(), v = rng.uniform();  // box filter
                // A pinhole draws no lens sample, so its images keep their random streams.
                double lu = 0, lv = 0;
                if (cam.aperture > 0) {
                    lu = rng.uniform();
                    lv = rng.uniform();
                }
                const Ray ray = camera_ray(cam, x + u, y + v, lu, lv);
                acc.add(tracer.radiance(ray.origin, ray.dir, rng));
            }
            const Estimate e = acc.result();
            img.mean[pix] = e.mean;
            img.se[pix] = e.se;
        }
    });
    return img;
}

Estimate estimate_ray(const Scene& scene, Vec3 origin, Vec3 dir, const RenderOptions& opt) {
    const Tracer tracer(scene, opt);
    dir = normalize(dir);
    constexpr int kBlock = 4096;  // fixed blocks, merged in order: thread-count independent
    const int blocks = (opt.spp + kBlock - 1) / kBlock;
    std::vector<Accum> acc(blocks);
    parallel_for(blocks, thread_count(opt), [&](int b) {
        for (int s = b * kBlock; s < std::min(opt.spp, (b + 1) * kBlock); ++s) {
            Pcg32 rng = make_rng(opt.seed, 0, s);
            acc[b].add(tracer.radiance(origin, dir, rng));
        }
    });
    Accum total;
    for (const Accum& a : acc) total.merge(a);
    return total.result();
}

Estimate region_stats(const Image& img, const std::vector<std::pair<int, int>>& pixels) {
    Estimate r;
    Rgb var;
    for (const auto& [x, y] : pixels) {
        const Estimate e = img.at(x, y);
        r.mean = r.mean + e.mean;
        var = var + e.se * e.se;
    }
    const double inv = pixels.empty() ? 0.0 : 1.0 / pixels.size();
    r.mean = r.mean * inv;
    r.se = Rgb{std::sqrt(var.r), std::sqrt(var.g), std::sqrt(var.b)} * inv;
    return r;
}

Estimate region_stats(const Image& img, int x0, int y0, int w, int h) {
    std::vector<std::pair<int, int>> pixels;
    for (int y = y0; y < y0 + h; ++y)
        for (int x = x0; x < x0 + w; ++x) pixels.emplace_back(x, y);
    return region_stats(img, pixels);
}

void write_pfm(const std::string& path, int width, int height, const std::vector<Rgb>& pixels) {
    std::ofstream f(path, std::ios::binary);
    f << "PF\n" << width << " " << height << "\n-1.0\n";  // -1: little endian
    for (int y = height - 1; y >= 0; --y)
        for (int x = 0; x < width; ++x) {
            const Rgb& p = pixels[static_cast<size_t>(y) * width + x];
            const float c[3] = {static_cast<float>(p.r), static_cast<float>(p.g), static_cast<float>(p.b)};
            f.write(reinterpret_cast<const char*>(c), sizeof c);  // assumes a little-endian host
        }
    if (!f) throw std::runtime_error("pathref: cannot write " + path);
}

// ----------------------------------------------------------------------- OBJ
namespace {
bool parse_double(const std::string& tok, double& out) {
    const char* b = tok.data();
    const char* e = b + tok.size();
    if (b != e && *b == '+') ++b;  // from_chars rejects a leading '+'
    const auto [ptr, ec] = std::from_chars(b, e, out);
    return ec == std::errc() && ptr == e && std::isfinite(out);
}
bool parse_long(const std::string& tok, long& out) {
    const char* b = tok.data();
    const char* e = b + tok.size();
    const auto [ptr, ec] = std::from_chars(b, e, out);
    return ec == std::errc() && ptr == e && b != e;
}
}  // namespace

std::vector<ObjTriangle> parse_obj(std::istream& in, const std::string& filename) {
    std::vector<ObjTriangle> out;
    std::vector<Vec3> verts;
    std::string material, line;
    int lineno = 0;
    auto fail = [&](const std::string& what) {
        throw std::runtime_error(filename + ":" + std::to_string(lineno) + ": " + what);
    };
    while (std::getline(in, line)) {
        ++lineno;
        if (const size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        std::istringstream ls(line);  // splits on spaces, tabs and the '\r' of CRLF files
        std::string key;
        if (!(ls >> key)) continue;
        std::vector<std::string> args;
        for (std::string a; ls >> a;) args.push_back(a);
        if (key == "v") {
            if (args.size() < 3 || args.size() > 4) fail("'v' needs 3 or 4 numbers");
            double c[4];
            for (size_t i = 0; i < args.size(); ++i)
                if (!parse_double(args[i], c[i])) fail("bad number '" + args[i] + "'");
            verts.push_back({c[0], c[1], c[2]});
        } else if (key == "f") {
            if (args.size() < 3) fail("face with fewer than 3 vertices");
            std::vector<Vec3> poly;
            for (const std::string& a : args) {
                long idx;
                if (!parse_long(a.substr(0, a.find('/')), idx)) fail("bad face index '" + a + "'");
                const long n = static_cast<long>(verts.size());
                const long i = idx > 0 ? idx - 1 : n + idx;  // negative: relative to the end
                if (idx == 0 || i < 0 || i >= n) fail("face index out of range '" + a + "'");
                poly.push_back(verts[i]);
            }
            for (size_t k = 1; k + 1 < poly.size(); ++k)
                out.push_back({poly[0], poly[k], poly[k + 1], material});
        } else if (key == "usemtl") {
            if (args.size() != 1) fail("'usemtl' needs one name");
            material = args[0];
        } else if (key == "g" || key == "o" || key == "s" || key == "mtllib" || key == "vt" || key == "vn") {
            // accepted and ignored (geometry only)
        } else {
            fail("unsupported statement '" + key + "'");
        }
    }
    return out;
}

std::vector<ObjTriangle> load_obj(const std::string& path) {
    std::ifstream f(path);
    if (!f) throw std::runtime_error(path + ":0: cannot open");
    return parse_obj(f, path);
}

void add_obj(Scene& scene, const std::vector<ObjTriangle>& tris,
             const std::map<std::string, Material>& materials) {
    std::map<std::string, int> index;
    for (const ObjTriangle& t : tris) {
        auto it = index.find(t.material);
        if (it == index.end()) {
            const auto m = materials.find(t.material);
            if (m == materials.end())
                throw std::runtime_error("pathref: no material for '" + t.material + "'");
            it = index.emplace(t.material, scene.add_material(m->second)).first;
        }
        scene.add_triangle(t.v0, t.v1, t.v2, it->second);
    }
}

}  // namespace pathref
