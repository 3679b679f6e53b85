// fuzz_json.cpp - libFuzzer target for the JSON scene loader (tools/fuzz.sh).
// Includes and meshes named by the input resolve in the target's private directory,
// where only in.json exists, so they exercise the missing-file and recursion paths.
#include "fuzz_common.h"

#include "scene/load.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    srt::fuzz::setup();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = srt::fuzz::write_file("in.json", data, size);
    srt::fuzz::run_loader([&] { return srt::load_json_scene(path); });
    return 0;
}
