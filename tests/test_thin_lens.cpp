// test_thin_lens.cpp - the thin lens (render/lens.h) against its closed form. A small
// emitter on the axis, seen through a lens focused elsewhere, is spread over a disk of
// radius R |1/focus - 1/z| in tangent units: its image's second moment about the centre
// must be that disk's, plus the emitter's own and the pixel grid's, within error bars from
// replicate renders (independent seeds). Focused on the emitter, the image is as sharp as
// the pinhole's. An aperture of 0 is the pinhole, bit for bit; bad lens values in a file
// are refused with their line.
#include "render/executor.h"
#include "render/lens.h"
#include "render/pick.h"
#include "render/scene_gpu.h"
#include "render/stages.h"
#include "scene/load.h"
#include "scene/scene.h"
#include "support/path_reference.h"
#include "support/process.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace srt;

constexpr int kSize = 64;           // the frame, square
constexpr float kFov = 30.0f;       // degrees
constexpr double kDepth = 10.0;     // the emitter's centre, along the view direction
constexpr double kRadius = 0.05;    // the emitter's radius

Scene emitter_scene(float aperture, float focus) {
    Scene s;
    s.name = "lens";
    s.add_material(Material{});
    Material lamp;
    lamp.colour = glm::vec3(0.0f);
    lamp.kd = 0.0f;
    lamp.emission = glm::vec3(1.0f);
    Sphere sp;
    sp.centre = Point3(0.0, 0.0, -kDepth);
    sp.radius = kRadius;
    sp.material = s.add_material(lamp);
    s.spheres.push_back(sp);
    s.camera.from = Point3(0.0);
    s.camera.at = Point3(0.0, 0.0, -1.0);
    s.camera.fov_deg = kFov;
    s.camera.aperture = aperture;
    s.camera.focus_distance = focus;
    return s;
}

// Pixels per unit of tangent (the image plane at distance 1).
double pixels_per_tangent() { return kSize / (2.0 * std::tan(double(kFov) * 0.5 * 3.14159265358979323846 / 180.0)); }

// The image's second moment about the frame's centre, in pixels^2, one per replicate: the
// emitter's samples over the middle `window` x `window` pixels, `spp` a pixel, seed r,
// each at its own position in the image plane (its pixel and its sub-pixel offset, the
// R2 point of render/stages.h sample_offset: the pinhole direction a lens ray is aimed
// along), so that the pixel grid adds nothing.
std::vector<double> second_moments(const Scene& scene, int reps, int spp, int window) {
    const CompiledScene cs = compile_scene(scene);
    const CameraGpu cam = make_camera(cs.camera, kSize, kSize, cs.render_origin);
    std::vector<double> out(size_t(reps), 0.0);
    auto rep = [&](int r0, int step) {
        for (int r = r0; r < reps; r += step) {
            double sum = 0.0, moment = 0.0;
            const int lo = (kSize - window) / 2;
            for (int y = lo; y < lo + window; ++y)
                for (int x = lo; x < lo + window; ++x) {
                    for (int s = 0; s < spp; ++s) {
                        const double v =
                            reference_path_sample(cs, cam, kSize, kSize, x, y, uint32_t(s), 1, uint32_t(r)).x;
                        float ox, oy;
                        sample_offset(uint32_t(s), ox, oy);
                        const double dx = x + double(ox) - kSize / 2, dy = y + double(oy) - kSize / 2;
                        sum += v;
                        moment += v * (dx * dx + dy * dy);
                    }
                }
            out[size_t(r)] = moment / sum;
        }
    };
    std::thread t(rep, 1, 2);
    rep(0, 2);
    t.join();
    return out;
}

struct MeanAndError {
    double mean = 0.0, error = 0.0;  // the replicates' mean and its standard error
};
MeanAndError mean_and_error(const std::vector<double>& v) {
    MeanAndError m;
    for (double x : v) m.mean += x / double(v.size());
    double ss = 0.0;
    for (double x : v) ss += (x - m.mean) * (x - m.mean);
    m.error = std::sqrt(ss / double(v.size() - 1) / double(v.size()));
    return m;
}

// What the second moment must be with the lens focused at `focus`: the blur disk's
// (radius rho: rho^2 / 2) and the emitter's own disk's (sigma^2 / 2). The emitter's
// visible cap is nearer than its centre: its points' mean depth over the disk it covers
// is kDepth - 2/3 kRadius.
double predicted_moment(double aperture, double focus) {
    const double z = kDepth - 2.0 / 3.0 * kRadius;
    const double rho = aperture * std::fabs(1.0 / focus - 1.0 / z) * pixels_per_tangent();
    const double sigma = kRadius / std::sqrt(kDepth * kDepth - kRadius * kRadius) * pixels_per_tangent();
    return rho * rho / 2.0 + sigma * sigma / 2.0;
}

constexpr int kReps = 8, kSpp = 384;

}  // namespace

// Out of focus: the blur disk's radius is the thin-lens formula's (about 2.4 pixels
// here; a lens of twice the radius, or none, is many error bars off).
TEST(ThinLens, BlurDiskMatchesTheFormula) {
    const float aperture = 0.2f, focus = 5.0f;
    const MeanAndError m = mean_and_error(second_moments(emitter_scene(aperture, focus), kReps, kSpp, 24));
    const double want = predicted_moment(aperture, focus);
    const double k = pathref::bonferroni_k(3, 1e-3) + 1.0;  // 3 tests here; 7 degrees of freedom
    EXPECT_NEAR(m.mean, want, k * m.error) << "second moment " << m.mean << " +- " << m.error << ", want " << want;
    EXPECT_LT(m.error, 0.03 * want);  // the error bar is tight enough to tell
    EXPECT_GT(std::fabs(predicted_moment(2.0 * aperture, focus) - want), 10.0 * k * m.error);
}

