// json_doc.h - a JSON document that remembers where each value came from, for the JSON
// scene loader's file:line:col errors (load_json.cpp).
//
// nlohmann's DOM forgets where values came from, so the document is built by our own
// SAX handler that reads through an iterator which records how far the lexer has read:
// at each SAX event that is the end of the token just scanned, and the token's start is
// found by skipping back over the separators since the previous event. Positions are
// kept per JSON pointer, so a semantic check deep in the scene ("radius must be > 0") can
// still point at the line. Node is the accessor the scene builder reads values through.
#pragma once

#include "core/error.h"

#include <glm/glm.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <unordered_map>
#include <vector>

namespace srt::json_doc {

using ojson = nlohmann::ordered_json;  // keeps materials in file order (= their indices)

// Limits that keep a hostile or mistaken file from hanging the loader or eating memory.
// Big meshes belong in OBJ files, which are far more compact than JSON triangles.
constexpr size_t kMaxFileBytes = 32u << 20;
constexpr size_t kMaxValues = 2000000;
constexpr size_t kMaxDepth = 64;

std::string escape_pointer_token(const std::string& key);

struct Doc {
    std::string file;
    std::string text;
    std::vector<size_t> line_starts;
    ojson root;
    std::unordered_map<std::string, uint32_t> value_pos;  // JSON pointer -> byte offset
    std::unordered_map<std::string, uint32_t> key_pos;    // member pointer -> offset of its key

    void index_lines() {
        line_starts.assign(1, 0);
        for (size_t i = 0; i < text.size(); ++i)
            if (text[i] == '\n') line_starts.push_back(i + 1);
    }
    void line_col(size_t offset, int& line, int& col) const {
        auto it = std::upper_bound(line_starts.begin(), line_starts.end(), offset);
        const size_t li = static_cast<size_t>(it - line_starts.begin()) - 1;
        line = static_cast<int>(li + 1);
        col = static_cast<int>(offset - line_starts[li] + 1);
    }
    // The position of a pointer, or of its nearest recorded ancestor (numbers inside
    // arrays are not recorded, to keep memory proportional to the structure).
    size_t offset_of(std::string ptr) const {
        for (;;) {
            auto it = value_pos.find(ptr);
            if (it != value_pos.end()) return it->second;
            if (ptr.empty()) return 0;
            ptr.erase(ptr.find_last_of('/'));
        }
    }
    [[noreturn]] void fail_offset(size_t offset, const std::string& msg) const {
        int line = 0, col = 0;
        line_col(offset, line, col);
        throw InputError(file, line, col, msg);
    }
    std::string where(size_t offset) const {
        int line = 0, col = 0;
        line_col(offset, line, col);
        return file + ":" + std::to_string(line) + ":" + std::to_string(col);
    }
};

// Parses doc.text into doc.root, recording positions; throws InputError at the first
// syntax error or limit.
void parse_doc(Doc& doc);

// " (did you mean 'x'?)" for the closest of `candidates` to `word` (core/edit_distance.h),
// "" if none is close.
std::string suggestion(const std::string& word, const std::vector<std::string>& candidates);

// `rel` against the folder of the file `base` (an absolute `rel` as it is): how a scene
// names its includes, meshes and textures.
inline std::string resolve_path(const std::string& base, const std::string& rel) {
    if (!rel.empty() && rel[0] == '/') return rel;
    const size_t slash = base.find_last_of('/');
    return slash == std::string::npos ? rel : base.substr(0, slash + 1) + rel;
}
// "a string", "an array", ... for messages.
const char* type_name(const ojson& v);

// One value of a document, with its JSON pointer and a name for messages.
struct Node {
    const Doc* doc = nullptr;
    const ojson* v = nullptr;
    std::string ptr;
    std::string what;  // e.g. "sphere 'radius'"

    explicit operator bool() const { return v != nullptr; }
    size_t offset() const { return doc->offset_of(ptr); }
    [[noreturn]] void fail(const std::string& msg) const { doc->fail_offset(offset(), msg); }

    Node member(const std::string& key, const std::string& name) const {
        Node n{doc, nullptr, ptr + "/" + escape_pointer_token(key), name};
        auto it = v->find(key);
        if (it != v->end()) n.v = &*it;
        return n;
    }
    Node require(const std::string& key, const std::string& owner) const {
        Node n = member(key, owner + " '" + key + "'");
        if (!n) fail(owner + " is missing '" + key + "'");
        return n;
    }
    Node element(size_t i) const {
        return Node{doc, &(*v)[i], ptr + "/" + std::to_string(i), what + " [" + std::to_string(i) + "]"};
    }

    const ojson& object(const std::string& desc) const {
        if (!v->is_object()) fail(what + " must be " + desc + ", not " + type_name(*v));
        return *v;
    }
    const ojson& array() const {
        if (!v->is_array()) fail(what + " must be an array, not " + type_name(*v));
        return *v;
    }
    std::string str() const {
        if (!v->is_string()) fail(what + " must be a string, not " + type_name(*v));
        return v->get<std::string>();
    }
    float number() const { return number_of(*v, what); }
    float number_of(const ojson& x, const std::string& name) const {
        return static_cast<float>(double_of(x, name));
    }
    // Positions keep all the digits of the file (scene.h's Point3).
    double double_of(const ojson& x, const std::string& name) const {
        if (!x.is_number()) fail(name + " must be a number, not " + type_name(x));
        const double d = x.get<double>();
        if (!std::isfinite(d) || std::fabs(d) > FLT_MAX) fail(name + " is not a finite number");
        return d;
    }
    double number_double() const { return double_of(*v, what); }
    bool boolean() const {
        if (!v->is_boolean()) fail(what + " must be true or false, not " + type_name(*v));
        return v->get<bool>();
    }
    int integer(int lo, int hi) const {
        if (!v->is_number_integer()) fail(what + " must be an integer, not " + type_name(*v));
        const double d = v->get<double>();
        if (d < lo || d > hi)
            fail(what + " must be in " + std::to_string(lo) + ".." + std::to_string(hi));
        return static_cast<int>(d);
    }
    glm::vec3 vec3() const { return glm::vec3(point()); }
    glm::dvec3 point() const {
        if (!v->is_array() || v->size() != 3)
            fail(what + " must be an array of 3 numbers" +
                 (v->is_array() ? ", not " + std::to_string(v->size()) : std::string(", not ") + type_name(*v)));
        return {double_of((*v)[0], what + "[0]"), double_of((*v)[1], what + "[1]"),
                double_of((*v)[2], what + "[2]")};
    }
    glm::vec3 colour() const {
        const glm::vec3 c = vec3();
        if (c.x < 0.0f || c.y < 0.0f || c.z < 0.0f) fail(what + " components must be >= 0");
        return c;
    }
    int line() const {
        int line = 0, col = 0;
        doc->line_col(offset(), line, col);
        return line;
    }

    // Unknown keys are warnings, not errors: a newer file should still load, but a
    // typo ("raduis") must not pass silently.
    void check_keys(const std::vector<std::string>& allowed, const std::string& owner) const {
        for (auto it = v->begin(); it != v->end(); ++it) {
            if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
            const std::string mptr = ptr + "/" + escape_pointer_token(it.key());
            auto kp = doc->key_pos.find(mptr);
            const size_t off = kp != doc->key_pos.end() ? kp->second : offset();
            std::cerr << doc->where(off) << ": warning: unknown key '" << it.key() << "' in " << owner
                      << suggestion(it.key(), allowed) << "\n";
        }
    }
};

}  // namespace srt::json_doc
