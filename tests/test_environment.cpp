// test_environment.cpp - the environment map (render/environment.h), against what it must
// be: its files decoded as Ward's RGBE defines them and as OpenEXR reads them, the same
// image from either; its directions as the documented convention computes them in double;
// its sampling against its own density (chi-square); and the path integrator under it
// against closed forms: the white furnace, and one bright texel lighting a plane, each with
// all three estimators of direct light, and MIS against each estimator alone.
#include "core/error.h"
#include "core/image_formats.h"
#include "core/radiance_image.h"
#include "render/environment.h"
#include "render/executor.h"
#include "render/scene_gpu.h"
#include "render/stages.h"
#include "scene/scene.h"
#include "support/path_reference.h"
#include "support/chi_square.h"
#include "support/env_scenes.h"
#include "support/path_stats.h"
#include "support/settings.h"

#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfRgbaFile.h>
#include <OpenEXR/ImfTiledRgbaFile.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace srt;
using namespace srt::test;

constexpr double kPiD = 3.14159265358979323846;

// ---------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------

std::vector<unsigned char> bytes_of(const std::string& s) { return std::vector<unsigned char>(s.begin(), s.end()); }

std::string rgbe_header(int w, int h, const char* y = "-Y") {
    return "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\nEXPOSURE=2.0\n\n" + std::string(y) + " " + std::to_string(h) +
           " +X " + std::to_string(w) + "\n";
}

// Texel (x, y)'s RGBE bytes: distinct in every channel, exponents from 120 to 140 (and
// one texel of exponent 0, which is black whatever its mantissas).
std::array<unsigned char, 4> texel_bytes(int x, int y) {
    if (x == 1 && y == 0) return {200, 100, 50, 0};
    return {(unsigned char)(17 * x + 3 * y + 1), (unsigned char)(255 - 11 * x), (unsigned char)(40 + 7 * y),
            (unsigned char)(120 + (x + 2 * y) % 21)};
}

float texel_value(int x, int y, int c) {
    const auto t = texel_bytes(x, y);
    return t[3] == 0 ? 0.0f : float(t[size_t(c)]) * std::ldexp(1.0f, int(t[3]) - 136);
}

// A w x h file, flat or run-length encoded (each channel of a scanline as one run of its
// first value where the whole line holds it, else as literal pieces of at most 128).
std::string rgbe_file(int w, int h, bool rle, const char* y = "-Y") {
    std::string s = rgbe_header(w, h, y);
    for (int row = 0; row < h; ++row) {
        const int image_row = std::string(y) == "-Y" ? row : h - 1 - row;
        if (!rle) {
            for (int x = 0; x < w; ++x)
                for (unsigned char b : texel_bytes(x, image_row)) s += char(b);
            continue;
        }
        s += char(2);
        s += char(2);
        s += char(w >> 8);
        s += char(w & 255);
        for (int c = 0; c < 4; ++c) {
            for (int x = 0; x < w;) {
                int n = 1;  // a run where the next texels repeat this one
                while (x + n < w && n < 127 && texel_bytes(x + n, image_row)[size_t(c)] == texel_bytes(x, image_row)[size_t(c)]) ++n;
                if (n >= 3) {
                    s += char(128 + n);
                    s += char(texel_bytes(x, image_row)[size_t(c)]);
                    x += n;
                    continue;
                }
                n = std::min(w - x, 128);
                s += char(n);
                for (int k = 0; k < n; ++k) s += char(texel_bytes(x + k, image_row)[size_t(c)]);
                x += n;
            }
        }
    }
    return s;
}

void expect_decoded(const RadianceImage& img, int w, int h, const std::string& what) {
    ASSERT_EQ(img.width, w) << what;
    ASSERT_EQ(img.height, h) << what;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c)
                ASSERT_EQ(img.at(x, y, c), texel_value(x, y, c)) << what << " texel " << x << "," << y << " channel " << c;
}

