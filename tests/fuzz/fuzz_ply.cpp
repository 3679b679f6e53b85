// fuzz_ply.cpp - libFuzzer target for the PLY loader (tools/fuzz.sh): ASCII and binary
// headers and data, each input written to in.ply. The data is also read in chunks of a
// few records on two threads and by the serial reader (tests/support/ply_compare.h): any
// difference, in the mesh or in the error, aborts.
#include "fuzz_common.h"

#include "scene/load.h"
#include "support/ply_compare.h"

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    srt::fuzz::setup();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = srt::fuzz::write_file("in.ply", data, size);
    srt::fuzz::run_loader([&] { return srt::load_ply_scene(path); });
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    try {
        srt::ply::parse_header(bytes, path);
    } catch (const srt::InputError&) {
        return 0;  // the header is read once, by one reader
    }
    std::string why;
    const srt::ply::ReadOptions cut{uint32_t(1 + size % 7), 2, false};
    if (!srt::ply::chunks_read_as_serial(bytes, path, cut, why)) {
        std::fprintf(stderr, "fuzz_ply: read in chunks of %u records, not as read serially: %s\n", cut.grain, why.c_str());
        std::abort();
    }
    return 0;
}
