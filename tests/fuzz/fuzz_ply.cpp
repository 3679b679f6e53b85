// fuzz_ply.cpp - libFuzzer target for the PLY loader (tools/fuzz.sh): ASCII and binary
// headers and data, each input written to in.ply.
#include "fuzz_common.h"

#include "scene/load.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    srt::fuzz::setup();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = srt::fuzz::write_file("in.ply", data, size);
    srt::fuzz::run_loader([&] { return srt::load_ply_scene(path); });
    return 0;
}
