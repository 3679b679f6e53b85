// tuning.cpp - applying the cached launch sizes to a CUDA executor.
#include "bench/tuning.h"

#if defined(SRT_HAVE_CUDA)
#include "cuda/cuda_executor.h"
#endif

#include <cstdio>

namespace srt::bench {

AppliedTuning apply_cached_tuning_ex(Executor& ex, int width, int height, bool quiet) {
    AppliedTuning a;
    a.res_class = resolution_class(width, height);
#if defined(SRT_HAVE_CUDA)
    auto* cuda = dynamic_cast<CudaExecutor*>(&ex);
    if (!cuda) {
        a.reason = "cpu executor";
        return a;
    }
    if (tuning_disabled_by_env()) {
        a.reason = "disabled by SRT_NO_TUNING";
        return a;
    }
    a.path = tuning_cache_path();
    std::string warning;
    const TuningCache cache = TuningCache::load(a.path, &warning);
    if (!warning.empty()) std::fprintf(stderr, "warning: %s\n", warning.c_str());
    const TuningEntry* e = cache.find({cuda->device_name(), cuda->sm_count(), a.res_class});
    if (!e) {
        a.reason = "no cached entry for this GPU and resolution class";
        return a;
    }
    LaunchConfig c;
    c.generate = e->launch.generate;
    c.intersect = e->launch.intersect;
    c.shade = e->launch.shade;
    c.reflect = e->launch.reflect;
    c.resolve = e->launch.resolve;
    c.compact = e->launch.compact;
    cuda->set_launch_config(c);
    a.applied = true;
    a.entry = *e;
    if (!quiet)
        std::fprintf(stderr, "tuning: using cached launch sizes for %s (%s) from %s\n",
                     cuda->device_name().c_str(), a.res_class.c_str(), a.path.c_str());
#else
    (void)ex;
    (void)width;
    (void)height;
    (void)quiet;
    a.reason = "built without CUDA";
#endif
    return a;
}

void apply_cached_tuning(Executor& ex, int width, int height) {
    apply_cached_tuning_ex(ex, width, height, false);
}

}  // namespace srt::bench
