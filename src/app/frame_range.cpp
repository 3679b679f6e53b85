// frame_range.cpp - see frame_range.h.
#include "app/frame_range.h"

#include "core/error.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace srt::app {

namespace {

bool parse_int(const std::string& s, long& out) {
    if (s.empty() || s.size() > 9) return false;
    for (char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    out = std::strtol(s.c_str(), nullptr, 10);
    return true;
}

// Walks `pattern`: calls on_text for literal text and on_number(width, zero_pad) for
// the frame number; throws on a bad directive.
template <class Text, class Number>
void walk(const std::string& pattern, Text on_text, Number on_number) {
    for (size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] != '%') {
            on_text(pattern[i]);
            continue;
        }
        size_t j = i + 1;
        if (j < pattern.size() && pattern[j] == '%') {
            on_text('%');
            i = j;
            continue;
        }
        const bool zero = j < pattern.size() && pattern[j] == '0';
        if (zero) ++j;
        int width = 0;
        while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j])) && width < 100)
            width = width * 10 + (pattern[j++] - '0');
        if (j >= pattern.size() || pattern[j] != 'd' || width > 12)
            throw InputError("-o " + pattern + ": only a frame number (%d, %04d) or %% may follow '%'");
        on_number(width, zero);
        i = j;
    }
}

}  // namespace

std::vector<int> parse_frames(const std::string& flag, const std::string& text, int count) {
    long a = 0, b = 0;
    const size_t dots = text.find("..");
    const bool range = dots != std::string::npos;
    const bool ok = range ? parse_int(text.substr(0, dots), a) && parse_int(text.substr(dots + 2), b)
                          : parse_int(text, a);
    if (!range) b = a;
    const std::string valid = count > 0 ? "0.." + std::to_string(count - 1) : "none";
    if (!ok) throw InputError(flag + " '" + text + "': expected " + (range || flag == "--frames" ? "A..B" : "K") +
                              " with whole numbers (frames of this scene: " + valid + ")");
    if (a > b) throw InputError(flag + " '" + text + "': the range runs backwards");
    if (b >= count)
        throw InputError(flag + " '" + text + "': the scene's animation has frames " + valid);
    std::vector<int> frames;
    for (long k = a; k <= b; ++k) frames.push_back(int(k));
    return frames;
}

bool has_frame_number(const std::string& pattern) {
    int numbers = 0;
    walk(pattern, [](char) {}, [&](int, bool) { ++numbers; });
    if (numbers > 1) throw InputError("-o " + pattern + ": more than one frame number");
    return numbers == 1;
}

std::string frame_file(const std::string& pattern, int k) {
    std::string out;
    walk(pattern, [&](char c) { out += c; },
         [&](int width, bool zero) {
             char buf[32];
             std::snprintf(buf, sizeof buf, zero ? "%0*d" : "%*d", width, k);
             out += buf;
         });
    return out;
}

}  // namespace srt::app
