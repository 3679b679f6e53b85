// gltf_model.h - what the glTF loader (load_gltf.cpp: the node walk, meshes, camera,
// lights) and its materials (gltf_materials.cpp) share: the file read through tinygltf and
// checked, errors that carry a JSON pointer, and views of buffers checked before they are
// read. Internal to src/scene/.
#pragma once

#include "scene/scene.h"

#include <tiny_gltf.h>

#include <glm/glm.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace srt::gltf {

// Throws InputError("path: pointer: msg").
[[noreturn]] void fail(const std::string& path, const std::string& pointer, const std::string& msg);

// The file (.gltf or .glb), parsed by tinygltf with our file callbacks; its images' bytes
// kept undecoded (gltf_materials.cpp decodes those a material uses). A missing or
// unreadable file is reported against `referenced_from:ref_line` when given.
tinygltf::Model load_model(const std::string& path, const std::string& referenced_from, int ref_line);

// Whether we render what an extension means (a file that requires any other is refused).
bool supported_extension(const std::string& name);

// A node's local matrix (its matrix, or T * R * S).
glm::dmat4 node_matrix(const tinygltf::Node& n);

// The first byte of buffer view `index` (named by `owner`), checked to lie, with all its
// byteLength bytes, inside its buffer.
const unsigned char* buffer_view_bytes(const std::string& path, const tinygltf::Model& m, int index,
                                       const std::string& owner);

// The bytes of an accessor: `count` elements `stride` apart, each of component type `ctype`.
struct View {
    const unsigned char* data = nullptr;
    size_t count = 0, stride = 0;
    int ctype = 0;
};
// Accessor `index`, checked: `type` components of one of `ctypes`, every element within
// its buffer view and the view within its buffer.
View accessor_view(const std::string& path, const tinygltf::Model& m, int index, int type,
                   std::initializer_list<int> ctypes);
float read_float(const View& v, size_t i, int c);
float read_texcoord(const View& v, size_t i, int c);  // float, or normalized u8 / u16
uint32_t read_index(const View& v, size_t i);         // u8, u16 or u32

// How a texture reference is laid on: its TEXCOORD set, and KHR_texture_transform
// (offset, rotation, scale), which the texture itself carries (scene.h Texture).
struct TexturePlacement {
    int texcoord = 0;
    UvTransform transform;
};

// The file's materials added to `scene` (gltf_materials.cpp): ids[i] is material i's
// index in the scene, texcoords[i] the TEXCOORD set its triangles carry (its first
// texture's);
// `blended` counts materials with alphaMode BLEND (rendered opaque).
struct Materials {
    std::vector<uint32_t> ids;
    std::vector<int> texcoords;
    size_t blended = 0;
};
Materials add_materials(Scene& scene, const tinygltf::Model& m, const std::string& path);

}  // namespace srt::gltf
