// radiance_image.h - high-dynamic-range images in linear RGB floats, read from the two
// formats HDRIs come in: OpenEXR (through Debian's libopenexr: RGB or RGBA, or luminance
// alone, half or float, scanline or tiled) and Radiance RGBE (`.hdr`, `.pic`: flat or
// run-length encoded scanlines, our own decoder, third_party/README.md says why). The
// format is known by the file's first bytes, not its name.
//
// Files are untrusted input: sizes are checked against the limits of core/image_decode.h
// and against the file's length before anything is allocated, and every failure is an
// InputError naming the file: "sky.hdr: scanline 12 runs past the end of the file".
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace srt {

struct RadianceImage {
    int width = 0, height = 0;
    std::vector<float> rgb;  // 3 floats a texel, row 0 at the top

    float at(int x, int y, int c) const { return rgb[(size_t(y) * size_t(width) + size_t(x)) * 3 + size_t(c)]; }
};

// Radiance RGBE from memory; `name` is how messages refer to it. A texel (r, g, b, e) is
// (r, g, b) x 2^(e - 136), and 0 where e is 0 (Ward's format, decoded as Walter's rgbe.c
// and OpenImageIO decode it, so an HDRI's values are Blender's). FORMAT=32-bit_rle_xyze
// and orientations other than -Y H +X W and +Y H +X W are refused; EXPOSURE lines are
// ignored, as Blender ignores them.
RadianceImage decode_rgbe(const unsigned char* data, size_t size, const std::string& name);

// An OpenEXR or RGBE file from disk (a regular file of at most 1 GiB). Non-finite or
// negative values are refused: an environment must be a radiance.
RadianceImage read_radiance_image(const std::string& path);

}  // namespace srt
