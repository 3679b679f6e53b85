// kill.cpp - `--kill PATTERN:SURVIVAL` parsed into a KillPattern (render/kill.h).
#include "render/kill.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace srt {
namespace {

bool parse_fraction(const std::string& s, double& out) {
    if (s.empty()) return false;
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && out > 0.0 && out <= 1.0;
}

}  // namespace

std::string parse_kill(const std::string& text, KillPattern& out) {
    out = KillPattern{};
    if (text == "none") return "";
    const size_t colon = text.find(':');
    if (colon == std::string::npos)
        return "'" + text + "': expected PATTERN:SURVIVAL (ray, warp or blockK; a fraction in (0, 1] or pbrt), or none";
    const std::string pattern = text.substr(0, colon), survival = text.substr(colon + 1);
    if (pattern == "ray") {
        out.kind = KillKind::Ray;
    } else if (pattern == "warp") {
        out.kind = KillKind::Warp;
    } else if (pattern.rfind("block", 0) == 0) {
        out.kind = KillKind::Block;
        const std::string k = pattern.substr(5);
        char* end = nullptr;
        const long n = k.empty() ? 0 : std::strtol(k.c_str(), &end, 10);
        if (k.empty() || end != k.c_str() + k.size() || n < 1 || n > 4096)
            return "'" + pattern + "': a block pattern is blockK, K warp tiles a side (1 to 4096), as block4";
        out.block = uint32_t(n);
    } else {
        return "'" + pattern + "': the pattern is ray, warp or blockK (as block4)";
    }
    if (survival == "pbrt") {
        out.p = 0.0f;
        return "";
    }
    double p = 0.0;
    if (!parse_fraction(survival, p))
        return "'" + survival + "': the survival per bounce is a fraction in (0, 1], or pbrt (pbrt-v4's Cornell box)";
    out.p = float(p);
    if (!(out.p > 0.0f))  // below float's range: 0 would read as pbrt's schedule
        return "'" + survival + "': the survival per bounce is too small for a float";
    return "";
}

std::string to_string(const KillPattern& k) {
    if (!k.active()) return "none";
    std::string s = k.kind == KillKind::Ray ? "ray" : k.kind == KillKind::Warp ? "warp" : "block" + std::to_string(k.block);
    if (k.p == 0.0f) return s + ":pbrt";
    // The shortest text that reads back as the same float: 0.7 as given, not the
    // 0.699999988 that nine digits print, and still the float's own value.
    char buf[32];
    const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, k.p);
    return s + ":" + std::string(buf, r.ptr);
}

}  // namespace srt
