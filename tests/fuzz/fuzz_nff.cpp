// fuzz_nff.cpp - libFuzzer target for the NFF loader (tools/fuzz.sh).
#include "fuzz_common.h"

#include "scene/load.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    srt::fuzz::setup();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = srt::fuzz::write_file("in.nff", data, size);
    srt::fuzz::run_loader([&] { return srt::load_nff_scene(path); });
    return 0;
}
