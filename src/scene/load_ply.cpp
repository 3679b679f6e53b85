// load_ply.cpp - PLY meshes (Greg Turk's polygon file format, as the Stanford scans ship):
// ASCII, binary little-endian and binary big-endian.
//
// Strict, and errors say where: header and ASCII data as file:line, binary data as a
// byte offset (`bunny.ply: byte 1043: ...`). third_party/README.md says why this is our
// own reader rather than assimp's.
//
// What is read: `element vertex` with x, y, z (any numeric type) and optionally nx, ny,
// nz (vertex normals: the triangles are shaded smooth); `element face` with a list
// property `vertex_indices` (or `vertex_index`), polygons fan-triangulated. Every other
// property (confidence, intensity, a face's flags before its index list) and every other
// element (edges, materials) is read past according to its declared type.
#include "scene/load.h"

#include "core/load_progress.h"
#include "core/error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace srt {
namespace {

// A value read from the file, for an error message: any double, printed without a cast
// to an integer type (1e61 or NaN would not fit one).
std::string number_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
}

enum class Type { I8, U8, I16, U16, I32, U32, F32, F64 };

bool parse_type(const std::string& s, Type& t) {
    static const std::pair<const char*, Type> names[] = {
        {"char", Type::I8},    {"int8", Type::I8},    {"uchar", Type::U8},    {"uint8", Type::U8},
        {"short", Type::I16},  {"int16", Type::I16},  {"ushort", Type::U16},  {"uint16", Type::U16},
        {"int", Type::I32},    {"int32", Type::I32},  {"uint", Type::U32},    {"uint32", Type::U32},
        {"float", Type::F32},  {"float32", Type::F32}, {"double", Type::F64}, {"float64", Type::F64}};
    for (const auto& [n, ty] : names)
        if (s == n) {
            t = ty;
            return true;
        }
    return false;
}
size_t type_size(Type t) {
    switch (t) {
        case Type::I8: case Type::U8: return 1;
        case Type::I16: case Type::U16: return 2;
        case Type::I32: case Type::U32: case Type::F32: return 4;
        case Type::F64: return 8;
    }
    return 1;
}
bool is_integer(Type t) { return t != Type::F32 && t != Type::F64; }

struct Property {
    std::string name;
    Type type = Type::F32;
    bool list = false;
    Type count_type = Type::U8;
};
struct Element {
    std::string name;
    uint64_t count = 0;
    std::vector<Property> props;
    int line = 0;
};

constexpr uint64_t kMaxCount = 200000000;  // 2e8 vertices or faces: beyond any scan we could hold
constexpr size_t kMaxPolygon = 1000;       // corners in one face

enum class Format { Ascii, BinaryLE, BinaryBE };

// The data after the header: one reader for the three formats, each value checked.
class DataReader {
public:
    DataReader(const std::string& path, const std::string& bytes, size_t pos, int line, Format f)
        : path_(path), bytes_(bytes), pos_(pos), line_(line), format_(f) {}

    [[noreturn]] void fail(const std::string& msg) const {
        if (format_ == Format::Ascii) throw InputError(path_, line_, msg);
        throw InputError(path_, 0, "byte " + std::to_string(value_at_) + ": " + msg);
    }

    // One value of type t, as double (integers exactly).
    double value(Type t, const char* what) {
        value_at_ = pos_;
        if (format_ == Format::Ascii) return ascii_value(t, what);
        const size_t n = type_size(t);
        if (pos_ + n > bytes_.size())
            fail(std::string("the file ends inside ") + what + " (" + std::to_string(bytes_.size() - pos_) +
                 " bytes left, " + std::to_string(n) + " needed)");
        unsigned char b[8];
        std::memcpy(b, bytes_.data() + pos_, n);
        pos_ += n;
        if (format_ == Format::BinaryBE) std::reverse(b, b + n);
        switch (t) {
            case Type::I8: { int8_t v; std::memcpy(&v, b, 1); return v; }
            case Type::U8: return b[0];
            case Type::I16: { int16_t v; std::memcpy(&v, b, 2); return v; }
            case Type::U16: { uint16_t v; std::memcpy(&v, b, 2); return v; }
            case Type::I32: { int32_t v; std::memcpy(&v, b, 4); return v; }
            case Type::U32: { uint32_t v; std::memcpy(&v, b, 4); return v; }
            case Type::F32: { float v; std::memcpy(&v, b, 4); return v; }
            case Type::F64: { double v; std::memcpy(&v, b, 8); return v; }
        }
        return 0;
    }

