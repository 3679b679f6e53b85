// load_json.cpp - our JSON scene format (docs/scene-format.md).
//
// Every error names file:line:col. nlohmann's DOM forgets where values came from,
// so the document is built by our own SAX handler that reads through an iterator
// which records how far the lexer has read: at each SAX event that is the end of the
// token just scanned, and the token's start is found by skipping back over the
// separators since the previous event. Positions are kept per JSON pointer, so a
// semantic check deep in the scene ("radius must be > 0") can still point at the line.
#include "scene/load.h"

#include "core/error.h"

#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace srt {

namespace {

using ojson = nlohmann::ordered_json;  // keeps materials in file order (= their indices)

// Limits that keep a hostile or mistaken file from hanging the loader or eating memory.
// Big meshes belong in OBJ files, which are far more compact than JSON triangles.
constexpr size_t kMaxFileBytes = 32u << 20;
constexpr size_t kMaxValues = 2000000;
constexpr size_t kMaxDepth = 64;
constexpr size_t kMaxIncludeDepth = 16;
constexpr int kMaxImageSide = 16384;
constexpr int kMaxDepthLimit = 64;  // the command line's --depth range

// ---------------------------------------------------------------------------
// Positions
// ---------------------------------------------------------------------------

// A char iterator that records the offset of the last character dereferenced.
// nlohmann's iterator adapter dereferences each character exactly once.
class CountingIterator {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;

