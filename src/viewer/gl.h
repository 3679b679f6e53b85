// gl.h - the viewer's one way into OpenGL: GLAD's loader and RAII owners for GL objects.
//
// GL headers appear only under src/viewer/ (the renderer knows no GL). GLAD's header
// must come before anything else that could pull in <GL/gl.h> (GLFW, CUDA's
// cuda_gl_interop.h), so every viewer file includes this one first.
#pragma once

#include <glad/gl.h>

#include <string>
#include <utility>

namespace srt::viewer {

// Owns one GL object name and deletes it with `Traits::destroy`. Move-only: a copy
// would delete the same name twice. A GL context must be current when one of these
// is created or destroyed, so the viewer destroys them before the window.
template <class Traits>
class GlObject {
public:
    GlObject() = default;
    explicit GlObject(GLuint id) : id_(id) {}
    ~GlObject() { reset(); }
    GlObject(const GlObject&) = delete;
    GlObject& operator=(const GlObject&) = delete;
    GlObject(GlObject&& o) noexcept : id_(std::exchange(o.id_, 0)) {}
    GlObject& operator=(GlObject&& o) noexcept {
        if (this != &o) {
            reset();
            id_ = std::exchange(o.id_, 0);
        }
        return *this;
    }

    static GlObject create() { return GlObject(Traits::create()); }
    GLuint get() const { return id_; }
    explicit operator bool() const { return id_ != 0; }
    void reset() {
        if (id_) Traits::destroy(id_);
        id_ = 0;
    }

private:
    GLuint id_ = 0;
};

struct BufferTraits {
    static GLuint create() { GLuint id = 0; glGenBuffers(1, &id); return id; }
    static void destroy(GLuint id) { glDeleteBuffers(1, &id); }
};
struct TextureTraits {
    static GLuint create() { GLuint id = 0; glGenTextures(1, &id); return id; }
    static void destroy(GLuint id) { glDeleteTextures(1, &id); }
};
struct VertexArrayTraits {
    static GLuint create() { GLuint id = 0; glGenVertexArrays(1, &id); return id; }
    static void destroy(GLuint id) { glDeleteVertexArrays(1, &id); }
};
struct ShaderTraits {
    static void destroy(GLuint id) { glDeleteShader(id); }
};
struct ProgramTraits {
    static GLuint create() { return glCreateProgram(); }
    static void destroy(GLuint id) { glDeleteProgram(id); }
};

using GlBuffer = GlObject<BufferTraits>;
using GlTexture = GlObject<TextureTraits>;
using GlVertexArray = GlObject<VertexArrayTraits>;
using GlShader = GlObject<ShaderTraits>;
using GlProgram = GlObject<ProgramTraits>;

// Compiles and links a program from two shaders of shaders/: the copies compiled into
// the binary, or, when `dir` is not empty, the files of that name in `dir` (view
// --shader-dir, to edit them live). Throws std::runtime_error with the shader's name or
// path and the driver's info log on failure.
GlProgram load_program(const std::string& vert_name, const std::string& frag_name, const std::string& dir = "");

// Throws std::runtime_error("what: GL error 0x...") when glGetError reports one.
void check_gl(const char* what);

}  // namespace srt::viewer
