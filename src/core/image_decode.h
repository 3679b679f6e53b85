// image_decode.h - image files (PNG, JPEG) decoded into 8-bit RGBA, for textures.
//
// Files are untrusted input: the header's size is checked before anything the size
// implies is allocated (decode_image), and every failure is an InputError naming the
// image: "wood.png: corrupt PNG: IDAT: invalid distance too far back".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace srt {

struct DecodedImage {
    int width = 0, height = 0;
    int channels = 0;             // in the file: 1 grey, 2 grey + alpha, 3 RGB, 4 RGBA
    std::vector<uint32_t> rgba;   // width * height texels, row 0 at the top, byte 0 = red
};

// The limits decode_image enforces, from the header, before decoding:
//   - each side at most kMaxImageSide texels;
//   - the decoded RGBA at most kMaxExpansion times the file's size plus kExpansionSlack:
//     compressed data cannot expand more (deflate inflates at most 1032:1 and a 1-bit
//     PNG then widens 32 times to RGBA; JPEG's minimum of about 1 bit per 8x8 block and
//     component is far below), so a header claiming more lies, and is refused without
//     allocating what it claims.
constexpr int kMaxImageSide = 16384;
constexpr uint64_t kMaxExpansion = 33024;  // 1032 * 32
constexpr uint64_t kExpansionSlack = uint64_t(1) << 20;

// Throws InputError(name, 0, what) on anything it cannot decode.
DecodedImage decode_image(const unsigned char* data, size_t size, const std::string& name);

// The same for a file on disk (a regular file of at most 1 GiB); `name` is how messages
// refer to it (usually the path).
DecodedImage decode_image_file(const std::string& path);

}  // namespace srt
