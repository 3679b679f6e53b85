// test_dead_bounce.cpp - bench/dead_bounce: the dead-bounce slope and the FPS ratio from
// fixed sweeps whose answers are known.
#include "bench/dead_bounce.h"

#include <gtest/gtest.h>

using namespace srt::bench;

namespace {

// A sweep over depths 1..n whose frame time is t1 + per_bounce * (d - 1) beyond `knee`,
// and steeper before it.
std::vector<DepthTime> sweep(int n, int knee, double per_live, double per_dead) {
    std::vector<DepthTime> v;
    double t = 1.0;
    for (int d = 1; d <= n; ++d) {
        v.push_back({d, t});
        t += d < knee ? per_live : per_dead;
    }
    return v;
}

}  // namespace

TEST(DeadBounce, SlopeStartsWhereLiveRaysFallBelowTheFraction) {
    // 1e6 primary rays; bounce 3 is the first under 0.1% (999 < 1000).
    const std::vector<uint64_t> live = {1000000, 400000, 5000, 999, 100, 10, 0};
    // Bounces from depth 4 on cost 0.01 ms, before it 0.2 ms.
    const auto times = sweep(12, 4, 0.2, 0.01);
    const DeadBounceCost c = dead_bounce_cost(times, live);
    ASSERT_TRUE(c.ok) << c.why_not;
    EXPECT_EQ(c.from_depth, 4);
    EXPECT_EQ(c.to_depth, 8);
    EXPECT_NEAR(c.ms_per_bounce, 0.01, 1e-12);
}

TEST(DeadBounce, CountedFrameThatNeverFallsUsesTheFirstUntracedBounce) {
    // The counted frame had 3 bounces, all above the limit: bounce 3 traced nothing.
    const std::vector<uint64_t> live = {1000, 900, 800};
    const DeadBounceCost c = dead_bounce_cost(sweep(8, 4, 0.3, 0.02), live);
    ASSERT_TRUE(c.ok);
    EXPECT_EQ(c.from_depth, 4);
    EXPECT_NEAR(c.ms_per_bounce, 0.02, 1e-12);
}

TEST(DeadBounce, MissingDepthsSayWhich) {
    const std::vector<uint64_t> live = {1000000, 10, 0};
    std::vector<DepthTime> times = {{1, 1.0}, {2, 1.1}, {4, 1.2}, {8, 1.3}};
    const DeadBounceCost c = dead_bounce_cost(times, live);
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(c.from_depth, 2);
    EXPECT_NE(c.why_not.find("no depth 6"), std::string::npos) << c.why_not;
    EXPECT_FALSE(dead_bounce_cost(times, {}).ok);
}

TEST(DeadBounce, FpsRatio) {
    const std::vector<DepthTime> times = {{1, 0.25}, {6, 0.5}, {12, 1.0}};
    EXPECT_DOUBLE_EQ(fps_ratio(times, 6), 0.5);
    EXPECT_DOUBLE_EQ(fps_ratio(times, 12), 0.25);
    EXPECT_EQ(fps_ratio(times, 7), 0.0);
    // The seed's own ratio at depth 6: 18.8 / 30.
    EXPECT_NEAR(seed_fps_by_depth()[5] / seed_fps_by_depth()[0], 0.6267, 1e-4);
}
