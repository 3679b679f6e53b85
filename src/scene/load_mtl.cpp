// load_mtl.cpp - a strict MTL reader (obj_mtl.h): newmtl, Kd, Ks, Ke, illum, Ni, Ns, Tf,
// the PBR extension's Pr and Pm, and the maps map_Kd (colour texture), map_d (alpha mask),
// map_Pr, map_Pm, norm and map_Ke with their options; everything else in an MTL is ignored.
#include "scene/obj_mtl.h"

#include "core/error.h"
#include "scene/obj_text.h"
#include "scene/texture_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace srt::obj {
namespace {

// "map_Kd [options] file": the options of the MTL specification are checked and skipped,
// but for -clamp (wrap), -o and -s (offset and scale of the texture coordinates). The file
// is the rest of the line (names may hold spaces); Windows separators are turned around.
MtlMap parse_map(const std::vector<std::string>& t, const std::string& path, int line) {
    MtlMap m;
    m.mtl = path;
    m.line = line;
    size_t i = 1;
    auto number = [&](size_t k, float& out) { return k < t.size() && parse_float(t[k], out); };
    while (i < t.size() && t[i].size() > 1 && t[i][0] == '-') {
        const std::string& opt = t[i++];
        float v = 0.0f;
        if (opt == "-o" || opt == "-s" || opt == "-t") {
            float xyz[3] = {opt == "-s" ? 1.0f : 0.0f, opt == "-s" ? 1.0f : 0.0f, 0.0f};
            int n = 0;
            while (n < 3 && number(i, xyz[n])) ++i, ++n;
            if (n == 0) throw InputError(path, line, "'" + t[0] + " " + opt + "' expects 1 to 3 numbers");
            if (n == 1 && opt != "-o") xyz[1] = xyz[0];
            if (opt == "-o") m.offset = glm::vec2(xyz[0], xyz[1]);
            if (opt == "-s") m.scale = glm::vec2(xyz[0], xyz[1]);
        } else if (opt == "-blendu" || opt == "-blendv" || opt == "-cc" || opt == "-clamp") {
            if (i >= t.size() || (t[i] != "on" && t[i] != "off"))
                throw InputError(path, line, "'" + t[0] + " " + opt + "' expects on or off");
            if (opt == "-clamp") m.clamp = t[i] == "on";
            ++i;
        } else if (opt == "-bm" || opt == "-boost" || opt == "-texres") {
            if (!number(i, v) || !std::isfinite(v)) throw InputError(path, line, "'" + t[0] + " " + opt + "' expects a number");
            if (opt == "-bm") m.bump = v;
            ++i;
        } else if (opt == "-mm") {
            if (!number(i, v) || !number(i + 1, v)) throw InputError(path, line, "'" + t[0] + " -mm' expects 2 numbers");
            i += 2;
        } else if (opt == "-imfchan") {
            static const std::string kChannels = "rgbmlz";
            if (i >= t.size() || t[i].size() != 1 || kChannels.find(t[i][0]) == std::string::npos)
                throw InputError(path, line, "'" + t[0] + " -imfchan' expects a channel: r, g, b, m, l or z");
            const size_t c = kChannels.find(t[i][0]);
            m.channel = c < 3 ? int(c) : -1;
            ++i;
        } else {
            throw InputError(path, line, "unknown option '" + opt + "' in '" + t[0] + "'");
        }
    }
    if (i >= t.size()) throw InputError(path, line, "'" + t[0] + "' without a file name");
    std::string file = t[i];
    for (size_t k = i + 1; k < t.size(); ++k) file += " " + t[k];
    std::replace(file.begin(), file.end(), '\\', '/');
    if (!std::isfinite(m.offset.x) || !std::isfinite(m.offset.y) || !std::isfinite(m.scale.x) || !std::isfinite(m.scale.y))
        throw InputError(path, line, "'" + t[0] + "' has a non-finite -o or -s");
    m.file = resolve_relative(path, file);
    return m;
}

}  // namespace

