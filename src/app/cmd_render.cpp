// cmd_render.cpp - `stencilrt render`: one frame, or frames of a camera path, to image files.
#include "app/app.h"
#include "app/frame_range.h"
#include "app/frame_writer.h"
#include "app/memory_check.h"
#include "bench/bench.h"
#include "bench/tuning.h"

#include "core/error.h"
#include "core/image.h"
#include "core/image_formats.h"
#include "core/load_progress.h"
#include "core/output_file.h"
#include "revision.h"  // generated: SRT_REVISION
#include "render/exposure.h"
#include "render/pipeline.h"
#include "render/scene_gpu.h"
#include "scene/instances.h"
#include "render/split_executor.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>

namespace srt::app {
namespace {

using Clock = std::chrono::steady_clock;
using bench::ojson;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

void print_stats(std::FILE* info, const FrameStats& st) {
    std::fprintf(info, "%-7s %12s %12s %8s\n", "bounce", "live rays", "live warps", "SIMD");
    for (size_t b = 0; b < st.bounces.size(); ++b) {
        const BounceStats& s = st.bounces[b];
        std::fprintf(info, "%-7zu %12llu %12llu %7.1f%%\n", b, (unsigned long long)s.live_rays,
                    (unsigned long long)s.live_warps, 100.0 * s.simd_efficiency());
    }
    for (const StageTime& t : st.stage_ms) std::fprintf(info, "  %-10s %9.3f ms\n", t.stage.c_str(), t.ms);
    std::fprintf(info, "non-finite samples dropped: %llu\n", (unsigned long long)st.nonfinite_samples);
}

std::string rate_text(double per_s) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3g %s", per_s >= 1e9 ? per_s * 1e-9 : per_s * 1e-6, per_s >= 1e9 ? "G" : "M");
    return b;
}

// from and at are doubles, written with the digits that read back the same.
ojson camera_json(const Camera& c) {
    return {{"from", {c.from.x, c.from.y, c.from.z}},
            {"at", {c.at.x, c.at.y, c.at.z}},
            {"up", {c.up.x, c.up.y, c.up.z}},
            {"fov", c.fov_deg},
            {"aperture", c.aperture},
            {"focus_distance", c.focus()}};
}

// A progress bar on a terminal; elsewhere (logs, CI) a line at every tenth.
class Progress {
public:
    Progress(int total, std::FILE* to) : total_(total), to_(to), tty_(isatty(fileno(to)) != 0) {}
    void step(int done, double elapsed_s) {
        const double fps = elapsed_s > 0 ? done / elapsed_s : 0.0;
        if (tty_) {
            const int width = 30, filled = done * width / total_;
            std::fprintf(to_, "\r[%s%s] %d/%d frames, %.1f frames/s", std::string(size_t(filled), '#').c_str(),
                         std::string(size_t(width - filled), '-').c_str(), done, total_, fps);
            if (done == total_) std::fputc('\n', to_);
        } else if (done * 10 / total_ != (done - 1) * 10 / total_ || done == total_) {
            std::fprintf(to_, "progress %d/%d frames, %.1f frames/s\n", done, total_, fps);
        }
        std::fflush(to_);
    }

private:
    int total_;
    std::FILE* to_;
    bool tty_;
};

}  // namespace

