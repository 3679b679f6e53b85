// texture_reference.h - the texture tests' reference, written from the definition in
// double (texel centres at half-integers, the four texels blended in linear light, the
// wrap modes), sharing no code with accel/texture.h; and the test data it reads.
#pragma once

#include "scene/scene.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <stdlib.h>

namespace srt::texref {

inline const std::string kTex = std::string(SRT_TEST_DATA) + "/textures/";

inline double srgb_to_linear(int b) {
    const double c = b / 255.0;
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

// Texel index i of an axis of n texels under `wrap`.
inline int wrap_ref(long i, int n, Wrap w) {
    if (w == Wrap::Clamp) return int(std::min<long>(std::max<long>(i, 0), n - 1));
    if (w == Wrap::Repeat) return int(((i % n) + n) % n);
    const long m = ((i % (2 * n)) + 2 * n) % (2 * n);  // mirrored: 0..n-1, then n-1..0
    return int(m < n ? m : 2 * n - 1 - m);
}

struct RefSample {
    double rgb[3];
    double alpha;
};
inline RefSample sample_ref(const TextureImage& img, Wrap wu, Wrap wv, double u, double v) {
    const double x = u * img.width - 0.5, y = v * img.height - 0.5;
    const double x0 = std::floor(x), y0 = std::floor(y), fx = x - x0, fy = y - y0;
    RefSample r{{0, 0, 0}, 0};
    for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx) {
            const double w = (dx ? fx : 1 - fx) * (dy ? fy : 1 - fy);
            const uint32_t t = img.texels[size_t(wrap_ref(long(y0) + dy, img.height, wv)) * size_t(img.width) +
                                          size_t(wrap_ref(long(x0) + dx, img.width, wu))];
            for (int c = 0; c < 3; ++c) r.rgb[c] += w * srgb_to_linear(int((t >> (8 * c)) & 255));
            r.alpha += w * double(t >> 24) / 255.0;
        }
    return r;
}

inline int srgb8_ref(double linear) {
    const double c = linear <= 0.0031308 ? 12.92 * linear : 1.055 * std::pow(linear, 1.0 / 2.4) - 0.055;
    return int(std::lround(std::clamp(c, 0.0, 1.0) * 255.0));
}


// A private folder holding a copy of grid.png, for glTF and OBJ files a test writes
// (ctest runs tests in parallel processes: a shared folder would race).
struct GridDir {
    std::string path;
    GridDir() {
        char tmpl[] = "/tmp/srt-textures-XXXXXX";
        path = mkdtemp(tmpl) ? tmpl : "";
        std::filesystem::copy_file(kTex + "grid.png", path + "/grid.png");
    }
    ~GridDir() { std::filesystem::remove_all(path); }
};

inline std::string read_text(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
}


}  // namespace srt::texref
