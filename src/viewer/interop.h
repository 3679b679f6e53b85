// interop.h - CUDA writes the frame straight into a GL pixel buffer (no host copy).
//
// Plain C++: no CUDA types, so viewer.cpp compiles the same with and without CUDA.
// The implementation (interop.cpp) is the only viewer file that includes CUDA headers.
#pragma once

#include "viewer/gl.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace srt::viewer {

// One GL buffer registered with CUDA (cudaGraphicsGLRegisterBuffer, write-discard).
// Registered once per buffer: when the window is resized the viewer makes a new
// buffer and registers that one (the old registration is dropped first).
class PboInterop {
public:
    virtual ~PboInterop() = default;
    // Maps the buffer for CUDA, calls `write` with its device address and size in
    // bytes, waits for the device, and unmaps it, so that GL may read it afterwards.
    // Throws std::runtime_error naming the failed CUDA call, its code and file:line.
    virtual void write(const std::function<void(uint32_t* device_rgba, size_t bytes)>& write) = 0;
};

// Registers `pbo` (already given its size with glBufferData). Returns nullptr and
// sets `why_not` when it cannot be done: built without CUDA, or the GL context is
// not on a CUDA device (e.g. Mesa's software GL), or the driver refuses.
std::unique_ptr<PboInterop> register_pbo(GLuint pbo, std::string& why_not);

}  // namespace srt::viewer
