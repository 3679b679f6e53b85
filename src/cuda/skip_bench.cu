// skip_bench.cu - timing how fast each strategy skips dead rays (see skip_bench.h).
//
// The kernels are the renderer's own (cuda/kernels.cuh); only the stage is replaced by
// TouchOp, which writes one float per live ray, so the time is the strategy's overhead
// plus the smallest possible amount of work.
#include "cuda/skip_bench.h"

#include "cuda/check.h"
#include "cuda/device_buffer.h"
#include "cuda/kernels.cuh"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <stdexcept>
#include <map>
#include <random>
#include <vector>

namespace srt {
namespace {

// The trivial stage: one float written per live ray (so the compiler cannot drop the
// live path, and a live ray costs one coalesced store).
struct TouchOp {
    float* out;
    __device__ uint32_t operator()(const FrameContext&, uint32_t i) const {
        out[i] = 1.0f;
        return 0u;
    }
};

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const double pos = q * double(v.size() - 1);
    const size_t lo = size_t(std::floor(pos)), hi = size_t(std::ceil(pos));
    return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
}

template <class Kernel>
int occupancy_block(Kernel kernel) {
    int min_grid = 0, block = 0;
    CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, kernel, 0, 0));
    return std::max(32, (block / 32) * 32);
}

class EventPair {
public:
    EventPair() {
        CUDA_CHECK(cudaEventCreate(&a_));
        CUDA_CHECK(cudaEventCreate(&b_));
    }
    ~EventPair() {
        cudaEventDestroy(a_);
        cudaEventDestroy(b_);
    }
    EventPair(const EventPair&) = delete;
    EventPair& operator=(const EventPair&) = delete;
    cudaEvent_t a_{}, b_{};
};

class Runner {
public:
    Runner(const SkipBenchOptions& opt, cudaStream_t stream) : opt_(opt), stream_(stream) {
        events_.resize(size_t(std::max(1, opt.iterations)));
        for (auto& e : events_) e = std::make_unique<EventPair>();
        // A buffer twice the L2 size, cleared before every timed launch, so each launch
        // starts with its inputs out of the cache as they would be in a frame, where the
        // ray buffers (64 bytes a ray) stream through L2 between two stages.
        int l2 = 0;
        if (cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0) != cudaSuccess) {
            cudaGetLastError();
            l2 = 0;
        }
        flush_.allocate(size_t(std::max(l2, 1 << 20)) * 2, "L2 flush buffer");
    }

    // Times `launch` (a callable that enqueues one kernel on stream_): warm-up, then
    // opt_.iterations launches each between two events, after an L2 flush.
    template <class Launch>
    std::vector<double> time(Launch launch) {
        for (int k = 0; k < opt_.warmup; ++k) {
            launch();
            CUDA_CHECK(cudaGetLastError());
        }
        for (auto& e : events_) {
            CUDA_CHECK(cudaMemsetAsync(flush_.get(), k_flush_byte_++ & 0xff, flush_.bytes(), stream_));
            CUDA_CHECK(cudaEventRecord(e->a_, stream_));
            launch();
            CUDA_CHECK(cudaGetLastError());
            CUDA_CHECK(cudaEventRecord(e->b_, stream_));
        }
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        std::vector<double> ms;
        for (auto& e : events_) {
            float t = 0.0f;
            CUDA_CHECK(cudaEventElapsedTime(&t, e->a_, e->b_));
            ms.push_back(double(t));
        }
        return ms;
    }

private:
    const SkipBenchOptions& opt_;
    cudaStream_t stream_;
    std::vector<std::unique_ptr<EventPair>> events_;
    DeviceBuffer<unsigned char> flush_;
    int k_flush_byte_ = 1;
};

}  // namespace

