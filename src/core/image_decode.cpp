// image_decode.cpp - PNG, JPEG, TGA and BMP through stb_image (libstb-dev), whose
// implementation is compiled here, once for the project (core/png.cpp reads PNGs with it
// too). Why stb_image: third_party/README.md.
#include "core/image_decode.h"

#include "core/error.h"

#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_TGA
#define STBI_ONLY_BMP
#define STBI_NO_STDIO  // every byte arrives through decode_image, after its checks
#define STBI_MAX_DIMENSIONS 16384
#include <stb_image.h>

#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <new>

namespace srt {

static_assert(kMaxImageSide == STBI_MAX_DIMENSIONS, "one limit on image sides");

DecodedImage decode_image(const unsigned char* data, size_t size, const std::string& name) {
    if (size == 0) throw InputError(name, 0, "the image file is empty");
    if (size > size_t(INT_MAX)) throw InputError(name, 0, "the image file is larger than 2 GiB");
    int w = 0, h = 0, n = 0;
    // The header alone: nothing of the size it states is allocated yet.
    if (!stbi_info_from_memory(data, int(size), &w, &h, &n)) {
        const auto starts = [&](const char* magic, size_t len) { return size >= len && std::memcmp(data, magic, len) == 0; };
        const char* format = starts("\x89PNG\r\n\x1a\n", 8) ? "PNG" : starts("\xff\xd8\xff", 3) ? "JPEG" : starts("BM", 2) ? "BMP" : nullptr;
        if (format)
            throw InputError(name, 0, std::string("corrupt ") + format + " header (stb_image: " + stbi_failure_reason() + ")");
        throw InputError(name, 0, std::string("not an image stencilrt can read (PNG, JPEG, TGA or BMP): ") +
                                      stbi_failure_reason());
    }
    if (w <= 0 || h <= 0 || w > kMaxImageSide || h > kMaxImageSide)
        throw InputError(name, 0, "the image is " + std::to_string(w) + " x " + std::to_string(h) +
                                      " texels; each side must be 1 .. " + std::to_string(kMaxImageSide));
    const uint64_t bytes = uint64_t(w) * uint64_t(h) * 4;
    if (bytes > kMaxExpansion * uint64_t(size) + kExpansionSlack)
        throw InputError(name, 0, "the header claims " + std::to_string(w) + " x " + std::to_string(h) +
                                      " texels, more than a file of " + std::to_string(size) +
                                      " bytes can hold: truncated or corrupt");
    int dw = 0, dh = 0, dn = 0;
    std::unique_ptr<unsigned char, void (*)(void*)> px(stbi_load_from_memory(data, int(size), &dw, &dh, &dn, 4),
                                                       stbi_image_free);
    if (!px) {
        const std::string why = stbi_failure_reason() ? stbi_failure_reason() : "unknown";
        if (why == "outofmem")
            throw InputError(name, 0, "not enough memory to decode the image (" + std::to_string(w) + " x " +
                                          std::to_string(h) + " texels)");
        throw InputError(name, 0, "truncated or corrupt image data (stb_image: " + why + ")");
    }
    if (dw != w || dh != h) throw InputError(name, 0, "the image's size changed while decoding: corrupt");
    DecodedImage img;
    img.width = w;
    img.height = h;
    img.channels = n;
    try {
        img.rgba.resize(size_t(w) * size_t(h));
    } catch (const std::bad_alloc&) {
        throw InputError(name, 0, "not enough memory to hold the image (" + std::to_string(w) + " x " +
                                      std::to_string(h) + " texels)");
    }
    std::memcpy(img.rgba.data(), px.get(), size_t(bytes));
    return img;
}

DecodedImage decode_image_file(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) throw InputError(path, 0, "not a regular file");
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) throw InputError(path, 0, "cannot read the file");
    if (size > (uintmax_t(1) << 30)) throw InputError(path, 0, "the image file is larger than 1 GiB");
    std::ifstream in(path, std::ios::binary);
    std::vector<unsigned char> bytes(static_cast<size_t>(size));
    if (!in || (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(size))))
        throw InputError(path, 0, "cannot read the file");
    return decode_image(bytes.data(), bytes.size(), path);
}

}  // namespace srt
