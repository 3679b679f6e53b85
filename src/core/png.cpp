// png.cpp - PNG in and out through stb (libstb-dev), with atomic replacement
// (core/output_file.h).
#include "core/image.h"

#include "core/output_file.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb_image.h>
#include <stb_image_write.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace srt {
namespace {

void append_bytes(void* ctx, void* data, int size) {
    auto* v = static_cast<std::vector<unsigned char>*>(ctx);
    const auto* p = static_cast<const unsigned char*>(data);
    v->insert(v->end(), p, p + size);
}

}  // namespace

void write_png_atomic(const std::string& path, const Image& img) {
    if (img.width <= 0 || img.height <= 0) throw std::runtime_error(path + ": empty image");
    // Encode fully in memory first: nothing touches the disk until the bytes exist.
    std::vector<unsigned char> rgb(size_t(img.width) * size_t(img.height) * 3);
    for (size_t p = 0, n = size_t(img.width) * size_t(img.height); p < n; ++p)
        std::memcpy(&rgb[p * 3], &img.rgba[p * 4], 3);
    std::vector<unsigned char> png;
    if (!stbi_write_png_to_func(append_bytes, &png, img.width, img.height, 3, rgb.data(),
                                img.width * 3))
        throw std::runtime_error(path + ": PNG encoding failed");

    write_output_file(path, std::string_view(reinterpret_cast<const char*>(png.data()), png.size()));
}

Image read_png(const std::string& path) {
    int w = 0, h = 0, n = 0;
    unsigned char* data = stbi_load(path.c_str(), &w, &h, &n, 4);
    if (!data) throw std::runtime_error(path + ": cannot read PNG: " + stbi_failure_reason());
    Image img(w, h);
    std::memcpy(img.rgba.data(), data, size_t(w) * size_t(h) * 4);
    stbi_image_free(data);
    return img;
}

ImageDiff compare_images(const Image& a, const Image& b, int tolerance) {
    ImageDiff d;
    if (a.width != b.width || a.height != b.height) {
        d.channels = 1;
        d.over_tolerance = 1;
        d.max_diff = 255;
        return d;
    }
    for (size_t p = 0, n = size_t(a.width) * size_t(a.height); p < n; ++p) {
        for (int c = 0; c < 3; ++c) {
            const int diff = std::abs(int(a.rgba[p * 4 + c]) - int(b.rgba[p * 4 + c]));
            d.channels++;
            d.exact_equal += diff == 0;
            d.over_tolerance += diff > tolerance;
            d.max_diff = std::max(d.max_diff, diff);
        }
    }
    return d;
}

}  // namespace srt
