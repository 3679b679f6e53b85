// device_info.cpp - DeviceInfo from the CUDA runtime. Every query tolerates failure:
// the benchmark records what it can rather than refusing to run.
#include "cuda/device_info.h"

#include <cuda_runtime.h>

#include <fstream>
#include <sstream>

namespace srt {
namespace {

int attribute(cudaDeviceAttr a, int device) {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, a, device) != cudaSuccess) {
        cudaGetLastError();  // clear it: an unsupported attribute is not an error here
        return -1;
    }
    return v;
}

// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 ..." -> "550.54.15"
std::string kernel_module_version() {
    std::ifstream in("/proc/driver/nvidia/version");
    std::string line;
    if (!in || !std::getline(in, line)) return "";
    const std::string marker = "Kernel Module";
    const size_t at = line.find(marker);
    if (at == std::string::npos) return "";
    std::istringstream ss(line.substr(at + marker.size()));
    std::string v;
    ss >> v;
    return v;
}

}  // namespace

std::string cuda_version_string(int v) {
    if (v <= 0) return "unknown";
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

DeviceInfo query_device_info(int device) {
    DeviceInfo d;
    d.device = device;
    cudaDriverGetVersion(&d.driver_version);
    cudaRuntimeGetVersion(&d.runtime_version);
    d.nvidia_driver = kernel_module_version();
    cudaDeviceProp p{};
    const cudaError_t rc = cudaGetDeviceProperties(&p, device);
    if (rc != cudaSuccess) {
        d.error = std::string(cudaGetErrorName(rc)) + ": " + cudaGetErrorString(rc);
        cudaGetLastError();
        return d;
    }
    d.ok = true;
    d.name = p.name;
    d.sm_count = p.multiProcessorCount;
    d.cc_major = p.major;
    d.cc_minor = p.minor;
    d.total_memory = p.totalGlobalMem;
    // cudaDeviceProp::clockRate and memoryClockRate are deprecated (gone in CUDA 13);
    // the attributes still answer where the driver knows them.
    d.clock_khz = attribute(cudaDevAttrClockRate, device);
    d.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, device);
    d.memory_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
    d.l2_bytes = attribute(cudaDevAttrL2CacheSize, device);
    d.max_threads_per_sm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor, device);
    return d;
}

}  // namespace srt
