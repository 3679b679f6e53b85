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

// Our CPU wavefront executor on `s` (compile_scene + set_scene + render).
Image render_cpu(const Scene& s, const RenderSettings& rs, int threads = 0);

// A picture of where two images differ: |a - b| per channel, times `gain`, clamped.
Image diff_image(const Image& a, const Image& b, int gain = 32);

// Where tests leave images for debugging: <build dir>/oracle-images (created).
std::string oracle_output_dir();

}  // namespace srt
