// integrator.h - which light transport a frame is rendered with, and how its point and
// directional lights are read. A scene file may suggest both (render.integrator,
// light_model); the command line's --integrator and --light-model win.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

// Where the path integrator's random numbers come from (render/sampler.h says how each
// makes them and which numbers a path vertex draws).
enum class SamplerKind : uint8_t {
    Independent,  // every number independent (Philox, render/rng.h)
    Sobol,        // Owen-scrambled Sobol points, seeded per pixel
    ZSobol,       // the same points over Morton-ordered pixels: the error as blue noise
};

// The path integrator's sampler where neither the command line nor the scene names one:
// the one of least error at equal time (docs/performance.md, "Samplers").
constexpr SamplerKind kDefaultSampler = SamplerKind::Sobol;

// The samplers' names, one table for the flag, the scene file and the messages.
struct SamplerName {
    SamplerKind kind;
    const char* name;
};
inline constexpr SamplerName kSamplerNames[] = {
    {SamplerKind::Independent, "independent"}, {SamplerKind::Sobol, "sobol"}, {SamplerKind::ZSobol, "zsobol"}};

inline const char* to_string(SamplerKind k) {
    for (const SamplerName& n : kSamplerNames)
        if (n.kind == k) return n.name;
    return "?";
}

inline bool parse_sampler(const std::string& s, SamplerKind& out) {
    for (const SamplerName& n : kSamplerNames)
        if (s == n.name) {
            out = n.kind;
            return true;
        }
    return false;
}

inline std::vector<std::string> sampler_names() {
    std::vector<std::string> v;
    for (const SamplerName& n : kSamplerNames) v.push_back(n.name);
    return v;
}

// What a frame runs with: the command line's choice where it made one (a name already
// checked against the table), else the scene file's suggestion, else the default. render,
// view and bench all choose so.
inline Integrator chosen_integrator(const std::string& flag, const std::optional<Integrator>& scene) {
    Integrator i = scene.value_or(Integrator::Whitted);
    if (!flag.empty()) parse_integrator(flag, i);
    return i;
}

inline SamplerKind chosen_sampler(const std::string& flag, const std::optional<SamplerKind>& scene) {
    SamplerKind k = scene.value_or(kDefaultSampler);
    if (!flag.empty()) parse_sampler(flag, k);
    return k;
}

// How a scene's point and directional lights are read; both integrators honour it, so
// switching integrators keeps a scene's direct light where it was:
//   classic  : a light's colour is what a surface facing it receives, at any distance
//              (the SPD files', seed 004's and POV-Ray's model): Whitted's Lambert term is
//              kd * C * cos * L, and the path integrator sees radiance pi * L, so that its
//              Lambertian BRDF (kd * C / pi) reflects the same kd * C * cos * L.
//   physical : a point light's colour is its intensity I (W/sr), falling off as I / d^2;
//              a directional light's is its irradiance E. Both integrators divide by pi
//              for a Lambertian surface.
// Emitters (area lights) are physical radiance under either.
enum class LightModel : uint8_t { Classic, Physical };

inline const char* to_string(LightModel m) { return m == LightModel::Physical ? "physical" : "classic"; }

inline bool parse_light_model(const std::string& s, LightModel& out) {
    if (s == "classic") out = LightModel::Classic;
    else if (s == "physical") out = LightModel::Physical;
    else return false;
    return true;
}

}  // namespace srt
