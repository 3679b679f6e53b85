// load_gltf.cpp - glTF 2.0 (.gltf with embedded or external buffers, and .glb) through
// Debian's libtinygltf-dev.
//
// tinygltf parses the JSON and loads the buffers; everything read from them is checked
// here (accessor types, strides, bounds, index ranges), because tinygltf does not check
// that an accessor fits its buffer. Errors name the file and, where it can be said, the
// JSON pointer of what was wrong: `model.gltf: /accessors/2: count 900 runs past the end
// of its buffer view (640 bytes)`.
//
// The mapping onto our model (docs/scene-format.md, "glTF 2.0"):
//   meshes   triangles of every primitive of mode TRIANGLES (4; the default), placed by
//            the node hierarchy of the default scene; NORMAL makes them smooth;
//   camera   the first node with a perspective camera: from its origin along -z, up +y,
//            yfov and aspectRatio (16:9 when absent) turned into our horizontal fov;
//   lights   KHR_lights_punctual: point lights, directional lights, and spot lights as
//            point lights (a note says so); colours scaled together so the brightest
//            channel times intensity is 1 (no falloff in our model);
//   material baseColorFactor -> colour; metallic m and roughness r -> a mirror of
//            weight m (1 - r)^2 tinted by the base colour, kd = 1 - that weight.
#include "scene/load.h"

#include "core/error.h"
#include "scene/texture_file.h"

#include <tiny_gltf.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <vector>
#include <iterator>
#include <fstream>
#include <functional>

namespace srt {
namespace {

// The files a glTF names (its buffers), read by tinygltf through these callbacks rather
// than its own: tinygltf's ReadWholeFile opens anything, and a directory's stream
// reports a size of 2^63 - 1, which it then tried to allocate (found by the fuzzer: a
// buffer URI that decodes to the glTF's own folder). Only regular files are read, and
// none over 1 GiB, the limit a glTF file itself has.
bool regular_file_exists(const std::string& path, void*) {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
}
bool read_regular_file(std::vector<unsigned char>* out, std::string* err, const std::string& path, void*) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        if (err) *err += "not a regular file: " + path + "\n";
        return false;
    }
    const auto size = std::filesystem::file_size(path, ec);
    if (ec || size > (uintmax_t(1) << 30)) {
        if (err) *err += (ec ? "cannot read " : "larger than 1 GiB: ") + path + "\n";
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    out->resize(size_t(size));
    if (size > 0 && !in.read(reinterpret_cast<char*>(out->data()), std::streamsize(size))) {
        if (err) *err += "cannot read " + path + "\n";
        return false;
    }
    return true;
}

// Images are decoded here (scene/texture_file.h), not by tinygltf: the callback keeps the
// bytes of images given by URI (a file or a data URI), which tinygltf has read in full.
// Images in a buffer view are read later, from the view, checked against the buffer
// (tinygltf hands the callback the view's stated length unchecked).
bool keep_image_bytes(tinygltf::Image* image, const int, std::string*, std::string*, int, int, const unsigned char* bytes,
                      int size, void*) {
    if (image->bufferView < 0 && bytes && size > 0) image->image.assign(bytes, bytes + size);
    return true;
}

// The extensions whose meaning we render; a file that requires any other is refused.
bool supported_extension(const std::string& e) { return e == "KHR_lights_punctual" || e == "KHR_texture_transform"; }

// Deep enough for any exporter's skeleton or chain, shallow enough that a file cannot
// make the walk hold gigabytes.
constexpr size_t kMaxNodeDepth = 100000;

[[noreturn]] void fail(const std::string& path, const std::string& pointer, const std::string& msg) {
    throw InputError(path, 0, pointer.empty() ? msg : pointer + ": " + msg);
}

glm::dmat4 node_matrix(const tinygltf::Node& n) {
    if (n.matrix.size() == 16) {
        glm::dmat4 m;
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 4; ++r) m[c][r] = n.matrix[size_t(4 * c + r)];  // column-major, as glTF
        return m;
    }
    glm::dmat4 t(1.0), r(1.0), s(1.0);
    if (n.translation.size() == 3) t[3] = glm::dvec4(n.translation[0], n.translation[1], n.translation[2], 1.0);
    if (n.rotation.size() == 4) {
        const double x = n.rotation[0], y = n.rotation[1], z = n.rotation[2], w = n.rotation[3];
        r = glm::dmat4(glm::dmat3(1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
                                  2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                                  2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)));
    }
    if (n.scale.size() == 3) s = glm::dmat4(glm::dmat3(glm::dvec3(n.scale[0], 0, 0), glm::dvec3(0, n.scale[1], 0), glm::dvec3(0, 0, n.scale[2])));
    return t * r * s;
}

