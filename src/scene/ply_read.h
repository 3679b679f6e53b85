// ply_read.h - the PLY reader's data pass (ply_read.cpp, ply_chunks.cpp): a PLY file's
// bytes into vertex positions, normals and triangle indices, before any transform.
// load_ply.cpp turns them into the scene's triangles. Internal to src/scene/.
//
// Two readers give the same arrays, bit for bit:
// - the serial reader, one value after another, which knows every error and says where;
// - the chunked reader, records in chunks on every core. It handles only well-formed
//   data: at its first doubt (a bad value, a short file, an ASCII line it cannot split)
//   it gives up and the serial reader reads the file again, so an error is the serial
//   reader's, message and place, whatever the chunking.
// Both decode a value with the same functions below.
#pragma once

#include "scene/scene.h"

#include <glm/glm.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace srt::ply {

enum class Type { I8, U8, I16, U16, I32, U32, F32, F64 };
enum class Format { Ascii, BinaryLE, BinaryBE };

bool parse_type(const std::string& s, Type& t);
inline size_t type_size(Type t) {
    switch (t) {
        case Type::I8: case Type::U8: return 1;
        case Type::I16: case Type::U16: return 2;
        case Type::I32: case Type::U32: case Type::F32: return 4;
        case Type::F64: return 8;
    }
    return 1;
}
inline bool is_integer(Type t) { return t != Type::F32 && t != Type::F64; }

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

// The header, checked: the elements in file order, which of them the mesh is read from,
// and where the data begins.
struct Header {
    Format format = Format::Ascii;
    std::vector<Element> elements;
    size_t data_pos = 0;  // the byte after end_header's line
    int data_line = 0;    // the line number of the first data line (ASCII)
    int vertex = -1, face = -1;  // indices into elements
    int px = -1, py = -1, pz = -1, nx = -1, ny = -1, nz = -1;  // vertex properties
    int pi = -1;  // the face's index list
    bool normals = false;
};
// Throws InputError at path:line for anything wrong in the header, and for a binary file
// shorter than the fixed-size part of what it declares.
Header parse_header(std::string_view bytes, const std::string& path);

// One binary value at p (type_size(t) bytes, which the caller has checked are there), as
// double: integers exactly.
inline double binary_value(Type t, const char* p, bool big_endian) {
    unsigned char b[8];
    const size_t n = type_size(t);
    std::memcpy(b, p, n);
    if (big_endian) std::reverse(b, b + n);
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

// ASCII values are separated by spaces and tabs; a token runs to the next whitespace.
inline bool is_blank(char c) { return c == ' ' || c == '\t'; }
inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// An ASCII token as a number of type t. Fails (false) on anything but a finite decimal
// number made of digits, '.', signs and exponents, and on a fraction for an integer type.
// `malformed` tells the two failures apart for the serial reader's message.
bool ascii_number(std::string_view tok, Type t, double& v, bool& malformed);

// The mesh as the file holds it.
struct Mesh {
    std::vector<Point3> positions;
    std::vector<glm::vec3> normals;  // one per position where the file has nx, ny, nz; else empty
    std::vector<uint32_t> indices;   // 3 per triangle, polygons fan-triangulated in file order
    size_t dropped = 0;              // faces with fewer than 3 corners
    bool chunked = false;            // read by the chunked reader (else by the serial one)
};

// How the data is cut: chunks of `grain` records (0: 65,536) on up to `threads` threads
// (0: every core). The result does not depend on either, bit for bit, errors included
// (tests/test_ply_chunks.cpp). `serial` reads it value after value, as the oracle.
struct ReadOptions {
    uint32_t grain = 0;
    int threads = 0;
    bool serial = false;
};

// The data of a file whose header is h.
Mesh read_data(std::string_view bytes, const Header& h, const std::string& path, ReadOptions opt = {});

// The two readers (read_data calls them): the serial one throws InputError at the first
// error; the chunked one returns false on anything it does not accept.
Mesh read_serial(std::string_view bytes, const Header& h, const std::string& path);
bool read_chunked(std::string_view bytes, const Header& h, ReadOptions opt, Mesh& out);

}  // namespace srt::ply