    CountingIterator(const char* base, const char* p, size_t* last) : base_(base), p_(p), last_(last) {}
    reference operator*() const {
        *last_ = static_cast<size_t>(p_ - base_);
        return *p_;
    }
    CountingIterator& operator++() {
        ++p_;
        return *this;
    }
    CountingIterator operator++(int) {
        CountingIterator old = *this;
        ++p_;
        return old;
    }
    bool operator==(const CountingIterator& o) const { return p_ == o.p_; }
    bool operator!=(const CountingIterator& o) const { return p_ != o.p_; }

private:
    const char* base_;
    const char* p_;
    size_t* last_;
};

std::string escape_pointer_token(const std::string& key) {
    std::string out;
    out.reserve(key.size());
    for (char c : key) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

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

// Builds the DOM (as nlohmann's json_sax_dom_parser does) and records positions.
class PositionSax {
public:
    using number_integer_t = ojson::number_integer_t;
    using number_unsigned_t = ojson::number_unsigned_t;
    using number_float_t = ojson::number_float_t;
    using string_t = ojson::string_t;
    using binary_t = ojson::binary_t;

    PositionSax(Doc& doc, const size_t* last_read) : doc_(doc), last_(last_read) {}

    bool null() { return scalar(nullptr, false); }
    bool boolean(bool v) { return scalar(v, false); }
    bool number_integer(number_integer_t v) { return scalar(v, true); }
    bool number_unsigned(number_unsigned_t v) { return scalar(v, true); }
    bool number_float(number_float_t v, const string_t&) { return scalar(v, true); }
    bool string(string_t& v) { return scalar(v, false); }
    bool binary(binary_t&) { return false; }  // not produced by the JSON parser

    bool start_object(std::size_t) { return open(ojson::object()); }
    bool start_array(std::size_t) { return open(ojson::array()); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool key(string_t& k) {
        const size_t start = value_start();
        scan_from_ = *last_ + 1;
        ojson* obj = stack_.back();
        if (obj->contains(k)) doc_.fail_offset(start, "duplicate key '" + k + "'");
        key_ = k;
        doc_.key_pos[pointers_.back() + "/" + escape_pointer_token(k)] = static_cast<uint32_t>(start);
        return true;
    }

    template <class Exception>
    bool parse_error(std::size_t position, const std::string&, const Exception& ex) {
        // The message after "...column N: " says what was wrong; we supply the place.
        std::string msg = ex.what();
        const size_t col = msg.find("column ");
        if (col != std::string::npos) {
            const size_t colon = msg.find(": ", col);
            if (colon != std::string::npos) msg = msg.substr(colon + 2);
        } else if (!msg.empty() && msg[0] == '[') {
            const size_t close = msg.find("] ");  // "[json.exception.out_of_range.406] ..."
            if (close != std::string::npos) msg = msg.substr(close + 2);
        }
        if (msg.compare(0, 12, "syntax error") != 0) msg = "JSON syntax error: " + msg;
        doc_.fail_offset(position > 0 ? position - 1 : 0, msg);
    }

private:
    // The first character of the token just scanned: skip whitespace and the
    // separators that lie between the previous event's token and this one.
    size_t value_start() const {
        size_t i = scan_from_;
        const std::string& t = doc_.text;
        while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r' ||
                                t[i] == ',' || t[i] == ':'))
            ++i;
        return std::min(i, *last_);
    }

    void count_value(size_t start) {
        if (++values_ > kMaxValues)
            doc_.fail_offset(start, "too many JSON values (limit " + std::to_string(kMaxValues) +
                                        "); put large meshes in an OBJ file");
    }

    // Adds a value to the current container; returns it and its pointer.
    ojson* insert(ojson&& v, std::string& ptr) {
        if (stack_.empty()) {
            doc_.root = std::move(v);
            ptr.clear();
            return &doc_.root;
        }
        ojson* top = stack_.back();
        if (top->is_array()) {
            ptr = pointers_.back() + "/" + std::to_string(top->size());
            top->push_back(std::move(v));
            return &top->back();
        }
        ptr = pointers_.back() + "/" + escape_pointer_token(key_);
        ojson& slot = (*top)[key_];
        slot = std::move(v);
        return &slot;
    }

    template <class T>
    bool scalar(T&& v, bool is_number) {
        const size_t start = value_start();
        // A number ends where the lexer saw the next character, which it then put back.
        scan_from_ = is_number ? *last_ : *last_ + 1;
        count_value(start);
        // Numbers inside arrays (the bulk of any scene: coordinates) are not recorded;
        // an error about one points at its array, which is on the same line in practice.
        const bool skip = is_number && !stack_.empty() && stack_.back()->is_array();
        std::string ptr;
        insert(ojson(std::forward<T>(v)), ptr);
        if (!skip) doc_.value_pos[ptr] = static_cast<uint32_t>(start);
        return true;
    }

    bool open(ojson&& v) {
        const size_t start = value_start();
        scan_from_ = *last_ + 1;
        count_value(start);
        if (stack_.size() >= kMaxDepth)
            doc_.fail_offset(start, "JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
        std::string ptr;
        ojson* node = insert(std::move(v), ptr);
        doc_.value_pos[ptr] = static_cast<uint32_t>(start);
        stack_.push_back(node);
        pointers_.push_back(ptr);
        return true;
    }

    bool close() {
        scan_from_ = *last_ + 1;
        stack_.pop_back();
        pointers_.pop_back();
        return true;
    }

    Doc& doc_;
    const size_t* last_;
    size_t scan_from_ = 0;
    size_t values_ = 0;
    std::vector<ojson*> stack_;
    std::vector<std::string> pointers_;
    std::string key_;
};

void parse_doc(Doc& doc) {
    doc.index_lines();
    size_t last = 0;
    const char* b = doc.text.data();
    CountingIterator first(b, b, &last), end(b, b + doc.text.size(), &last);
    PositionSax sax(doc, &last);
    if (!ojson::sax_parse(first, end, &sax)) doc.fail_offset(last, "JSON syntax error");
}

// ---------------------------------------------------------------------------
// Semantic helpers
// ---------------------------------------------------------------------------

size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t sub = prev[j - 1] + (std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                                                      std::tolower(static_cast<unsigned char>(b[j - 1]))
                                                  ? 0
                                                  : 1);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

// " (did you mean 'x'?)" when some candidate is close enough to be a likely typo.
std::string suggestion(const std::string& word, const std::vector<std::string>& candidates) {
    std::string best;
    size_t best_d = std::string::npos;
    for (const std::string& c : candidates) {
        const size_t d = edit_distance(word, c);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    const size_t limit = std::max<size_t>(2, word.size() / 3);
    if (best.empty() || best_d > limit) return "";
    return " (did you mean '" + best + "'?)";
}

const char* type_name(const ojson& v) {
    switch (v.type()) {
        case ojson::value_t::null: return "null";
        case ojson::value_t::boolean: return "a boolean";
        case ojson::value_t::string: return "a string";
        case ojson::value_t::array: return "an array";
        case ojson::value_t::object: return "an object";
        default: return "a number";
    }
}

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
        if (!x.is_number()) fail(name + " must be a number, not " + type_name(x));
        const double d = x.get<double>();
        if (!std::isfinite(d) || std::fabs(d) > FLT_MAX) fail(name + " is not a finite number");
        return static_cast<float>(d);
    }
    int integer(int lo, int hi) const {
        if (!v->is_number_integer()) fail(what + " must be an integer, not " + type_name(*v));
        const double d = v->get<double>();
        if (d < lo || d > hi)
            fail(what + " must be in " + std::to_string(lo) + ".." + std::to_string(hi));
        return static_cast<int>(d);
    }
    glm::vec3 vec3() const {
        if (!v->is_array() || v->size() != 3)
            fail(what + " must be an array of 3 numbers" +
                 (v->is_array() ? ", not " + std::to_string(v->size()) : std::string(", not ") + type_name(*v)));
        return {number_of((*v)[0], what + "[0]"), number_of((*v)[1], what + "[1]"),
                number_of((*v)[2], what + "[2]")};
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

// ---------------------------------------------------------------------------
// Scene building
// ---------------------------------------------------------------------------

class JsonSceneBuilder {
public:
    explicit JsonSceneBuilder(Scene& scene) : scene_(scene) { material_ids_["default"] = 0; }

    void load(const std::string& path, bool top, const Node* included_at) {
        namespace fs = std::filesystem;
        std::error_code ec;
        fs::path canon = fs::weakly_canonical(fs::path(path), ec);
        const std::string key = ec ? path : canon.string();
        if (std::find(chain_keys_.begin(), chain_keys_.end(), key) != chain_keys_.end()) {
            std::string msg = "recursive include: ";
            for (const std::string& f : chain_names_) msg += f + " -> ";
            included_at->fail(msg + path);
        }
        if (chain_keys_.size() >= kMaxIncludeDepth)
            included_at->fail("includes nested deeper than " + std::to_string(kMaxIncludeDepth) + " levels");

        auto doc = std::make_unique<Doc>();
        doc->file = path;
        // A device or FIFO ("include": ["/dev/zero"]) would be read until memory runs
        // out (its size says 0), or block forever.
        const auto st = fs::status(path, ec);
        if (!ec && fs::exists(st) && !fs::is_regular_file(st)) {
            if (included_at) included_at->fail("included file '" + path + "' is not a regular file");
            throw InputError(path, 0, "not a regular file");
        }
        if (!read_file(path, doc->text)) {
            if (included_at) included_at->fail("included file '" + path + "' not found");
            throw InputError(path, 0, "cannot open scene file");
        }
        if (doc->text.size() > kMaxFileBytes)
            throw InputError(path, 0, "scene file is larger than " + std::to_string(kMaxFileBytes >> 20) +
                                          " MiB; put large meshes in an OBJ file");
        parse_doc(*doc);
        const Doc& d = *docs_.emplace_back(std::move(doc));

        chain_keys_.push_back(key);
        chain_names_.push_back(path);
        Node root{&d, &d.root, "", "the scene"};
        root.object("an object");
        static const std::vector<std::string> top_keys = {"camera", "background", "render", "materials",
                                                          "lights", "objects", "include"};
        root.check_keys(top_keys, "the scene");

        if (Node inc = root.member("include", "'include'")) {
            inc.array();
            for (size_t i = 0; i < inc.v->size(); ++i) {
                Node e = inc.element(i);
                load(resolve(path, e.str()), false, &e);
            }
        }
        if (top) {
            if (Node cam = root.member("camera", "'camera'")) read_camera(cam);
            else root.fail("the scene is missing 'camera'");
            if (Node bg = root.member("background", "'background'")) scene_.background = bg.colour();
            if (Node r = root.member("render", "'render'")) read_render(r);
        } else {
            for (const char* k : {"camera", "background", "render"})
                if (Node n = root.member(k, k))
                    std::cerr << d.where(n.offset()) << ": warning: '" << k
                              << "' in an included file is ignored (only the top-level file sets it)\n";
        }
        if (Node mats = root.member("materials", "'materials'")) read_materials(mats);
        if (Node lights = root.member("lights", "'lights'")) {
            lights.array();
            for (size_t i = 0; i < lights.v->size(); ++i) read_light(lights.element(i));
        }
        if (Node objs = root.member("objects", "'objects'")) {
            objs.array();
            for (size_t i = 0; i < objs.v->size(); ++i) read_object(objs.element(i));
        }
        chain_keys_.pop_back();
        chain_names_.pop_back();
    }

private:
    static bool read_file(const std::string& path, std::string& out) {
        std::ifstream in(path, std::ios::binary);
        if (!in) return false;
        // Check the size before reading, so a huge file is refused without reading it.
        in.seekg(0, std::ios::end);
        const std::streamoff size = in.tellg();
        in.seekg(0, std::ios::beg);
        if (size < 0) return false;
        if (static_cast<size_t>(size) > kMaxFileBytes) {
            out.assign(kMaxFileBytes + 1, ' ');
            return true;
        }
        std::ostringstream ss;
        ss << in.rdbuf();
        out = ss.str();
        return true;
    }

    static std::string resolve(const std::string& base, const std::string& rel) {
        if (!rel.empty() && rel[0] == '/') return rel;
        const size_t slash = base.find_last_of('/');
        return slash == std::string::npos ? rel : base.substr(0, slash + 1) + rel;
    }

    void read_camera(const Node& n) {
        n.object("an object");
        n.check_keys({"from", "at", "up", "fov"}, "'camera'");
        Camera& c = scene_.camera;
        c.from = n.require("from", "'camera'").vec3();
        c.at = n.require("at", "'camera'").vec3();
        if (Node up = n.member("up", "camera 'up'")) c.up = up.vec3();
        if (Node fov = n.member("fov", "camera 'fov'")) {
            c.fov_deg = fov.number();
            if (!(c.fov_deg > 0.0f && c.fov_deg < 180.0f)) fov.fail("camera 'fov' must be in (0, 180) degrees");
        }
        if (glm::length(c.at - c.from) == 0.0f) n.fail("camera 'from' equals 'at'");
        if (glm::length(glm::cross(c.at - c.from, c.up)) == 0.0f)
            n.fail("camera 'up' is zero or parallel to the view direction");
    }

    void read_render(const Node& n) {
        n.object("an object");
        n.check_keys({"width", "height", "depth"}, "'render'");
        if (Node w = n.member("width", "render 'width'")) scene_.width = w.integer(1, kMaxImageSide);
        if (Node h = n.member("height", "render 'height'")) scene_.height = h.integer(1, kMaxImageSide);
        if (Node d = n.member("depth", "render 'depth'")) scene_.depth = d.integer(1, kMaxDepthLimit);
    }

    void read_materials(const Node& n) {
        n.object("an object of named materials");
        for (auto it = n.v->begin(); it != n.v->end(); ++it) {
            const std::string name = it.key();
            Node m = n.member(name, "material '" + name + "'");
            m.object("an object");
            m.check_keys({"colour", "kd", "kr"}, "material '" + name + "'");
            Material mat;
            mat.name = name;
            if (Node c = m.member("colour", "material '" + name + "' 'colour'")) mat.colour = c.colour();
            if (Node kd = m.member("kd", "material '" + name + "' 'kd'")) {
                mat.kd = kd.number();
                if (mat.kd < 0.0f) kd.fail("'kd' must be >= 0");
            }
            if (Node kr = m.member("kr", "material '" + name + "' 'kr'")) {
                mat.kr = kr.v->is_number() ? glm::vec3(kr.number()) : kr.vec3();
                // Above 1 a mirror adds energy at every bounce.
                for (int i = 0; i < 3; ++i)
                    if (mat.kr[i] < 0.0f || mat.kr[i] > 1.0f) kr.fail("'kr' must be in [0, 1]");
            }
            auto found = material_ids_.find(name);
            if (name == "default" && !default_defined_) {
                // "default" is material 0, which always exists; a file may restyle it once.
                scene_.materials[0] = mat;
                default_defined_ = true;
                material_where_[name] = m.doc->where(m.offset());
            } else if (found != material_ids_.end()) {
                m.fail("material '" + name + "' is already defined at " + material_where_[name]);
            } else {
                material_ids_[name] = scene_.add_material(mat);
                material_where_[name] = m.doc->where(m.offset());
            }
        }
    }

    uint32_t material_ref(const Node& n) {
        if (n.v->is_number_integer()) {
            const double i = n.v->get<double>();
            if (i < 0 || i >= static_cast<double>(scene_.materials.size()))
                n.fail("material index " + n.v->dump() + " out of range (" +
                       std::to_string(scene_.materials.size()) + " materials)");
            return static_cast<uint32_t>(i);
        }
        const std::string name = n.str();
        auto it = material_ids_.find(name);
        if (it == material_ids_.end()) {
            std::vector<std::string> names;
            for (const auto& kv : material_ids_) names.push_back(kv.first);
            std::sort(names.begin(), names.end());
            n.fail("unknown material '" + name + "'" + suggestion(name, names));
        }
        return it->second;
    }

    void read_light(const Node& n) {
        n.object("an object");
        const std::string type = n.require("type", "light").str();
        Light l;
        if (Node c = n.member("colour", "light 'colour'")) l.colour = c.colour();
        if (type == "point") {
            n.check_keys({"type", "position", "colour"}, "point light");
            l.type = LightType::Point;
            l.position = n.require("position", "point light").vec3();
        } else if (type == "directional") {
            n.check_keys({"type", "direction", "colour"}, "directional light");
            l.type = LightType::Directional;
            Node d = n.require("direction", "directional light");
            const glm::vec3 dir = d.vec3();
            if (glm::length(dir) == 0.0f) d.fail("directional light 'direction' must not be zero");
            l.direction = glm::normalize(dir);
        } else {
            n.member("type", "").fail("unknown light type '" + type + "'" +
                                      suggestion(type, {"point", "directional"}));
        }
        scene_.lights.push_back(l);
    }

    void read_object(const Node& n) {
        n.object("an object");
        const std::string type = n.require("type", "object").str();
        if (type == "sphere") {
            n.check_keys({"type", "centre", "radius", "material"}, "sphere");
            Sphere s;
            s.centre = n.require("centre", "sphere").vec3();
            Node r = n.require("radius", "sphere");
            s.radius = r.number();
            if (!(s.radius > 0.0f)) r.fail("sphere 'radius' must be > 0");
            if (Node m = n.member("material", "sphere 'material'")) s.material = material_ref(m);
            scene_.spheres.push_back(s);
        } else if (type == "plane") {
            n.check_keys({"type", "point", "normal", "material", "checker"}, "plane");
            Plane p;
            p.point = n.require("point", "plane").vec3();
            Node nn = n.require("normal", "plane");
            const glm::vec3 normal = nn.vec3();
            if (glm::length(normal) == 0.0f) nn.fail("plane 'normal' must not be zero");
            p.normal = glm::normalize(normal);
            if (Node m = n.member("material", "plane 'material'")) p.material = material_ref(m);
            if (Node c = n.member("checker", "plane 'checker'")) {
                c.object("an object");
                c.check_keys({"colour", "size"}, "plane 'checker'");
                p.checker = true;
                if (Node cc = c.member("colour", "checker 'colour'")) p.checker_colour = cc.colour();
                if (Node cs = c.member("size", "checker 'size'")) {
                    p.checker_size = cs.number();
                    if (!(p.checker_size > 0.0f)) cs.fail("checker 'size' must be > 0");
                }
            }
            scene_.planes.push_back(p);
        } else if (type == "triangle") {
            n.check_keys({"type", "v0", "v1", "v2", "material"}, "triangle");
            Triangle t;
            t.v0 = n.require("v0", "triangle").vec3();
            t.v1 = n.require("v1", "triangle").vec3();
            t.v2 = n.require("v2", "triangle").vec3();
            if (glm::length(glm::cross(t.v1 - t.v0, t.v2 - t.v0)) == 0.0f)
                n.fail("triangle has zero area");
            if (Node m = n.member("material", "triangle 'material'")) t.material = material_ref(m);
            scene_.triangles.push_back(t);
        } else if (type == "mesh") {
            n.check_keys({"type", "file", "transform", "material"}, "mesh");
            Node f = n.require("file", "mesh");
            const std::string file = resolve(n.doc->file, f.str());
            glm::mat4 xform(1.0f);
            if (Node t = n.member("transform", "mesh 'transform'")) xform = read_transform(t);
            std::optional<uint32_t> override_mat;
            if (Node m = n.member("material", "mesh 'material'")) override_mat = material_ref(m);
            const size_t added = append_obj_mesh(scene_, file, xform, override_mat, n.doc->file, f.line());
            if (added == 0)
                std::cerr << n.doc->where(f.offset()) << ": warning: mesh '" << file << "' has no triangles\n";
        } else {
            n.member("type", "").fail("unknown object type '" + type + "'" +
                                      suggestion(type, {"sphere", "plane", "triangle", "mesh"}));
        }
    }

    // scale, then rotate about X, then Y, then Z, then translate.
    glm::mat4 read_transform(const Node& n) {
        n.object("an object");
        n.check_keys({"translate", "rotate", "scale"}, "mesh 'transform'");
        glm::vec3 t(0.0f), r(0.0f), s(1.0f);
        if (Node tn = n.member("translate", "transform 'translate'")) t = tn.vec3();
        if (Node rn = n.member("rotate", "transform 'rotate'")) r = rn.vec3();
        if (Node sn = n.member("scale", "transform 'scale'")) {
            s = sn.v->is_number() ? glm::vec3(sn.number()) : sn.vec3();
            // A zero scale flattens every triangle to nothing.
            if (s.x == 0.0f || s.y == 0.0f || s.z == 0.0f) sn.fail("transform 'scale' must not be 0");
        }
        glm::mat4 m = glm::translate(glm::mat4(1.0f), t);
        m = glm::rotate(m, glm::radians(r.z), glm::vec3(0, 0, 1));
        m = glm::rotate(m, glm::radians(r.y), glm::vec3(0, 1, 0));
        m = glm::rotate(m, glm::radians(r.x), glm::vec3(1, 0, 0));
        return glm::scale(m, s);
    }

    Scene& scene_;
    std::vector<std::unique_ptr<Doc>> docs_;  // kept alive: nodes of includers point into them
    std::vector<std::string> chain_keys_, chain_names_;
    std::unordered_map<std::string, uint32_t> material_ids_;
    std::unordered_map<std::string, std::string> material_where_;
    bool default_defined_ = false;
};

}  // namespace

Scene load_json_scene(const std::string& path) {
    Scene scene;
    scene.name = path;
    Material grey;
    grey.name = "default";
    scene.add_material(grey);  // material 0 always exists
    JsonSceneBuilder builder(scene);
    builder.load(path, true, nullptr);
    validate(scene);
    return scene;
}

}  // namespace srt
