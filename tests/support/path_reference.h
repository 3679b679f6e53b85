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
    // Gltf: the glTF 2.0 metallic-roughness BRDF; RoughDielectric: a GGX
    // microfacet interface (Walter et al. 2007). See path_reference.md.
    enum Type { Diffuse, Mirror, Dielectric, Gltf, RoughDielectric };
    Type type = Diffuse;
    Rgb albedo;                       // Diffuse: Lambertian, BRDF = albedo / pi
    Rgb emission;                     // radiance Le leaving the surface (any type)
    bool two_sided_emission = false;  // false: emits only towards dot(w, n) > 0
    Rgb mirror_reflectance{1, 1, 1};  // Mirror: perfect reflection times this
    // Dielectric, RoughDielectric: n_inside / n_outside (outside = front side).
    // Gltf: the KHR_materials_ior index, f0 = ((ior - 1) / (ior + 1))^2.
    double ior = 1.5;
    Rgb absorption;  // Dielectric, RoughDielectric: Beer-Lambert sigma_a inside (per unit length)
    // Dielectric, RoughDielectric: reflected / transmitted light is multiplied by these.
    Rgb reflection_tint{1, 1, 1}, transmission_tint{1, 1, 1};
    // Gltf (defaults as in glTF 2.0): baseColorFactor, metallicFactor in [0, 1].
    Rgb base_color{1, 1, 1};
    double metallic = 1;
    // Gltf, RoughDielectric: perceptual roughness in [0, 1]; GGX alpha = roughness^2
    // (see microfacet_alpha).
    double roughness = 1;
};

// Below this GGX alpha a microfacet lobe is treated as smooth: Gltf clamps
// alpha up to it; a RoughDielectric below it is the smooth Dielectric.
constexpr double kMinMicrofacetAlpha = 1e-3;
// GGX alpha of a Gltf or RoughDielectric material: roughness^2, for Gltf
// clamped to >= kMinMicrofacetAlpha.
double microfacet_alpha(const Material& m);
// True for materials scattering into a delta distribution (no BSDF density):
// Mirror, Dielectric, and a RoughDielectric with alpha < kMinMicrofacetAlpha
// or ior == 1 (an index-matched interface refracts straight through).
bool is_delta(const Material& m);

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

// Equirectangular (lat-long) environment map at infinity; see path_reference.md.
// World +Y is up. A unit world direction d is first rotated back by
// a = rotation_deg (the map is turned by +a about +Y, right-handed):
//   l = (d.x cos a - d.z sin a, d.y, d.x sin a + d.z cos a),
// then u = 0.5 + atan2(l.z, l.x) / (2 pi)  (u = 0.5: +X, 0.75: +Z, 0.25: -Z),
//      v = acos(l.y) / pi                  (v = 0: up = the top row).
// Radiance = intensity * bilinear interpolation of the texels at (u, v), texel
// (i, j) centred at ((i + 0.5) / width, (j + 0.5) / height); columns wrap
// around (u is periodic), rows are clamped (poles). Texels must be >= 0.
struct Environment {
    int width = 0, height = 0;  // width > 0: the map is present
    std::vector<Rgb> texels;    // width * height, row-major, row 0 = the TOP row
    double intensity = 1;       // multiplies every texel
    double rotation_deg = 0;    // rotation of the map about +Y
};

// Radiance of the map towards unit world direction d (the radiance arriving
// along -d). Ignores whether the map is present; requires width, height > 0.
Rgb environment_radiance(const Environment& env, Vec3 d);

// Importance sampling of an environment map, piecewise constant in solid
// angle. The cells are the "dual" cells of the texel grid, whose corners are
// four texel centres (rows clamped at the poles, columns wrapped), so the
// bilinear radiance inside a cell depends only on its four corner texels; a
// cell is chosen with probability proportional to the mean of its corners'
// mean_component times its solid angle, then a direction uniform in solid
// angle within it. The density is thus > 0 wherever the radiance is > 0.
class EnvironmentSampler {
public:
    EnvironmentSampler() = default;
    // Throws std::invalid_argument for a malformed map (sizes, negative or
    // non-finite texels, negative intensity).
    explicit EnvironmentSampler(const Environment& env);
    // False when the map is absent or black everywhere (nothing to sample).
    bool active() const { return total_ > 0; }
    // Unit world direction for uniforms u0, u1, u2 in [0, 1); *pdf = its
    // solid-angle density. Requires active().
    Vec3 sample(double u0, double u1, double u2, double* pdf) const;
    // Solid-angle density with which sample() produces unit direction d.
    double pdf(Vec3 d) const;

private:
    int width_ = 0, height_ = 0;  // cells: height_ + 1 bands in v, width_ columns in u
    double cos_rot_ = 1, sin_rot_ = 0;
    double total_ = 0;
    std::vector<double> cdf_;        // over cells, index band * width_ + column
    std::vector<double> cell_pdf_;   // solid-angle density inside each cell
    std::vector<double> band_dcos_;  // cos(theta_top) - cos(theta_bottom) of each band
};