void read_mtl(const std::string& path, const std::string& obj_file, int obj_line, MtlLibrary& lib) {
    std::string text;
    if (is_special_file(path))
        throw InputError(obj_file, obj_line, "material library '" + path + "' is not a regular file");
    if (!read_whole_file(path, text))
        throw InputError(obj_file, obj_line, "material library '" + path + "' not found");
    int current = -1;
    for_each_statement(text, [&](int line, const std::vector<std::string>& t, size_t line_begin,
                                 size_t eol) {
        const std::string& kw = t[0];
        if (kw == "newmtl") {
            const std::string name = rest_of_line(text, line_begin, eol, "newmtl");
            if (name.empty()) throw InputError(path, line, "'newmtl' without a name");
            MtlEntry e;
            e.mat.name = name;
            e.mat.kd = 1.0f;
            auto it = lib.by_name.find(name);
            if (it != lib.by_name.end()) {
                // A redefinition replaces the earlier one, as other readers do.
                current = it->second;
                lib.mtls[current] = e;
            } else {
                current = static_cast<int>(lib.mtls.size());
                lib.mtls.push_back(e);
                lib.by_name.emplace(name, current);
            }
            return;
        }
        const bool used = kw == "Kd" || kw == "Ks" || kw == "Ke" || kw == "illum" || kw == "map_Kd" ||
                          kw == "map_d" || kw == "Ni" || kw == "Ns" || kw == "Tf" || kw == "Pr" || kw == "Pm" ||
                          kw == "map_Pr" || kw == "map_Pm" || kw == "norm" || kw == "map_Ke";
        if (!used) return;  // d, Tr, Ka, other maps, bump (a height map), ...: no part in our model
        if (current < 0) throw InputError(path, line, "'" + kw + "' before any 'newmtl'");
        MtlEntry& e = lib.mtls[current];
        if (kw == "map_Kd" || kw == "map_d" || kw == "map_Pr" || kw == "map_Pm" || kw == "norm" || kw == "map_Ke") {
            MtlMap& map = kw == "map_Kd" ? e.map_kd : kw == "map_d" ? e.map_d : kw == "map_Pr" ? e.map_pr
                        : kw == "map_Pm" ? e.map_pm : kw == "norm" ? e.map_norm : e.map_ke;
            map = parse_map(t, path, line);
        } else if (kw == "Kd") {
            e.mat.colour = parse_colour(t, path, line);
        } else if (kw == "Ks") {
            e.ks = parse_colour(t, path, line);
        } else if (kw == "Ke") {
            e.ke = parse_colour(t, path, line);
            const float brightest = std::max(e.ke.x, std::max(e.ke.y, e.ke.z));
            if (brightest > kMaxEmission) {
                char b[32];
                std::snprintf(b, sizeof b, "%g", double(brightest));
                throw InputError(path, line, std::string("'Ke' components must be at most 1e18, not ") + b + ": " +
                                                 kMaxEmissionWhy);
            }
        } else if (kw == "Tf") {
            e.tf = parse_colour(t, path, line);
        } else if (kw == "Pr" || kw == "Pm") {
            float v = 0.0f;
            if (t.size() != 2 || !parse_float(t[1], v) || !(v >= 0.0f && v <= 1.0f))
                throw InputError(path, line, "'" + kw + "' (" + (kw == "Pr" ? "roughness" : "metallic") +
                                                 ") expects one number in [0, 1]");
            (kw == "Pr" ? e.pr : e.pm) = v;
        } else if (kw == "Ni" || kw == "Ns") {
            float v = 0.0f;
            if (t.size() != 2 || !parse_float(t[1], v) || !std::isfinite(v))
                throw InputError(path, line, "'" + kw + "' expects one number");
            if (kw == "Ni") e.ni_given = true;
            if (kw == "Ni" && !(v > 0.0f && v <= 10.0f))
                throw InputError(path, line, "'Ni' (index of refraction) must be in (0, 10], not " + t[1]);
            if (kw == "Ns" && !(v >= 0.0f && v <= 1e6f))
                throw InputError(path, line, "'Ns' (specular exponent) must be in [0, 1e6], not " + t[1]);
            (kw == "Ni" ? e.ni : e.ns) = v;
        } else {  // illum
            long long v = 0;
            if (t.size() != 2 || !parse_long(t[1], v) || v < 0 || v > 10)
                throw InputError(path, line, "'illum' expects an integer 0..10");
            e.illum = static_cast<int>(v);
        }
    });
}


