// gltf_model.cpp - reading a glTF file through tinygltf, and checked access to what it
// holds (scene/gltf_model.h).
//
// tinygltf parses the JSON and loads the buffers; everything read from them is checked
// here (accessor types, strides, bounds, index ranges), because tinygltf does not check
// that an accessor fits its buffer. Errors name the file and, where it can be said, the
// JSON pointer of what was wrong: `model.gltf: /accessors/2: count 900 runs past the end
// of its buffer view (640 bytes)`.
#include "scene/gltf_model.h"

#include "core/error.h"
#include "scene/load.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace srt::gltf {
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

// Images are decoded by us (gltf_materials.cpp, through scene/texture_file.h), not by
// tinygltf: the callback keeps the bytes of images given by URI (a file or a data URI),
// which tinygltf has read in full. Images in a buffer view are read later, from the view,
// checked against the buffer (tinygltf hands the callback the view's stated length
// unchecked).
bool keep_image_bytes(tinygltf::Image* image, const int, std::string*, std::string*, int, int, const unsigned char* bytes,
                      int size, void*) {
    if (image->bufferView < 0 && bytes && size > 0) image->image.assign(bytes, bytes + size);
    return true;
}

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

}  // namespace

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


bool supported_extension(const std::string& e) {
    return e == "KHR_lights_punctual" || e == "KHR_texture_transform" || e == "KHR_materials_emissive_strength" ||
           e == "KHR_materials_transmission" || e == "KHR_materials_ior" || e == "KHR_materials_volume";
}

void fail(const std::string& path, const std::string& pointer, const std::string& msg) {
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

// The first byte of buffer view `index` (named by `owner`), checked to lie, with all its
// byteLength bytes, inside its buffer.
const unsigned char* buffer_view_bytes(const std::string& path, const tinygltf::Model& m, int index,
                                       const std::string& owner) {
    if (index < 0 || size_t(index) >= m.bufferViews.size()) fail(path, owner, "bufferView missing or out of range");
    const tinygltf::BufferView& bv = m.bufferViews[size_t(index)];
    const std::string bptr = "/bufferViews/" + std::to_string(index);
    if (bv.buffer < 0 || size_t(bv.buffer) >= m.buffers.size()) fail(path, bptr, "buffer missing or out of range");
    const std::vector<unsigned char>& buf = m.buffers[size_t(bv.buffer)].data;
    if (bv.byteOffset > buf.size() || bv.byteLength > buf.size() - bv.byteOffset)
        fail(path, bptr, "runs past the end of buffer " + std::to_string(bv.buffer) + " (" + std::to_string(buf.size()) + " bytes)");
    return buf.data() + bv.byteOffset;
}


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
    const unsigned char* view_bytes = buffer_view_bytes(path, m, a.bufferView, ptr);
    const tinygltf::BufferView& bv = m.bufferViews[size_t(a.bufferView)];
    const std::string bptr = "/bufferViews/" + std::to_string(a.bufferView);
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
    return {view_bytes + a.byteOffset, a.count, stride, a.componentType};
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
uint32_t read_index(const View& v, size_t i) {
    const unsigned char* p = v.data + i * v.stride;
    switch (v.ctype) {
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return p[0];
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: { uint16_t x; std::memcpy(&x, p, 2); return x; }
        default: { uint32_t x; std::memcpy(&x, p, 4); return x; }
    }
}

}  // namespace srt::gltf
