// frames_whitted_kill.cu - the kernels of Whitted frames under --kill (render/kill.h; the
// variant bit kKill), compiled here once: frames without a kill run kernels that hold
// none of its code. Their intersect and shade kernels are Whitted's own
// (cuda/frames_whitted.cu): a kill changes only the stages that send rays on.
#include "cuda/cuda_executor_impl.cuh"
#include "cuda/frame_launcher_stages.cuh"

namespace srt {
template struct cuda::FrameLauncher<CudaExecutorImpl, kKill>;
}  // namespace srt
