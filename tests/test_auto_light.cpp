// test_auto_light.cpp - the light a mesh loader adds to a file without lights belongs to
// the camera: --camera-* flags move it too (scene.h place_auto_light). Each render is
// compared with one given that light explicitly (--light, which replaces the scene's
// lights) at the place the rule puts it, computed here in double: the images must be
// identical, and the camera inside the room must see it lit.
#include "core/image.h"

#include <gtest/gtest.h>

#include <glm/glm.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

fs::path temp_dir(const std::string& name) {
    const fs::path d = fs::path(::testing::TempDir()) / ("srt_autolight_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

int run(const std::string& args, const fs::path& dir) {
    const std::string cmd = std::string("'") + SRT_BINARY + "' render --backend cpu " + args + " >'" +
                            (dir / "log.txt").string() + "' 2>&1";
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string log_of(const fs::path& dir) {
    std::ifstream in(dir / "log.txt");
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string xyz(const glm::dvec3& v) {
    char b[128];
    std::snprintf(b, sizeof b, "%.17g,%.17g,%.17g", v.x, v.y, v.z);
    return b;
}

// A closed room [-1,1]^3 of six inward-facing quads, no MTL and no light: the loader frames
// it from outside (+z) and adds its white light above and behind that camera.
void write_room(const fs::path& p) {
    std::ofstream o(p);
    o << "v -1 -1 -1\nv 1 -1 -1\nv 1 1 -1\nv -1 1 -1\nv -1 -1 1\nv 1 -1 1\nv 1 1 1\nv -1 1 1\n"
         "f 1 2 3 4\nf 5 8 7 6\nf 1 5 6 2\nf 4 3 7 8\nf 1 4 8 5\nf 2 6 7 3\n";
}

// The loader's radius: the half diagonal of the bounds, in float as it computes it.
double room_radius() { return double(glm::length(glm::vec3(1.0f, 1.0f, 1.0f))); }

struct Basis {
    glm::dvec3 forward, up;
};
Basis basis(const glm::dvec3& from, const glm::dvec3& at, const glm::dvec3& up) {
    const glm::dvec3 f = glm::normalize(at - from);
    const glm::dvec3 r = glm::normalize(glm::cross(f, up));
    return {f, glm::cross(r, f)};
}

void expect_same_image(const fs::path& a, const fs::path& b) {
    const srt::Image x = srt::read_png(a.string()), y = srt::read_png(b.string());
    ASSERT_EQ(x.width, y.width);
    ASSERT_EQ(x.height, y.height);
    const srt::ImageDiff d = srt::compare_images(x, y, 0);
    EXPECT_EQ(d.exact_equal, d.channels) << a << " against " << b << ": max diff " << d.max_diff;
}

// The mean of the image's channel values, to tell a lit room from a black one.
double mean_value(const fs::path& p) {
    const srt::Image im = srt::read_png(p.string());
    double sum = 0.0;
    for (size_t i = 0; i < im.rgba.size(); i += 4) sum += im.rgba[i] + im.rgba[i + 1] + im.rgba[i + 2];
    return sum / (3.0 * double(im.width) * double(im.height));
}

}  // namespace

// A camera moved inside the room: the light comes with it, radius/100 above it.
// (Left outside the room, above the framing camera, it lit nothing the camera saw.)
TEST(AutoLight, FollowsACameraMovedInsideTheScene) {
    const fs::path dir = temp_dir("inside");
    write_room(dir / "room.obj");
    const glm::dvec3 from(0.2, -0.3, 0.5), at(-0.4, 0.1, -1.0), up(0, 1, 0);
    const std::string cam = " --camera-from=0.2,-0.3,0.5 --camera-at=-0.4,0.1,-1 --camera-up=0,1,0 -W 64 -H 48 --depth 2";
    ASSERT_EQ(run("'" + (dir / "room.obj").string() + "'" + cam + " -o '" + (dir / "auto.png").string() + "'", dir), 0)
        << log_of(dir);
    const glm::dvec3 light = from + basis(from, at, up).up * (0.01 * room_radius());
    ASSERT_EQ(run("'" + (dir / "room.obj").string() + "'" + cam + " --light=" + xyz(light) + " -o '" +
                      (dir / "explicit.png").string() + "'",
                  dir),
              0)
        << log_of(dir);
    expect_same_image(dir / "auto.png", dir / "explicit.png");
    EXPECT_GT(mean_value(dir / "auto.png"), 20.0) << "the room is dark: its light stayed outside";
    fs::remove_all(dir);
}

// From outside, looking in from another side: above and behind the camera actually used.
TEST(AutoLight, FollowsACameraMovedOutsideTheScene) {
    const fs::path dir = temp_dir("outside");
    // An open box (no +x wall) seen from +x, so the camera looks into it.
    {
        std::ofstream o(dir / "box.obj");
        o << "v -1 -1 -1\nv 1 -1 -1\nv 1 1 -1\nv -1 1 -1\nv -1 -1 1\nv 1 -1 1\nv 1 1 1\nv -1 1 1\n"
             "f 1 2 3 4\nf 5 8 7 6\nf 1 5 6 2\nf 4 3 7 8\nf 1 4 8 5\n";
    }
    const glm::dvec3 from(4.0, 0.5, 0.25), at(0, 0, 0), up(0, 1, 0);
    const std::string cam = " --camera-from=4,0.5,0.25 --camera-at=0,0,0 -W 64 -H 48 --depth 2";
    ASSERT_EQ(run("'" + (dir / "box.obj").string() + "'" + cam + " -o '" + (dir / "auto.png").string() + "'", dir), 0)
        << log_of(dir);
    const Basis b = basis(from, at, up);
    const double r = room_radius();
    const glm::dvec3 light = from + b.up * r - b.forward * (0.5 * r);
    ASSERT_EQ(run("'" + (dir / "box.obj").string() + "'" + cam + " --light=" + xyz(light) + " -o '" +
                      (dir / "explicit.png").string() + "'",
                  dir),
              0)
        << log_of(dir);
    expect_same_image(dir / "auto.png", dir / "explicit.png");
    fs::remove_all(dir);
}

// No camera flags: the light is where it always was, above and behind the framing camera,
// so the images of every mesh without lights are unchanged.
TEST(AutoLight, WithoutCameraFlagsStaysAboveAndBehindTheFramingCamera) {
    const fs::path dir = temp_dir("framing");
    write_room(dir / "room.obj");
    ASSERT_EQ(run("'" + (dir / "room.obj").string() + "' -W 64 -H 48 --depth 2 -o '" + (dir / "auto.png").string() + "'",
                  dir),
              0)
        << log_of(dir);
    // The loader's framing camera looks down -z from +z (load_obj.cpp frame_camera): the
    // light is radius up and radius / 2 towards +z from it. Its position comes from the
    // camera the loader chose, which the log's stats do not print, so the distance is
    // recomputed here the loader's way.
    const double half_h = 0.5 * 50.0 * 3.14159265358979323846 / 180.0;
    const double half_v = std::atan(std::tan(half_h) * 9.0 / 16.0);
    const float dist = 1.1f * float(std::max(1.0 / std::tan(half_h), 1.0 / std::tan(half_v))) + 1.0f;
    const glm::dvec3 from(0.0, 0.0, double(dist));
    const double r = room_radius();
    const glm::dvec3 light = from + glm::dvec3(0, r, 0.5 * r);
    ASSERT_EQ(run("'" + (dir / "room.obj").string() + "' -W 64 -H 48 --depth 2 --light=" + xyz(light) + " -o '" +
                      (dir / "explicit.png").string() + "'",
                  dir),
              0)
        << log_of(dir);
    expect_same_image(dir / "auto.png", dir / "explicit.png");
    fs::remove_all(dir);
}
