// mip_chain.h - an image's mip chain, for trilinear texture sampling (accel/texture.h).
//
// Level k + 1 is level k halved in each direction, rounded down and never below 1, down
// to 1x1. Each texel of a level is the box average, in linear light, of the part of the
// level-0 image it covers: a level is filtered from the one before in double, kept
// unrounded between levels, and only its stored copy is rounded to 8-bit sRGB (the colour
// channels) or to 8 bits (alpha, and every channel of a data image, which is linear). Odd
// sizes are covered whole: a texel of a 5-wide level over 2 averages 2.5 texels of it,
// with the middle one split between the two.
#pragma once

#include "scene/scene.h"

#include <cstdint>
#include <vector>

namespace srt {

struct MipLevel {
    uint32_t width = 0, height = 0;
    std::vector<uint32_t> texels;  // as TextureImage's: RGBA8, sRGB colour, linear alpha
};

// Levels 1 .. n of `img` (level 0 is the image itself), the last 1x1; empty for a 1x1
// image.
std::vector<MipLevel> build_mip_chain(const TextureImage& img);

}  // namespace srt
