// tune.cpp - bench --tune: block sizes per stage, cached per GPU (bench.h; CUDA).
#include "bench/bench.h"

#include "bench/dead_bounce.h"
#include "core/error.h"
#include "core/output_file.h"
#include "render/scene_gpu.h"
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

#if defined(SRT_HAVE_CUDA)
namespace srt::bench {

// ---------------------------------------------------------------------------
// --tune (CUDA only): block size per stage, one stage varied at a time, whole frames
// timed (the counted frame's stage times include the counting atomics and the events
// between kernels, so they would mislead a choice between close sizes).
// ---------------------------------------------------------------------------

int run_tune(const BenchOptions& o, CudaExecutor& cx, const Scene& scene, const ojson& scene_json) {
    constexpr int kSizes[] = {32, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
    // A size must beat the stage's current one by this much to replace it: closer than
    // that is within the run-to-run spread of a frame.
    constexpr double kMinGain = 0.01;
    const int deep = o.depths.back(), shallow = o.depths.front();

    cx.set_launch_config(LaunchConfig{});  // from the defaults, whatever the cache says
    const LaunchSizes defaults = cx.launch_config();
    LaunchSizes best = defaults;

    RenderSettings rs;
    rs.width = o.width;
    rs.height = o.height;
    rs.spp = o.spp;
    rs.warp_width = std::atoi(o.warp_shape.c_str());
    rs.depth = deep;

    std::vector<int> gain_depths{deep};
    if (shallow != deep) gain_depths.push_back(shallow);
    const int stages = 6;
    int total = 0;
    for (int s = 0; s < stages; ++s) {
        std::set<int> sizes(std::begin(kSizes), std::end(kSizes));
        sizes.insert(launch_size(defaults, s));
        total += int(sizes.size());
    }
    Progress progress("bench --tune", total + 2 * int(gain_depths.size() * o.modes.size()), !o.no_progress);

    // Time the current `best` with stage s set to `size`. Returns < 0 when it cannot launch.
    auto measure = [&](int s, int size, std::string& why) -> double {
        LaunchSizes c = best;
        launch_size(c, s) = size;
        cx.set_launch_config(c);
        try {
            const std::vector<double> ms = time_frames(cx, scene.camera, rs, o.warmup, o.frames);
            return spread_of(ms).median;
        } catch (const std::exception& e) {
            why = e.what();
            return -1.0;
        }
    };

    ojson stages_json = ojson::array();
    std::printf("\ntuning %s (%s) at %dx%d, depth %d: %d frames per size (median), one stage at a time\n",
                cx.device_name().c_str(), resolution_class(o.width, o.height).c_str(), o.width, o.height, deep,
                o.frames);
    std::printf("%-10s %8s %8s %12s %12s  %s\n", "stage", "default", "chosen", "default ms", "chosen ms", "all sizes (ms)");
    for (int s = 0; s < stages; ++s) {
        // compact's size only matters in compact mode; every other stage is tuned in the
        // stencil mode (the default), which is what render and view use unless told.
        rs.mode = s == 5 ? DeadRayMode::Compact : DeadRayMode::Stencil;
        std::set<int> sizes(std::begin(kSizes), std::end(kSizes));
        sizes.insert(launch_size(best, s));
        ojson cand = ojson::array();
        double cur_ms = -1, best_ms = -1;
        int best_size = launch_size(best, s);
        std::string line;
        for (int size : sizes) {
            std::string why;
            const double ms = measure(s, size, why);
            progress.step(std::string(kTunedStages[s]) + " " + std::to_string(size));
            if (ms < 0) {
                cand.push_back({{"block", size}, {"ok", false}, {"error", why}});
                line += " " + std::to_string(size) + ":-";
                if (size == launch_size(best, s))
                    throw std::runtime_error(std::string("bench --tune: the current ") + kTunedStages[s] +
                                             " size " + std::to_string(size) + " fails: " + why);
                continue;
            }
            cand.push_back({{"block", size}, {"ok", true}, {"median_ms", ms}});
            line += " " + std::to_string(size) + ":" + fmt("%.3f", ms);
            if (size == launch_size(best, s)) cur_ms = ms;
            if (best_ms < 0 || ms < best_ms) {
                best_ms = ms;
                best_size = size;
            }
        }
        const int before = launch_size(best, s);
        if (best_size != before && best_ms < cur_ms * (1.0 - kMinGain)) launch_size(best, s) = best_size;
        std::printf("%-10s %8d %8d %12.3f %12.3f %s\n", kTunedStages[s], before, launch_size(best, s), cur_ms,
                    launch_size(best, s) == before ? cur_ms : best_ms, line.c_str());
        stages_json.push_back({{"stage", kTunedStages[s]},
                               {"mode", to_string(rs.mode)},
                               {"default", launch_size(defaults, s)},
                               {"before", before},
                               {"chosen", launch_size(best, s)},
                               {"candidates", cand}});
    }

    // The gain, measured afresh: defaults and tuned alternately per (mode, depth).
    std::printf("\ngain against the untuned defaults (median frame ms, %d frames each)\n", o.frames);
    std::printf("%-8s %5s %12s %12s %8s\n", "mode", "depth", "default ms", "tuned ms", "gain");
    ojson gains = ojson::array();
    double deep_default = 0, deep_tuned = 0;
    for (DeadRayMode m : o.modes) {
        for (int d : gain_depths) {
            rs.mode = m;
            rs.depth = d;
            cx.set_launch_config(defaults);
            const double def_ms = spread_of(time_frames(cx, scene.camera, rs, o.warmup, o.frames)).median;
            progress.step(std::string(to_string(m)) + " d" + std::to_string(d) + " default");
            cx.set_launch_config(best);
            const double tuned_ms = spread_of(time_frames(cx, scene.camera, rs, o.warmup, o.frames)).median;
            progress.step(std::string(to_string(m)) + " d" + std::to_string(d) + " tuned");
            const double gain = def_ms > 0 ? (def_ms - tuned_ms) / def_ms * 100.0 : 0.0;
            std::printf("%-8s %5d %12.3f %12.3f %7.1f%%\n", to_string(m), d, def_ms, tuned_ms, gain);
            gains.push_back({{"mode", to_string(m)}, {"depth", d}, {"default_ms", def_ms}, {"tuned_ms", tuned_ms},
                             {"gain_percent", gain}});
            if (m == o.modes.front() && d == deep) {
                deep_default = def_ms;
                deep_tuned = tuned_ms;
            }
        }
    }
    progress.finish("tuned");

    TuningEntry e;
    e.key = {cx.device_name(), cx.sm_count(), resolution_class(o.width, o.height)};
    e.launch = best;
    e.defaults = defaults;
    e.created = utc_now();
    e.revision = std::string(SRT_REVISION);
    e.scene = scene.name;
    e.width = o.width;
    e.height = o.height;
    e.depth = deep;
    e.mode = to_string(o.modes.front());
    e.default_ms = deep_default;
    e.tuned_ms = deep_tuned;

    const std::string path = tuning_cache_path();
    std::string warning;
    TuningCache cache = TuningCache::load(path, &warning);
    if (!warning.empty()) std::fprintf(stderr, "warning: %s (it will be rewritten)\n", warning.c_str());
    cache.put(e);
    cache.save(path);
    std::printf("\ntuning: saved launch sizes for %s (%s) to %s\n", e.key.gpu.c_str(), e.key.res_class.c_str(),
                path.c_str());

    ojson doc = record_head("tune", cx, o);
    doc["scene"] = scene_json;
    doc["tune"] = {{"resolution_class", e.key.res_class}, {"cache_path", path}, {"min_gain", kMinGain},
                   {"stages", stages_json}, {"gain", gains}};
    cx.set_launch_config(best);
    doc["tune"]["chosen"] = launch_json(cx);
    doc["tune"]["defaults"] = ojson{{"generate", defaults.generate}, {"intersect", defaults.intersect},
                                    {"shade", defaults.shade},       {"reflect", defaults.reflect},
                                    {"resolve", defaults.resolve},   {"compact", defaults.compact}};
    if (!o.csv.empty()) {
        std::ostringstream c;
        c << "stage,mode,block,ok,median_ms,chosen\n";
        for (const ojson& st : stages_json)
            for (const ojson& k : st["candidates"])
                c << st["stage"].get<std::string>() << "," << st["mode"].get<std::string>() << ","
                  << k["block"].get<int>() << "," << (k["ok"].get<bool>() ? 1 : 0) << ","
                  << (k["ok"].get<bool>() ? fmt("%.6f", k["median_ms"].get<double>()) : "") << ","
                  << (k["block"].get<int>() == st["chosen"].get<int>() ? 1 : 0) << "\n";
        write_output(o.csv, c.str(), "csv");
    }
    return write_json_and_plot(o, doc);
}

}  // namespace srt::bench
#endif  // SRT_HAVE_CUDA
