// viewer.cpp - the window, the frame loop, the controls and the HUD.
//
// One frame:
//   poll GLFW events, then replay the input script's events for this frame (through
//   the same handlers), move the camera, follow a resize;
//   render: CUDA into the mapped pixel buffer (interop), or any executor into a host
//   image; either way glTexSubImage2D fills the display texture;
//   draw the texture 1:1 with a full-screen triangle (shaders/display.frag);
//   [--screenshot, last frame: read the framebuffer]; draw the HUD;
//   [and read it again, HUD included]; swap.
#include "viewer/gl.h"  // GLAD first: GLFW and CUDA's interop header must not bring their own GL

#include "viewer/viewer.h"

#include "render/frame.h"

#include "core/error.h"
#include "core/image.h"
#include "render/scene_gpu.h"
#include "viewer/input_script.h"
#include "viewer/interop.h"

#if defined(SRT_HAVE_CUDA)
#include "cuda/cuda_executor.h"
#endif

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

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

namespace srt::viewer {

std::string hud_screenshot_path(const std::string& screenshot) {
    const std::string ext = ".png";
    if (screenshot.size() > ext.size() &&
        screenshot.compare(screenshot.size() - ext.size(), ext.size(), ext) == 0)
        return screenshot.substr(0, screenshot.size() - ext.size()) + ".hud.png";
    return screenshot + ".hud.png";
}

namespace {

using Clock = std::chrono::steady_clock;

// GLFW reports errors through a callback; the last one goes into the messages.
std::string g_glfw_error;
void on_glfw_error(int code, const char* text) {
    g_glfw_error = std::string(text ? text : "?") + " (GLFW error 0x" +
                   [](int c) { char b[16]; std::snprintf(b, sizeof b, "%05x", c); return std::string(b); }(code) + ")";
}

// glfwInit / glfwTerminate, scoped.
struct GlfwLibrary {
    bool ok = false;
    GlfwLibrary() {
        glfwSetErrorCallback(on_glfw_error);
        ok = glfwInit() == GLFW_TRUE;
    }
    ~GlfwLibrary() {
        if (ok) glfwTerminate();
    }
    GlfwLibrary(const GlfwLibrary&) = delete;
    GlfwLibrary& operator=(const GlfwLibrary&) = delete;
};

struct GlfwWindow {
    GLFWwindow* w = nullptr;
    GlfwWindow() = default;
    ~GlfwWindow() {
        if (w) glfwDestroyWindow(w);
    }
    GlfwWindow(const GlfwWindow&) = delete;
    GlfwWindow& operator=(const GlfwWindow&) = delete;
};

// Dear ImGui's context and its two backends, scoped (shut down while GL is current).
struct ImGuiSession {
    bool glfw = false, gl = false;
    ImGuiSession(GLFWwindow* w, const char* glsl_version) {
        IMGUI_CHECKVERSION();
        ImGui::CreateContext();
        ImGui::GetIO().IniFilename = nullptr;  // never write imgui.ini into the user's directory
        ImGui::StyleColorsDark();
        // install_callbacks: ImGui chains to the callbacks the viewer set before.
        glfw = ImGui_ImplGlfw_InitForOpenGL(w, true);
        gl = glfw && ImGui_ImplOpenGL3_Init(glsl_version);
        if (!gl) throw std::runtime_error("Dear ImGui: backend initialisation failed");
    }
    ~ImGuiSession() {
        if (gl) ImGui_ImplOpenGL3_Shutdown();
        if (glfw) ImGui_ImplGlfw_Shutdown();
        ImGui::DestroyContext();
    }
    ImGuiSession(const ImGuiSession&) = delete;
    ImGuiSession& operator=(const ImGuiSession&) = delete;
};

// A fly camera over srt::Camera. It edits `from` and `at` only when the user moves,
// so an untouched (or reset) camera is bit-for-bit the scene's, and the viewer's
// image equals the headless render's.
class FlyCamera {
public:
    FlyCamera(const Camera& home, float speed) : home_(home), cam_(home), home_speed_(speed), speed_(speed) {}

