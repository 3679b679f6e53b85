// backend.cpp - choosing an executor.
#include "app/app.h"

#if defined(SRT_HAVE_CUDA)
#include "cuda/cuda_executor.h"
#include "cuda/multi_gpu_executor.h"
#endif

#include "core/error.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace srt::app {

namespace {
// "all" or "0,1,..." against `count` devices; throws InputError naming the flag.
std::vector<int> parse_devices(const std::string& text, int count) {
    std::vector<int> out;
    if (text == "all") {
        for (int i = 0; i < count; ++i) out.push_back(i);
    } else {
        std::stringstream ss(text);
        for (std::string item; std::getline(ss, item, ',');) {
            char* end = nullptr;
            const long d = std::strtol(item.c_str(), &end, 10);
            if (item.empty() || *end != '\0' || d < 0)
                throw InputError("--devices '" + text + "': expected all or a list of device numbers like 0,1");
            if (d >= count)
                throw InputError("--devices '" + text + "': no device " + item + " (" + std::to_string(count) + " present)");
            if (std::find(out.begin(), out.end(), int(d)) != out.end())
                throw InputError("--devices '" + text + "': device " + item + " named twice");
            out.push_back(int(d));
        }
    }
    if (out.empty()) throw InputError("--devices '" + text + "': no devices");
    return out;
}
}  // namespace

std::unique_ptr<Executor> make_executor(Backend b, const std::string& devices) {
    if (b == Backend::Cpu) {
        if (!devices.empty()) throw InputError("--devices: GPUs only (the CPU backend uses every core already)");
        return make_cpu_executor();
    }
#if defined(SRT_HAVE_CUDA)
    std::string why;
    if (!devices.empty()) {
        const int count = cuda_device_count();
        if (count == 0) {
            throw BackendUnavailable("--devices " + devices + ": no usable CUDA device");
        }
        const std::vector<int> ids = parse_devices(devices, count);
        // One GPU: its executor. Several: one frame split over them
        // (cuda/multi_gpu_executor.h), which is a CudaExecutor too.
        auto ex = ids.size() == 1 ? make_cuda_executor(why, ids.front()) : make_multi_gpu_executor(ids, why);
        if (!ex) throw BackendUnavailable("--devices " + devices + ": " + why);
        return ex;
    }
    if (auto ex = make_cuda_executor(why)) return ex;
    if (b == Backend::Cuda) throw BackendUnavailable("--backend cuda: " + why);
    std::fprintf(stderr, "notice: no usable CUDA device (%s); rendering on the CPU\n", why.c_str());
#else
    if (!devices.empty()) throw BackendUnavailable("--devices: this stencilrt was built without CUDA");
    if (b == Backend::Cuda)
        throw BackendUnavailable("--backend cuda: this stencilrt was built without CUDA (nvcc was not found at configure time)");
    std::fprintf(stderr, "notice: built without CUDA; rendering on the CPU\n");
#endif
    return make_cpu_executor();
}

}  // namespace srt::app
