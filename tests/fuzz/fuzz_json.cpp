// fuzz_json.cpp - libFuzzer target for the JSON scene loader (tools/fuzz.sh).
// Includes and meshes named by the input resolve in the target's private directory,
// where only in.json and tri.obj (two triangles) exist: the missing-file and recursion
// paths, and meshes that load, for 'meshes' and the 'instance' objects placing them.
#include "fuzz_common.h"

#include "scene/load.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    srt::fuzz::setup();
    static const char kTri[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 1\nf 1 2 3\nf 2 4 3\n";
    srt::fuzz::write_file("tri.obj", reinterpret_cast<const uint8_t*>(kTri), sizeof kTri - 1);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = srt::fuzz::write_file("in.json", data, size);
    srt::fuzz::run_loader([&] { return srt::load_json_scene(path); });
    return 0;
}
