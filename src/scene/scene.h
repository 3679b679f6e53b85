// scene.h - the scene model every loader produces and every renderer consumes.
//
// Shading model (plain Whitted, mirror-only), for one hit with material m:
//   colour = m.ka * scene.ambient * m.colour
//          + m.kd * m.colour * sum_lights( max(0, N.L) * light.colour * visible )
//          + m.kr * trace(reflected ray)
// (the ambient term is POV-Ray's ambient_light x finish ambient, lit or in shadow; with
// the default scene.ambient of 0 it adds exactly nothing)
// - the diffuse term is NOT scaled by (1 - kr);
// - N faces the incoming ray (winding does not matter);
// - one hard shadow ray per light, every primitive casts shadows (mirrors too);
// - lights have no falloff; a miss returns `background`;
// - the primary ray is level 1; a ray beyond `max depth` returns black.
// Coordinates are right-handed; units are arbitrary. Positions are double (`Point3`):
// loaders keep the digits a file gives, so a scene far from the origin (a model in
// survey coordinates, or one moved by 1e4) loses nothing before render/scene_gpu.h
// moves it next to the camera and rounds it to float once.
#pragma once

#include "core/radiance_image.h"
#include "scene/integrator.h"

#include <glm/glm.hpp>

#include <memory>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace srt {

using Point3 = glm::dvec3;  // a position in the scene (directions and colours are float)

// An image a texture reads: 8-bit texels, RGBA in memory order, the colour channels sRGB-
// encoded and alpha linear (as PNG, JPEG and glTF define them), or, in a data image
// (`linear`: metallic-roughness, normals), every channel linear. Row 0 is the image's top
// row. A mask image (MTL map_d) whose file has no alpha channel carries its grey level
// in alpha (scene/texture_file.h).
struct TextureImage {
    std::string name;  // the file, or "file.gltf: /images/3", for messages and reports
    int width = 0, height = 0;
    bool file_alpha = false;       // the file has an alpha channel (a mask may share the image)
    bool linear = false;           // data, not colour: its bytes / 255 are its values
    // A normal map (data): its bytes b decode to (b - 128) / 127, clamped to [-1, 1], so that
    // 128 is exactly 0 and a flat map (128, 128, 255) is exactly (0, 0, 1). glTF writes
    // b / 255 * 2 - 1, which no byte makes 0: a flat map would tilt every normal by 1/255.
    bool normal_map = false;
    std::vector<uint32_t> texels;  // width * height, byte 0 = red
};

// How texture coordinates outside [0, 1] map onto the image (glTF's sampler wrap modes).
enum class Wrap : uint8_t { Repeat, MirroredRepeat, Clamp };

// Where a texture lies on the triangles' coordinates: uv' = linear * uv + offset (glTF's
// KHR_texture_transform, MTL's -o and -s). The identity leaves uv as it is, bit for bit.
struct UvTransform {
    glm::dmat2 linear{1.0};
    glm::dvec2 offset{0.0};
    bool identity() const { return linear == glm::dmat2(1.0) && offset == glm::dvec2(0.0); }
    bool operator==(const UvTransform& o) const { return linear == o.linear && offset == o.offset; }
    // KHR_texture_transform's: uv' = T(offset) R(rotation) S(scale) uv, the rotation in
    // radians, counter-clockwise in uv space (v down), as the extension has it.
    static UvTransform of(const glm::dvec2& offset, double rotation, const glm::dvec2& scale);
};

// An image, where it lies and how it is sampled: bilinearly, in linear light
// (accel/texture.h). Textures of one image laid differently share its texels.
struct Texture {
    uint32_t image = 0;  // into Scene::images
    Wrap wrap_u = Wrap::Repeat, wrap_v = Wrap::Repeat;
    UvTransform transform;
};

constexpr int32_t kNoTexture = -1;

// How a texture seen from far off is filtered (accel/texture.h): from the full image
// alone (the default, as in pbrt-v4 and Mitsuba 3: samples per pixel converge to the
// filtered picture, and nothing is blurred), or from its mip chain by the width of the
// ray cone at the hit (`--texture-filter trilinear`: no aliasing at one sample a pixel,
// isotropic, so it blurs a surface seen edge-on; docs/performance.md gives its cost).
enum class TextureFilter : uint8_t { Bilinear, Trilinear };

