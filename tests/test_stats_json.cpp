// render --stats-json: every field of docs/stats-json.md, with its type, checked; the
// counts equal an in-process render's; the keys render frames share with bench results
// are the same keys; the file is written whole (write_output_file) or not at all.
#include "render/executor.h"
#include "render/scene_gpu.h"
#include "scene/load.h"
#include "scene/scene.h"
#include "support/process.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>

using namespace srt;
using namespace srt::test;
using json = nlohmann::json;

namespace {

const std::string kBinary = SRT_BINARY;
const std::string kOrbit = std::string(SRT_SOURCE_DIR) + "/scenes/orbit.json";

enum Type { Str, Num, Int, Obj, Arr, StrOrNull, IntOrNull, Bool };
bool is(const json& v, Type t) {
    switch (t) {
        case Str: return v.is_string();
        case Num: return v.is_number();
        case Int: return v.is_number_integer();
        case Obj: return v.is_object();
        case Arr: return v.is_array();
        case StrOrNull: return v.is_string() || v.is_null();
        case IntOrNull: return v.is_number_integer() || v.is_null();
        case Bool: return v.is_boolean();
    }
    return false;
}
// `obj` has exactly these keys (no more, no fewer), each of its type.
void expect_fields(const json& obj, const std::vector<std::pair<std::string, Type>>& fields, const std::string& where) {
    ASSERT_TRUE(obj.is_object()) << where;
    std::set<std::string> want;
    for (const auto& [k, t] : fields) {
        want.insert(k);
        ASSERT_TRUE(obj.contains(k)) << where << " lacks '" << k << "'";
        EXPECT_TRUE(is(obj[k], t)) << where << "." << k << " has the wrong type: " << obj[k].dump();
    }
    for (const auto& [k, v] : obj.items()) EXPECT_TRUE(want.count(k)) << where << " has an undocumented key '" << k << "'";
}

// The schema of docs/stats-json.md.
void expect_schema(const json& d, size_t frames) {
    expect_fields(d, {{"format", Str}, {"kind", Str}, {"stencilrt_version", Str}, {"git_revision", Str}, {"date", Str},
                      {"machine", Obj}, {"scene", Obj}, {"settings", Obj}, {"frames", Arr}, {"summary", Obj}}, "record");
    EXPECT_EQ(d["format"], "stencilrt-render/1");
    EXPECT_EQ(d["kind"], "render");
    EXPECT_TRUE(d["machine"].contains("executor") && d["machine"].contains("backend") && d["machine"].contains("host"));
    expect_fields(d["scene"], {{"name", Str}, {"path", Str}, {"hash", Str}, {"spheres", Int}, {"planes", Int},
                               {"triangles", Int}, {"lights", Int}, {"textures", Int},
                               {"texture_images", Int}, {"texture_bytes", Int}, {"texture_filter", Str}, {"masked_triangles", Int}, {"load_ms", Num}, {"compile_ms", Num},
                               {"bvh_build_ms", Num}, {"bvh_builder", Str}, {"bvh_nodes", Int}, {"upload_ms", Num},
                               {"stages_ms", Obj}, {"accel", Obj}, {"device_bytes", Int}}, "scene");
    // The load's stages: at least the compile (with its BVH build) and the upload, each a time.
    for (const char* stage : {"build", "upload"}) {
        ASSERT_TRUE(d["scene"]["stages_ms"].contains(stage)) << stage;
        EXPECT_GE(d["scene"]["stages_ms"][stage].get<double>(), 0.0) << stage;
    }
    EXPECT_EQ(d["scene"]["bvh_builder"].get<std::string>().rfind("ploc", 0) == 0 ||
                  d["scene"]["bvh_builder"].get<std::string>().rfind("sah", 0) == 0,
              true) << d["scene"]["bvh_builder"];
    expect_fields(d["scene"]["accel"], {{"layout", Str}, {"nodes", Int}, {"node_bytes", Int}, {"leaves", Int},
                                        {"avg_leaf_prims", Num}, {"references", Int}, {"spatial_splits", Int},
                                        {"bytes_per_prim", Num}, {"max_depth", Int},
                                        {"build_ms", Num}}, "scene.accel");
    expect_fields(d["settings"], {{"width", Int}, {"height", Int}, {"depth", Int}, {"spp", Int}, {"integrator", Str}, {"seed", Int}, {"sampler", Str}, {"kill", Str}, {"mode", Str},
                                  {"launch", Str}, {"warp_shape", Str}, {"exposure", Num}, {"backend_requested", Str},
                                  {"output", Str}, {"output_format", Str}, {"frames_requested", StrOrNull}}, "settings");
    ASSERT_EQ(d["frames"].size(), frames);
    for (const json& f : d["frames"]) {
        expect_fields(f, {{"frame", IntOrNull}, {"camera", Obj}, {"output", Str}, {"frame_ms", Num}, {"timing", Str},
                          {"rays_per_s", Num}, {"bounces_run", Int}, {"rays_traced", Int}, {"simd_efficiency", Num},
                          {"lane_steps", Int}, {"warp_steps", Int}, {"nonfinite_samples", Int}, {"stage_ms", Obj},
                          {"bounces", Arr}}, "frame");
        expect_fields(f["camera"], {{"from", Arr}, {"at", Arr}, {"up", Arr}, {"fov", Num}, {"aperture", Num}, {"focus_distance", Num}},
                      "frame.camera");
        uint64_t rays = 0;
        for (const json& b : f["bounces"]) {
            expect_fields(b, {{"bounce", Int}, {"live_rays", Int}, {"live_warps", Int}, {"warps", Int},
                              {"simd_efficiency", Num}, {"shadow_rays", Int}, {"intersect_ms", Num},
                              {"shade_ms", Num}}, "frame.bounces[]");
            rays += b["live_rays"].get<uint64_t>() + b["shadow_rays"].get<uint64_t>();
        }
        // Every ray is a bounce's live ray or one of its shadow rays; the CPU times each
        // bounce's stages.
        EXPECT_EQ(rays, f["rays_traced"].get<uint64_t>());
        if (!f["bounces"].empty()) EXPECT_GT(f["bounces"][0]["intersect_ms"].get<double>(), 0.0);
        EXPECT_GT(f["frame_ms"].get<double>(), 0.0);
    }
    expect_fields(d["summary"], {{"frames", Int}, {"wall_s", Num}, {"frames_per_s", Num}, {"rays_traced", Int}}, "summary");
}

// A scene with instances: their counts and bytes, against the scene and its flattened copy.
TEST(StatsJson, InstancesGiveTheirCountsAndBytes) {
    TempDir dir;
    const std::string scene = std::string(SRT_SOURCE_DIR) + "/scenes/instances.json";
    const Result r = run_binary(kBinary, dir, {"render", "--backend", "cpu", scene, "-W", "32", "-H", "20", "--depth", "2",
                                               "-o", dir / "a.png", "--stats-json", dir / "s.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json in = json::parse(slurp(dir / "s.json"))["scene"]["instances"];
    expect_fields(in, {{"count", Int}, {"meshes", Int}, {"triangles_placed", Int}, {"triangles_stored", Int}, {"bytes", Int},
                       {"bytes_per_instance", Num}}, "scene.instances");
    EXPECT_EQ(in["count"].get<int>(), 6);
    EXPECT_EQ(in["meshes"].get<int>(), 1);
    EXPECT_EQ(in["triangles_placed"].get<size_t>(), 6 * in["triangles_stored"].get<size_t>());
    // Seven records (six and the scene's own primitives) of 128 bytes, and the top level's nodes.
    EXPECT_GE(in["bytes"].get<size_t>(), 7 * 128u + 64u);
    const Result f = run_binary(kBinary, dir, {"render", "--backend", "cpu", scene, "--flatten-instances", "-W", "32", "-H",
                                               "20", "--depth", "2", "-o", dir / "b.png", "--stats-json", dir / "f.json"});
    ASSERT_EQ(f.exit_code, 0) << f.err;
    const json flat = json::parse(slurp(dir / "f.json"))["scene"];
    EXPECT_FALSE(flat.contains("instances"));
    EXPECT_EQ(flat["triangles"].get<size_t>(), in["triangles_placed"].get<size_t>());
}

TEST(StatsJson, OneFrameHasEveryFieldAndTheRightCounts) {
    TempDir dir;
    const Result r = run_binary(kBinary, dir, {"render", "--backend", "cpu", "-W", "64", "-H", "40", "--depth", "5",
                                               "-o", dir / "a.exr", "--stats-json", dir / "s.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json d = json::parse(slurp(dir / "s.json"));
    expect_schema(d, 1);
    EXPECT_TRUE(d["frames"][0]["frame"].is_null());
    EXPECT_EQ(d["settings"]["output_format"], "exr");
    // The counts of an in-process render of the same frame.
    const Scene s = builtin_default_scene();
    const CompiledScene cs = compile_scene(s);
    auto ex = make_cpu_executor(2);
    ex->set_scene(cs);
    RenderSettings rs;
    rs.width = 64;
    rs.height = 40;
    rs.depth = 5;
    rs.stats = true;
    Image img;
    FrameStats st;
    ex->render(s.camera, rs, img, &st);
    const json& f = d["frames"][0];
    EXPECT_EQ(f["rays_traced"].get<uint64_t>(), st.rays_traced);
    EXPECT_EQ(f["bounces_run"].get<uint64_t>(), st.bounces_run);
    EXPECT_EQ(f["nonfinite_samples"].get<uint64_t>(), st.nonfinite_samples);
    ASSERT_EQ(f["bounces"].size(), st.bounces.size());
    for (size_t b = 0; b < st.bounces.size(); ++b) {
        EXPECT_EQ(f["bounces"][b]["live_rays"].get<uint64_t>(), st.bounces[b].live_rays) << b;
        EXPECT_EQ(f["bounces"][b]["live_warps"].get<uint64_t>(), st.bounces[b].live_warps) << b;
        EXPECT_EQ(f["bounces"][b]["warps"].get<uint64_t>(), 80u) << b;  // 8 x 10 tiles of 8x4
    }
    EXPECT_EQ(d["summary"]["rays_traced"].get<uint64_t>(), st.rays_traced);
}

TEST(StatsJson, ASequenceRecordsEveryFrame) {
    TempDir dir;
    const Result r = run_binary(kBinary, dir, {"render", kOrbit, "--backend", "cpu", "-W", "48", "-H", "32", "--depth", "3",
                                               "--frames", "5..8", "-o", dir / "f_%d.pfm", "--stats-json", dir / "s.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json d = json::parse(slurp(dir / "s.json"));
    expect_schema(d, 4);
    EXPECT_EQ(d["settings"]["frames_requested"], "5..8");
    uint64_t rays = 0;
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(d["frames"][i]["frame"], 5 + i);
        EXPECT_EQ(d["frames"][i]["output"], dir / ("f_" + std::to_string(5 + i) + ".pfm"));
        rays += d["frames"][i]["rays_traced"].get<uint64_t>();
    }
    EXPECT_EQ(d["summary"]["rays_traced"].get<uint64_t>(), rays);
    EXPECT_EQ(d["summary"]["frames"], 4);
    // Frame 6's camera is the path's, to the last digit of its doubles.
    const Scene s = load_scene(kOrbit);
    const Camera c = s.animation.frame(6);
    for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(d["frames"][1]["camera"]["from"][k].get<double>(), c.from[k]) << k;
        EXPECT_EQ(d["frames"][1]["camera"]["at"][k].get<double>(), c.at[k]) << k;
    }
}

TEST(StatsJson, SharesItsCounterKeysWithBench) {
    TempDir dir;
    const Result r = run_binary(kBinary, dir, {"bench", "--backend", "cpu", "-W", "32", "-H", "16", "--depths", "2",
                                               "--frames", "1", "--warmup", "0", "--no-progress", "--json", dir / "b.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json b = json::parse(slurp(dir / "b.json"));
    const Result r2 = run_binary(kBinary, dir, {"render", "--backend", "cpu", "-W", "32", "-H", "16", "--depth", "2",
                                                "-o", dir / "a.png", "--stats-json", dir / "s.json"});
    ASSERT_EQ(r2.exit_code, 0) << r2.err;
    const json s = json::parse(slurp(dir / "s.json"));
    const json& res = b["results"][0];
    const json& fr = s["frames"][0];
    for (const char* k : {"bounces_run", "rays_traced", "stage_ms", "bounces"}) {
        ASSERT_TRUE(res.contains(k)) << k;
        EXPECT_EQ(res[k].type(), fr[k].type()) << k;
    }
    std::set<std::string> kb, ks;
    for (const auto& [k, v] : res["bounces"][0].items()) kb.insert(k);
    for (const auto& [k, v] : fr["bounces"][0].items()) ks.insert(k);
    EXPECT_EQ(kb, ks);
    // The same frame, the same counts (the stage times are measured again).
    auto counts = [](json bounces) {
        for (json& b : bounces) {
            b.erase("intersect_ms");
            b.erase("shade_ms");
        }
        return bounces;
    };
    EXPECT_EQ(counts(res["bounces"]), counts(fr["bounces"]));
    EXPECT_EQ(b["machine"]["executor"], s["machine"]["executor"]);
    for (const char* k : {"name", "hash", "spheres", "planes", "triangles", "lights", "bvh_nodes"})
        EXPECT_EQ(b["scene"][k], s["scene"][k]) << k;
}

TEST(StatsJson, BadPathIsExit2AndNothingIsWritten) {
    TempDir dir;
    const Result r = run_binary(kBinary, dir, {"render", "--backend", "cpu", "-W", "8", "-H", "8", "-o", dir / "a.png",
                                               "--stats-json", dir / "missing/s.json"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--stats-json " + (dir / "missing/s.json") + ": directory"), std::string::npos) << r.err;
    EXPECT_TRUE(dir.entries().empty());
}

}  // namespace
