// input_script.h - scripted input for tests: events replayed through the same
// handlers as GLFW's callbacks. The format is documented in docs/viewer.md.
#pragma once

#include <string>
#include <vector>

namespace srt::viewer {

struct ScriptEvent {
    enum class Kind { Key, Mouse, Cursor, Button, Scroll, Resize };
    int frame = 0;  // delivered after that frame's glfwPollEvents, before it renders
    int line = 0;   // 1-based, for messages
    Kind kind = Kind::Key;
    int code = 0;    // Key: GLFW_KEY_*; Button: GLFW_MOUSE_BUTTON_*
    int action = 0;  // Key, Button: GLFW_PRESS / GLFW_RELEASE / GLFW_REPEAT
    double x = 0.0, y = 0.0;  // Mouse: motion in pixels; Cursor: the position in the window; Scroll: (0, dy); Resize: (w, h)
};

// Reads and checks the whole file before the window opens. Throws InputError
// ("FILE:LINE: message") on the first bad line. Events come back ordered by frame,
// in file order within a frame.
std::vector<ScriptEvent> parse_input_script(const std::string& path);

// "RIGHT_BRACKET" -> GLFW_KEY_RIGHT_BRACKET; -1 when unknown.
int key_from_name(const std::string& name);

}  // namespace srt::viewer