    const Camera& camera() const { return cam_; }
    void reset() {
        cam_ = home_;
        speed_ = home_speed_;
    }
    float speed() const { return speed_; }
    void scale_speed(double wheel) { speed_ = std::clamp(speed_ * std::pow(1.2f, float(wheel)), 1e-4f, 1e6f); }

    // `dir`: x = right, y = up, z = forward, each -1..1.
    void move(const glm::vec3& dir, float dt) {
        if (dir == glm::vec3(0.0f)) return;
        glm::vec3 f, r, u;
        basis(f, r, u);
        const glm::vec3 d = (dir.x * r + dir.y * u + dir.z * f) * (speed_ * dt);
        cam_.from += d;
        cam_.at += d;
    }

    // Mouse-look: yaw about the camera's up vector, pitch about its right vector;
    // pitch stops short of the up vector, where the basis would degenerate.
    void look(double dx, double dy) {
        const float k = 0.003f;  // radians per pixel
        glm::vec3 f, r, u;
        basis(f, r, u);
        const float dist = glm::length(cam_.at - cam_.from);
        const glm::vec3 up = glm::normalize(cam_.up);
        f = rotate(f, up, -float(dx) * k);
        const glm::vec3 pitched = rotate(f, glm::normalize(glm::cross(f, up)), -float(dy) * k);
        if (std::fabs(glm::dot(pitched, up)) < 0.995f) f = pitched;
        cam_.at = cam_.from + glm::normalize(f) * dist;
    }

private:
    void basis(glm::vec3& f, glm::vec3& r, glm::vec3& u) const {
        f = glm::normalize(cam_.at - cam_.from);
        r = glm::normalize(glm::cross(f, cam_.up));
        u = glm::cross(r, f);
    }
    static glm::vec3 rotate(const glm::vec3& v, const glm::vec3& axis, float angle) {
        // Rodrigues' formula; glm's gtx rotate would need GLM_ENABLE_EXPERIMENTAL.
        const float c = std::cos(angle), s = std::sin(angle);
        return v * c + glm::cross(axis, v) * s + axis * glm::dot(axis, v) * (1.0f - c);
    }

    Camera home_, cam_;
    float home_speed_, speed_;
};

DeadRayMode next_mode(DeadRayMode m) {
    switch (m) {
        case DeadRayMode::Stencil: return DeadRayMode::Flags;
        case DeadRayMode::Flags: return DeadRayMode::Compact;
        case DeadRayMode::Compact: return DeadRayMode::Stencil;
    }
    return DeadRayMode::Stencil;
}

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
    void draw_image();
    void draw_hud();
    Image read_framebuffer() const;
    void save_screenshot(const std::string& path);
    void apply_script(int frame);

    // Input, from GLFW callbacks and from the script alike.
    void on_key(int key, int action);
    void on_mouse_button(int button, int action);
    void on_cursor_delta(double dx, double dy);
    void on_scroll(double dy);
    void on_resize_request(int w, int h);

    static Viewer* self(GLFWwindow* w) { return static_cast<Viewer*>(glfwGetWindowUserPointer(w)); }

    const Scene& scene_;
    Options options_;
    RenderSettings rs_;
    CompiledScene compiled_;
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
    GLint u_image_ = -1, u_mask_ = -1, u_overlay_ = -1, u_exposure_ = -1;

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

    // Stencil overlay: -1 = off, otherwise the bounce whose post-reflect stencil is shown.
    int overlay_bounce_ = -1;
    std::vector<std::vector<uint32_t>> probe_words_;
    std::vector<uint8_t> mask_;

    float exposure_ = 1.0f;
    double fps_ = 0.0;
    double frame_ms_ = 0.0;
};

bool Viewer::open_window() {
    if (!glfw_.ok) return false;
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_DOUBLEBUFFER, GLFW_TRUE);
    // Not sRGB-capable: the renderer's bytes are already sRGB-encoded and must reach
    // the screen (and glReadPixels) unchanged.
    glfwWindowHint(GLFW_SRGB_CAPABLE, GLFW_FALSE);
    glfwWindowHint(GLFW_RED_BITS, 8);
    glfwWindowHint(GLFW_GREEN_BITS, 8);
    glfwWindowHint(GLFW_BLUE_BITS, 8);
    const std::string title = "stencilrt - " + scene_.name;
    // 4.5 core first; Mesa's software GL under Xvfb may only offer 3.3 core, which is
    // all the viewer needs (the shaders are GLSL 330).
    const int versions[2][2] = {{4, 5}, {3, 3}};
    for (const auto& v : versions) {
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, v[0]);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, v[1]);
        window_.w = glfwCreateWindow(rs_.width, rs_.height, title.c_str(), nullptr, nullptr);
        if (window_.w) return true;
    }
    return false;
}

