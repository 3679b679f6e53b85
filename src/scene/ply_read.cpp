// ply_read.cpp - the PLY header, and the serial reader of its data: one value after
// another, every value checked, errors as file:line (header, ASCII data) or as a byte
// offset (binary data). ply_chunks.cpp reads well-formed data faster; this reader is its
// oracle and the one that says what is wrong.
#include "scene/ply_read.h"

#include "core/error.h"

#include <fast_float/fast_float.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace srt::ply {

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

bool ascii_number(std::string_view tok, Type t, double& v, bool& malformed) {
    malformed = true;
    for (char c : tok)
        if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) return false;
    // fast_float, correctly rounded, gives strtod's double; what it does not take (a
    // leading '+', an underflow it reports as out of range) goes to strtod itself.
    const auto r = fast_float::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (r.ec != std::errc() || r.ptr != tok.data() + tok.size() || !std::isfinite(v)) {
        const std::string s(tok);
        char* end = nullptr;
        v = std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) return false;
    }
    malformed = false;
    return !(is_integer(t) && v != std::floor(v));
}

Header parse_header(std::string_view bytes, const std::string& path) {
    Header h;
    size_t pos = 0;
    int line = 0;
    auto next = [&](std::vector<std::string>& words) -> bool {
        if (pos >= bytes.size()) return false;
        size_t eol = bytes.find('\n', pos);
        if (eol == std::string_view::npos) eol = bytes.size();
        std::string text(bytes.substr(pos, eol - pos));
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
    bool have_format = false, ended = false;
    std::vector<Element>& elements = h.elements;
    while (next(w)) {
        if (w.empty()) continue;
        if (w[0] == "comment" || w[0] == "obj_info") continue;
        if (w[0] == "end_header") {
            ended = true;
            break;
        }
        if (w[0] == "format") {
            if (w.size() != 3 || w[2] != "1.0") throw InputError(path, line, "expected 'format ascii|binary_little_endian|binary_big_endian 1.0'");
            if (w[1] == "ascii") h.format = Format::Ascii;
            else if (w[1] == "binary_little_endian") h.format = Format::BinaryLE;
            else if (w[1] == "binary_big_endian") h.format = Format::BinaryBE;
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

    for (size_t i = 0; i < elements.size(); ++i) {
        if (elements[i].name == "vertex") h.vertex = int(i);
        if (elements[i].name == "face") h.face = int(i);
    }
    if (h.vertex < 0) throw InputError(path, line, "no 'element vertex'");
    if (h.face < 0) throw InputError(path, line, "no 'element face' (point clouds have no surface to render)");
    const Element& vertex = elements[size_t(h.vertex)];
    const Element& face = elements[size_t(h.face)];
    auto find = [](const Element& e, const char* name) {
        for (size_t i = 0; i < e.props.size(); ++i)
            if (e.props[i].name == name) return int(i);
        return -1;
    };
    h.px = find(vertex, "x"), h.py = find(vertex, "y"), h.pz = find(vertex, "z");
    if (h.px < 0 || h.py < 0 || h.pz < 0) throw InputError(path, vertex.line, "element vertex needs properties x, y and z");
    h.nx = find(vertex, "nx"), h.ny = find(vertex, "ny"), h.nz = find(vertex, "nz");
    h.normals = h.nx >= 0 && h.ny >= 0 && h.nz >= 0;
    for (int k : {h.px, h.py, h.pz, h.nx, h.ny, h.nz})
        if (k >= 0 && vertex.props[size_t(k)].list) throw InputError(path, vertex.line, "vertex coordinates must not be lists");
    h.pi = find(face, "vertex_indices");
    if (h.pi < 0) h.pi = find(face, "vertex_index");
    if (h.pi < 0 || !face.props[size_t(h.pi)].list || !is_integer(face.props[size_t(h.pi)].type))
        throw InputError(path, face.line, "element face needs an integer list property 'vertex_indices'");
    h.data_pos = std::min(pos, bytes.size());
    h.data_line = line + 1;
    // A binary file must hold at least the fixed-size part of what it declares, before
    // anything that big is allocated.
    if (h.format != Format::Ascii) {
        size_t fixed = 0;
        for (const Element& e : elements) {
            size_t per = 0;
            for (const Property& p : e.props) per += p.list ? type_size(p.count_type) : type_size(p.type);
            fixed += size_t(e.count) * per;
        }
        if (fixed > bytes.size() - h.data_pos)
            throw InputError(path, 0, "byte " + std::to_string(bytes.size()) + ": the file ends before the " +
                             std::to_string(fixed) + " bytes its header declares at least");
    }
    return h;
}

namespace {

// A value read from the file, for an error message: any double, printed without a cast
// to an integer type (1e61 or NaN would not fit one).
std::string number_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
}

// The data after the header: one reader for the three formats, each value checked.
class DataReader {
public:
    DataReader(const std::string& path, std::string_view bytes, size_t pos, int line, Format f)
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
        const double v = binary_value(t, bytes_.data() + pos_, format_ == Format::BinaryBE);
        pos_ += n;
        return v;
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
                if (!is_space(bytes_[pos_])) fail("data after the last element the header declares");
                if (bytes_[pos_] == '\n') ++line_;
                ++pos_;
            }
        } else if (pos_ != bytes_.size()) {
            value_at_ = pos_;
            fail(std::to_string(bytes_.size() - pos_) + " bytes after the last element the header declares");
        }
    }

private:
    void skip_blanks() {
        while (pos_ < bytes_.size() && is_blank(bytes_[pos_])) ++pos_;
    }
    void next_line() {
        while (pos_ < bytes_.size() && bytes_[pos_] != '\n') ++pos_;
        if (pos_ < bytes_.size()) ++pos_;
        ++line_;
    }
    double ascii_value(Type t, const char* what) {
        skip_blanks();
        const size_t start = pos_;
        while (pos_ < bytes_.size() && !is_space(bytes_[pos_])) ++pos_;
        const std::string_view tok = bytes_.substr(start, pos_ - start);
        if (tok.empty())
            fail(pos_ >= bytes_.size() ? std::string("the file ends before ") + what
                                       : std::string("missing ") + what + " (the line has fewer values than the header declares)");
        double v = 0.0;
        bool malformed = false;
        if (!ascii_number(tok, t, v, malformed)) {
            if (malformed) fail("malformed number '" + std::string(tok) + "' in " + what);
            fail("'" + std::string(tok) + "' in " + what + " is not an integer");
        }
        return v;
    }

    const std::string& path_;
    std::string_view bytes_;
    size_t pos_;
    int line_;
    Format format_;
    size_t value_at_ = 0;
};

}  // namespace

