// fuzz_gltf.cpp - libFuzzer target for the glTF loader (tools/fuzz.sh): inputs starting
// with "glTF" are written as in.glb, the rest as in.gltf (buffers as data: URIs).
#include "fuzz_common.h"

#include "scene/load.h"

#include <cstring>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    srt::fuzz::setup();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const bool glb = size >= 4 && std::memcmp(data, "glTF", 4) == 0;
    const std::string path = srt::fuzz::write_file(glb ? "in.glb" : "in.gltf", data, size);
    srt::fuzz::run_loader([&] { return srt::load_gltf_scene(path); });
    return 0;
}
