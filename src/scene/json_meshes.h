// json_meshes.h - the geometric parts of our JSON scene format (docs/scene-format.md):
// a mesh's and an instance's "transform", and a mesh's "uv" projection, read for
// load_json.cpp.
#pragma once

#include "scene/json_doc.h"
#include "scene/scene.h"

#include <glm/glm.hpp>

#include <cstddef>
#include <vector>

namespace srt {

// A 'mesh' object's "transform" ({"translate", "rotate", "scale"}), in float: scale, then
// rotate about X, then Y, then Z (degrees), then translate.
glm::mat4 read_transform(const json_doc::Node& n);

// An 'instance' object's "transform", as read_transform's but in double, with quarter
// turns exact. Refuses a transform whose entries or determinant float cannot carry.
void read_transform_double(const json_doc::Node& n, glm::dmat3& linear, glm::dvec3& translate);

// A mesh's "uv": {"projection": "box", "size"?}, applied to tris[first..].
void read_uv_projection(const json_doc::Node& uv, std::vector<Triangle>& tris, size_t first);

}  // namespace srt