// The bytes of accessor `a`, checked: `type` components of `ctypes`, within its buffer.
struct View {
    const unsigned char* data = nullptr;
    size_t count = 0, stride = 0;
    int ctype = 0;
};
View accessor_view(const std::string& path, const tinygltf::Model& m, int index, int type,
                   std::initializer_list<int> ctypes) {
    const std::string ptr = "/accessors/" + std::to_string(index);
    if (index < 0 || size_t(index) >= m.accessors.size()) fail(path, ptr, "no such accessor");
    const tinygltf::Accessor& a = m.accessors[size_t(index)];
    auto tname = [](int t) {
        switch (t) {
            case TINYGLTF_TYPE_SCALAR: return std::string("SCALAR");
            case TINYGLTF_TYPE_VEC2: return std::string("VEC2");
            case TINYGLTF_TYPE_VEC3: return std::string("VEC3");
            case TINYGLTF_TYPE_VEC4: return std::string("VEC4");
            default: return "type " + std::to_string(t);
        }
    };
    if (a.type != type) fail(path, ptr, "is " + tname(a.type) + " where " + tname(type) + " is needed");
    if (std::find(ctypes.begin(), ctypes.end(), a.componentType) == ctypes.end())
        fail(path, ptr, "componentType " + std::to_string(a.componentType) + " is not one this attribute may have");
    if (a.sparse.isSparse) fail(path, ptr, "sparse accessors are not supported");
    if (a.bufferView < 0 || size_t(a.bufferView) >= m.bufferViews.size()) fail(path, ptr, "bufferView missing or out of range");
    const tinygltf::BufferView& bv = m.bufferViews[size_t(a.bufferView)];
    const std::string bptr = "/bufferViews/" + std::to_string(a.bufferView);
    if (bv.buffer < 0 || size_t(bv.buffer) >= m.buffers.size()) fail(path, bptr, "buffer missing or out of range");
    const std::vector<unsigned char>& buf = m.buffers[size_t(bv.buffer)].data;
    if (bv.byteOffset > buf.size() || bv.byteLength > buf.size() - bv.byteOffset)
        fail(path, bptr, "runs past the end of buffer " + std::to_string(bv.buffer) + " (" + std::to_string(buf.size()) + " bytes)");
    const int csize = tinygltf::GetComponentSizeInBytes(uint32_t(a.componentType));
    const int ncomp = tinygltf::GetNumComponentsInType(uint32_t(a.type));
    if (csize <= 0 || ncomp <= 0) fail(path, ptr, "unknown component type or type");
    const size_t elem = size_t(csize) * size_t(ncomp);
    const size_t stride = bv.byteStride ? bv.byteStride : elem;
    if (stride < elem) fail(path, bptr, "byteStride " + std::to_string(bv.byteStride) + " is smaller than an element");
    if (a.count == 0) fail(path, ptr, "count is 0");
    if (a.byteOffset > bv.byteLength || (a.count - 1) > (bv.byteLength - a.byteOffset) / stride ||
        (a.count - 1) * stride + elem > bv.byteLength - a.byteOffset)
        fail(path, ptr, "count " + std::to_string(a.count) + " runs past the end of its buffer view (" +
                            std::to_string(bv.byteLength) + " bytes)");
    return {buf.data() + bv.byteOffset + a.byteOffset, a.count, stride, a.componentType};
}

float read_float(const View& v, size_t i, int c) {
    float f;
    std::memcpy(&f, v.data + i * v.stride + size_t(c) * 4, 4);
    return f;
}
// A TEXCOORD component: float, or a normalized unsigned byte or short.
float read_texcoord(const View& v, size_t i, int c) {
    const unsigned char* p = v.data + i * v.stride;
    switch (v.ctype) {
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return float(p[c]) / 255.0f;
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: { uint16_t x; std::memcpy(&x, p + 2 * c, 2); return float(x) / 65535.0f; }
        default: return read_float(v, i, c);
    }
}

