// image_formats.h - the image files stencilrt writes, chosen by the output's extension.
//
//   .png  8-bit sRGB RGB (the default), after exposure: write_png_atomic
//   .exr  OpenEXR, linear radiance (no exposure), half or float, RGB or RGBA
//   .pfm  Portable Float Map, linear radiance, 32-bit float RGB, bottom row first
//
// Every file goes through write_output_file (core/output_file.h): complete or not at all.
#pragma once

#include "core/image.h"

#include <string>

namespace srt {

enum class ImageFormat { Png, Exr, Pfm };

// The format `path` asks for by its extension (case-insensitive); "-" (standard output)
// and a name without one (-o /dev/null, a FIFO) are PNG. Any other extension throws
// InputError naming the formats written:
// `-o image.jpg: '.jpg' is not a format stencilrt writes (it writes .png, .exr, .pfm)`.
ImageFormat image_format_for(const std::string& path);
const char* extension_of(ImageFormat f);
bool is_linear(ImageFormat f);  // EXR and PFM hold linear radiance

struct ExrOptions {
    bool half = true;    // 16-bit half floats (else 32-bit float)
    bool alpha = false;  // RGBA with A = 1 (else RGB)
};

// The file's bytes (ZIP-compressed scanlines for EXR).
std::string encode_exr(const LinearImage& img, const ExrOptions& o);
std::string encode_pfm(const LinearImage& img);

// Writes `path` in `format`: PNG from `png`, EXR and PFM from `linear`.
void write_image(const std::string& path, ImageFormat format, const Image& png,
                 const LinearImage& linear, const ExrOptions& exr = {});

}  // namespace srt