Mesh read_serial(std::string_view bytes, const Header& h, const std::string& path) {
    const Element* vertex = &h.elements[size_t(h.vertex)];
    const Element* face = &h.elements[size_t(h.face)];
    DataReader r(path, bytes, h.data_pos, h.data_line, h.format);
    Mesh out;
    std::vector<uint32_t> poly;
    for (const Element& e : h.elements) {
        const bool is_vertex = &e == vertex, is_face = &e == face;
        if (is_vertex) {
            // No more records than the bytes left could hold (a value takes a byte at least,
            // in either format): an ASCII header may declare any count, and the file is
            // read to its end before that is known.
            const size_t room = (bytes.size() - std::min(bytes.size(), h.data_pos)) / std::max<size_t>(1, e.props.size());
            const size_t n = size_t(std::min<uint64_t>(e.count, room));
            out.positions.reserve(n);
            if (h.normals) out.normals.reserve(n);
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
                    if (is_face && int(p) == h.pi) poly.clear();
                    for (size_t j = 0; j < size_t(cnt); ++j) {
                        const double x = r.value(prop.type, what.c_str());
                        if (is_face && int(p) == h.pi) {
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
                        if (int(p) == h.px) v[0] = x;
                        if (int(p) == h.py) v[1] = x;
                        if (int(p) == h.pz) v[2] = x;
                        if (int(p) == h.nx) n[0] = x;
                        if (int(p) == h.ny) n[1] = x;
                        if (int(p) == h.nz) n[2] = x;
                    }
                }
            }
            r.end_of_element(e.name.c_str());
            if (is_vertex) {
                out.positions.emplace_back(v[0], v[1], v[2]);
                if (h.normals) out.normals.emplace_back(float(n[0]), float(n[1]), float(n[2]));
            }
            if (is_face) {
                if (poly.size() < 3) {
                    ++out.dropped;
                    continue;
                }
                for (size_t j = 1; j + 1 < poly.size(); ++j) {
                    out.indices.push_back(poly[0]);
                    out.indices.push_back(poly[j]);
                    out.indices.push_back(poly[j + 1]);
                }
            }
        }
    }
    r.expect_end();
    return out;
}

Mesh read_data(std::string_view bytes, const Header& h, const std::string& path, ReadOptions opt) {
    Mesh m;
    if (!opt.serial && read_chunked(bytes, h, opt, m)) return m;
    return read_serial(bytes, h, path);
}

}  // namespace srt::ply
