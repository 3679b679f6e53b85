// cmd_render.cpp - `stencilrt render`: one frame to a PNG.
#include "app/app.h"
#include "app/memory_check.h"
#include "bench/tuning.h"

#include "core/error.h"
#include "core/image.h"
#include "core/image_formats.h"
#include "render/scene_gpu.h"

#include <chrono>
#include <cstdio>
#include <filesystem>

namespace srt::app {
namespace {

// Refuses to write the output over an input file. ("-" is standard output.)
void check_output_path(const std::string& out, const std::string& scene) {
    namespace fs = std::filesystem;
    if (out == "-") return;
    std::error_code ec;
    if (!scene.empty() && fs::exists(out, ec) && fs::equivalent(out, scene, ec))
        throw InputError("-o " + out + ": refusing to write the image over the scene file");
    if (fs::is_directory(out, ec)) throw InputError("-o " + out + ": is a directory");
    const fs::path parent = fs::absolute(out, ec).parent_path();
    if (!fs::is_directory(parent, ec))
        throw InputError("-o " + out + ": directory '" + parent.string() + "' does not exist");
}

void print_stats(std::FILE* info, const FrameStats& st) {
    std::fprintf(info, "%-7s %12s %12s %8s\n", "bounce", "live rays", "live warps", "SIMD");
    for (size_t b = 0; b < st.bounces.size(); ++b) {
        const BounceStats& s = st.bounces[b];
        std::fprintf(info, "%-7zu %12llu %12llu %7.1f%%\n", b, (unsigned long long)s.live_rays,
                    (unsigned long long)s.live_warps, 100.0 * s.simd_efficiency());
    }
    for (const StageTime& t : st.stage_ms) std::fprintf(info, "  %-10s %9.3f ms\n", t.stage.c_str(), t.ms);
}

}  // namespace

int cmd_render(const SceneOptions& so, const FrameOptions& fo, const CLI::App& cmd,
               const RenderOptions& ro) {
    using Clock = std::chrono::steady_clock;
    const std::string& out = ro.out;
    const bool stats = ro.stats;
    check_output_path(out, so.scene);
    const ImageFormat format = image_format_for(out);  // before anything runs: exit 2 on .jpg
    ExrOptions exr;
    exr.half = ro.exr_pixel == "half";
    exr.alpha = ro.exr_channels == "rgba";
    // With -o - the image goes to standard output, so the text goes to standard error.
    std::FILE* info = out == "-" ? stderr : stdout;

    const auto t_load = Clock::now();
    const Scene scene = load_with_overrides(so);
    for (const std::string& n : scene.notes) std::fprintf(stderr, "note: %s\n", n.c_str());
    const double load_ms = std::chrono::duration<double, std::milli>(Clock::now() - t_load).count();
    const CompiledScene compiled = compile_scene(scene);
    const RenderSettings rs = fo.settings(scene, cmd);

    auto ex = app::make_executor(fo.parsed_backend());
    const bool gpu = ex->name().rfind("cuda", 0) == 0;
    // Before any frame buffer exists: a clear message (exit 2) instead of bad_alloc or
    // the OOM killer. The CUDA executor checks its own ray buffers against the device.
    check_host_memory(rs.width, rs.height, rs.warp_width, !gpu, host_memory_available());
    bench::apply_cached_tuning(*ex, rs.width, rs.height);
    ex->set_scene(compiled);
    std::fprintf(info, "scene    %s: %zu spheres, %zu planes, %zu triangles, %zu lights (load %.1f ms, BVH %.1f ms, %u nodes)\n",
                scene.name.c_str(), scene.spheres.size(), scene.planes.size(), scene.triangles.size(),
                scene.lights.size(), load_ms, compiled.bvh_stats.build_ms, compiled.bvh_stats.nodes);
    std::fprintf(info, "backend  %s, mode %s\n", ex->name().c_str(), to_string(rs.mode));

    Image img;
    FrameStats st;
    double ms = 0.0;
    if (gpu) {
        // The image comes from a first frame (which also loads the module and allocates);
        // the time from a second one with CUDA events around generate..resolve, without
        // the read-back; the ray counts from a third, counted frame (counting is opt-in
        // on the GPU, to keep timed frames clean).
        ex->render(scene.camera, rs, img);
        ms = ex->timed_frame(scene.camera, rs);
        // Per-stage times need events between the kernels: stream launches for --stats.
        RenderSettings counted = rs;
        if (stats) counted.launch = LaunchMode::Stream;
        ex->render(scene.camera, counted, img, &st);
    } else {
        // The CPU executor counts as it goes: one frame, timed on the host clock.
        const auto t0 = Clock::now();
        ex->render(scene.camera, rs, img, &st);
        ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    }
    const double rays = double(st.rays_traced), rate = rays / (ms * 1e-3);
    std::fprintf(info, "frame    %dx%d, depth %d, %d spp: %.3f ms (%s), %.2f M rays, %.3g %s rays/s incl. shadow rays\n",
                rs.width, rs.height, rs.depth, rs.spp, ms, gpu ? "CUDA events" : "host clock", rays * 1e-6,
                rate >= 1e9 ? rate * 1e-9 : rate * 1e-6, rate >= 1e9 ? "G" : "M");
    if (stats) print_stats(info, st);

    LinearImage linear;
    if (is_linear(format)) ex->read_linear(linear);  // the last frame: the same image
    write_image(out, format, img, linear, exr);
    if (out != "-") std::printf("%s\n", std::filesystem::absolute(out).string().c_str());
    return 0;
}

}  // namespace srt::app
