// scene.cpp - scene-wide helpers: bounds, validation, the automatic light.
#include "scene/scene.h"

#include "core/error.h"
#include "scene/instances.h"

#include <cmath>
#include <functional>
#include <string>
#include <type_traits>

namespace srt {

UvTransform UvTransform::of(const glm::dvec2& offset, double rotation, const glm::dvec2& scale) {
    UvTransform t;
    if (rotation == 0.0 && scale == glm::dvec2(1.0) && offset == glm::dvec2(0.0)) return t;
    const double c = std::cos(rotation), s = std::sin(rotation);
    // Column-major: R * S with R = [[c, s], [-s, c]] (rows), as the extension gives it.
    t.linear = glm::dmat2(glm::dvec2(c * scale.x, -s * scale.x), glm::dvec2(s * scale.y, c * scale.y));
    t.offset = offset;
    return t;
}

Bounds3 finite_bounds(const Scene& s) {
    Bounds3 b;
    for (const Sphere& sp : s.spheres) {
        b.grow(sp.centre - Point3(sp.radius));
        b.grow(sp.centre + Point3(sp.radius));
    }
    for (const Triangle& t : s.triangles) {
        b.grow(t.v0);
        b.grow(t.v1);
        b.grow(t.v2);
    }
    for (const Instance& i : s.instances) b.grow(instance_bounds(s.meshes[i.mesh], i));
    return b;
}

void place_auto_light(Scene& s) {
    if (!s.auto_light || s.auto_light->index >= s.lights.size()) return;
    // In double, the camera's own basis (render/scene_gpu.cpp make_camera builds the same).
    const glm::dvec3 from(s.camera.from), at(s.camera.at), up(s.camera.up);
    const glm::dvec3 forward = glm::normalize(at - from);
    const glm::dvec3 right = glm::normalize(glm::cross(forward, up));
    const glm::dvec3 up_unit = glm::cross(right, forward);
    const double r = s.auto_light->radius;
    Light& l = s.lights[s.auto_light->index];
    l.type = LightType::Point;
    // Outside the scene's bounds (the loader's framing camera, or any camera looking in),
    // a light well above and behind lights everything in view with visible shadows. A
    // camera inside them (in a building) would leave that light outside its walls: there
    // the light sits just above the camera instead, where every surface in view sees it.
    const Bounds3 b = finite_bounds(s);
    const bool inside = !b.empty() && from.x > b.lo.x && from.y > b.lo.y && from.z > b.lo.z && from.x < b.hi.x &&
                        from.y < b.hi.y && from.z < b.hi.z;
    l.position = inside ? Point3(from + up_unit * (0.01 * r)) : Point3(from + up_unit * r - forward * (0.5 * r));
}

namespace {

template <class V>
bool finite(const V& v) {
    return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

void require(bool ok, const Scene& s, const std::string& what) {
    if (!ok) throw InputError(s.name, 0, "invalid scene: " + what);
}
// The same with the message made only on failure: the checks of every triangle would
// otherwise build five strings each, a third of a second for Conference.
template <class Message, class = std::enable_if_t<std::is_invocable_v<Message>>>
void require(bool ok, const Scene& s, Message&& what) {
    if (!ok) require(false, s, std::string(what()));
}

}  // namespace

double texture_channel_mean(const Scene& s, int32_t texture, int channel) {
    const std::vector<uint32_t>& texels = s.images[s.textures[size_t(texture)].image].texels;
    if (texels.empty()) return 1.0;
    double sum = 0.0;
    for (uint32_t t : texels) sum += double((t >> (8 * channel)) & 255u);
    return sum / (255.0 * double(texels.size()));
}

void read_pbr_as_whitted(const Scene& s, Material& m, bool kd_given) {
    double metal = m.metallic, rough = m.roughness;
    if (m.metallic_texture != kNoTexture) metal *= texture_channel_mean(s, m.metallic_texture, m.metallic_channel);
    if (m.roughness_texture != kNoTexture) rough *= texture_channel_mean(s, m.roughness_texture, m.roughness_channel);
    const float mirror = float(metal * (1.0 - rough) * (1.0 - rough));
    m.kr = mirror * m.colour;
    if (!kd_given) m.kd = 1.0f - mirror;
}

void validate(const Scene& s) {
    require(!s.materials.empty(), s, "no materials (material 0 must exist)");
    const size_t nm = s.materials.size();
    for (size_t i = 0; i < nm; ++i) {
        const Material& m = s.materials[i];
        require(finite(m.colour) && std::isfinite(m.kd) && finite(m.kr), s,
                [&] { return "material " + std::to_string(i) + " has a non-finite value"; });
        require(m.kd >= 0.0f && m.kr.x >= 0.0f && m.kr.y >= 0.0f && m.kr.z >= 0.0f, s,
                [&] { return "material " + std::to_string(i) + " has a negative kd or kr"; });
        for (int32_t t : {m.texture, m.alpha_texture, m.metallic_texture, m.roughness_texture, m.normal_texture, m.emission_texture})
            require(t == kNoTexture || (t >= 0 && size_t(t) < s.textures.size()), s,
                    [&] { return "material " + std::to_string(i) + " names a texture out of range"; });
        require(m.metallic_channel <= 2 && m.roughness_channel <= 2, s,
                [&] { return "material " + std::to_string(i) + " reads a map's channel other than red, green or blue"; });
        require(std::isfinite(m.alpha_factor) && std::isfinite(m.alpha_cutoff), s,
                [&] { return "material " + std::to_string(i) + " has a non-finite alpha"; });
        require(std::isfinite(m.normal_scale), s, [&] { return "material " + std::to_string(i) + " has a non-finite normal scale"; });
    }
    for (size_t i = 0; i < s.textures.size(); ++i)
        require(s.textures[i].image < s.images.size(), s, [&] { return "texture " + std::to_string(i) + " names an image out of range"; });
    for (size_t i = 0; i < s.images.size(); ++i) {
        const TextureImage& img = s.images[i];
        require(img.width > 0 && img.height > 0 && img.texels.size() == size_t(img.width) * size_t(img.height), s,
                [&] { return "image '" + img.name + "' has no texels or the wrong number"; });
    }
    // A masked-out hit on a sphere or a plane would have to look on for the surface
    // behind the hole (a sphere's far side), which the tests do not do: masks are for
    // meshes, where a hole shows whatever lies behind the triangle.
    auto unmasked = [&](uint32_t mat, const std::string& what) {
        require(!s.materials[mat].alpha_mask, s,
                what + " uses material '" + s.materials[mat].name + "', which has an alpha mask: only mesh triangles may");
    };
    for (size_t i = 0; i < s.spheres.size(); ++i) {
        const Sphere& sp = s.spheres[i];
        require(finite(sp.centre) && std::isfinite(sp.radius), s,
                [&] { return "sphere " + std::to_string(i) + " is not finite"; });
        require(sp.radius > 0.0, s, [&] { return "sphere " + std::to_string(i) + " has radius <= 0"; });
        require(sp.material < nm, s, [&] { return "sphere " + std::to_string(i) + " material out of range"; });
        unmasked(sp.material, "sphere " + std::to_string(i));
    }
    for (size_t i = 0; i < s.planes.size(); ++i) {
        const Plane& p = s.planes[i];
        require(finite(p.point) && finite(p.normal), s, [&] { return "plane " + std::to_string(i) + " is not finite"; });
        require(std::fabs(glm::length(p.normal) - 1.0f) < 1e-3f, s,
                [&] { return "plane " + std::to_string(i) + " normal is not unit length"; });
        require(p.material < nm, s, [&] { return "plane " + std::to_string(i) + " material out of range"; });
        require(!p.checker || p.checker_size > 0.0f, s,
                [&] { return "plane " + std::to_string(i) + " checker size must be > 0"; });
        require(p.texture_size > 0.0 && std::isfinite(p.texture_size), s,
                [&] { return "plane " + std::to_string(i) + " texture size must be > 0"; });
        unmasked(p.material, "plane " + std::to_string(i));
    }
    // The scene's own triangles, then each mesh's, named as the messages name them.
    const auto check_triangle = [&](const Triangle& t, const std::function<std::string()>& name) {
        require(finite(t.v0) && finite(t.v1) && finite(t.v2), s, [&] { return name() + " is not finite"; });
        require(t.material < nm, s, [&] { return name() + " material out of range"; });
        require(!t.has_uv || (std::isfinite(t.uv0.x) && std::isfinite(t.uv0.y) && std::isfinite(t.uv1.x) &&
                              std::isfinite(t.uv1.y) && std::isfinite(t.uv2.x) && std::isfinite(t.uv2.y)),
                s, [&] { return name() + " has non-finite texture coordinates"; });
        // A tangent frame (scene/tangents.h): unit tangents, a handedness of +-1.
        const auto tangent_ok = [](const glm::vec4& v) {
            return std::fabs(glm::length(glm::vec3(v)) - 1.0f) < 1e-3f && (v.w == 1.0f || v.w == -1.0f);
        };
        require(!t.has_tangent || (tangent_ok(t.t0) && tangent_ok(t.t1) && tangent_ok(t.t2)), s,
                [&] { return name() + " has a tangent that is not unit length or a handedness other than +-1"; });
    };
    for (size_t i = 0; i < s.triangles.size(); ++i)
        check_triangle(s.triangles[i], [&] { return "triangle " + std::to_string(i); });
    for (const Mesh& m : s.meshes)
        for (size_t i = 0; i < m.triangles.size(); ++i)
            check_triangle(m.triangles[i], [&] { return "mesh '" + m.name + "' triangle " + std::to_string(i); });
    for (size_t i = 0; i < s.instances.size(); ++i) {
        const Instance& in = s.instances[i];
        require(in.mesh < s.meshes.size(), s, [&] { return "instance " + std::to_string(i) + " names a mesh out of range"; });
        const double det = glm::determinant(in.linear);
        require(std::isfinite(det) && det != 0.0 && finite(in.linear[0]) && finite(in.linear[1]) &&
                    finite(in.linear[2]) && finite(in.translate),
                s, [&] { return "instance " + std::to_string(i) + " has a transform that is not finite or not invertible"; });
    }
    for (size_t i = 0; i < s.lights.size(); ++i) {
        const Light& l = s.lights[i];
        require(finite(l.position) && finite(l.direction) && finite(l.colour), s,
                [&] { return "light " + std::to_string(i) + " is not finite"; });
        if (l.type == LightType::Directional)
            require(glm::length(l.direction) > 0.0f, s,
                    [&] { return "light " + std::to_string(i) + " has a zero direction"; });
    }
    const Camera& c = s.camera;
    require(finite(c.from) && finite(c.at) && finite(c.up), s, "camera is not finite");
    // from and at are double; the view direction between them is rendered in float.
    require(finite(c.direction()), s, "camera 'at' is too far from 'from'");
    require(glm::length(c.direction()) > 0.0f, s, "camera 'from' equals 'at'");
    require(glm::length(glm::cross(c.direction(), c.up)) > 0.0f, s,
            "camera 'up' is parallel to the view direction");
    require(c.fov_deg > 0.0f && c.fov_deg < 180.0f, s, "camera fov must be in (0, 180) degrees");
    require(finite(s.background), s, "background is not finite");
    const Environment& e = s.environment;
    require(!e.active() || (std::isfinite(e.intensity) && e.intensity >= 0.0f), s,
            "environment intensity must be finite and not negative");
    require(!e.active() || std::isfinite(e.rotation), s, "environment rotation is not finite");
}

Environment environment_from_file(const std::string& path, float intensity, float rotation) {
    Environment e;
    e.file = path;
    e.intensity = intensity;
    e.rotation = rotation;
    e.image = std::make_shared<const RadianceImage>(read_radiance_image(path));
    return e;
}

}  // namespace srt
