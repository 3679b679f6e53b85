// part_threads.h - one long-lived host thread per part of a split frame
// (render/split_executor.h). A frame hands every thread the same job and waits for all of
// them; the threads live as long as the executor, so a frame pays a wake-up, not a thread
// start, and each thread keeps its CUDA device current between frames.
//
// Frames come back to back (a benchmark, the viewer), and waking a sleeping thread takes
// tens of microseconds, as much as a small GPU frame's whole gain: so a thread that has
// finished a job, and the caller waiting for one, first spin for up to kSpin on an
// atomic, and only then sleep on the condition variable.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace srt {

class PartThreads {
public:
    explicit PartThreads(size_t n) : errors_(n) {
        for (size_t i = 0; i < n; ++i) threads_.emplace_back([this, i] { loop(i); });
    }
    ~PartThreads() {
        {
            std::lock_guard<std::mutex> lock(m_);
            stop_.store(true);
        }
        wake_.notify_all();
        for (std::thread& t : threads_) t.join();
    }
    PartThreads(const PartThreads&) = delete;
    PartThreads& operator=(const PartThreads&) = delete;

    size_t size() const { return threads_.size(); }

    // Runs job(i) on thread i for every i at once; returns when all are done and
    // rethrows the first part's failure (by part number).
    void run(const std::function<void(size_t)>& job) {
        for (std::exception_ptr& e : errors_) e = nullptr;
        {
            std::lock_guard<std::mutex> lock(m_);
            job_ = &job;
            pending_.store(threads_.size());
            generation_.fetch_add(1);  // seq_cst: job_ and errors_ are visible to a thread that sees it
        }
        wake_.notify_all();
        if (!spin_until([&] { return pending_.load() == 0; })) {
            std::unique_lock<std::mutex> lock(m_);
            done_.wait(lock, [this] { return pending_.load() == 0; });
        }
        for (const std::exception_ptr& e : errors_)
            if (e) std::rethrow_exception(e);
    }

private:
    static constexpr std::chrono::microseconds kSpin{2000};

    template <class Pred>
    static bool spin_until(Pred ready) {
        const auto end = std::chrono::steady_clock::now() + kSpin;
        for (int k = 0;; ++k) {
            if (ready()) return true;
            if ((k & 63) == 63 && std::chrono::steady_clock::now() > end) return false;
            std::this_thread::yield();
        }
    }

    void loop(size_t i) {
        size_t seen = 0;
        for (;;) {
            const auto next = [&] { return stop_.load() || generation_.load() != seen; };
            if (!spin_until(next)) {
                std::unique_lock<std::mutex> lock(m_);
                wake_.wait(lock, next);
            }
            if (stop_.load()) return;
            seen = generation_.load();
            try {
                (*job_)(i);
            } catch (...) {
                errors_[i] = std::current_exception();
            }
            if (pending_.fetch_sub(1) == 1) {
                std::lock_guard<std::mutex> lock(m_);  // the caller is waiting or will see 0
                done_.notify_one();
            }
        }
    }

    std::mutex m_;
    std::condition_variable wake_, done_;
    const std::function<void(size_t)>* job_ = nullptr;
    std::atomic<size_t> generation_{0}, pending_{0};
    std::atomic<bool> stop_{false};
    std::vector<std::exception_ptr> errors_;
    std::vector<std::thread> threads_;  // last: started once the state above exists
};

}  // namespace srt