int cmd_render(const SceneOptions& so, const FrameOptions& fo, const CLI::App& cmd, const RenderOptions& ro) {
    const std::string& out = ro.out;
    const bool sequence = !ro.frames.empty() || !ro.frame.empty();
    if (!ro.frames.empty() && !ro.frame.empty()) throw InputError("--frames and --frame: give one of them");
    if (sequence && out == "-") throw InputError("-o -: frames of a camera path go to files, not standard output");
    if (!ro.stats_json.empty()) check_output_path(ro.stats_json, so.scene, "--stats-json", "statistics");
    // The output's checks come before the scene is even read (a numbered name is
    // checked below, once the frames are known).
    const bool numbered = has_frame_number(out);
    if (!numbered) check_output_path(out, so.scene, "-o", "image");
    const ImageFormat format = image_format_for(out);  // exit 2 on .jpg, before rendering
    // With -o - the image goes to standard output, so the text goes to standard error.
    std::FILE* info = out == "-" ? stderr : stdout;

    if (ro.frame_count) {  // for job scripts (tools/slurm): nothing is rendered
        const Scene s = load_with_overrides(so);
        if (s.animation.empty()) throw InputError("--frame-count: the scene has no 'animation'");
        std::printf("%d\n", s.animation.frame_count());
        return 0;
    }
    // The executor is made on a thread of its own while the scene is read: on a GPU that
    // is the context's creation, which the BVH build on the GPU would otherwise wait for
    // (docs/performance.md, "Where the upload's 300-400 ms go"). The kernels' modules
    // still load lazily, at the upload: loading them all with the context took longer.
    auto executor = std::async(std::launch::async, [&] { return app::make_executor(fo.parsed_backend(), fo.devices); });
    const auto t_load = Clock::now();
    load_progress::show_on_terminal(isatty(fileno(stderr)) != 0);
    const Scene scene = load_with_overrides(so);
    for (const std::string& n : scene.notes) std::fprintf(stderr, "note: %s\n", n.c_str());
    const double load_ms = ms_since(t_load);

    // Which frames, and where each goes; every check before anything renders.
    std::vector<int> frames;
    if (sequence) {
        if (scene.animation.empty())
            throw InputError(std::string(ro.frames.empty() ? "--frame" : "--frames") + ": the scene has no 'animation' "
                             "(camera keys: docs/scene-format.md)");
        if (!so.from_text.empty() || !so.at_text.empty() || !so.up_text.empty() || so.fov)
            throw InputError("--camera-* and --fov set a still camera; with --frames the scene's animation moves it");
        frames = ro.frames.empty() ? parse_frames("--frame", ro.frame, scene.animation.frame_count())
                                   : parse_frames("--frames", ro.frames, scene.animation.frame_count());
        if (frames.size() > 1 && !has_frame_number(out))
            throw InputError("-o " + out + ": " + std::to_string(frames.size()) +
                             " frames need a frame number in the name, like out_%04d.png");
    }
    auto file_of = [&](int k) { return numbered ? frame_file(out, k) : out; };
    if (numbered) check_output_path(file_of(sequence ? frames.front() : 0), so.scene, "-o", "image");
    ExrOptions exr;
    exr.half = ro.exr_pixel == "half";
    exr.alpha = ro.exr_channels == "rgba";

    RenderSettings rs = fo.settings(scene, cmd);
    const double rays = double(rs.width) * double(rs.height) * double(rs.spp) * double(rs.depth) *
                        double(std::max<size_t>(1, frames.size()));
    const BuildChoice build = choose_bvh_build(so, fo.parsed_backend(), Purpose::Render,
                                               stored_triangle_count(scene) + scene.spheres.size(), rays);
    const auto t_compile = Clock::now();
    const CompiledScene compiled = compile_scene(scene, so.accel_layout(), build.options);
    const double compile_ms = ms_since(t_compile);

    auto ex = executor.get();
    const bool gpu = bench::is_cuda(*ex);  // one GPU or a frame split over several
    // Before any frame buffer exists: a clear message (exit 2) instead of bad_alloc or
    // the OOM killer. The CUDA executor checks its own ray buffers against the device.
    check_host_memory(rs.width, rs.height, rs.warp_width, !gpu, host_memory_available(),
                      uses_ray_tree(compiled.view(), rs) ? rs.depth : 0);
    bench::apply_cached_tuning(*ex, rs.width, rs.height);
    const auto t_upload = Clock::now();
    {
        load_progress::Stage stage("upload", compiled.device_bytes(), "bytes");
        ex->set_scene(compiled);
    }
    load_progress::done();
    const double upload_ms = ms_since(t_upload);
    // The nodes of the layout that traversal reads, not the BVH2 it was collapsed from.
    const uint32_t nodes = !compiled.nodes8.empty()   ? compiled.bvh8_stats.nodes
                           : !compiled.nodes4.empty() ? compiled.bvh4_stats.nodes
                                                      : compiled.bvh_stats.nodes;
    std::fprintf(info, "scene    %s: %zu spheres, %zu planes, %zu triangles%s, %zu lights (%s), textures: %s (load %.1f ms, %s %.1f ms, %u nodes)\n",
                scene.name.c_str(), scene.spheres.size(), scene.planes.size(), scene.triangles.size(), instances_text(scene).c_str(),
                scene.lights.size(), to_string(scene.light_model), texture_line(scene, compiled).c_str(), load_ms,
                compiled.layout_name(), compiled.bvh_stats.build_ms, nodes);
    if (!compiled.instances.empty() && so.accel_layout() != AccelLayout::Bvh8)
        std::fprintf(info, "note     a scene with instances is traversed as a BVH8 (--accel %s applies to scenes without)\n",
                     so.accel.c_str());
    std::fputs(bvh_line(compiled, build).c_str(), info);
    std::fprintf(info, "stages   %s\n", load_progress::summary().c_str());
    if (const Environment& e = scene.environment; e.active())
        std::fprintf(info, "sky      %s: %dx%d texels, x%g, turned %g degrees%s\n", e.file.c_str(), e.image->width,
                     e.image->height, double(e.intensity), double(e.rotation),
                     compiled.env.light == kNoEmitter ? " (black: it lights nothing)"
                     : rs.integrator == Integrator::Path ? ", a light"
                                                         : " (seen, not a light, under whitted)");
    std::fprintf(info, "backend  %s, mode %s, %s integrator%s%s\n", ex->name().c_str(), to_string(rs.mode),
                 to_string(rs.integrator),
                 rs.integrator == Integrator::Path ? (std::string(", ") + to_string(rs.sampler) + " sampler").c_str() : "",
                 rs.kill.active() ? (", rays killed by " + to_string(rs.kill)).c_str() : "");

    const uint32_t warps = frame_geometry(uint32_t(rs.width), uint32_t(rs.height), uint32_t(rs.warp_width)).ray_count / 32u;
    ojson frame_records = ojson::array();
    auto record = [&](int k, const Camera& cam, double ms, const char* timing, const FrameStats& st,
                      const std::string& file) {
        ojson j;
        j["frame"] = sequence ? ojson(k) : ojson(nullptr);
        j["camera"] = camera_json(cam);
        j["output"] = file == "-" ? "-" : std::filesystem::absolute(file).string();
        j["frame_ms"] = ms;
        j["timing"] = timing;
        j["rays_per_s"] = ms > 0 ? double(st.rays_traced) / (ms * 1e-3) : 0.0;
        bench::add_counters_json(j, st, warps, rs.spp);
        frame_records.push_back(j);
    };

    Image img;
    LinearImage linear;
    uint64_t total_rays = 0;
    const auto t_all = Clock::now();
    if (!sequence) {
        FrameStats st;
        double ms = 0.0;
        if (gpu) {
            // The image comes from a first frame (which also loads the module and
            // allocates); the time from a second one with CUDA events around
            // generate..resolve, without the read-back; the ray counts from a third,
            // counted frame (counting is opt-in on the GPU, to keep timed frames clean).
            ex->render(scene.camera, rs, img);
            ms = ex->timed_frame(scene.camera, rs);
            // Per-stage times need events between the kernels: stream launches for --stats.
            RenderSettings counted = rs;
            if (ro.stats) counted.launch = LaunchMode::Stream;
            ex->render(scene.camera, counted, img, &st);
        } else {
            // The CPU executor counts as it goes: one frame, timed on the host clock.
            const auto t0 = Clock::now();
            ex->render(scene.camera, rs, img, &st);
            ms = ms_since(t0);
        }
        const double rays = double(st.rays_traced);
        std::fprintf(info, "frame    %dx%d, depth %d, %d spp: %.3f ms (%s), %.2f M rays, %s rays/s incl. shadow rays\n",
                     rs.width, rs.height, rs.depth, rs.spp, ms,
                     ex->split() ? "host clock, every band gathered on one GPU" : gpu ? "CUDA events" : "host clock",
                     rays * 1e-6,
                     rate_text(rays / (ms * 1e-3)).c_str());
        if (ro.stats) print_stats(info, st);
        if (const SplitExecutor* split = ex->split())
            for (size_t i = 0; i < split->bands().size(); ++i)
                std::fprintf(info, "band     part %zu: rows %d..%d, %.3f ms\n", i, split->bands()[i].y,
                             split->bands()[i].y + split->bands()[i].rows - 1, split->bands()[i].ms);
        // The last frame's linear radiance (the same image): for EXR and PFM, for an
        // exposure chosen from it, and to see whether it came out black.
        ex->read_linear(linear);
        if (fo.auto_exposure()) {
            rs.exposure = auto_exposure(linear);
            encode_at_exposure(linear, rs.exposure, img);  // the bits --exposure EV renders
            std::fprintf(info, "exposure auto: %+.2f EV (the log-average luminance of the lit pixels brought to 0.18)\n",
                         double(rs.exposure));
        }
        if (const std::string note = dark_image_note(scene, linear, rs.exposure); !note.empty())
            std::fprintf(stderr, "note: %s\n", note.c_str());
        write_image(file_of(0), format, img, linear, exr);  // a frame number in a still's name is 0
        record(0, scene.camera, ms,
               ex->split()  ? "host clock around every band and its gather onto one GPU"
               : gpu        ? "cuda events around generate..resolve"
                            : "host clock around the frame",
               st,
               file_of(0));
        total_rays = st.rays_traced;
    } else {
        // Each frame: its camera from the path alone (any order, any process, the same
        // file), one counted render, the file written before the next frame starts.
        // Files are encoded and written on worker threads (app/frame_writer.h) while
        // the next frames render; a failed write stops the sequence with its error.
        if (fo.auto_exposure()) {  // one exposure for every frame, from the first: no flicker
            ex->render(scene.animation.frame(frames.front()), rs, img);
            ex->read_linear(linear);
            rs.exposure = auto_exposure(linear);
            std::fprintf(info, "exposure auto: %+.2f EV, from frame %d, for every frame\n", double(rs.exposure),
                         frames.front());
        }
        Progress progress(int(frames.size()), stderr);
        FrameWriter writer(int(std::clamp(std::thread::hardware_concurrency(), 1u, 8u)));
        for (size_t i = 0; i < frames.size(); ++i) {
            const int k = frames[i];
            const Camera cam = scene.animation.frame(k);
            FrameStats st;
            const auto t0 = Clock::now();
            ex->render(cam, rs, img, &st);
            if (is_linear(format)) ex->read_linear(linear);
            const double ms = ms_since(t0);
            const std::string file = file_of(k);
            writer.submit([file, format, exr, png = std::move(img), lin = std::move(linear)] {
                write_image(file, format, png, lin, exr);
            });
            img = Image();
            linear = LinearImage();
            record(k, cam, ms, "host clock around render and read-back", st, file);
            total_rays += st.rays_traced;
            progress.step(int(i + 1), ms_since(t_all) * 1e-3);
        }
        writer.finish();
    }
    const double wall_s = ms_since(t_all) * 1e-3;
    if (sequence)
        std::fprintf(info, "frames   %zu (%d..%d) of %dx%d, depth %d, %d spp in %.3f s: %.2f frames/s, %.2f M rays, %s rays/s\n",
                     frames.size(), frames.front(), frames.back(), rs.width, rs.height, rs.depth, rs.spp, wall_s,
                     double(frames.size()) / wall_s, double(total_rays) * 1e-6,
                     rate_text(double(total_rays) / wall_s).c_str());

    if (!ro.stats_json.empty()) {
        ojson doc;
        doc["format"] = "stencilrt-render/1";
        doc["kind"] = "render";
        doc["stencilrt_version"] = SRT_VERSION;
        doc["git_revision"] = std::string(SRT_REVISION);
        doc["date"] = bench::utc_now();
        doc["machine"] = bench::machine_json(*ex);
        doc["scene"] = bench::scene_json(scene, so.scene, compiled, load_ms, compile_ms, upload_ms);
        ojson s;
        s["width"] = rs.width;
        s["height"] = rs.height;
        s["depth"] = rs.depth;
        s["spp"] = rs.spp;
        s["integrator"] = to_string(rs.integrator);
        s["seed"] = rs.seed;
        s["sampler"] = to_string(rs.sampler);
        s["kill"] = to_string(rs.kill);
        s["mode"] = to_string(rs.mode);
        s["launch"] = to_string(rs.launch);
        s["warp_shape"] = fo.warp_shape;
        s["exposure"] = rs.exposure;
        s["backend_requested"] = fo.backend;
        s["output"] = out;
        s["output_format"] = extension_of(format) + 1;
        s["frames_requested"] = sequence ? ojson(ro.frames.empty() ? ro.frame : ro.frames) : ojson(nullptr);
        doc["settings"] = s;
        doc["frames"] = frame_records;
        doc["summary"] = {{"frames", frame_records.size()},
                          {"wall_s", wall_s},
                          {"frames_per_s", double(frame_records.size()) / wall_s},
                          {"rays_traced", total_rays}};
        write_output_file(ro.stats_json, doc.dump(2) + "\n");
    }
    if (out != "-") {
        if (!sequence) std::printf("%s\n", std::filesystem::absolute(file_of(0)).string().c_str());
        else std::printf("%s\n", std::filesystem::absolute(file_of(frames.back())).string().c_str());
    }
    return 0;
}

}  // namespace srt::app