TEST(EnvironmentFile, RgbeDecodesFlatRunLengthAndBottomUpScanlines) {
    for (const auto& [w, h] : {std::pair<int, int>{3, 2}, {12, 3}, {40, 5}}) {
        for (bool rle : {false, true}) {
            if (rle && w < 8) continue;  // the run-length code needs lines of 8 to 32767
            const auto b = bytes_of(rgbe_file(w, h, rle));
            expect_decoded(decode_rgbe(b.data(), b.size(), "t.hdr"), w, h, rle ? "rle" : "flat");
        }
        const auto up = bytes_of(rgbe_file(w, h, false, "+Y"));
        expect_decoded(decode_rgbe(up.data(), up.size(), "t.hdr"), w, h, "+Y");
    }
    // The old run-length code: (1, 1, 1, n) repeats the texel before it n times, and a
    // second such texel in a row shifts its count by 8 bits.
    std::string s = rgbe_header(300, 1);
    for (unsigned char b : {10, 20, 30, 130, 1, 1, 1, 43, 1, 1, 1, 1}) s += char(b);
    const auto b = bytes_of(s);
    const RadianceImage img = decode_rgbe(b.data(), b.size(), "old.hdr");
    ASSERT_EQ(img.rgb.size(), 900u);
    for (int x = 0; x < 300; ++x) ASSERT_EQ(img.at(x, 0, 2), 30.0f * std::ldexp(1.0f, -6)) << x;
}

TEST(EnvironmentFile, BadRgbeFilesSayWhatIsWrong) {
    const std::string good = rgbe_file(12, 2, true);
    const struct {
        std::string bytes, message;
    } cases[] = {
        {"P6\n1 1\n255\n", "bad.hdr: not a Radiance RGBE file (it must begin with #?)"},
        {"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n", "bad.hdr: the header has no end (an empty line)"},
        {"#?RADIANCE\nFORMAT=32-bit_rle_xyze\n\n-Y 1 +X 1\n", "bad.hdr: 'FORMAT=32-bit_rle_xyze': only FORMAT=32-bit_rle_rgbe is read"},
        {"#?RADIANCE\n\n+X 1 -Y 1\n", "bad.hdr: resolution line '+X 1 -Y 1': stencilrt reads -Y H +X W and +Y H +X W"},
        {"#?RADIANCE\n\n-Y 0 +X 1\n", "bad.hdr: resolution line '-Y 0 +X 1': the sides must be positive"},
        {"#?RADIANCE\n\n-Y 100000 +X 4\n", "bad.hdr: 4x100000 texels: each side must be 1 to 16384"},
        {"#?RADIANCE\n\n-Y 16000 +X 16000\n", "bad.hdr: 16000x16000 texels cannot come from a file of 1 bytes"},
        {good.substr(0, good.size() - 5), "bad.hdr: scanline 1 runs past the end of the file"},
        {rgbe_header(12, 1) + std::string("\x02\x02\x00\x0d", 4), "bad.hdr: scanline 0: its run-length header gives width 13, not 12"},
        {rgbe_header(12, 1) + std::string("\x02\x02\x00\x0c\x8d\x01", 6), "bad.hdr: scanline 0: a run passes the end of the line"},
        {rgbe_header(12, 1) + std::string("\x02\x02\x00\x0c\x00", 5), "bad.hdr: scanline 0: a bad count of 0"},
        {rgbe_header(4, 1) + std::string("\x01\x01\x01\x02", 4), "bad.hdr: scanline 0: a repeat with no texel before it"},
        {rgbe_header(4, 1) + std::string("\x05\x05\x05\x85\x01\x01\x01\x09", 8), "bad.hdr: scanline 0: a repeat passes the end of the line"},
    };
    for (const auto& c : cases) {
        const auto b = bytes_of(c.bytes);
        try {
            decode_rgbe(b.data(), b.size(), "bad.hdr");
            ADD_FAILURE() << "decoded: " << c.message;
        } catch (const InputError& e) {
            EXPECT_EQ(std::string(e.what()), c.message);
        }
    }
}

