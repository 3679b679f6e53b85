// frames_whitted_tree.cu - the kernels of Whitted frames with glass (Whitted's ray tree,
// render/ray_tree.h; the variant bit kRayTree), compiled here once, beside
// cuda/frames_whitted.cu and cuda/frames_path.cu: a scene without glass runs kernels that
// hold none of the tree's code.
#include "cuda/cuda_executor_impl.cuh"
#include "cuda/frame_launcher_stages.cuh"

namespace srt {
template struct cuda::FrameLauncher<CudaExecutorImpl, kRayTree>;
}  // namespace srt
