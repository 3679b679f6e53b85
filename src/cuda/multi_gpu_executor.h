// multi_gpu_executor.h - one frame over several GPUs of one host (--devices), as one
// CudaExecutor: the viewer renders into its mapped GL buffer with it as with one GPU.
//
// The bands, their balancing and the host threads are render/split_executor.h's. What
// this adds is the gather on the device: render_device() (and timed_frame()) put every
// band into one device buffer, on the GPU that holds it (the viewer's display buffer):
//   - the band of a part on that GPU is rendered in place;
//   - any other band is rendered into its GPU's own buffer and copied over, by a peer
//     copy where the two GPUs can reach each other (NVLink or PCIe P2P), otherwise
//     through pinned host memory.
// render() keeps the split's host gather: every GPU reads its own band back at once.
// Plain C++ header (no CUDA types), as cuda_executor.h.
#pragma once

#include "cuda/cuda_executor.h"

#include <memory>
#include <string>
#include <vector>

namespace srt {

// How a band reaches the GPU of the one image.
enum class GatherPath {
    Auto,  // peer where both GPUs allow it, else host
    Peer,  // cudaMemcpyPeerAsync with peer access enabled
    Host,  // device -> pinned host -> device
};
const char* to_string(GatherPath p);

// Returns nullptr and sets why_not when a device cannot be used. `force` other than Auto
// makes every gather take that path (tests; Peer fails where P2P is not possible).
std::unique_ptr<CudaExecutor> make_multi_gpu_executor(const std::vector<int>& devices, std::string& why_not,
                                                      GatherPath force = GatherPath::Auto);

}  // namespace srt
