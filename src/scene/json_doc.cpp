// json_doc.cpp - JSON with positions (json_doc.h).
#include "scene/json_doc.h"

#include "core/edit_distance.h"

#include <glm/glm.hpp>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace srt::json_doc {

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

// " (did you mean 'x'?)" when some candidate is close enough to be a likely typo.
std::string suggestion(const std::string& word, const std::vector<std::string>& candidates) {
    const std::string best = closest(word, candidates, std::max<size_t>(2, word.size() / 3));
    return best.empty() ? "" : " (did you mean '" + best + "'?)";
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

}  // namespace srt::json_doc
