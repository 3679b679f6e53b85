// obj_mtl.h - MTL material libraries (load_mtl.cpp), for the OBJ reader (load_obj.cpp).
// Internal to src/scene/.
#pragma once

#include "scene/scene.h"

#include <glm/glm.hpp>

#include <string>
#include <unordered_map>
#include <vector>

namespace srt::obj {

// A texture map statement's file and the options we use (MTL: "map_Kd -clamp on -s 2 2
// wood.png").
struct MtlMap {
    std::string file;  // resolved against the MTL's folder; empty: no map
    std::string mtl;   // the MTL file and line that named it
    int line = 0;
    bool clamp = false;
    glm::vec2 offset{0.0f}, scale{1.0f};  // -o and -s: uv' = uv * scale + offset
    int channel = -1;                     // -imfchan r, g or b: 0, 1, 2; -1: not given (m, l, z: red)
    float bump = 1.0f;                    // -bm: a normal map's (norm's) scale
    UvTransform transform() const;  // -o and -s on the triangles' coordinates (v down)
};

struct MtlEntry {
    Material mat;
    MtlMap map_kd, map_d, map_pr, map_pm, map_norm, map_ke;
    glm::vec3 ks{0.0f};
    glm::vec3 ke{0.0f};
    glm::vec3 tf{1.0f};     // transmission filter: the colour left after one unit of length inside
    float ni = 1.0f;        // optical density (index of refraction)
    float ns = -1.0f;       // specular exponent; < 0: not given
    bool ni_given = false;
    float pr = -1.0f, pm = -1.0f;  // the PBR extension's roughness and metallic; < 0: not given
    int illum = -1;
    bool emissive() const { return ke.x > 0.0f || ke.y > 0.0f || ke.z > 0.0f; }
};

// The materials of every mtllib an OBJ names, by name (a redefinition replaces).
struct MtlLibrary {
    std::vector<MtlEntry> mtls;
    std::unordered_map<std::string, int> by_name;
};

// Reads `path` into `lib`; a missing or special file is reported at `obj_file:obj_line`
// (the mtllib statement), errors inside it at its own lines. Throws InputError.
void read_mtl(const std::string& path, const std::string& obj_file, int obj_line, MtlLibrary& lib);

// The material a mesh material becomes in the scene (created on first use), with its
// textures: map_Kd times Kd (as the MTL specification has it), map_d as an alpha mask
// with glTF's default cutoff of 0.5. A texture whose file is missing leaves a note and
// the flat colour (texture_from_file). The rest, as docs/scene-format.md's MTL table
// has it: Ke the emission; illum 3 and 5 a mirror of Ks; illum 2's Ks a glossy lobe of
// roughness from Ns (the path integrator's; Whitted has no highlights); illum 4, 6 and 7
// glass of index Ni, absorbing as Tf says per unit of length, rough as Pr says; Pr or Pm
// elsewhere glTF's metallic-roughness BRDF over Kd. map_Pr and map_Pm multiply Pr and Pm
// (1 where the number is not given), read from the channel -imfchan names (else red,
// which grey replicates); they make a material glTF's BRDF too. norm is a tangent-space
// normal map (as glTF's normalTexture; -bm its scale), and map_Ke a colour texture that
// multiplies Ke, for the path integrator; bump and map_Bump, height maps, are not read.
// Each map is read at the triangles' coordinates moved by its own -o and -s.
Material scene_material(Scene& scene, const MtlEntry& e);

}  // namespace srt::obj
