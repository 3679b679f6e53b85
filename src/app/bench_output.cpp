// bench_output.cpp - the bench's opening lines and the sweep's files (bench_output.h).
#include "app/bench_output.h"

#include "app/app.h"
#include "render/frame.h"
#include "render/stencil.h"
#include "revision.h"  // generated: SRT_REVISION
#include "scene/instances.h"

#include <cstdio>


namespace srt::app {

using namespace srt::bench;

void print_bench_head(const ojson& machine, const Scene& scene, const ojson& scene_json, const CompiledScene& compiled,
                      double load_ms, double upload_ms) {
    std::printf("bench    stencilrt %s (%s)\n", SRT_VERSION, std::string(SRT_REVISION).c_str());
    std::printf("device   %s\n", machine_line(machine).c_str());
    std::printf("scene    %s (%s): %zu spheres, %zu planes, %zu triangles%s, %zu lights, textures: %s; load %.1f ms, "
                "BVH build %.1f ms (%u nodes), upload %.1f ms\n",
                scene.name.c_str(), scene_json["hash"].get<std::string>().c_str(), scene.spheres.size(),
                scene.planes.size(), scene.triangles.size(), instances_text(scene).c_str(), scene.lights.size(), texture_line(scene, compiled).c_str(),
                load_ms, compiled.bvh_stats.build_ms, compiled.bvh_stats.nodes, upload_ms);
    const ojson a = scene_json["accel"];
    std::printf("accel    %s: %u nodes of %zu B, %u leaves of %.2f primitives on average, %.1f B a primitive "
                "(nodes + primitives), depth %u, built in %.1f ms\n",
                a["layout"].get<std::string>().c_str(), a["nodes"].get<uint32_t>(), a["node_bytes"].get<size_t>(),
                a["leaves"].get<uint32_t>(), a["avg_leaf_prims"].get<double>(), a["bytes_per_prim"].get<double>(),
                a["max_depth"].get<uint32_t>(), a["build_ms"].get<double>());
}

int write_sweep_outputs(const BenchOptions& o, Executor& ex, const std::vector<Result>& results,
                        const RenderSettings& base, const SweepRecord& record) {
    if (!o.csv.empty()) write_output(o.csv, results_csv(results, base, o.frames, o.warmup), "csv");
    if (o.json.empty() && o.plot.empty()) return 0;
    ojson doc = record_head("sweep", ex, o);
    doc["machine"] = record.machine;
    doc["settings"]["launch"] = launch_json(ex);
    doc["settings"]["tuning"] = record.tuning;
    doc["scene"] = record.scene;
    doc["notes"] = record.notes;
    // The warps the grid launches: whole warp tiles (render/frame.h), a partly padded
    // tile at the right and bottom edges a warp too, so that no bounce has more live
    // warps than this (the plot's "all warps of the grid").
    const uint32_t warps =
        frame_geometry(uint32_t(base.width), uint32_t(base.height), uint32_t(base.warp_width)).ray_count / kWarpSize;
    ojson arr = ojson::array();
    for (const Result& r : results) arr.push_back(result_json(r, warps, o.spp));
    doc["results"] = arr;
    doc["dead_bounce"] = record.dead_bounce;
    doc["rays_by_kind"] = record.rays_by_kind;
    doc["split"] = record.split;
    return write_json_and_plot(o, doc);
}

}  // namespace srt::app
