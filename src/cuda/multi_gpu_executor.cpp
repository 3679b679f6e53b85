// multi_gpu_executor.cpp - see multi_gpu_executor.h.
#include "cuda/multi_gpu_executor.h"

#include "cuda/check.h"
#include "cuda/device_arena.h"
#include "render/split_executor.h"

#include <chrono>
#include <set>

namespace srt {

const char* to_string(GatherPath p) {
    switch (p) {
    case GatherPath::Auto: return "auto";
    case GatherPath::Peer: return "peer";
    case GatherPath::Host: return "pinned host";
    }
    return "?";
}

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// What one GPU keeps for gathering its band: the band's buffer and a stream on that GPU,
// the staging for host gathers, and how it reaches the GPU it last gathered to.
struct PartGather {
    int device = 0;
    CudaExecutor* ex = nullptr;
    cudaStream_t stream = nullptr;
    DeviceBuffer<uint32_t> band;
    PinnedBuffer staging;
    // For a destination this executor does not own (the viewer's GL buffer): the band
    // lands by a peer copy in this buffer on the destination GPU, then one copy on that
    // GPU moves it into place (peer writes into memory another API allocated need not
    // take the direct path).
    DeviceBuffer<uint32_t> landing;
    cudaStream_t dst_stream = nullptr;
    int resolved_for = -1;  // the destination device `path` was chosen for
    GatherPath path = GatherPath::Auto;
};

// Lets `from` reach `to`'s memory; true if it can (already enabled counts).
bool enable_peer(int from, int to) {
    int can = 0;
    if (cudaDeviceCanAccessPeer(&can, from, to) != cudaSuccess || !can) {
        cudaGetLastError();
        return false;
    }
    CUDA_CHECK(cudaSetDevice(from));
    const cudaError_t rc = cudaDeviceEnablePeerAccess(to, 0);
    if (rc == cudaErrorPeerAccessAlreadyEnabled) {
        cudaGetLastError();
        return true;
    }
    CUDA_CHECK(rc);
    return true;
}

class MultiGpuExecutor final : public CudaExecutor {
public:
    MultiGpuExecutor(std::vector<std::unique_ptr<CudaExecutor>> exs, const std::vector<int>& devices,
                     GatherPath force)
        : split_(as_executors(exs, parts_, devices)), force_(force) {
        for (PartGather& p : parts_) {
            CUDA_CHECK(cudaSetDevice(p.device));
            CUDA_CHECK(cudaStreamCreateWithFlags(&p.stream, cudaStreamNonBlocking));
        }
    }
    ~MultiGpuExecutor() override {
        for (PartGather& p : parts_) {  // each GPU's buffer and stream with that GPU current
            cudaSetDevice(p.device);
            p.band.release();
            if (p.stream) cudaStreamDestroy(p.stream);
            release_landing(p);
        }
        cudaSetDevice(parts_.front().device);
        frame_.release();
    }

    std::string name() const override {
        std::string s = split_.name() + "; gather on the device: ";
        if (force_ != GatherPath::Auto) return s + to_string(force_) + " (forced)";
        return s + "peer copies where P2P works, else pinned host";
    }
    SplitExecutor* split() override { return &split_; }
    void set_stencil_probe(StencilProbe probe) override { split_.set_stencil_probe(std::move(probe)); }

    void set_scene(const CompiledScene& scene) override { split_.set_scene(scene); }
    void render(const Camera& camera, const RenderSettings& s, Image& out, FrameStats* stats) override {
        split_.render(camera, s, out, stats);
    }
    void read_linear(LinearImage& out) override { split_.read_linear(out); }

    // Every band into one buffer on the first device: the time until the whole image is
    // in one place, as one GPU's frame is (host clock: the bands run on several GPUs).
    double timed_frame(const Camera& camera, const RenderSettings& s, FrameStats* stats) override {
        CUDA_CHECK(cudaSetDevice(parts_.front().device));
        frame_.allocate(size_t(s.width) * size_t(s.height), "split frame");
        return gather_frame(camera, s, frame_.get(), parts_.front().device, /*own_dst=*/true, stats);
    }

    void render_device(const Camera& camera, const RenderSettings& s, uint32_t* device_rgba,
                       FrameStats* stats) override {
        gather_frame(camera, s, device_rgba, device_of(device_rgba), /*own_dst=*/false, stats);
    }

    void set_launch_config(const LaunchConfig& c) override {
        for (PartGather& p : parts_) p.ex->set_launch_config(c);
    }
    LaunchConfig launch_config() const override { return parts_.front().ex->launch_config(); }
    std::string device_name() const override {
        std::set<std::string> names;
        for (const PartGather& p : parts_) names.insert(p.ex->device_name());
        std::string s = std::to_string(parts_.size()) + " x ";
        for (const std::string& n : names) s += (s.back() == ' ' ? "" : " + ") + n;
        return s;
    }
    int sm_count() const override {
        int n = 0;
        for (const PartGather& p : parts_) n += p.ex->sm_count();
        return n;
    }
    int graph_captures() const override {
        int n = 0;
        for (const PartGather& p : parts_) n += p.ex->graph_captures();
        return n;
    }
    bool sparse_bounces() const override {
        for (const PartGather& p : parts_)
            if (!p.ex->sparse_bounces()) return false;
        return true;
    }

private:
    static std::vector<std::unique_ptr<Executor>> as_executors(std::vector<std::unique_ptr<CudaExecutor>>& exs,
                                                              std::vector<PartGather>& parts,
                                                              const std::vector<int>& devices) {
        std::vector<std::unique_ptr<Executor>> out;
        parts = std::vector<PartGather>(exs.size());
        for (size_t i = 0; i < exs.size(); ++i) {
            parts[i].device = devices[i];
            parts[i].ex = exs[i].get();
            out.push_back(std::move(exs[i]));
        }
        return out;
    }

