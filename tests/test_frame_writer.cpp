// FrameWriter (app/frame_writer.h): every queued job runs, a failure stops the queue and
// is rethrown to the render loop, and the queue never holds more than 2 x threads jobs.
#include "app/frame_writer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

using srt::app::FrameWriter;

TEST(FrameWriter, RunsEveryJob) {
    std::atomic<int> done{0};
    FrameWriter w(4);
    for (int i = 0; i < 100; ++i) w.submit([&] { done.fetch_add(1); });
    w.finish();
    EXPECT_EQ(done.load(), 100);
}

TEST(FrameWriter, AFailureStopsTheQueueAndReachesTheCaller) {
    std::atomic<int> done{0};
    FrameWriter w(1);
    bool threw = false;
    try {
        for (int i = 0; i < 50; ++i)
            w.submit([&, i] {
                if (i == 3) throw std::runtime_error("disk full");
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
                done.fetch_add(1);
            });
        w.finish();
    } catch (const std::runtime_error& e) {
        threw = true;
        EXPECT_STREQ(e.what(), "disk full");
    }
    EXPECT_TRUE(threw);
    EXPECT_GE(done.load(), 3);
    EXPECT_LT(done.load(), 10) << "jobs after the failure must not all run";
}

TEST(FrameWriter, TheQueueIsBounded) {
    std::atomic<int> started{0};
    std::atomic<bool> release{false};
    FrameWriter w(2);
    std::thread producer([&] {
        for (int i = 0; i < 20; ++i)
            w.submit([&] {
                started.fetch_add(1);
                while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            });
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(started.load(), 2);  // two running, four waiting, the producer blocked
    release = true;
    producer.join();
    w.finish();
    EXPECT_EQ(started.load(), 20);
}
