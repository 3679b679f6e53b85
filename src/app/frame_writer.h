// frame_writer.h - image files encoded and written on worker threads while the next
// frames render (render --frames). PNG and EXR encoding take 10-100x a GPU frame, so a
// camera path written on the render thread would run at the encoder's pace.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace srt::app {

class FrameWriter {
public:
    // `threads` workers; at most 2 x threads jobs wait, so memory stays bounded.
    explicit FrameWriter(int threads) : max_queue_(size_t(2 * threads)) {
        for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
    }
    FrameWriter(const FrameWriter&) = delete;
    FrameWriter& operator=(const FrameWriter&) = delete;
    ~FrameWriter() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        cv_.notify_all();
        for (std::thread& t : workers_) t.join();
    }

    // Queues `job`, waiting while the queue is full. Rethrows the first error of an
    // earlier job (no further job runs after one failed).
    void submit(std::function<void()> job) {
        std::unique_lock<std::mutex> lock(mutex_);
        space_.wait(lock, [&] { return queue_.size() < max_queue_ || error_; });
        rethrow(lock);
        queue_.push_back(std::move(job));
        cv_.notify_one();
    }

    // Waits until every queued job has run; rethrows the first error.
    void finish() {
        std::unique_lock<std::mutex> lock(mutex_);
        // Nothing running, and nothing queued (after an error the queue was dropped).
        done_.wait(lock, [&] { return running_ == 0 && (queue_.empty() || error_); });
        rethrow(lock);
    }

private:
    void rethrow(std::unique_lock<std::mutex>& lock) {
        if (!error_) return;
        std::exception_ptr e = error_;
        lock.unlock();
        std::rethrow_exception(e);
    }
    void work() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            cv_.wait(lock, [&] { return stop_ || (!queue_.empty() && !error_); });
            if (queue_.empty() || error_) {
                if (stop_) return;
                continue;
            }
            std::function<void()> job = std::move(queue_.front());
            queue_.pop_front();
            ++running_;
            space_.notify_one();
            lock.unlock();
            std::exception_ptr failed;
            try {
                job();
            } catch (...) {
                failed = std::current_exception();
            }
            lock.lock();
            --running_;
            if (failed && !error_) {
                error_ = failed;
                queue_.clear();  // the frames not written yet stay unwritten
                space_.notify_all();
            }
            done_.notify_all();
        }
    }

    const size_t max_queue_;
    std::mutex mutex_;
    std::condition_variable cv_, space_, done_;
    std::deque<std::function<void()>> queue_;
    std::vector<std::thread> workers_;
    int running_ = 0;
    bool stop_ = false;
    std::exception_ptr error_;
};

}  // namespace srt::app