// In focus: a small bright sphere on the plane in focus is as sharp through the lens as
// through the pinhole (whose samples are the same in every replicate): within the error
// bar and 0.001 pixel^2, the second moment of a blur disk of 0.045 pixels' radius. Focused
// a fifth nearer, the same lens spreads it over 0.6 pixels.
TEST(ThinLens, InFocusStaysSharp) {
    const float focus = float(kDepth - 2.0 / 3.0 * kRadius);
    const MeanAndError lens = mean_and_error(second_moments(emitter_scene(0.2f, focus), kReps, kSpp, 24));
    const MeanAndError pinhole = mean_and_error(second_moments(emitter_scene(0.0f, 0.0f), kReps, kSpp, 24));
    const MeanAndError nearer = mean_and_error(second_moments(emitter_scene(0.2f, 0.8f * focus), kReps, kSpp, 24));
    const double k = pathref::bonferroni_k(3, 1e-3) + 1.0;
    const double err = std::sqrt(lens.error * lens.error + pinhole.error * pinhole.error);
    EXPECT_NEAR(lens.mean, pinhole.mean, k * err + 0.001) << "lens " << lens.mean << ", pinhole " << pinhole.mean;
    EXPECT_NEAR(pinhole.mean, predicted_moment(0.0, 1.0), 0.01);  // sigma^2 / 2: 0.18 (a quadrature of 384 points)
    EXPECT_NEAR(nearer.mean, predicted_moment(0.2, 0.8 * focus), k * nearer.error);
}

// An aperture of 0 is the pinhole to the bit, through the file and the executor; a focus
// without an aperture changes nothing either.
TEST(ThinLens, ApertureZeroIsThePinhole) {
    test::TempDir dir;
    const std::string body = R"(, "fov": 40}, "background": [0.2, 0.3, 0.4],
        "lights": [{"type": "point", "position": [2, 3, 2], "colour": [1, 1, 1]}],
        "objects": [{"type": "sphere", "centre": [0, 0, -3], "radius": 1},
                    {"type": "plane", "point": [0, -1, 0], "normal": [0, 1, 0]}]})";
    const std::string cam = R"({"camera": {"from": [0.1, 0.2, 1], "at": [0, 0, -3])";
    test::write_text(dir / "plain.json", cam + body);
    test::write_text(dir / "zero.json", cam + R"(, "aperture": 0, "focus_distance": 2.5)" + body);
    test::write_text(dir / "lens.json", cam + R"(, "aperture": 0.2, "focus_distance": 2.5)" + body);
    auto cpu = make_cpu_executor();
    RenderSettings rs;
    rs.width = 37;
    rs.height = 23;
    rs.spp = 3;
    Image images[3];
    const char* files[3] = {"plain.json", "zero.json", "lens.json"};
    for (int i = 0; i < 3; ++i) {
        const Scene s = load_scene(dir / files[i]);
        const CompiledScene cs = compile_scene(s);  // the executor keeps a reference
        cpu->set_scene(cs);
        cpu->render(s.camera, rs, images[i]);
    }
    EXPECT_EQ(images[0].rgba, images[1].rgba);
    EXPECT_NE(images[0].rgba, images[2].rgba);  // the lens is there to be seen
    EXPECT_EQ(make_camera(load_scene(dir / "zero.json").camera, 37, 23, Point3(0.0)).focus, 0.0f);
}

// The concentric map keeps the disk: every point inside the unit disk, the square's
// centre at its centre, the square's edge midpoints on its rim.
TEST(ThinLens, ConcentricMapStaysOnTheDisk) {
    for (int i = 0; i <= 64; ++i)
        for (int j = 0; j <= 64; ++j) {
            const glm::vec2 p = concentric_disk(glm::vec2(float(i) / 64.0f, float(j) / 64.0f));
            EXPECT_LE(glm::length(p), 1.0f + 1e-6f) << i << "," << j;
        }
    EXPECT_EQ(concentric_disk(glm::vec2(0.5f)), glm::vec2(0.0f));
    EXPECT_NEAR(glm::length(concentric_disk(glm::vec2(1.0f, 0.5f))), 1.0f, 1e-6f);
    EXPECT_NEAR(glm::length(concentric_disk(glm::vec2(0.5f, 0.0f))), 1.0f, 1e-6f);
}

// Click-to-focus: the distance in focus for a point of the image is its surface's depth
// along the view direction, off the axis too; nothing there, no focus.
TEST(ThinLens, FocusAtTheSurfaceUnderAPoint) {
    Scene s = emitter_scene(0.0f, 0.0f);
    Sphere big;
    big.centre = Point3(3.0, 0.0, -20.0);
    big.radius = 2.0;
    big.material = 0;
    s.spheres.push_back(big);
    const CompiledScene cs = compile_scene(s);
    const std::optional<float> axis = focus_at(cs, s.camera, kSize, kSize, kSize / 2.0f, kSize / 2.0f);
    ASSERT_TRUE(axis);
    EXPECT_NEAR(*axis, kDepth - kRadius, 1e-4);
    // The big sphere's point nearest the camera's plane, seen off the axis: x = 3 at depth 18.
    const float px = float(kSize / 2.0 + 3.0 / 18.0 * pixels_per_tangent());
    const std::optional<float> off = focus_at(cs, s.camera, kSize, kSize, px, kSize / 2.0f);
    ASSERT_TRUE(off);
    EXPECT_NEAR(*off, 18.0, 1e-3);
    EXPECT_FALSE(focus_at(cs, s.camera, kSize, kSize, 1.0f, 1.0f));
}
