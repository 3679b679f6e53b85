// image.h - 8-bit sRGB RGBA images and atomic PNG output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace srt {

// Row 0 is the top row. 4 bytes per pixel: sRGB-encoded R, G, B and A = 255.
struct Image {
    int width = 0;
    int height = 0;
    std::vector<uint8_t> rgba;

    Image() = default;
    Image(int w, int h) : width(w), height(h), rgba(size_t(w) * size_t(h) * 4, 0) {}
    uint8_t* pixel(int x, int y) { return &rgba[(size_t(y) * size_t(width) + size_t(x)) * 4]; }
    const uint8_t* pixel(int x, int y) const {
        return &rgba[(size_t(y) * size_t(width) + size_t(x)) * 4];
    }
};

// Linear radiance, 3 floats per pixel (R, G, B), row 0 the top row: what the renderer
// computed for each pixel before exposure and sRGB encoding (EXR and PFM output).
struct LinearImage {
    int width = 0;
    int height = 0;
    std::vector<float> rgb;

    LinearImage() = default;
    LinearImage(int w, int h) : width(w), height(h), rgb(size_t(w) * size_t(h) * 3, 0.0f) {}
    float* pixel(int x, int y) { return &rgb[(size_t(y) * size_t(width) + size_t(x)) * 3]; }
    const float* pixel(int x, int y) const { return &rgb[(size_t(y) * size_t(width) + size_t(x)) * 3]; }
};

// Writes `img` as an 8-bit RGB PNG: to a temporary file in the same directory, then
// renamed over `path`, so an existing file is only ever replaced by a complete one.
// Throws std::runtime_error (with the path and errno text) on failure; no partial
// file is left behind.
void write_png_atomic(const std::string& path, const Image& img);

// Reads a PNG (any bit depth) as 8-bit RGBA (core/image_decode.h). Throws on failure.
Image read_png(const std::string& path);

// Comparison used by tests: fraction of channel values (R, G, B) that differ by more
// than `tolerance` (0..255), and the largest difference.
struct ImageDiff {
    size_t channels = 0;
    size_t over_tolerance = 0;
    size_t exact_equal = 0;
    int max_diff = 0;
    double fraction_within() const {
        return channels ? 1.0 - double(over_tolerance) / double(channels) : 0.0;
    }
};
ImageDiff compare_images(const Image& a, const Image& b, int tolerance);

}  // namespace srt
