// fuzz_obj.cpp - libFuzzer target for the OBJ + MTL loader (tools/fuzz.sh).
//
// One input holds both files: the bytes up to a line "#---mtl---" are in.obj, the
// rest in.mtl (empty when there is no such line), so "mtllib in.mtl" in the OBJ part
// reaches the MTL reader with fuzzed content. The OBJ text is also read in pieces of a
// few bytes on two threads and one statement after another (tests/support/obj_serial.h):
// any difference, in triangles or in the error, aborts.
#include "fuzz_common.h"

#include "scene/load.h"
#include "support/obj_serial.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

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
    const std::string text(reinterpret_cast<const char*>(data), obj_size);
    std::string why;
    const srt::obj::PieceOptions cut{1 + size % 17, 2};
    if (!srt::obj::pieces_read_as_serial(text, path, cut, why)) {
        std::fprintf(stderr, "fuzz_obj: read in pieces of %zu bytes, not as read serially: %s\n", cut.piece_bytes, why.c_str());
        std::abort();
    }
    return 0;
}