void Viewer::init_gl() {
    glfwMakeContextCurrent(window_.w);
    const int version = gladLoadGL(glfwGetProcAddress);
    if (version == 0) throw std::runtime_error("GLAD could not load the OpenGL functions");
    gl_renderer_ = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    gl_version_ = reinterpret_cast<const char*>(glGetString(GL_VERSION));
    std::fprintf(stderr, "viewer: GL_RENDERER=%s\n", gl_renderer_.c_str());
    std::fprintf(stderr, "viewer: GL_VERSION=%s (core %d.%d)\n", gl_version_.c_str(),
                 GLAD_VERSION_MAJOR(version), GLAD_VERSION_MINOR(version));
    glfwSwapInterval(vsync_ ? 1 : 0);

    program_ = load_program("fullscreen.vert", "display.frag", options_.shader_dir);
    u_image_ = glGetUniformLocation(program_.get(), "u_image");
    u_mask_ = glGetUniformLocation(program_.get(), "u_mask");
    u_overlay_ = glGetUniformLocation(program_.get(), "u_overlay");
    u_exposure_ = glGetUniformLocation(program_.get(), "u_exposure");
    vao_ = GlVertexArray::create();
    image_tex_ = GlTexture::create();
    mask_tex_ = GlTexture::create();
    for (GLuint t : {image_tex_.get(), mask_tex_.get()}) {
        glBindTexture(GL_TEXTURE_2D, t);
        // texelFetch ignores filtering, but a texture whose min filter wants mipmaps
        // it lacks is incomplete and reads as black.
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    }
    glBindTexture(GL_TEXTURE_2D, 0);
    // The renderer's bytes go straight to the screen: no sRGB conversion on write.
    glDisable(GL_FRAMEBUFFER_SRGB);
    check_gl("viewer GL setup");

    const char* glsl = GLAD_VERSION_MAJOR(version) >= 4 && GLAD_VERSION_MINOR(version) >= 5 ? "#version 450"
                                                                                                : "#version 330";
    imgui_ = std::make_unique<ImGuiSession>(window_.w, glsl);
}

// (Re)allocates everything sized by the frame. Interop: the old registration is
// dropped, a new buffer made and registered again.
void Viewer::resize(int w, int h) {
    rs_.width = w;
    rs_.height = h;
    glBindTexture(GL_TEXTURE_2D, image_tex_.get());
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    mask_.assign(size_t(w) * size_t(h), 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);  // R8 rows are not 4-byte multiples
    glBindTexture(GL_TEXTURE_2D, mask_tex_.get());
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, w, h, 0, GL_RED, GL_UNSIGNED_BYTE, mask_.data());
    glBindTexture(GL_TEXTURE_2D, 0);
    check_gl("resizing the display textures");

    if (!want_interop_) return;
    interop_.reset();
    pbo_ = GlBuffer::create();
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_.get());
    glBufferData(GL_PIXEL_UNPACK_BUFFER, GLsizeiptr(w) * h * 4, nullptr, GL_STREAM_DRAW);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    check_gl("allocating the pixel buffer");
    std::string why;
    interop_ = register_pbo(pbo_.get(), why);
    if (!interop_) {
        // The CUDA executor still renders (into host memory); only the copy changes.
        want_interop_ = false;
        pbo_.reset();
        notice_ = "CUDA-GL interop unavailable (" + why + "); frames go through host memory";
        std::fprintf(stderr, "viewer: notice: %s\n", notice_.c_str());
        std::fprintf(stderr, "viewer: upload=cpu-texsubimage\n");
    }
}