struct TempDir {
    std::filesystem::path path;
    TempDir() {
        path = std::filesystem::temp_directory_path() / ("srt_env_" + std::to_string(::getpid()) + "_" +
                                                          ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(path);
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    std::string file(const std::string& name, const std::string& bytes) const {
        const std::string p = (path / name).string();
        std::ofstream(p, std::ios::binary) << bytes;
        return p;
    }
};

// The same texels as RGBE and as OpenEXR (32-bit float, which holds every RGBE value
// exactly): the same image in, and the same rendered bits out.
TEST(EnvironmentFile, HdrAndExrOfOneMapRenderTheSameImage) {
    TempDir dir;
    const std::string hdr = dir.file("map.hdr", rgbe_file(24, 12, true));
    const RadianceImage a = read_radiance_image(hdr);
    LinearImage lin;
    lin.width = a.width;
    lin.height = a.height;
    lin.rgb = a.rgb;
    ExrOptions o;
    o.half = false;
    const std::string exr = dir.file("map.exr", encode_exr(lin, o));
    const RadianceImage b = read_radiance_image(exr);
    ASSERT_EQ(b.width, a.width);
    ASSERT_EQ(b.height, a.height);
    EXPECT_EQ(b.rgb, a.rgb);

    auto render = [](const std::string& file) {
        Scene s;
        s.name = "env";
        s.add_material(Material{});
        Sphere sp;
        sp.centre = Point3(0.0, 0.0, -3.0);
        sp.radius = 1.0;
        s.spheres.push_back(sp);
        s.camera.from = Point3(0.0);
        s.camera.at = Point3(0.0, 0.0, -1.0);
        s.camera.fov_deg = 60.0f;
        s.environment = environment_from_file(file, 1.5f, 20.0f);
        auto ex = make_cpu_executor(2);
        const CompiledScene cs = compile_scene(s);
        ex->set_scene(cs);
        Image img;
        ex->render(s.camera, test::Frame(24, 16, 4).spp(2).path(), img);
        LinearImage out;
        ex->read_linear(out);
        return out.rgb;
    };
    const std::vector<float> from_hdr = render(hdr), from_exr = render(exr);
    EXPECT_EQ(from_hdr, from_exr);
    double sum = 0.0;
    for (float v : from_hdr) sum += v;
    EXPECT_GT(sum, 0.0) << "the map lit nothing";
}

// What OpenEXR writes besides our own files: RGBA in half floats, tiled, with a data
// window that does not start at 0, and luminance alone (Y): each read as its texels.
TEST(EnvironmentFile, ExrTiledHalfRgbaAndLuminanceFiles) {
    TempDir dir;
    const int w = 13, h = 7;
    const Imath::Box2i window(Imath::V2i(3, -2), Imath::V2i(3 + w - 1, -2 + h - 1));
    std::vector<Imf::Rgba> px(size_t(w * h));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) px[size_t(y * w + x)] = Imf::Rgba(half(0.5f * x), half(0.25f * y), half(x + y + 100.0f), half(1.0f));
    const std::string tiled = (dir.path / "tiled.exr").string();
    {
        Imf::TiledRgbaOutputFile out(tiled.c_str(), Imf::Header(window, window), Imf::WRITE_RGBA, 4, 4, Imf::ONE_LEVEL);
        out.setFrameBuffer(px.data() - window.min.x - window.min.y * w, 1, size_t(w));
        out.writeTiles(0, out.numXTiles() - 1, 0, out.numYTiles() - 1);
    }
    const RadianceImage a = read_radiance_image(tiled);
    ASSERT_EQ(a.width, w);
    ASSERT_EQ(a.height, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const Imf::Rgba& p = px[size_t(y * w + x)];
            EXPECT_EQ(a.at(x, y, 0), float(p.r));
            EXPECT_EQ(a.at(x, y, 1), float(p.g));
            EXPECT_EQ(a.at(x, y, 2), float(p.b));
        }
    const std::string grey = (dir.path / "grey.exr").string();
    {
        Imf::RgbaOutputFile out(grey.c_str(), Imf::Header(w, h), Imf::WRITE_Y);
        out.setFrameBuffer(px.data(), 1, size_t(w));
        out.writePixels(h);
    }
    const RadianceImage g = read_radiance_image(grey);
    ASSERT_EQ(g.width, w);
    for (int c = 0; c < 3; ++c) EXPECT_EQ(g.at(5, 3, c), g.at(5, 3, 0));
    // OpenEXR's luminance of (2.5, 0.75, 108) under Rec. 709 primaries, in half.
    EXPECT_NEAR(g.at(5, 3, 0), 0.2126 * 2.5 + 0.7152 * 0.75 + 0.0722 * 108.0, 0.01);
}

TEST(EnvironmentFile, UnreadableFilesSayWhy) {
    TempDir dir;
    const std::string txt = dir.file("notes.txt", "hello");
    const std::string nan_exr = [&] {
        LinearImage lin;
        lin.width = 2;
        lin.height = 1;
        lin.rgb = {1.0f, 2.0f, 3.0f, -1.0f, 0.0f, 0.0f};
        ExrOptions o;
        o.half = false;
        return dir.file("negative.exr", encode_exr(lin, o));
    }();
    const struct {
        std::string path, message;
    } cases[] = {
        {(dir.path / "none.hdr").string(), (dir.path / "none.hdr").string() + ": cannot open image file: No such file or directory"},
        {dir.path.string(), dir.path.string() + ": not a regular file"},
        {txt, txt + ": neither an OpenEXR file nor a Radiance RGBE (.hdr) file"},
        {nan_exr, nan_exr + ": texel (1, 0) holds -1: a radiance must be finite and not negative"},
    };
    for (const auto& c : cases) {
        try {
            read_radiance_image(c.path);
            ADD_FAILURE() << "read " << c.path;
        } catch (const InputError& e) {
            EXPECT_EQ(std::string(e.what()), c.message);
        }
    }
}

// ---------------------------------------------------------------------------
// The convention, computed again in double from its definition
// ---------------------------------------------------------------------------

// A map whose red holds the column and green the row, so any turn or flip shows.
std::shared_ptr<RadianceImage> coordinate_map(int w, int h) {
    auto img = std::make_shared<RadianceImage>();
    img->width = w;
    img->height = h;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            img->rgb.push_back(float(x + 1));
            img->rgb.push_back(float(10 * (y + 1)));
            img->rgb.push_back(1.0f);
        }
    return img;
}

