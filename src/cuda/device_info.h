// device_info.h - what the benchmark records about the GPU (plain C++ header, no CUDA
// types). device_info.cpp is compiled only in CUDA builds (srt_cuda); app code calls
// query_device_info() under #if defined(SRT_HAVE_CUDA).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <sstream>
#include <string>

namespace srt {

struct DeviceInfo {
    bool ok = false;
    std::string error;  // why not ok
    int device = 0;
    std::string name;
    int sm_count = 0;
    int cc_major = 0, cc_minor = 0;
    size_t total_memory = 0;       // bytes
    int driver_version = 0;        // cudaDriverGetVersion: 12040 = 12.4 (newest CUDA the driver supports)
    int runtime_version = 0;       // cudaRuntimeGetVersion: the runtime linked in
    std::string nvidia_driver;     // from /proc/driver/nvidia/version, e.g. "550.54.15"; may be empty
    // Clocks and bus: -1 where the attribute cannot be read (some are deprecated).
    int clock_khz = -1;            // SM clock (cudaDevAttrClockRate)
    int memory_clock_khz = -1;     // cudaDevAttrMemoryClockRate
    int memory_bus_bits = -1;      // cudaDevAttrGlobalMemoryBusWidth
    int l2_bytes = -1;             // cudaDevAttrL2CacheSize
    int max_threads_per_sm = -1;   // cudaDevAttrMaxThreadsPerMultiProcessor
};

DeviceInfo query_device_info(int device = 0);

// Whether machine code for the architectures in `sass` ("80,90": sm_80 and sm_90) runs on
// a GPU of compute capability major.minor: sm_XY runs on X.Z for every Z >= Y (binary
// compatible within a major version). Any other GPU runs the PTX, which its driver
// compiles at first use. Header-only, so that the CPU tests check it too.
inline bool holds_machine_code_for(const std::string& sass, int major, int minor) {
    std::istringstream list(sass);
    for (std::string item; std::getline(list, item, ',');) {
        const int arch = std::atoi(item.c_str());
        if (arch / 10 == major && arch % 10 <= minor) return true;
    }
    return false;
}

// 12040 -> "12.4"; 0 -> "unknown".
std::string cuda_version_string(int v);

}  // namespace srt