// How a material's base colour texture is laid on: its TEXCOORD set and
// KHR_texture_transform (offset, rotation, scale), applied to the triangles' coordinates.
struct TexturePlacement {
    int texcoord = 0;
    bool transformed = false;
    glm::dmat3 matrix{1.0};
    glm::vec2 apply(const glm::vec2& uv) const {
        if (!transformed) return uv;
        return glm::vec2(matrix * glm::dvec3(uv.x, uv.y, 1.0));
    }
};

Wrap wrap_mode(const std::string& path, const std::string& ptr, int mode) {
    switch (mode) {
        case TINYGLTF_TEXTURE_WRAP_REPEAT: return Wrap::Repeat;
        case TINYGLTF_TEXTURE_WRAP_MIRRORED_REPEAT: return Wrap::MirroredRepeat;
        case TINYGLTF_TEXTURE_WRAP_CLAMP_TO_EDGE: return Wrap::Clamp;
        default: fail(path, ptr, "unknown wrap mode " + std::to_string(mode));
    }
}

// The scene texture for the glTF's texture `index`: its image decoded (from a buffer
// view, a data URI or a file next to the glTF) with its sampler's wrap modes. An image
// file that is missing leaves a note and returns kNoTexture, as for OBJ.
int32_t gltf_texture(Scene& scene, const tinygltf::Model& m, const std::string& path, int index) {
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
        const std::string bptr = "/bufferViews/" + std::to_string(img.bufferView);
        if (size_t(img.bufferView) >= m.bufferViews.size()) fail(path, iptr + "/bufferView", "no such buffer view");
        const tinygltf::BufferView& bv = m.bufferViews[size_t(img.bufferView)];
        if (bv.buffer < 0 || size_t(bv.buffer) >= m.buffers.size()) fail(path, bptr, "buffer missing or out of range");
        const std::vector<unsigned char>& buf = m.buffers[size_t(bv.buffer)].data;
        if (bv.byteOffset > buf.size() || bv.byteLength > buf.size() - bv.byteOffset)
            fail(path, bptr, "runs past the end of buffer " + std::to_string(bv.buffer) + " (" + std::to_string(buf.size()) + " bytes)");
        bytes = buf.data() + bv.byteOffset;
        size = bv.byteLength;
    } else if (!img.image.empty()) {
        bytes = img.image.data();
        size = img.image.size();
    } else {
        scene.notes.push_back(path + ": " + iptr + ": image '" + img.uri + "' not found; the material keeps its flat colour");
        return kNoTexture;
    }
    std::string name = path + ": " + iptr;
    if (!img.uri.empty() && img.uri.rfind("data:", 0) != 0) name += " ('" + img.uri + "')";
    return texture_from_bytes(scene, bytes, size, name, TextureUse::Colour, wu, wv);
}

// KHR_texture_transform on a texture reference: uv' = T(offset) R(rotation) S(scale) uv,
// the extension's matrix (rotation counter-clockwise in uv space, v down).
TexturePlacement placement(const std::string& path, const std::string& ptr, const tinygltf::TextureInfo& ti) {
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
    const double c = std::cos(rotation), sn = std::sin(rotation);
    // Column-major: T * R * S with R = [[c, s], [-s, c]] (rows), as the extension gives it.
    pl.matrix = glm::dmat3(glm::dvec3(c * scale.x, -sn * scale.x, 0.0), glm::dvec3(sn * scale.y, c * scale.y, 0.0),
                           glm::dvec3(offset.x, offset.y, 1.0));
    pl.transformed = true;
    return pl;
}
uint32_t read_index(const View& v, size_t i) {
    const unsigned char* p = v.data + i * v.stride;
    switch (v.ctype) {
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return p[0];
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: { uint16_t x; std::memcpy(&x, p, 2); return x; }
        default: { uint32_t x; std::memcpy(&x, p, 4); return x; }
    }
}