// The radiance along world direction d as environment.h defines it, in double.
glm::dvec3 expected_radiance(const RadianceImage& img, double intensity, double rotation_deg, glm::dvec3 d) {
    d = glm::normalize(d);
    const double a = rotation_deg * kPiD / 180.0;
    const glm::dvec3 l(d.x * std::cos(a) - d.z * std::sin(a), d.y, d.x * std::sin(a) + d.z * std::cos(a));
    const double u = 0.5 + std::atan2(l.z, l.x) / (2.0 * kPiD), v = std::acos(std::clamp(l.y, -1.0, 1.0)) / kPiD;
    const double x = u * img.width - 0.5, y = v * img.height - 0.5;
    const double x0 = std::floor(x), y0 = std::floor(y);
    const auto texel = [&](double i, double j) {
        const int ii = int(((long long)(i) % img.width + img.width) % img.width);
        const int jj = std::clamp(int(j), 0, img.height - 1);
        return glm::dvec3(img.at(ii, jj, 0), img.at(ii, jj, 1), img.at(ii, jj, 2));
    };
    const double fx = x - x0, fy = y - y0;
    const glm::dvec3 top = texel(x0, y0) * (1.0 - fx) + texel(x0 + 1, y0) * fx;
    const glm::dvec3 bottom = texel(x0, y0 + 1) * (1.0 - fx) + texel(x0 + 1, y0 + 1) * fx;
    return intensity * (top * (1.0 - fy) + bottom * fy);
}

// The centre column looks along +X, a quarter turn on along +Z; the top row is +Y.
TEST(Environment, DirectionsFollowTheDocumentedConvention) {
    const auto img = coordinate_map(8, 4);
    for (float rotation : {0.0f, 90.0f, -37.5f}) {
        Scene s = env_scene(img, 2.0f, rotation);
        Sphere sp;  // somewhere: a scene needs a primitive; not in any direction tested
        sp.centre = Point3(0.0, -100.0, 0.0);
        s.spheres.push_back(sp);
        const CompiledScene cs = compile_scene(s);
        const SceneView v = cs.view();
        std::mt19937 rng(3);
        std::normal_distribution<double> g;
        std::vector<glm::dvec3> dirs = {{1, 0, 0}, {0, 0, 1}, {-1, 0, 0}, {0, 0, -1}, {0, 1, 0}, {0, -1, 0}, {1, 1, 1}};
        for (int k = 0; k < 2000; ++k) dirs.push_back({g(rng), g(rng), g(rng)});
        double worst = 0.0;
        for (const glm::dvec3& d : dirs) {
            const glm::dvec3 want = expected_radiance(*img, 2.0, rotation, d);
            const glm::dvec3 got(env_radiance(v.env, glm::vec3(glm::normalize(d))));
            worst = std::max(worst, glm::length(got - want) / glm::length(want));
        }
        EXPECT_LT(worst, 2e-4) << "rotation " << rotation;
    }
    // The plain convention, spelled out: +X sees the centre columns (4 and 5 of 8, at
    // the horizon: rows 2 and 3 of 4), +Z three quarters across (columns 6 and 7).
    const CompiledScene cs = compile_scene([&] {
        Scene s = env_scene(img);
        Sphere sp;
        sp.centre = Point3(0.0, -100.0, 0.0);
        s.spheres.push_back(sp);
        return s;
    }());
    const glm::vec3 px = env_radiance(cs.view().env, glm::vec3(1, 0, 0)), pz = env_radiance(cs.view().env, glm::vec3(0, 0, 1));
    EXPECT_NEAR(px.x, 4.5f, 1e-5f);  // (4 + 5) / 2: the red of columns 3 and 4 (0-based) is 4 and 5
    EXPECT_NEAR(px.y, 25.0f, 1e-4f);
    EXPECT_NEAR(pz.x, 6.5f, 1e-5f);
    EXPECT_NEAR(env_radiance(cs.view().env, glm::vec3(0, 1, 0)).y, 10.0f, 1e-4f);  // the top row
}

