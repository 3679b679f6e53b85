// fuzz_kill.cpp - libFuzzer target for `--kill`'s parser (render/kill.h, tools/fuzz.sh): any
// text either is refused with a reason, or is read into a pattern that prints back as text
// the parser reads into the same pattern.
#include "render/kill.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    srt::KillPattern k;
    if (!srt::parse_kill(text, k).empty()) return 0;  // refused, with a reason
    srt::KillPattern again;
    if (!srt::parse_kill(srt::to_string(k), again).empty()) std::abort();
    if (again.kind != k.kind || again.block != k.block || again.p != k.p) std::abort();
    if (k.active() && !(k.p == 0.0f || (k.p > 0.0f && k.p <= 1.0f))) std::abort();
    return 0;
}