void Viewer::render_frame(double dt) {
    // Camera motion from held keys.
    glm::vec3 dir(0.0f);
    if (held_.count(GLFW_KEY_D)) dir.x += 1.0f;
    if (held_.count(GLFW_KEY_A)) dir.x -= 1.0f;
    if (held_.count(GLFW_KEY_E)) dir.y += 1.0f;
    if (held_.count(GLFW_KEY_Q)) dir.y -= 1.0f;
    if (held_.count(GLFW_KEY_W)) dir.z += 1.0f;
    if (held_.count(GLFW_KEY_S)) dir.z -= 1.0f;
    camera_.move(dir, float(std::min(dt, 0.25)));  // a stalled frame must not jump far

    // The probe costs a copy per bounce (a device->host one on the GPU): only while
    // the overlay is on.
    if (overlay_bounce_ >= 0) {
        probe_words_.assign(size_t(rs_.depth), {});
        ex_->set_stencil_probe([this](int sample, int bounce, const std::vector<uint32_t>& words) {
            if (sample == 0 && bounce >= 0 && size_t(bounce) < probe_words_.size())
                probe_words_[size_t(bounce)] = words;
        });
    } else {
        ex_->set_stencil_probe(nullptr);
    }

    const auto t0 = Clock::now();
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glBindTexture(GL_TEXTURE_2D, image_tex_.get());
#if defined(SRT_HAVE_CUDA)
    if (interop_ && cuda_) {
        const size_t need = size_t(rs_.width) * size_t(rs_.height) * 4;
        interop_->write([&](uint32_t* device_rgba, size_t bytes) {
            if (bytes < need)
                throw std::runtime_error("mapped pixel buffer holds " + std::to_string(bytes) +
                                         " bytes, the frame needs " + std::to_string(need));
            cuda_->render_device(camera_.camera(), rs_, device_rgba, &stats_);
        });
        // From the bound unpack buffer: the "pointer" is an offset into it.
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_.get());
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, rs_.width, rs_.height, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    } else
#endif
    {
        ex_->render(camera_.camera(), rs_, host_image_, &stats_);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, rs_.width, rs_.height, GL_RGBA, GL_UNSIGNED_BYTE,
                        host_image_.rgba.data());
    }
    glBindTexture(GL_TEXTURE_2D, 0);
    render_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    check_gl("uploading the frame");

    if (overlay_bounce_ >= 0) upload_overlay();
}

// Per pixel (its ray's warp and lane: render/frame.h's pixel_to_ray) of the stencil after the chosen bounce's
// reflect stage: 255 when the whole warp is dead (every later stage skips it),
// 128 when only this lane is dead, 0 when the ray lives on. A bounce the executor
// never ran (every ray already dead) shows as all dead.
void Viewer::upload_overlay() {
    overlay_bounce_ = std::min(overlay_bounce_, rs_.depth - 1);
    const std::vector<uint32_t>* words = nullptr;
    if (size_t(overlay_bounce_) < probe_words_.size() && !probe_words_[size_t(overlay_bounce_)].empty())
        words = &probe_words_[size_t(overlay_bounce_)];
    const size_t n = size_t(rs_.width) * size_t(rs_.height);
    mask_.resize(n);
    FrameContext f;
    set_geometry(f, uint32_t(rs_.width), uint32_t(rs_.height), uint32_t(rs_.warp_width));
    for (size_t p = 0; p < n; ++p) {
        const uint32_t ray = pixel_to_ray(f, uint32_t(p % size_t(rs_.width)), uint32_t(p / size_t(rs_.width)));
        const uint32_t w = (words && (ray >> 5) < words->size()) ? (*words)[ray >> 5] : 0u;
        mask_[p] = w == 0 ? 255 : ((w >> (ray & 31)) & 1u) ? 0 : 128;
    }
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glBindTexture(GL_TEXTURE_2D, mask_tex_.get());
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, rs_.width, rs_.height, GL_RED, GL_UNSIGNED_BYTE, mask_.data());
    glBindTexture(GL_TEXTURE_2D, 0);
    check_gl("uploading the stencil overlay");
}