struct Scene {
    std::vector<Material> materials;
    std::vector<Triangle> triangles;
    std::vector<Sphere> spheres;
    Rgb background;           // radiance of rays that escape (when there is no environment)
    Environment environment;  // when present (width > 0) it replaces `background`

    int add_material(const Material& m);  // returns its index
    void add_triangle(Vec3 v0, Vec3 v1, Vec3 v2, int material);
    // Quad v0 v1 v2 v3 (planar, convex) as triangles (v0 v1 v2), (v0 v2 v3).
    void add_quad(Vec3 v0, Vec3 v1, Vec3 v2, Vec3 v3, int material);
    void add_sphere(Vec3 center, double radius, int material);
};

// Pinhole or thin-lens camera; hfov_deg is the full horizontal field of view.
struct Camera {
    Vec3 from, at{0, 0, -1}, up{0, 1, 0};
    double hfov_deg = 45;
    int width = 16, height = 16;
    double aperture = 0;        // lens RADIUS in scene units; 0: pinhole
    double focus_distance = 0;  // distance of the plane of focus along the view axis; 0: |at - from|
};
// Unit pinhole direction for raster position (px, py) = (x + u, y + v); y = 0 is the top row.
Vec3 camera_direction(const Camera& cam, double px, double py);

struct Ray {
    Vec3 origin, dir;  // dir unit
};
// Camera ray for raster position (px, py) and lens sample (lens_u, lens_v) in
// [0, 1)^2. Pinhole (aperture 0): {from, camera_direction(...)}, the lens
// sample unused. Thin lens: origin = from + a uniform point of the lens disk
// (radius aperture, in the plane spanned by the camera's right and up'),
// aimed at the pinhole ray's point on the plane of focus.
Ray camera_ray(const Camera& cam, double px, double py, double lens_u, double lens_v);

// ---------------------------------------------------------------- rendering
enum class Strategy {
    Mis,       // NEE + BSDF sampling, power heuristic, at Diffuse and Gltf vertices
    BsdfOnly,  // no next-event estimation
    LightOnly  // NEE only; emission hit by a BSDF ray after a Diffuse or Gltf vertex ignored
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

// ----------------------------------------------------------------- BSDFs
// The BSDFs with a density (Diffuse, Gltf, and RoughDielectric unless
// is_delta). Arguments: n = the unit geometric normal of the FRONT face (the
// rough dielectric's inside is behind it; Diffuse and Gltf are two-sided and
// use n flipped to wo's side); wo = unit direction towards the viewer (the
// previous path vertex), wi = unit direction towards the light; both point
// away from the surface. Radiance convention: L(wo) = integral of
// f(wo, wi) L(wi) |n.wi| dwi, with no (eta_o / eta_i)^2 factor across a
// refraction (as the smooth Dielectric; see path_reference.md).
// f excludes the cosine. Delta materials: f = pdf = 0, sample_bsdf fails.
Rgb bsdf_f(const Material& m, Vec3 n, Vec3 wo, Vec3 wi);
// Solid-angle density with which sample_bsdf returns wi. Samples that fall
// on the wrong side of the surface are discarded (sample_bsdf fails), so it
// integrates to <= 1 over the sphere.
double bsdf_pdf(const Material& m, Vec3 n, Vec3 wo, Vec3 wi);
struct BsdfSample {
    Vec3 wi;         // unit direction towards the light
    Rgb weight;      // f(wo, wi) |n.wi| / pdf
    double pdf = 0;  // bsdf_pdf(m, n, wo, wi)
};
// Importance-samples wi for uniforms u0 (lobe choice; unused by Diffuse), u1,
// u2 in [0, 1). False (no sample: the path ends) for a direction on the wrong
// side, a zero-density outcome, or a delta material.
bool sample_bsdf(const Material& m, Vec3 n, Vec3 wo, double u0, double u1, double u2, BsdfSample* s);

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