// Whitted's camera rays that leave the scene see the map, through the whole frame.
TEST(Environment, WhittedCameraRaysSeeTheMap) {
    const auto img = coordinate_map(16, 8);
    Scene s = env_scene(img, 1.0f, 30.0f);
    Sphere sp;
    sp.centre = Point3(0.0, -100.0, 0.0);
    s.spheres.push_back(sp);
    s.camera.from = Point3(1.0, 2.0, 3.0);
    s.camera.at = Point3(2.0, 2.5, 3.5);
    s.camera.fov_deg = 90.0f;
    const int w = 32, h = 20;
    auto ex = make_cpu_executor(2);
    const CompiledScene cs = compile_scene(s);
    ex->set_scene(cs);
    Image out;
    ex->render(s.camera, test::Frame(w, h, 3), out);
    LinearImage lin;
    ex->read_linear(lin);
    const glm::dvec3 fwd = glm::normalize(glm::dvec3(s.camera.at - s.camera.from));
    const glm::dvec3 right = glm::normalize(glm::cross(fwd, glm::dvec3(s.camera.up)));
    const glm::dvec3 up = glm::cross(right, fwd);
    const double t = std::tan(45.0 * kPiD / 180.0), th = t * h / w;
    double worst = 0.0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double sx = (x + 0.5) * 2.0 / w - 1.0, sy = 1.0 - (y + 0.5) * 2.0 / h;
            const glm::dvec3 want = expected_radiance(*img, 1.0, 30.0, fwd + sx * t * right + sy * th * up);
            const size_t p = size_t(y * w + x) * 3;
            const glm::dvec3 got(lin.rgb[p], lin.rgb[p + 1], lin.rgb[p + 2]);
            worst = std::max(worst, glm::length(got - want) / glm::length(want));
        }
    EXPECT_LT(worst, 2e-4);
}

// ---------------------------------------------------------------------------
// Sampling
// ---------------------------------------------------------------------------

CompiledScene sky_scene_compiled(float rotation) {
    Scene s = env_scene(sky_map(16, 8), 1.0f, rotation);
    Sphere sp;
    sp.centre = Point3(0.0, -100.0, 0.0);
    s.spheres.push_back(sp);
    return compile_scene(s);
}

TEST(Environment, SamplingMatchesItsDensity) {
    for (float rotation : {0.0f, 30.0f}) {
        const CompiledScene cs = sky_scene_compiled(rotation);
        const EnvironmentView e = cs.view().env;
        ASSERT_NE(e.row_cdf, nullptr);
        // One sampler for both densities below: the map's own, and a wrong one.
        const auto sample = [&](float u1, float u2, float, glm::vec3& w) {
            const EnvSample es = sample_env(e, u1, u2);
            w = es.wi;
            return es.pdf > 0.0f;
        };
        const ChiSquare x = chi_square(
            400000, sample,
            [&](const glm::vec3& w) { return double(env_pdf(e, glm::normalize(w))); }, 11);
        EXPECT_LT(x.z, 4.0) << "rotation " << rotation << ": chi2 " << x.statistic << " over " << x.dof << " dof";
        // The density is honest to the same test: a pdf twice the sun's must fail it.
        const ChiSquare wrong = chi_square(
            400000, sample,
            [&](const glm::vec3& w) {
                const glm::vec3 d = glm::normalize(w);
                const float p = env_pdf(e, d);
                return double(luminance(env_radiance(e, d)) > 50.0f ? 2.0f * p : p);
            },
            11);
        EXPECT_GT(wrong.z, 10.0) << "rotation " << rotation;
        std::printf("[env chi2] rotation %g: z %.2f (chi2 %.1f over %d dof); the sun's pdf doubled: z %.1f\n",
                    double(rotation), x.z, x.statistic, x.dof, wrong.z);
        // A sample reports the density of its own direction.
        std::mt19937 rng(5);
        std::uniform_real_distribution<float> u(0.0f, 1.0f);
        int checked = 0;
        for (int k = 0; k < 20000; ++k) {
            const EnvSample es = sample_env(e, u(rng), u(rng));
            if (!(es.pdf > 0.0f)) continue;
            ++checked;
            EXPECT_NEAR(env_pdf(e, es.wi) / es.pdf, 1.0f, 2e-3f);
            const glm::vec3 l = env_radiance(e, es.wi);
            EXPECT_NEAR(glm::length(l - es.radiance), 0.0f, 1e-3f * (1.0f + glm::length(l)));
        }
        EXPECT_GT(checked, 19000);
    }
}