// The brightest emission a loader accepts, per component. A pixel's linear sum adds up to
// 2^24 samples (the viewer's --max-samples) and its 8-bit output scales the mean by up to
// 2^30 (--exposure 30): 1.8e16 in all, so 1e18 stays below 1.8e34, a factor of 1.9e4
// under float's largest (3.4e38) for the weights of the paths that carry it. Brighter,
// a finite emission (3e38 is a float) makes infinite pixels.
constexpr float kMaxEmission = 1e18f;
// The reason loaders give for refusing a brighter one, after "must be at most 1e18".
constexpr const char* kMaxEmissionWhy =
    "a brighter emitter overflows the film (a pixel sums up to 2^24 samples, shown at up to 2^30 exposure)";

struct Material {
    std::string name;
    glm::vec3 colour{0.8f, 0.8f, 0.8f};  // linear RGB; times the texture's colour where there is one
    float kd = 1.0f;                     // diffuse weight
    glm::vec3 kr{0.0f, 0.0f, 0.0f};      // mirror reflectance per channel
    float ka = 1.0f;                     // ambient weight (times Scene::ambient)
    int32_t texture = kNoTexture;        // into Scene::textures: the colour is colour * texture(uv)
    // Alpha cut-out: where alpha_factor * alpha_texture(uv).a < alpha_cutoff the surface is
    // not there, for every ray (camera, mirror, shadow). Only mesh triangles may be masked.
    int32_t alpha_texture = kNoTexture;
    bool alpha_mask = false;
    float alpha_factor = 1.0f;
    float alpha_cutoff = 0.5f;
    // Beyond Whitted's terms (docs/scene-format.md, "Materials"): light the surface gives
    // off, which the path integrator samples as an area light; the roughness of the kr
    // lobe; and glass, which both integrators trace.
    glm::vec3 emission{0.0f, 0.0f, 0.0f};  // radiance leaving the surface
    // A colour texture the emission is multiplied by (glTF's emissiveTexture, MTL's map_Ke),
    // on mesh triangles and spheres: the path integrator's textured area light, read at
    // level 0 (accel/traversal_common.h emission_texture_at), its power from the texture over each
    // primitive (render/light_table.cpp).
    int32_t emission_texture = kNoTexture;
    bool emission_two_sided = false;       // else only from its front: a triangle's counter-clockwise side, a sphere's outside
    glm::vec3 glossy{0.0f, 0.0f, 0.0f};    // the path integrator's specular lobe where given (MTL illum 2's Ks, glTF's F0), else kr's
    float roughness = 0.0f;                // of the kr (or glossy) lobe: GGX alpha = roughness^2; 0 = a perfect mirror
    float ior = 0.0f;                      // > 0: a dielectric (glass, water), n inside / n outside
    float kt = 0.0f;                       // NFF's T: a constant weight on the refracted ray (Whitted 1980); 0: Fresnel's
    glm::vec3 absorption{0.0f, 0.0f, 0.0f};  // Beer-Lambert sigma_a inside a dielectric, per unit length
    // glTF 2.0's metallic-roughness BRDF (render/bsdf.h) for the path integrator, where
    // `pbr`: colour is the base colour, `metallic` mixes the metal into the dielectric, and
    // `dielectric_f0` is the dielectric's reflectance at normal incidence (0.04: ior 1.5).
    // kd and kr are Whitted's reading of it, the loader's to set; glossy is not used.
    bool pbr = false;
    float metallic = 0.0f;
    float dielectric_f0 = 0.04f;
    // The path integrator's maps of metallic and roughness: data textures whose channel
    // (0 red, 1 green, 2 blue) multiplies `metallic` and `roughness` (glTF's
    // metallicRoughnessTexture: one texture, blue metal, green roughness; MTL's map_Pm
    // and map_Pr). The roughness map roughens any lobe (glossy, glTF's, glass); metallic
    // needs `pbr`. Whitted's kd and kr read the factors times the maps' means
    // (read_pbr_as_whitted).
    int32_t metallic_texture = kNoTexture;
    int32_t roughness_texture = kNoTexture;
    uint8_t metallic_channel = 2, roughness_channel = 1;
    // The path integrator's normal map (glTF's normalTexture, MTL's norm): a tangent-space
    // normal, its x and y times `normal_scale`, on mesh triangles with texture coordinates
    // (their tangents: Triangle::t0..t2, else scene/tangents.h makes them) and on planes
    // (their u axis). Spheres ignore it, as does Whitted's integrator (docs/scene-format.md).
    int32_t normal_texture = kNoTexture;
    float normal_scale = 1.0f;
    bool is_mirror() const { return kr.x > 0.0f || kr.y > 0.0f || kr.z > 0.0f; }
    bool textured() const { return texture != kNoTexture; }
    bool has_maps() const {
        return metallic_texture != kNoTexture || roughness_texture != kNoTexture || normal_texture != kNoTexture ||
               emission_texture != kNoTexture;
    }
    bool normal_mapped() const { return normal_texture != kNoTexture; }
    // Whether anything reads the surface's texture coordinates: a texture, a mask or a map.
    bool reads_uvs() const { return textured() || alpha_mask || has_maps(); }
    bool is_dielectric() const { return ior > 0.0f; }
    bool emits() const { return emission.x > 0.0f || emission.y > 0.0f || emission.z > 0.0f; }
};

