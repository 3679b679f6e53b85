#include "render/executor.h"
#include "render/settings.h"

#include <stdexcept>

namespace srt {

const DeadRayModeInfo kDeadRayModeTable[kDeadRayModes] = {
    {DeadRayMode::Stencil, "stencil", "wavefront, one bit per ray in a stencil word per warp (the default)"},
    {DeadRayMode::Flags, "flags", "wavefront, a flag per ray tested at entry"},
    {DeadRayMode::Compact, "compact", "wavefront over the live rays' ids, compacted"},
    {DeadRayMode::Pool, "pool", "wavefront over a pool of paths regenerated as they end"},
    {DeadRayMode::Megakernel, "megakernel", "whole paths, one thread a pixel"},
    {DeadRayMode::Regenerate, "regenerate", "whole paths, a lane whose path ended takes the next"},
};

const char* to_string(DeadRayMode m) {
    for (const DeadRayModeInfo& i : kDeadRayModeTable)
        if (i.mode == m) return i.name;
    return "?";
}

bool parse_mode(const std::string& s, DeadRayMode& out) {
    for (const DeadRayModeInfo& i : kDeadRayModeTable)
        if (s == i.name) {
            out = i.mode;
            return true;
        }
    return false;
}

std::vector<std::string> mode_names() {
    std::vector<std::string> v;
    for (const DeadRayModeInfo& i : kDeadRayModeTable) v.push_back(i.name);
    return v;
}

std::string mode_list(const char* last) {
    std::string s;
    for (int k = 0; k < kDeadRayModes; ++k)
        s += std::string(k == 0 ? "" : k + 1 == kDeadRayModes ? last : ", ") + kDeadRayModeTable[k].name;
    return s;
}

const char* to_string(LaunchMode m) {
    switch (m) {
        case LaunchMode::Graph: return "graph";
        case LaunchMode::Stream: return "stream";
    }
    return "?";
}

bool parse_launch_mode(const std::string& s, LaunchMode& out) {
    if (s == "graph") out = LaunchMode::Graph;
    else if (s == "stream") out = LaunchMode::Stream;
    else return false;
    return true;
}

bool parse_backend(const std::string& s, Backend& out) {
    if (s == "auto") out = Backend::Auto;
    else if (s == "cuda") out = Backend::Cuda;
    else if (s == "cpu") out = Backend::Cpu;
    else return false;
    return true;
}

namespace {
uint32_t planned_samples(const RenderSettings& s) {
    return uint32_t(s.samples_planned > 0 ? s.samples_planned : s.sample_begin + s.spp);
}
}  // namespace

std::string sampler_problem(const RenderSettings& s) {
    if (s.sampler != SamplerKind::ZSobol) return {};
    SamplerLayout l;
    if (zsobol_layout(uint32_t(s.width), uint32_t(s.height), planned_samples(s), l)) return {};
    return "--sampler zsobol: a " + std::to_string(s.width) + "x" + std::to_string(s.height) + " image at " +
           std::to_string(planned_samples(s)) + " samples a pixel needs more than " + std::to_string(kZSobolMaxBits) +
           " bits of Morton code and sample index; fewer samples, a smaller image, or --sampler sobol";
}

SamplerLayout sampler_layout(const RenderSettings& s) {
    SamplerLayout l;
    l.kind = s.sampler;
    if (s.sampler == SamplerKind::ZSobol && !zsobol_layout(uint32_t(s.width), uint32_t(s.height), planned_samples(s), l))
        throw std::invalid_argument(sampler_problem(s));
    return l;
}

}  // namespace srt
