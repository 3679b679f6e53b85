// backend.cpp - choosing an executor.
#include "app/app.h"

#if defined(SRT_HAVE_CUDA)
#include "cuda/cuda_executor.h"
#endif

#include <cstdio>

namespace srt::app {

std::unique_ptr<Executor> make_executor(Backend b) {
    if (b == Backend::Cpu) return make_cpu_executor();
#if defined(SRT_HAVE_CUDA)
    std::string why;
    if (auto ex = make_cuda_executor(why)) return ex;
    if (b == Backend::Cuda) throw BackendUnavailable("--backend cuda: " + why);
    std::fprintf(stderr, "notice: no usable CUDA device (%s); rendering on the CPU\n", why.c_str());
#else
    if (b == Backend::Cuda)
        throw BackendUnavailable("--backend cuda: this stencilrt was built without CUDA (nvcc was not found at configure time)");
    std::fprintf(stderr, "notice: built without CUDA; rendering on the CPU\n");
#endif
    return make_cpu_executor();
}

}  // namespace srt::app