struct Sphere {
    Point3 centre{0.0};
    double radius = 1.0;
    uint32_t material = 0;
};

// An infinite plane through `point` with normal `normal` (unit length).
// Optional checker: squares of side `checker_size` alternate between the material's
// colour and `checker_colour`, laid out in the plane's own (u, v) axes.
struct Plane {
    Point3 point{0.0};
    glm::vec3 normal{0.0f, 1.0f, 0.0f};
    uint32_t material = 0;
    bool checker = false;
    glm::vec3 checker_colour{0.1f, 0.1f, 0.1f};
    double checker_size = 1.0;
    // A textured material's texture coordinates on the plane: (u, v) = (p - point) . (u
    // axis, v axis) / texture_size, one copy of the image per texture_size square.
    double texture_size = 1.0;
};

// One world-space triangle. Meshes are flattened into triangles at load time
// (after their transform), so renderers see one list.
struct Triangle {
    Point3 v0, v1, v2;
    uint32_t material = 0;
    // Smooth shading: unit vertex normals, interpolated across the triangle for lighting
    // and reflection (shadow and reflected rays still leave the flat triangle).
    bool smooth = false;
    glm::vec3 n0{0.0f}, n1{0.0f}, n2{0.0f};
    // Texture coordinates of the corners, in the image's convention: u to the right, v
    // DOWN from the top row (glTF's; OBJ's v up is flipped by its loader). Without them
    // a textured triangle reads the texture at (0, 0).
    bool has_uv = false;
    glm::vec2 uv0{0.0f}, uv1{0.0f}, uv2{0.0f};
    // A normal map's tangent frame at the corners (glTF's TANGENT): xyz a unit tangent along
    // +u, w = +-1 the handedness, the bitangent (+v up the image) being cross(n, xyz) w.
    // Set by the loader from the file, or by generate_tangents (scene/tangents.h).
    bool has_tangent = false;
    glm::vec4 t0{0.0f}, t1{0.0f}, t2{0.0f};
};

// A mesh placed any number of times (Scene::instances): its triangles in its own object
// space, stored once. Renderers build one bottom-level BVH over it and a top-level BVH
// over its placements (render/scene_gpu.h); scene/instances.h flattens it into copies.
struct Mesh {
    std::string name;  // the scene file's, for messages and reports
    std::vector<Triangle> triangles;
};

// A placement of Scene::meshes[mesh]: world = linear * object + translate, in double.
// The linear part is invertible (the loaders refuse a zero scale); a negative
// determinant mirrors the mesh.
struct Instance {
    uint32_t mesh = 0;
    glm::dmat3 linear{1.0};
    glm::dvec3 translate{0.0};
};

enum class LightType : uint8_t { Point, Directional };

struct Light {
    LightType type = LightType::Point;
    Point3 position{0.0, 10.0, 0.0};         // Point
    glm::vec3 direction{0.0f, -1.0f, 0.0f};  // Directional: the direction light travels (unit)
    glm::vec3 colour{1.0f, 1.0f, 1.0f};      // intensity included; read by the scene's LightModel
    // A point light a loader placed at an emissive surface, standing in for it under the
    // Whitted model; the path integrator lights with the surface itself instead.
    bool from_emission = false;
};

