#include "render/executor.h"
#include "render/settings.h"

namespace srt {

const char* to_string(DeadRayMode m) {
    switch (m) {
        case DeadRayMode::Stencil: return "stencil";
        case DeadRayMode::Flags: return "flags";
        case DeadRayMode::Compact: return "compact";
        case DeadRayMode::Megakernel: return "megakernel";
        case DeadRayMode::Regenerate: return "regenerate";
        case DeadRayMode::Pool: return "pool";
    }
    return "?";
}

bool parse_mode(const std::string& s, DeadRayMode& out) {
    if (s == "stencil") out = DeadRayMode::Stencil;
    else if (s == "flags") out = DeadRayMode::Flags;
    else if (s == "compact") out = DeadRayMode::Compact;
    else if (s == "megakernel") out = DeadRayMode::Megakernel;
    else if (s == "regenerate") out = DeadRayMode::Regenerate;
    else if (s == "pool") out = DeadRayMode::Pool;
    else return false;
    return true;
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

}  // namespace srt
