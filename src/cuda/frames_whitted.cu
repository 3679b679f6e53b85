// frames_whitted.cu - the Whitted integrator's kernels, compiled here once: the CUDA executor's
// frame launcher for that integrator, instantiated (cuda/frame_launcher_stages.cuh). The
// other integrator's kernels compile in cuda/frames_path.cu, side by side in a build.
#include "cuda/cuda_executor_impl.cuh"
#include "cuda/frame_launcher_stages.cuh"

namespace srt {
template struct cuda::FrameLauncher<CudaExecutorImpl, 0>;
}  // namespace srt