// ---------------------------------------------------------------------------
// The path integrator under a map, against closed forms
// ---------------------------------------------------------------------------

const char* strategy_name(PathStrategy s) {
    return s == PathStrategy::Mis ? "MIS" : s == PathStrategy::BsdfOnly ? "BSDF only" : "light only";
}

// A constant map of radiance c around a white (albedo 1) diffuse sphere: every pixel is c,
// the sphere's as much as the sky's, under every estimator.
TEST(Environment, WhiteFurnace) {
    auto img = std::make_shared<RadianceImage>();
    img->width = 8;
    img->height = 4;
    img->rgb.assign(8 * 4 * 3, 0.7f);
    Scene s = env_scene(img);
    Material white;
    white.colour = glm::vec3(1.0f);
    white.kd = 1.0f;
    Sphere sp;
    sp.centre = Point3(0.0, 0.0, -3.0);
    sp.radius = 1.0;
    sp.material = s.add_material(white);
    s.spheres.push_back(sp);
    s.camera.from = Point3(0.0);
    s.camera.at = Point3(0.0, 0.0, -1.0);
    s.camera.fov_deg = 45.0f;
    const CompiledScene cs = compile_scene(s);
    const int w = 8, h = 8;
    const double k = k_for(3 * 3 * 4, 0);
    for (PathStrategy strategy : {PathStrategy::Mis, PathStrategy::BsdfOnly, PathStrategy::LightOnly}) {
        const Stats st = render_stats(cs, w, h, 2048, 8, strategy);
        for (int ry = 0; ry < 2; ++ry)
            for (int rx = 0; rx < 2; ++rx) {
                glm::dvec3 m, v;
                region_stats(st, rx * 4, ry * 4, 4, m, v);
                for (int c = 0; c < 3; ++c) {
                    const double se = std::sqrt(v[c]);
                    if (se == 0.0) EXPECT_NEAR(m[c], 0.7, 1e-6) << strategy_name(strategy);
                    else EXPECT_LT(std::fabs(m[c] - 0.7) / se, k) << strategy_name(strategy) << " region " << rx << "," << ry
                                                                  << ": " << m[c] << " +- " << se;
                }
            }
    }
}

// A map black but for texel (i, j), of radiance L, lights an upward diffuse plane of albedo
// rho as the closed form of its bilinear spread does. The texel's radiance is a tent of
// half-width one texel in u and in v, L tent_u tent_v; the irradiance on a plane facing +Y is
//   E = L int tent_u du int tent_v cos(theta) sin(theta) dtheta dphi
//     = L 2 pi^2 (1/W) int tent_v(v) sin(2 pi v) / 2 dv,
// and a tent of half-width h about v_c weighs sin(2 pi v) by h sin(2 pi v_c) sinc^2(pi h):
//   E = L pi^2 (1/W) (1/H) sin(2 pi v_c) (sin(pi/H) / (pi/H))^2,  v_c = (j + 1/2) / H.
// The plane sends rho E / pi. Under every estimator; the same texel a row off must fail.
double one_texel_radiance(double L, double rho, int W, int H, int j) {
    const double h = 1.0 / H, vc = (j + 0.5) / H, sinc = std::sin(kPiD * h) / (kPiD * h);
    const double E = L * kPiD * kPiD * (1.0 / W) * h * std::sin(2.0 * kPiD * vc) * sinc * sinc;
    return rho * E / kPiD;
}

