// pathref: a brute-force, double-precision reference path tracer.
//
// Written from the physics alone to serve as an oracle for converged images
// of another renderer. Correctness and clarity over speed: exact double
// ray/primitive tests, a plain median-split BVH, no SIMD. See path_reference.md for
// the model and its conventions.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace pathref {

// ---------------------------------------------------------------- math types
struct Vec3 {
    double x = 0, y = 0, z = 0;
};
inline Vec3 operator+(Vec3 a, Vec3 b) {
    return {a.x + b.x, a.y + b.y, a.z + b.z};
}
inline Vec3 operator-(Vec3 a, Vec3 b) {
    return {a.x - b.x, a.y - b.y, a.z - b.z};
}
inline Vec3 operator-(Vec3 a) {
    return {-a.x, -a.y, -a.z};
}
inline Vec3 operator*(Vec3 a, double s) {
    return {a.x * s, a.y * s, a.z * s};
}
inline Vec3 operator*(double s, Vec3 a) {
    return a * s;
}
double dot(Vec3 a, Vec3 b);
Vec3 cross(Vec3 a, Vec3 b);
double length(Vec3 a);
Vec3 normalize(Vec3 a);

// Linear RGB radiance / reflectance triple.
struct Rgb {
    double r = 0, g = 0, b = 0;
};
inline Rgb operator+(Rgb a, Rgb c) {
    return {a.r + c.r, a.g + c.g, a.b + c.b};
}
inline Rgb operator-(Rgb a, Rgb c) {
    return {a.r - c.r, a.g - c.g, a.b - c.b};
}
inline Rgb operator*(Rgb a, Rgb c) {
    return {a.r * c.r, a.g * c.g, a.b * c.b};
}
inline Rgb operator*(Rgb a, double s) {
    return {a.r * s, a.g * s, a.b * s};
}
inline Rgb operator*(double s, Rgb a) {
    return a * s;
}
inline double max_component(Rgb a) {
    return a.r > a.g ? (a.r > a.b ? a.r : a.b) : (a.g > a.b ? a.g : a.b);
}
inline double mean_component(Rgb a) {
    return (a.r + a.g + a.b) / 3.0;
}

// ------------------------------------------------------------------- scene
struct Material {
    enum Type { Diffuse, Mirror, Dielectric };
    Type type = Diffuse;
    Rgb albedo;                       // Diffuse: Lambertian, BRDF = albedo / pi
    Rgb emission;                     // radiance Le leaving the surface (any type)
    bool two_sided_emission = false;  // false: emits only towards dot(w, n) > 0
    Rgb mirror_reflectance{1, 1, 1};  // Mirror: perfect reflection times this
    double ior = 1.5;                 // Dielectric: n_inside / n_outside (outside = front side)
    Rgb absorption;                   // Dielectric: Beer-Lambert sigma_a inside (per unit length)
};

// Geometric normal n = normalize((v1 - v0) x (v2 - v0)); front face = CCW side.
struct Triangle {
    Vec3 v0, v1, v2;
    int material = 0;
};

// Outward normal; the outside is the front side.
struct Sphere {
    Vec3 center;
    double radius = 1;
    int material = 0;
};

struct Scene {
    std::vector<Material> materials;
    std::vector<Triangle> triangles;
    std::vector<Sphere> spheres;
    Rgb background;  // radiance of rays that escape

    int add_material(const Material& m);  // returns its index
    void add_triangle(Vec3 v0, Vec3 v1, Vec3 v2, int material);
    // Quad v0 v1 v2 v3 (planar, convex) as triangles (v0 v1 v2), (v0 v2 v3).
    void add_quad(Vec3 v0, Vec3 v1, Vec3 v2, Vec3 v3, int material);
    void add_sphere(Vec3 center, double radius, int material);
};

// Pinhole camera; hfov_deg is the full horizontal field of view.
struct Camera {
    Vec3 from, at{0, 0, -1}, up{0, 1, 0};
    double hfov_deg = 45;
    int width = 16, height = 16;
};
// Unit direction for raster position (px, py) = (x + u, y + v); y = 0 is the top row.
Vec3 camera_direction(const Camera& cam, double px, double py);

// ---------------------------------------------------------------- rendering
enum class Strategy {
    Mis,       // NEE + BSDF sampling, power heuristic, at diffuse vertices
    BsdfOnly,  // no next-event estimation
    LightOnly  // NEE only; emission hit by a BSDF ray after a diffuse vertex ignored
};

struct RenderOptions {
    int spp = 64;        // samples (paths) per pixel
    int max_depth = 16;  // max number of scattering vertices on a path (pbrt-v4 maxdepth)
    Strategy strategy = Strategy::Mis;
    bool russian_roulette = true;  // after the 3rd scattering vertex; unbiased
    std::uint64_t seed = 1;
    unsigned threads = 0;  // 0: std::thread::hardware_concurrency()
};

// Mean of n samples and its standard error sqrt(s^2 / n) (s^2: sample variance).
struct Estimate {
    Rgb mean, se;
};

struct Image {
    int width = 0, height = 0;
    std::vector<Rgb> mean, se;  // row-major, index y * width + x, y = 0 top
    Estimate at(int x, int y) const;
};

Image render(const Scene& scene, const Camera& cam, const RenderOptions& opt);

// spp paths along one fixed ray (origin, dir); threads split fixed blocks of
// samples, so the result does not depend on the thread count.
Estimate estimate_ray(const Scene& scene, Vec3 origin, Vec3 dir, const RenderOptions& opt);

// Region mean = mean of pixel means; se = sqrt(sum of pixel se^2) / pixel count.
Estimate region_stats(const Image& img, int x0, int y0, int w, int h);
Estimate region_stats(const Image& img, const std::vector<std::pair<int, int>>& pixels);

// Two-sided normal quantile k with P(|Z| > k) = family_alpha / comparisons
// (Bonferroni): |a - b| < k * se then has family-wise false-failure rate
// <= family_alpha for `comparisons` independent normal comparisons.
double bonferroni_k(int comparisons, double family_alpha);

// Unpolarised Fresnel reflectance of a smooth dielectric interface.
// cos_i: cosine of the incident angle (>= 0); eta = n_transmitted / n_incident.
// Returns 1 under total internal reflection.
double fresnel_dielectric(double cos_i, double eta);

// Writes a little-endian colour PFM (bottom row first, as PFM requires).
void write_pfm(const std::string& path, int width, int height, const std::vector<Rgb>& pixels);

// --------------------------------------------------------------------- OBJ
struct ObjTriangle {
    Vec3 v0, v1, v2;
    std::string material;  // name from the last `usemtl` ("" before any)
};
// Geometry-only OBJ reader: v, f (fan-triangulated; v, v/vt, v//vn, v/vt/vn;
// negative = relative indices), usemtl; g o s mtllib vt vn ignored. Any other
// statement or malformed line throws std::runtime_error("file:line: what").
std::vector<ObjTriangle> parse_obj(std::istream& in, const std::string& filename);
std::vector<ObjTriangle> load_obj(const std::string& path);
// Adds the triangles, one scene material per name used; throws
// std::runtime_error if a name is missing from `materials`.
void add_obj(Scene& scene, const std::vector<ObjTriangle>& tris,
             const std::map<std::string, Material>& materials);

}  // namespace pathref
