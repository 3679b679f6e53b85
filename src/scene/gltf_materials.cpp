// gltf_materials.cpp - a glTF file's materials as ours (scene/gltf_model.h): the base
// colour and its texture (with the sampler's wrap modes and KHR_texture_transform), the
// metallic-roughness pair as Whitted's mirror, and alphaMode MASK as an alpha cut-out; for
// the path integrator, the specification's BRDF (metallic, roughness, KHR_materials_ior),
// the emission (KHR_materials_emissive_strength), and glass, rough as its roughness says
// (KHR_materials_transmission, _ior, _volume).
#include "scene/gltf_model.h"

#include "scene/texture_file.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

namespace srt::gltf {
namespace {

Wrap wrap_mode(const std::string& path, const std::string& ptr, int mode) {
    switch (mode) {
        case TINYGLTF_TEXTURE_WRAP_REPEAT: return Wrap::Repeat;
        case TINYGLTF_TEXTURE_WRAP_MIRRORED_REPEAT: return Wrap::MirroredRepeat;
        case TINYGLTF_TEXTURE_WRAP_CLAMP_TO_EDGE: return Wrap::Clamp;
        default: fail(path, ptr, "unknown wrap mode " + std::to_string(mode));
    }
}

// The scene texture for the glTF's texture `index`: its image decoded (from a buffer
// view, a data URI or a file next to the glTF) with its sampler's wrap modes, as colour or
// as data, laid as `transform` says. An image file that is missing leaves a note and returns kNoTexture, as for OBJ.
int32_t gltf_texture(Scene& scene, const tinygltf::Model& m, const std::string& path, int index, TextureUse use,
                     const UvTransform& transform) {
    const std::string tptr = "/textures/" + std::to_string(index);
    if (index < 0 || size_t(index) >= m.textures.size()) fail(path, tptr, "no such texture");
    const tinygltf::Texture& t = m.textures[size_t(index)];
    if (t.source < 0) {
        scene.notes.push_back(path + ": " + tptr + " has no image in a format stencilrt reads (PNG, JPEG); not textured");
        return kNoTexture;
    }
    const std::string iptr = "/images/" + std::to_string(t.source);
    if (size_t(t.source) >= m.images.size()) fail(path, tptr + "/source", "no such image");
    Wrap wu = Wrap::Repeat, wv = Wrap::Repeat;
    if (t.sampler >= 0) {
        const std::string sptr = "/samplers/" + std::to_string(t.sampler);
        if (size_t(t.sampler) >= m.samplers.size()) fail(path, tptr + "/sampler", "no such sampler");
        wu = wrap_mode(path, sptr + "/wrapS", m.samplers[size_t(t.sampler)].wrapS);
        wv = wrap_mode(path, sptr + "/wrapT", m.samplers[size_t(t.sampler)].wrapT);
    }
    const tinygltf::Image& img = m.images[size_t(t.source)];
    const unsigned char* bytes = nullptr;
    size_t size = 0;
    if (img.bufferView >= 0) {
        bytes = buffer_view_bytes(path, m, img.bufferView, iptr);
        size = m.bufferViews[size_t(img.bufferView)].byteLength;
    } else if (!img.image.empty()) {
        bytes = img.image.data();
        size = img.image.size();
    } else {
        scene.notes.push_back(path + ": " + iptr + ": image '" + img.uri + "' not found; the material keeps its flat colour");
        return kNoTexture;
    }
    std::string name = path + ": " + iptr;
    if (!img.uri.empty() && img.uri.rfind("data:", 0) != 0) name += " ('" + img.uri + "')";
    return texture_from_bytes(scene, bytes, size, name, use, wu, wv, transform);
}

// KHR_texture_transform on a texture reference: uv' = T(offset) R(rotation) S(scale) uv,
// the extension's matrix (rotation counter-clockwise in uv space, v down).
// (TextureInfo, or NormalTextureInfo: the same fields and a scale.)
template <class Info>
TexturePlacement placement(const std::string& path, const std::string& ptr, const Info& ti) {
    TexturePlacement pl;
    pl.texcoord = ti.texCoord;
    const auto it = ti.extensions.find("KHR_texture_transform");
    if (it == ti.extensions.end()) return pl;
    const tinygltf::Value& x = it->second;
    const std::string eptr = ptr + "/extensions/KHR_texture_transform";
    auto vec2 = [&](const char* key, glm::dvec2 dflt) {
        if (!x.Has(key)) return dflt;
        const tinygltf::Value& a = x.Get(key);
        if (!a.IsArray() || a.ArrayLen() != 2 || !a.Get(0).IsNumber() || !a.Get(1).IsNumber())
            fail(path, eptr + "/" + key, "must be an array of 2 numbers");
        return glm::dvec2(a.Get(0).GetNumberAsDouble(), a.Get(1).GetNumberAsDouble());
    };
    const glm::dvec2 offset = vec2("offset", glm::dvec2(0.0)), scale = vec2("scale", glm::dvec2(1.0));
    double rotation = 0.0;
    if (x.Has("rotation")) {
        if (!x.Get("rotation").IsNumber()) fail(path, eptr + "/rotation", "must be a number");
        rotation = x.Get("rotation").GetNumberAsDouble();
    }
    if (x.Has("texCoord")) {
        if (!x.Get("texCoord").IsInt()) fail(path, eptr + "/texCoord", "must be an integer");
        pl.texcoord = x.Get("texCoord").GetNumberAsInt();
    }
    if (!std::isfinite(offset.x + offset.y + scale.x + scale.y + rotation)) fail(path, eptr, "has a non-finite number");
    pl.transform = UvTransform::of(offset, rotation, scale);
    return pl;
}

// A material extension's object, or nullptr when the material does not have it.
const tinygltf::Value* extension(const tinygltf::Material& mat, const char* name) {
    const auto it = mat.extensions.find(name);
    return it == mat.extensions.end() ? nullptr : &it->second;
}

// A number of an extension's object, `dflt` when absent: a finite one in [lo, hi].
double ext_number(const std::string& path, const std::string& eptr, const tinygltf::Value& x, const char* key,
                  double dflt, double lo, double hi, const char* range) {
    if (!x.Has(key)) return dflt;
    const tinygltf::Value& v = x.Get(key);
    const double d = v.IsNumber() ? v.GetNumberAsDouble() : NAN;
    if (!(d >= lo && d <= hi)) fail(path, eptr + "/" + key, std::string("must be a number ") + range);
    return d;
}

// The light-transport terms the Whitted model does not read (docs/scene-format.md,
// "Materials"), from the core material and its KHR_materials_* extensions. Whitted's
// colour, kd and kr, and the factors of metallic and roughness, are add_materials'.
void path_terms(const std::string& path, const std::string& mptr, const tinygltf::Material& gm, Material& mat) {
    // Emission: emissiveFactor times KHR_materials_emissive_strength, from the front face
    // unless the material is double-sided.
    glm::dvec3 emissive(0.0);
    for (int c = 0; c < 3 && size_t(c) < gm.emissiveFactor.size(); ++c) emissive[c] = gm.emissiveFactor[size_t(c)];
    if (!(emissive.x >= 0.0 && emissive.y >= 0.0 && emissive.z >= 0.0))
        fail(path, mptr + "/emissiveFactor", "components must be >= 0");
    const std::string sptr = mptr + "/extensions/KHR_materials_emissive_strength";
    const tinygltf::Value* strength = extension(gm, "KHR_materials_emissive_strength");
    if (strength) emissive *= ext_number(path, sptr, *strength, "emissiveStrength", 1.0, 0.0, DBL_MAX, ">= 0");
    // The product is the emission: its limit is the film's (scene.h kMaxEmission), blamed
    // on the strength where there is one, the factor being at most 1 in the specification.
    const double brightest = std::max(emissive.x, std::max(emissive.y, emissive.z));
    if (!(brightest <= double(kMaxEmission))) {
        char b[32];
        std::snprintf(b, sizeof b, "%g", brightest);
        const bool blame_strength = strength != nullptr && strength->Has("emissiveStrength");
        fail(path, blame_strength ? sptr + "/emissiveStrength" : mptr + "/emissiveFactor",
             std::string("emissiveFactor x emissiveStrength must be at most 1e18, not ") + b + ": " + kMaxEmissionWhy);
    }
    mat.emission = glm::vec3(emissive);
    mat.emission_two_sided = gm.doubleSided;
    // KHR_materials_ior: 1.5 is the core specification's own index; 0 is the extension's
    // "Fresnel reflectance 1" (for specular-glossiness files). Ours stop at 10, as MTL's Ni.
    double ior = 1.5;
    if (const tinygltf::Value* x = extension(gm, "KHR_materials_ior")) {
        const std::string eptr = mptr + "/extensions/KHR_materials_ior";
        ior = ext_number(path, eptr, *x, "ior", 1.5, 0.0, 10.0, "in [1, 10], or 0");
        if (ior > 0.0 && ior < 1.0) fail(path, eptr + "/ior", "must be a number in [1, 10], or 0");
    }
    double transmission = 0.0;
    if (const tinygltf::Value* x = extension(gm, "KHR_materials_transmission"))
        transmission = ext_number(path, mptr + "/extensions/KHR_materials_transmission", *x, "transmissionFactor", 0.0,
                                  0.0, 1.0, "in [0, 1]");
    if (transmission > 0.0 && ior > 0.0) {
        // Glass: the path integrator's dielectric, rough as roughnessFactor says. The
        // factor is not a weight: our model has no partly transmitting surface.
        mat.ior = float(ior);
        if (const tinygltf::Value* x = extension(gm, "KHR_materials_volume")) {
            // Light left after attenuationDistance inside is attenuationColor: Beer-Lambert's
            // sigma_a = -ln(colour) / distance; no distance (infinite) absorbs nothing.
            const std::string eptr = mptr + "/extensions/KHR_materials_volume";
            const double dist = ext_number(path, eptr, *x, "attenuationDistance", HUGE_VAL, 0.0, HUGE_VAL, "> 0");
            if (!(dist > 0.0)) fail(path, eptr + "/attenuationDistance", "must be a number > 0");
            glm::dvec3 colour(1.0);
            if (x->Has("attenuationColor")) {
                const tinygltf::Value& a = x->Get("attenuationColor");
                bool ok = a.IsArray() && a.ArrayLen() == 3;
                for (int c = 0; ok && c < 3; ++c) {
                    ok = a.Get(c).IsNumber() && a.Get(c).GetNumberAsDouble() >= 0.0 && a.Get(c).GetNumberAsDouble() <= 1.0;
                    if (ok) colour[c] = a.Get(c).GetNumberAsDouble();
                }
                if (!ok) fail(path, eptr + "/attenuationColor", "must be an array of 3 numbers in [0, 1]");
            }
            if (std::isfinite(dist))
                for (int c = 0; c < 3; ++c) mat.absorption[c] = float(-std::log(std::max(colour[c], 1e-6)) / dist);
        }
    } else {
        // The specification's BRDF (render/bsdf.h): the metal mixed into a dielectric whose
        // reflectance at normal incidence is F0 = ((ior - 1) / (ior + 1))^2, 0.04 at the
        // core specification's index of 1.5.
        mat.pbr = true;
        mat.dielectric_f0 = f0_of_ior(ior);
    }
}

}  // namespace

// baseColorFactor -> colour (times the base colour texture); for Whitted, metallic m and
// roughness r -> a mirror of weight m (1 - r)^2 tinted by the base colour, kd = 1 - that
// weight. The rest (the BRDF, its metallic-roughness texture, emission, glass) as
// path_terms says; the normal and emissive textures as Material::normal_texture and
// emission_texture say. Each texture carries its own KHR_texture_transform. The triangles
// carry one TEXCOORD set, the first texture's (base colour, metallic-roughness, normal,
// emissive): another texture that names another set is read at those, with a note.
Materials add_materials(Scene& scene, const tinygltf::Model& m, const std::string& path) {
    Materials out;
    out.ids.assign(m.materials.size(), 0);
    out.texcoords.assign(m.materials.size(), 0);
    for (size_t i = 0; i < m.materials.size(); ++i) {
        const std::string mptr = "/materials/" + std::to_string(i);
        const tinygltf::PbrMetallicRoughness& p = m.materials[i].pbrMetallicRoughness;
        Material mat;
        mat.name = m.materials[i].name.empty() ? path + "#" + std::to_string(i) : m.materials[i].name;
        if (p.baseColorFactor.size() >= 3)
            mat.colour = glm::clamp(glm::vec3(float(p.baseColorFactor[0]), float(p.baseColorFactor[1]), float(p.baseColorFactor[2])),
                                    glm::vec3(0.0f), glm::vec3(1.0f));
        const double metal = std::clamp(p.metallicFactor, 0.0, 1.0), rough = std::clamp(p.roughnessFactor, 0.0, 1.0);
        mat.metallic = float(metal);
        mat.roughness = float(rough);
        path_terms(path, mptr, m.materials[i], mat);
        // The triangles carry one TEXCOORD set: the first texture's (in the order below);
        // another that names another set is read at it, with a note. Each texture keeps
        // its own transform.
        bool placed = false;
        const auto lay = [&](const TexturePlacement& pl, const std::string& tptr) {
            if (pl.texcoord < 0) fail(path, tptr + "/texCoord", "must be >= 0");
            if (!placed) out.texcoords[i] = pl.texcoord;
            else if (pl.texcoord != out.texcoords[i])
                scene.notes.push_back(path + ": " + tptr + " reads TEXCOORD_" + std::to_string(pl.texcoord) +
                                      ", the material's first texture TEXCOORD_" + std::to_string(out.texcoords[i]) +
                                      "; stencilrt carries one set, and reads it there");
            placed = true;
            return pl.transform;
        };
        if (p.baseColorTexture.index >= 0) {
            const std::string tptr = mptr + "/pbrMetallicRoughness/baseColorTexture";
            const UvTransform xf = lay(placement(path, tptr, p.baseColorTexture), tptr);
            mat.texture = gltf_texture(scene, m, path, p.baseColorTexture.index, TextureUse::Colour, xf);
        }
        if (p.metallicRoughnessTexture.index >= 0) {
            // One data texture: blue the metal, green the roughness (the specification's).
            const std::string tptr = mptr + "/pbrMetallicRoughness/metallicRoughnessTexture";
            const UvTransform xf = lay(placement(path, tptr, p.metallicRoughnessTexture), tptr);
            mat.metallic_texture = mat.roughness_texture =
                gltf_texture(scene, m, path, p.metallicRoughnessTexture.index, TextureUse::Data, xf);
            mat.metallic_channel = 2;
            mat.roughness_channel = 1;
        }
        const tinygltf::NormalTextureInfo& nt = m.materials[i].normalTexture;
        if (nt.index >= 0) {
            // A tangent-space normal map (scene.h Material::normal_texture): x and y times
            // its scale, in the frame of the mesh's TANGENT, else of MikkTSpace's.
            const std::string tptr = mptr + "/normalTexture";
            const UvTransform xf = lay(placement(path, tptr, nt), tptr);
            if (!std::isfinite(nt.scale)) fail(path, tptr + "/scale", "must be a finite number");
            mat.normal_texture = gltf_texture(scene, m, path, nt.index, TextureUse::Normal, xf);
            mat.normal_scale = float(nt.scale);
        }
        const tinygltf::TextureInfo& et = m.materials[i].emissiveTexture;
        if (et.index >= 0) {
            // Times emissiveFactor (scene.h Material::emission_texture): a textured area light.
            const std::string tptr = mptr + "/emissiveTexture";
            const UvTransform xf = lay(placement(path, tptr, et), tptr);
            mat.emission_texture = gltf_texture(scene, m, path, et.index, TextureUse::Colour, xf);
        }
        read_pbr_as_whitted(scene, mat, /*kd_given=*/false);
        const std::string& mode = m.materials[i].alphaMode;
        if (mode == "MASK") {
            mat.alpha_mask = true;
            mat.alpha_texture = mat.texture;
            mat.alpha_factor = p.baseColorFactor.size() == 4 ? float(std::clamp(p.baseColorFactor[3], 0.0, 1.0)) : 1.0f;
            mat.alpha_cutoff = float(m.materials[i].alphaCutoff);
            if (!(mat.alpha_cutoff >= 0.0f)) fail(path, mptr + "/alphaCutoff", "must be >= 0");
        } else if (mode == "BLEND") {
            ++out.blended;
        } else if (mode != "OPAQUE" && !mode.empty()) {
            fail(path, mptr + "/alphaMode", "must be OPAQUE, MASK or BLEND, not '" + mode + "'");
        }
        out.ids[i] = scene.add_material(mat);
    }
    return out;
}

}  // namespace srt::gltf
