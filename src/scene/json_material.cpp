// json_material.cpp - see json_material.h.
#include "scene/json_material.h"

#include "core/error.h"
#include "scene/texture_file.h"

#include <algorithm>
#include <cstdio>

namespace srt {
namespace {

using namespace json_doc;

// "texture": "file.png" or {"file": "file.png", "wrap": "repeat" | "mirrored-repeat" |
// "clamp" | [u mode, v mode], "offset": [u, v], "rotation": degrees, "scale": [u, v]}
// (the last three KHR_texture_transform's); a data texture's object may name its
// "channel" ("r", "g" or "b"; red where it does not). A missing file is a note
// (texture_from_file).
int32_t read_texture(const Node& n, TextureUse use, const std::string& what, Scene& scene, uint8_t* channel = nullptr) {
    Node file = n;
    Wrap wrap[2] = {Wrap::Repeat, Wrap::Repeat};
    UvTransform transform;
    if (channel) *channel = 0;
    if (n.v->is_object()) {
        if (channel) n.check_keys({"file", "wrap", "offset", "rotation", "scale", "channel"}, what);
        else n.check_keys({"file", "wrap", "offset", "rotation", "scale"}, what);
        file = n.require("file", what);
        if (Node c = channel ? n.member("channel", what + " 'channel'") : Node{}) {
            const std::string v = c.str();
            if (v != "r" && v != "g" && v != "b") c.fail(what + " 'channel' must be \"r\", \"g\" or \"b\", not '" + v + "'");
            *channel = uint8_t(v == "r" ? 0 : v == "g" ? 1 : 2);
        }
        if (Node w = n.member("wrap", what + " 'wrap'")) {
            auto mode = [&](const Node& x) {
                const std::string v = x.str();
                if (v == "repeat") return Wrap::Repeat;
                if (v == "mirrored-repeat") return Wrap::MirroredRepeat;
                if (v == "clamp") return Wrap::Clamp;
                x.fail("unknown wrap mode '" + v + "'" + suggestion(v, {"repeat", "mirrored-repeat", "clamp"}));
            };
            if (w.v->is_array()) {
                if (w.v->size() != 2) w.fail(what + " 'wrap' must be a mode or [u mode, v mode]");
                wrap[0] = mode(w.element(0));
                wrap[1] = mode(w.element(1));
            } else {
                wrap[0] = wrap[1] = mode(w);
            }
        }
        const auto pair = [&](const char* key, glm::dvec2 dflt) {
            Node x = n.member(key, what + " '" + key + "'");
            if (!x) return dflt;
            if (!x.v->is_array() || x.v->size() != 2) x.fail(x.what + " must be an array of 2 numbers");
            return glm::dvec2(x.double_of((*x.v)[0], x.what + "[0]"), x.double_of((*x.v)[1], x.what + "[1]"));
        };
        const glm::dvec2 offset = pair("offset", glm::dvec2(0.0)), scale = pair("scale", glm::dvec2(1.0));
        double degrees = 0.0;
        if (Node r = n.member("rotation", what + " 'rotation'")) degrees = r.number_double();
        transform = UvTransform::of(offset, glm::radians(degrees), scale);
    }
    const std::string path = resolve_path(n.doc->file, file.str());
    try {
        return texture_from_file(scene, path, use, wrap[0], wrap[1], n.doc->file, file.line(), transform);
    } catch (const InputError& e) {
        file.fail(e.what());  // the scene's line, then the image's own complaint
    }
}

// "alpha": {"texture": mask, "cutoff": 0.5, "factor": 1}: the surface is cut away where
// factor * alpha < cutoff; alpha is the mask's (its alpha channel, or grey without
// one), else the colour texture's alpha channel, else 1.
void read_alpha(const Node& a, Material& mat, const std::string& name, Scene& scene) {
    const std::string what = "material '" + name + "' 'alpha'";
    a.object("an object");
    a.check_keys({"texture", "cutoff", "factor"}, what);
    mat.alpha_mask = true;
    mat.alpha_texture = mat.texture;
    if (Node t = a.member("texture", what + " 'texture'"))
        mat.alpha_texture = read_texture(t, TextureUse::Mask, what + " 'texture'", scene);
    if (Node c = a.member("cutoff", what + " 'cutoff'")) {
        mat.alpha_cutoff = c.number();
        if (!(mat.alpha_cutoff >= 0.0f && mat.alpha_cutoff <= 1.0f)) c.fail("'cutoff' must be in [0, 1]");
    }
    if (Node f = a.member("factor", what + " 'factor'")) {
        mat.alpha_factor = f.number();
        if (!(mat.alpha_factor >= 0.0f && mat.alpha_factor <= 1.0f)) f.fail("'factor' must be in [0, 1]");
    }
}

// The fields beyond Whitted's terms (docs/scene-format.md, "Materials"): emission,
// roughness, a glossy lobe, and a dielectric's index, absorption and constant
// transmission weight.
void read_path_terms(const Node& m, Material& mat, const std::string& name) {
    const std::string what = "material '" + name + "' ";
    if (Node e = m.member("emission", what + "'emission'")) {
        mat.emission = e.colour();
        const float brightest = std::max(mat.emission.x, std::max(mat.emission.y, mat.emission.z));
        if (brightest > kMaxEmission) {
            char b[32];
            std::snprintf(b, sizeof b, "%g", double(brightest));
            e.fail(what + "'emission' components must be at most 1e18, not " + b + ": " + kMaxEmissionWhy);
        }
    }
    if (Node t = m.member("emission_two_sided", what + "'emission_two_sided'")) mat.emission_two_sided = t.boolean();
    if (Node r = m.member("roughness", what + "'roughness'")) {
        mat.roughness = r.number();
        if (!(mat.roughness >= 0.0f && mat.roughness <= 1.0f)) r.fail("'roughness' must be in [0, 1]");
    }
    if (Node g = m.member("glossy", what + "'glossy'")) {
        mat.glossy = g.v->is_number() ? glm::vec3(g.number()) : g.vec3();
        for (int i = 0; i < 3; ++i)
            if (!(mat.glossy[i] >= 0.0f && mat.glossy[i] <= 1.0f)) g.fail("'glossy' must be in [0, 1]");
        // Both would be the one specular lobe the path integrator gives a surface: kr is
        // it wherever kr is not 0, and a glossy beside it would be dropped unseen.
        if (mat.is_mirror()) g.fail("'glossy' is for a material without 'kr' (a rough mirror is 'kr' with 'roughness')");
    }
    Node ior = m.member("ior", what + "'ior'");
    if (ior) {
        mat.ior = ior.number();
        // 10 is beyond any real dielectric (diamond 2.42, germanium 4): larger is a typo.
        if (!(mat.ior > 0.0f && mat.ior <= 10.0f)) ior.fail("'ior' must be in (0, 10]");
    }
    if (Node a = m.member("absorption", what + "'absorption'")) {
        if (!ior) a.fail("'absorption' needs 'ior': only a dielectric absorbs inside");
        mat.absorption = a.colour();
    }
    if (Node kt = m.member("kt", what + "'kt'")) {
        if (!ior) kt.fail("'kt' needs 'ior': it weights a dielectric's refracted ray");
        mat.kt = kt.number();
        if (!(mat.kt >= 0.0f && mat.kt <= 1.0f)) kt.fail("'kt' must be in [0, 1]");
    }
}

// glTF 2.0's metallic-roughness BRDF for the path integrator: `colour` is the base colour,
// `roughness` the perceptual roughness, each of metallic and roughness times its map where
// there is one. Whitted reads it as glTF files are read (scene.h read_pbr_as_whitted).
void read_metallic(const Node& m, const Node& mt, Material& mat, const Scene& scene) {
    mat.metallic = mt.number();
    if (!(mat.metallic >= 0.0f && mat.metallic <= 1.0f)) mt.fail("'metallic' must be in [0, 1]");
    for (const char* other : {"kr", "glossy", "ior"})
        if (m.member(other, other))
            mt.fail(std::string("'metallic' (glTF's BRDF) and '") + other + "' are two models of one surface: give one");
    mat.pbr = true;
    read_pbr_as_whitted(scene, mat, /*kd_given=*/bool(m.member("kd", "kd")));
}

// "metallic_texture" and "roughness_texture": data textures whose channel multiplies
// 'metallic' and 'roughness' under the path integrator; "normal_texture", a tangent-space
// normal map (glTF's normalTexture), its tilt times "normal_scale" (1 where not given);
// "emission_texture", a colour texture that multiplies 'emission' (glTF's emissiveTexture).
void read_maps(const Node& m, Material& mat, const std::string& name, Scene& scene) {
    const std::string what = "material '" + name + "' ";
    if (Node t = m.member("roughness_texture", what + "'roughness_texture'")) {
        if (!m.member("roughness", "roughness")) t.fail("'roughness_texture' needs 'roughness', which it multiplies");
        mat.roughness_texture = read_texture(t, TextureUse::Data, what + "'roughness_texture'", scene, &mat.roughness_channel);
    }
    if (Node t = m.member("metallic_texture", what + "'metallic_texture'")) {
        if (!m.member("metallic", "metallic")) t.fail("'metallic_texture' needs 'metallic', which it multiplies");
        mat.metallic_texture = read_texture(t, TextureUse::Data, what + "'metallic_texture'", scene, &mat.metallic_channel);
    }
    if (Node t = m.member("emission_texture", what + "'emission_texture'")) {
        if (!m.member("emission", "emission")) t.fail("'emission_texture' needs 'emission', which it multiplies");
        mat.emission_texture = read_texture(t, TextureUse::Colour, what + "'emission_texture'", scene);
    }
    Node normal = m.member("normal_texture", what + "'normal_texture'");
    if (normal) mat.normal_texture = read_texture(normal, TextureUse::Normal, what + "'normal_texture'", scene);
    if (Node sc = m.member("normal_scale", what + "'normal_scale'")) {
        if (!normal) sc.fail("'normal_scale' needs 'normal_texture', whose tilt it scales");
        mat.normal_scale = sc.number();
        // Past 10 a map's gentlest slope lies flat: a typo, not a bump.
        if (!(mat.normal_scale >= -10.0f && mat.normal_scale <= 10.0f)) sc.fail("'normal_scale' must be in [-10, 10]");
    }
}

}  // namespace

Material read_json_material(const Node& m, const std::string& name, Scene& scene) {
    m.check_keys({"colour", "kd", "kr", "ka", "texture", "alpha", "emission", "emission_two_sided", "roughness", "glossy",
                  "ior", "absorption", "kt", "metallic", "metallic_texture", "roughness_texture", "normal_texture",
                  "normal_scale", "emission_texture"},
                 "material '" + name + "'");
    Material mat;
    mat.name = name;
    if (Node c = m.member("colour", "material '" + name + "' 'colour'")) mat.colour = c.colour();
    if (Node kd = m.member("kd", "material '" + name + "' 'kd'")) {
        mat.kd = kd.number();
        if (mat.kd < 0.0f) kd.fail("'kd' must be >= 0");
    }
    if (Node ka = m.member("ka", "material '" + name + "' 'ka'")) {
        mat.ka = ka.number();
        if (mat.ka < 0.0f) ka.fail("'ka' must be >= 0");
    }
    if (Node kr = m.member("kr", "material '" + name + "' 'kr'")) {
        mat.kr = kr.v->is_number() ? glm::vec3(kr.number()) : kr.vec3();
        // Above 1 a mirror adds energy at every bounce.
        for (int i = 0; i < 3; ++i)
            if (mat.kr[i] < 0.0f || mat.kr[i] > 1.0f) kr.fail("'kr' must be in [0, 1]");
    }
    if (Node t = m.member("texture", "material '" + name + "' 'texture'"))
        mat.texture = read_texture(t, TextureUse::Colour, "material '" + name + "' 'texture'", scene);
    if (Node a = m.member("alpha", "material '" + name + "' 'alpha'")) read_alpha(a, mat, name, scene);
    read_path_terms(m, mat, name);
    read_maps(m, mat, name, scene);
    if (Node mt = m.member("metallic", "material '" + name + "' 'metallic'")) read_metallic(m, mt, mat, scene);
    return mat;
}

}  // namespace srt
