// gl_util.cpp - shader files found at run time, compiled with their info logs in errors.
#include "viewer/gl.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace srt::viewer {
namespace {

namespace fs = std::filesystem;

// The running binary's directory, so an installed or copied stencilrt finds shaders
// next to it even when neither compiled-in directory exists (a relocated install).
fs::path executable_dir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read shader '" + p.string() + "'");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

GlShader compile(GLenum type, const std::string& path) {
    const std::string src = read_text(path);
    GlShader sh(glCreateShader(type));
    const char* text = src.c_str();
    glShaderSource(sh.get(), 1, &text, nullptr);
    glCompileShader(sh.get());
    GLint ok = 0;
    glGetShaderiv(sh.get(), GL_COMPILE_STATUS, &ok);
    if (!ok) {
        GLint len = 0;
        glGetShaderiv(sh.get(), GL_INFO_LOG_LENGTH, &len);
        std::vector<char> log(size_t(std::max(len, 1)), '\0');
        glGetShaderInfoLog(sh.get(), GLsizei(log.size()), nullptr, log.data());
        throw std::runtime_error("shader '" + path + "' does not compile:\n" + log.data());
    }
    return sh;
}

}  // namespace

std::string find_shader(const std::string& name) {
    std::vector<fs::path> dirs;
#if defined(SRT_SHADER_DIR)
    dirs.emplace_back(SRT_SHADER_DIR);
#endif
#if defined(SRT_INSTALLED_SHADER_DIR)
    dirs.emplace_back(SRT_INSTALLED_SHADER_DIR);
#endif
    const fs::path exe = executable_dir();
    if (!exe.empty()) {
        dirs.push_back(exe / ".." / "share" / "stencilrt" / "shaders");
        dirs.push_back(exe / "shaders");
    }
    std::string tried;
    for (const fs::path& d : dirs) {
        std::error_code ec;
        const fs::path p = d / name;
        if (fs::is_regular_file(p, ec)) return p.lexically_normal().string();
        tried += "\n  " + p.lexically_normal().string();
    }
    throw std::runtime_error("shader '" + name + "' not found; looked in:" + tried);
}

GlProgram load_program(const std::string& vert_name, const std::string& frag_name) {
    const std::string vp = find_shader(vert_name), fp = find_shader(frag_name);
    GlShader vs = compile(GL_VERTEX_SHADER, vp);
    GlShader fs_ = compile(GL_FRAGMENT_SHADER, fp);
    GlProgram prog(glCreateProgram());
    glAttachShader(prog.get(), vs.get());
    glAttachShader(prog.get(), fs_.get());
    glLinkProgram(prog.get());
    GLint ok = 0;
    glGetProgramiv(prog.get(), GL_LINK_STATUS, &ok);
    if (!ok) {
        GLint len = 0;
        glGetProgramiv(prog.get(), GL_INFO_LOG_LENGTH, &len);
        std::vector<char> log(size_t(std::max(len, 1)), '\0');
        glGetProgramInfoLog(prog.get(), GLsizei(log.size()), nullptr, log.data());
        throw std::runtime_error("program '" + vp + "' + '" + fp + "' does not link:\n" + log.data());
    }
    // The shaders stay alive only until the program is linked; detaching lets the
    // GlShader owners actually free them.
    glDetachShader(prog.get(), vs.get());
    glDetachShader(prog.get(), fs_.get());
    return prog;
}

void check_gl(const char* what) {
    const GLenum e = glGetError();
    if (e != GL_NO_ERROR) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "0x%04x", unsigned(e));
        throw std::runtime_error(std::string(what) + ": GL error " + buf);
    }
}

}  // namespace srt::viewer