TEST(Environment, OneBrightTexelLightsAPlaneAsItsClosedForm) {
    const int W = 32, H = 16, ti = 5, tj = 4;
    const double L = 50.0, rho = 0.5;
    auto img = std::make_shared<RadianceImage>();
    img->width = W;
    img->height = H;
    img->rgb.assign(size_t(W * H * 3), 0.0f);
    for (int c = 0; c < 3; ++c) img->rgb[size_t((tj * W + ti) * 3 + c)] = float(L);
    Scene s = env_scene(img, 1.0f, 70.0f);  // the turn must not matter to a plane facing up
    Material grey;
    grey.colour = glm::vec3(float(rho));
    grey.kd = 1.0f;
    Plane p;
    p.point = Point3(0.0, 0.0, 0.0);
    p.normal = glm::vec3(0.0f, 1.0f, 0.0f);
    p.material = s.add_material(grey);
    s.planes.push_back(p);
    Sphere far;  // out of the way: a scene with no triangles or spheres has no BVH
    far.centre = Point3(0.0, -50.0, 0.0);
    s.spheres.push_back(far);
    s.camera.from = Point3(0.0, 5.0, 0.0);
    s.camera.at = Point3(0.0, 0.0, 0.0);
    s.camera.up = glm::vec3(0.0f, 0.0f, -1.0f);
    s.camera.fov_deg = 30.0f;
    const CompiledScene cs = compile_scene(s);
    const double want = one_texel_radiance(L, rho, W, H, tj);
    const double off = one_texel_radiance(L, rho, W, H, tj + 1);
    const double k = k_for(3 * 3, 0);
    for (PathStrategy strategy : {PathStrategy::Mis, PathStrategy::BsdfOnly, PathStrategy::LightOnly}) {
        const int spp = strategy == PathStrategy::BsdfOnly ? 16384 : 1024;
        const Stats st = render_stats(cs, 4, 4, spp, 1, strategy);
        glm::dvec3 m, v;
        region_stats(st, 0, 0, 4, m, v);
        for (int c = 0; c < 3; ++c) {
            const double se = std::sqrt(v[c]);
            EXPECT_LT(std::fabs(m[c] - want) / se, k) << strategy_name(strategy) << ": " << m[c] << " +- " << se
                                                      << ", closed form " << want;
            EXPECT_GT(std::fabs(m[c] - off) / se, k) << strategy_name(strategy) << ": a row off would pass";
            EXPECT_LT(se, 0.02 * want) << strategy_name(strategy) << ": too noisy to tell";
        }
        std::printf("[one texel] %s: %.5f +- %.5f, closed form %.5f (a row lower: %.5f)\n", strategy_name(strategy), m.x,
                    std::sqrt(v.x), want, off);
    }
}

// Multiple importance sampling against each estimator alone under the sky map with its
// sun: a diffuse sphere on a grey plane and a rough metal sphere; 16 regions x 3 channels x
// 2 comparisons. A 3% bias must fail the same comparison.
TEST(Environment, MisAgreesWithEachStrategyAlone) {
    Scene s = env_scene(sky_map(16, 8), 1.0f, 200.0f);
    Material grey, metal;
    grey.colour = glm::vec3(0.6f);
    grey.kd = 1.0f;
    metal.colour = glm::vec3(0.0f);
    metal.kd = 0.0f;
    metal.kr = glm::vec3(0.9f, 0.7f, 0.4f);
    metal.roughness = 0.3f;
    Plane p;
    p.normal = glm::vec3(0.0f, 1.0f, 0.0f);
    p.material = s.add_material(grey);
    s.planes.push_back(p);
    Sphere a, b;
    a.centre = Point3(-1.1, 1.0, 0.0);
    a.material = 1;
    b.centre = Point3(1.1, 1.0, 0.0);
    b.material = s.add_material(metal);
    s.spheres = {a, b};
    s.camera.from = Point3(0.0, 2.0, 6.0);
    s.camera.at = Point3(0.0, 0.8, 0.0);
    s.camera.fov_deg = 50.0f;
    const CompiledScene cs = compile_scene(s);
    const int w = 16, h = 16, depth = 4;
    const Stats mis = render_stats(cs, w, h, 2048, depth);
    const Stats bsdf = render_stats(cs, w, h, 8192, depth, PathStrategy::BsdfOnly);
    const Stats light = render_stats(cs, w, h, 4096, depth, PathStrategy::LightOnly);
    const double k = pathref::bonferroni_k(96, 1e-3);
    const double z_bsdf = worst_z(mis, bsdf), z_light = worst_z(mis, light);
    EXPECT_LT(z_bsdf, k) << "MIS against BSDF sampling alone";
    EXPECT_LT(z_light, k) << "MIS against light sampling alone";
    EXPECT_GT(worst_z(mis, light, 1.03), k) << "a 3% bias went unseen";
    EXPECT_GT(worst_z(mis, bsdf, 1.03), k) << "a 3% bias went unseen";
    std::printf("[env mis] worst z: MIS vs BSDF %.2f, MIS vs light %.2f (k = %.2f); 3%% biased: %.2f, %.2f\n", z_bsdf,
                z_light, k, worst_z(mis, bsdf, 1.03), worst_z(mis, light, 1.03));
}

