// test_bench_hints.cpp - what the bench says beside its figures, against what was
// measured: the dead-bounce hint names the bounce where the CPU executor's own per-bounce
// counts fall below 0.1% (or says the sweep ended first); the CPU note places every mode
// of the mode table where the CPU executor really runs it; the plot's grid line counts
// every warp the grid launches, and its 2012 line stops at the last depth measured.
#include "bench/bench.h"
#include "render/executor.h"
#include "render/scene_gpu.h"
#include "scene/load.h"
#include "scene/scene.h"
#include "support/process.h"
#include "support/settings.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

using namespace srt;
using namespace srt::test;
using json = nlohmann::json;

namespace {

const std::string kBinary = SRT_BINARY;
const std::string kGlass = std::string(SRT_SOURCE_DIR) + "/scenes/glass.json";  // path-traced
constexpr int kW = 160, kH = 90;

// The CPU executor's live rays per bounce for a frame deep enough that they all fall
// below 0.1% of the primary rays, and the first bounce where they do: the measurement the
// bench's hint must agree with.
int measured_dead_bounce(const Scene& scene, Integrator integrator) {
    const CompiledScene compiled = compile_scene(scene);  // the executor keeps a view of it
    auto ex = make_cpu_executor(2);
    ex->set_scene(compiled);
    RenderSettings rs = Frame(kW, kH, 64).integrator(integrator);
    rs.stats = true;
    Image img;
    FrameStats st;
    ex->render(scene.camera, rs, img, &st);
    const std::vector<BounceStats>& b = st.bounces;
    EXPECT_FALSE(b.empty());
    size_t k = 0;
    while (k < b.size() && double(b[k].live_rays) >= 1e-3 * double(b[0].live_rays)) ++k;
    EXPECT_LT(k, size_t(trace_levels(rs))) << "a depth-64 frame never fell below 0.1%";
    return int(k);
}

// The bench's dead-bounce entry for the stencil, from its JSON, over `depths`.
json dead_bounce_entry(const TempDir& dir, const std::string& scene, const std::string& depths,
                       const std::string& integrator) {
    std::vector<std::string> args = {"bench", "--backend", "cpu", "-W", std::to_string(kW), "-H", std::to_string(kH),
                                     "--depths", depths, "--modes", "stencil", "--frames", "1", "--warmup", "0",
                                     "--integrator", integrator, "--no-progress", "--no-tuning", "--json", dir / "b.json"};
    if (!scene.empty()) args.insert(args.begin() + 1, scene);
    const Result r = run_binary(kBinary, dir, args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const json doc = json::parse(slurp(dir / "b.json"));
    EXPECT_EQ(doc["dead_bounce"].size(), 1u);
    const json e = doc["dead_bounce"][0];
    // The table's line under the row says the same as the JSON.
    if (!e["ok"].get<bool>()) EXPECT_NE(r.out.find(e["why_not"].get<std::string>()), std::string::npos) << r.out;
    return e;
}

// The hint of a sweep that reaches the near-dead bounce names it; one that stops a
// depth short says so and names no measured bounce; a sweep over the slope's depths
// starts the slope just past it.
void expect_hint_matches(const Scene& scene, const std::string& file, Integrator integrator) {
    const int b0 = measured_dead_bounce(scene, integrator);
    const int extra = integrator == Integrator::Path ? 1 : 0;  // render/settings.h trace_levels
    const int reach = b0 + 1 - extra;  // the shallowest depth whose frame traces bounce b0
    ASSERT_GE(reach, 2);
    const std::string name = to_string(integrator);
    TempDir dir;

    const json e = dead_bounce_entry(dir, file, "1," + std::to_string(reach), name);
    EXPECT_EQ(e["below_at_bounce"], b0);
    EXPECT_TRUE(e["extrapolated_below_at_bounce"].is_null());
    if (!e["ok"].get<bool>()) {
        EXPECT_NE(e["why_not"].get<std::string>().find("fall below 0.1% of the primary rays at bounce " +
                                                       std::to_string(b0) + "); measure it with --depths 1.." +
                                                       std::to_string(b0 + 5)),
                  std::string::npos)
            << e["why_not"];
    }

    const json s = dead_bounce_entry(dir, file, "1.." + std::to_string(reach - 1), name);
    EXPECT_FALSE(s["ok"].get<bool>());
    EXPECT_TRUE(s["below_at_bounce"].is_null()) << s;
    const std::string why = s["why_not"];
    EXPECT_NE(why.find("the sweep ended before live rays fell below 0.1%"), std::string::npos) << why;
    EXPECT_EQ(why.find("of the primary rays at bounce"), std::string::npos) << why;
    // What it offers instead is said to be an extrapolation, past the bounces it traced.
    if (!s["extrapolated_below_at_bounce"].is_null()) {
        EXPECT_GE(s["extrapolated_below_at_bounce"].get<int>(), reach - 1 + extra);
        EXPECT_NE(why.find("(an extrapolation, not a measurement)"), std::string::npos) << why;
    }

    const json ok = dead_bounce_entry(dir, file, std::to_string(b0 + 1) + "," + std::to_string(b0 + 5), name);
    EXPECT_TRUE(ok["ok"].get<bool>()) << ok;
    EXPECT_EQ(ok["from_depth"], b0 + 1);
    EXPECT_EQ(ok["below_at_bounce"], b0);
}

}  // namespace

TEST(BenchHint, WhittedDefaultSceneNamesTheMeasuredBounce) {
    expect_hint_matches(builtin_default_scene(), "", Integrator::Whitted);
}

TEST(BenchHint, PathTracedSceneNamesTheMeasuredBounce) {
    expect_hint_matches(load_scene(kGlass), kGlass, Integrator::Path);
}

// Every mode of the table is in the note, in the clause of the mode the CPU executor runs
// it as, and that is the mode it runs: a path kernel's frame has the one stage "paths",
// a wavefront's has intersect.
TEST(BenchNote, CpuNotePlacesEveryModeWhereTheCpuRunsIt) {
    const std::string note = bench::cpu_modes_note();
    const Scene scene = builtin_default_scene();
    const CompiledScene compiled = compile_scene(scene);
    auto ex = make_cpu_executor(2);
    ex->set_scene(compiled);
    for (const DeadRayModeInfo& i : kDeadRayModeTable) {
        SCOPED_TRACE(i.name);
        const DeadRayMode runs = bench::cpu_runs_as(i.mode);
        RenderSettings rs = Frame(64, 36, 3, i.mode);
        rs.stats = true;
        Image img;
        FrameStats st;
        ex->render(scene.camera, rs, img, &st);
        bool paths = false;
        for (const StageTime& t : st.stage_ms) paths |= t.stage == "paths";
        EXPECT_EQ(paths, runs == DeadRayMode::Megakernel);

        if (runs == i.mode) {
            const size_t at = note.find("it runs "), end = note.find(", so", at);
            ASSERT_NE(at, std::string::npos) << note;
            EXPECT_NE(note.substr(at, end - at).find(std::string("the ") + i.name), std::string::npos) << note;
            continue;
        }
        const size_t at = note.find(std::string("the ") + to_string(runs) + " rows");
        ASSERT_NE(at, std::string::npos) << note;
        const size_t end = note.find(", the ", at);
        const std::string clause = note.substr(at, end == std::string::npos ? std::string::npos : end - at);
        EXPECT_NE(clause.find(i.name), std::string::npos) << note;
    }
    EXPECT_NE(note.find("the stencil rows stand for flags, compact and pool too, the megakernel rows for regenerate"),
              std::string::npos)
        << note;

    TempDir dir;
    const Result r = run_binary(kBinary, dir, {"bench", "--backend", "cpu", "-W", "32", "-H", "8", "--depths", "1",
                                               "--frames", "1", "--warmup", "0", "--no-tuning"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("(" + note + ")"), std::string::npos) << r.out;
}

// 20x10 pixels in 8x4 tiles: 3 x 3 warps, the right and bottom ones partly padded, not
// the 200 / 32 rounded up (7) of the pixels alone. Every tile holds a pixel, so bounce 0
// has all 9 warps live: the grid line must not sit under it.
TEST(BenchPlot, GridLineCountsEveryWarpAndTheOldLineStopsAtTheLastDepth) {
    TempDir dir;
    const Result r = run_binary(kBinary, dir, {"bench", "--backend", "cpu", "-W", "20", "-H", "10", "--spp", "2",
                                               "--depths", "1..2", "--frames", "1", "--warmup", "0", "--no-tuning",
                                               "--json", dir / "b.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json doc = json::parse(slurp(dir / "b.json"));
    for (const json& res : doc["results"]) {
        const json& b0 = res["bounces"][0];
        EXPECT_EQ(b0["warps"], 3 * 3 * 2);  // summed over the two samples
        EXPECT_EQ(b0["live_warps"], 3 * 3 * 2);
    }

    // What plot_bench.py draws (--data: no matplotlib needed).
    auto plot_data = [&](const std::string& file) {
        const std::string script = std::string(SRT_SOURCE_DIR) + "/tools/bench/plot_bench.py";
        const Result p = run_binary("/usr/bin/python3", dir, {script, file, "--data"});
        EXPECT_EQ(p.exit_code, 0) << p.err;
        return json::parse(p.out);
    };
    const json d = plot_data(dir / "b.json");
    EXPECT_EQ(d["grid_warps"], 18);
    for (const auto& [mode, run] : d["deepest"].items())
        for (const json& w : run["live_warps"]) EXPECT_LE(w.get<int>(), 18) << mode;
    ASSERT_EQ(d["seed_line"].size(), 2u) << d;  // depths 1 and 2 of the GTX 560's six
    EXPECT_EQ(d["seed_line"][1][0], 2);

    // A record written before the bench counted padded tiles (pixels / 32 as its
    // bounces' warps): the plot counts the tiles from its settings.
    json old = doc;
    old["settings"]["width"] = kW;
    old["settings"]["height"] = kH;
    old["settings"]["spp"] = 1;
    for (json& res : old["results"])
        for (json& b : res["bounces"]) b["warps"] = kW * kH / 32;  // 450
    write_text(dir / "old.json", old.dump());
    EXPECT_EQ(plot_data(dir / "old.json")["grid_warps"], 20 * 23);  // 90 rows: 23 tiles of 4, the last half padding
}
