// obj_text.cpp - see obj_text.h.
#include "scene/obj_text.h"

#include "core/error.h"

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace srt::obj {

bool is_special_file(const std::string& path) {
    std::error_code ec;
    const auto st = std::filesystem::status(path, ec);
    return !ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st);
}

bool read_whole_file(const std::string& path, std::string& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) return false;
    out = ss.str();
    return true;
}

namespace {
std::string dir_of(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

}  // namespace

std::string resolve_relative(const std::string& base_file, const std::string& rel) {
    if (!rel.empty() && rel[0] == '/') return rel;
    return dir_of(base_file) + rel;
}

void tokenise(const std::string& text, size_t begin, size_t end, std::vector<std::string>& out) {
    out.clear();
    size_t i = begin;
    while (i < end) {
        const char c = text[i];
        if (c == '#') break;
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < end && text[j] != ' ' && text[j] != '\t' && text[j] != '\r' && text[j] != '#' &&
               text[j] != '\f' && text[j] != '\v')
            ++j;
        out.emplace_back(text, i, j - i);
        i = j;
    }
}

bool parse_double(const std::string& tok, double& out) {
    if (tok.empty()) return false;
    const char* s = tok.c_str();
    // strtod accepts "inf", "nan" and hex floats; none belong in a scene file.
    for (char c : tok)
        if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
            return false;
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s, &end);
    if (end != s + tok.size() || !std::isfinite(v) || std::fabs(v) > FLT_MAX) return false;
    out = v;
    return true;
}
bool parse_float(const std::string& tok, float& out) {
    double v;
    if (!parse_double(tok, v)) return false;
    out = static_cast<float>(v);
    return true;
}

bool parse_long(std::string_view tok, long long& out) {
    if (tok.empty()) return false;
    size_t i = (tok[0] == '-' || tok[0] == '+') ? 1 : 0;
    if (i == tok.size()) return false;
    long long v = 0;
    for (; i < tok.size(); ++i) {
        if (tok[i] < '0' || tok[i] > '9') return false;
        if (v > 1000000000000LL) return false;  // far beyond any real index: reject, no overflow
        v = v * 10 + (tok[i] - '0');
    }
    out = tok[0] == '-' ? -v : v;
    return true;
}


glm::vec3 parse_colour(const std::vector<std::string>& t, const std::string& file, int line) {
    if (t.size() >= 2 && (t[1] == "spectral" || t[1] == "xyz"))
        throw InputError(file, line, "'" + t[0] + " " + t[1] + "' colours are not supported");
    if (t.size() != 2 && t.size() != 4)
        throw InputError(file, line, "'" + t[0] + "' expects 1 or 3 numbers, got " +
                                         std::to_string(t.size() - 1));
    float v[3];
    for (size_t i = 1; i < t.size(); ++i)
        if (!parse_float(t[i], v[i - 1]))
            throw InputError(file, line, "malformed number '" + t[i] + "' in '" + t[0] + "'");
    if (t.size() == 2) v[1] = v[2] = v[0];
    const glm::vec3 c(v[0], v[1], v[2]);
    if (c.x < 0.0f || c.y < 0.0f || c.z < 0.0f)
        throw InputError(file, line, "'" + t[0] + "' components must be >= 0");
    return c;
}


std::string rest_of_line(const std::string& text, size_t begin, size_t end, const std::string& kw) {
    size_t i = text.find(kw, begin);
    i = (i == std::string::npos || i >= end) ? end : i + kw.size();
    size_t j = end;
    const size_t hash = text.find('#', i);
    if (hash != std::string::npos && hash < j) j = hash;
    while (i < j && (text[i] == ' ' || text[i] == '\t')) ++i;
    while (j > i && (text[j - 1] == ' ' || text[j - 1] == '\t' || text[j - 1] == '\r')) --j;
    return text.substr(i, j - i);
}


}  // namespace srt::obj
