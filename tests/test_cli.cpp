// test_cli.cpp - what a mistyped command line prints: the error, a "did you mean" where a
// known flag or subcommand is near what was typed, and the --help to run, in a few lines
// (the full help would scroll the error away). Runs the binary (SRT_BINARY); the
// distance behind the hints (core/edit_distance.h) is tested directly.
#include "core/edit_distance.h"

#include "support/process.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

using namespace srt::test;

namespace {

const std::string kBinary = SRT_BINARY;

Result run(std::vector<std::string> args) {
    TempDir logs;
    return run_binary(kBinary, logs, std::move(args));
}

size_t lines(const std::string& s) { return size_t(std::count(s.begin(), s.end(), '\n')); }

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(Cli, FlagTypoGetsTheErrorASuggestionAndTheHelpToRun) {
    const Result r = run({"render", "--sp", "4"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_LE(lines(r.err), 5u) << r.err;
    EXPECT_TRUE(has(r.err, "--sp")) << r.err;
    EXPECT_TRUE(has(r.err, "did you mean `--spp`?")) << r.err;
    EXPECT_TRUE(has(r.err, "stencilrt render --help")) << r.err;
    EXPECT_FALSE(has(r.err, "Options:")) << r.err;  // not the whole help
}

TEST(Cli, FlagTyposOfEachKind) {
    struct Case {
        std::vector<std::string> args;
        std::string hint, help;
    } cases[] = {
        {{"view", "--spx", "3"}, "did you mean `--spp`?", "stencilrt view --help"},
        {{"render", "-spp", "3"}, "did you mean `--spp`?", "stencilrt render --help"},  // one dash
        {{"render", "--sp=4"}, "did you mean `--spp`?", "stencilrt render --help"},
        {{"render", "--detph", "3"}, "did you mean `--depth`?", "stencilrt render --help"},  // swapped letters
        {{"render", "-w", "64"}, "did you mean `-W`?", "stencilrt render --help"},
        {{"render", "--tex", "trilinear"}, "did you mean `--texture-filter`?", "stencilrt render --help"},  // a prefix
        {{"render", "--cam", "1,2,3"}, "did you mean `--camera-from`, `--camera-at` or `--camera-up`?",
         "stencilrt render --help"},
        {{"--verison"}, "did you mean `--version`?", "stencilrt --help"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.args[0] + " " + c.args[1 % c.args.size()]);
        const Result r = run(c.args);
        EXPECT_EQ(r.exit_code, 2);
        EXPECT_LE(lines(r.err), 5u) << r.err;
        EXPECT_TRUE(has(r.err, c.hint)) << r.err;
        EXPECT_TRUE(has(r.err, c.help)) << r.err;
    }
}

TEST(Cli, BenchFlagTypoSuggestsTheBenchFlag) {
    const Result r = run({"bench", "--deph", "3"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_LE(lines(r.err), 5u) << r.err;
    EXPECT_TRUE(has(r.err, "--deph")) << r.err;
    EXPECT_TRUE(has(r.err, "did you mean `--depths`?")) << r.err;
    EXPECT_TRUE(has(r.err, "stencilrt bench --help")) << r.err;
}

TEST(Cli, FlagWithNoCloseMatchGetsOnlyTheHelpToRun) {
    for (const char* command : {"render", "view", "bench"}) {
        SCOPED_TRACE(command);
        const Result r = run({command, "--zzzzzz"});
        EXPECT_EQ(r.exit_code, 2);
        EXPECT_LE(lines(r.err), 3u) << r.err;
        EXPECT_TRUE(has(r.err, "--zzzzzz")) << r.err;
        EXPECT_FALSE(has(r.err, "did you mean")) << r.err;
        EXPECT_TRUE(has(r.err, "stencilrt " + std::string(command) + " --help")) << r.err;
    }
}

TEST(Cli, SubcommandTypoIsUnknownAndSuggestsTheSubcommand) {
    const Result r = run({"rendr"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_LE(lines(r.err), 5u) << r.err;
    EXPECT_TRUE(has(r.err, "unknown subcommand 'rendr'")) << r.err;
    EXPECT_TRUE(has(r.err, "did you mean `render`?")) << r.err;
    EXPECT_TRUE(has(r.err, "stencilrt --help")) << r.err;
    EXPECT_FALSE(has(r.err, "required")) << r.err;

    const Result far = run({"paint"});
    EXPECT_EQ(far.exit_code, 2);
    EXPECT_TRUE(has(far.err, "unknown subcommand 'paint'")) << far.err;
    EXPECT_FALSE(has(far.err, "did you mean")) << far.err;
}

TEST(Cli, NoSubcommandListsThemBriefly) {
    const Result r = run({});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_LE(lines(r.err), 6u) << r.err;
    for (const char* sub : {"render", "view", "bench", "stencilrt --help"}) EXPECT_TRUE(has(r.err, sub)) << sub;
}

TEST(Cli, BadValueIsTheErrorAndTheHelpToRun) {
    const Result r = run({"render", "--width", "0"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_LE(lines(r.err), 3u) << r.err;
    EXPECT_TRUE(has(r.err, "--width")) << r.err;
    EXPECT_TRUE(has(r.err, "stencilrt render --help")) << r.err;
}

TEST(Cli, FloatBoundsAreWrittenShort) {
    const Result fov = run({"render", "--fov", "0"});
    EXPECT_EQ(fov.exit_code, 2);
    EXPECT_TRUE(has(fov.err, "--fov: 0 is out of range; allowed: 0.01 to 179 (degrees)")) << fov.err;
    const Result ev = run({"render", "--exposure", "99"});
    EXPECT_EQ(ev.exit_code, 2);
    EXPECT_TRUE(has(ev.err, "--exposure: 99 is out of range; allowed: auto, or -30 to 30 (EV)")) << ev.err;
}

// --env: a missing or malformed map, a bad intensity and a turn without a map are each
// refused with what was wrong and exit 2, before anything renders or is written.
TEST(Cli, EnvironmentFlagsSayWhatIsWrong) {
    TempDir dir;
    const std::string out = dir / "out.png";
    const std::string sky = std::string(SRT_SOURCE_DIR) + "/assets/env/sky.hdr";
    const struct {
        std::vector<std::string> args;
        std::string message;
    } cases[] = {
        {{"render", "--env", "/nonexistent/sky.hdr", "-o", out},
         "--env /nonexistent/sky.hdr: /nonexistent/sky.hdr: cannot open image file: No such file or directory"},
        {{"render", "--env", sky + ":-2", "-o", out}, "--env " + sky + ":-2: the intensity must be a finite number, 0 or more"},
        {{"render", "--env", std::string(SRT_SOURCE_DIR) + "/README.md", "-o", out},
         "README.md: neither an OpenEXR file nor a Radiance RGBE (.hdr) file"},
        {{"render", "--env-rotation", "10", "-o", out}, "--env-rotation: the scene has no environment map (give one with --env)"},
    };
    for (const auto& c : cases) {
        const Result r = run(c.args);
        EXPECT_EQ(r.exit_code, 2) << c.message;
        EXPECT_TRUE(has(r.err, c.message)) << r.err;
    }
    EXPECT_FALSE(std::filesystem::exists(out));
    const Result ok = run({"render", "--env", sky + ":0.5", "--env-rotation", "90", "-W", "16", "-H", "9", "-o", out});
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
    EXPECT_TRUE(has(ok.err + ok.out, "turned 90 degrees")) << ok.err << ok.out;
}

TEST(Cli, RenderHelpNamesEverySceneFormat) {
    const Result r = run({"render", "--help"});
    EXPECT_EQ(r.exit_code, 0);
    for (const char* ext : {".json", ".obj", ".nff", ".ply", ".gltf", ".glb"}) EXPECT_TRUE(has(r.out, ext)) << ext;
}

TEST(EditDistance, CountsEditsAndSwapsIgnoringCase) {
    EXPECT_EQ(srt::edit_distance("spp", "spp"), 0u);
    EXPECT_EQ(srt::edit_distance("sp", "spp"), 1u);
    EXPECT_EQ(srt::edit_distance("objetcs", "objects"), 1u);  // two neighbours swapped: one edit
    EXPECT_EQ(srt::edit_distance("deph", "depths"), 2u);
    EXPECT_EQ(srt::edit_distance("W", "w"), 0u);
    EXPECT_EQ(srt::edit_distance("", "abc"), 3u);
    EXPECT_EQ(srt::edit_distance("abc", ""), 3u);
}

TEST(EditDistance, ClosestWithinTheLimitOrNothing) {
    const std::vector<std::string> subcommands = {"render", "view", "bench"};
    EXPECT_EQ(srt::closest("rendr", subcommands, 2), "render");
    EXPECT_EQ(srt::closest("bnech", subcommands, 2), "bench");
    EXPECT_EQ(srt::closest("paint", subcommands, 2), "");
    EXPECT_EQ(srt::closest("x", {}, 2), "");
}

// --bvh-build: the builder the bvh line names, and why; a wrong value refused.
TEST(Cli, BvhBuildNamesTheBuilderAndWhy) {
    TempDir out;
    const std::string png = out / "x.png";
    const Result ploc = run({"render", "--backend", "cpu", "-W", "16", "-H", "8", "--bvh-build", "ploc", "-o", png});
    ASSERT_EQ(ploc.exit_code, 0) << ploc.err;
    EXPECT_TRUE(has(ploc.out, "bvh      ploc (host) (--bvh-build ploc)")) << ploc.out;
    const Result sah = run({"render", "--backend", "cpu", "-W", "16", "-H", "8", "--bvh-build", "sah", "-o", png});
    ASSERT_EQ(sah.exit_code, 0) << sah.err;
    EXPECT_TRUE(has(sah.out, "bvh      sah (--bvh-build sah)")) << sah.out;
    // A render of 16x8 pixels repays no SAH build: auto takes PLOC, and says why.
    const Result chosen = run({"render", "--backend", "cpu", "-W", "16", "-H", "8", "-o", png});
    ASSERT_EQ(chosen.exit_code, 0) << chosen.err;
    EXPECT_TRUE(has(chosen.out, "bvh      ploc (host) (auto: ")) << chosen.out;
    const Result bad = run({"render", "--bvh-build", "lbvh"});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_TRUE(has(bad.err, "--bvh-build")) << bad.err;
}
