// double_reference.h - an independent oracle: the scene model (scene/scene.h) traced by
// brute force in double precision, sharing no code with the renderer's stages, BVH or
// hit points.
//
// Every ray tests every primitive. There is no epsilon and no offset: a ray leaving a
// surface skips what cannot be hit again exactly. A plane or a triangle is never hit
// again by a ray that leaves it; a sphere is hit again only by a ray that leaves it
// inwards (from inside, or along its surface's inner side), and then only at the far
// root of its quadratic, which is known in closed form (t = -2 (p - c).d with |d| = 1).
// Triangles use a watertight test (Woop, Benthin and Wald 2013) in double. The shading
// follows scene.h: ambient, Lambert with one hard shadow ray per light, mirrors, the
// background on a miss, black beyond the depth; a checker plane's squares are laid out
// on the same axes as the renderer's (u = unit(n x h), h = +z unless n is near it).
// Output: 8-bit sRGB by the formula, rounded, for a comparison at 1/255.
#pragma once

#include "core/image.h"
#include "scene/scene.h"

namespace srt {

// Pixel centres, one sample a pixel, `depth` levels (the primary ray is level 1).
Image render_double_reference(const Scene& s, int width, int height, int depth);

}  // namespace srt
