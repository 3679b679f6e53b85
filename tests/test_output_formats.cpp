// Output formats (core/image_formats.h): EXR and PFM hold the linear radiance the renderer
// computed, read back by readers that are not ours (OpenEXR's InputFile, exrheader) and a
// small PFM reader of the tests' own; an extension we do not write is exit 2 with the
// list of formats, and nothing is written; exposure changes PNG output only.
#include "core/image.h"
#include "core/image_formats.h"
#include "render/executor.h"
#include "render/scene_gpu.h"
#include "scene/scene.h"
#include "support/process.h"

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfInputFile.h>
#include <Imath/half.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <sstream>

using namespace srt;
using namespace srt::test;

namespace {

const std::string kBinary = SRT_BINARY;

// What `render -W 96 -H 64 --depth 6 [--spp 3]` computes on the CPU, in process.
LinearImage reference_linear(int spp = 1, Image* png = nullptr, float exposure = 0.0f) {
    const Scene s = builtin_default_scene();
    const CompiledScene cs = compile_scene(s);
    auto ex = make_cpu_executor(2);
    ex->set_scene(cs);
    RenderSettings rs;
    rs.width = 96;
    rs.height = 64;
    rs.depth = 6;
    rs.spp = spp;
    rs.exposure = exposure;
    Image img;
    ex->render(s.camera, rs, img);
    if (png) *png = img;
    LinearImage lin;
    ex->read_linear(lin);
    return lin;
}

// OpenEXR's own reader, every channel the file has, as float.
struct ExrData {
    int width = 0, height = 0;
    std::vector<std::string> channels;
    std::vector<Imf::PixelType> types;
    std::vector<std::vector<float>> planes;
};
ExrData read_exr(const std::string& path) {
    Imf::InputFile file(path.c_str());
    const Imath::Box2i dw = file.header().dataWindow();
    ExrData d;
    d.width = dw.max.x - dw.min.x + 1;
    d.height = dw.max.y - dw.min.y + 1;
    Imf::FrameBuffer fb;
    for (auto it = file.header().channels().begin(); it != file.header().channels().end(); ++it) {
        d.channels.push_back(it.name());
        d.types.push_back(it.channel().type);
    }
    d.planes.resize(d.channels.size(), std::vector<float>(size_t(d.width) * size_t(d.height)));
    for (size_t c = 0; c < d.channels.size(); ++c)
        fb.insert(d.channels[c], Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(d.planes[c].data()),
                                            sizeof(float), sizeof(float) * size_t(d.width)));
    file.setFrameBuffer(fb);
    file.readPixels(dw.min.y, dw.max.y);
    return d;
}
float exr_at(const ExrData& d, const char* ch, int x, int y) {
    for (size_t c = 0; c < d.channels.size(); ++c)
        if (d.channels[c] == ch) return d.planes[c][size_t(y) * size_t(d.width) + size_t(x)];
    ADD_FAILURE() << "no channel " << ch;
    return 0.0f;
}

// The tests' own PFM reader: header, scale sign = byte order, rows bottom-up.
LinearImage read_pfm(const std::string& bytes) {
    std::istringstream in(bytes);
    std::string magic;
    int w = 0, h = 0;
    double scale = 0;
    in >> magic >> w >> h >> scale;
    in.get();  // the single whitespace before the data
    EXPECT_EQ(magic, "PF");
    EXPECT_LT(scale, 0.0) << "little-endian";
    LinearImage img(w, h);
    const size_t offset = size_t(in.tellg());
    EXPECT_EQ(bytes.size(), offset + size_t(w) * size_t(h) * 12);
    for (int row = 0; row < h; ++row)
        for (int k = 0; k < w * 3; ++k) {
            const unsigned char* b = reinterpret_cast<const unsigned char*>(bytes.data()) + offset +
                                     (size_t(row) * size_t(w) * 3 + size_t(k)) * 4;
            const uint32_t u = uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
            float f;
            std::memcpy(&f, &u, 4);
            img.pixel(0, h - 1 - row)[k] = f;
        }
    return img;
}

std::vector<std::string> render_args(const std::string& out, std::vector<std::string> more = {}) {
    std::vector<std::string> a = {"render", "--backend", "cpu", "-W", "96", "-H", "64", "--depth", "6", "-o", out};
    a.insert(a.end(), more.begin(), more.end());
    return a;
}

