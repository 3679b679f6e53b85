// test_bench_report.cpp - the bench library's statistics and reports on their own, from
// fixed inputs whose answers are known (the binary-level checks are in test_bench.cpp).
#include "bench/bench.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace srt;
using namespace srt::bench;

namespace {

Result fixed_result() {
    Result r;
    r.mode = DeadRayMode::Flags;
    r.launch = LaunchMode::Stream;
    r.depth = 2;
    r.ms = {2.0, 1.0, 4.0, 3.0};
    r.frame = spread_of(r.ms);
    r.stats.rays_traced = 5000;
    r.stats.bounces_run = 2;
    r.stats.bounces = {{1000, 40}, {200, 10}};
    r.stats.stage_ms = {{"generate", 0.5}, {"intersect", 1.25}};
    return r;
}

std::vector<std::string> split(const std::string& line, char sep) {
    std::vector<std::string> v;
    std::stringstream ss(line);
    std::string item;
    while (std::getline(ss, item, sep)) v.push_back(item);
    return v;
}

}  // namespace

TEST(BenchStats, PercentilesInterpolateBetweenNeighbours) {
    const std::vector<double> v = {1.0, 2.0, 3.0, 4.0};
    EXPECT_DOUBLE_EQ(percentile_sorted(v, 0.0), 1.0);
    EXPECT_DOUBLE_EQ(percentile_sorted(v, 1.0), 4.0);
    EXPECT_DOUBLE_EQ(percentile_sorted(v, 0.5), 2.5);
    EXPECT_DOUBLE_EQ(percentile_sorted(v, 0.1), 1.3);
    EXPECT_DOUBLE_EQ(percentile_sorted({7.0}, 0.9), 7.0);
}

TEST(BenchStats, SpreadOfUnsortedFrames) {
    const Spread s = spread_of({2.0, 1.0, 4.0, 3.0, 100.0});
    EXPECT_DOUBLE_EQ(s.median, 3.0);
    EXPECT_DOUBLE_EQ(s.min, 1.0);
    EXPECT_DOUBLE_EQ(s.max, 100.0);
    EXPECT_DOUBLE_EQ(s.mean, 22.0);
    EXPECT_DOUBLE_EQ(s.mad, 1.0);  // |x - 3|: 1, 2, 1, 0, 97 -> median 1
}

TEST(BenchReport, CsvFromAFixedResult) {
    RenderSettings base;
    base.width = 64;
    base.height = 32;
    const std::string csv = results_csv({fixed_result()}, base, 4, 1);
    const auto lines = split(csv, '\n');
    ASSERT_EQ(lines.size(), 2u) << csv;
    const auto head = split(lines[0], ','), row = split(lines[1], ',');
    ASSERT_EQ(head.size(), row.size()) << csv;
    auto col = [&](const std::string& name) {
        for (size_t k = 0; k < head.size(); ++k)
            if (head[k] == name) return row[k];
        ADD_FAILURE() << "no column " << name;
        return std::string();
    };
    EXPECT_EQ(col("mode"), "flags");
    EXPECT_EQ(col("launch"), "stream");
    EXPECT_EQ(col("depth"), "2");
    EXPECT_EQ(col("width"), "64");
    EXPECT_EQ(col("frames"), "4");
    EXPECT_DOUBLE_EQ(std::stod(col("median_ms")), 2.5);
    EXPECT_DOUBLE_EQ(std::stod(col("fps")), 400.0);
    EXPECT_EQ(col("rays_traced"), "5000");
    EXPECT_EQ(col("bounces_run"), "2");
    EXPECT_DOUBLE_EQ(std::stod(col("stage_intersect_ms")), 1.25);
    EXPECT_EQ(col("live_rays_b0"), "1000");
    EXPECT_EQ(col("live_warps_b1"), "10");
}

TEST(BenchReport, JsonFromAFixedResult) {
    const ojson j = result_json(fixed_result(), 64, 1);
    EXPECT_EQ(j["mode"], "flags");
    EXPECT_EQ(j["launch"], "stream");
    EXPECT_EQ(j["depth"], 2);
    EXPECT_EQ(j["bounces_run"], 2);
    EXPECT_EQ(j["frames"], 4);
    EXPECT_DOUBLE_EQ(j["frame_ms"]["median"].get<double>(), 2.5);
    EXPECT_DOUBLE_EQ(j["fps"].get<double>(), 400.0);
    EXPECT_DOUBLE_EQ(j["rays_per_s"].get<double>(), 5000.0 / 2.5e-3);
    EXPECT_DOUBLE_EQ(j["stage_ms"]["generate"].get<double>(), 0.5);
    ASSERT_EQ(j["bounces"].size(), 2u);
    EXPECT_EQ(j["bounces"][1]["live_rays"], 200);
    EXPECT_EQ(j["bounces"][1]["warps"], 64);
    EXPECT_DOUBLE_EQ(j["bounces"][0]["simd_efficiency"].get<double>(), 1000.0 / (32.0 * 40.0));
}
