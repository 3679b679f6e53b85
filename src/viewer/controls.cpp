// controls.cpp - the viewer's keys, mouse and scroll, and the input script that replays
// them through the same handlers (docs/viewer.md).
#include "viewer/viewer_impl.h"

#include "core/shell_quote.h"
#include "render/pick.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

namespace srt::viewer::detail {

DeadRayMode next_mode(DeadRayMode m) {
    switch (m) {
        case DeadRayMode::Stencil: return DeadRayMode::Flags;
        case DeadRayMode::Flags: return DeadRayMode::Compact;
        case DeadRayMode::Compact: return DeadRayMode::Pool;
        case DeadRayMode::Pool: return DeadRayMode::Megakernel;
        case DeadRayMode::Megakernel: return DeadRayMode::Regenerate;
        case DeadRayMode::Regenerate: return DeadRayMode::Stencil;
    }
    return DeadRayMode::Stencil;
}

void Viewer::on_key(int key, int action) {
    if (action == GLFW_RELEASE) {
        held_.erase(key);
        return;
    }
    if (action == GLFW_PRESS) held_.insert(key);
    if (action != GLFW_PRESS) return;  // the toggles below fire once per press, not on repeat
    switch (key) {
        case GLFW_KEY_RIGHT_BRACKET: rs_.depth = std::min(rs_.depth + 1, 64); break;
        case GLFW_KEY_LEFT_BRACKET: rs_.depth = std::max(rs_.depth - 1, 1); break;
        case GLFW_KEY_M: rs_.mode = next_mode(rs_.mode); break;
        case GLFW_KEY_I:
            rs_.integrator = rs_.integrator == Integrator::Whitted ? Integrator::Path : Integrator::Whitted;
            overlay_bounce_ = std::min(overlay_bounce_, trace_levels(rs_) - 1);
            // --kill does not cut Whitted's ray trees (app.h check_kill_applies): under
            // Whitted, a scene with glass is shown without the kill.
            if (rs_.kill.active() && rs_.integrator == Integrator::Whitted &&
                std::any_of(scene_.materials.begin(), scene_.materials.end(),
                            [](const Material& m) { return m.is_dielectric(); })) {
                std::fprintf(stderr, "note: --kill %s is off under Whitted, whose rays form trees at glass\n",
                             to_string(rs_.kill).c_str());
                rs_.kill = KillPattern{};
            }
            break;
        case GLFW_KEY_V:
            // Off -> bounce 0 -> ... -> last bounce -> off.
            overlay_bounce_ = overlay_bounce_ + 1 >= trace_levels(rs_) ? -1 : overlay_bounce_ + 1;
            break;
        case GLFW_KEY_P: screenshot_requested_ = true; break;
        case GLFW_KEY_C: camera_print_requested_ = true; break;
        case GLFW_KEY_H: hud_visible_ = !hud_visible_; break;
        case GLFW_KEY_X: exr_requested_ = true; break;
        case GLFW_KEY_EQUAL: rs_.exposure = std::min(rs_.exposure + 0.5f, 16.0f); break;
        case GLFW_KEY_MINUS: rs_.exposure = std::max(rs_.exposure - 0.5f, -16.0f); break;
        case GLFW_KEY_0: auto_exposure_requested_ = true; break;
        case GLFW_KEY_R: camera_.reset(); break;
        case GLFW_KEY_PERIOD:
        case GLFW_KEY_COMMA: step_aperture(key == GLFW_KEY_PERIOD); break;
        case GLFW_KEY_J: turn_environment(-15.0f); break;
        case GLFW_KEY_K: turn_environment(15.0f); break;
        case GLFW_KEY_F:
            vsync_ = !vsync_;
            glfwSwapInterval(vsync_ ? 1 : 0);
            break;
        case GLFW_KEY_ESCAPE: glfwSetWindowShouldClose(window_.w, GLFW_TRUE); break;
        default: break;
    }
}

namespace {
// Nine significant digits give a float back exactly, seventeen a double: the camera's
// from and at (double, as `render` reads them) and the light's position take 17.
std::string xyz(double x, double y, double z, int digits) {
    char b[128];
    std::snprintf(b, sizeof b, "%.*g,%.*g,%.*g", digits, x, digits, y, digits, z);
    return b;
}
}  // namespace

// Everything the image depends on that the view can change, so that the command renders
// what the window shows (with --spp for the samples wanted). The automatic light stays
// where it was placed for the start camera (docs/viewer.md), so it is named too: without
// --light, `render` would place it from the new camera. "--flag=value" keeps a negative
// first coordinate from reading as a flag.
std::string Viewer::camera_command() const {
    const Camera& c = camera_.camera();
    std::string cmd = "stencilrt render";
    if (!options_.scene_path.empty()) cmd += " " + shell_word(options_.scene_path);
    char b[160];
    std::snprintf(b, sizeof b, " -W %d -H %d --depth %d --integrator %s", rs_.width, rs_.height, rs_.depth,
                  to_string(rs_.integrator));
    cmd += b;
    if (rs_.seed != 0) cmd += " --seed " + std::to_string(rs_.seed);
    if (rs_.kill.active()) cmd += " --kill " + to_string(rs_.kill);
    cmd += " --camera-from=" + xyz(c.from.x, c.from.y, c.from.z, 17);
    cmd += " --camera-at=" + xyz(c.at.x, c.at.y, c.at.z, 17);
    cmd += " --camera-up=" + xyz(c.up.x, c.up.y, c.up.z, 9);
    std::snprintf(b, sizeof b, " --fov %.9g", double(c.fov_deg));
    cmd += b;
    if (c.aperture > 0.0f) {
        std::snprintf(b, sizeof b, " --aperture %.9g --focus %.9g", double(c.aperture), double(c.focus()));
        cmd += b;
    }
    // The view is rendered about the start camera's position (the scene is compiled once);
    // about the moved camera's, as `render` would by default, floats round otherwise.
    const Point3& o = compiled_.render_origin;
    if (o != c.from) cmd += " --render-origin=" + xyz(o.x, o.y, o.z, 17);
    if (scene_.auto_light && scene_.auto_light->index < scene_.lights.size()) {
        const Point3& p = scene_.lights[scene_.auto_light->index].position;
        cmd += " --light=" + xyz(p.x, p.y, p.z, 17);
    }
    if (rs_.exposure != 0.0f) {
        std::snprintf(b, sizeof b, " --exposure %.9g", double(rs_.exposure));
        cmd += b;
    }
    if (scene_.texture_filter == TextureFilter::Trilinear) cmd += " --texture-filter trilinear";
    if (const Environment& e = scene_.environment; e.active()) {
        std::snprintf(b, sizeof b, ":%.9g", double(e.intensity));
        cmd += " --env " + shell_word(e.file + b);
        std::snprintf(b, sizeof b, " --env-rotation %.9g", double(env_rotation_));
        cmd += b;
    }
    return cmd;
}

void Viewer::print_camera() {
    std::printf("%s\n", camera_command().c_str());
    std::fflush(stdout);
}

void Viewer::on_mouse_button(int button, int action) {
    if (button == GLFW_MOUSE_BUTTON_RIGHT) looking_ = action == GLFW_PRESS;
    if (button == GLFW_MOUSE_BUTTON_LEFT && action == GLFW_PRESS && have_cursor_) focus_at_cursor();
}

// The lens's radius in steps of a stop (x sqrt 2). From a pinhole the first step opens it
// to 1/200 of the distance in focus, a shallow but visible depth of field at any scale;
// three stops below that it closes to a pinhole again.
void Viewer::step_aperture(bool wider) {
    const Camera& c = camera_.camera();
    const float first = c.focus() * 0.005f;
    float a = c.aperture;
    if (wider) a = a > 0.0f ? a * 1.41421356f : first;
    else a = a / 1.41421356f < first / 8.0f ? 0.0f : a / 1.41421356f;
    camera_.set_lens(a, c.focus_distance);
}

// J and K turn the environment map about the up axis by 15 degrees. Its sampling
// distribution lives in the map's own frame, so only the turn is sent again.
void Viewer::turn_environment(float degrees) {
    if (!scene_.environment.active()) return;
    env_rotation_ = std::fmod(env_rotation_ + degrees, 360.0f);
    set_environment_rotation(compiled_.env, env_rotation_);
    ex_->set_scene(compiled_);
}

// A left click focuses on the surface under the cursor (render/pick.h); where the cursor
// sees nothing the focus stays.
void Viewer::focus_at_cursor() {
    int ww = 0, wh = 0;
    glfwGetWindowSize(window_.w, &ww, &wh);
    if (ww <= 0 || wh <= 0) return;
    const float px = float(cursor_x_ / double(ww) * double(rs_.width));
    const float py = float(cursor_y_ / double(wh) * double(rs_.height));
    if (const std::optional<float> d = focus_at(compiled_, camera_.camera(), rs_.width, rs_.height, px, py)) {
        camera_.set_lens(camera_.camera().aperture, *d);
        std::fprintf(stderr, "focus %.6g (the surface under the cursor)\n", double(*d));
    }
}

void Viewer::on_cursor_delta(double dx, double dy) {
    if (looking_) camera_.look(dx, dy);
}

void Viewer::on_scroll(double dy) { camera_.scale_speed(dy); }

void Viewer::on_resize_request(int w, int h) {
    // The frame loop follows the framebuffer size, as after a user's resize.
    glfwSetWindowSize(window_.w, w, h);
}

void Viewer::apply_script(int frame) {
    for (; script_pos_ < script_.size() && script_[script_pos_].frame <= frame; ++script_pos_) {
        const ScriptEvent& e = script_[script_pos_];
        switch (e.kind) {
            case ScriptEvent::Kind::Key: on_key(e.code, e.action); break;
            case ScriptEvent::Kind::Button: on_mouse_button(e.code, e.action); break;
            case ScriptEvent::Kind::Mouse: on_cursor_delta(e.x, e.y); break;
            case ScriptEvent::Kind::Cursor:
                have_cursor_ = true;
                cursor_x_ = e.x;
                cursor_y_ = e.y;
                break;
            case ScriptEvent::Kind::Scroll: on_scroll(e.y); break;
            case ScriptEvent::Kind::Resize: on_resize_request(int(e.x), int(e.y)); break;
        }
    }
}

}  // namespace srt::viewer::detail