struct Loaded {
    tinygltf::Model model;
};

// The GLB container's header and chunk lengths, checked before tinygltf sees the bytes:
// Debian's tinygltf (2.8) copies a BIN chunk by its stated length without checking it
// against the file (a fuzzer found the read past the end). Throws InputError.
void check_glb_container(const std::string& path, const std::vector<unsigned char>& b) {
    auto u32 = [&](size_t at) {
        uint32_t v;
        std::memcpy(&v, b.data() + at, 4);
        return uint64_t(v);
    };
    const uint64_t size = b.size();
    if (size < 20) throw InputError(path, 0, "GLB: " + std::to_string(size) + " bytes, shorter than its 20-byte header");
    if (std::memcmp(b.data(), "glTF", 4) != 0) throw InputError(path, 0, "GLB: the file does not start with 'glTF'");
    if (u32(4) != 2) throw InputError(path, 0, "GLB: version " + std::to_string(u32(4)) + ", not 2");
    if (u32(8) != size)
        throw InputError(path, 0, "GLB: the header gives a length of " + std::to_string(u32(8)) + " bytes, the file has " +
                                      std::to_string(size));
    const uint64_t json_len = u32(12);
    if (u32(16) != 0x4E4F534Au) throw InputError(path, 0, "GLB: the first chunk is not JSON");
    if (json_len == 0 || 20 + json_len > size)
        throw InputError(path, 0, "GLB: the JSON chunk's length " + std::to_string(json_len) + " does not fit the file");
    const uint64_t at = 20 + json_len;
    if (at == size) return;
    if (at + 8 > size) throw InputError(path, 0, "GLB: " + std::to_string(size - at) + " stray bytes after the JSON chunk");
    const uint64_t bin_len = u32(at);
    if (u32(at + 4) != 0x004E4942u) throw InputError(path, 0, "GLB: the second chunk is not BIN");
    if (at + 8 + bin_len > size)
        throw InputError(path, 0, "GLB: the BIN chunk's length " + std::to_string(bin_len) + " runs past the end of the file (" +
                                      std::to_string(size - at - 8) + " bytes left)");
}

tinygltf::Model load_model(const std::string& path, const std::string& referenced_from, int ref_line) {
    check_mesh_file(path, referenced_from, ref_line, "glTF");  // tinygltf opens it itself
    std::error_code ec;
    if (std::filesystem::file_size(path, ec) > (size_t(1) << 30)) throw InputError(path, 0, "larger than 1 GiB");
    tinygltf::TinyGLTF loader;
    loader.SetImageLoader(keep_image_bytes, nullptr);
    loader.SetFsCallbacks(tinygltf::FsCallbacks{&regular_file_exists, &tinygltf::ExpandFilePath, &read_regular_file,
                                                &tinygltf::WriteWholeFile, nullptr});
    tinygltf::Model model;
    std::string err, warn;
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    bool ok = false;
    if (ext == ".glb") {
        std::ifstream in(path, std::ios::binary);
        std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (!in.good() && !in.eof()) throw InputError(path, 0, "cannot read the file");
        check_glb_container(path, bytes);
        const std::string base = std::filesystem::path(path).parent_path().string();
        ok = loader.LoadBinaryFromMemory(&model, &err, &warn, bytes.data(), unsigned(bytes.size()), base);
    } else {
        ok = loader.LoadASCIIFromFile(&model, &err, &warn, path);
    }
    if (!ok || !err.empty()) {
        while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
        for (char& c : err)
            if (c == '\n') c = ';';
        throw InputError(path, 0, "not a valid glTF 2.0 file: " + (err.empty() ? std::string("tinygltf gave no reason") : err));
    }
    return model;
}

}  // namespace

