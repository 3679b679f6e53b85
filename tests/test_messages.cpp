// test_messages.cpp - what the command line says when a value is refused, as a table of
// command -> the lines expected: the flag, the value as typed, and what is allowed, in
// the project's words (app/flag_checks.h), never CLI11's raw "Could not convert"; and
// that a flag given twice takes its last value. Runs the binary (SRT_BINARY).
#include "core/image.h"
#include "cuda/device_info.h"
#include "render/settings.h"

#include "support/process.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

using namespace srt::test;

namespace {

Result run(std::vector<std::string> args) {
    TempDir logs;
    return run_binary(SRT_BINARY, logs, std::move(args));
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

struct Case {
    std::vector<std::string> args;
    std::vector<std::string> lines;  // each must appear in standard error
};

TEST(Messages, RefusedValuesSayTheFlagTheValueAndWhatIsAllowed) {
    const std::vector<Case> cases = {
        {{"render", "--exposure", "abc"},
         {"--exposure: 'abc' is not a number; allowed: auto, or -30 to 30 (EV)", "stencilrt render --help"}},
        {{"render", "--exposure", "99"}, {"--exposure: 99 is out of range; allowed: auto, or -30 to 30 (EV)"}},
        {{"render", "--seed", "-1"}, {"--seed: -1 is out of range; allowed: a whole number from 0 to 4294967295"}},
        {{"render", "--seed", "x1"}, {"--seed: 'x1' is not a whole number from 0 to 4294967295"}},
        {{"render", "--fov", "0"}, {"--fov: 0 is out of range; allowed: 0.01 to 179 (degrees)"}},
        {{"render", "-W", "0"}, {"--width: 0 is out of range; allowed: a whole number from 1 to 16384"}},
        {{"render", "--spp", "2.5"}, {"--spp: '2.5' is not a whole number from 1 to 4096"}},
        {{"render", "--mode", "pol"},
         {"--mode: 'pol' is not allowed; allowed: stencil, flags, compact, pool, megakernel or regenerate",
          "did you mean `pool`?"}},
        {{"render", "--light-model", "physicl"},
         {"--light-model: 'physicl' is not allowed; allowed: classic or physical", "did you mean `physical`?"}},
        {{"render", "--light", "1,2,3:1,1"},
         {"--light 1,2,3:1,1: '1,1' is not three numbers r,g,b", "run `stencilrt render --help` for its options"}},
        {{"render", "--light", "1,2:1,1,1"}, {"--light 1,2:1,1,1: '1,2' is not three numbers x,y,z"}},
        {{"render", "--sampler", "sobl"},
         {"--sampler: 'sobl' is not allowed; allowed: independent, sobol or zsobol", "did you mean `sobol`?"}},
        {{"render", "--sampler", "zsobol", "-i", "path", "-W", "1920", "-H", "1080", "--spp", "2048"},
         {"--sampler zsobol: a 1920x1080 image at 2048 samples a pixel needs more than 32 bits"}},
        {{"bench", "--sampler", "zsobol", "-i", "path", "-W", "4096", "-H", "4096", "--spp", "1024"},
         {"--sampler zsobol: a 4096x4096 image at 1024 samples a pixel"}},
        {{"view", "--frames", "-3"}, {"--frames: -3 is out of range; allowed: a whole number from 0 to 100000000"}},
    };
    for (const Case& c : cases) {
        const Result r = run(c.args);
        std::string cmd;
        for (const std::string& a : c.args) cmd += a + " ";
        EXPECT_EQ(r.exit_code, 2) << cmd;
        for (const std::string& l : c.lines) EXPECT_TRUE(has(r.err, l)) << cmd << "\nwant: " << l << "\ngot: " << r.err;
        EXPECT_FALSE(has(r.err, "Could not convert")) << cmd << r.err;
        EXPECT_FALSE(has(r.err, "not in range")) << cmd << r.err;
    }
}

// As most tools do: a command line copied from the viewer's C can be amended by
// appending a flag.
TEST(Messages, AFlagGivenTwiceTakesItsLastValue) {
    TempDir dir;
    const std::string out = dir / "x.png";
    const Result r = run({"render", "--backend", "cpu", "-W", "64", "-H", "8", "-W", "16", "--depth", "2", "-o", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const srt::Image img = srt::read_png(out);
    EXPECT_EQ(img.width, 16);
    EXPECT_EQ(img.height, 8);
}

// Every mode, from the one table (render/settings.h), in each command's help.
TEST(Messages, EveryModeIsInEveryHelp) {
    for (const char* cmd : {"render", "view", "bench"}) {
        const Result r = run({cmd, "--help"});
        EXPECT_EQ(r.exit_code, 0) << cmd;
        for (const std::string& m : srt::mode_names()) EXPECT_TRUE(has(r.out, m)) << cmd << " --help lacks " << m;
    }
}

// A survival prints as it was given: 0.7, not the 0.699999988 of nine digits.
TEST(Messages, KillSurvivalPrintsAsGiven) {
    TempDir dir;
    const Result r = run({"render", "--backend", "cpu", "-W", "16", "-H", "8", "--depth", "2", "--kill", "warp:0.7",
                          "-o", dir / "k.png", "--stats-json", dir / "k.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(has(r.out, "warp:0.7")) << r.out;
    EXPECT_FALSE(has(r.out, "0.699999988")) << r.out;
    EXPECT_TRUE(has(slurp(dir / "k.json"), "\"warp:0.7\"")) << slurp(dir / "k.json");
}

}  // namespace

namespace {

// Where no NVIDIA driver is installed, the CUDA runtime says "CUDA driver version is
// insufficient": the notice must say what is true, that no driver was found.
TEST(Messages, NoDriverIsSaidPlainly) {
    TempDir dir;
    const Result r = run({"render", "--backend", "auto", "-W", "8", "-H", "8", "--depth", "1", "-o", dir / "n.png"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    if (!has(r.err, "no usable CUDA device")) GTEST_SKIP() << "a GPU was found, or the build has no CUDA: " << r.err;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) {
        dlclose(lib);
        GTEST_SKIP() << "an NVIDIA driver is installed here";
    }
    EXPECT_TRUE(has(r.err, "no NVIDIA driver found")) << r.err;
    EXPECT_FALSE(has(r.err, "insufficient")) << r.err;
}

// Which GPUs run the build's machine code and which compile the PTX at first use (and are
// told so): the portable build's sm_80 and sm_90 against each generation since Turing,
// and a build on a machine without a GPU, which holds PTX alone ("none").
TEST(Messages, MachineCodeRunsWithinItsMajorVersion) {
    const std::string sass = "80,90";
    EXPECT_FALSE(srt::holds_machine_code_for(sass, 7, 5));  // Turing: PTX
    EXPECT_TRUE(srt::holds_machine_code_for(sass, 8, 0));   // A100
    EXPECT_TRUE(srt::holds_machine_code_for(sass, 8, 6));   // RTX 30
    EXPECT_TRUE(srt::holds_machine_code_for(sass, 8, 9));   // RTX 40
    EXPECT_TRUE(srt::holds_machine_code_for(sass, 9, 0));   // H100
    EXPECT_FALSE(srt::holds_machine_code_for(sass, 10, 0)); // Blackwell: PTX
    EXPECT_FALSE(srt::holds_machine_code_for(sass, 12, 0));
    EXPECT_FALSE(srt::holds_machine_code_for("86", 8, 0));  // sm_86 code does not run on 8.0
    EXPECT_TRUE(srt::holds_machine_code_for("75,86", 8, 9));
    EXPECT_FALSE(srt::holds_machine_code_for("", 9, 0));
    EXPECT_FALSE(srt::holds_machine_code_for("none", 9, 0));
    EXPECT_FALSE(srt::holds_machine_code_for("none", 7, 5));
}

}  // namespace

namespace {

// A light the loader made up is noted; once --light replaces the lights the note is
// gone, since it would describe a light that is not there.
TEST(Messages, LightNotesGoWithTheLightsTheyDescribe) {
    TempDir dir;
    write_text(dir / "tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    const Result made_up = run({"render", "--backend", "cpu", dir / "tri.obj", "-W", "8", "-H", "8", "-o", dir / "a.png"});
    ASSERT_EQ(made_up.exit_code, 0) << made_up.err;
    EXPECT_TRUE(has(made_up.err, "added a white light")) << made_up.err;
    const Result replaced = run({"render", "--backend", "cpu", dir / "tri.obj", "--light", "0,0,5", "-W", "8", "-H", "8",
                                 "-o", dir / "b.png"});
    ASSERT_EQ(replaced.exit_code, 0) << replaced.err;
    EXPECT_FALSE(has(replaced.err, "added a white light")) << replaced.err;
}

}  // namespace

namespace {

// render names the layout it traverses and that layout's nodes (the stats JSON's accel
// block), not the BVH2 it was collapsed from.
TEST(Messages, RenderNamesTheBvhLayoutAndItsNodes) {
    for (const std::string layout : {"bvh2", "bvh4", "bvh8"}) {
        TempDir dir;
        const Result r = run({"render", "--backend", "cpu", std::string(SRT_SOURCE_DIR) + "/scenes/mesh.json", "--accel",
                              layout, "-W", "8", "-H", "8", "-o", dir / "m.png", "--stats-json", dir / "m.json"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const nlohmann::json j = nlohmann::json::parse(slurp(dir / "m.json"));
        const std::string nodes = std::to_string(j["scene"]["accel"]["nodes"].get<unsigned>()) + " nodes)";
        EXPECT_EQ(j["scene"]["accel"]["layout"], layout);
        EXPECT_TRUE(has(r.out, ", " + layout + " ")) << r.out;
        EXPECT_TRUE(has(r.out, nodes)) << "want " << nodes << " in " << r.out;
    }
}

}  // namespace
