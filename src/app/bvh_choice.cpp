// bvh_choice.cpp - --bvh-build: which builder makes the tree, and where PLOC runs.
#include "app/app.h"

#if defined(SRT_HAVE_CUDA)
#include "cuda/ploc_device.h"
#endif

#include <algorithm>
#include <cstdio>
#include <thread>

namespace srt::app {

namespace {
// The model behind `auto`, from Conference's figures (docs/performance.md, "The GPU
// builder (PLOC)" and "Spatial splits"): the SAH builder with spatial splits costs about
// kSahCoreUsPerPrim microseconds of one core per primitive, and its tree traces up to
// about kPlocGap faster than PLOC's. It pays where the rays traced outweigh the build:
// rays * kPlocGap / rate > primitives * cost.
constexpr double kSahCoreUsPerPrim = 6.5;
constexpr double kPlocGap = 0.15;
constexpr double kGpuRaysPerS = 2e9;
constexpr double kCoreRaysPerS = 1e7;
}  // namespace

BuildChoice choose_bvh_build(const SceneOptions& so, Backend backend, Purpose purpose, size_t primitives,
                             double rays) {
    BuildChoice c;
    c.options.spatial_splits = so.spatial_splits;
    const double cores = double(std::max(1u, std::thread::hardware_concurrency()));
    bool gpu = false;
#if defined(SRT_HAVE_CUDA)
    if (backend != Backend::Cpu) {
        std::string why_not;
        c.device = make_cuda_ploc_device(why_not);
        gpu = c.device != nullptr;
    }
#else
    (void)backend;
#endif
    if (so.bvh_build == "sah" || so.bvh_build == "ploc") {
        c.options.builder = so.bvh_build == "sah" ? BvhBuilder::Sah : BvhBuilder::Ploc;
        c.why = "--bvh-build " + so.bvh_build;
    } else if (purpose == Purpose::View) {
        c.options.builder = BvhBuilder::Ploc;
        c.why = "auto: the viewer wants its first frame soon";
    } else if (purpose == Purpose::Bench) {
        c.options.builder = BvhBuilder::Sah;
        c.why = "auto: the bench measures the better tree";
    } else {
        const double trace_s = rays * kPlocGap / (gpu ? kGpuRaysPerS : kCoreRaysPerS * cores);
        const double build_s = double(primitives) * kSahCoreUsPerPrim * 1e-6 / cores;
        c.options.builder = trace_s > build_s ? BvhBuilder::Sah : BvhBuilder::Ploc;
        char buf[160];
        std::snprintf(buf, sizeof buf, "auto: %.3g rays over %zu primitives: the SAH tree would save about %.3g s, "
                      "its build cost %.3g s", rays, primitives, trace_s, build_s);
        c.why = buf;
    }
    // The device only where PLOC runs on it: a choice of the SAH builder holds none.
    if (c.options.builder == BvhBuilder::Ploc) c.options.device = c.device.get();
    else c.device.reset();
    return c;
}

std::string bvh_line(const CompiledScene& cs, const BuildChoice& c) {
    const BvhBuildStats& st = cs.bvh_stats;
    char buf[512];
    std::snprintf(buf, sizeof buf, "bvh      %s (%s): %.1f ms, SAH cost %.1f, %u nodes, depth %u%s%s%s\n",
                  st.builder.c_str(), c.why.c_str(), st.build_ms, st.sah_cost, st.nodes, st.max_depth,
                  st.steps.empty() ? "" : " (", st.steps.c_str(), st.steps.empty() ? "" : ")");
    return buf;
}

}  // namespace srt::app