TEST(OutputFormats, ExrFloatHoldsTheRadianceExactly) {
    TempDir dir;
    const Result r = run_binary(kBinary, dir, render_args(dir / "img.exr", {"--exr-pixel", "float", "--spp", "3"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const LinearImage ref = reference_linear(3);
    const ExrData d = read_exr(dir / "img.exr");
    ASSERT_EQ(d.width, 96);
    ASSERT_EQ(d.height, 64);
    ASSERT_EQ(d.channels, (std::vector<std::string>{"B", "G", "R"}));
    EXPECT_EQ(d.types[0], Imf::FLOAT);
    size_t over_one = 0;
    for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 96; ++x) {
            ASSERT_EQ(exr_at(d, "R", x, y), ref.pixel(x, y)[0]) << x << "," << y;
            ASSERT_EQ(exr_at(d, "G", x, y), ref.pixel(x, y)[1]) << x << "," << y;
            ASSERT_EQ(exr_at(d, "B", x, y), ref.pixel(x, y)[2]) << x << "," << y;
            over_one += ref.pixel(x, y)[0] > 1.0f || ref.pixel(x, y)[1] > 1.0f || ref.pixel(x, y)[2] > 1.0f;
        }
    std::printf("[ exr ] %zu of %d pixels above 1.0 (clipped in the PNG, kept here)\n", over_one, 96 * 64);
}

TEST(OutputFormats, ExrHalfRgbaIsTheRadianceRoundedToHalf) {
    TempDir dir;
    const Result r = run_binary(kBinary, dir, render_args(dir / "img.EXR", {"--exr-channels", "rgba", "--exposure", "2"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const LinearImage ref = reference_linear();  // exposure does not touch EXR
    const ExrData d = read_exr(dir / "img.EXR");
    ASSERT_EQ(d.channels, (std::vector<std::string>{"A", "B", "G", "R"}));
    EXPECT_EQ(d.types[0], Imf::HALF);
    for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 96; ++x) {
            const char* names[3] = {"R", "G", "B"};
            for (int c = 0; c < 3; ++c)
                ASSERT_EQ(exr_at(d, names[c], x, y), float(Imath::half(ref.pixel(x, y)[c]))) << x << "," << y;
            ASSERT_EQ(exr_at(d, "A", x, y), 1.0f);
        }
}

TEST(OutputFormats, ExrheaderReadsIt) {
    if (std::system("command -v exrheader >/dev/null 2>&1") != 0) GTEST_SKIP() << "exrheader (Debian openexr) not installed";
    TempDir dir;
    ASSERT_EQ(run_binary(kBinary, dir, render_args(dir / "img.exr")).exit_code, 0);
    const std::string log = dir / "header.txt";
    ASSERT_EQ(std::system(("exrheader '" + (dir / "img.exr") + "' > '" + log + "' 2>&1").c_str()), 0);
    const std::string text = slurp(log);
    EXPECT_NE(text.find("R, 16-bit floating-point"), std::string::npos) << text;
    EXPECT_NE(text.find("dataWindow (type box2i): (0 0) - (95 63)"), std::string::npos) << text;
    EXPECT_NE(text.find("compression (type compression): zip"), std::string::npos) << text;
}

TEST(OutputFormats, PfmHoldsTheRadianceExactly) {
    TempDir dir;
    const Result r = run_binary(kBinary, dir, render_args(dir / "img.pfm"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const LinearImage got = read_pfm(slurp(dir / "img.pfm"));
    const LinearImage ref = reference_linear();
    ASSERT_EQ(got.width, 96);
    ASSERT_EQ(got.height, 64);
    EXPECT_EQ(got.rgb, ref.rgb);
}

TEST(OutputFormats, ExposureScalesThePngOnly) {
    TempDir dir;
    ASSERT_EQ(run_binary(kBinary, dir, render_args(dir / "a.png", {"--exposure", "1"})).exit_code, 0);
    Image ref_png;
    reference_linear(1, &ref_png, 1.0f);
    const Image got = read_png(dir / "a.png");
    ASSERT_EQ(got.width, ref_png.width);
    EXPECT_EQ(got.rgba, ref_png.rgba);
    Image plain;
    reference_linear(1, &plain, 0.0f);
    EXPECT_NE(got.rgba, plain.rgba);
}

TEST(OutputFormats, UnknownExtensionIsExit2AndWritesNothing) {
    for (const char* name : {"img.jpg", "img.tiff", "img.exr.bak", "img.PNG.txt"}) {
        TempDir dir;
        const Result r = run_binary(kBinary, dir, render_args(dir / name));
        EXPECT_EQ(r.exit_code, 2) << name;
        EXPECT_NE(r.err.find("is not a format stencilrt writes (it writes .png, .exr, .pfm)"), std::string::npos)
            << name << ": " << r.err;
        EXPECT_TRUE(dir.entries().empty()) << name;
    }
}

TEST(OutputFormats, EncodersAgreeWithTheWriters) {
    const LinearImage lin = reference_linear();
    EXPECT_EQ(image_format_for("a.Pfm"), ImageFormat::Pfm);
    EXPECT_EQ(image_format_for("-"), ImageFormat::Png);
    const std::string pfm = encode_pfm(lin);
    EXPECT_EQ(read_pfm(pfm).rgb, lin.rgb);
    EXPECT_EQ(pfm.substr(0, 13), "PF\n96 64\n-1.0");
}

}  // namespace