void Viewer::draw_image() {
    glViewport(0, 0, rs_.width, rs_.height);
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_SCISSOR_TEST);
    glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glUseProgram(program_.get());
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, image_tex_.get());
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, mask_tex_.get());
    glUniform1i(u_image_, 0);
    glUniform1i(u_mask_, 1);
    glUniform1i(u_overlay_, overlay_bounce_ >= 0 ? 1 : 0);
    glUniform1f(u_exposure_, exposure_);
    glBindVertexArray(vao_.get());
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, 0);
    glUseProgram(0);
    check_gl("drawing the frame");
}

void Viewer::draw_hud() {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();

    ImGui::SetNextWindowPos(ImVec2(8, 8), ImGuiCond_Always);
    ImGui::SetNextWindowBgAlpha(0.65f);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                   ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav;
    if (ImGui::Begin("stencilrt", nullptr, flags)) {
        ImGui::Text("%.1f FPS  (%.2f ms/frame, render+upload %.2f ms)", fps_, frame_ms_, render_ms_);
        ImGui::Text("backend  %s", ex_->name().c_str());
        ImGui::Text("GL       %s", gl_renderer_.c_str());
        ImGui::Text("upload   %s", interop_ ? "CUDA-GL interop (pixel buffer)" : "host memory -> glTexSubImage2D");
        if (!notice_.empty()) {
            ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36.0f);
            ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.3f, 1.0f), "%s", notice_.c_str());
            ImGui::PopTextWrapPos();
        }
        ImGui::Text("%dx%d  depth %d  mode %s  spp %d  vsync %s", rs_.width, rs_.height, rs_.depth,
                    to_string(rs_.mode), rs_.spp, vsync_ ? "on" : "off");
        ImGui::Separator();
        for (const StageTime& t : stats_.stage_ms) ImGui::Text("  %-10s %8.3f ms", t.stage.c_str(), t.ms);
        ImGui::Text("  rays       %8.2f M", double(stats_.rays_traced) * 1e-6);

        // Live rays and warps entering each bounce's intersect.
        std::vector<float> rays, warps;
        for (const BounceStats& b : stats_.bounces) {
            rays.push_back(float(b.live_rays));
            warps.push_back(float(b.live_warps));
        }
        const ImVec2 plot(ImGui::GetFontSize() * 18.0f, ImGui::GetFontSize() * 3.0f);
        if (!rays.empty()) {
            char label[64];
            std::snprintf(label, sizeof label, "bounce 0: %.0f", double(rays[0]));
            ImGui::PlotHistogram("live rays", rays.data(), int(rays.size()), 0, label, 0.0f, FLT_MAX, plot);
            std::snprintf(label, sizeof label, "bounce 0: %.0f", double(warps[0]));
            ImGui::PlotHistogram("live warps", warps.data(), int(warps.size()), 0, label, 0.0f, FLT_MAX, plot);
        }
        if (overlay_bounce_ >= 0)
            ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.4f, 1.0f),
                               "overlay: stencil after bounce %d (red = dead warp, amber = dead lane)",
                               overlay_bounce_);
        ImGui::SliderFloat("exposure", &exposure_, 0.125f, 8.0f, "%.3f", ImGuiSliderFlags_Logarithmic);
        ImGui::TextDisabled("WASD/QE move  RMB look  wheel speed (%.3g)  [ ] depth  M mode", camera_.speed());
        ImGui::TextDisabled("V stencil overlay  P screenshot  R reset  F vsync  Esc quit");
    }
    ImGui::End();

    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    check_gl("drawing the HUD");
}

// The back buffer as an Image: glReadPixels' row 0 is the bottom, the Image's the top.
Image Viewer::read_framebuffer() const {
    Image img(rs_.width, rs_.height);
    std::vector<uint8_t> raw(img.rgba.size());
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, rs_.width, rs_.height, GL_RGBA, GL_UNSIGNED_BYTE, raw.data());
    check_gl("glReadPixels");
    const size_t row = size_t(rs_.width) * 4;
    for (int y = 0; y < rs_.height; ++y)
        std::copy_n(&raw[size_t(rs_.height - 1 - y) * row], row, &img.rgba[size_t(y) * row]);
    for (size_t i = 3; i < img.rgba.size(); i += 4) img.rgba[i] = 255;
    return img;
}

