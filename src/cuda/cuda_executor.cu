// cuda_executor.cu - the wavefront pipeline on the GPU.
//
// Ray state lives in device memory as SoA (render/frame.h); the frame loop is
// render/pipeline.h's run_frame, shared with the CPU executor. This file owns the
// buffers and the captured graph (the class: cuda/cuda_executor_impl.cuh);
// cuda/frame_launcher.cuh issues the kernels (the renderer's only <<<>>>), compiled per
// integrator in cuda/frames_whitted.cu and cuda/frames_path.cu, and cuda/launch_sizer.h
// sizes them.
//
// A frame is issued in one of two ways (RenderSettings::launch):
//   graph  - run_frame's launches are captured into a CUDA graph once per configuration
//            (FrameKey) and the graph is replayed; its sample and bounce loops are WHILE
//            nodes that k_end_sample / k_end_bounce steer, so the bounce loop stops on the
//            device once every ray is dead. The camera is read from device memory
//            (FrameControl), so a new camera needs no new capture.
//   stream - the same kernels go straight to the stream; the host runs the loops, all
//            `depth` bounces, and issues both the dense and the sparse stencil kernels
//            (each checks FrameControl::dense), so a dead bounce's kernels find nothing
//            to do but are still launched. Per-stage times (stats), the stencil probe
//            (tests) and Nsight Compute (which cannot profile kernels in graphs with
//            conditional nodes) need this mode.
#include "cuda/cuda_executor_impl.cuh"

#include <dlfcn.h>

#include <cstdio>
#include <string>

#include "cuda/device_info.h"

namespace srt {

namespace {
// The runtime answers "CUDA driver version is insufficient" both where the driver is old
// and where there is none at all; the second is the common case (a laptop, a CI runner),
// and blaming a version there sends people looking for the wrong fix.
std::string no_device_reason(cudaError_t rc) {
    if (rc == cudaErrorNoDevice) return "no NVIDIA GPU found";
    if (rc == cudaErrorInsufficientDriver) {
        void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (lib == nullptr) return "no NVIDIA driver found (libcuda.so.1 is not installed)";
        dlclose(lib);
        return "the NVIDIA driver is older than CUDA " + std::to_string(CUDART_VERSION / 1000) + "." +
               std::to_string(CUDART_VERSION % 1000 / 10) + " needs (" + cudaGetErrorName(rc) + ")";
    }
    return std::string(cudaGetErrorName(rc)) + ": " + cudaGetErrorString(rc);
}
}  // namespace

int cuda_device_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count;
}

namespace {
// SRT_CUDA_SASS lists the architectures this build holds machine code for ("80,90";
// "none" for PTX alone, a build on a machine without a GPU; empty where CMake could not
// tell). A GPU of major version X runs sm_XY's code for any Y up to its own minor; any
// other GPU runs the PTX, which its driver compiles the first time a kernel file's module
// loads and keeps in its cache (a PTX-only build's first frame on an H200: 5 minutes;
// docs/performance.md, "The build"). Said once a process, so that a slow first frame is
// not a mystery.
void note_if_compiled_at_first_use(const cudaDeviceProp& p) {
    static bool said = false;
    const std::string sass = SRT_CUDA_SASS;
    if (said || sass.empty() || holds_machine_code_for(sass, p.major, p.minor)) return;
    said = true;
    std::string held = "PTX alone: it was built where no GPU was found";
    if (sass != "none") {
        held = "it has sm_" + sass;
        for (size_t at = held.find(','); at != std::string::npos; at = held.find(',', at + 2)) held.replace(at, 1, ", sm_");
    }
    std::fprintf(stderr,
                 "notice: this stencilrt holds no machine code for %s (sm_%d%d; %s): the driver compiles its "
                 "kernels from PTX the first time each is used, once, into its cache. Build it on this machine "
                 "(make render finds its GPU) or with -DCMAKE_CUDA_ARCHITECTURES=%d%d to skip that.\n",
                 p.name, p.major, p.minor, held.c_str(), p.major, p.minor);
}
}  // namespace

std::unique_ptr<CudaExecutor> make_cuda_executor(std::string& why_not, int device) {
    int count = 0;
    const cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess) {
        why_not = no_device_reason(rc);
        cudaGetLastError();
        return nullptr;
    }
    if (count == 0) {
        why_not = "no NVIDIA GPU found";
        return nullptr;
    }
    if (device < 0 || device >= count) {
        why_not = "no CUDA device " + std::to_string(device) + " (" + std::to_string(count) + " present)";
        return nullptr;
    }
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, device) != cudaSuccess) {
        why_not = "cannot query CUDA device " + std::to_string(device);
        return nullptr;
    }
    if (p.major < 7 || (p.major == 7 && p.minor < 5)) {
        why_not = std::string(p.name) + " is compute capability " + std::to_string(p.major) + "." +
                  std::to_string(p.minor) + "; stencilrt needs 7.5 or newer";
        return nullptr;
    }
    note_if_compiled_at_first_use(p);
    try {
        return std::make_unique<CudaExecutorImpl>(device);
    } catch (const CudaError& e) {
        why_not = e.what();
        return nullptr;
    }
}

}  // namespace srt
