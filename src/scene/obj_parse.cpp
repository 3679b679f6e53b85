// obj_parse.cpp - see obj_parse.h. An OBJ file is one long list of statements whose only
// links to each other are counts: a face names the vertices defined before it, by number
// or counting back from the last. So the text is cut at line ends into pieces that are read
// at once, each counting its own v, vt and vn; prefix sums then give every piece where its
// counts start, and its faces are resolved and triangulated into their place in the
// output, in parallel again. What must run in file order is small and runs so: mtllib
// (reads MTL files), usemtl (names materials those defined), and the first error.
//
// The first error. A piece stops at its first malformed statement. Whether a face's index
// is out of range is known only after the prefix sums, so a face cut short by a malformed
// token keeps the corners read before it, whose ranges are checked first, as reading the
// statements one by one would. The file's first error is then the first of the first
// piece that has one, and the mtllib and usemtl statements before it run before it is
// thrown: the same error, message and line as a serial read (tests/test_obj_pieces.cpp).
#include "scene/obj_parse.h"

#include "core/error.h"
#include "core/load_progress.h"
#include "core/parallel.h"
#include "scene/obj_text.h"

#include <fast_float/fast_float.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <thread>

namespace srt::obj {

bool parse_number(std::string_view tok, double& out) {
    if (tok.empty()) return false;
    for (char c : tok)
        if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) return false;
    // strtod takes one leading '+', which from_chars does not.
    if (tok[0] == '+') {
        tok.remove_prefix(1);
        if (tok.empty() || tok[0] == '+' || tok[0] == '-') return false;
    }
    double v = 0.0;
    const auto r = fast_float::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (r.ptr != tok.data() + tok.size() || (r.ec != std::errc() && r.ec != std::errc::result_out_of_range)) return false;
    if (!std::isfinite(v) || std::fabs(v) > FLT_MAX) return false;
    out = v;
    return true;
}

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// tokenise (obj_text.h) on views: whitespace-separated, up to a '#'.
void split_line(std::string_view line, std::vector<std::string_view>& out) {
    out.clear();
    size_t i = 0;
    while (i < line.size()) {
        const char c = line[i];
        if (c == '#') break;
        if (is_space(c)) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < line.size() && !is_space(line[j]) && line[j] != '#') ++j;
        out.push_back(line.substr(i, j - i));
        i = j;
    }
}

// One face vertex's indices as written: 0 where absent (a written 0 is an error at once).
struct Corner {
    long long v = 0, vt = 0, vn = 0;
};
// A face: its corners, and this piece's counts of v, vt and vn before it.
struct Face {
    size_t first = 0;     // into Piece::corners
    uint32_t count = 0;   // its corners (those before a malformed one, where one is)
    uint32_t nv = 0, nvt = 0, nvn = 0;
    int line = 0;         // within the piece, from 0
    size_t line_begin = 0;
};
// A statement that must run in file order.
struct Ordered {
    bool usemtl = false;  // else mtllib
    int line = 0;
    size_t faces_before = 0;  // this piece's faces before it
    std::vector<std::string> args;  // the material's name; the libraries' files
};
struct Error {
    int line = -1;  // within the piece; -1: none
    std::string what;
    bool none() const { return line < 0; }
};

struct Piece {
    size_t begin = 0, end = 0;  // bytes of the text, whole lines
    int lines = 0;
    std::vector<Point3> positions;
    std::vector<glm::vec3> normals;
    std::vector<glm::vec2> texcoords;
    std::vector<Corner> corners;
    std::vector<Face> faces;
    std::vector<Ordered> ordered;
    size_t ignored = 0;
    Error parse_error;    // the first malformed statement; the piece stops there
    bool in_face = false;  // that statement is faces.back(), cut short
    Error range_error;    // the first index out of range (resolve)
    size_t triangles = 0;
    // After the prefix sums: where this piece's counts start in the file's.
    size_t v0 = 0, vt0 = 0, vn0 = 0, tri0 = 0;
    int line0 = 0;
    std::vector<std::pair<size_t, int>> runs;  // (first face, usemtl group) from the ordered pass
};

