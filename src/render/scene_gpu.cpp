// scene_gpu.cpp - Scene -> CompiledScene: BVH build and flat GPU-ready arrays.
#include "render/scene_gpu.h"

#include "accel/intersect.h"
#include "core/load_progress.h"
#include "core/error.h"
#include "render/mip_chain.h"
#include "render/scene_geometry.h"
#include "render/srgb.h"
#include "scene/instances.h"

#include "core/parallel.h"

#include <algorithm>
#include <atomic>
#include <cmath>

namespace srt {

namespace {
glm::dvec3 dvec(const glm::vec3& v) { return glm::dvec3(v.x, v.y, v.z); }

// The point that anchors a plane (and its checker and texture) in rendering space: moved
// along the plane to near the camera's foot on it, by whole periods of its pattern (2
// checker squares, one texture copy, or a period of both when one divides the other) so
// that the pattern does not move; not at all when the two periods have none in common.
glm::vec3 plane_anchor(const Plane& pl, bool textured, const glm::vec3& n, const glm::vec3& u, const Point3& origin) {
    const glm::dvec3 q = pl.point - origin, dn = dvec(n), du = dvec(u);
    const glm::dvec3 dv = glm::cross(dn, du);
    double su = -glm::dot(q, du), sv = -glm::dot(q, dv);  // from q to the foot, along u and v
    double period = 0.0;  // 0: any shift keeps the pattern
    const double chk = pl.checker ? 2.0 * double(pl.checker_size) : 0.0, tex = textured ? pl.texture_size : 0.0;
    const auto multiple = [](double a, double b) { return std::fmod(a, b) == 0.0; };
    if (chk > 0.0 && tex > 0.0) period = multiple(chk, tex) ? chk : multiple(tex, chk) ? tex : -1.0;
    else period = chk > 0.0 ? chk : tex;
    if (period < 0.0) return glm::vec3(q);
    if (period > 0.0) {
        su = period * std::round(su / period);
        sv = period * std::round(sv / period);
    }
    return glm::vec3(q + su * du + sv * dv);
}
}  // namespace

CameraGpu make_camera(const Camera& c, int width, int height, const Point3& render_origin) {
    CameraGpu g;
    g.origin = relative_to(c.from, render_origin);
    // at - from in double, rounded once (Camera::direction): near 1e4 a difference in
    // float would keep only the digits the two share. For a camera of floats it is the
    // float difference to the bit (the difference of two floats is exact in double).
    g.forward = unit(c.direction());
    const glm::vec3 right_unit = unit(glm::cross(g.forward, c.up));
    const glm::vec3 up_unit = glm::cross(right_unit, g.forward);
    const double tan_half = std::tan(double(c.fov_deg) * 0.5 * 3.14159265358979323846 / 180.0);
    const float half = float(tan_half);
    g.right = right_unit * half;
    g.up = up_unit * (half * float(height) / float(width));
    g.pixel_spread = float(2.0 * tan_half / double(width));
    if (c.aperture > 0.0f) {
        g.lens_u = right_unit * c.aperture;
        g.lens_v = up_unit * c.aperture;
        g.focus = c.focus();
    }
    return g;
}

const char* to_string(AccelLayout a) {
    switch (a) {
    case AccelLayout::Bvh4: return "bvh4";
    case AccelLayout::Bvh8: return "bvh8";
    default: return "bvh2";
    }
}
bool parse_accel(const std::string& s, AccelLayout& out) {
    if (s == "bvh2") out = AccelLayout::Bvh2;
    else if (s == "bvh4") out = AccelLayout::Bvh4;
    else if (s == "bvh8") out = AccelLayout::Bvh8;
    else return false;
    return true;
}

// A texture's placement as the device reads it (accel/texture.h TexTransformGpu), from
// the double matrix: the identity's numbers are exact, so its coordinates stay the same bits.
static TexTransformGpu tex_transform_gpu(const UvTransform& t) {
    const glm::dmat2& a = t.linear;  // column-major: a[column][row]
    TexTransformGpu g;
    g.m = f4{float(a[0][0]), float(a[1][0]), float(a[0][1]), float(a[1][1])};
    const double det = glm::determinant(a);
    g.o = f4{float(t.offset.x), float(t.offset.y), float(std::sqrt(std::fabs(det))), 0.0f};
    // The inverse's columns, each unit; a singular matrix (every point of a triangle reads
    // one texel, so the map tilts nothing there) keeps the triangles' axes.
    glm::dvec2 u(1.0, 0.0), v(0.0, 1.0);
    if (det != 0.0 && std::isfinite(det)) {
        const glm::dmat2 inv = glm::inverse(a);
        u = glm::normalize(inv[0]);
        v = glm::normalize(inv[1]);
    }
    // A texel's y runs up the image, against v (glTF's and MikkTSpace's bitangent): the
    // axes in the frame (tangent, bitangent) are the unit columns with their v turned over.
    g.axes = f4{float(u.x), float(-v.x), float(-u.y), float(v.y)};
    return g;
}

// The scene's images one after another in `texels`, each followed by its mip chain
// (unless the scene filters bilinearly); each texture is one TextureGpu per level of its
// image. Returns each Scene texture's first entry.
static std::vector<uint32_t> compile_textures(const Scene& scene, CompiledScene& cs) {
    std::vector<uint32_t> first;
    if (scene.textures.empty()) return first;
    struct Level {
        uint32_t offset, width, height;
    };
    std::vector<std::vector<Level>> image_levels(scene.images.size());
    const bool mips = scene.texture_filter == TextureFilter::Trilinear;
    cs.ray_cones = mips;
    for (size_t i = 0; i < scene.images.size(); ++i) {
        const TextureImage& img = scene.images[i];
        std::vector<MipLevel> chain;
        if (mips) chain = build_mip_chain(img);
        const auto add = [&](uint32_t w, uint32_t h, const std::vector<uint32_t>& texels) {
            // Texel indices are 32-bit on the device.
            if (cs.texels.size() + texels.size() > 0xffffffffu)
                throw InputError(scene.name, 0, "the textures hold more than 2^32 texels");
            image_levels[i].push_back({uint32_t(cs.texels.size()), w, h});
            cs.texels.insert(cs.texels.end(), texels.begin(), texels.end());
        };
        add(uint32_t(img.width), uint32_t(img.height), img.texels);
        for (const MipLevel& l : chain) add(l.width, l.height, l.texels);
    }
    const auto wrap = [](Wrap w) { return w == Wrap::Clamp ? kWrapClamp : w == Wrap::MirroredRepeat ? kWrapMirror : kWrapRepeat; };
    const bool transformed =
        std::any_of(scene.textures.begin(), scene.textures.end(), [](const Texture& t) { return !t.transform.identity(); });
    for (const Texture& t : scene.textures) {
        first.push_back(uint32_t(cs.textures.size()));
        const std::vector<Level>& levels = image_levels[t.image];
        const uint32_t bits = wrap(t.wrap_u) | (wrap(t.wrap_v) << 2) | (uint32_t(levels.size()) << kTexLevelShift) |
                              (scene.images[t.image].normal_map ? kTexSigned : scene.images[t.image].linear ? kTexLinear : 0u);
        for (const Level& l : levels) {
            cs.textures.push_back({l.offset, l.width, l.height, bits});
            if (transformed) cs.tex_transforms.push_back(tex_transform_gpu(t.transform));
        }
    }
    // sRGB -> linear, exact to float (IEC 61966-2-1), for every byte value; then a data
    // texture's byte / 255, the division rounded once, as on the device; then a normal
    // map's (byte - 128) / 127, in [-1, 1] (0 clamped), 128 exactly 0.
    cs.srgb_lut.resize(kSignedLutOffset + 256);
    for (int b = 0; b < 256; ++b) {
        cs.srgb_lut[size_t(b)] = float(srgb_to_linear(b / 255.0));
        cs.srgb_lut[kLinearLutOffset + size_t(b)] = float(b) / 255.0f;
        cs.srgb_lut[kSignedLutOffset + size_t(b)] = std::max(-1.0f, float(b - 128) / 127.0f);
    }
    return first;
}

namespace {
// Whether instance i's mesh emits: its triangles are then lights, each one of the light
// table's emitters (render/light_table.cpp), which are placed primitives.
bool emits(const Scene& s, const Instance& i) {
    for (const Triangle& t : s.meshes[i.mesh].triangles)
        if (s.materials[t.material].emits()) return true;
    return false;
}
}  // namespace

CompiledScene compile_scene(const Scene& scene_in, AccelLayout accel, const BvhBuildOptions& options) {
    // The instances of emissive meshes are placed as copies (scene/instances.h), the
    // others shared.
    Scene copy;
    const bool copies =
        std::any_of(scene_in.instances.begin(), scene_in.instances.end(), [&](const Instance& i) { return emits(scene_in, i); });
    if (copies) {
        copy = scene_in;
        std::vector<Instance> shared;
        for (const Instance& i : copy.instances) {
            if (!emits(copy, i)) {
                shared.push_back(i);
                continue;
            }
            for (const Triangle& t : copy.meshes[i.mesh].triangles) copy.triangles.push_back(instance_triangle(t, i));
        }
        copy.instances = std::move(shared);
    }
    const Scene& scene = copies ? copy : scene_in;
    CompiledScene cs;
    cs.camera = scene.camera;
    cs.render_origin = scene.render_origin.value_or(scene.camera.from);
    cs.background = scene.background;
    cs.ambient = scene.ambient;
    const auto rel = [&](const Point3& p) { return relative_to(p, cs.render_origin); };
    compile_geometry(scene, accel, options, cs);
    const size_t ns = scene.spheres.size(), nt = scene.triangles.size();

    for (size_t j = 0; j < scene.planes.size(); ++j) {
        const Plane& pl = scene.planes[j];
        PlaneGpu g;
        const glm::vec3 n = unit(pl.normal);
        // The plane's own axes: u = n x h, v = n x u, h = +z unless n is close to it.
        const glm::vec3 h = std::fabs(n.z) < 0.9f ? glm::vec3(0, 0, 1) : glm::vec3(1, 0, 0);
        const glm::vec3 u = unit(glm::cross(n, h));
        g.point_mat = make_f4(plane_anchor(pl, scene.materials[pl.material].reads_uvs(), n, u, cs.render_origin), bits_float(pl.material));
        g.normal = make_f4(n, pl.checker ? float(pl.checker_size) : 0.0f);
        g.u = make_f4(u, float(pl.texture_size));
        g.checker = make_f4(pl.checker_colour, bits_float(uint32_t(ns + nt + j)));
        cs.planes.push_back(g);
    }

    const std::vector<uint32_t> first_level = compile_textures(scene, cs);
    const auto tex_bits = [&](int32_t t) { return bits_float(t == kNoTexture ? kNoTextureGpu : first_level[size_t(t)]); };
    for (const Material& m : scene.materials) {
        // A dielectric's glossy slot holds NFF's kt (Whitted's constant weight on the
        // refracted ray; 0: Fresnel's weights), which render/ray_tree.h reads, and its
        // roughness, which makes the path integrator's glass rough (Whitted's stays
        // smooth). A Fresnel dielectric is glass alone: no diffuse, ambient or mirror
        // term of its own under Whitted (the path integrator's BSDF ignores them too).
        const bool fresnel_glass = m.is_dielectric() && !(m.kt > 0.0f);
        const float kd = fresnel_glass ? 0.0f : m.kd, ka = fresnel_glass ? 0.0f : m.ka;
        const glm::vec3 kr = fresnel_glass ? glm::vec3(0.0f) : m.kr;
        const f4 glossy = m.is_dielectric() ? f4{m.kt, 0.0f, 0.0f, m.roughness}
                          : m.pbr           ? f4{m.metallic, m.dielectric_f0, kGltfMarker, m.roughness}
                                            : make_f4(m.glossy, m.roughness);
        cs.materials.push_back({make_f4(m.colour, kd), make_f4(kr, ka),
                                f4{tex_bits(m.texture), tex_bits(m.alpha_texture), m.alpha_cutoff, m.alpha_factor},
                                make_f4(m.emission, bits_float((m.emission_two_sided ? kEmissionTwoSided : 0u) |
                                                               (m.emission_texture != kNoTexture ? (first_level[size_t(m.emission_texture)] + 1u) << kEmissionTextureShift : 0u))),
                                glossy,
                                make_f4(m.absorption, m.ior),
                                f4{tex_bits(m.metallic_texture), tex_bits(m.roughness_texture),
                                   bits_float(uint32_t(m.metallic_channel) | (uint32_t(m.roughness_channel) << 2) |
                                              (m.normal_mapped() ? (first_level[size_t(m.normal_texture)] + 1u) << kNormalMapShift : 0u)),
                                   m.normal_scale}});
        cs.dielectrics = cs.dielectrics || m.is_dielectric();
        // Any roughness on glass (the lobes decide which is rough enough to matter), and
        // the maps of metallic, roughness, normals and emission.
        const bool extended = (m.is_dielectric() ? m.roughness > 0.0f : m.pbr) || m.has_maps();
        cs.extended_materials = cs.extended_materials || extended;
    }

    for (const Light& l : scene.lights) {
        LightGpu g;
        if (l.type == LightType::Point)
            g.pos_or_dir = make_f4(rel(l.position), 1.0f);
        else
            g.pos_or_dir = make_f4(-unit(l.direction), 0.0f);
        g.colour = make_f4(l.colour, scene.light_model == LightModel::Physical ? 1.0f : 0.0f);
        cs.lights.push_back(g);
    }

    compile_light_table(scene, cs);
    return cs;
}

SceneView CompiledScene::view() const {
    SceneView v;
    v.nodes = nodes.data();
    v.nodes4 = nodes4.empty() ? nullptr : nodes4.data();
    v.nodes8 = nodes8.empty() ? nullptr : nodes8.data();
    v.tlas = tlas.empty() ? nullptr : tlas.data();
    v.instances = instances.empty() ? nullptr : instances.data();
    v.instance_count = uint32_t(instances.size());
    v.prims = prims.data();
    v.prim_tests = prim_tests.data();
    v.normals = normals.empty() ? nullptr : normals.data();
    v.tangents = tangents.empty() ? nullptr : tangents.data();
    v.planes = planes.data();
    v.materials = materials.data();
    v.lights = lights.data();
    v.textures = textures.empty() ? nullptr : textures.data();
    v.texels = texels.empty() ? nullptr : texels.data();
    v.srgb_lut = srgb_lut.empty() ? nullptr : srgb_lut.data();
    v.tex_transforms = tex_transforms.empty() ? nullptr : tex_transforms.data();
    v.uvs = uvs.empty() ? nullptr : uvs.data();
    v.prim_alpha = prim_alpha.empty() ? nullptr : prim_alpha.data();
    v.emitters = emitters.empty() ? nullptr : emitters.data();
    v.light_cdf = light_cdf.empty() ? nullptr : light_cdf.data();
    v.light_pmf = light_pmf.empty() ? nullptr : light_pmf.data();
    v.prim_emitter = prim_emitter.empty() ? nullptr : prim_emitter.data();
    v.emitter_count = uint32_t(emitters.size());
    v.alpha_masks = !prim_alpha.empty();
    v.ray_cones = ray_cones;
    v.dielectrics = dielectrics;
    v.extended_materials = extended_materials;
    v.node_count = uint32_t(nodes.size());
    v.prim_count = uint32_t(prims.size());
    v.plane_count = uint32_t(planes.size());
    v.light_count = uint32_t(lights.size());
    v.background = background;
    v.env = env;
    v.env.texels = env_texels.empty() ? nullptr : env_texels.data();
    v.env.row_cdf = env_row_cdf.empty() ? nullptr : env_row_cdf.data();
    v.env.col_cdf = env_col_cdf.empty() ? nullptr : env_col_cdf.data();
    v.precise_spheres = precise_spheres;
    v.ambient = ambient;
    return v;
}

size_t CompiledScene::device_bytes() const {
    return (nodes.size() + tlas.size()) * sizeof(BvhNode) + instances.size() * sizeof(InstanceGpu) + nodes4.size() * sizeof(Bvh4Node) + nodes8.size() * sizeof(Bvh8Node) + prims.size() * (sizeof(PrimGpu) + sizeof(PrimTestGpu)) + (normals.size() + tangents.size()) * sizeof(f4) +
           planes.size() * sizeof(PlaneGpu) + materials.size() * sizeof(MaterialGpu) +
           lights.size() * sizeof(LightGpu) + texture_bytes() + uvs.size() * sizeof(f4) +
           prim_alpha.size() * sizeof(uint32_t) + emitters.size() * sizeof(EmitterGpu) +
           (light_cdf.size() + light_pmf.size()) * sizeof(float) + prim_emitter.size() * sizeof(uint32_t) +
           env_texels.size() * sizeof(f4) + (env_row_cdf.size() + env_col_cdf.size()) * sizeof(float);
}

size_t CompiledScene::texture_bytes() const {
    return texels.size() * sizeof(uint32_t) + textures.size() * sizeof(TextureGpu) + srgb_lut.size() * sizeof(float) +
           tex_transforms.size() * sizeof(TexTransformGpu);
}

}  // namespace srt
