// obj_text.h - what the OBJ and MTL readers share (load_obj.cpp, load_mtl.cpp): their
// line-oriented text, strict numbers, and files read only when they are regular files.
// Internal to src/scene/.
#pragma once

#include <glm/glm.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace srt::obj {

// Only regular files are read: a device or FIFO named by a file ("mtllib /dev/zero")
// would otherwise be read until memory runs out, or block forever.
bool is_special_file(const std::string& path);
bool read_whole_file(const std::string& path, std::string& out);
// `rel` against the folder of `base_file` (an absolute `rel` as it is).
std::string resolve_relative(const std::string& base_file, const std::string& rel);

// Splits one line into whitespace-separated tokens, dropping a trailing '\r' and
// everything from '#' on (MTL files in the wild put comments after values).
void tokenise(const std::string& text, size_t begin, size_t end, std::vector<std::string>& out);

// Strict: the whole token must be a finite number that fits a float ("1e400", "nan",
// "1.5x" and "" are all errors).
bool parse_double(const std::string& tok, double& out);
bool parse_float(const std::string& tok, float& out);
bool parse_long(std::string_view tok, long long& out);

// Reads "Kd r [g b]" style colours: one value means grey. Throws InputError(file, line).
glm::vec3 parse_colour(const std::vector<std::string>& t, const std::string& file, int line);

// The rest of a line after its keyword, trimmed: material names may contain spaces.
std::string rest_of_line(const std::string& text, size_t begin, size_t end, const std::string& kw);

// Calls fn(line, tokens, line_begin, line_end) for each non-blank statement of an OBJ
// or MTL text (comments stripped by tokenise); lines are 1-based, and [line_begin,
// line_end) is the line's extent in `text`, for statements that take the rest of it.
template <class Fn>
void for_each_statement(const std::string& text, Fn&& fn) {
    std::vector<std::string> t;
    int line = 0;
    for (size_t pos = 0; pos < text.size();) {
        size_t eol = text.find('\n', pos);
        if (eol == std::string::npos) eol = text.size();
        ++line;
        tokenise(text, pos, eol, t);
        const size_t line_begin = pos;
        pos = eol + 1;
        if (!t.empty()) fn(line, t, line_begin, eol);
    }
}


}  // namespace srt::obj
