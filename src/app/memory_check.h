// memory_check.h - refuse a frame the host cannot hold, before any allocation fails.
//
// The CUDA executor checks its ray buffers against cudaMemGetInfo; this is the host
// side: the CPU executor keeps every ray of the frame in host memory, and a frame
// of 16384 x 16384 needs ~20 GiB. Without the check, a too-large frame ends in
// std::bad_alloc (exit 1, no hint) or, with overcommit, in the OOM killer.
#pragma once

#include <cstdint>
#include <string>

namespace srt::app {

struct HostMemoryNeed {
    uint64_t ray_bytes = 0;    // ray buffers (CPU executor only)
    uint64_t image_bytes = 0;  // RGBA frame + the PNG encoder's RGB copy and output
    uint64_t total() const { return ray_bytes + image_bytes; }
};

// Host memory a render of width x height needs, with warps covering tiles
// `warp_width` pixels wide (RenderSettings::warp_width; the ray count is
// frame_geometry's, render/frame.h). `rays_on_host`: the CPU executor (true) holds the
// ray state in host memory; the CUDA executor (false) does not. `tree_depth` > 0: a
// Whitted frame with glass at that depth, whose rays keep stacks of deferred rays
// (render/ray_tree.h) too.
HostMemoryNeed host_memory_need(int width, int height, int warp_width, bool rays_on_host, int tree_depth = 0);

// MemAvailable from /proc/meminfo, in bytes; 0 when it cannot be read.
uint64_t host_memory_available();

// Throws InputError("render WxH needs X of host memory (...); Y available") when the
// need exceeds `available`. available == 0 means unknown: no check.
void check_host_memory(int width, int height, int warp_width, bool rays_on_host, uint64_t available,
                       int tree_depth = 0);

// "1.5 GiB", "300.0 MiB": for messages.
std::string format_bytes(uint64_t bytes);

}  // namespace srt::app