bool ignored_keyword(std::string_view kw) {
    static const char* const kIgnored[] = {"o",     "g",       "s",        "mg",    "vp",   "lod",  "usemap",
                                           "maplib", "shadow_obj", "trace_obj", "bevel", "c_interp", "d_interp",
                                           "cstype", "deg",     "bmat",     "step",  "curv", "curv2", "surf",
                                           "parm",  "trim",    "hole",     "scrv",  "sp",   "end",  "con",
                                           "call",  "csh"};
    for (const char* k : kIgnored)
        if (kw == k) return true;
    return false;
}

std::string str(std::string_view s) { return std::string(s); }

// Reads one piece's statements, stopping at its first malformed one.
void read_piece(std::string_view text, Piece& p) {
    std::vector<std::string_view> t;
    int line = -1;
    for (size_t pos = p.begin; pos < p.end;) {
        size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos || eol > p.end) eol = p.end;
        ++line;
        const size_t line_begin = pos;
        pos = eol + 1;
        split_line(text.substr(line_begin, eol - line_begin), t);
        if (t.empty()) continue;
        const std::string_view kw = t[0];
        auto fail = [&](std::string what) { p.parse_error = Error{line, std::move(what)}; };
        if (kw == "v") {
            // "v x y z [w]" and the common "v x y z r g b" vertex-colour extension.
            if (t.size() != 4 && t.size() != 5 && t.size() != 7)
                return fail("'v' expects 3 coordinates, got " + std::to_string(t.size() - 1));
            double c[3];
            for (int i = 0; i < 3; ++i)
                if (!parse_number(t[size_t(i) + 1], c[i])) return fail("malformed number '" + str(t[size_t(i) + 1]) + "' in 'v'");
            for (size_t i = 4; i < t.size(); ++i) {
                double dummy;
                if (!parse_number(t[i], dummy)) return fail("malformed number '" + str(t[i]) + "' in 'v'");
            }
            p.positions.emplace_back(c[0], c[1], c[2]);
        } else if (kw == "vt" || kw == "vn") {
            const size_t lo = kw == "vt" ? 1 : 3, hi = 3;
            if (t.size() - 1 < lo || t.size() - 1 > hi)
                return fail("'" + str(kw) + "' has " + std::to_string(t.size() - 1) + " numbers");
            float c[3] = {0, 0, 0};
            for (size_t i = 1; i < t.size(); ++i) {
                double d;
                if (!parse_number(t[i], d)) return fail("malformed number '" + str(t[i]) + "' in '" + str(kw) + "'");
                c[i - 1] = static_cast<float>(d);
            }
            if (kw == "vt") {
                // OBJ's v runs up from the image's bottom row; ours down from its top.
                p.texcoords.emplace_back(c[0], 1.0f - c[1]);
            } else {
                // Normalised here; a zero normal leaves its faces flat.
                const glm::vec3 n(c[0], c[1], c[2]);
                const float len = glm::length(n);
                p.normals.push_back(len > 0.0f && std::isfinite(len) ? n / len : glm::vec3(0.0f));
            }
        } else if (kw == "f") {
            if (t.size() < 4) return fail("face has " + std::to_string(t.size() - 1) + " vertices (at least 3 needed)");
            Face f;
            f.first = p.corners.size();
            f.nv = uint32_t(p.positions.size());
            f.nvt = uint32_t(p.texcoords.size());
            f.nvn = uint32_t(p.normals.size());
            f.line = line;
            f.line_begin = line_begin;
            // Each index as resolve_index reads it; the corner read so far is kept when a
            // later part of it is malformed (its range is checked before that error).
            auto index = [&](std::string_view tok, const char* what, long long& out) {
                if (!parse_long(tok, out)) {
                    fail(std::string("malformed ") + what + " index '" + str(tok) + "'");
                    return false;
                }
                if (out == 0) {
                    fail(std::string(what) + " index 0 is not valid (OBJ indices start at 1)");
                    return false;
                }
                return true;
            };
            bool ok = true;
            for (size_t i = 1; i < t.size() && ok; ++i) {
                const std::string_view vtx = t[i];
                Corner c;
                const size_t s1 = vtx.find('/');
                ok = index(vtx.substr(0, s1), "vertex", c.v);
                if (ok && s1 != std::string_view::npos) {
                    const size_t s2 = vtx.find('/', s1 + 1);
                    const std::string_view vt =
                        vtx.substr(s1 + 1, s2 == std::string_view::npos ? std::string_view::npos : s2 - s1 - 1);
                    if (s2 == std::string_view::npos) {
                        ok = index(vt, "texture coordinate", c.vt);
                    } else {
                        if (!vt.empty()) ok = index(vt, "texture coordinate", c.vt);
                        const std::string_view vn = vtx.substr(s2 + 1);
                        if (ok && vn.find('/') != std::string_view::npos) {
                            fail("malformed face vertex '" + str(vtx) + "'");
                            ok = false;
                        }
                        if (ok) ok = index(vn, "normal", c.vn);
                    }
                }
                // A corner whose vertex index was malformed holds nothing to check.
                if (c.v != 0) {
                    p.corners.push_back(c);
                    ++f.count;
                }
            }
            if (!ok) {
                p.faces.push_back(f);
                p.in_face = true;
                return;
            }
            p.triangles += f.count - 2;
            p.faces.push_back(f);
        } else if (kw == "usemtl") {
            const std::string name = rest_of_line(std::string(text.substr(line_begin, eol - line_begin)), 0,
                                                  eol - line_begin, "usemtl");
            if (name.empty()) return fail("'usemtl' without a name");
            p.ordered.push_back(Ordered{true, line, p.faces.size(), {name}});
        } else if (kw == "mtllib") {
            if (t.size() < 2) return fail("'mtllib' without a file name");
            Ordered o{false, line, p.faces.size(), {}};
            for (size_t i = 1; i < t.size(); ++i) o.args.emplace_back(t[i]);
            p.ordered.push_back(std::move(o));
        } else if (kw == "l" || kw == "p") {
            ++p.ignored;  // lines and points have no area
        } else if (ignored_keyword(kw)) {
            // Grouping, smoothing and free-form geometry: no part in a triangle renderer.
        } else {
            return fail("unknown OBJ statement '" + str(kw) + "'");
        }
    }
    p.lines = line + 1;
}

