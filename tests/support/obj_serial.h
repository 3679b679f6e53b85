// obj_serial.h - the OBJ text read one statement after another (obj_serial.cpp): the
// reference for the reader that reads it in pieces (src/scene/obj_parse.h).
#pragma once

#include "scene/obj_parse.h"

#include <string>

namespace srt::obj {

ObjMesh serial_parse_obj(const std::string& text, const std::string& path);

// Whether two readings are the same, bit for bit (every array, group, material, note and
// count); where not, `why` says what first differs.
bool same_mesh(const ObjMesh& a, const ObjMesh& b, std::string& why);

// Reads `text` both ways, in pieces as `opt` says and one statement after another: true
// when both give the same mesh or both throw the same message (`why` says what differs).
bool pieces_read_as_serial(const std::string& text, const std::string& path, PieceOptions opt, std::string& why);

}  // namespace srt::obj
