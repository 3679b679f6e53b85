// fuzz_obj.cpp - libFuzzer target for the OBJ + MTL loader (tools/fuzz.sh).
//
// One input holds both files: the bytes up to a line "#---mtl---" are in.obj, the
// rest in.mtl (empty when there is no such line), so "mtllib in.mtl" in the OBJ part
// reaches the MTL reader with fuzzed content.
#include "fuzz_common.h"

#include "scene/load.h"

#include <cstring>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    srt::fuzz::setup();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const char kSep[] = "\n#---mtl---\n";
    const size_t sep_len = sizeof(kSep) - 1;
    size_t obj_size = size, mtl_at = size;
    for (size_t i = 0; i + sep_len <= size; ++i)
        if (std::memcmp(data + i, kSep, sep_len) == 0) {
            obj_size = i + 1;  // keep the OBJ's last newline
            mtl_at = i + sep_len;
            break;
        }
    const std::string path = srt::fuzz::write_file("in.obj", data, obj_size);
    srt::fuzz::write_file("in.mtl", data + mtl_at, size - mtl_at);
    srt::fuzz::run_loader([&] { return srt::load_obj_scene(path); });
    return 0;
}