void Viewer::save_screenshot(const std::string& path) {
    write_png_atomic(path, read_framebuffer());
    std::fprintf(stderr, "viewer: saved %s (%dx%d)\n", path.c_str(), rs_.width, rs_.height);
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
        case GLFW_KEY_V:
            // Off -> bounce 0 -> ... -> last bounce -> off.
            overlay_bounce_ = overlay_bounce_ + 1 >= rs_.depth ? -1 : overlay_bounce_ + 1;
            break;
        case GLFW_KEY_P: screenshot_requested_ = true; break;
        case GLFW_KEY_R: camera_.reset(); break;
        case GLFW_KEY_F:
            vsync_ = !vsync_;
            glfwSwapInterval(vsync_ ? 1 : 0);
            break;
        case GLFW_KEY_ESCAPE: glfwSetWindowShouldClose(window_.w, GLFW_TRUE); break;
        default: break;
    }
}

void Viewer::on_mouse_button(int button, int action) {
    if (button == GLFW_MOUSE_BUTTON_RIGHT) looking_ = action == GLFW_PRESS;
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
            case ScriptEvent::Kind::Scroll: on_scroll(e.y); break;
            case ScriptEvent::Kind::Resize: on_resize_request(int(e.x), int(e.y)); break;
        }
    }
}

