// viewer_impl.h - the viewer's state: one class, its members defined by concern in
// viewer.cpp (the window, GL and the frame loop), controls.cpp (keys, mouse, the input
// script) and hud.cpp (the Dear ImGui overlay).
#pragma once

#include "viewer/gl.h"  // GLAD first: GLFW and CUDA's interop header must not bring their own GL

#include "viewer/viewer.h"

#include "render/frame.h"

#include "core/error.h"
#include "core/image.h"
#include "core/image_formats.h"
#include "render/scene_gpu.h"
#include "viewer/input_script.h"
#include "viewer/interop.h"

#if defined(SRT_HAVE_CUDA)
#include "cuda/cuda_executor.h"
#endif

#include <glm/glm.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>
#include "viewer/fly_camera.h"
#include "viewer/window.h"

namespace srt::viewer::detail {

using Clock = std::chrono::steady_clock;

// The dead-ray mode after `m` (the M key cycles them).
DeadRayMode next_mode(DeadRayMode m);

class Viewer {
public:
    Viewer(const Scene& scene, const RenderSettings& rs, std::unique_ptr<Executor> ex, const Options& o)
        : scene_(scene), options_(o), rs_(rs), ex_(std::move(ex)),
          camera_(scene.camera, initial_speed(scene)), vsync_(o.vsync) {}

    int run();

private:
    static float initial_speed(const Scene& s) {
        // Cross the scene in about four seconds; fall back to the camera's distance
        // to its target for scenes with only planes.
        const Bounds3 b = finite_bounds(s);
        const float size = b.empty() ? glm::length(s.camera.at - s.camera.from)
                                     : glm::length(b.hi - b.lo);
        return std::max(0.25f * size, 1e-3f);
    }

    bool open_window();
    void init_gl();
    void resize(int w, int h);
    void render_frame(double dt);
    void upload_overlay();
    void draw_image(bool overlay);
    void draw_hud();
    Image read_framebuffer() const;
    void save_screenshot(const std::string& path);
    void save_image_and_overlay(const std::string& path);
    // `C`: the current view as a `stencilrt render` command line (stdout), also in the HUD.
    std::string camera_command() const;
    void print_camera();
    void print_first_frame();  // the first frame's line, with options_.marks
    void apply_script(int frame);

    // Input, from GLFW callbacks and from the script alike.
    void on_key(int key, int action);
    void on_mouse_button(int button, int action);
    void step_aperture(bool wider);
    void turn_environment(float degrees);
    void focus_at_cursor();
    void on_cursor_delta(double dx, double dy);
    void on_scroll(double dy);
    void on_resize_request(int w, int h);

    static Viewer* self(GLFWwindow* w) { return static_cast<Viewer*>(glfwGetWindowUserPointer(w)); }

    const Scene& scene_;
    Options options_;
    RenderSettings rs_;
    CompiledScene compiled_;
    float env_rotation_ = 0.0f;  // the environment map's turn now (J, K), degrees
    std::unique_ptr<Executor> ex_;
#if defined(SRT_HAVE_CUDA)
    CudaExecutor* cuda_ = nullptr;  // ex_ when it is the CUDA executor
#endif
    FlyCamera camera_;
    bool vsync_;

    // Declaration order is destruction order reversed: GL objects and the CUDA
    // registration go before ImGui, ImGui before the window, the window before GLFW.
    GlfwLibrary glfw_;
    GlfwWindow window_;
    std::unique_ptr<ImGuiSession> imgui_;
    GlProgram program_;
    GlVertexArray vao_;  // empty, but core profile draws need one bound
    GlTexture image_tex_, mask_tex_;
    GlBuffer pbo_;
    std::unique_ptr<PboInterop> interop_;  // after pbo_: unregistered before the buffer goes
    GLint u_image_ = -1, u_mask_ = -1, u_overlay_ = -1;

    std::string gl_renderer_, gl_version_, notice_;
    bool want_interop_ = false;
    Image host_image_;
    FrameStats stats_;
    double render_ms_ = 0.0;

    // Input state.
    std::vector<ScriptEvent> script_;
    size_t script_pos_ = 0;
    std::set<int> held_;
    bool looking_ = false;
    bool have_cursor_ = false;
    double cursor_x_ = 0.0, cursor_y_ = 0.0;
    bool screenshot_requested_ = false;
    int screenshot_counter_ = 0;

    bool camera_print_requested_ = false;
    bool hud_visible_ = true;  // `H`

    // Stencil overlay: -1 = off, otherwise the bounce whose post-reflect stencil is shown.
    int overlay_bounce_ = -1;
    // The stencil words after each bounce of one sample (probe_sample_) of the current
    // view, captured once per view while the overlay is on (render_frame).
    std::vector<std::vector<uint32_t>> probe_words_;
    int probe_sample_ = 0;
    bool probe_held_ = false;
    std::vector<uint8_t> mask_;

    // Progressive accumulation: while everything in AccumKey stays the same, each frame
    // adds rs_.spp samples to the executor's running sum (RenderSettings::sample_begin),
    // so after N still frames the image is `render --spp N`'s. Any change starts again.
    struct AccumKey {
        Camera camera;
        int width = 0, height = 0, depth = 0, spp = 0, warp_width = 0;
        DeadRayMode mode = DeadRayMode::Stencil;
        Integrator integrator = Integrator::Whitted;
        float exposure = 0.0f;
        float env_rotation = 0.0f;
        bool operator==(const AccumKey& o) const {
            return camera.from == o.camera.from && camera.at == o.camera.at && camera.up == o.camera.up &&
                   camera.fov_deg == o.camera.fov_deg && camera.aperture == o.camera.aperture &&
                   camera.focus() == o.camera.focus() && width == o.width && height == o.height && depth == o.depth &&
                   spp == o.spp && warp_width == o.warp_width && mode == o.mode && integrator == o.integrator &&
                   exposure == o.exposure && env_rotation == o.env_rotation;
        }
    };
    AccumKey accum_key_;
    int accumulated_ = 0;  // samples in the sum now
    bool exr_requested_ = false;
    bool auto_exposure_requested_ = false;  // the 0 key: an exposure from the image shown
    void save_exr(const std::string& path);

    double fps_ = 0.0;
    double frame_ms_ = 0.0;
};

}  // namespace srt::viewer::detail