size_t append_gltf(Scene& scene, const std::string& path, const glm::mat4& xform, std::optional<uint32_t> material,
                   const std::string& referenced_from, int ref_line, bool take_camera_and_lights) {
    const tinygltf::Model m = load_model(path, referenced_from, ref_line);

    // Extensions: a required one we do not render refuses the file (the specification
    // says a loader must); one only used is ignored, with a note.
    for (size_t i = 0; i < m.extensionsRequired.size(); ++i)
        if (!supported_extension(m.extensionsRequired[i]))
            fail(path, "/extensionsRequired/" + std::to_string(i),
                 "the file requires the extension '" + m.extensionsRequired[i] + "', which stencilrt does not support");
    for (const std::string& e : m.extensionsUsed)
        if (!supported_extension(e)) scene.notes.push_back(path + ": ignored the extension '" + e + "' (used, not required)");

    // Materials (unless one is imposed).
    std::vector<uint32_t> mat_ids(m.materials.size(), 0);
    std::vector<TexturePlacement> placements(m.materials.size());
    size_t blended = 0;
    if (!material) {
        for (size_t i = 0; i < m.materials.size(); ++i) {
            const std::string mptr = "/materials/" + std::to_string(i);
            const tinygltf::PbrMetallicRoughness& p = m.materials[i].pbrMetallicRoughness;
            Material mat;
            mat.name = m.materials[i].name.empty() ? path + "#" + std::to_string(i) : m.materials[i].name;
            if (p.baseColorFactor.size() >= 3)
                mat.colour = glm::clamp(glm::vec3(float(p.baseColorFactor[0]), float(p.baseColorFactor[1]), float(p.baseColorFactor[2])),
                                        glm::vec3(0.0f), glm::vec3(1.0f));
            const double metal = std::clamp(p.metallicFactor, 0.0, 1.0), rough = std::clamp(p.roughnessFactor, 0.0, 1.0);
            const float mirror = float(metal * (1.0 - rough) * (1.0 - rough));
            mat.kr = mirror * mat.colour;
            mat.kd = 1.0f - mirror;
            if (p.baseColorTexture.index >= 0) {
                mat.texture = gltf_texture(scene, m, path, p.baseColorTexture.index);
                placements[i] = placement(path, mptr + "/pbrMetallicRoughness/baseColorTexture", p.baseColorTexture);
                if (placements[i].texcoord < 0) fail(path, mptr + "/pbrMetallicRoughness/baseColorTexture/texCoord", "must be >= 0");
            }
            const std::string& mode = m.materials[i].alphaMode;
            if (mode == "MASK") {
                mat.alpha_mask = true;
                mat.alpha_texture = mat.texture;
                mat.alpha_factor = p.baseColorFactor.size() == 4 ? float(std::clamp(p.baseColorFactor[3], 0.0, 1.0)) : 1.0f;
                mat.alpha_cutoff = float(m.materials[i].alphaCutoff);
                if (!(mat.alpha_cutoff >= 0.0f)) fail(path, mptr + "/alphaCutoff", "must be >= 0");
            } else if (mode == "BLEND") {
                ++blended;
            } else if (mode != "OPAQUE" && !mode.empty()) {
                fail(path, mptr + "/alphaMode", "must be OPAQUE, MASK or BLEND, not '" + mode + "'");
            }
            mat_ids[i] = scene.add_material(mat);
        }
    }

    const int root_scene = m.defaultScene >= 0 ? m.defaultScene : 0;
    std::vector<int> roots;
    if (size_t(root_scene) < m.scenes.size()) roots = m.scenes[size_t(root_scene)].nodes;
    else
        for (size_t i = 0; i < m.nodes.size(); ++i) roots.push_back(int(i));  // no scene: every node

    size_t added = 0, skipped_modes = 0, degenerate = 0;
    bool have_camera = false, spot_note = false;
    std::vector<Light> lights;
    std::vector<float> light_peak;
    std::vector<char> visiting(m.nodes.size(), 0);
    // One node, placed at `world`: its mesh, its camera, its light.
    const auto place_node = [&](int ni, const glm::dmat4& world) {
        const std::string nptr = "/nodes/" + std::to_string(ni);
        const tinygltf::Node& node = m.nodes[size_t(ni)];
        if (node.mesh >= 0) {
            if (size_t(node.mesh) >= m.meshes.size()) fail(path, nptr + "/mesh", "no such mesh");
            const tinygltf::Mesh& mesh = m.meshes[size_t(node.mesh)];
            const glm::dmat3 nmat = glm::transpose(glm::inverse(glm::dmat3(world)));
            for (size_t pi = 0; pi < mesh.primitives.size(); ++pi) {
                const tinygltf::Primitive& prim = mesh.primitives[pi];
                const std::string pptr = "/meshes/" + std::to_string(node.mesh) + "/primitives/" + std::to_string(pi);
                if (prim.mode != TINYGLTF_MODE_TRIANGLES && prim.mode != -1) {
                    ++skipped_modes;
                    continue;
                }
                const auto pos_it = prim.attributes.find("POSITION");
                if (pos_it == prim.attributes.end()) fail(path, pptr, "has no POSITION attribute");
                const View pos = accessor_view(path, m, pos_it->second, TINYGLTF_TYPE_VEC3, {TINYGLTF_COMPONENT_TYPE_FLOAT});
                View nrm;
                const auto n_it = prim.attributes.find("NORMAL");
                const bool smooth = n_it != prim.attributes.end();
                if (smooth) {
                    nrm = accessor_view(path, m, n_it->second, TINYGLTF_TYPE_VEC3, {TINYGLTF_COMPONENT_TYPE_FLOAT});
                    if (nrm.count != pos.count)
                        fail(path, "/accessors/" + std::to_string(n_it->second), "NORMAL has " + std::to_string(nrm.count) +
                                                                                  " entries, POSITION " + std::to_string(pos.count));
                }
                std::vector<uint32_t> idx;
                if (prim.indices >= 0) {
                    const View iv = accessor_view(path, m, prim.indices, TINYGLTF_TYPE_SCALAR,
                                                  {TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT,
                                                   TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT});
                    idx.resize(iv.count);
                    for (size_t i = 0; i < iv.count; ++i) {
                        idx[i] = read_index(iv, i);
                        if (idx[i] >= pos.count)
                            fail(path, "/accessors/" + std::to_string(prim.indices), "index " + std::to_string(idx[i]) +
                                                                                     " at " + std::to_string(i) + " is out of range (" +
                                                                                     std::to_string(pos.count) + " vertices)");
                    }
                } else {
                    idx.resize(pos.count);
                    for (size_t i = 0; i < pos.count; ++i) idx[i] = uint32_t(i);
                }
                if (idx.size() % 3 != 0) fail(path, pptr, std::to_string(idx.size()) + " indices are not whole triangles");
                uint32_t mat_id = material.value_or(0u);
                const TexturePlacement* place = nullptr;
                if (!material && prim.material >= 0) {
                    if (size_t(prim.material) >= m.materials.size()) fail(path, pptr + "/material", "no such material");
                    mat_id = mat_ids[size_t(prim.material)];
                    place = &placements[size_t(prim.material)];
                }
                // Texture coordinates, read where a texture or a mask will use them.
                View uvs;
                const Material& pm = scene.materials[mat_id];
                if (pm.textured() || pm.alpha_mask) {
                    const auto uv_it = prim.attributes.find("TEXCOORD_" + std::to_string(place ? place->texcoord : 0));
                    if (uv_it != prim.attributes.end()) {
                        uvs = accessor_view(path, m, uv_it->second, TINYGLTF_TYPE_VEC2,
                                            {TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE,
                                             TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT});
                        if (uvs.count != pos.count)
                            fail(path, "/accessors/" + std::to_string(uv_it->second),
                                 uv_it->first + " has " + std::to_string(uvs.count) + " entries, POSITION " + std::to_string(pos.count));
                    }
                }
                for (size_t t = 0; t < idx.size(); t += 3) {
                    Triangle tri;
                    Point3* v[3] = {&tri.v0, &tri.v1, &tri.v2};
                    glm::vec3* nn[3] = {&tri.n0, &tri.n1, &tri.n2};
                    glm::vec2* tc[3] = {&tri.uv0, &tri.uv1, &tri.uv2};
                    tri.has_uv = uvs.data != nullptr;
                    bool ok = smooth;
                    for (int c = 0; c < 3; ++c) {
                        const size_t k = idx[t + size_t(c)];
                        const glm::dvec3 p(read_float(pos, k, 0), read_float(pos, k, 1), read_float(pos, k, 2));
                        if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z))
                            fail(path, "/accessors/" + std::to_string(pos_it->second), "position " + std::to_string(k) + " is not finite");
                        *v[c] = Point3(glm::dmat4(xform) * world * glm::dvec4(p, 1.0));
                        if (tri.has_uv) {
                            const glm::vec2 uv(read_texcoord(uvs, k, 0), read_texcoord(uvs, k, 1));
                            *tc[c] = place ? place->apply(uv) : uv;
                        }
                        if (smooth) {
                            const glm::dvec3 n = glm::dmat3(glm::transpose(glm::inverse(glm::dmat3(glm::dmat4(xform))))) * nmat *
                                                 glm::dvec3(read_float(nrm, k, 0), read_float(nrm, k, 1), read_float(nrm, k, 2));
                            const double len = glm::length(n);
                            ok = ok && len > 0.0 && std::isfinite(len);
                            *nn[c] = ok ? glm::vec3(n / len) : glm::vec3(0.0f);
                        }
                    }
                    const glm::dvec3 cr = glm::cross(tri.v1 - tri.v0, tri.v2 - tri.v0);
                    const double longest = std::max({glm::length(tri.v1 - tri.v0), glm::length(tri.v2 - tri.v0), glm::length(tri.v2 - tri.v1)});
                    if (!(glm::length(cr) > 1e-12 * longest * longest)) {
                        ++degenerate;
                        continue;
                    }
                    tri.smooth = ok;
                    if (!ok) tri.n0 = tri.n1 = tri.n2 = glm::vec3(0.0f);
                    tri.material = mat_id;
                    scene.triangles.push_back(tri);
                    ++added;
                }
            }
        }
        if (take_camera_and_lights && node.camera >= 0 && !have_camera) {
            if (size_t(node.camera) >= m.cameras.size()) fail(path, nptr + "/camera", "no such camera");
            const tinygltf::Camera& cam = m.cameras[size_t(node.camera)];
            if (cam.type == "perspective") {
                const glm::dmat4 w = glm::dmat4(xform) * world;
                scene.camera.from = glm::vec3(w * glm::dvec4(0, 0, 0, 1));
                scene.camera.at = glm::vec3(w * glm::dvec4(0, 0, -1, 1));
                scene.camera.up = glm::vec3(glm::normalize(glm::dmat3(w) * glm::dvec3(0, 1, 0)));
                const double aspect = cam.perspective.aspectRatio > 0 ? cam.perspective.aspectRatio : 16.0 / 9.0;
                const double yfov = cam.perspective.yfov;
                if (!(yfov > 0.0 && yfov < 3.1)) fail(path, "/cameras/" + std::to_string(node.camera) + "/perspective/yfov", "must be in (0, pi)");
                scene.camera.fov_deg = float(std::min(179.0, 2.0 * std::atan(std::tan(yfov / 2.0) * aspect) * 180.0 / 3.14159265358979323846));
                have_camera = true;
            }
        }
        if (take_camera_and_lights) {
            const auto ext = node.extensions.find("KHR_lights_punctual");
            if (ext != node.extensions.end() && ext->second.Has("light")) {
                const int li = ext->second.Get("light").GetNumberAsInt();
                if (li < 0 || size_t(li) >= m.lights.size()) fail(path, nptr + "/extensions/KHR_lights_punctual/light", "no such light");
                const tinygltf::Light& gl = m.lights[size_t(li)];
                const glm::dmat4 w = glm::dmat4(xform) * world;
                Light l;
                glm::vec3 c(1.0f);
                if (gl.color.size() >= 3) c = glm::vec3(float(gl.color[0]), float(gl.color[1]), float(gl.color[2]));
                l.colour = glm::max(c, glm::vec3(0.0f)) * float(std::max(gl.intensity, 0.0));
                if (gl.type == "directional") {
                    l.type = LightType::Directional;
                    l.direction = glm::vec3(glm::normalize(glm::dmat3(w) * glm::dvec3(0, 0, -1)));
                } else {
                    if (gl.type == "spot") spot_note = true;
                    l.type = LightType::Point;
                    l.position = Point3(w * glm::dvec4(0, 0, 0, 1));
                }
                lights.push_back(l);
            }
        }
    };
    // The hierarchy, depth first with an explicit stack: glTF sets no limit on nesting,
    // and exporters nest deeply (a skeleton's bone chains, a rope or a chain of links one
    // node per link), so the depth must not be bounded by the call stack. Cycles (which
    // glTF forbids) are refused, and so are hierarchies deeper than kMaxNodeDepth.
    struct Frame {
        int node;
        glm::dmat4 world;
        size_t next_child;
    };
    std::vector<Frame> stack;
    const auto enter = [&](int ni, const glm::dmat4& parent) {
        const std::string nptr = "/nodes/" + std::to_string(ni);
        if (ni < 0 || size_t(ni) >= m.nodes.size()) fail(path, nptr, "no such node");
        if (visiting[size_t(ni)]) fail(path, nptr, "the node hierarchy has a cycle");
        if (stack.size() >= kMaxNodeDepth)
            fail(path, nptr, "the node hierarchy is deeper than " + std::to_string(kMaxNodeDepth) + " levels");
        const tinygltf::Node& node = m.nodes[size_t(ni)];
        if (!node.matrix.empty() && node.matrix.size() != 16) fail(path, nptr + "/matrix", "must have 16 numbers");
        visiting[size_t(ni)] = 1;
        const glm::dmat4 world = parent * node_matrix(node);
        place_node(ni, world);
        stack.push_back(Frame{ni, world, 0});
    };
    for (int r : roots) {
        enter(r, glm::dmat4(1.0));
        while (!stack.empty()) {
            Frame& f = stack.back();
            const std::vector<int>& children = m.nodes[size_t(f.node)].children;
            if (f.next_child < children.size()) {
                const int child = children[f.next_child++];
                const glm::dmat4 world = f.world;
                enter(child, world);
            } else {
                visiting[size_t(f.node)] = 0;
                stack.pop_back();
            }
        }
    }

    if (!lights.empty()) {
        // glTF intensities are photometric; our lights have no falloff. Scale them together
        // so the brightest channel is 1, keeping their colours and ratios (as for OBJ Ke).
        float peak = 0.0f;
        for (const Light& l : lights) peak = std::max({peak, l.colour.x, l.colour.y, l.colour.z});
        if (peak > 0.0f)
            for (Light& l : lights) l.colour /= peak;
        scene.lights.insert(scene.lights.end(), lights.begin(), lights.end());
        scene.notes.push_back(path + ": " + std::to_string(lights.size()) + " KHR_lights_punctual light(s), scaled so the brightest channel is 1");
    }
    if (blended) scene.notes.push_back(path + ": " + std::to_string(blended) + " material(s) with alphaMode BLEND rendered opaque");
    if (spot_note) scene.notes.push_back(path + ": spot lights are rendered as point lights (no cone)");
    if (skipped_modes) scene.notes.push_back(path + ": skipped " + std::to_string(skipped_modes) + " primitive(s) that are not triangles");
    if (degenerate) scene.notes.push_back(path + ": dropped " + std::to_string(degenerate) + " degenerate triangle(s)");
    if (have_camera) scene.notes.push_back(path + ": camera from the file");
    return added;
}

size_t append_gltf_mesh(Scene& scene, const std::string& path, const glm::mat4& xform, std::optional<uint32_t> material,
                        const std::string& referenced_from, int ref_line) {
    return append_gltf(scene, path, xform, material, referenced_from, ref_line, false);
}

Scene load_gltf_scene(const std::string& path) {
    Scene scene;
    scene.name = path;
    Material grey;
    grey.name = "default";
    scene.add_material(grey);
    const Camera before = scene.camera;
    append_gltf(scene, path, glm::mat4(1.0f), std::nullopt, "", 0, true);
    if (scene.triangles.empty()) throw InputError(path, 0, "glTF file has no triangles in its default scene");
    const bool own_camera = !(scene.camera.from == before.from && scene.camera.at == before.at);
    if (own_camera) {
        if (scene.lights.empty()) {
            // No lights in the file: a white light at the camera.
            Light l;
            l.position = Point3(scene.camera.from);
            scene.lights.push_back(l);
            scene.notes.push_back(path + ": no KHR_lights_punctual lights; added a white light at the camera");
        }
        validate(scene);
    } else {
        frame_mesh_scene(scene, path);
    }
    return scene;
}

}  // namespace srt
