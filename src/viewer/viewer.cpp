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
#include "viewer/viewer_impl.h"
#include "core/load_progress.h"
#include "render/exposure.h"
#include "render/split_executor.h"

#include <array>
#include <future>

namespace srt::viewer {

namespace {
// "out.png" -> "out<tag>.png"; any other name gets "<tag>.png" appended.
std::string companion_path(const std::string& screenshot, const std::string& tag) {
    const std::string ext = ".png";
    if (screenshot.size() > ext.size() &&
        screenshot.compare(screenshot.size() - ext.size(), ext.size(), ext) == 0)
        return screenshot.substr(0, screenshot.size() - ext.size()) + tag + ext;
    return screenshot + tag + ext;
}
}  // namespace

std::string hud_screenshot_path(const std::string& screenshot) { return companion_path(screenshot, ".hud"); }
std::string overlay_screenshot_path(const std::string& screenshot) { return companion_path(screenshot, ".overlay"); }

namespace detail {

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
    // zsobol's sequence holds a number of samples a pixel that shrinks as the frame grows
    // (render/sampler.h): a window grown past what --max-samples fitted stops its sums
    // at what the new size holds.
    if (rs_.samples_planned == 0) rs_.samples_planned = options_.max_samples;
    if (rs_.sampler == SamplerKind::ZSobol && !sampler_problem(rs_).empty()) {
        while (!sampler_problem(rs_).empty() && rs_.samples_planned > 1) rs_.samples_planned /= 2;
        options_.max_samples = std::min(options_.max_samples, rs_.samples_planned);
        std::fprintf(stderr, "note: zsobol holds %d samples a pixel at %dx%d; accumulation stops there\n",
                     rs_.samples_planned, w, h);
    }
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