// A pinhole camera, or a thin lens. `fov_deg` is the HORIZONTAL field of view, edge to
// edge of the image (POV-Ray's `angle`). Rays pass through pixel centres; row 0 is the
// top row. With an `aperture` (the lens's radius, in scene units) the rays of a pixel
// leave from points of the lens and meet where the pinhole's ray meets the plane in focus,
// `focus_distance` along the view direction (0: the distance to `at`), as pbrt-v4's
// PerspectiveCamera.
// `from` and `at` are positions, double like the scene's: the camera becomes the origin
// of rendering space (render/scene_gpu.h), and a camera rounded to float at 1e4 would be
// up to 5e-4 from where the file puts it, so a moved scene would be seen from elsewhere.
struct Camera {
    Point3 from{0.0, 0.0, 5.0};
    Point3 at{0.0, 0.0, 0.0};
    glm::vec3 up{0.0f, 1.0f, 0.0f};  // a direction
    float fov_deg = 60.0f;
    float aperture = 0.0f;        // lens radius; 0: a pinhole
    float focus_distance = 0.0f;  // 0: |at - from|

    // The plane in focus: focus_distance, else the distance to `at`.
    float focus() const { return focus_distance > 0.0f ? focus_distance : float(glm::length(at - from)); }

    // at - from, subtracted in double and rounded once: the view direction (not unit)
    // that make_camera normalises, and the one the loaders check against `up`.
    glm::vec3 direction() const { return glm::vec3(at - from); }
};

// A camera that moves (camera_path.cpp).
// A scene's `animation` (docs/scene-format.md) holds keys {time, from, at, up, fov} with
// strictly increasing times. Frame k is the camera at time t0 + k / fps, for k = 0 ..
// frame_count() - 1, where t0 is the first key's time and the last frame is the last
// key's time or just before it. Between keys the camera is interpolated linearly, or by
// a Catmull-Rom spline through the keys with their times as knots (Barry and Goldman's
// pyramid; at the ends the missing neighbour is the mirror image of the next key), so
// uneven key spacing does not make the camera overshoot or jerk. Each frame depends
// on k alone: frames rendered in any order, or in different processes, are the same.
struct CameraKey {
    double time = 0.0;  // seconds
    Camera camera;
};

struct CameraPath {
    enum class Interpolation { Linear, CatmullRom };
    Interpolation interpolation = Interpolation::CatmullRom;
    double fps = 30.0;
    std::vector<CameraKey> keys;  // >= 2, times strictly increasing (the loader checks)

    bool empty() const { return keys.empty(); }
    int frame_count() const;              // frames from the first key's time to the last's
    Camera at_time(double t) const;       // t clamped to the keys' span
    Camera frame(int k) const { return at_time(keys.front().time + double(k) / fps); }
};

const char* to_string(CameraPath::Interpolation i);

// An environment map: light from every direction at infinity, from an equirectangular
// HDR image (render/environment.h gives the convention: Blender's, Y up). Under the path
// integrator it lights the scene, importance-sampled; under Whitted's, rays that leave
// the scene see it (mirrors and glass reflect it), but it is not a light there.
struct Environment {
    std::string file;          // as the scene or --env named it, for reports
    float intensity = 1.0f;    // multiplies every texel
    float rotation = 0.0f;     // degrees about +Y: the map turned right-handed, as seen from above
    std::shared_ptr<const RadianceImage> image;  // shared: scenes are copied (animation, the viewer)
    bool active() const { return image != nullptr; }
};