SkipBenchReport run_skip_bench(const SkipBenchOptions& opt, void (*progress)(int, int, void*), void* ctx) {
    SkipBenchReport rep;
    cudaDeviceProp props{};
    CUDA_CHECK(cudaGetDeviceProperties(&props, 0));
    rep.device = props.name;
    const uint32_t n = padded_ray_count(std::max<uint32_t>(opt.rays, 32u));
    rep.rays = n;

    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    struct StreamGuard {
        cudaStream_t s;
        ~StreamGuard() { cudaStreamDestroy(s); }
    } guard{stream};

    DeviceBuffer<uint32_t> stencil, flags, list, list_count, word_list, word_count;
    DeviceBuffer<float> out;
    stencil.allocate(n / kWarpSize, "skip: stencil");
    flags.allocate(n, "skip: flags");
    list.allocate(n, "skip: live list");
    list_count.allocate(1, "skip: live count");
    word_list.allocate(n / kWarpSize, "skip: live-word list");
    word_count.allocate(1, "skip: live-word count");
    out.allocate(n, "skip: output");
    CUDA_CHECK(cudaMemset(out.get(), 0, out.bytes()));

    FrameContext f;  // only ray_count is read by the kernels with TouchOp
    f.ray_count = n;
    f.pixel_count = n;
    const TouchOp op{out.get()};

    const auto k_list = cuda::k_stencil_sparse_read<TouchOp>;
    const auto k_scan = cuda::k_stencil_read<TouchOp>;
    const int b_stencil = opt.block > 0 ? opt.block : occupancy_block(k_list);
    const int b_flags = opt.block > 0 ? opt.block : occupancy_block(cuda::k_flags_read<TouchOp>);
    const int b_compact = opt.block > 0 ? opt.block : occupancy_block(cuda::k_compact_read<TouchOp>);
    const int b_empty = opt.block > 0 ? opt.block : occupancy_block(cuda::k_empty);
    auto grid_for = [](uint32_t threads, int block) {
        return std::max<uint32_t>(1u, (threads + uint32_t(block) - 1u) / uint32_t(block));
    };
    // The list walkers' grid, as the executor sizes it: the blocks the GPU holds at once.
    auto filling = [&](const void* kernel, int block) {
        int per_sm = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0));
        return uint32_t(std::max(1, per_sm) * props.multiProcessorCount);
    };
    const uint32_t stencil_grid = filling(reinterpret_cast<const void*>(k_list), b_stencil);
    const uint32_t compact_grid =
        filling(reinterpret_cast<const void*>(cuda::k_compact_read<TouchOp>), b_compact);

    Runner runner(opt, stream);
    std::map<uint32_t, double> empty_ms;  // by thread count
    auto empty_for = [&](uint32_t threads) {
        auto it = empty_ms.find(threads);
        if (it != empty_ms.end()) return it->second;
        const uint32_t grid = grid_for(threads, b_empty);
        const double ms = percentile(runner.time([&] {
            cuda::k_empty<<<grid, b_empty, 0, stream>>>(f);
        }), 0.5);
        empty_ms[threads] = ms;
        return ms;
    };
    rep.empty_ms = empty_for(n);
    {
        SkipResult e;
        e.mode = "empty";
        e.pattern = "-";
        e.rays = n;
        e.dead_rays = n;
        e.block = b_empty;
        e.grid = grid_for(n, b_empty);
        e.median_ms = e.min_ms = e.max_ms = e.p10_ms = e.p90_ms = e.empty_ms = rep.empty_ms;
        rep.results.push_back(e);
    }

    const char* patterns[2] = {"coherent", "random"};
    const int total = 2 * int(opt.live_fractions.size()) * 4;
    int done = 0;
    std::mt19937_64 rng(opt.seed);
    std::vector<uint32_t> h_flags(n), h_words(n / kWarpSize), h_list, h_word_list;
    h_list.reserve(n);
    for (int pat = 0; pat < 2; ++pat) {
        for (const double p : opt.live_fractions) {
            // The pattern, on the host: flags, stencil words and the live list agree.
            std::fill(h_words.begin(), h_words.end(), 0u);
            h_list.clear();
            const uint64_t coherent_live = uint64_t(std::llround(p * double(n)));
            std::bernoulli_distribution alive(std::min(1.0, std::max(0.0, p)));
            for (uint32_t i = 0; i < n; ++i) {
                const bool a = pat == 0 ? uint64_t(i) < coherent_live : alive(rng);
                h_flags[i] = a ? 1u : 0u;
                if (a) {
                    h_words[i >> 5] |= 1u << (i & 31u);
                    h_list.push_back(i);
                }
            }
            h_word_list.clear();
            for (uint32_t w = 0; w < h_words.size(); ++w)
                if (h_words[w]) h_word_list.push_back(w);
            const uint64_t live_warps = h_word_list.size();
            const uint32_t live = uint32_t(h_list.size());
            const uint32_t live_words = uint32_t(h_word_list.size());
            CUDA_CHECK(cudaMemcpy(flags.get(), h_flags.data(), size_t(n) * 4, cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaMemcpy(stencil.get(), h_words.data(), h_words.size() * 4, cudaMemcpyHostToDevice));
            if (live) CUDA_CHECK(cudaMemcpy(list.get(), h_list.data(), size_t(live) * 4, cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaMemcpy(list_count.get(), &live, 4, cudaMemcpyHostToDevice));
            if (live_words)
                CUDA_CHECK(cudaMemcpy(word_list.get(), h_word_list.data(), size_t(live_words) * 4,
                                      cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaMemcpy(word_count.get(), &live_words, 4, cudaMemcpyHostToDevice));

            // Correct first: after the timing, one more launch on a cleared output must
            // have written exactly the live rays.
            std::vector<float> h_out(n);
            std::function<void()> last_launch;
            auto verify = [&](const std::string& mode) {
                CUDA_CHECK(cudaMemsetAsync(out.get(), 0, out.bytes(), stream));
                last_launch();
                CUDA_CHECK(cudaGetLastError());
                CUDA_CHECK(cudaMemcpyAsync(h_out.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost, stream));
                CUDA_CHECK(cudaStreamSynchronize(stream));
                for (uint32_t i = 0; i < n; ++i) {
                    if ((h_out[i] == 1.0f) != (h_flags[i] != 0))
                        throw std::runtime_error("bench --skip: " + mode + " wrote ray " + std::to_string(i) +
                                                 (h_flags[i] ? " (live) wrongly" : " (dead)"));
                }
            };
            // Modes: the stencil as a sparse bounce reads it (the live-word list walked by
            // a grid that fills the GPU once), flags, compact, and the stencil as a dense
            // bounce reads it (one warp per word over the whole grid).
            for (int m = 0; m < 4; ++m) {
                SkipResult r;
                r.pattern = patterns[pat];
                r.live_fraction = p;
                r.rays = n;
                r.live_rays = live;
                r.dead_rays = n - live;
                r.live_warps = live_warps;
                std::vector<double> ms;
                if (m == 0) {
                    r.mode = "stencil";
                    r.block = b_stencil;
                    r.grid = stencil_grid;
                    last_launch = [&] {
                        k_list<<<r.grid, r.block, 0, stream>>>(f, stencil.get(), word_list.get(), word_count.get(), op);
                    };
                } else if (m == 3) {
                    r.mode = "stencil-dense";
                    r.block = b_stencil;
                    r.grid = grid_for(n, b_stencil);
                    last_launch = [&] {
                        k_scan<<<r.grid, r.block, 0, stream>>>(f, stencil.get(), op, (cuda::BounceCounters*)nullptr,
                                                               (const cuda::FrameControl*)nullptr);
                    };
                } else if (m == 1) {
                    r.mode = "flags";
                    r.block = b_flags;
                    r.grid = grid_for(n, b_flags);
                    last_launch = [&] {
                        cuda::k_flags_read<TouchOp><<<r.grid, r.block, 0, stream>>>(
                            f, flags.get(), op, (cuda::BounceCounters*)nullptr, (cuda::FrameControl*)nullptr,
                            (uint32_t*)nullptr);
                    };
                    ms = runner.time(last_launch);
                    r.empty_ms = empty_for(n);
                } else {
                    r.mode = "compact";
                    r.block = b_compact;
                    r.grid = compact_grid;
                    last_launch = [&] {
                        cuda::k_compact_read<TouchOp><<<r.grid, r.block, 0, stream>>>(
                            f, list.get(), list_count.get(), op, (cuda::BounceCounters*)nullptr,
                            (cuda::FrameControl*)nullptr, (uint32_t*)nullptr);
                    };
                }
                // Every mode against the empty kernel over the same rays.
                ms = runner.time(last_launch);
                r.empty_ms = empty_for(n);
                verify(r.mode);
                r.median_ms = percentile(ms, 0.5);
                r.p10_ms = percentile(ms, 0.1);
                r.p90_ms = percentile(ms, 0.9);
                r.min_ms = *std::min_element(ms.begin(), ms.end());
                r.max_ms = *std::max_element(ms.begin(), ms.end());
                rep.results.push_back(r);
                if (progress) progress(++done, total, ctx);
            }
        }
    }
    return rep;
}

}  // namespace srt