    // Progressive accumulation: a still view adds samples; any change starts a new sum.
    const AccumKey key{camera_.camera(), rs_.width, rs_.height,    rs_.depth,     rs_.spp,
                       rs_.warp_width,   rs_.mode,  rs_.integrator, rs_.exposure, env_rotation_};
    if (!(key == accum_key_)) {
        accum_key_ = key;
        accumulated_ = 0;
        probe_held_ = false;  // the overlay's words belong to one view
    }
    // The overlay shows the stencil of one sample: the first this view rendered while the
    // overlay was on, held until the view changes, so a still view keeps a still overlay
    // while its later samples add up. The probe costs a copy per bounce (device to host on
    // the GPU, and stream launches), so only the frame that captures it pays. Turned on
    // once the sum is full, the overlay starts the sum again: no frame would be rendered
    // to probe.
    const bool capture = overlay_bounce_ >= 0 && !probe_held_;
    if (capture && accumulated_ >= options_.max_samples) accumulated_ = 0;
    if (accumulated_ >= options_.max_samples) {  // full: the texture already shows the sum
        render_ms_ = 0.0;
        if (overlay_bounce_ >= 0) upload_overlay();
        return;
    }
    RenderSettings frame_rs = rs_;
    frame_rs.sample_begin = accumulated_;
    frame_rs.spp = std::min(rs_.spp, options_.max_samples - accumulated_);
    accumulated_ += frame_rs.spp;
    if (capture) {
        probe_words_.assign(size_t(trace_levels(rs_)), {});
        probe_sample_ = frame_rs.sample_begin;
        probe_held_ = true;
        ex_->set_stencil_probe([this](int sample, int bounce, const std::vector<uint32_t>& words) {
            if (sample == probe_sample_ && bounce >= 0 && size_t(bounce) < probe_words_.size())
                probe_words_[size_t(bounce)] = words;
        });
    }
    struct ProbeOff {  // the capture ends with this frame, whatever happens in it
        Executor* ex;
        bool on;
        ~ProbeOff() {
            if (on) ex->set_stencil_probe(nullptr);
        }
    } probe_off{ex_.get(), capture};

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
            cuda_->render_device(camera_.camera(), frame_rs, device_rgba, &stats_);
        });
        // From the bound unpack buffer: the "pointer" is an offset into it.
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_.get());
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, rs_.width, rs_.height, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    } else
#endif
    {
        ex_->render(camera_.camera(), frame_rs, host_image_, &stats_);
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
    overlay_bounce_ = std::min(overlay_bounce_, trace_levels(rs_) - 1);
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

void Viewer::draw_image(bool overlay) {
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
    glUniform1i(u_overlay_, overlay ? 1 : 0);
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
    std::fprintf(stderr, "viewer: saved %s (%dx%d, %d samples)\n", path.c_str(), rs_.width, rs_.height, accumulated_);
}

// The image alone (byte for byte the headless render) and, while the overlay is on, the
// same frame tinted by it beside it; the framebuffer is left showing what the window shows.
void Viewer::save_image_and_overlay(const std::string& path) {
    const bool overlay = overlay_bounce_ >= 0;
    if (overlay) draw_image(false);
    save_screenshot(path);
    if (!overlay) return;
    draw_image(true);
    save_screenshot(overlay_screenshot_path(path));
}

// The accumulated linear radiance (before exposure), as `render -o x.exr --exr-pixel float`.
void Viewer::save_exr(const std::string& path) {
    LinearImage lin;
    ex_->read_linear(lin);
    ExrOptions o;
    o.half = false;
    write_image(path, ImageFormat::Exr, Image{}, lin, o);
    std::fprintf(stderr, "viewer: saved %s (%dx%d, %d samples, linear float)\n", path.c_str(), lin.width, lin.height,
                 accumulated_);
}

// "viewer: first frame swapped 485 ms after the command started (scene read 80, ...)":
// the moments before it in the order they came.
void Viewer::print_first_frame() {
    std::vector<Options::Mark> marks = options_.marks;
    std::stable_sort(marks.begin(), marks.end(), [](const Options::Mark& a, const Options::Mark& b) { return a.ms < b.ms; });
    std::string when;
    for (const Options::Mark& m : marks) {
        char part[64];
        std::snprintf(part, sizeof part, "%s%s %.0f", when.empty() ? "" : ", ", m.what, m.ms);
        when += part;
    }
    std::fprintf(stderr, "viewer: first frame swapped %.0f ms after the command started (ms: %s)\n",
                 options_.since_started(), when.c_str());
}

int Viewer::run() {
    // A bad script is an input error: report it before any window appears.
    if (!options_.input_script.empty()) script_ = parse_input_script(options_.input_script);

    // The scene is compiled (its BVH built), uploaded and its first frame's kernels
    // readied on a thread of its own while the window and its GL context open: on the GPU
    // machine the GLX context alone takes longer than Conference's PLOC build. Nothing
    // on this thread touches the executor or compiled_ until the thread is joined.
    RenderSettings first = rs_;
    first.spp = std::min(rs_.spp, options_.max_samples);  // as render_frame's first frame
    std::array<Options::Mark, 3> compile_marks{};  // written by the thread, read after it is joined
    auto compiling = std::async(std::launch::async, [this, first, camera = camera_.camera(), &compile_marks] {
        compiled_ = compile_scene(scene_, options_.accel, options_.build);
        compile_marks[0] = {"tree", options_.since_started()};
        {
            load_progress::Stage stage("upload", compiled_.device_bytes(), "bytes");
            ex_->set_scene(compiled_);
        }
        compile_marks[1] = {"upload", options_.since_started()};
        if (first.spp > 0) ex_->warm_up(camera, first);
        compile_marks[2] = {"kernels", options_.since_started()};
    });
    if (!open_window()) {
        std::fprintf(stderr,
                     "stencilrt view: cannot open a window: %s\n"
                     "hint: the viewer needs a display (X11). Without one, render images with "
                     "`stencilrt render` (headless), or run the viewer under xvfb-run.\n",
                     g_glfw_error.empty() ? "unknown GLFW error" : g_glfw_error.c_str());
        return 2;
    }
    options_.marks.push_back({"window", options_.since_started()});
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
    options_.marks.push_back({"GL", options_.since_started()});

    compiling.get();
    options_.marks.insert(options_.marks.end(), compile_marks.begin(), compile_marks.end());
    env_rotation_ = scene_.environment.rotation;
    load_progress::done();
    std::fprintf(stderr, "bvh      %s: %.1f ms; stages %s\n", compiled_.bvh_stats.builder.c_str(),
                 compiled_.bvh_stats.build_ms, load_progress::summary().c_str());
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
    double window_render_ms = 0.0;
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

        // A script replays the same views on every run: its frames step a fixed 1/60 s,
        // not the wall clock's time, which would move the camera by a different amount.
        render_frame(script_.empty() ? dt : 1.0 / 60.0);
        if (frame == 0) options_.marks.push_back({"frame", options_.since_started()});
        window_render_ms += render_ms_;
        draw_image(overlay_bounce_ >= 0);

        const bool last_frame = options_.frames > 0 && frame + 1 >= options_.frames;
        // The screenshot of the image alone is read before the HUD is drawn, so it
        // can be compared exactly with a headless render.
        if (last_frame && !options_.screenshot.empty()) {
            save_image_and_overlay(options_.screenshot);
            screenshot_saved = true;
        }
        if (screenshot_requested_) {
            char name[64];
            std::snprintf(name, sizeof name, "stencilrt-view-%04d.png", screenshot_counter_++);
            save_image_and_overlay(name);
            screenshot_requested_ = false;
        }
        if (camera_print_requested_) {
            print_camera();
            camera_print_requested_ = false;
        }
        if (auto_exposure_requested_ || (options_.auto_exposure && frame == 0)) {
            // As --exposure auto does (render/exposure.h), from the image on screen; the
            // number is the HUD's and C's, so the view can be rendered again exactly.
            LinearImage lin;
            ex_->read_linear(lin);
            rs_.exposure = auto_exposure(lin);
            std::fprintf(stderr, "viewer: exposure auto: %+.2f EV\n", double(rs_.exposure));
            auto_exposure_requested_ = false;
        }
        if (exr_requested_) {
            char name[64];
            std::snprintf(name, sizeof name, "stencilrt-view-%04d.exr", screenshot_counter_++);
            save_exr(name);
            exr_requested_ = false;
        }
        if (hud_visible_) draw_hud();
        if (last_frame && !hud_shot.empty()) save_screenshot(hud_shot);
        glfwSwapBuffers(window_.w);
        if (frame == 0) print_first_frame();

        if ((frame + 1) % 100 == 0) {
            const double s = std::chrono::duration<double>(Clock::now() - window_start).count();
            // Where a frame's time goes: the render into the display texture (render_frame:
            // the executor, the gather of split bands, the upload) against the whole frame.
            std::fprintf(stderr, "viewer: frame %d fps=%.1f, render+upload %.2f ms a frame (last 100 frames; %dx%d depth %d mode %s)\n",
                         frame + 1, 100.0 / s, window_render_ms / 100.0, rs_.width, rs_.height, rs_.depth,
                         to_string(rs_.mode));
            if (const SplitExecutor* split = ex_->split())
                for (size_t i = 0; i < split->bands().size(); ++i)
                    std::fprintf(stderr, "viewer:   part %zu: %d rows, %.2f ms, of which gather %.2f ms (the last frame)\n",
                                 i, split->bands()[i].rows, split->bands()[i].ms, split->bands()[i].gather_ms);
            window_start = Clock::now();
            window_render_ms = 0.0;
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
    std::fprintf(stderr, "viewer: accumulated %d samples (exposure %+.2f EV)\n", accumulated_, double(rs_.exposure));
    ex_->set_stencil_probe(nullptr);  // its lambda points into this Viewer
    if (!options_.screenshot.empty() && !screenshot_saved) {
        // A caller waiting for the file must not take a quiet exit for success.
        std::fprintf(stderr, "stencilrt view: the window closed after %d of %d frames; %s was not written\n",
                     frame, options_.frames, options_.screenshot.c_str());
        return 1;
    }
    return 0;
}

}  // namespace detail


int run(const Scene& scene, const RenderSettings& settings, std::unique_ptr<Executor> executor,
        const Options& options) {
    detail::Viewer v(scene, settings, std::move(executor), options);
    return v.run();
}

}  // namespace srt::viewer
