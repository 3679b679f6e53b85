// cmd_view.cpp - `stencilrt view`: the scene, the settings and the executor, then the
// viewer (src/viewer/) when it is built.
#include "app/app.h"
#include "bench/tuning.h"

#include "core/error.h"
#include "core/load_progress.h"

#include <unistd.h>

#if defined(SRT_HAVE_VIEWER)
#include "viewer/viewer.h"
#endif
#if defined(SRT_HAVE_CUDA)
#include "cuda/cuda_executor.h"
#endif

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>

namespace srt::app {

#if defined(SRT_HAVE_VIEWER)
namespace {

// When this process started (Linux's /proc, to the clock tick: 10 ms): the first frame's
// line counts from there, the dynamic loader's work included. Elsewhere: now.
std::chrono::steady_clock::time_point process_start() {
    const auto now = std::chrono::steady_clock::now();
    FILE* stat = std::fopen("/proc/self/stat", "r");
    FILE* uptime = std::fopen("/proc/uptime", "r");
    unsigned long long start_ticks = 0;
    double up = 0.0;
    bool ok = stat && uptime && std::fscanf(uptime, "%lf", &up) == 1;
    if (ok) {  // field 22, after the command's name in parentheses (which may hold spaces)
        char line[1024];
        const char* close = std::fgets(line, sizeof line, stat) ? std::strrchr(line, ')') : nullptr;
        ok = close && std::sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %*u %*lu %*lu %*lu %*lu %*lu %*lu %*ld %*ld %*ld %*ld %*ld %*ld %llu",
                                  &start_ticks) == 1;
    }
    if (stat) std::fclose(stat);
    if (uptime) std::fclose(uptime);
    const long tick = sysconf(_SC_CLK_TCK);
    if (!ok || tick <= 0) return now;
    const double since = up - double(start_ticks) / double(tick);
    if (!(since >= 0.0 && since < 3600.0)) return now;
    return now - std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(since));
}

struct ViewExecutor {
    std::unique_ptr<Executor> ex;
    std::string notice;  // why the viewer renders on the CPU, for its HUD; empty on a GPU
};

// The CUDA executor is made here rather than through make_executor because the viewer
// needs it as a CudaExecutor: only that one renders into a mapped GL buffer.
ViewExecutor make_view_executor(const FrameOptions& fo) {
    ViewExecutor v;
    const Backend b = fo.parsed_backend();
#if defined(SRT_HAVE_CUDA)
    if (b != Backend::Cpu && !fo.devices.empty()) {
        v.ex = make_executor(b, fo.devices);  // one GPU's or a split's executor: a CudaExecutor either way
    } else if (b != Backend::Cpu) {
        std::string why;
        v.ex = make_cuda_executor(why);
        if (!v.ex) {
            if (b == Backend::Cuda) throw BackendUnavailable("--backend cuda: " + why);
            v.notice = "no usable CUDA device (" + why + "); rendering on the CPU";
            std::fprintf(stderr, "notice: %s\n", v.notice.c_str());
            v.ex = make_cpu_executor();
        }
    }
#endif
    if (!v.ex) {
        v.ex = make_executor(b);  // prints its own notice under auto without CUDA
        if (b == Backend::Auto) v.notice = "built without CUDA; rendering on the CPU";
    }
    return v;
}

}  // namespace
#endif

int cmd_view(const SceneOptions& so, const FrameOptions& fo, const CLI::App& cmd,
             const std::vector<std::string>& extra) {
#if defined(SRT_HAVE_VIEWER)
    // extra = {frames, screenshot, no_vsync "0"/"1", input_script, shader_dir, max_samples} (see main.cpp).
    viewer::Options vo;
    vo.started = process_start();
    vo.accel = so.accel_layout();
    vo.scene_path = so.scene;
    vo.auto_exposure = fo.auto_exposure();
    vo.frames = extra.size() > 0 ? std::atoi(extra[0].c_str()) : 0;
    vo.screenshot = extra.size() > 1 ? extra[1] : "";
    vo.vsync = !(extra.size() > 2 && extra[2] == "1");
    vo.input_script = extra.size() > 3 ? extra[3] : "";
    vo.shader_dir = extra.size() > 4 ? extra[4] : "";
    vo.max_samples = extra.size() > 5 ? std::atoi(extra[5].c_str()) : 4096;
    if (!vo.shader_dir.empty() && !std::filesystem::is_directory(vo.shader_dir))
        throw InputError("--shader-dir " + vo.shader_dir + ": not a directory");

    // Checked before the window opens, not after N frames of rendering.
    if (!vo.screenshot.empty()) {
        if (vo.frames == 0) throw InputError("--screenshot needs --frames N (the frame to save is the last one)");
        check_output_path(vo.screenshot, so.scene, "--screenshot", "screenshot");
    }

    // The executor is made on a thread of its own while the scene is read and compiled, as
    // `render` makes it (cmd_render.cpp): on a GPU the context's creation overlaps them.
    double made_ms = 0.0;  // when the executor was ready (its context made), for the first frame's line
    auto made = std::async(std::launch::async, [&] {
        ViewExecutor v = make_view_executor(fo);
        made_ms = vo.since_started();
        return v;
    });
    load_progress::show_on_terminal(isatty(fileno(stderr)) != 0);  // the viewer says done() after its upload
    const Scene scene = load_with_overrides(so);
    vo.marks.push_back({"scene read", vo.since_started()});
    for (const std::string& n : scene.notes) std::fprintf(stderr, "note: %s\n", n.c_str());
    BuildChoice build = choose_bvh_build(so, fo.parsed_backend(), Purpose::View, 0);
    vo.build = build.options;
    RenderSettings rs = fo.settings(scene, cmd);
    // The running sum grows to --max-samples: zsobol lays its sequence out for that many.
    rs.samples_planned = vo.max_samples;
    if (const std::string why = sampler_problem(rs); !why.empty()) throw InputError(why + " (view: or a lower --max-samples)");

    auto [ex, notice] = made.get();
    vo.marks.push_back({"executor", made_ms});
    vo.backend_notice = notice;
    bench::apply_cached_tuning(*ex, rs.width, rs.height);  // launch sizes from `bench --tune`, if any
    return viewer::run(scene, rs, std::move(ex), vo);
#else
    (void)so; (void)fo; (void)cmd; (void)extra;
    std::fprintf(stderr,
                 "stencilrt view: this stencilrt was built without the viewer (GLFW, Dear ImGui or "
                 "python3-glad were missing at configure time); use `stencilrt render` instead\n");
    return 2;
#endif
}

}  // namespace srt::app
