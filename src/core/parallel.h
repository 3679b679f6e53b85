// parallel.h - a minimal parallel-for over the host's cores.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace srt {

// The host's hardware threads, at least 1 (std::thread may not know and say 0).
inline int host_cores() { return int(std::max(1u, std::thread::hardware_concurrency())); }

// Calls fn(begin, end) over [0, n) in chunks of `grain`, on `threads` threads (the
// calling thread included). Chunks are handed out dynamically, so uneven work (dead
// warps cost nothing, mirror warps cost much) balances itself.
template <class Fn>
void parallel_for(uint32_t n, uint32_t grain, int threads, Fn&& fn) {
    if (n == 0) return;
    const uint32_t chunks = (n + grain - 1) / grain;
    const int workers = std::max(1, std::min<int>(threads, int(chunks)));
    std::atomic<uint32_t> next{0};
    auto work = [&]() {
        for (;;) {
            const uint32_t c = next.fetch_add(1, std::memory_order_relaxed);
            if (c >= chunks) break;
            const uint32_t b = c * grain;
            fn(b, std::min(n, b + grain));
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(size_t(workers - 1));
    for (int t = 1; t < workers; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
}

}  // namespace srt
