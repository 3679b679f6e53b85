// cmd_bench.cpp - `stencilrt bench`: the command line. The benchmark itself is the
// src/bench/ library (bench.h: the sweep, the statistics, the reports, --skip, --tune);
// docs/benchmark.md describes what it measures and writes.
//
//   bench [SCENE] --depths 1..8 --modes stencil,flags,compact ...   the sweep
//   bench --skip                                                   dead rays skipped per second
//   bench --tune                                                   launch sizes, cached per GPU
#include <algorithm>
#include "app/app.h"
#include "app/flag_checks.h"
#include "app/bench_output.h"
#include "app/suggest.h"
#include "render/split_executor.h"

#include "bench/bench.h"
#include "core/error.h"
#include "core/load_progress.h"
#include "render/scene_gpu.h"
#include "scene/instances.h"
#include "render/tuning_cache.h"

#if defined(SRT_HAVE_CUDA)
#include "cuda/cuda_executor.h"
#endif

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace srt::app {

using namespace srt::bench;

// ---------------------------------------------------------------------------
// The command
// ---------------------------------------------------------------------------
int cmd_bench(int argc, char** argv) {
    // main() hands over the whole command line (the bench subcommand is a prefix
    // command); the options are parsed here, after the word "bench".
    int first = 1;
    while (first < argc && std::strcmp(argv[first], "bench") != 0) ++first;
    std::vector<char*> args;
    std::string prog = "stencilrt bench";
    args.push_back(prog.data());
    for (int i = first + 1; i < argc; ++i) args.push_back(argv[i]);

    BenchOptions o;
    SceneOptions so;
    CLI::App cli{"Benchmark FPS per bounce depth for each dead-ray mode, with live rays and live warps per "
                 "bounce (docs/benchmark.md)",
                 "stencilrt bench"};
    last_flag_wins(cli);
    so.add_to(cli);
    cli.add_option("--depths", o.depths_text, "Trace depths: A..B and/or a list, e.g. 1..8 or 1,2,4,8")
        ->capture_default_str();
    cli.add_option("--modes", o.modes_text, "Dead-ray modes, a comma-separated list of " + mode_list() + ", or all")
        ->capture_default_str();
    cli.add_option("--launch", o.launches_text,
                   "How the GPU's kernels are issued: graph, stream, or both (compared)")->capture_default_str();
    cli.add_option("--width,-W", o.width, "Image width in pixels")->check(whole_number(1, 16384))->capture_default_str();
    cli.add_option("--height,-H", o.height, "Image height in pixels")->check(whole_number(1, 16384))->capture_default_str();
    cli.add_option("--spp", o.spp, "Samples per pixel")->check(whole_number(1, 4096))->capture_default_str();
    cli.add_option("--integrator,-i", o.integrator_text,
                   "Light transport: whitted or path (default: the scene's render.integrator, else whitted)")
        ->check(one_of({"whitted", "path"}));
    cli.add_option("--seed", o.seed, "Path integrator: the random numbers' seed")
        ->check(whole_number(0, 4294967295LL))->capture_default_str();
    cli.add_option("--sampler", o.sampler_text, sampler_help())->check(one_of(sampler_names()));
    cli.add_option("--kill", o.kill_text, "Kill live rays at each bounce to a schedule: PATTERN:P, PATTERN ray, warp or "
                                          "blockK, P the survival per bounce or pbrt; none (docs/benchmark.md)")
        ->check(kill_validator())->capture_default_str();
    cli.add_option("--warp-shape", o.warp_shape, "Pixels covered by one warp of 32 rays")
        ->check(one_of({"1x32", "2x16", "4x8", "8x4", "16x2", "32x1"}))->capture_default_str();
    cli.add_option("--frames", o.frames, "Timed frames per configuration (CPU backend default: 3)")
        ->check(whole_number(1, 1000000))->capture_default_str();
    cli.add_option("--warmup", o.warmup, "Untimed frames before them (CPU backend default: 1)")
        ->check(whole_number(0, 1000000))->capture_default_str();
    cli.add_option("--backend,-b", o.backend, "Executor")->check(one_of({"auto", "cuda", "cpu"}))->capture_default_str();
    cli.add_option("--devices", o.devices, "GPUs to split each frame over: all, or a list like 0,1 (prints each device's band and time, the balance, and the scaling against one device)");
    cli.add_option("--csv", o.csv, "Write the results as CSV (atomically)");
    cli.add_option("--json", o.json, "Write the results, machine, build, scene and settings as JSON (atomically)");
    cli.add_option("--plot", o.plot, "Draw FPS against depth and live warps per bounce into this PNG "
                                     "(tools/bench/plot_bench.py, matplotlib)");
    cli.add_flag("--skip", o.skip, "Measure dead rays skipped per second per mode against an empty kernel (CUDA)");
    cli.add_option("--skip-rays", o.skip_rays, "--skip: rays per launch")->check(whole_number(32, 1 << 28))->capture_default_str();
    cli.add_option("--skip-iterations", o.skip_iterations, "--skip: timed launches per case")
        ->check(whole_number(1, 100000))->capture_default_str();
    cli.add_flag("--tune", o.tune, "Tune the block size of each kernel stage and cache the winners for this GPU (CUDA)");
    cli.add_flag("--no-tuning", o.no_tuning, "Ignore the tuning cache (as SRT_NO_TUNING=1)");
    cli.add_flag("--no-progress", o.no_progress, "No progress line on stderr");
    try {
        cli.parse(int(args.size()), args.data());
    } catch (const CLI::CallForHelp& e) {
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        std::fputs(parse_failure(cli, e, "stencilrt bench").c_str(), stderr);
        return 2;
    }
    if (o.skip && o.tune) throw InputError("bench: --skip and --tune are separate runs; give one of them");
    for (const std::string* f : {&o.csv, &o.json, &o.plot})
        if (*f == "-") throw InputError("bench: '-' (standard output) carries the tables; give --csv, --json and --plot a file");
    // A sweep on the GPU runs for minutes: where its results go is checked before the first frame.
    if (!o.csv.empty()) check_output_path(o.csv, so.scene, "--csv", "CSV");
    if (!o.json.empty()) check_output_path(o.json, so.scene, "--json", "JSON");
    if (!o.plot.empty()) {
        check_output_path(o.plot, so.scene, "--plot", "plot");
        if (const std::string why = plot_unavailable(); !why.empty()) throw InputError("--plot " + o.plot + ": " + why);
    }

    o.scene = so.scene;
    o.camera_overrides = {{"from", so.from_text}, {"at", so.at_text}, {"up", so.up_text},
                          {"fov", so.fov ? ojson(*so.fov) : ojson(nullptr)},
                          {"aperture", so.aperture ? ojson(*so.aperture) : ojson(nullptr)},
                          {"focus", so.focus ? ojson(*so.focus) : ojson(nullptr)}, {"lights", so.lights},
                          {"env", so.env.empty() ? ojson(nullptr) : ojson(so.env)},
                          {"env_rotation", so.env_rotation ? ojson(*so.env_rotation) : ojson(nullptr)}};
    o.depths = parse_depths(o.depths_text);
    o.modes = parse_modes(o.modes_text);
    o.launches = parse_launches(o.launches_text);
    if (!o.plot.empty() && (o.skip || o.tune))
        throw InputError("bench --plot draws the depth sweep; it does not apply to --skip or --tune");
    Backend backend = Backend::Auto;
    parse_backend(o.backend, backend);
    if ((o.skip || o.tune) && backend == Backend::Cpu)
        throw InputError(std::string("bench ") + (o.skip ? "--skip" : "--tune") +
                         " needs the CUDA backend (the CPU executor has no warps or launch sizes to measure)");

    const auto t_load = Clock::now();
    load_progress::show_on_terminal(!o.no_progress && isatty(fileno(stderr)) != 0);
    const Scene scene = load_with_overrides(so);
    for (const std::string& n : scene.notes) std::fprintf(stderr, "note: %s\n", n.c_str());
    o.integrator = chosen_integrator(o.integrator_text, scene.integrator);  // the flags validated by their options
    o.sampler = chosen_sampler(o.sampler_text, scene.sampler);
    RenderSettings planned;
    planned.width = o.width, planned.height = o.height, planned.spp = o.spp, planned.sampler = o.sampler;
    if (const std::string why = sampler_problem(planned); !why.empty()) throw InputError(why);
    parse_kill(o.kill_text, o.kill);  // validated by the option
    check_kill_applies(o.kill, scene, o.integrator);
    const double load_ms = ms_since(t_load);
    const auto t_compile = Clock::now();
    const BuildChoice build = choose_bvh_build(so, backend, Purpose::Bench, stored_triangle_count(scene) + scene.spheres.size());
    const CompiledScene compiled = compile_scene(scene, so.accel_layout(), build.options);
    const double compile_ms = ms_since(t_compile);

    auto ex = make_executor(backend, o.devices);
    const bool gpu = is_cuda(*ex);
    if ((o.skip || o.tune) && ex->split())
        throw InputError(std::string("bench ") + (o.skip ? "--skip" : "--tune") +
                         " measures one GPU's kernels; name one device with --devices, or leave it out");
    if ((o.skip || o.tune) && !gpu) {
        std::fprintf(stderr, "stencilrt: bench %s needs the CUDA backend; no usable CUDA device here\n",
                     o.skip ? "--skip" : "--tune");
        return 2;
    }
    const auto t_upload = Clock::now();
    {
        load_progress::Stage stage("upload", compiled.device_bytes(), "bytes");
        ex->set_scene(compiled);
    }
    load_progress::done();
    const double upload_ms = ms_since(t_upload);

    std::vector<std::string> notes;
    if (!gpu) {
        if (cli.count("--frames") == 0) o.frames = 3;
        if (cli.count("--warmup") == 0) o.warmup = 1;
        if (o.launches.size() > 1 || o.launches[0] != LaunchMode::Graph) {
            notes.push_back("the CPU executor has no launches; ran once (launch requested: " + o.launches_text + ")");
            o.launches = {LaunchMode::Graph};
        }
        // The CPU runs two of the modes: the stencil wavefront (the other wavefronts become
        // it) and the megakernel's lock-step warps (regenerate becomes it): bench.h cpu_runs_as.
        std::vector<DeadRayMode> cpu_modes;
        for (DeadRayMode m : o.modes) {
            const DeadRayMode c = cpu_runs_as(m);
            if (std::find(cpu_modes.begin(), cpu_modes.end(), c) == cpu_modes.end()) cpu_modes.push_back(c);
        }
        if (cpu_modes != o.modes) {
            notes.push_back("the CPU executor runs the stencil wavefront and the megakernel, so the modes collapse "
                            "into those (modes requested: " + o.modes_text + ")");
            o.modes = cpu_modes;
        }
    }

    SweepRecord record;
    record.notes = notes;
    record.machine = machine_json(*ex);
    record.scene = bench::scene_json(scene, so.scene, compiled, load_ms, compile_ms, upload_ms);
    const ojson& scene_json = record.scene;
    print_bench_head(record.machine, scene, scene_json, compiled, load_ms, upload_ms);

#if defined(SRT_HAVE_CUDA)
    if (o.skip) return run_skip(o, *ex);
    if (o.tune) return run_tune(o, dynamic_cast<CudaExecutor&>(*ex), scene, scene_json);
#endif

    AppliedTuning tuning;
    if (o.no_tuning) {
        tuning.res_class = resolution_class(o.width, o.height);
        tuning.reason = "--no-tuning";
    } else {
        tuning = apply_cached_tuning_ex(*ex, o.width, o.height);
    }
    if (gpu) {
        const ojson l = launch_json(*ex);
        std::printf("launch   %s block sizes: generate %d, intersect %d, shade %d, reflect %d, resolve %d, compact %d\n",
                    tuning.applied ? "tuned" : "default", l["generate"].get<int>(), l["intersect"].get<int>(),
                    l["shade"].get<int>(), l["reflect"].get<int>(), l["resolve"].get<int>(), l["compact"].get<int>());
    }
    std::fflush(stdout);
    // What the CPU collapses (modes, launches) is said in the tables; the JSON keeps it as notes.
    std::printf("frame    %dx%d, %d spp, %s integrator%s%s; %d timed frames (+%d warm-up) per configuration, %s; "
                "plus one counted frame for rays, bounces and stages\n",
                o.width, o.height, o.spp, to_string(o.integrator),
                o.integrator == Integrator::Path ? (std::string(" (") + to_string(o.sampler) + " sampler)").c_str() : "",
                o.kill.active() ? (", rays killed by " + to_string(o.kill)).c_str() : "", o.frames, o.warmup,
                ex->split() ? "host clock around every band and its gather onto part 0's GPU"
                : gpu       ? "CUDA events around generate..resolve"
                            : "host clock around generate..resolve");

    // The sweep.
    RenderSettings base;
    base.width = o.width;
    base.height = o.height;
    base.spp = o.spp;
    base.integrator = o.integrator;
    base.seed = o.seed;
    base.sampler = o.sampler;
    base.kill = o.kill;
    base.warp_width = std::atoi(o.warp_shape.c_str());
    const std::vector<Result> results = run_sweep(o, *ex, scene.camera, base);

    print_tables(results, o.modes, gpu);
    record.dead_bounce = print_dead_bounce_summary(results, o, gpu);
    record.rays_by_kind = print_rays_by_kind(results, gpu);
    // Split frames: each device's band and time, the balance, and the scaling.
    if (SplitExecutor* split = ex->split()) record.split = report_split(o, *ex, *split, scene.camera, base, results);
    record.tuning = tuning_json(tuning);
    return write_sweep_outputs(o, *ex, results, base, record);
}

}  // namespace srt::app