    // ASCII elements are one per line: call after each one.
    void end_of_element(const char* what) {
        if (format_ != Format::Ascii) return;
        skip_blanks();
        if (pos_ < bytes_.size() && bytes_[pos_] != '\n' && bytes_[pos_] != '\r')
            fail(std::string("more values than the header declares for ") + what);
        next_line();
    }

    // Nothing but whitespace may follow the last element.
    void expect_end() {
        if (format_ == Format::Ascii) {
            while (pos_ < bytes_.size()) {
                if (!std::isspace(static_cast<unsigned char>(bytes_[pos_])))
                    fail("data after the last element the header declares");
                if (bytes_[pos_] == '\n') ++line_;
                ++pos_;
            }
        } else if (pos_ != bytes_.size()) {
            value_at_ = pos_;
            fail(std::to_string(bytes_.size() - pos_) + " bytes after the last element the header declares");
        }
    }

    size_t remaining() const { return bytes_.size() - pos_; }

private:
    void skip_blanks() {
        while (pos_ < bytes_.size() && (bytes_[pos_] == ' ' || bytes_[pos_] == '\t')) ++pos_;
    }
    void next_line() {
        while (pos_ < bytes_.size() && bytes_[pos_] != '\n') ++pos_;
        if (pos_ < bytes_.size()) ++pos_;
        ++line_;
    }
    double ascii_value(Type t, const char* what) {
        skip_blanks();
        // Skip blank lines only at the start of an element.
        const size_t start = pos_;
        while (pos_ < bytes_.size() && !std::isspace(static_cast<unsigned char>(bytes_[pos_]))) ++pos_;
        const std::string tok = bytes_.substr(start, pos_ - start);
        if (tok.empty())
            fail(pos_ >= bytes_.size() ? std::string("the file ends before ") + what
                                       : std::string("missing ") + what + " (the line has fewer values than the header declares)");
        for (char c : tok)
            if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
                fail("malformed number '" + tok + "' in " + what);
        char* end = nullptr;
        const double v = std::strtod(tok.c_str(), &end);
        if (end != tok.c_str() + tok.size() || !std::isfinite(v)) fail("malformed number '" + tok + "' in " + what);
        if (is_integer(t) && v != std::floor(v)) fail("'" + tok + "' in " + what + " is not an integer");
        return v;
    }

    const std::string& path_;
    const std::string& bytes_;
    size_t pos_;
    int line_;
    Format format_;
    size_t value_at_ = 0;
};

}  // namespace

