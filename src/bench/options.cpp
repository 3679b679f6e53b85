// options.cpp - parsing the bench's list options (bench.h).
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

namespace srt::bench {

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------


// "1..8", "1,2,4,8", "1..3,8": items are N or A..B, 1 <= depth <= 64, A <= B.
std::vector<int> parse_depths(const std::string& text) {
    auto number = [&](const std::string& s) {
        char* end = nullptr;
        errno = 0;
        const long v = std::strtol(s.c_str(), &end, 10);
        if (s.empty() || *end != '\0' || errno != 0)
            throw InputError("--depths: '" + s + "' in '" + text + "' is not a whole number");
        if (v < 1 || v > 64)
            throw InputError("--depths: " + s + " is out of range (a depth is 1 to 64; 1 = primary rays only)");
        return int(v);
    };
    std::vector<int> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        const size_t dots = item.find("..");
        if (dots == std::string::npos) {
            out.push_back(number(item));
            continue;
        }
        const int a = number(item.substr(0, dots)), b = number(item.substr(dots + 2));
        if (a > b) throw InputError("--depths: range '" + item + "' runs backwards (write " +
                                    std::to_string(b) + ".." + std::to_string(a) + ")");
        for (int d = a; d <= b; ++d) out.push_back(d);
    }
    if (out.empty() || text.empty() || text.back() == ',')
        throw InputError("--depths: '" + text + "' is empty; give e.g. 1..8 or 1,2,4,8");
    // Ascending and without repeats, so tables and plots read left to right.
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<DeadRayMode> parse_modes(const std::string& text) {
    std::vector<DeadRayMode> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item == "all") {
            for (const DeadRayModeInfo& i : kDeadRayModeTable)
                if (std::find(out.begin(), out.end(), i.mode) == out.end()) out.push_back(i.mode);
            continue;
        }
        DeadRayMode m;
        if (!parse_mode(item, m))
            throw InputError("--modes: unknown mode '" + item + "' (" + mode_list(", ") + " or all)");
        if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
    }
    if (out.empty()) throw InputError("--modes: '" + text + "' is empty; give e.g. stencil,flags,compact");
    return out;
}

// "graph", "stream", "graph,stream" or "both".
std::vector<LaunchMode> parse_launches(const std::string& text) {
    std::vector<LaunchMode> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        std::vector<LaunchMode> add;
        LaunchMode l;
        if (item == "both") add = {LaunchMode::Graph, LaunchMode::Stream};
        else if (parse_launch_mode(item, l)) add = {l};
        else throw InputError("--launch: unknown launch mode '" + item + "' (graph, stream or both)");
        for (LaunchMode a : add)
            if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
    }
    if (out.empty()) throw InputError("--launch: '" + text + "' is empty; give graph, stream or both");
    return out;
}

}  // namespace srt::bench
