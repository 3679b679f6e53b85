// frame_launcher_stages.cuh - the stage launchers of cuda/frame_launcher.cuh, which
// instantiate the kernels: included only by the files that compile a set's kernels
// (cuda/frames_*.cu), so each kernel is compiled once. What both integrators launch
// alike (generate, intersect, the live-word list, resolve) the path launcher hands to
// the Whitted one of the same kill; the ray tree's launcher (Whitted with glass,
// cuda/frames_whitted_tree.cu) hands it generate, the list and resolve.
#pragma once

#include "cuda/frame_launcher.cuh"
#include "cuda/pool_kernels.cuh"

namespace srt::cuda {

template <class Executor, int kSet>
size_t FrameLauncher<Executor, kSet>::stack_bytes(const SceneView& view) {
    size_t need = 0;
    const auto frame = [&](const void* kernel) {
        cudaFuncAttributes a{};
        CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
        need = std::max(need, a.localSizeBytes);
    };
    FrameContext f;
    f.scene = view;
    variant(f, [&](auto w) {
        constexpr int W = decltype(w)::value;
        frame(reinterpret_cast<const void*>(cuda::k_path_tail<cuda::TraceOp<W>, false>));
        if constexpr (kTree) frame(reinterpret_cast<const void*>(cuda::k_path_tail<cuda::TraceOp<W>, true>));
        frame(reinterpret_cast<const void*>(cuda::k_megakernel<cuda::TraceOp<W>>));
        frame(reinterpret_cast<const void*>(cuda::k_regenerate<cuda::TraceOp<W>>));
        frame(reinterpret_cast<const void*>(
            cuda::k_stencil_sparse_bounce<cuda::IntersectOp<whitted_variant(W)>, cuda::ShadeOp<shade_variant(W)>,
                                          cuda::ReflectOp<W>>));
        if constexpr (!kPath)
            frame(reinterpret_cast<const void*>(cuda::k_stencil_write<cuda::IntersectOp<whitted_variant(W)>>));
        frame(reinterpret_cast<const void*>(cuda::k_stencil_read<cuda::ShadeOp<shade_variant(W)>>));
    });
    return need;
}

template <class Executor, int kSet>
void FrameLauncher<Executor, kSet>::sparse_bounce(const FrameContext& f) {
    variant(f, [&](auto w) {
        constexpr int W = decltype(w)::value;
        using Intersect = cuda::IntersectOp<whitted_variant(W)>;
        constexpr int S = shade_variant(W);
        const auto kernel = cuda::k_stencil_sparse_bounce<Intersect, cuda::ShadeOp<S>, cuda::ReflectOp<W>>;
        const auto [grid, b] = filling(kernel, ex.sizes_.config().intersect);
        launch(kIntersect, grid, b, kernel, f, ex.rays_.stencil.get(), ex.rays_.list[0].get(), ex.rays_.list[1].get(),
               Intersect{}, cuda::shade_op<S>(ctrl()), cuda::ReflectOp<W>{ctrl()}, counters(), ctrl());
    });
}

template <class Executor, int kSet>
void FrameLauncher<Executor, kSet>::packed_bounce(const FrameContext& f) {
    if constexpr (kPath || kKilling) {
        FrameControl* c = ctrl();
        packed_intersect(f);
        variant(f, [&](auto w) {  // compaction's shade and reflect, over the packed lists
            constexpr int W = decltype(w)::value;
            constexpr int S = shade_variant(W);
            compact_shade(ex.sizes_.config().shade, f, cuda::shade_op<S>(c), c->packed_live);
            compact_write(kReflect, ex.sizes_.config().reflect, f, cuda::ReflectOp<W>{c}, nullptr, 1, 0,
                          c->packed_live);
        });
    }
}

template <class Executor, int kSet>
void FrameLauncher<Executor, kSet>::pack(const FrameContext& f) {
    const uint32_t words = f.ray_count >> 5;
    launch(kReflect, std::max((words + 255u) / 256u, 1u), 256, cuda::k_stencil_pack, ex.rays_.stencil.get(), words, ctrl(),
           ex.rays_.list[0].get());
}

template <class Executor, int kSet>
void FrameLauncher<Executor, kSet>::packed_intersect(const FrameContext& f) {
    if constexpr (kPath) {
        as<kSet & kKill>().packed_intersect(f);
    } else {  // compaction's intersect over the packed lists (the same kernels as --mode compact's)
        variant(f, [&](auto w) {
            compact_write(kIntersect, ex.sizes_.config().intersect, f,
                          cuda::IntersectOp<whitted_variant(decltype(w)::value)>{}, counters(), 0, 1, ctrl()->packed_live);
        });
    }
}

template <class Executor, int kSet>
void FrameLauncher<Executor, kSet>::tail(const FrameContext& f) {
    variant(f, [&](auto w) {
        constexpr int W = decltype(w)::value;
        const auto kernel = cuda::k_path_tail<cuda::TraceOp<W>, false>;
        const auto [grid, b] = per_ray(kernel, cuda::kPathBlock, f.ray_count);
        launch(kIntersect, grid, b, kernel, f, cuda::TraceOp<W>{}, cuda::TailKind::ListedWords, ex.rays_.stencil.get(),
               ex.rays_.flags.get(), (const uint32_t*)ex.rays_.list[0].get(), (const uint32_t*)ex.rays_.list[1].get(), counters(),
               ctrl());
    });
}

template <class Executor, int kSet>
void FrameLauncher<Executor, kSet>::trace_paths(const FrameContext& f, DeadRayMode mode) {
    uint32_t* reached = counting ? ex.reached_.get() : nullptr;
    variant(f, [&](auto w) {
        constexpr int W = decltype(w)::value;
        if (mode == DeadRayMode::Megakernel) {
            const auto kernel = cuda::k_megakernel<cuda::TraceOp<W>>;
            const auto [grid, b] = per_ray(kernel, cuda::kPathBlock, f.ray_count);
            launch(kPaths, grid, b, kernel, f, cuda::TraceOp<W>{}, counters(), reached, (const FrameControl*)ctrl());
        } else {
            const auto kernel = cuda::k_regenerate<cuda::TraceOp<W>>;
            const auto [grid, b] = filling(kernel, cuda::kPathBlock);
            launch(kPaths, grid, b, kernel, f, cuda::TraceOp<W>{}, counters(),
                   counting ? ex.path_steps_.get() : nullptr, reached, ctrl());
        }
    });
}

template <class Executor, int kSet>
void FrameLauncher<Executor, kSet>::trace_pool(const FrameContext& f) {
    const cuda::PoolBuffers p = ex.rays_.pool(f.ray_count);
    const uint32_t pool = ex.pool_paths(f.ray_count);
    uint32_t* reached = counting ? ex.reached_.get() : nullptr;
    // The next queue's stencil into the queue, in slot order; then it is this step's.
    const auto next_queue = [&] {
        launch(kReflect, std::max((p.words + 255u) / 256u, 1u), 256, cuda::k_pool_compact, p, ctrl());
        launch(kReflect, 1, 1, cuda::k_pool_end, ctrl(), loops);
    };
    // (Each step leaves the stencil clear; a frame cut short might not.)
    CUDA_CHECK(cudaMemsetAsync(p.next, 0, size_t(p.words) * 4u, stream));
    launch(kGenerate, (pool + 255u) / 256u, 256, cuda::k_pool_start, f, p, pool, ctrl());
    next_queue();
    variant(f, [&](auto w) {
        constexpr int W = decltype(w)::value;
        using Traversal = cuda::IntersectOp<whitted_variant(W)>;
        const auto intersect = cuda::k_pool_intersect<Traversal>;
        const auto shade = cuda::k_pool_shade<shade_variant(W), Traversal>;
        const auto reflect = cuda::k_pool_reflect<W>;
        // (Pairs, not structured bindings: the lambda below captures them.)
        const std::pair<uint32_t, int> i = filling(intersect, ex.sizes_.config().intersect);
        const std::pair<uint32_t, int> s = filling(shade, ex.sizes_.config().shade);
        const std::pair<uint32_t, int> r = filling(reflect, ex.sizes_.config().reflect);
        const auto step = [&] {
            launch(kIntersect, i.first, i.second, intersect, f, p, Traversal{}, counters(),
                   counting ? ex.path_steps_.get() : nullptr, reached, ctrl());
            launch(kShade, s.first, s.second, shade, f, p, Traversal{}, counters(), ctrl());
            launch(kReflect, r.first, r.second, reflect, f, p, ctrl());
            next_queue();
        };
        if (graph()) {
            loops.bounces = cuda::make_loop_handle(root);
            in_body(ex.side_[1], loops.bounces, step);
            return;
        }
        for (;;) {  // stream launches: the host reads the next queue's size after each step
            FrameControl c{};
            CUDA_CHECK(cudaMemcpyAsync(&c, ctrl(), sizeof c, cudaMemcpyDeviceToHost, stream));
            CUDA_CHECK(cudaStreamSynchronize(stream));
            if (c.live[c.parity] == 0) break;
            step();
        }
    });
}

template <class Executor, int kSet>
void FrameLauncher<Executor, kSet>::finish_trees(const FrameContext& f) {
    if constexpr (kTree) {  // only a ray tree's frames have trees
        variant(f, [&](auto w) {
            constexpr int W = decltype(w)::value;
            const auto kernel = cuda::k_path_tail<cuda::TraceOp<W>, true>;
            const auto [grid, b] = per_ray(kernel, cuda::kPathBlock, f.ray_count);
            const cuda::TailKind kind = settings.mode == DeadRayMode::Stencil ? cuda::TailKind::StencilWords
                                        : settings.mode == DeadRayMode::Flags ? cuda::TailKind::Flags
                                                                              : cuda::TailKind::RayList;
            launch(kReflect, grid, b, kernel, f, cuda::TraceOp<W>{}, kind, ex.rays_.stencil.get(), ex.rays_.flags.get(),
                   (const uint32_t*)ex.rays_.list[0].get(), (const uint32_t*)ex.rays_.list[1].get(), counters(), ctrl());
        });
        launch(kReflect, 1, 1, cuda::k_end_tree, ctrl(), uint32_t(f.max_depth));
    }
}

template <class Executor, int kSet>
void FrameLauncher<Executor, kSet>::list_words(const FrameContext& f) {
    if constexpr (kSet != 0) {
        as<0>().list_words(f);
    } else {
        const auto [grid, b] = filling(cuda::k_stencil_list, 256);
        launch(kReflect, grid, b, cuda::k_stencil_list, (const uint32_t*)ex.rays_.stencil.get(), f.ray_count >> 5,
               ctrl(), ex.rays_.list[0].get(), ex.rays_.list[1].get());
    }
}

template <class Executor, int kSet>
void FrameLauncher<Executor, kSet>::generate(const FrameContext& f) {
    if constexpr (kSet != 0) {
        as<0>().generate(f);
    } else {
        const cuda::GenerateOp op{ctrl()};
        const int block = ex.sizes_.config().generate;
        switch (settings.mode) {
            case DeadRayMode::Stencil: {
                const auto kernel = cuda::k_stencil_write<cuda::GenerateOp>;
                const auto [grid, b] = per_ray(kernel, block, f.ray_count);
                launch(kGenerate, grid, b, kernel, f, ex.rays_.stencil.get(), op, true, (uint32_t*)nullptr,
                       (BounceCounters*)nullptr, (const FrameControl*)ctrl());
                break;
            }
            case DeadRayMode::Flags: {
                const auto kernel = cuda::k_flags_write<cuda::GenerateOp>;
                const auto [grid, b] = per_ray(kernel, block, f.ray_count);
                launch(kGenerate, grid, b, kernel, f, ex.rays_.flags.get(), op, true, (uint32_t*)nullptr,
                       (BounceCounters*)nullptr, (const FrameControl*)ctrl());
                break;
            }
            case DeadRayMode::Compact: {
                const auto kernel = cuda::k_compact_generate<cuda::GenerateOp>;
                const auto [grid, b] = per_ray(kernel, block, f.ray_count);
                launch(kGenerate, grid, b, kernel, f, op, ex.rays_.list[0].get(), live(0));
                break;
            }
            case DeadRayMode::Megakernel:
            case DeadRayMode::Regenerate:
                break;  // run_frame calls trace_paths instead
        }
    }
}

template <class Executor, int kSet>
void FrameLauncher<Executor, kSet>::intersect(const FrameContext& f, int bounce) {
    if constexpr (kPath) {
        as<kSet & kKill>().intersect(f, bounce);
    } else {  // Whitted's variants, or a ray tree's (variant())
        variant(f, [&](auto w) {
            write_stage(kIntersect, ex.sizes_.config().intersect, f, cuda::IntersectOp<whitted_variant(decltype(w)::value)>{},
                        counters(), 0, 1);
        });
    }
}

template <class Executor, int kSet>
void FrameLauncher<Executor, kSet>::shade(const FrameContext& f, int) {
    variant(f, [&](auto w) { shade_w<shade_variant(decltype(w)::value)>(f); });
}

template <class Executor, int kSet>
void FrameLauncher<Executor, kSet>::reflect(const FrameContext& f, int) {
    variant(f, [&](auto w) {
        write_stage(kReflect, ex.sizes_.config().reflect, f, cuda::ReflectOp<decltype(w)::value>{ctrl()}, nullptr,
                    1, 0);
    });
}

template <class Executor, int kSet>
void FrameLauncher<Executor, kSet>::retire(const FrameContext& f, int bounce) {
    if (stencil() && bounce > 0) return reflect(f, bounce);
    if (!ex.probe_) return;
    switch (settings.mode) {
        case DeadRayMode::Stencil:
            CUDA_CHECK(cudaMemsetAsync(ex.rays_.stencil.get(), 0, size_t(f.ray_count >> 5) * 4u, stream));
            break;
        case DeadRayMode::Flags:
            CUDA_CHECK(cudaMemsetAsync(ex.rays_.flags.get(), 0, size_t(f.ray_count) * 4u, stream));
            break;
        case DeadRayMode::Compact:
            break;  // reflect's list (live[0]) was cleared by shade and stays empty
        case DeadRayMode::Megakernel:
        case DeadRayMode::Regenerate:
            break;  // run_frame calls trace_paths instead
    }
}

template <class Executor, int kSet>
void FrameLauncher<Executor, kSet>::resolve(const FrameContext& f) {
    if constexpr (kSet != 0) {
        as<0>().resolve(f);
    } else {
        const auto [grid, b] = per_ray(cuda::k_resolve, ex.sizes_.config().resolve, f.pixel_count);
        launch(kResolve, grid, b, cuda::k_resolve, f, ctrl());
    }
}

}  // namespace srt::cuda
