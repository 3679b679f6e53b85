// report.cpp - terminal tables, CSV and JSON from one result model, and the plot (bench.h).
#include "bench/bench.h"

#include "bench/dead_bounce.h"
#include "core/load_progress.h"
#include "core/error.h"
#include "core/output_file.h"
#include "core/shell_quote.h"
#include "render/scene_gpu.h"
#include "scene/instances.h"
#include "render/stencil.h"
#include "render/tuning_cache.h"
#include "revision.h"  // generated: SRT_REVISION

#if defined(SRT_HAVE_CUDA)
#include "cuda/cuda_executor.h"
#include "cuda/device_info.h"
#include "cuda/skip_bench.h"
#endif

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace srt::bench {

// ---------------------------------------------------------------------------
// Output: terminal tables, CSV, JSON
// ---------------------------------------------------------------------------
std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::vector<std::string> stage_names(const std::vector<Result>& rs) {
    std::vector<std::string> names;
    for (const Result& r : rs)
        for (const StageTime& t : r.stats.stage_ms)
            if (std::find(names.begin(), names.end(), t.stage) == names.end()) names.push_back(t.stage);
    return names;
}

double stage_ms(const FrameStats& st, const std::string& name) {
    for (const StageTime& t : st.stage_ms)
        if (t.stage == name) return t.ms;
    return 0.0;
}

std::string cpu_modes_note() {
    // Written from the mode table, so that a mode added to it is placed here too.
    std::vector<DeadRayMode> runs;
    for (const DeadRayModeInfo& i : kDeadRayModeTable)
        if (cpu_runs_as(i.mode) == i.mode) runs.push_back(i.mode);
    auto join = [](const std::vector<std::string>& v, const char* last) {
        std::string s;
        for (size_t k = 0; k < v.size(); ++k) s += (k == 0 ? "" : k + 1 == v.size() ? last : ", ") + v[k];
        return s;
    };
    std::vector<std::string> ran, stands;
    for (DeadRayMode r : runs) {
        ran.push_back(std::string("the ") + to_string(r));
        std::vector<std::string> others;
        for (const DeadRayModeInfo& i : kDeadRayModeTable)
            if (i.mode != r && cpu_runs_as(i.mode) == r) others.push_back(i.name);
        if (!others.empty())
            stands.push_back(std::string("the ") + to_string(r) + (stands.empty() ? " rows stand for " : " rows for ") +
                             join(others, " and ") + (stands.empty() ? " too" : ""));
    }
    return "CPU executor: no launches; it runs " + join(ran, " and ") +
           (stands.empty() ? std::string() : ", so " + join(stands, ", "));
}

void print_tables(const std::vector<Result>& results, const std::vector<DeadRayMode>& modes, bool gpu) {
    // The CPU executor has no kernel launches, and runs two of the modes (bench.h cpu_runs_as).
    const auto launch = [gpu](const Result& r) { return gpu ? to_string(r.launch) : "-"; };
    // SIMD: the lanes that traced a bounce over 32 per warp step that traced one, over the
    // frame (FrameStats::simd_efficiency).
    std::printf("\n%-10s %-6s %5s %10s %9s %9s %9s %9s %9s %9s %9s %12s %11s %8s %6s\n", "mode", "launch", "depth",
                "median ms", "p10", "p90", "min", "max", "FPS", "Grays/s", "Mrays", "last live", "last warps",
                "bounces", "SIMD");
    if (!gpu) std::printf("(%s)\n", cpu_modes_note().c_str());
    for (const Result& r : results) {
        const BounceStats last = r.stats.bounces.empty() ? BounceStats{} : r.stats.bounces.back();
        std::printf("%-10s %-6s %5d %10.3f %9.3f %9.3f %9.3f %9.3f %9.1f %9.3f %9.2f %12llu %11llu %8llu %5.1f%%\n",
                    to_string(r.mode), launch(r), r.depth, r.frame.median, r.frame.p10, r.frame.p90,
                    r.frame.min, r.frame.max, r.fps(), r.rays_per_s() * 1e-9, double(r.stats.rays_traced) * 1e-6,
                    (unsigned long long)last.live_rays, (unsigned long long)last.live_warps,
                    (unsigned long long)r.stats.bounces_run, 100.0 * r.stats.simd_efficiency());
    }

    const std::vector<std::string> names = stage_names(results);
    std::printf("\nstage ms (the counted frame, %s; counting adds time)\n%-10s %-6s %5s",
                gpu ? "stream launches" : "host clock around each stage", "mode", "launch", "depth");
    for (const std::string& n : names) std::printf(" %10s", n.c_str());
    std::printf("\n");
    for (const Result& r : results) {
        std::printf("%-10s %-6s %5d", to_string(r.mode), launch(r), r.depth);
        for (const std::string& n : names) std::printf(" %10.3f", stage_ms(r.stats, n));
        std::printf("\n");
    }

    // Per bounce at each mode's deepest run (a bounce's counts do not depend on how
    // much deeper the frame goes, so the shallower runs repeat a prefix of these).
    std::vector<const Result*> deepest;
    for (DeadRayMode m : modes) {
        const Result* best = nullptr;
        for (const Result& r : results)
            if (r.mode == m && (!best || r.depth > best->depth)) best = &r;
        if (best) deepest.push_back(best);
    }
    if (deepest.empty()) return;
    size_t bounces = 0;
    for (const Result* r : deepest) bounces = std::max(bounces, r->stats.bounces.size());
    std::printf("\nlive rays / live warps per bounce (depth %d; SIMD = live rays / (32 x live warps))\n%-6s",
                deepest.front()->depth, "bounce");
    for (const Result* r : deepest) std::printf(" | %-8s %12s %10s %6s", to_string(r->mode), "rays", "warps", "SIMD");
    std::printf("\n");
    for (size_t b = 0; b < bounces; ++b) {
        std::printf("%-6zu", b);
        for (const Result* r : deepest) {
            if (b < r->stats.bounces.size()) {
                const BounceStats& s = r->stats.bounces[b];
                std::printf(" | %-8s %12llu %10llu %5.1f%%", "", (unsigned long long)s.live_rays,
                            (unsigned long long)s.live_warps, 100.0 * s.simd_efficiency());
            } else {
                std::printf(" | %-8s %12s %10s %6s", "", "-", "-", "-");
            }
        }
        std::printf("\n");
    }
}

std::string results_csv(const std::vector<Result>& results, const RenderSettings& base, int frames, int warmup) {
    const std::vector<std::string> names = stage_names(results);
    size_t bounces = 0;
    for (const Result& r : results) bounces = std::max(bounces, size_t(r.depth));
    std::ostringstream o;
    o << "mode,depth,width,height,spp,frames,warmup,median_ms,mean_ms,min_ms,max_ms,p10_ms,p90_ms,mad_ms,fps,"
         "rays_traced,rays_per_s,launch,bounces_run";
    for (const std::string& n : names) o << ",stage_" << n << "_ms";
    for (size_t b = 0; b < bounces; ++b) o << ",live_rays_b" << b;
    for (size_t b = 0; b < bounces; ++b) o << ",live_warps_b" << b;
    o << "\n";
    char buf[512];
    for (const Result& r : results) {
        std::snprintf(buf, sizeof buf, "%s,%d,%d,%d,%d,%d,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.3f,%llu,%.6g",
                      to_string(r.mode), r.depth, base.width, base.height, base.spp, frames, warmup, r.frame.median,
                      r.frame.mean, r.frame.min, r.frame.max, r.frame.p10, r.frame.p90, r.frame.mad, r.fps(),
                      (unsigned long long)r.stats.rays_traced, r.rays_per_s());
        o << buf << "," << to_string(r.launch) << "," << r.stats.bounces_run;
        for (const std::string& n : names) o << "," << fmt("%.6f", stage_ms(r.stats, n));
        // Bounces not traced (past the depth, or all rays dead) are left empty.
        for (size_t b = 0; b < bounces; ++b)
            o << "," << (b < r.stats.bounces.size() ? std::to_string(r.stats.bounces[b].live_rays) : "");
        for (size_t b = 0; b < bounces; ++b)
            o << "," << (b < r.stats.bounces.size() ? std::to_string(r.stats.bounces[b].live_warps) : "");
        o << "\n";
    }
    return o.str();
}

ojson result_json(const Result& r, uint32_t warps_per_sample, int spp) {
    ojson j;
    j["mode"] = to_string(r.mode);
    j["launch"] = to_string(r.launch);
    j["depth"] = r.depth;
    j["frames"] = r.ms.size();
    j["frame_ms"] = spread_json(r.frame);
    j["frame_ms_samples"] = r.ms;
    j["fps"] = r.fps();
    j["rays_per_s"] = r.rays_per_s();
    add_counters_json(j, r.stats, warps_per_sample, spp);
    return j;
}

ojson print_rays_by_kind(const std::vector<Result>& results, bool gpu) {
    ojson out = ojson::array();
    std::vector<const Result*> deepest;  // per mode and launch
    for (const Result& r : results) {
        auto it = std::find_if(deepest.begin(), deepest.end(),
                               [&](const Result* d) { return d->mode == r.mode && d->launch == r.launch; });
        if (it == deepest.end()) deepest.push_back(&r);
        else if (r.depth > (*it)->depth) *it = &r;
    }
    bool header = false;
    for (const Result* r : deepest) {
        const std::vector<BounceStats>& b = r->stats.bounces;
        if (b.empty() || b[0].intersect_ms <= 0.0) continue;  // stages not timed
        if (!header) {
            std::printf("\nrays/s by kind (each mode's deepest counted frame, %s: bounce 0's intersect "
                        "and shade, bounce 1's intersect)\n",
                        gpu ? "stream launches" : "host clock around each stage");
            std::printf("%-10s %-6s %5s %14s %14s %14s\n", "mode", "launch", "depth", "primary G/s", "shadow G/s",
                        "reflected G/s");
            header = true;
        }
        auto rate = [](uint64_t rays, double ms) { return ms > 0.0 ? double(rays) / (ms * 1e-3) * 1e-9 : 0.0; };
        const double primary = rate(b[0].live_rays, b[0].intersect_ms);
        const double shadow = rate(b[0].shadow_rays, b[0].shade_ms);
        // Bounce 1 fused (sparse or tail kernel): no shade time of its own.
        const bool separate = b.size() > 1 && b[1].shade_ms > 0.0;
        const double reflected = separate ? rate(b[1].live_rays, b[1].intersect_ms) : 0.0;
        char refl[32];
        if (separate) std::snprintf(refl, sizeof refl, "%.3f", reflected);
        else std::snprintf(refl, sizeof refl, "%s", b.size() > 1 ? "fused" : "-");
        std::printf("%-10s %-6s %5d %14.3f %14.3f %14s\n", to_string(r->mode), gpu ? to_string(r->launch) : "-",
                    r->depth, primary, shadow, refl);
        ojson j = {{"mode", to_string(r->mode)}, {"launch", to_string(r->launch)}, {"depth", r->depth},
                   {"primary_rays", b[0].live_rays}, {"primary_ms", b[0].intersect_ms}, {"primary_grays_per_s", primary},
                   {"shadow_rays", b[0].shadow_rays}, {"shadow_ms", b[0].shade_ms}, {"shadow_grays_per_s", shadow}};
        if (separate)
            j.update({{"reflected_rays", b[1].live_rays}, {"reflected_ms", b[1].intersect_ms},
                      {"reflected_grays_per_s", reflected}});
        out.push_back(j);
    }
    return out;
}

void add_counters_json(ojson& j, const FrameStats& st, uint32_t warps_per_sample, int spp) {
    j["bounces_run"] = st.bounces_run;
    j["rays_traced"] = st.rays_traced;
    j["simd_efficiency"] = st.simd_efficiency();
    j["lane_steps"] = st.lane_steps;
    j["warp_steps"] = st.warp_steps;
    j["nonfinite_samples"] = st.nonfinite_samples;
    ojson times = ojson::object();
    for (const StageTime& t : st.stage_ms) times[t.stage] = t.ms;
    j["stage_ms"] = times;
    ojson b = ojson::array();
    for (size_t k = 0; k < st.bounces.size(); ++k) {
        const BounceStats& s = st.bounces[k];
        b.push_back({{"bounce", k},
                     {"live_rays", s.live_rays},
                     {"live_warps", s.live_warps},
                     {"warps", uint64_t(warps_per_sample) * uint64_t(spp)},
                     {"simd_efficiency", s.simd_efficiency()},
                     {"shadow_rays", s.shadow_rays},
                     {"intersect_ms", s.intersect_ms},
                     {"shade_ms", s.shade_ms}});
    }
    j["bounces"] = b;
}

ojson scene_json(const Scene& scene, const std::string& path, const CompiledScene& compiled, double load_ms,
                 double compile_ms, double upload_ms) {
    ojson j;
    j["name"] = scene.name;
    j["path"] = path.empty() ? "" : std::filesystem::absolute(path).string();
    j["hash"] = scene_hash(path);
    j["spheres"] = scene.spheres.size();
    j["planes"] = scene.planes.size();
    j["triangles"] = scene.triangles.size();
    j["lights"] = scene.lights.size();
    j["textures"] = scene.textures.size();
    j["texture_images"] = scene.images.size();
    j["texture_bytes"] = compiled.texture_bytes();
    j["texture_filter"] = scene.texture_filter == TextureFilter::Bilinear ? "bilinear" : "trilinear";
    j["masked_triangles"] = size_t(std::count_if(compiled.prim_alpha.begin(), compiled.prim_alpha.end(),
                                                 [](uint32_t m) { return m != kNoMaskGpu; }));
    j["load_ms"] = load_ms;
    j["compile_ms"] = compile_ms;
    j["bvh_build_ms"] = compiled.bvh_stats.build_ms;
    j["bvh_builder"] = compiled.bvh_stats.builder;
    // The load's stages as they ran in this process (core/load_progress.h).
    for (const auto& [stage, ms] : load_progress::times()) j["stages_ms"][stage] = ms;
    j["bvh_nodes"] = compiled.bvh_stats.nodes;
    j["upload_ms"] = upload_ms;
    j["accel"] = accel_json(compiled);
    j["device_bytes"] = compiled.device_bytes();
    if (!scene.instances.empty()) {
        // The two-level structure's share: the top level's nodes and the instance records
        // (128 bytes each), beside the meshes stored once (accel's bytes_per_prim).
        const size_t inst_bytes = compiled.tlas.size() * sizeof(BvhNode) + compiled.instances.size() * sizeof(InstanceGpu);
        ojson in;
        in["count"] = scene.instances.size();
        in["meshes"] = scene.meshes.size();
        in["triangles_placed"] = scene.instanced_triangle_count();
        in["triangles_stored"] = stored_triangle_count(scene);
        in["bytes"] = inst_bytes;
        in["bytes_per_instance"] = double(inst_bytes) / double(scene.instances.size());
        j["instances"] = in;
    }
    return j;
}

ojson accel_json(const CompiledScene& c) {
    const bool w4 = !c.nodes4.empty(), w8 = !c.nodes8.empty(), wide = w4 || w8;
    const size_t refs = c.prims.size(), prims = c.bvh_stats.primitives;
    const uint32_t nodes = w8 ? c.bvh8_stats.nodes : w4 ? c.bvh4_stats.nodes : c.bvh_stats.nodes;
    const uint32_t leaves = w8 ? c.bvh8_stats.leaves : w4 ? c.bvh4_stats.leaves : c.bvh_stats.leaves;
    const size_t node_bytes = w8 ? sizeof(Bvh8Node) : w4 ? sizeof(Bvh4Node) : sizeof(BvhNode);
    const double collapse_ms = w8 ? c.bvh8_stats.build_ms : c.bvh4_stats.build_ms;
    ojson a;
    a["layout"] = w8 ? "bvh8" : w4 ? "bvh4" : "bvh2";
    a["nodes"] = nodes;
    a["node_bytes"] = node_bytes;
    a["leaves"] = leaves;
    a["avg_leaf_prims"] = leaves ? double(refs) / double(leaves) : 0.0;
    a["references"] = refs;
    a["spatial_splits"] = c.bvh_stats.spatial_splits;
    // What traversal reads per primitive: its nodes' share and the 96 bytes of each copy.
    a["bytes_per_prim"] =
        prims ? double(nodes * node_bytes + refs * (sizeof(PrimGpu) + sizeof(PrimTestGpu))) / double(prims) : 0.0;
    a["max_depth"] = w8 ? c.bvh8_stats.max_depth : w4 ? c.bvh4_stats.max_depth : c.bvh_stats.max_depth;
    a["build_ms"] = c.bvh_stats.build_ms + (wide ? collapse_ms : 0.0);
    if (wide) a["collapse_ms"] = collapse_ms;
    return a;
}

void write_output(const std::string& path, const std::string& text, const char* what) {
    write_output_file(path, text);
    std::printf("%-8s %s\n", what, std::filesystem::absolute(path).string().c_str());
}

namespace {
// matplotlib comes from the Debian package, hence /usr/bin/python3 first.
std::string plot_python() { return ::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3"; }
std::string plot_script() { return std::string(SRT_SOURCE_DIR) + "/tools/bench/plot_bench.py"; }
}  // namespace

std::string plot_unavailable() {
    if (::access(plot_script().c_str(), R_OK) != 0) return plot_script() + " is not there (it is read from the source tree)";
    const std::string cmd = plot_python() + " -c 'import matplotlib' >/dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0) return plot_python() + " cannot import matplotlib (Debian: python3-matplotlib)";
    return "";
}

// Runs tools/bench/plot_bench.py on `json_path`.
int run_plot(const std::string& json_path, const std::string& png) {
    const std::string script = plot_script();
    const std::string python = plot_python();
    const std::string cmd = python + " " + shell_quote(script) + " " + shell_quote(json_path) + " -o " + shell_quote(png);
    const int rc = std::system(cmd.c_str());
    if (rc != 0) {
        std::fprintf(stderr, "stencilrt: bench --plot: %s failed (exit %d)\n", cmd.c_str(),
                     WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
        return 1;
    }
    std::printf("%-8s %s\n", "plot", std::filesystem::absolute(png).string().c_str());
    return 0;
}

// Writes --json (and, for --plot, a JSON for the script: the --json file itself or a
// temporary one) and runs the plot.
int write_json_and_plot(const BenchOptions& o, const ojson& doc) {
    const std::string text = doc.dump(2) + "\n";
    if (!o.json.empty()) write_output(o.json, text, "json");
    if (o.plot.empty()) return 0;
    if (!o.json.empty()) return run_plot(o.json, o.plot);
    std::string tmpl = (std::filesystem::temp_directory_path() / "stencilrt-bench-XXXXXX.json").string();
    std::vector<char> name(tmpl.begin(), tmpl.end());
    name.push_back('\0');
    const int fd = ::mkstemps(name.data(), 5);
    if (fd < 0) throw std::runtime_error("bench --plot: cannot create a temporary JSON file");
    ::close(fd);
    const std::string tmp(name.data());
    int rc = 1;
    try {
        write_output_file(tmp, text);
        rc = run_plot(tmp, o.plot);
    } catch (...) {
        std::remove(tmp.c_str());
        throw;
    }
    std::remove(tmp.c_str());
    return rc;
}

// The common head of every JSON record.
ojson record_head(const std::string& kind, Executor& ex, const BenchOptions& o) {
    ojson doc;
    doc["format"] = "stencilrt-bench/1";
    doc["kind"] = kind;
    doc["stencilrt_version"] = SRT_VERSION;
    doc["git_revision"] = std::string(SRT_REVISION);
    doc["date"] = utc_now();
    doc["machine"] = machine_json(ex);
    ojson s;
    s["width"] = o.width;
    s["height"] = o.height;
    s["spp"] = o.spp;
    s["integrator"] = to_string(o.integrator);
    s["seed"] = o.seed;
    s["sampler"] = to_string(o.sampler);
    s["kill"] = to_string(o.kill);
    s["warp_shape"] = o.warp_shape;
    s["depths"] = o.depths;
    ojson modes = ojson::array();
    for (DeadRayMode m : o.modes) modes.push_back(to_string(m));
    s["modes"] = modes;
    s["modes_requested"] = o.modes_text;
    ojson launches = ojson::array();
    for (LaunchMode l : o.launches) launches.push_back(to_string(l));
    s["launches"] = launches;
    s["frames"] = o.frames;
    s["warmup"] = o.warmup;
    s["backend_requested"] = o.backend;
    s["timing"] = is_cuda(ex) ? "cuda events around generate..resolve (Executor::timed_frame)"
                              : "host steady_clock around generate..resolve (Executor::timed_frame)";
    s["camera_overrides"] = o.camera_overrides;
    doc["settings"] = s;
    return doc;
}

ojson launch_json(Executor& ex) {
#if defined(SRT_HAVE_CUDA)
    if (auto* cx = dynamic_cast<CudaExecutor*>(&ex)) {
        const LaunchConfig c = cx->launch_config();
        return {{"generate", c.generate}, {"intersect", c.intersect}, {"shade", c.shade},
                {"reflect", c.reflect},   {"resolve", c.resolve},     {"compact", c.compact}};
    }
#endif
    (void)ex;
    return nullptr;
}

ojson tuning_json(const AppliedTuning& t) {
    ojson j;
    j["applied"] = t.applied;
    j["resolution_class"] = t.res_class;
    j["cache_path"] = t.path;
    if (!t.applied) j["reason"] = t.reason;
    else j["entry_created"] = t.entry.created;
    return j;
}


// ---------------------------------------------------------------------------
// Dead bounces: per mode and launch, the cost of a bounce once nearly every ray is
// dead, the FPS kept at depth, and graph against stream launches.
// ---------------------------------------------------------------------------
ojson print_dead_bounce_summary(const std::vector<Result>& results, const BenchOptions& o, bool gpu) {
    ojson out = ojson::array();
    std::printf("\ndead bounces (slope of the median frame time from the depth where live rays fall below 0.1%% "
                "of the primary rays, over 4 bounces)\n%-10s %-6s %8s %14s %12s %12s\n",
                "mode", "launch", "depths", "us per bounce", "FPS d6/d1", "FPS d12/d1");
    // The 2012 GTX 560 stencil tracer's ratio (seed 004, bench/dead_bounce.h) goes under the
    // table, once and by name, not as a column of the same number on every row.
    const auto& seed = bench::seed_fps_by_depth();
    for (DeadRayMode m : o.modes) {
        for (LaunchMode l : o.launches) {
            std::vector<bench::DepthTime> times;
            const Result* deepest = nullptr;
            for (const Result& r : results) {
                if (r.mode != m || r.launch != l) continue;
                times.push_back({r.depth, r.frame.median});
                if (!deepest || r.depth > deepest->depth) deepest = &r;
            }
            if (!deepest) continue;
            std::vector<uint64_t> live;
            for (const BounceStats& b : deepest->stats.bounces) live.push_back(b.live_rays);
            RenderSettings deepest_settings;  // how many bounces the deepest frame could trace
            deepest_settings.depth = deepest->depth;
            deepest_settings.integrator = o.integrator;
            const bench::DeadBounceCost c = bench::dead_bounce_cost(times, live, trace_levels(deepest_settings));
            const double r6 = bench::fps_ratio(times, 6), r12 = bench::fps_ratio(times, 12);
            char depths[32] = "-";
            if (c.ok) std::snprintf(depths, sizeof depths, "%d..%d", c.from_depth, c.to_depth);
            std::printf("%-10s %-6s %8s %14s %12s %12s\n", to_string(m), gpu ? to_string(l) : "-", depths,
                        c.ok ? fmt("%.2f", c.ms_per_bounce * 1e3).c_str() : "-", r6 > 0 ? fmt("%.2f", r6).c_str() : "-",
                        r12 > 0 ? fmt("%.2f", r12).c_str() : "-");
            if (!c.ok) std::printf("           (%s)\n", c.why_not.c_str());
            ojson j = {{"mode", to_string(m)}, {"launch", to_string(l)}, {"ok", c.ok}};
            // Where live rays fell below 0.1%: measured, or else only extrapolated (null when neither).
            j["below_at_bounce"] = c.measured_bounce >= 0 ? ojson(c.measured_bounce) : ojson(nullptr);
            j["extrapolated_below_at_bounce"] = c.extrapolated_bounce >= 0 ? ojson(c.extrapolated_bounce) : ojson(nullptr);
            if (c.ok) {
                j["from_depth"] = c.from_depth;
                j["to_depth"] = c.to_depth;
                j["us_per_bounce"] = c.ms_per_bounce * 1e3;
            } else {
                j["why_not"] = c.why_not;
            }
            j["fps_ratio_d6"] = r6 > 0 ? ojson(r6) : ojson(nullptr);
            j["fps_ratio_d12"] = r12 > 0 ? ojson(r12) : ojson(nullptr);
            j["seed_fps_ratio_d6"] = seed[5] / seed[0];
            out.push_back(j);
        }
    }
    if (!out.empty())
        std::printf("for comparison, the GTX 560 stencil tracer (2012) kept %.2f of its depth-1 FPS at depth 6\n",
                    seed[5] / seed[0]);
    if (gpu && o.launches.size() > 1) {
        std::printf("\ngraph / stream frame time (median)\n%-8s %5s %10s %10s %8s\n", "mode", "depth", "graph ms",
                    "stream ms", "ratio");
        for (const Result& g : results) {
            if (g.launch != LaunchMode::Graph) continue;
            for (const Result& s : results)
                if (s.launch == LaunchMode::Stream && s.mode == g.mode && s.depth == g.depth)
                    std::printf("%-8s %5d %10.4f %10.4f %8.3f\n", to_string(g.mode), g.depth, g.frame.median,
                                s.frame.median, s.frame.median > 0 ? g.frame.median / s.frame.median : 0.0);
        }
    }
    return out;
}

}  // namespace srt::bench