    static int device_of(const void* p) {
        cudaPointerAttributes a{};
        CUDA_CHECK(cudaPointerGetAttributes(&a, p));
        if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
            throw CudaError(cudaErrorInvalidValue, "render_device: the output is not device memory");
        return a.device;
    }

    // Renders every band on its GPU and gathers it into `dst` on device `dst_device`;
    // returns when the whole image is there.
    double gather_frame(const Camera& camera, const RenderSettings& s, uint32_t* dst, int dst_device, bool own_dst,
                        FrameStats* stats) {
        return split_.run_bands(s, [&](size_t i, const RenderSettings& band) {
            PartGather& p = parts_[i];
            FrameStats* st = stats ? &part_stats_[i] : nullptr;
            uint32_t* target = dst + size_t(band.band_y) * size_t(band.width);
            const size_t pixels = size_t(band.width) * size_t(band.rows());
            if (p.device == dst_device) {  // rendered in place
                p.ex->render_device(camera, band, target, st);
                CUDA_CHECK(cudaSetDevice(p.device));
                CUDA_CHECK(cudaDeviceSynchronize());
                return SplitExecutor::BandTime{};
            }
            CUDA_CHECK(cudaSetDevice(p.device));
            p.band.allocate(pixels, "split band");
            p.ex->render_device(camera, band, p.band.get(), st);
            CUDA_CHECK(cudaSetDevice(p.device));
            CUDA_CHECK(cudaDeviceSynchronize());
            const auto t0 = Clock::now();
            gather(p, target, dst_device, own_dst, pixels * 4);
            return SplitExecutor::BandTime{-1.0, ms_since(t0)};
        }, stats, &part_stats_);
    }

    static void release_landing(PartGather& p) {
        if (p.resolved_for < 0) return;
        cudaSetDevice(p.resolved_for);
        p.landing.release();
        if (p.dst_stream) cudaStreamDestroy(p.dst_stream);
        p.dst_stream = nullptr;
    }

    void gather(PartGather& p, uint32_t* target, int dst_device, bool own_dst, size_t bytes) {
        if (p.resolved_for != dst_device) {
            release_landing(p);
            CUDA_CHECK(cudaSetDevice(dst_device));
            CUDA_CHECK(cudaStreamCreateWithFlags(&p.dst_stream, cudaStreamNonBlocking));
            p.path = GatherPath::Host;
            if (force_ != GatherPath::Host) {
                const bool peer = enable_peer(dst_device, p.device) && enable_peer(p.device, dst_device);
                if (peer) p.path = GatherPath::Peer;
                else if (force_ == GatherPath::Peer)
                    throw CudaError(cudaErrorPeerAccessUnsupported,
                                    "split frame: device " + std::to_string(p.device) + " cannot copy to device " +
                                        std::to_string(dst_device) + " by peer copies (no P2P between them)");
            }
            p.resolved_for = dst_device;
        }
        CUDA_CHECK(cudaSetDevice(p.device));
        if (p.path == GatherPath::Peer) {
            uint32_t* land = target;
            if (!own_dst) {
                CUDA_CHECK(cudaSetDevice(dst_device));
                p.landing.allocate(bytes / 4, "split band landing");
                land = p.landing.get();
                CUDA_CHECK(cudaSetDevice(p.device));
            }
            CUDA_CHECK(cudaMemcpyPeerAsync(land, dst_device, p.band.get(), p.device, bytes, p.stream));
            CUDA_CHECK(cudaStreamSynchronize(p.stream));
            if (!own_dst) {
                CUDA_CHECK(cudaSetDevice(dst_device));
                CUDA_CHECK(cudaMemcpyAsync(target, land, bytes, cudaMemcpyDeviceToDevice, p.dst_stream));
                CUDA_CHECK(cudaStreamSynchronize(p.dst_stream));
            }
            return;
        }
        void* host = p.staging.reserve(bytes);
        CUDA_CHECK(cudaMemcpyAsync(host, p.band.get(), bytes, cudaMemcpyDeviceToHost, p.stream));
        CUDA_CHECK(cudaStreamSynchronize(p.stream));
        CUDA_CHECK(cudaSetDevice(dst_device));
        CUDA_CHECK(cudaMemcpy(target, host, bytes, cudaMemcpyHostToDevice));  // pinned: returns when done
    }

    std::vector<PartGather> parts_;  // filled by as_executors before split_ is built
    SplitExecutor split_;
    GatherPath force_;
    std::vector<FrameStats> part_stats_;
    DeviceBuffer<uint32_t> frame_;  // timed_frame's image, on the first device
};

}  // namespace

std::unique_ptr<CudaExecutor> make_multi_gpu_executor(const std::vector<int>& devices, std::string& why_not,
                                                      GatherPath force) {
    if (devices.empty()) {
        why_not = "no devices";
        return nullptr;
    }
    std::vector<std::unique_ptr<CudaExecutor>> exs;
    for (int d : devices) {
        std::string why;
        auto ex = make_cuda_executor(why, d);
        if (!ex) {
            why_not = "device " + std::to_string(d) + ": " + why;
            return nullptr;
        }
        exs.push_back(std::move(ex));
    }
    return std::make_unique<MultiGpuExecutor>(std::move(exs), devices, force);
}

}  // namespace srt
