// test_viewer.cpp - the interactive viewer, driven by an input script under a virtual
// X server: what it shows must equal the headless `render` byte for byte.
//
// Runs the stencilrt binary (SRT_BINARY, or the SRT_BINARY environment variable).
// By default each viewer run gets its own Xvfb (xvfb-run -a, or Xvfb started by a
// small wrapper); the tests skip only when no Xvfb is installed. Environment:
//   SRT_VIEW_BACKEND=cuda       compare the CUDA backend instead of the CPU one
//   SRT_VIEW_USE_DISPLAY=1      use the X server in $DISPLAY (the GPU machine's, where
//                               GLX runs on the NVIDIA driver) instead of a new Xvfb
//   SRT_VIEW_EXPECT_INTEROP=1   also require "viewer: interop=cuda-gl-pbo"
//   SRT_VIEW_ARGS="--devices all"  more flags for the viewer only (its image must still
//                               equal the one-device headless render)
#include "core/image.h"
#include "support/room_obj.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string env_or(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : fallback;
}

std::string binary() { return env_or("SRT_BINARY", SRT_BINARY); }
std::string backend() { return env_or("SRT_VIEW_BACKEND", "cpu"); }
std::string view_args() { return env_or("SRT_VIEW_ARGS", ""); }

std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

bool have_program(const std::string& name) {
    return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

// A fresh directory per test.
fs::path temp_dir(const std::string& name) {
    const fs::path d = fs::path(::testing::TempDir()) /
                       ("srt_viewer_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

void write_file(const fs::path& p, const std::string& text) {
    std::ofstream(p) << text;
}

std::string read_file(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Runs `cmd` with stdout and stderr into `output`; returns the exit status.
int run(const std::string& cmd, const fs::path& dir, std::string& output) {
    const fs::path log = dir / "output.txt";
    const int rc = std::system((cmd + " >" + quote(log.string()) + " 2>&1").c_str());
    output = read_file(log);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
}

// The prefix that gives a command an X display, or "" with `why` set when none can
// be had. xvfb-run -a picks a free display number, so tests may run in parallel.
std::string display_prefix(const fs::path& dir, std::string& why) {
    if (env_or("SRT_VIEW_USE_DISPLAY", "0") == "1") {
        if (env_or("DISPLAY", "").empty()) why = "SRT_VIEW_USE_DISPLAY=1 but DISPLAY is not set";
        return "";
    }
    if (have_program("xvfb-run")) return "xvfb-run -a -s '-screen 0 1280x1024x24' ";
    if (have_program("Xvfb")) {
        const fs::path wrapper = dir / "with-xvfb.sh";
        write_file(wrapper,
                   "n=97; while [ -e /tmp/.X$n-lock ]; do n=$((n+1)); done\n"
                   "Xvfb :$n -screen 0 1280x1024x24 -nolisten tcp >/dev/null 2>&1 & pid=$!\n"
                   "i=0; while [ ! -e /tmp/.X11-unix/X$n ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done\n"
                   "DISPLAY=:$n \"$@\"; rc=$?\n"
                   "kill $pid; wait $pid 2>/dev/null; exit $rc\n");
        return "sh " + quote(wrapper.string()) + " ";
    }
    why = "Xvfb is not installed (package xvfb)";
    return "";
}

bool viewer_missing(const std::string& output) {
    return output.find("built without the viewer") != std::string::npos;
}

// The samples the viewer says it accumulated ("viewer: accumulated N samples"), or -1.
int accumulated_samples(const std::string& out) {
    const std::string tag = "viewer: accumulated ";
    const size_t at = out.rfind(tag);
    return at == std::string::npos ? -1 : std::atoi(out.c_str() + at + tag.size());
}

// Runs the viewer under a display with `script`, then `render --spp N` at the same size,
// N being the samples the viewer accumulated since the last change, and requires the two
// images to be identical. `expected_samples` >= 0 checks N too; `render_extra` is added
// to the render's flags (an exposure the script set).
void expect_viewer_equals_render(const std::string& name, const std::string& script, int frames,
                                 int render_w, int render_h, int expected_samples = -1,
                                 const std::string& render_extra = "") {
    const fs::path dir = temp_dir(name);
    std::string why;
    const std::string prefix = display_prefix(dir, why);
    if (!why.empty()) GTEST_SKIP() << why;

    write_file(dir / "script.txt", script);
    const fs::path shot = dir / "shot.png", hud = dir / "shot.hud.png", ref = dir / "ref.png";
    std::string out;
    const int rc = run(prefix + quote(binary()) + " view --backend " + backend() + " " + view_args() +
                           " --width 160 --height 120 --frames " + std::to_string(frames) +
                           " --no-vsync --screenshot " + quote(shot.string()) +
                           " --input-script " + quote((dir / "script.txt").string()),
                       dir, out);
    if (viewer_missing(out)) GTEST_SKIP() << "stencilrt was built without the viewer";
    ASSERT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("viewer: GL_RENDERER="), std::string::npos) << out;
    if (backend() == "cpu")
        EXPECT_NE(out.find("viewer: upload=cpu-texsubimage"), std::string::npos) << out;
    if (env_or("SRT_VIEW_EXPECT_INTEROP", "0") == "1")
        EXPECT_NE(out.find("viewer: interop=cuda-gl-pbo"), std::string::npos) << out;
    EXPECT_EQ(out.find("warning"), std::string::npos) << out;  // every script event ran

    const int samples = accumulated_samples(out);
    ASSERT_GE(samples, 1) << out;
    if (expected_samples >= 0) EXPECT_EQ(samples, expected_samples) << out;
    std::string rout;
    ASSERT_EQ(run(quote(binary()) + " render --backend " + backend() + " -W " + std::to_string(render_w) +
                      " -H " + std::to_string(render_h) + " --spp " + std::to_string(samples) + " " + render_extra +
                      " -o " + quote(ref.string()),
                  dir, rout),
              0)
        << rout;

    const srt::Image a = srt::read_png(shot.string()), b = srt::read_png(ref.string());
    ASSERT_EQ(a.width, b.width);
    ASSERT_EQ(a.height, b.height);
    const srt::ImageDiff d = srt::compare_images(a, b, 0);
    EXPECT_EQ(d.over_tolerance, 0u) << "max diff " << d.max_diff << "\n" << out;
    EXPECT_EQ(d.exact_equal, d.channels);

    // The companion screenshot has the HUD drawn over the same frame.
    const srt::Image h = srt::read_png(hud.string());
    ASSERT_EQ(h.width, a.width);
    ASSERT_EQ(h.height, a.height);
    EXPECT_GT(srt::compare_images(h, a, 0).over_tolerance, 0u) << "the HUD is missing from " << hud;
    fs::remove_all(dir);
}

// One viewer run under a display: the screenshot (and its companions) in `dir`.
struct ViewerRun {
    bool skipped = false;
    std::string why;  // when skipped
    int rc = -1;
    std::string out;
    fs::path dir, shot;
    int samples = -1;
};

ViewerRun run_viewer(const std::string& name, const std::string& script, int frames, int w, int h,
                     const std::string& extra = "") {
    ViewerRun v;
    v.dir = temp_dir(name);
    const std::string prefix = display_prefix(v.dir, v.why);
    if (!v.why.empty()) {
        v.skipped = true;
        return v;
    }
    write_file(v.dir / "script.txt", script);
    v.shot = v.dir / "shot.png";
    v.rc = run(prefix + quote(binary()) + " view --backend " + backend() + " " + view_args() + " --width " +
                   std::to_string(w) + " --height " + std::to_string(h) + " --frames " + std::to_string(frames) +
                   " --no-vsync --screenshot " + quote(v.shot.string()) + " --input-script " +
                   quote((v.dir / "script.txt").string()) + " " + extra,
               v.dir, v.out);
    if (viewer_missing(v.out)) {
        v.skipped = true;
        v.why = "stencilrt was built without the viewer";
    }
    v.samples = accumulated_samples(v.out);
    return v;
}

fs::path with_suffix(const fs::path& png, const std::string& tag) {
    std::string s = png.string();
    return s.substr(0, s.size() - 4) + tag + ".png";
}

// Per pixel, what the overlay did to the image beneath it (shaders/display.frag): 0 left
// it alone (the ray lives on), 1 tinted it amber (this lane dead), 2 red (the whole warp
// dead), -1 neither.
std::vector<int> overlay_classes(const srt::Image& image, const srt::Image& overlay) {
    std::vector<int> c(size_t(image.width) * size_t(image.height), -1);
    auto near = [](int got, double base, double tint, double k) {
        return std::fabs(double(got) - (base + (tint - base) * k)) <= 1.01;
    };
    for (size_t p = 0; p < c.size(); ++p) {
        const uint8_t* a = &image.rgba[p * 4];
        const uint8_t* o = &overlay.rgba[p * 4];
        if (a[0] == o[0] && a[1] == o[1] && a[2] == o[2])
            c[p] = 0;
        else if (near(o[0], a[0], 255.0, 0.55) && near(o[1], a[1], 25.5, 0.55) && near(o[2], a[2], 25.5, 0.55))
            c[p] = 2;
        else if (near(o[0], a[0], 255.0, 0.35) && near(o[1], a[1], 204.0, 0.35) && near(o[2], a[2], 25.5, 0.35))
            c[p] = 1;
    }
    return c;
}

// The render a viewer run must equal: `render --spp N` at its size, N its samples.
srt::Image headless(const ViewerRun& v, int w, int h, const std::string& extra = "") {
    std::string rout;
    const fs::path ref = v.dir / "ref.png";
    const int rc = run(quote(binary()) + " render --backend " + backend() + " -W " + std::to_string(w) + " -H " +
                           std::to_string(h) + " --spp " + std::to_string(v.samples) + " " + extra + " -o " +
                           quote(ref.string()),
                       v.dir, rout);
    EXPECT_EQ(rc, 0) << rout;
    return srt::read_png(ref.string());
}

}  // namespace

// The stencil overlay (V) shows one sample's stencil and holds it while the view stays
// still and later samples add up: still frame 3 shows what frame 1 showed. The saved
// image stays the render (OUT.png equals `render --spp N`); the tinted frame is saved
// beside it (OUT.overlay.png). With accumulation off the same holds.
TEST(Viewer, StencilOverlayHoldsOnAStillView) {
    const std::string script = "frame 0 key V press\nframe 0 key V release\n";
    std::vector<std::vector<int>> classes;
    for (const auto& [frames, extra] : {std::pair<int, std::string>{1, "--depth 3"}, {3, "--depth 3"},
                                        {3, "--depth 3 --max-samples 1"}}) {
        SCOPED_TRACE("frames " + std::to_string(frames) + " " + extra);
        const ViewerRun v = run_viewer("overlay" + std::to_string(classes.size()), script, frames, 160, 120, extra);
        if (v.skipped) GTEST_SKIP() << v.why;
        ASSERT_EQ(v.rc, 0) << v.out;
        EXPECT_EQ(v.samples, extra.find("max-samples 1") != std::string::npos ? 1 : frames) << v.out;
        const srt::Image image = srt::read_png(v.shot.string());
        const srt::Image ref = headless(v, 160, 120, "--depth 3");
        const srt::ImageDiff d = srt::compare_images(image, ref, 0);
        EXPECT_EQ(d.exact_equal, d.channels) << "the saved image is not the render: max diff " << d.max_diff;
        const fs::path tinted = with_suffix(v.shot, ".overlay");
        ASSERT_TRUE(fs::exists(tinted)) << v.out;
        const std::vector<int> c = overlay_classes(image, srt::read_png(tinted.string()));
        size_t alive = 0, dead_warp = 0, unknown = 0;
        for (int k : c) {
            alive += k == 0;
            dead_warp += k == 2;
            unknown += k < 0;
        }
        EXPECT_EQ(unknown, 0u);
        // Bounce 0 of the default scene: the mirrors' rays live on, the floor's and the sky's die.
        EXPECT_GT(alive, c.size() / 20) << "no live rays shown";
        EXPECT_GT(dead_warp, c.size() / 20) << "no dead warps shown";
        classes.push_back(c);
        fs::remove_all(v.dir);
    }
    EXPECT_TRUE(classes[0] == classes[1]) << "the overlay changed between still frames 1 and 3";
    EXPECT_TRUE(classes[0] == classes[2]) << "the overlay differs with accumulation off";
}

namespace {

// The `stencilrt render` line the viewer's C printed, or "" where there is none.
std::string printed_command(const std::string& out) {
    const size_t at = out.find("stencilrt render ");
    return at == std::string::npos ? "" : out.substr(at, out.find('\n', at) - at);
}

// Runs the printed command at the view's sample count and requires its image to equal the
// view's screenshot, bit for bit.
void expect_command_renders_the_view(const ViewerRun& v, const std::string& line) {
    std::string rout;
    const fs::path ref = v.dir / "ref.png";
    ASSERT_EQ(run(quote(binary()) + line.substr(std::string("stencilrt").size()) + " --backend " + backend() +
                      " --spp " + std::to_string(v.samples) + " -o " + quote(ref.string()),
                  v.dir, rout),
              0)
        << line << "\n" << rout;
    const srt::ImageDiff d = srt::compare_images(srt::read_png(v.shot.string()), srt::read_png(ref.string()), 0);
    EXPECT_EQ(d.exact_equal, d.channels) << line << "\nmax diff " << d.max_diff;
}

}  // namespace

// `C` prints the view as a `render` command line; run, it renders the window's image.
// In a mesh scene without lights, whose automatic light stays where the start camera put
// it, the command names that light; and rendering space's origin, which stays at the start
// camera while the view moves (without it, a few pixels differ in their last bit).
TEST(Viewer, CameraKeyPrintsARenderCommandForTheView) {
    const std::string script =
        "frame 0 key W press\nframe 2 key W release\n"
        "frame 2 button right press\nframe 2 mouse 15 -6\nframe 2 button right release\n"
        "frame 3 key C press\nframe 3 key C release\n";
    const fs::path scene_dir = temp_dir("camera_scene");
    write_file(scene_dir / "room.obj", srt::test::kRoomObj);
    const ViewerRun v = run_viewer("camera", script, 6, 160, 120, quote((scene_dir / "room.obj").string()));
    if (v.skipped) GTEST_SKIP() << v.why;
    ASSERT_EQ(v.rc, 0) << v.out;
    const std::string line = printed_command(v.out);
    ASSERT_FALSE(line.empty()) << v.out;
    for (const char* flag : {"--camera-from=", "--camera-at=", "--camera-up=", "--fov ", "--render-origin=", "--light=",
                             "room.obj"})
        EXPECT_NE(line.find(flag), std::string::npos) << flag << " missing from: " << line;
    EXPECT_EQ(v.samples, 4) << v.out;  // frames 2..5: the look at frame 2 comes before it renders
    expect_command_renders_the_view(v, line);
    fs::remove_all(v.dir);
    fs::remove_all(scene_dir);
}

// The lens: `.` opens it (two stops), a click focuses on what is under the cursor (the
// room's back wall at the window's centre), and `C` prints a command with --aperture and
// --focus whose render equals the view's accumulated image.
TEST(Viewer, LensKeysAndClickFocusMatchRender) {
    const std::string script =
        "frame 0 key . press\nframe 0 key . release\nframe 0 key . press\nframe 0 key . release\n"
        "frame 1 cursor 80 60\nframe 1 button left press\nframe 1 button left release\n"
        "frame 3 key C press\nframe 3 key C release\n";
    const fs::path scene_dir = temp_dir("lens_scene");
    write_file(scene_dir / "room.obj", srt::test::kRoomObj);
    const ViewerRun v = run_viewer("lens", script, 6, 160, 120, quote((scene_dir / "room.obj").string()));
    if (v.skipped) GTEST_SKIP() << v.why;
    ASSERT_EQ(v.rc, 0) << v.out;
    EXPECT_NE(v.out.find("focus "), std::string::npos) << v.out;  // the click found a surface
    const std::string line = printed_command(v.out);
    ASSERT_FALSE(line.empty()) << v.out;
    for (const char* flag : {"--aperture ", "--focus "}) EXPECT_NE(line.find(flag), std::string::npos) << line;
    expect_command_renders_the_view(v, line);
    fs::remove_all(v.dir);
    fs::remove_all(scene_dir);
}

// The environment map: `K` turns it twice (30 degrees), and `C` prints --env and
// --env-rotation, whose render equals the view's accumulated, path-traced image.
TEST(Viewer, EnvironmentKeysTurnTheMapAsRenderDoes) {
    const std::string script =
        "frame 0 key K press\nframe 0 key K release\nframe 0 key K press\nframe 0 key K release\n"
        "frame 3 key C press\nframe 3 key C release\n";
    const fs::path scene_dir = temp_dir("env_scene");
    write_file(scene_dir / "room.obj", srt::test::kRoomObj);
    const std::string sky = std::string(SRT_SOURCE_DIR) + "/assets/env/sky.hdr";
    const ViewerRun v = run_viewer("env", script, 6, 160, 120,
                                   quote((scene_dir / "room.obj").string()) + " --env " + quote(sky + ":2") + " -i path");
    if (v.skipped) GTEST_SKIP() << v.why;
    ASSERT_EQ(v.rc, 0) << v.out;
    const std::string line = printed_command(v.out);
    ASSERT_FALSE(line.empty()) << v.out;
    for (const char* flag : {"--env ", "sky.hdr:2 ", "--env-rotation 30"}) EXPECT_NE(line.find(flag), std::string::npos) << line;
    expect_command_renders_the_view(v, line);
    fs::remove_all(v.dir);
    fs::remove_all(scene_dir);
}

// `H` hides the HUD; at 640x360 it stays compact: in the top part of the window, its last
// line well clear of the bottom edge (the full HUD covered the window and lost its last line).
TEST(Viewer, HudIsCompactAtSmallSizesAndHides) {
    const ViewerRun v = run_viewer("hud", "", 2, 640, 360, "--depth 1");
    if (v.skipped) GTEST_SKIP() << v.why;
    ASSERT_EQ(v.rc, 0) << v.out;
    const srt::Image image = srt::read_png(v.shot.string());
    const srt::Image hud = srt::read_png(with_suffix(v.shot, ".hud").string());
    int lowest = -1, rightmost = -1;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x)
            for (int k = 0; k < 3; ++k)
                if (image.rgba[(size_t(y) * image.width + x) * 4 + k] != hud.rgba[(size_t(y) * image.width + x) * 4 + k]) {
                    lowest = std::max(lowest, y);
                    rightmost = std::max(rightmost, x);
                }
    ASSERT_GE(lowest, 0) << "no HUD drawn";
    EXPECT_LT(lowest, 360 / 2) << "the HUD reaches row " << lowest << " of 360";
    EXPECT_LT(rightmost, 640 - 8) << "the HUD reaches column " << rightmost << " of 640";
    fs::remove_all(v.dir);

    const ViewerRun hidden = run_viewer("hud_hidden", "frame 0 key H press\nframe 0 key H release\n", 2, 640, 360,
                                        "--depth 1");
    ASSERT_EQ(hidden.rc, 0) << hidden.out;
    const srt::ImageDiff d = srt::compare_images(srt::read_png(hidden.shot.string()),
                                                 srt::read_png(with_suffix(hidden.shot, ".hud").string()), 0);
    EXPECT_EQ(d.exact_equal, d.channels) << "H did not hide the HUD";
    fs::remove_all(hidden.dir);

    // At 320x180 its lines wrap inside the window instead of running off its right edge.
    const ViewerRun tiny = run_viewer("hud_tiny", "", 2, 320, 180, "--depth 1");
    ASSERT_EQ(tiny.rc, 0) << tiny.out;
    const srt::Image ti = srt::read_png(tiny.shot.string()), th = srt::read_png(with_suffix(tiny.shot, ".hud").string());
    int right = -1;
    for (int y = 0; y < ti.height; ++y)
        for (int x = 0; x < ti.width; ++x)
            for (int k = 0; k < 3; ++k)
                if (ti.rgba[(size_t(y) * ti.width + x) * 4 + k] != th.rgba[(size_t(y) * ti.width + x) * 4 + k])
                    right = std::max(right, x);
    ASSERT_GE(right, 0) << "no HUD drawn";
    EXPECT_LT(right, 320 - 4) << "the HUD reaches column " << right << " of 320";
    fs::remove_all(tiny.dir);
}

// Every control is exercised, and each is undone by the end (depth back, mode cycled
// round, overlay cycled off, camera moved then reset), so the last frame must be the
// headless render's exactly.
TEST(Viewer, ScriptedInputEndsEqualToHeadlessRender) {
    std::string script =
        "# depth 8 -> 9 -> 8\n"
        "frame 0 key ] press\n"
        "frame 0 key ] release\n"
        "frame 1 key LEFT_BRACKET press\n"
        "frame 1 key LEFT_BRACKET release\n"
        "# dead-ray mode: stencil -> flags -> compact -> pool -> megakernel -> regenerate -> stencil\n"
        "frame 1 key M press\n"
        "frame 2 key M press\n"
        "frame 3 key m press\n"
        "frame 3 key M press\n"
        "frame 4 key M press\n"
        "frame 4 key m press\n"
        "# fly forward, look around, change speed, then R puts the camera back\n"
        "frame 2 key W press\n"
        "frame 3 key W release\n"
        "frame 3 button right press\n"
        "frame 4 mouse 10 -5\n"
        "frame 4 button right release\n"
        "frame 4 scroll 2\n"
        "frame 5 key R press\n"
        "frame 5 key R release\n"
        "# stencil overlay: bounce 0 .. 7, then off (9 presses at depth 8)\n";
    for (int f = 2; f <= 10; ++f) script += "frame " + std::to_string(f) + " key V press\n";
    // The last change is R at frame 5 (the overlay changes no pixel, so it keeps the
    // sum): frames 5..11 add one sample each.
    expect_viewer_equals_render("scripted", script, 12, 160, 120, 7);
}

// Progressive accumulation: a still camera adds a sample every frame, and
// after N frames the window shows exactly `render --spp N`.
TEST(Viewer, StillFramesAccumulateToRenderSpp) {
    expect_viewer_equals_render("accumulate", "", 9, 160, 120, 9);
}

// The pool and the path modes (M three, four and five times from the stencil) accumulate
// as the wavefront does: the window ends as `render --spp N` of the samples it summed.
TEST(Viewer, PathModesAccumulateToRenderSpp) {
    const std::string m = "frame 0 key M press\n";
    expect_viewer_equals_render("pool", m + m + m, 6, 160, 120);
    expect_viewer_equals_render("megakernel", m + m + m + m, 6, 160, 120);
    expect_viewer_equals_render("regenerate", m + m + m + m + m, 6, 160, 120);
}

// I switches to the path integrator: a still path-traced view converges, frame after
// frame, to `render --integrator path --spp N` byte for byte; I again goes back to
// Whitted, and the sum starts again.
TEST(Viewer, IntegratorKeyConvergesToRenderPath) {
    expect_viewer_equals_render("path", "frame 0 key I press\nframe 0 key I release\n", 7, 160, 120, -1,
                                "--integrator path");
    expect_viewer_equals_render("path-back", "frame 0 key I press\nframe 2 key I press\n", 8, 160, 120);
}

// Looking around starts the sum again, and so does R bringing the camera back: after a
// look at frame 3 and R at frame 6, frames 6..13 remain, 8 samples from the start camera.
TEST(Viewer, MovingTheCameraResetsTheSum) {
    expect_viewer_equals_render("reset",
                                "frame 3 button right press\n"
                                "frame 3 mouse 12 -4\n"
                                "frame 3 button right release\n"
                                "frame 6 key R press\n"
                                "frame 6 key R release\n",
                                14, 160, 120, 8);
}

// Exposure keys: + 1 EV at frame 4 (two presses of '=') restart the sum and scale the
// 8-bit image exactly as `render --exposure 1` does.
TEST(Viewer, ExposureKeysMatchRenderExposure) {
    expect_viewer_equals_render("exposure",
                                "frame 4 key = press\nframe 4 key = release\n"
                                "frame 4 key EQUAL press\nframe 4 key EQUAL release\n",
                                10, 160, 120, 6, "--exposure 1");
}

// The 0 key picks an exposure from the image on screen and prints it; the sum starts
// again, and the window ends as `render --exposure EV --spp N` with the printed number.
TEST(Viewer, AutoExposureKeyPrintsTheEvThatRenderReproduces) {
    const ViewerRun v = run_viewer("autoexp", "frame 1 key 0 press\nframe 1 key 0 release\n", 6, 160, 120);
    if (v.skipped) GTEST_SKIP() << v.why;
    ASSERT_EQ(v.rc, 0) << v.out;
    const std::string tag = "viewer: exposure auto: ";
    const size_t at = v.out.find(tag);
    ASSERT_NE(at, std::string::npos) << v.out;
    const std::string ev = v.out.substr(at + tag.size(), v.out.find(' ', at + tag.size()) - at - tag.size());
    EXPECT_NE(std::atof(ev.c_str()), 0.0) << ev;  // the default scene is not at its key already
    const srt::ImageDiff d =
        srt::compare_images(srt::read_png(v.shot.string()), headless(v, 160, 120, "--exposure " + ev), 0);
    EXPECT_EQ(d.exact_equal, d.channels) << "--exposure " << ev << ", max diff " << d.max_diff;
    fs::remove_all(v.dir);
}

// Switching integrators on a scene lit by point lights (the default scene) keeps it
// lit: under the one light model the path-traced view's direct light is Whitted's, so its
// mean is of the same order (it adds indirect light; it was 4x darker with its own model).
TEST(Viewer, IntegratorKeyKeepsAPointLitSceneLit) {
    auto mean_linear = [](const srt::Image& im) {
        double sum = 0.0;
        for (size_t i = 0; i < im.rgba.size(); i += 4)
            for (int c = 0; c < 3; ++c) sum += std::pow((im.rgba[i + size_t(c)] / 255.0 + 0.055) / 1.055, 2.4);
        return sum / double(im.rgba.size() / 4 * 3);
    };
    const ViewerRun whitted = run_viewer("lit-whitted", "", 2, 160, 120);
    if (whitted.skipped) GTEST_SKIP() << whitted.why;
    const ViewerRun path = run_viewer("lit-path", "frame 0 key I press\nframe 0 key I release\n", 4, 160, 120);
    ASSERT_EQ(whitted.rc, 0) << whitted.out;
    ASSERT_EQ(path.rc, 0) << path.out;
    const double w = mean_linear(srt::read_png(whitted.shot.string())), p = mean_linear(srt::read_png(path.shot.string()));
    EXPECT_GT(p, 0.7 * w) << "path " << p << " against Whitted " << w;
    EXPECT_LT(p, 2.0 * w) << "path " << p << " against Whitted " << w;
    fs::remove_all(whitted.dir);
    fs::remove_all(path.dir);
}

// A resize re-renders at the new size (with interop: a new buffer, registered again).
TEST(Viewer, ResizeRendersAtTheNewSize) {
    expect_viewer_equals_render("resize", "frame 1 resize 200 150\n", 4, 200, 150);
}

TEST(Viewer, NoDisplayExits2WithHintToUseRender) {
    const fs::path dir = temp_dir("nodisplay");
    std::string out;
    const int rc = run("env -u DISPLAY -u WAYLAND_DISPLAY " + quote(binary()) +
                           " view --backend cpu --width 64 --height 48 --frames 1",
                       dir, out);
    if (viewer_missing(out)) GTEST_SKIP() << "stencilrt was built without the viewer";
    EXPECT_EQ(rc, 2) << out;
    EXPECT_NE(out.find("cannot open a window"), std::string::npos) << out;
    EXPECT_NE(out.find("stencilrt render"), std::string::npos) << out;
    fs::remove_all(dir);
}

// A bad script line is reported as FILE:LINE before any window is opened (so this
// needs no display).
TEST(Viewer, BadScriptLineIsReportedWithFileAndLine) {
    const fs::path dir = temp_dir("badscript");
    const fs::path script = dir / "script.txt";
    write_file(script, "# ok so far\nframe 0 key ] press\nframe 1 key NOPE press\n");
    std::string out;
    const int rc = run("env -u DISPLAY -u WAYLAND_DISPLAY " + quote(binary()) +
                           " view --backend cpu --frames 2 --input-script " + quote(script.string()),
                       dir, out);
    if (viewer_missing(out)) GTEST_SKIP() << "stencilrt was built without the viewer";
    EXPECT_EQ(rc, 2) << out;
    EXPECT_NE(out.find(script.string() + ":3:"), std::string::npos) << out;
    EXPECT_NE(out.find("unknown key 'NOPE'"), std::string::npos) << out;

    write_file(script, "frame -1 key W press\n");
    EXPECT_EQ(run(quote(binary()) + " view --backend cpu --frames 2 --input-script " + quote(script.string()),
                  dir, out), 2) << out;
    EXPECT_NE(out.find(script.string() + ":1:"), std::string::npos) << out;
    fs::remove_all(dir);
}

// The shaders are compiled into the binary: a copy of stencilrt alone in another folder
// opens the viewer (it used to look for shaders/ in the source tree or the install
// prefix), and the binary holds the GLSL of shaders/.
TEST(Viewer, BinaryCopiedAloneRunsTheViewer) {
    const fs::path dir = temp_dir("relocated");
    std::string why;
    const std::string prefix = display_prefix(dir, why);
    if (!why.empty()) GTEST_SKIP() << why;
    const fs::path copy = dir / "bin" / "stencilrt";
    fs::create_directories(copy.parent_path());
    fs::copy_file(binary(), copy);
    std::string out;
    const int rc = run("cd " + quote(dir.string()) + " && " + prefix + quote(copy.string()) +
                           " view --backend cpu --width 64 --height 48 --frames 2 --no-vsync --screenshot shot.png",
                       dir, out);
    if (viewer_missing(out)) GTEST_SKIP() << "stencilrt was built without the viewer";
    EXPECT_EQ(rc, 0) << out;
    EXPECT_TRUE(fs::exists(dir / "shot.png")) << out;
    const std::string bin = read_file(copy);
    const std::string frag = read_file(fs::path(SRT_SOURCE_DIR) / "shaders" / "display.frag");
    EXPECT_NE(bin.find(frag.substr(0, 200)), std::string::npos) << "display.frag is not in the binary";
    fs::remove_all(dir);
}

// --shader-dir loads the GLSL from disk: a broken copy there is what the driver sees.
TEST(Viewer, ShaderDirIsReadInsteadOfTheEmbeddedCopies) {
    const fs::path dir = temp_dir("shaderdir");
    std::string why;
    const std::string prefix = display_prefix(dir, why);
    if (!why.empty()) GTEST_SKIP() << why;
    const fs::path shaders = dir / "shaders";
    fs::create_directories(shaders);
    const fs::path src = fs::path(SRT_SOURCE_DIR) / "shaders";
    fs::copy_file(src / "fullscreen.vert", shaders / "fullscreen.vert");
    write_file(shaders / "display.frag", read_file(src / "display.frag") + "\nthis is not GLSL;\n");
    std::string out;
    const int rc = run(prefix + quote(binary()) + " view --backend cpu --width 64 --height 48 --frames 1 --shader-dir " +
                           quote(shaders.string()),
                       dir, out);
    if (viewer_missing(out)) GTEST_SKIP() << "stencilrt was built without the viewer";
    EXPECT_NE(rc, 0) << out;
    EXPECT_NE(out.find((shaders / "display.frag").string() + "' does not compile"), std::string::npos) << out;

    fs::copy_file(src / "display.frag", shaders / "display.frag", fs::copy_options::overwrite_existing);
    EXPECT_EQ(run(prefix + quote(binary()) + " view --backend cpu --width 64 --height 48 --frames 1 --shader-dir " +
                      quote(shaders.string()),
                  dir, out),
              0)
        << out;
    EXPECT_EQ(run(quote(binary()) + " view --backend cpu --frames 1 --shader-dir " + quote((dir / "nope").string()),
                  dir, out),
              2)
        << out;
    EXPECT_NE(out.find("--shader-dir"), std::string::npos) << out;
    fs::remove_all(dir);
}
