// fuzz_texture.cpp - libFuzzer target for texture decoding (tools/fuzz.sh): PNG, JPEG,
// TGA and BMP bytes straight into decode_image, as a glTF's buffer view or data URI
// hands them over. Truncated files, corrupt data and headers that claim more texels
// than the bytes can hold must end in an InputError, never a crash or an allocation of
// what the header merely claims (-rss_limit_mb catches that).
#include "fuzz_common.h"

#include "core/image_decode.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    srt::fuzz::setup();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    srt::fuzz::run_loader([&] {
        const srt::DecodedImage img = srt::decode_image(data, size, "in.img");
        srt::Scene s;  // run_loader wants a valid scene; what matters is the image's size
        s.name = std::to_string(img.width) + "x" + std::to_string(img.height);
        s.add_material(srt::Material{});
        if (img.rgba.size() != size_t(img.width) * size_t(img.height)) std::abort();
        return s;
    });
    return 0;
}