Material scene_material(Scene& scene, const MtlEntry& e) {
    Material m = e.mat;
    m.kd = 1.0f;
    // Only the ray-traced-reflection illumination models mean "mirror" (whatever Ns says:
    // the Cornell boxes give their mirrors Ns 1000 but their walls Ns 10 too); for the rest
    // Ks is a Phong highlight, which Whitted's model does not have and the path
    // integrator draws as a glossy lobe of roughness from Ns.
    m.emission = e.ke;
    if (e.illum == 3 || e.illum == 5) {
        m.kr = e.ks;
    } else if (e.illum == 4 || e.illum == 6 || e.illum == 7) {
        m.ior = e.ni;
        // Tf is what is left of light after one unit of length inside: sigma_a = -ln(Tf).
        for (int c = 0; c < 3; ++c) m.absorption[c] = float(-std::log(std::clamp(double(e.tf[c]), 1e-6, 1.0)));
    } else if (e.ns >= 0.0f && (e.illum == 2 || e.illum < 0)) {  // illum 0 and 1 have no highlight
        m.glossy = e.ks;
    }
    // Blinn-Phong's exponent to a microfacet slope: alpha = sqrt(2 / (Ns + 2)) (Walter et
    // al. 2007, eq. 33, Beckmann's), roughness = sqrt(alpha). Ns 10: 0.64, Ns 1000: 0.21.
    if (e.ns >= 0.0f && (e.illum == 2 || e.illum < 0)) m.roughness = float(std::pow(2.0 / (double(e.ns) + 2.0), 0.25));
    const bool has_pr = e.pr >= 0.0f || !e.map_pr.file.empty(), has_pm = e.pm >= 0.0f || !e.map_pm.file.empty();
    // A map multiplies its number, 1 where the file gives none.
    const float pr = e.pr >= 0.0f ? e.pr : e.map_pr.file.empty() ? 0.0f : 1.0f;
    const float pm = e.pm >= 0.0f ? e.pm : e.map_pm.file.empty() ? 0.0f : 1.0f;
    if (m.is_dielectric()) {
        if (has_pr) m.roughness = pr;  // rough glass
    } else if (has_pr || has_pm) {
        // The PBR extension (Pr, Pm; tinyobjloader's defaults of 0 for the one not given):
        // glTF's BRDF over Kd as the base colour, its dielectric's F0 from Ni where given
        // (Blender writes it), else glTF's 0.04. Whitted reads it as glTF files are read.
        m.pbr = true;
        m.metallic = pm;
        m.roughness = pr;
        m.glossy = glm::vec3(0.0f);
        if (e.ni_given) m.dielectric_f0 = f0_of_ior(e.ni);
    }
    const auto texture = [&](const MtlMap& map, TextureUse use) {
        const Wrap w = map.clamp ? Wrap::Clamp : Wrap::Repeat;
        return texture_from_file(scene, map.file, use, w, w, map.mtl, map.line, map.transform());
    };
    if (!e.map_kd.file.empty()) m.texture = texture(e.map_kd, TextureUse::Colour);
    if (!e.map_d.file.empty()) {
        m.alpha_texture = texture(e.map_d, TextureUse::Mask);
        m.alpha_mask = m.alpha_texture != kNoTexture;
    }
    for (const MtlMap* map : {&e.map_pr, &e.map_pm}) {
        if (map->file.empty()) continue;
        const bool rough = map == &e.map_pr;
        if (!rough && !m.pbr) continue;  // glass is not metal
        (rough ? m.roughness_texture : m.metallic_texture) = texture(*map, TextureUse::Data);
        (rough ? m.roughness_channel : m.metallic_channel) = uint8_t(map->channel >= 0 ? map->channel : 0);
    }
    if (!e.map_norm.file.empty()) {
        m.normal_texture = texture(e.map_norm, TextureUse::Normal);
        m.normal_scale = e.map_norm.bump;
    }
    if (!e.map_ke.file.empty()) {
        m.emission_texture = texture(e.map_ke, TextureUse::Colour);
    }
    if (m.pbr) read_pbr_as_whitted(scene, m, /*kd_given=*/false);
    return m;
}

UvTransform MtlMap::transform() const {
    // -s and -o move OBJ's (u, v), v up; the triangles carry (u, 1 - v): there,
    // u' = s.x u + o.x and v' = 1 - (s.y (1 - v) + o.y) = s.y v + 1 - s.y - o.y.
    UvTransform t;
    t.linear = glm::dmat2(glm::dvec2(scale.x, 0.0), glm::dvec2(0.0, scale.y));
    t.offset = glm::dvec2(offset.x, 1.0 - double(scale.y) - double(offset.y));
    return t;
}


}  // namespace srt::obj
