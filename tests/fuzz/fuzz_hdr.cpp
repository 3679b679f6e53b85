// fuzz_hdr.cpp - libFuzzer target for the Radiance RGBE decoder (tools/fuzz.sh), which an
// environment map's .hdr file goes through: headers without an end, resolution lines that
// lie, run lengths past the line, truncated scanlines and repeats of nothing must end in
// an InputError, never a crash or an allocation of what the header merely claims.
// (OpenEXR files go through OpenEXR, which OSS-Fuzz fuzzes.)
#include "fuzz_common.h"

#include "core/radiance_image.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    srt::fuzz::setup();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    srt::fuzz::run_loader([&] {
        const srt::RadianceImage img = srt::decode_rgbe(data, size, "in.hdr");
        srt::Scene s;  // run_loader wants a valid scene; what matters is the image's size
        s.name = std::to_string(img.width) + "x" + std::to_string(img.height);
        s.add_material(srt::Material{});
        if (img.rgb.size() != size_t(img.width) * size_t(img.height) * 3) std::abort();
        return s;
    });
    return 0;
}