struct Scene {
    std::string name;     // for reports: file path or "builtin:default"
    Camera camera;
    glm::vec3 background{0.0f, 0.0f, 0.0f};  // what rays that leave the scene see, without an environment
    Environment environment;
    glm::vec3 ambient{0.0f, 0.0f, 0.0f};  // ambient light, times each material's ka
    std::vector<Material> materials;  // index 0 always exists
    std::vector<TextureImage> images;
    std::vector<Texture> textures;
    TextureFilter texture_filter = TextureFilter::Bilinear;
    std::vector<Sphere> spheres;
    std::vector<Plane> planes;
    std::vector<Triangle> triangles;
    // Meshes placed by instances: a two-level hierarchy, each mesh stored once however
    // often it is placed. `triangles` above are the scene's own, not these.
    std::vector<Mesh> meshes;
    std::vector<Instance> instances;
    std::vector<Light> lights;
    LightModel light_model = LightModel::Classic;  // how `lights` are read (scene/integrator.h)
    // The light a mesh loader adds to a file that has none: a white point light above and
    // behind the camera, by `radius` (the scene's bounding radius). It belongs to the
    // camera, not to the file, so place_auto_light() puts it back wherever the camera is
    // moved to (--camera-* flags). Unset when the file brings its own lights.
    struct AutoLight {
        size_t index = 0;  // into `lights`
        double radius = 1.0;
    };
    std::optional<AutoLight> auto_light;
    // Render settings a scene file may suggest; command-line flags override them.
    int width = 0, height = 0, depth = 0;  // 0 = not set by the scene
    std::optional<Integrator> integrator;  // a scene's suggestion; the command line's --integrator will win
    std::optional<SamplerKind> sampler;    // likewise, against --sampler
    CameraPath animation;                  // empty: a still camera
    // Where rendering space's origin lies (render/scene_gpu.h); unset, at the camera. Set
    // (--render-origin) to render a frame as a program holding another origin does: the
    // viewer keeps its start camera's while the view moves, and floats rounded about
    // another origin differ in the last bit.
    std::optional<Point3> render_origin;
    std::vector<std::string> notes;        // loader remarks worth printing (e.g. NFF fields ignored)
    // Which of `notes` speak of lights a loader made up (add_light_note): void, and
    // dropped, once --light replaces the scene's lights.
    std::vector<size_t> light_notes;
    void add_light_note(std::string note) {
        light_notes.push_back(notes.size());
        notes.push_back(std::move(note));
    }

    uint32_t add_material(const Material& m) {
        materials.push_back(m);
        return static_cast<uint32_t>(materials.size() - 1);
    }
    size_t primitive_count() const { return spheres.size() + planes.size() + triangles.size(); }
    // The triangles the instances place, counted once per placement.
    size_t instanced_triangle_count() const {
        size_t n = 0;
        for (const Instance& i : instances) n += meshes[i.mesh].triangles.size();
        return n;
    }
};

// The built-in default scene: mirror and diffuse spheres on a checkered floor between
// two facing mirrors, so many rays survive many bounces. scenes/default.json is the same.
Scene builtin_default_scene();

// Puts the automatic light (if any) where `s.camera` needs it: from outside the scene's
// bounds, radius up along the camera's up vector and radius / 2 back along its view
// direction; from inside them, radius / 100 above the camera.
void place_auto_light(Scene& s);

// Axis-aligned bounds of everything finite (spheres and triangles; planes are infinite).
struct Bounds3 {
    Point3 lo{1e300}, hi{-1e300};
    bool empty() const { return lo.x > hi.x; }
    void grow(const Point3& p) { lo = glm::min(lo, p); hi = glm::max(hi, p); }
    void grow(const Bounds3& b) { lo = glm::min(lo, b.lo); hi = glm::max(hi, b.hi); }
};
Bounds3 finite_bounds(const Scene& s);

// The environment map in the image file `path` (OpenEXR or Radiance RGBE), read at once.
// Throws InputError(path, 0, what) where the file is missing or cannot be read.
Environment environment_from_file(const std::string& path, float intensity = 1.0f, float rotation = 0.0f);

// The reflectance at normal incidence of a dielectric of index `ior` against air:
// ((ior - 1) / (ior + 1))^2, 0.04 at 1.5 (glTF's F0 from KHR_materials_ior, MTL's Ni).
inline float f0_of_ior(double ior) { return float((ior - 1.0) * (ior - 1.0) / ((ior + 1.0) * (ior + 1.0))); }

// The mean of channel `channel` (0 red, 1 green, 2 blue) of texture `texture`'s image, in
// its values (a data image's bytes / 255).
double texture_channel_mean(const Scene& s, int32_t texture, int channel);

// Whitted's reading of glTF's BRDF (`m.pbr`), which its model has no lobes for: a mirror of
// weight metallic (1 - roughness)^2 tinted by the base colour, and, unless the file gave
// kd (`kd_given`), the rest diffuse. A metallic or roughness map counts by its mean.
void read_pbr_as_whitted(const Scene& s, Material& m, bool kd_given);

// Checks the invariants renderers rely on (material indices in range, unit normals,
// finite numbers, radius > 0). Throws InputError naming `s.name`.
void validate(const Scene& s);

}  // namespace srt
