// machine.cpp - what a record says about the machine and the scene (bench.h).
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
// What the record says about the machine, the build and the scene
// ---------------------------------------------------------------------------
std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0) {
            const size_t colon = line.find(':');
            if (colon != std::string::npos) {
                std::string m = line.substr(colon + 1);
                m.erase(0, m.find_first_not_of(" \t"));
                return m;
            }
        }
    }
    return "unknown";
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

// FNV-1a 64 of the scene file's bytes (included meshes are not folded in).
std::string scene_hash(const std::string& path) {
    if (path.empty()) return "builtin:default";
    std::ifstream in(path, std::ios::binary);
    if (!in) return "unreadable";
    uint64_t h = 0xcbf29ce484222325ull;
    char buf[65536];
    while (in) {
        in.read(buf, sizeof buf);
        for (std::streamsize i = 0; i < in.gcount(); ++i) {
            h ^= uint64_t(static_cast<unsigned char>(buf[i]));
            h *= 0x100000001b3ull;
        }
    }
    char out[40];
    std::snprintf(out, sizeof out, "fnv1a64:%016llx", (unsigned long long)h);
    return out;
}

bool is_cuda(Executor& ex) {
#if defined(SRT_HAVE_CUDA)
    return dynamic_cast<CudaExecutor*>(&ex) != nullptr;
#else
    (void)ex;
    return false;
#endif
}

ojson machine_json(Executor& ex) {
    ojson m;
    m["executor"] = ex.name();
    m["backend"] = is_cuda(ex) ? "cuda" : "cpu";
    m["host"] = {{"cpu_model", cpu_model()}, {"threads", int(std::thread::hardware_concurrency())}};
#if defined(SRT_HAVE_CUDA)
    if (is_cuda(ex)) {
        const DeviceInfo d = query_device_info(0);
        ojson g;
        g["name"] = d.name;
        g["sm_count"] = d.sm_count;
        g["compute_capability"] = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
        g["memory_bytes"] = d.total_memory;
        g["driver_cuda_version"] = cuda_version_string(d.driver_version);
        g["runtime_version"] = cuda_version_string(d.runtime_version);
        g["nvidia_driver"] = d.nvidia_driver.empty() ? "unknown" : d.nvidia_driver;
        auto opt = [](int v) { return v >= 0 ? ojson(v) : ojson(nullptr); };
        g["clock_khz"] = opt(d.clock_khz);
        g["memory_clock_khz"] = opt(d.memory_clock_khz);
        g["memory_bus_bits"] = opt(d.memory_bus_bits);
        g["l2_bytes"] = opt(d.l2_bytes);
        g["max_threads_per_sm"] = opt(d.max_threads_per_sm);
        if (!d.ok) g["error"] = d.error;
        m["gpu"] = g;
    }
#endif
    return m;
}

std::string machine_line(const ojson& m) {
    std::string s = m["executor"].get<std::string>();
    if (m.contains("gpu")) {
        const ojson& g = m["gpu"];
        s += ", " + std::to_string(g["sm_count"].get<int>()) + " SMs, CUDA driver " +
             g["driver_cuda_version"].get<std::string>() + " (" + g["nvidia_driver"].get<std::string>() +
             "), runtime " + g["runtime_version"].get<std::string>();
        if (!g["clock_khz"].is_null())
            s += ", " + std::to_string(g["clock_khz"].get<int>() / 1000) + " MHz";
    } else {
        s += ", " + m["host"]["cpu_model"].get<std::string>();
    }
    return s;
}

}  // namespace srt::bench
