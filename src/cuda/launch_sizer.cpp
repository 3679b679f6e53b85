#include "cuda/launch_sizer.h"

#include "cuda/check.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace srt::cuda {

void LaunchSizer::set_defaults(const LaunchConfig& defaults, int sm_count) {
    sm_count_ = sm_count;
    default_ = launch_ = defaults;
    const char* env = std::getenv("SRT_LAUNCH");
    if (!env || !*env) return;
    LaunchConfig c{};
    const std::string spec(env);
    size_t pos = 0;
    while (pos < spec.size()) {
        const size_t end = std::min(spec.find(',', pos), spec.size());
        const std::string item = spec.substr(pos, end - pos);
        const size_t eq = item.find('=');
        const int v = eq == std::string::npos ? 0 : std::atoi(item.c_str() + eq + 1);
        const std::string k = item.substr(0, eq);
        if (k == "generate") c.generate = v;
        else if (k == "intersect") c.intersect = v;
        else if (k == "shade") c.shade = v;
        else if (k == "reflect") c.reflect = v;
        else if (k == "resolve") c.resolve = v;
        else if (k == "compact") c.compact = v;
        else std::fprintf(stderr, "SRT_LAUNCH: unknown stage '%s' ignored\n", k.c_str());
        pos = end + 1;
    }
    set(c);
    std::fprintf(stderr, "SRT_LAUNCH: block sizes generate=%d intersect=%d shade=%d reflect=%d resolve=%d\n",
                 launch_.generate, launch_.intersect, launch_.shade, launch_.reflect, launch_.resolve);
}

void LaunchSizer::set(const LaunchConfig& c) {
    auto pick = [](int want, int def) { return want > 0 ? ((want + 31) / 32) * 32 : def; };
    launch_.generate = pick(c.generate, default_.generate);
    launch_.intersect = pick(c.intersect, default_.intersect);
    launch_.shade = pick(c.shade, default_.shade);
    launch_.reflect = pick(c.reflect, default_.reflect);
    launch_.resolve = pick(c.resolve, default_.resolve);
    launch_.compact = pick(c.compact, default_.compact);
}

int LaunchSizer::clamp_block(const void* kernel, int block) {
    auto it = max_block_.find(kernel);
    if (it == max_block_.end()) {
        cudaFuncAttributes a{};
        CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
        it = max_block_.emplace(kernel, std::max(32, (a.maxThreadsPerBlock / 32) * 32)).first;
    }
    return std::min(block, it->second);
}

uint32_t LaunchSizer::fill_blocks(const void* kernel, int block, uint32_t shared_per_thread) {
    const auto key = std::make_pair(kernel, block);
    auto it = fill_.find(key);
    if (it == fill_.end()) {
        int per_sm = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block,
                                                                 size_t(block) * shared_per_thread));
        const char* env = std::getenv("SRT_FILL_WAVES");
        const int waves = env && std::atoi(env) > 0 ? std::atoi(env) : 1;
        it = fill_.emplace(key, uint32_t(std::max(1, per_sm) * sm_count_ * waves)).first;
    }
    return it->second;
}

}  // namespace srt::cuda
