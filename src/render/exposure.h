// exposure.h - an exposure chosen from the image (`--exposure auto`, the viewer's 0 key),
// the 8-bit image at another exposure without rendering again, and the note a nearly
// black image gets.
#pragma once

#include "core/image.h"
#include "scene/scene.h"

#include <string>

namespace srt {

// Reinhard et al. 2002's key: the EV that brings the log-average luminance of the
// image's lit pixels (luminance > 0; a black background does not count) to 0.18, rounded
// to 1/100 EV (so the printed number renders the same image) and clamped to the flag's
// -30..30. An image with no lit pixel gets 0.
float auto_exposure(const LinearImage& linear);

// The 8-bit image that resolve encodes at exposure `ev` (the same product of the same
// linear values, the same sRGB table): the same bits as rendering with --exposure ev.
void encode_at_exposure(const LinearImage& linear, float ev, Image& out);

// The mean luminance of the image.
double mean_luminance(const LinearImage& linear);

// The brightest value a light of the scene carries: a point or directional light's
// colour, an emitter's emission, the background (luminance); 0 when nothing emits.
double brightest_light(const Scene& scene);

// A note when the image is black or nearly so (its mean luminance below 1/1000 of the
// scene's brightest light's value): what was measured, the likely reason (a physical point
// light far away, no lights, every light out of sight) and what to try, with the EV that
// --exposure auto would choose. Empty when the image is not dark.
std::string dark_image_note(const Scene& scene, const LinearImage& linear, float ev);

}  // namespace srt
