// window.h - the window system, scoped: GLFW's library and window, Dear ImGui's context.
#pragma once

#include "viewer/gl.h"  // GLAD first: GLFW must not bring its own GL

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace srt::viewer::detail {

// GLFW reports errors through a callback; the last one goes into the messages.
inline std::string g_glfw_error;
inline void on_glfw_error(int code, const char* text) {
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

}  // namespace srt::viewer::detail
