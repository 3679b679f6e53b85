// event.h - an owned cudaEvent_t.
#pragma once

#include "cuda/check.h"

#include <cuda_runtime.h>

namespace srt::cuda {

class Event {
public:
    Event() { CUDA_CHECK(cudaEventCreate(&e_)); }
    ~Event() { cudaEventDestroy(e_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return e_; }

private:
    cudaEvent_t e_{};
};

}  // namespace srt::cuda