// One index against the count defined before its face: 0-based, or the error's message
// (`tok` as written, for it).
bool in_range(long long v, size_t count, size_t& idx) {
    const long long n = static_cast<long long>(count);
    const long long i = v > 0 ? v - 1 : n + v;
    if (i < 0 || i >= n) return false;
    idx = static_cast<size_t>(i);
    return true;
}

// Turns a piece's face indices into the file's (0-based, in place; vt and vn -1 where
// absent), recording its first index out of range.
void resolve_piece(std::string_view text, Piece& p) {
    std::vector<std::string_view> t;
    for (const Face& f : p.faces) {
        const size_t nv = p.v0 + f.nv, nvt = p.vt0 + f.nvt, nvn = p.vn0 + f.nvn;
        for (uint32_t k = 0; k < f.count; ++k) {
            Corner& c = p.corners[f.first + k];
            size_t v = 0, vt = 0, vn = 0;
            const char* what = nullptr;
            const char* plural = nullptr;
            size_t count = 0;
            int part = 0;  // which of the vertex's '/'-separated parts failed
            if (!in_range(c.v, nv, v)) {
                what = "vertex", plural = "vertices", count = nv, part = 0;
            } else if (c.vt != 0 && !in_range(c.vt, nvt, vt)) {
                what = "texture coordinate", plural = "texture coordinates", count = nvt, part = 1;
            } else if (c.vn != 0 && !in_range(c.vn, nvn, vn)) {
                what = "normal", plural = "normals", count = nvn, part = 2;
            }
            if (what != nullptr) {
                // The token as written, for the message: the face's line read again.
                const size_t eol = std::min(text.find('\n', f.line_begin), text.size());
                split_line(text.substr(f.line_begin, eol - f.line_begin), t);
                std::string_view tok = t[1 + k];
                for (int s = 0; s < part; ++s) tok = tok.substr(tok.find('/') + 1);
                tok = tok.substr(0, tok.find('/'));
                p.range_error = Error{f.line, std::string(what) + " index " + str(tok) + " out of range (" +
                                                  std::to_string(count) + " " + plural + " defined so far)"};
                return;
            }
            c.v = static_cast<long long>(v);
            c.vt = c.vt != 0 ? static_cast<long long>(vt) : -1;
            c.vn = c.vn != 0 ? static_cast<long long>(vn) : -1;
        }
    }
}

