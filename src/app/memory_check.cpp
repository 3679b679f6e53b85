// memory_check.cpp - host memory need of a frame vs MemAvailable (see memory_check.h).
#include "app/memory_check.h"

#include "core/error.h"
#include "render/frame.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace srt::app {

HostMemoryNeed host_memory_need(int width, int height, int warp_width, bool rays_on_host, int tree_depth) {
    HostMemoryNeed n;
    const uint64_t pixels = uint64_t(width) * uint64_t(height);
    if (rays_on_host) {
        // CpuExecutor::allocate: origin, direction, weight, radiance (float4 each),
        // hit distance (float), hit id (int32) per ray, one stencil bit per ray. The rays
        // are frame_geometry's: whole warp tiles covering the image (render/frame.h), so
        // more than the pixels rounded up to 32 when the image is not a whole number of
        // tiles.
        const uint64_t rays = frame_geometry(uint32_t(width), uint32_t(height), uint32_t(warp_width)).ray_count;
        n.ray_bytes = rays * (4 * 16 + 4 + 4) + rays / 8;
        if (tree_depth > 0) n.ray_bytes += ray_tree_bytes(uint32_t(rays), tree_depth);
    }
    // The RGBA image, then write_png_atomic's RGB copy and the encoded PNG (bounded
    // by about the raw size for incompressible images) while the image is alive.
    n.image_bytes = pixels * 4 + pixels * 3 + pixels * 3;
    return n;
}

uint64_t host_memory_available() {
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, 13, "MemAvailable:") != 0) continue;
        std::istringstream ss(line.substr(13));
        uint64_t kib = 0;
        std::string unit;
        if (ss >> kib >> unit && unit == "kB") return kib * 1024;
        return 0;
    }
    return 0;  // not Linux, or a kernel older than 3.14: no figure, no check
}

std::string format_bytes(uint64_t bytes) {
    char buf[64];
    if (bytes >= (uint64_t(1) << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(1u << 30));
    else std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / double(1u << 20));
    return buf;
}

void check_host_memory(int width, int height, int warp_width, bool rays_on_host, uint64_t available,
                       int tree_depth) {
    const HostMemoryNeed n = host_memory_need(width, height, warp_width, rays_on_host, tree_depth);
    if (available == 0 || n.total() <= available) return;
    std::string parts = rays_on_host ? "ray buffers " + format_bytes(n.ray_bytes) + " + image " : "image ";
    parts += format_bytes(n.image_bytes);
    throw InputError("render " + std::to_string(width) + "x" + std::to_string(height) + " needs " +
                     format_bytes(n.total()) + " of host memory (" + parts + "), but only " +
                     format_bytes(available) + " is available (MemAvailable); use a smaller --width/--height" +
                     (rays_on_host ? " or the CUDA backend" : ""));
}

}  // namespace srt::app
