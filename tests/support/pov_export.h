// pov_export.h - writes a Scene as a POV-Ray 3.7 scene that computes our shading
// model (scene/scene.h) exactly, so POV-Ray can serve as an independent image oracle.
//
// The settings follow /work/shared/docs/oracles.md: no ambient, no specular, no
// adaptive depth cut-off, Lambert + mirror reflection, hard shadows, background on a
// miss, black beyond `depth`. Geometry is written in double precision from our float
// values, so POV-Ray traces (to within its own epsilons) the same surfaces we do.
#pragma once

#include "scene/scene.h"

#include <string>

namespace srt {

// The whole .pov file for rendering `s` at width x height with max trace level
// `depth` (primary ray = level 1).
std::string to_pov(const Scene& s, int width, int height, int depth);

}  // namespace srt
