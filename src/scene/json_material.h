// json_material.h - a material of our JSON scene format (docs/scene-format.md,
// "materials"), read for load_json.cpp.
#pragma once

#include "scene/json_doc.h"
#include "scene/scene.h"

#include <string>

namespace srt {

// Material `name` from its object `m`: colour, kd, kr, ka, its textures ("texture",
// "alpha"), which it adds to `scene`, and the terms beyond Whitted's (emission,
// emission_two_sided, roughness, glossy, ior, absorption, kt). Errors are the object's
// file:line:col.
Material read_json_material(const json_doc::Node& m, const std::string& name, Scene& scene);

}  // namespace srt
