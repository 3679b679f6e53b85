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
    const DeadBounceCost c = dead_bounce_cost(times, live, 12);
    ASSERT_TRUE(c.ok) << c.why_not;
    EXPECT_EQ(c.measured_bounce, 3);
    EXPECT_EQ(c.from_depth, 4);
    EXPECT_EQ(c.to_depth, 8);
    EXPECT_NEAR(c.ms_per_bounce, 0.01, 1e-12);
}

TEST(DeadBounce, FrameWhoseRaysAllDiedMeasuredTheNextBounceEmpty) {
    // A depth-8 frame traced 3 bounces, all above the limit, and stopped because every
    // ray had died: bounce 3 started with none alive, which is a measurement.
    const std::vector<uint64_t> live = {1000, 900, 800};
    const DeadBounceCost c = dead_bounce_cost(sweep(8, 4, 0.3, 0.02), live, 8);
    ASSERT_TRUE(c.ok) << c.why_not;
    EXPECT_EQ(c.measured_bounce, 3);
    EXPECT_EQ(c.from_depth, 4);
    EXPECT_NEAR(c.ms_per_bounce, 0.02, 1e-12);
}

// A frame that ended at its depth limit with rays above the limit measured nothing past
// its last bounce: the hint names no measured bounce, and the extrapolated one is the
// first where the last bounces' decay, continued, crosses the limit.
TEST(DeadBounce, SweepThatEndedTooSoonSaysSoAndExtrapolates) {
    // Halving a bounce from 1e6: 1e6 * 0.5^k < 1000 first at k = 10 (976.6).
    std::vector<uint64_t> live;
    for (uint64_t n = 1000000, k = 0; k < 4; ++k, n /= 2) live.push_back(n);
    const DeadBounceCost c = dead_bounce_cost(sweep(4, 10, 0.2, 0.01), live, 4);
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(c.measured_bounce, -1);
    EXPECT_EQ(c.extrapolated_bounce, 10);
    EXPECT_NE(c.why_not.find("the sweep ended before live rays fell below 0.1%"), std::string::npos) << c.why_not;
    EXPECT_NE(c.why_not.find("at bounce 3, the deepest it traced, 12.5% were alive"), std::string::npos) << c.why_not;
    EXPECT_NE(c.why_not.find("at bounce 10 (an extrapolation"), std::string::npos) << c.why_not;
    EXPECT_NE(c.why_not.find("--depths 1..15"), std::string::npos) << c.why_not;  // 10 + 1 + 4
    EXPECT_EQ(c.why_not.find("fall below 0.1% of the primary rays at bounce"), std::string::npos) << c.why_not;

    // Only the last bounces' decay counts: a fast fall at first, then x0.5.
    const DeadBounceCost late = dead_bounce_cost(sweep(4, 10, 0.2, 0.01), {1000000, 80000, 40000, 20000}, 4);
    EXPECT_EQ(late.extrapolated_bounce, 8);  // 20000 * 0.5^5 = 625 < 1000, 0.5^4 gives 1250

    // Rays that did not fall, and a single bounce, give nothing to extrapolate from.
    const DeadBounceCost flat = dead_bounce_cost(sweep(4, 10, 0.2, 0.01), {1000, 500, 500, 500}, 4);
    EXPECT_EQ(flat.extrapolated_bounce, -1);
    EXPECT_NE(flat.why_not.find("sweep deeper"), std::string::npos) << flat.why_not;
    const DeadBounceCost one = dead_bounce_cost(sweep(1, 10, 0.2, 0.01), {1000}, 1);
    EXPECT_EQ(one.measured_bounce, -1);
    EXPECT_EQ(one.extrapolated_bounce, -1);
    EXPECT_NE(one.why_not.find("sweep deeper"), std::string::npos) << one.why_not;
}

// Under the path integrator a depth-D frame traces D + 1 bounces: a frame of depth 4 with
// 5 rows ended at its limit, one with 4 rows had every ray die.
TEST(DeadBounce, LevelsDecideWhetherTheFrameEndedAtItsLimit) {
    const std::vector<uint64_t> live = {1000, 600, 300, 150, 80};
    EXPECT_EQ(dead_bounce_cost(sweep(4, 10, 0.2, 0.01), live, 5).measured_bounce, -1);
    EXPECT_EQ(dead_bounce_cost(sweep(4, 10, 0.2, 0.01), live, 6).measured_bounce, 5);
}

TEST(DeadBounce, MissingDepthsSayWhich) {
    const std::vector<uint64_t> live = {1000000, 10, 0};
    std::vector<DepthTime> times = {{1, 1.0}, {2, 1.1}, {4, 1.2}, {8, 1.3}};
    const DeadBounceCost c = dead_bounce_cost(times, live, 8);
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(c.measured_bounce, 1);
    EXPECT_EQ(c.from_depth, 2);
    EXPECT_NE(c.why_not.find("no depth 6"), std::string::npos) << c.why_not;
    EXPECT_NE(c.why_not.find("below 0.1% of the primary rays at bounce 1); measure it with --depths 1..6"),
              std::string::npos) << c.why_not;
    EXPECT_FALSE(dead_bounce_cost(times, {}, 8).ok);
}

TEST(DeadBounce, FpsRatio) {
    const std::vector<DepthTime> times = {{1, 0.25}, {6, 0.5}, {12, 1.0}};
    EXPECT_DOUBLE_EQ(fps_ratio(times, 6), 0.5);
    EXPECT_DOUBLE_EQ(fps_ratio(times, 12), 0.25);
    EXPECT_EQ(fps_ratio(times, 7), 0.0);
    // The seed's own ratio at depth 6: 18.8 / 30.
    EXPECT_NEAR(seed_fps_by_depth()[5] / seed_fps_by_depth()[0], 0.6267, 1e-4);
}
