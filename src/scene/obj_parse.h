// obj_parse.h - the OBJ reader's text pass (obj_parse.cpp): an OBJ file's statements read
// into per-triangle arrays, in pieces, on every core. load_obj.cpp turns the arrays into
// the scene's triangles. Internal to src/scene/.
#pragma once

#include "scene/obj_mtl.h"
#include "scene/scene.h"

#include <glm/glm.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace srt::obj {

// An OBJ file's faces, fan-triangulated, in file order, before any transform.
struct ObjMesh {
    std::vector<Point3> corners;            // 3 per triangle, object space
    std::vector<glm::vec3> corner_normals;  // 3 per triangle when every corner has a 'vn' (else zero)
    std::vector<uint8_t> tri_smooth;        // 1: that triangle's three corners have normals
    std::vector<glm::vec2> corner_uvs;      // 3 per triangle when every corner has a 'vt' (else zero)
    std::vector<uint8_t> tri_has_uv;
    std::vector<int> tri_group;  // usemtl run of each triangle
    std::vector<int> group_mtl;  // material (index into lib.mtls, -1 = none) of each run
    MtlLibrary lib;
    size_t ignored_elements = 0;  // points and lines: no area, nothing to render
    std::vector<std::string> unknown_mtls;
    std::vector<std::string> warnings;  // copied into scene.notes
};

// How the text is cut: pieces of about `piece_bytes`, each ending at a line's end, read
// by up to `threads` threads. 0: the defaults (1 MiB; every core). The result does not
// depend on either, bit for bit, errors included (tests/test_obj_pieces.cpp).
struct PieceOptions {
    size_t piece_bytes = 0;
    int threads = 0;
};

// Reads the OBJ text `text` of file `path`: the same triangles, notes and first error
// (InputError at path:line) that reading it statement by statement gives. mtllib files are
// read in file order, between the statements around them.
ObjMesh parse_obj(std::string_view text, const std::string& path, PieceOptions opt = {});

// Strict numbers, as parse_double (obj_text.h) has them, without a std::string: the whole
// token a finite decimal number within float range (no "inf", "nan", hex, or trailing
// characters), correctly rounded (fast_float), so the same double strtod gives.
bool parse_number(std::string_view tok, double& out);

}  // namespace srt::obj