// The environment map and the thin lens against the independent path tracer
// (tests/support/path_reference.h, written without sight of this code): a diffuse, a mirror
// and a glass sphere on a diffuse floor under the sky map with its sun, turned, seen
// through a lens focused on the middle sphere; 16 regions x 3 channels within error bars
// from both sides' own samples (ours from 32 replicates). Ours 3% brighter must fail.
TEST(Environment, SkyThroughALensAgreesWithTheIndependentPathTracer) {
    const auto sky = sky_map(16, 8);
    const float rotation = 30.0f, intensity = 0.8f;
    Scene s = env_scene(sky, intensity, rotation);
    Material clay, mirror, glass;
    clay.colour = glm::vec3(0.7f, 0.45f, 0.35f);
    clay.kd = 1.0f;
    mirror.colour = glm::vec3(0.0f);
    mirror.kd = 0.0f;
    mirror.kr = glm::vec3(0.9f);
    glass.colour = glm::vec3(1.0f);
    glass.kd = 0.0f;
    glass.ior = 1.5f;
    const uint32_t mc = s.add_material(clay), mm = s.add_material(mirror), mg = s.add_material(glass);
    Material floor = clay;
    floor.colour = glm::vec3(0.5f);
    const uint32_t mf = s.add_material(floor);
    const double e = 6.0;
    const Point3 q[4] = {{-e, 0.0, -e}, {-e, 0.0, e}, {e, 0.0, e}, {e, 0.0, -e}};
    Triangle t0, t1;
    t0.v0 = q[0], t0.v1 = q[1], t0.v2 = q[2], t0.material = mf;
    t1.v0 = q[0], t1.v1 = q[2], t1.v2 = q[3], t1.material = mf;
    s.triangles = {t0, t1};
    const struct {
        double x, z;
        uint32_t m;
    } balls[3] = {{-1.5, 0.3, mc}, {0.0, -0.4, mm}, {1.5, 0.3, mg}};
    for (const auto& b : balls) {
        Sphere sp;
        sp.centre = Point3(b.x, 0.7, b.z);
        sp.radius = 0.7;
        sp.material = b.m;
        s.spheres.push_back(sp);
    }
    s.camera.from = Point3(0.0, 1.5, 5.5);
    s.camera.at = Point3(0.0, 0.7, -0.4);
    s.camera.fov_deg = 50.0f;
    s.camera.aperture = 0.15f;
    const CompiledScene cs = compile_scene(s);
    const int w = 16, h = 16, depth = 8;

    pathref::Scene ref;
    pathref::Material pc, pm, pg, pf;
    pc.albedo = {0.7, 0.45, 0.35};
    pm.type = pathref::Material::Mirror;
    pm.mirror_reflectance = {0.9, 0.9, 0.9};
    pg.type = pathref::Material::Dielectric;
    pg.ior = 1.5;
    pf.albedo = {0.5, 0.5, 0.5};
    const int rc = ref.add_material(pc), rm = ref.add_material(pm), rg = ref.add_material(pg), rf = ref.add_material(pf);
    const auto v = [](const Point3& p) { return pathref::Vec3{p.x, p.y, p.z}; };
    ref.add_quad(v(q[0]), v(q[1]), v(q[2]), v(q[3]), rf);
    const int rmat[3] = {rc, rm, rg};
    for (int k = 0; k < 3; ++k) ref.add_sphere({balls[k].x, 0.7, balls[k].z}, 0.7, rmat[k]);
    ref.environment.width = sky->width;
    ref.environment.height = sky->height;
    for (size_t k = 0; k < sky->rgb.size(); k += 3) ref.environment.texels.push_back({sky->rgb[k], sky->rgb[k + 1], sky->rgb[k + 2]});
    ref.environment.intensity = intensity;
    ref.environment.rotation_deg = rotation;
    pathref::Camera cam;
    cam.from = v(s.camera.from);
    cam.at = v(s.camera.at);
    cam.hfov_deg = s.camera.fov_deg;
    cam.aperture = s.camera.aperture;
    cam.width = w;
    cam.height = h;
    pathref::RenderOptions o;
    o.spp = 16384;
    o.max_depth = depth;
    o.seed = 11;
    const pathref::Image theirs = pathref::render(ref, cam, o);

    const int reps = 32;
    const Stats ours = render_stats(cs, w, h, 8192, depth, PathStrategy::Mis, SamplerKind::Independent, reps);
    const double k = k_for(48, reps - 1);
    const WorstRegion worst = worst_z(ours, theirs), biased = worst_z(ours, theirs, 1.03);
    EXPECT_LT(worst.z, k) << "region " << worst.rx << "," << worst.ry << " channel " << worst.channel << ": ours "
                          << worst.ours << ", theirs " << worst.theirs;
    const double worst_biased = biased.z;
    EXPECT_GT(worst_biased, k) << "ours 3% brighter would pass";
    std::printf("[env pathref] worst |ours - theirs| / se over 48 region channels %.2f (k = %.2f); ours 3%% brighter: "
                "%.2f\n", worst.z, k, worst_biased);
}

}  // namespace
