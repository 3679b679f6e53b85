// input_script.cpp - the scripted-input parser.
#include "viewer/input_script.h"

#include "core/error.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace srt::viewer {
namespace {

bool parse_int(const std::string& s, long lo, long hi, int& out) {
    if (s.empty()) return false;
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(s.c_str(), &end, 10);
    if (*end != '\0' || errno == ERANGE || v < lo || v > hi) return false;
    out = int(v);
    return true;
}

bool parse_num(const std::string& s, double& out) {
    if (s.empty()) return false;
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (*end != '\0' || !std::isfinite(v) || std::fabs(v) > 1e6) return false;
    out = v;
    return true;
}

int action_from_name(const std::string& s) {
    if (s == "press") return GLFW_PRESS;
    if (s == "release") return GLFW_RELEASE;
    if (s == "repeat") return GLFW_REPEAT;
    return -1;
}

}  // namespace

int key_from_name(const std::string& raw) {
    std::string n = raw;
    for (char& c : n) c = char(std::toupper(static_cast<unsigned char>(c)));
    if (n.size() == 1 && n[0] >= 'A' && n[0] <= 'Z') return GLFW_KEY_A + (n[0] - 'A');
    if (n.size() == 1 && n[0] >= '0' && n[0] <= '9') return GLFW_KEY_0 + (n[0] - '0');
    static const struct { const char* name; int key; } kNamed[] = {
        {"[", GLFW_KEY_LEFT_BRACKET},   {"LEFT_BRACKET", GLFW_KEY_LEFT_BRACKET},
        {"]", GLFW_KEY_RIGHT_BRACKET},  {"RIGHT_BRACKET", GLFW_KEY_RIGHT_BRACKET},
        {"ESC", GLFW_KEY_ESCAPE},       {"ESCAPE", GLFW_KEY_ESCAPE},
        {"SPACE", GLFW_KEY_SPACE},      {"ENTER", GLFW_KEY_ENTER},
        {"TAB", GLFW_KEY_TAB},          {"LEFT_SHIFT", GLFW_KEY_LEFT_SHIFT},
        {"LEFT_CONTROL", GLFW_KEY_LEFT_CONTROL}, {"UP", GLFW_KEY_UP},
        {"DOWN", GLFW_KEY_DOWN},        {"LEFT", GLFW_KEY_LEFT},
        {"RIGHT", GLFW_KEY_RIGHT},
        {"-", GLFW_KEY_MINUS},          {"MINUS", GLFW_KEY_MINUS},
        {"=", GLFW_KEY_EQUAL},          {"EQUAL", GLFW_KEY_EQUAL},
        {",", GLFW_KEY_COMMA},          {"COMMA", GLFW_KEY_COMMA},
        {".", GLFW_KEY_PERIOD},         {"PERIOD", GLFW_KEY_PERIOD},
    };
    for (const auto& k : kNamed)
        if (n == k.name) return k.key;
    return -1;
}

std::vector<ScriptEvent> parse_input_script(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw InputError("--input-script " + path + ": cannot open the file");
    std::vector<ScriptEvent> events;
    std::string text;
    int line_no = 0;
    while (std::getline(in, text)) {
        ++line_no;
        const size_t hash = text.find('#');
        if (hash != std::string::npos) text.erase(hash);
        std::istringstream ss(text);
        std::vector<std::string> w;
        for (std::string t; ss >> t;) w.push_back(t);
        if (w.empty()) continue;
        auto fail = [&](const std::string& msg) { throw InputError(path, line_no, msg); };

        ScriptEvent e;
        e.line = line_no;
        if (w[0] != "frame") fail("expected 'frame N <event>', got '" + w[0] + "'");
        if (w.size() < 3) fail("expected 'frame N <event> ...' (events: key, mouse, cursor, button, scroll, resize)");
        if (!parse_int(w[1], 0, 100000000, e.frame))
            fail("frame number '" + w[1] + "' is not an integer in [0, 100000000]");
        const std::string& kind = w[2];
        if (kind == "key") {
            if (w.size() != 5) fail("expected 'frame N key NAME press|release|repeat'");
            e.kind = ScriptEvent::Kind::Key;
            e.code = key_from_name(w[3]);
            if (e.code < 0) fail("unknown key '" + w[3] + "' (A-Z, 0-9, [, ], LEFT_BRACKET, RIGHT_BRACKET, ESCAPE, SPACE, ...)");
            e.action = action_from_name(w[4]);
            if (e.action < 0) fail("key action '" + w[4] + "' is not press, release or repeat");
        } else if (kind == "mouse") {
            if (w.size() != 5) fail("expected 'frame N mouse DX DY'");
            e.kind = ScriptEvent::Kind::Mouse;
            if (!parse_num(w[3], e.x) || !parse_num(w[4], e.y))
                fail("mouse motion '" + w[3] + " " + w[4] + "' is not two numbers");
        } else if (kind == "cursor") {
            if (w.size() != 5) fail("expected 'frame N cursor X Y'");
            e.kind = ScriptEvent::Kind::Cursor;
            if (!parse_num(w[3], e.x) || !parse_num(w[4], e.y) || e.x < 0.0 || e.y < 0.0)
                fail("cursor position '" + w[3] + " " + w[4] + "' is not two numbers >= 0");
        } else if (kind == "button") {
            if (w.size() != 5) fail("expected 'frame N button left|right|middle press|release'");
            e.kind = ScriptEvent::Kind::Button;
            if (w[3] == "left") e.code = GLFW_MOUSE_BUTTON_LEFT;
            else if (w[3] == "right") e.code = GLFW_MOUSE_BUTTON_RIGHT;
            else if (w[3] == "middle") e.code = GLFW_MOUSE_BUTTON_MIDDLE;
            else fail("mouse button '" + w[3] + "' is not left, right or middle");
            e.action = action_from_name(w[4]);
            if (e.action != GLFW_PRESS && e.action != GLFW_RELEASE)
                fail("button action '" + w[4] + "' is not press or release");
        } else if (kind == "scroll") {
            if (w.size() != 4) fail("expected 'frame N scroll DY'");
            e.kind = ScriptEvent::Kind::Scroll;
            if (!parse_num(w[3], e.y)) fail("scroll amount '" + w[3] + "' is not a number");
        } else if (kind == "resize") {
            if (w.size() != 5) fail("expected 'frame N resize W H'");
            e.kind = ScriptEvent::Kind::Resize;
            int wd = 0, ht = 0;
            if (!parse_int(w[3], 1, 16384, wd) || !parse_int(w[4], 1, 16384, ht))
                fail("window size '" + w[3] + " " + w[4] + "' is not two integers in [1, 16384]");
            e.x = wd;
            e.y = ht;
        } else {
            fail("unknown event '" + kind + "' (key, mouse, cursor, button, scroll, resize)");
        }
        events.push_back(e);
    }
    std::stable_sort(events.begin(), events.end(),
                     [](const ScriptEvent& a, const ScriptEvent& b) { return a.frame < b.frame; });
    return events;
}

}  // namespace srt::viewer