// The piece's first error: an index out of range comes before a malformed token of the
// same line (its corner was read first).
const Error& first_error(const Piece& p) {
    if (p.range_error.none()) return p.parse_error;
    if (p.parse_error.none()) return p.range_error;
    return p.range_error.line <= p.parse_error.line ? p.range_error : p.parse_error;
}

// Writes a piece's triangles into their place in `mesh` (its arrays sized already).
void emit_piece(const Piece& p, const std::vector<Point3>& positions, const std::vector<glm::vec3>& normals,
                const std::vector<glm::vec2>& texcoords, ObjMesh& mesh) {
    size_t tri = p.tri0;
    size_t run = 0;
    for (size_t fi = 0; fi < p.faces.size(); ++fi) {
        while (run + 1 < p.runs.size() && p.runs[run + 1].first <= fi) ++run;
        const int group = p.runs[run].second;
        const Face& f = p.faces[fi];
        const Corner* c = &p.corners[f.first];
        // Fan triangulation: exact for the convex polygons OBJ exporters write.
        for (uint32_t i = 1; i + 1 < f.count; ++i, ++tri) {
            const uint32_t k[3] = {0, i, i + 1};
            bool smooth = true;
            for (int j = 0; j < 3; ++j) {
                mesh.corners[3 * tri + size_t(j)] = positions[size_t(c[k[j]].v)];
                smooth = smooth && c[k[j]].vn >= 0 && normals[size_t(c[k[j]].vn)] != glm::vec3(0.0f);
            }
            for (int j = 0; j < 3; ++j)
                mesh.corner_normals[3 * tri + size_t(j)] = smooth ? normals[size_t(c[k[j]].vn)] : glm::vec3(0.0f);
            mesh.tri_smooth[tri] = smooth ? 1 : 0;
            const bool has_uv = c[0].vt >= 0 && c[i].vt >= 0 && c[i + 1].vt >= 0;
            for (int j = 0; j < 3; ++j)
                mesh.corner_uvs[3 * tri + size_t(j)] = has_uv ? texcoords[size_t(c[k[j]].vt)] : glm::vec2(0.0f);
            mesh.tri_has_uv[tri] = has_uv ? 1 : 0;
            mesh.tri_group[tri] = group;
        }
    }
}

// The first `used` pieces' `member` arrays, one after another (each piece's starts at its `at`).
template <class T>
void gather(const std::vector<Piece>& pieces, uint32_t used, size_t n, std::vector<T> Piece::*member,
            size_t Piece::*at, std::vector<T>& out, int threads) {
    out.resize(n);
    parallel_for(used, 1, threads, [&](uint32_t b, uint32_t e) {
        for (uint32_t i = b; i < e; ++i) {
            const std::vector<T>& from = pieces[i].*member;
            std::copy(from.begin(), from.end(), out.begin() + ptrdiff_t(pieces[i].*at));
        }
    });
}

}  // namespace

