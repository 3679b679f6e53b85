// frames_path_kill.cu - the path integrator's kernels under --kill (render/kill.h; the
// variant bits kKill | kPathTracing), compiled here once, beside cuda/frames_path.cu.
#include "cuda/cuda_executor_impl.cuh"
#include "cuda/frame_launcher_stages.cuh"

namespace srt {
template struct cuda::FrameLauncher<CudaExecutorImpl, kKill | kPathTracing>;
}  // namespace srt
