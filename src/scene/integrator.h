// integrator.h - which light transport a frame is rendered with. A scene file may
// suggest one (render.integrator); the command line's --integrator wins.
#pragma once

#include <cstdint>
#include <string>

namespace srt {

enum class Integrator : uint8_t {
    Whitted,  // Whitted's model: direct light with hard shadows, mirrors, ambient (scene.h)
    Path,     // unidirectional path tracing: area lights, glass, rough metal, MIS, Russian roulette
};

inline const char* to_string(Integrator i) { return i == Integrator::Path ? "path" : "whitted"; }

inline bool parse_integrator(const std::string& s, Integrator& out) {
    if (s == "whitted") out = Integrator::Whitted;
    else if (s == "path") out = Integrator::Path;
    else return false;
    return true;
}

}  // namespace srt