ObjMesh parse_obj(std::string_view text, const std::string& path, PieceOptions opt) {
    const size_t piece_bytes = opt.piece_bytes > 0 ? opt.piece_bytes : size_t(1) << 20;
    const int threads = opt.threads > 0 ? opt.threads : host_cores();

    // Cut at line ends.
    std::vector<Piece> pieces;
    for (size_t b = 0; b < text.size();) {
        size_t e = b + piece_bytes >= text.size() ? text.size() : text.find('\n', b + piece_bytes - 1);
        e = e == std::string_view::npos ? text.size() : std::min(text.size(), e + 1);
        pieces.emplace_back();
        pieces.back().begin = b;
        pieces.back().end = e;
        b = e;
    }
    const uint32_t n = uint32_t(pieces.size());
    load_progress::Stage stage("parse", text.size(), "bytes");
    parallel_for(n, 1, threads, [&](uint32_t b, uint32_t e) {
        for (uint32_t i = b; i < e; ++i) {
            read_piece(text, pieces[i]);
            load_progress::advance(pieces[i].end - pieces[i].begin);
        }
    });

    // Where each piece's counts start; nothing after the first piece that stopped early
    // is looked at again.
    uint32_t used = n;
    for (uint32_t i = 0; i < n; ++i)
        if (!pieces[i].parse_error.none()) {
            used = i + 1;
            break;
        }
    size_t nv = 0, nvt = 0, nvn = 0, ntri = 0;
    int lines = 0;
    for (uint32_t i = 0; i < used; ++i) {
        Piece& p = pieces[i];
        p.v0 = nv, p.vt0 = nvt, p.vn0 = nvn, p.tri0 = ntri, p.line0 = lines;
        nv += p.positions.size(), nvt += p.texcoords.size(), nvn += p.normals.size();
        ntri += p.triangles, lines += p.lines;
    }
    parallel_for(used, 1, threads, [&](uint32_t b, uint32_t e) {
        for (uint32_t i = b; i < e; ++i) resolve_piece(text, pieces[i]);
    });

    // In file order: mtllib, usemtl and the runs of faces between them, up to the first error.
    ObjMesh mesh;
    int current_group = -1, current_mtl = -1;
    auto faces_up_to = [&](Piece& p, size_t& next_face, size_t until) {
        if (until <= next_face) return;
        if (current_group < 0) {
            current_group = static_cast<int>(mesh.group_mtl.size());
            mesh.group_mtl.push_back(current_mtl);
        }
        if (p.runs.empty() || p.runs.back().second != current_group) p.runs.emplace_back(next_face, current_group);
        next_face = until;
    };
    for (uint32_t i = 0; i < used; ++i) {
        Piece& p = pieces[i];
        const Error& err = first_error(p);
        size_t next_face = 0;
        for (const Ordered& o : p.ordered) {
            if (!err.none() && err.line < o.line) break;
            faces_up_to(p, next_face, o.faces_before);
            const int line = p.line0 + o.line + 1;
            if (o.usemtl) {
                const std::string& name = o.args[0];
                auto it = mesh.lib.by_name.find(name);
                if (it == mesh.lib.by_name.end()) {
                    // A warning, not an error: McGuire's CornellBox-Glossy.obj uses a 'light'
                    // its MTL lacks, and other readers fall back to a default material too.
                    if (std::find(mesh.unknown_mtls.begin(), mesh.unknown_mtls.end(), name) == mesh.unknown_mtls.end()) {
                        mesh.unknown_mtls.push_back(name);
                        mesh.warnings.push_back(path + ":" + std::to_string(line) + ": unknown material '" + name +
                                                "' (not defined by any mtllib so far); its faces use the default material");
                    }
                    current_mtl = -1;
                } else {
                    current_mtl = it->second;
                }
                current_group = -1;  // a new usemtl run starts with the next face
            } else {
                for (const std::string& file : o.args) read_mtl(resolve_relative(path, file), path, line, mesh.lib);
            }
        }
        if (!err.none()) throw InputError(path, p.line0 + err.line + 1, err.what);
        faces_up_to(p, next_face, p.faces.size());
        mesh.ignored_elements += p.ignored;
    }

    // The file's v, vt and vn, then every piece's triangles in their place.
    std::vector<Point3> positions;
    std::vector<glm::vec3> normals;
    std::vector<glm::vec2> texcoords;
    gather(pieces, used, nv, &Piece::positions, &Piece::v0, positions, threads);
    gather(pieces, used, nvn, &Piece::normals, &Piece::vn0, normals, threads);
    gather(pieces, used, nvt, &Piece::texcoords, &Piece::vt0, texcoords, threads);
    mesh.corners.resize(3 * ntri);
    mesh.corner_normals.resize(3 * ntri);
    mesh.tri_smooth.resize(ntri);
    mesh.corner_uvs.resize(3 * ntri);
    mesh.tri_has_uv.resize(ntri);
    mesh.tri_group.resize(ntri);
    parallel_for(used, 1, threads, [&](uint32_t b, uint32_t e) {
        for (uint32_t i = b; i < e; ++i) emit_piece(pieces[i], positions, normals, texcoords, mesh);
    });
    return mesh;
}

}  // namespace srt::obj
