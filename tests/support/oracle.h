// oracle.h - helpers for the image oracle tests: render with POV-Ray, render with our
// CPU executor, compare, and keep the evidence when they disagree.
#pragma once

#include "core/image.h"
#include "render/settings.h"
#include "scene/scene.h"

#include <string>

namespace srt {

// True when a `povray` binary is on PATH (the Debian package installs /usr/bin/povray).
bool have_povray();

// Writes to_pov(s, ...) into a fresh directory under /tmp, runs
//   povray -D -A +W.. +H.. +FN +Iscene.pov +Oout.png File_Gamma=sRGB
// there with its chatter sent to a log, and reads the PNG back. Throws
// std::runtime_error (with the tail of the log) when POV-Ray fails. The directory is
// removed afterwards unless `keep_pov` names a path to copy the .pov file to.
Image render_povray(const Scene& s, int width, int height, int depth,
                    const std::string& keep_pov = "");

// Settings for a width x height frame at `depth`, one sample, the rest as RenderSettings has them.
inline RenderSettings frame_settings(int width, int height, int depth = 1) {
    RenderSettings rs;
    rs.width = width;
    rs.height = height;
    rs.depth = depth;
    return rs;
}

// Our CPU wavefront executor on `s` (compile_scene + set_scene + render). With `stats`,
// the live rays and warps per bounce are counted into it.
Image render_cpu(const Scene& s, const RenderSettings& rs, int threads = 0,
                 FrameStats* stats = nullptr);

// The POV-Ray oracle at width x height: renders `s` with POV-Ray and with render_cpu at
// `depth`, prints the agreement as "[ oracle ] tag ...", keeps ours/theirs/diff/.pov
// under oracle_output_dir() named after `tag`, and returns the comparison at 1/255.
// Callers check have_povray() first.
ImageDiff compare_with_povray(const std::string& tag, const Scene& s, int depth,
                              int width = 320, int height = 240);
// The same with POV-Ray given `theirs`: the scene as it should have come out of a loader
// (vertex normals read by the test itself, say), where `ours` is what the loader made.
ImageDiff compare_with_povray(const std::string& tag, const Scene& ours, const Scene& theirs, int depth,
                              int width, int height);

// The same at `depth`, counting only the pixels that a 1e-6 move of the camera leaves
// unchanged in our render (/work/shared/docs/oracles.md: float and double renderers differ
// at grazing rays and sub-pixel edges); `unstable_pixels` says how many were left out.
// The diff image marks them blue.
ImageDiff compare_with_povray_stable(const std::string& tag, const Scene& s, int depth, int width, int height,
                                     size_t& unstable_pixels);

// A picture of where two images differ: |a - b| per channel, times `gain`, clamped.
Image diff_image(const Image& a, const Image& b, int gain = 32);

// Where tests leave images for debugging: <build dir>/oracle-images (created).
std::string oracle_output_dir();

}  // namespace srt