size_t append_ply_mesh(Scene& scene, const std::string& path, const glm::mat4& xform,
                       std::optional<uint32_t> material, const std::string& referenced_from, int ref_line) {
    const std::string bytes = read_mesh_file(path, referenced_from, ref_line, "PLY");
    load_progress::Stage stage("parse", 0, "bytes");

    // --- the header: ASCII lines up to "end_header" ---
    size_t pos = 0;
    int line = 0;
    auto next = [&](std::vector<std::string>& words) -> bool {
        if (pos >= bytes.size()) return false;
        size_t eol = bytes.find('\n', pos);
        if (eol == std::string::npos) eol = bytes.size();
        std::string text = bytes.substr(pos, eol - pos);
        if (!text.empty() && text.back() == '\r') text.pop_back();
        pos = std::min(eol + 1, bytes.size() + 1);
        ++line;
        words.clear();
        std::istringstream ws(text);
        for (std::string w; ws >> w;) words.push_back(w);
        return true;
    };
    std::vector<std::string> w;
    if (!next(w) || w.size() != 1 || w[0] != "ply") throw InputError(path, 1, "not a PLY file (the first line must be 'ply')");
    Format format = Format::Ascii;
    bool have_format = false, ended = false;
    std::vector<Element> elements;
    while (next(w)) {
        if (w.empty()) continue;
        if (w[0] == "comment" || w[0] == "obj_info") continue;
        if (w[0] == "end_header") {
            ended = true;
            break;
        }
        if (w[0] == "format") {
            if (w.size() != 3 || w[2] != "1.0") throw InputError(path, line, "expected 'format ascii|binary_little_endian|binary_big_endian 1.0'");
            if (w[1] == "ascii") format = Format::Ascii;
            else if (w[1] == "binary_little_endian") format = Format::BinaryLE;
            else if (w[1] == "binary_big_endian") format = Format::BinaryBE;
            else throw InputError(path, line, "unknown format '" + w[1] + "'");
            have_format = true;
        } else if (w[0] == "element") {
            if (w.size() != 3) throw InputError(path, line, "expected 'element NAME COUNT'");
            Element e;
            e.name = w[1];
            e.line = line;
            char* end = nullptr;
            const unsigned long long n = std::strtoull(w[2].c_str(), &end, 10);
            if (w[2].empty() || *end != '\0' || w[2][0] == '-') throw InputError(path, line, "element count '" + w[2] + "' is not a count");
            if (n > kMaxCount) throw InputError(path, line, "element '" + e.name + "' declares " + w[2] + " entries (at most " + std::to_string(kMaxCount) + ")");
            e.count = n;
            elements.push_back(e);
        } else if (w[0] == "property") {
            if (elements.empty()) throw InputError(path, line, "'property' before any 'element'");
            Property p;
            if (w.size() == 5 && w[1] == "list") {
                p.list = true;
                if (!parse_type(w[2], p.count_type) || !is_integer(p.count_type))
                    throw InputError(path, line, "list count type '" + w[2] + "' must be an integer type");
                if (!parse_type(w[3], p.type)) throw InputError(path, line, "unknown type '" + w[3] + "'");
                p.name = w[4];
            } else if (w.size() == 3 && w[1] != "list") {
                if (!parse_type(w[1], p.type)) throw InputError(path, line, "unknown type '" + w[1] + "'");
                p.name = w[2];
            } else {
                throw InputError(path, line, "expected 'property TYPE NAME' or 'property list COUNT_TYPE TYPE NAME'");
            }
            for (const Property& q : elements.back().props)
                if (q.name == p.name) throw InputError(path, line, "property '" + p.name + "' declared twice");
            elements.back().props.push_back(p);
        } else {
            throw InputError(path, line, "unknown header keyword '" + w[0] + "'");
        }
    }
    if (!ended) throw InputError(path, line, "the header has no 'end_header'");
    if (!have_format) throw InputError(path, line, "the header has no 'format' line");

    // What the vertex and face elements hold.
    const Element* vertex = nullptr;
    const Element* face = nullptr;
    for (const Element& e : elements) {
        if (e.name == "vertex") vertex = &e;
        if (e.name == "face") face = &e;
    }
    if (!vertex) throw InputError(path, line, "no 'element vertex'");
    if (!face) throw InputError(path, line, "no 'element face' (point clouds have no surface to render)");
    auto find = [](const Element& e, const char* name) {
        for (size_t i = 0; i < e.props.size(); ++i)
            if (e.props[i].name == name) return int(i);
        return -1;
    };
    const int px = find(*vertex, "x"), py = find(*vertex, "y"), pz = find(*vertex, "z");
    if (px < 0 || py < 0 || pz < 0) throw InputError(path, vertex->line, "element vertex needs properties x, y and z");
    const int nx = find(*vertex, "nx"), ny = find(*vertex, "ny"), nz = find(*vertex, "nz");
    const bool normals = nx >= 0 && ny >= 0 && nz >= 0;
    for (int k : {px, py, pz, nx, ny, nz})
        if (k >= 0 && vertex->props[size_t(k)].list) throw InputError(path, vertex->line, "vertex coordinates must not be lists");
    int pi = find(*face, "vertex_indices");
    if (pi < 0) pi = find(*face, "vertex_index");
    if (pi < 0 || !face->props[size_t(pi)].list || !is_integer(face->props[size_t(pi)].type))
        throw InputError(path, face->line, "element face needs an integer list property 'vertex_indices'");
    // A binary file must hold at least the fixed-size part of what it declares, before
    // anything that big is allocated.
    if (format != Format::Ascii) {
        size_t fixed = 0;
        for (const Element& e : elements) {
            size_t per = 0;
            for (const Property& p : e.props) per += p.list ? type_size(p.count_type) : type_size(p.type);
            fixed += size_t(e.count) * per;
        }
        if (fixed > bytes.size() - std::min(pos, bytes.size()))
            throw InputError(path, 0, "byte " + std::to_string(bytes.size()) + ": the file ends before the " +
                             std::to_string(fixed) + " bytes its header declares at least");
    }

    // --- the data ---
    DataReader r(path, bytes, std::min(pos, bytes.size()), line + 1, format);
    std::vector<Point3> positions;
    std::vector<glm::vec3> vnormals;
    std::vector<uint32_t> indices;  // 3 per triangle
    std::vector<uint32_t> poly;
    size_t dropped = 0;
    for (const Element& e : elements) {
        const bool is_vertex = &e == vertex, is_face = &e == face;
        if (is_vertex) {
            positions.reserve(size_t(e.count));
            if (normals) vnormals.reserve(size_t(e.count));
        }
        for (uint64_t k = 0; k < e.count; ++k) {
            double v[3] = {0, 0, 0}, n[3] = {0, 0, 0};
            for (size_t p = 0; p < e.props.size(); ++p) {
                const Property& prop = e.props[p];
                const std::string what = "'" + prop.name + "' of " + e.name + " " + std::to_string(k);
                if (prop.list) {
                    const double cnt = r.value(prop.count_type, what.c_str());
                    if (!(cnt >= 0 && cnt <= double(kMaxPolygon)))  // NaN fails too
                        r.fail(what + " has " + number_text(cnt) + " entries (0.." + std::to_string(kMaxPolygon) + ")");
                    if (is_face && int(p) == pi) poly.clear();
                    for (size_t j = 0; j < size_t(cnt); ++j) {
                        const double x = r.value(prop.type, what.c_str());
                        if (is_face && int(p) == pi) {
                            if (!(x >= 0 && x < double(vertex->count)))  // NaN fails too
                                r.fail("vertex index " + number_text(x) + " in face " + std::to_string(k) +
                                       " is out of range (" + std::to_string(vertex->count) + " vertices)");
                            poly.push_back(uint32_t(x));
                        }
                    }
                } else {
                    const double x = r.value(prop.type, what.c_str());
                    if (is_vertex) {
                        if (!std::isfinite(x)) r.fail(what + " is not a finite number");
                        if (int(p) == px) v[0] = x;
                        if (int(p) == py) v[1] = x;
                        if (int(p) == pz) v[2] = x;
                        if (int(p) == nx) n[0] = x;
                        if (int(p) == ny) n[1] = x;
                        if (int(p) == nz) n[2] = x;
                    }
                }
            }
            r.end_of_element(e.name.c_str());
            if (is_vertex) {
                positions.emplace_back(v[0], v[1], v[2]);
                if (normals) vnormals.emplace_back(float(n[0]), float(n[1]), float(n[2]));
            }
            if (is_face) {
                if (poly.size() < 3) {
                    ++dropped;
                    continue;
                }
                for (size_t j = 1; j + 1 < poly.size(); ++j) {
                    indices.push_back(poly[0]);
                    indices.push_back(poly[j]);
                    indices.push_back(poly[j + 1]);
                }
            }
        }
    }
    r.expect_end();

    // --- triangles, transformed ---
    const glm::dmat4 m(xform);
    const glm::dmat3 normal_matrix = glm::transpose(glm::inverse(glm::dmat3(m)));
    size_t added = 0, degenerate = 0;
    for (size_t t = 0; t + 2 < indices.size(); t += 3) {
        Triangle tri;
        Point3* out[3] = {&tri.v0, &tri.v1, &tri.v2};
        for (int c = 0; c < 3; ++c) *out[c] = Point3(m * glm::dvec4(positions[indices[t + size_t(c)]], 1.0));
        const glm::dvec3 cr = glm::cross(tri.v1 - tri.v0, tri.v2 - tri.v0);
        const double longest = std::max({glm::length(tri.v1 - tri.v0), glm::length(tri.v2 - tri.v0), glm::length(tri.v2 - tri.v1)});
        if (!(glm::length(cr) > 1e-12 * longest * longest)) {
            ++degenerate;
            continue;
        }
        tri.material = material.value_or(0u);
        if (normals) {
            glm::vec3* nout[3] = {&tri.n0, &tri.n1, &tri.n2};
            bool ok = true;
            for (int c = 0; c < 3; ++c) {
                const glm::dvec3 nn = normal_matrix * glm::dvec3(vnormals[indices[t + size_t(c)]]);
                const double len = glm::length(nn);
                ok = ok && len > 0.0 && std::isfinite(len);
                *nout[c] = ok ? glm::vec3(nn / len) : glm::vec3(0.0f);
            }
            tri.smooth = ok;
        }
        scene.triangles.push_back(tri);
        ++added;
    }
    if (degenerate + dropped > 0)
        scene.notes.push_back(path + ": dropped " + std::to_string(degenerate) + " degenerate triangle(s) and " +
                              std::to_string(dropped) + " face(s) with fewer than 3 vertices");
    return added;
}

Scene load_ply_scene(const std::string& path) {
    Scene scene;
    scene.name = path;
    Material grey;
    grey.name = "default";
    scene.add_material(grey);
    append_ply_mesh(scene, path, glm::mat4(1.0f), std::nullopt, "", 0);
    if (scene.triangles.empty()) throw InputError(path, 0, "PLY file has no (non-degenerate) faces");
    frame_mesh_scene(scene, path);
    return scene;
}

}  // namespace srt