int Viewer::run() {
    // A bad script is an input error: report it before any window appears.
    if (!options_.input_script.empty()) script_ = parse_input_script(options_.input_script);

    if (!open_window()) {
        std::fprintf(stderr,
                     "stencilrt view: cannot open a window: %s\n"
                     "hint: the viewer needs a display (X11). Without one, render images with "
                     "`stencilrt render` (headless), or run the viewer under xvfb-run.\n",
                     g_glfw_error.empty() ? "unknown GLFW error" : g_glfw_error.c_str());
        return 2;
    }
    glfwSetWindowUserPointer(window_.w, this);
    // Set before ImGui installs its own callbacks, which then chain to these. Input
    // that ImGui wants (a click on the HUD, typing in a field) is not ours.
    glfwSetKeyCallback(window_.w, [](GLFWwindow* w, int key, int, int action, int) {
        if (ImGui::GetCurrentContext() && ImGui::GetIO().WantCaptureKeyboard && action == GLFW_PRESS) return;
        self(w)->on_key(key, action);
    });
    glfwSetMouseButtonCallback(window_.w, [](GLFWwindow* w, int button, int action, int) {
        if (ImGui::GetCurrentContext() && ImGui::GetIO().WantCaptureMouse && action == GLFW_PRESS) return;
        self(w)->on_mouse_button(button, action);
    });
    glfwSetCursorPosCallback(window_.w, [](GLFWwindow* w, double x, double y) {
        Viewer* v = self(w);
        if (v->have_cursor_) v->on_cursor_delta(x - v->cursor_x_, y - v->cursor_y_);
        v->have_cursor_ = true;
        v->cursor_x_ = x;
        v->cursor_y_ = y;
    });
    glfwSetScrollCallback(window_.w, [](GLFWwindow* w, double, double dy) {
        if (ImGui::GetCurrentContext() && ImGui::GetIO().WantCaptureMouse) return;
        self(w)->on_scroll(dy);
    });

    init_gl();

    compiled_ = compile_scene(scene_);
    ex_->set_scene(compiled_);
#if defined(SRT_HAVE_CUDA)
    cuda_ = dynamic_cast<CudaExecutor*>(ex_.get());
    want_interop_ = cuda_ != nullptr;
#endif
    if (!want_interop_) {
        notice_ = options_.backend_notice.empty() ? "rendering on the CPU; frames go through host memory"
                                                  : options_.backend_notice;
        std::fprintf(stderr, "viewer: notice: %s\n", notice_.c_str());
        std::fprintf(stderr, "viewer: upload=cpu-texsubimage\n");
    }

    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(window_.w, &fb_w, &fb_h);
    resize(std::max(fb_w, 1), std::max(fb_h, 1));
    if (interop_) std::fprintf(stderr, "viewer: interop=cuda-gl-pbo\n");
    std::fprintf(stderr, "viewer: backend=%s\n", ex_->name().c_str());

    const std::string hud_shot = options_.screenshot.empty() ? "" : hud_screenshot_path(options_.screenshot);
    auto last = Clock::now();
    const auto start = last;
    auto window_start = last;  // for the periodic FPS line
    int frame = 0;
    bool screenshot_saved = false;
    double timed_s = 0.0;  // frames after the first (which pays for warm-up)
    for (; !glfwWindowShouldClose(window_.w); ++frame) {
        glfwPollEvents();
        apply_script(frame);
        if (glfwWindowShouldClose(window_.w)) break;

        glfwGetFramebufferSize(window_.w, &fb_w, &fb_h);
        if (fb_w <= 0 || fb_h <= 0) {  // minimised: nothing to draw
            glfwWaitEventsTimeout(0.1);
            --frame;
            continue;
        }
        if (fb_w != rs_.width || fb_h != rs_.height) resize(fb_w, fb_h);

        const auto now = Clock::now();
        const double dt = std::chrono::duration<double>(now - last).count();
        last = now;
        if (frame > 0) {
            timed_s += dt;
            frame_ms_ = dt * 1e3;
            fps_ = fps_ == 0.0 ? 1.0 / std::max(dt, 1e-9) : 0.9 * fps_ + 0.1 / std::max(dt, 1e-9);
        }

        render_frame(dt);
        draw_image();

        const bool last_frame = options_.frames > 0 && frame + 1 >= options_.frames;
        // The screenshot of the image alone is read before the HUD is drawn, so it
        // can be compared exactly with a headless render.
        if (last_frame && !options_.screenshot.empty()) {
            save_screenshot(options_.screenshot);
            screenshot_saved = true;
        }
        if (screenshot_requested_) {
            char name[64];
            std::snprintf(name, sizeof name, "stencilrt-view-%04d.png", screenshot_counter_++);
            save_screenshot(name);
            screenshot_requested_ = false;
        }
        draw_hud();
        if (last_frame && !hud_shot.empty()) save_screenshot(hud_shot);
        glfwSwapBuffers(window_.w);

        if ((frame + 1) % 100 == 0) {
            const double s = std::chrono::duration<double>(Clock::now() - window_start).count();
            std::fprintf(stderr, "viewer: frame %d fps=%.1f (last 100 frames; %dx%d depth %d mode %s)\n",
                         frame + 1, 100.0 / s, rs_.width, rs_.height, rs_.depth, to_string(rs_.mode));
            window_start = Clock::now();
        }
        if (last_frame) {
            ++frame;
            break;
        }
    }
    if (script_pos_ < script_.size())
        std::fprintf(stderr, "viewer: warning: %s:%d: event for frame %d never ran (the viewer stopped after %d frames)\n",
                     options_.input_script.c_str(), script_[script_pos_].line, script_[script_pos_].frame, frame);
    const double total_s = std::chrono::duration<double>(Clock::now() - start).count();
    std::fprintf(stderr, "viewer: %d frames in %.2f s, average fps=%.1f (excluding frame 1; %dx%d depth %d mode %s vsync %s)\n",
                 frame, total_s, frame > 1 && timed_s > 0 ? (frame - 1) / timed_s : 0.0, rs_.width, rs_.height,
                 rs_.depth, to_string(rs_.mode), vsync_ ? "on" : "off");
    ex_->set_stencil_probe(nullptr);  // its lambda points into this Viewer
    if (!options_.screenshot.empty() && !screenshot_saved) {
        // A caller waiting for the file must not take a quiet exit for success.
        std::fprintf(stderr, "stencilrt view: the window closed after %d of %d frames; %s was not written\n",
                     frame, options_.frames, options_.screenshot.c_str());
        return 1;
    }
    return 0;
}

}  // namespace

int run(const Scene& scene, const RenderSettings& settings, std::unique_ptr<Executor> executor,
        const Options& options) {
    Viewer v(scene, settings, std::move(executor), options);
    return v.run();
}

}  // namespace srt::viewer
