// ploc_device.h - PLOC's clustering on the GPU (accel/ploc.h), for --bvh-build ploc.
#pragma once

#include "accel/ploc.h"

#include <memory>
#include <string>

namespace srt {

// Null, with `why_not` set, where no usable CUDA device exists.
std::unique_ptr<PlocDevice> make_cuda_ploc_device(std::string& why_not, int device = 0);

}  // namespace srt
