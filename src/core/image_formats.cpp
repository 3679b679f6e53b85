// image_formats.cpp - see image_formats.h. EXR through OpenEXR (Debian's libopenexr-dev),
// encoded in memory so that the file is written whole by write_output_file.
#include "core/image_formats.h"

#include "core/error.h"
#include "core/output_file.h"

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfIO.h>
#include <OpenEXR/ImfOutputFile.h>
#include <Imath/half.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>

namespace srt {

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// An OpenEXR output stream into memory (OpenEXR seeks back to write the offset table).
class MemoryStream final : public Imf::OStream {
public:
    MemoryStream() : Imf::OStream("memory") {}
    void write(const char c[], int n) override {
        if (pos_ + size_t(n) > bytes_.size()) bytes_.resize(pos_ + size_t(n));
        std::memcpy(&bytes_[pos_], c, size_t(n));
        pos_ += size_t(n);
    }
    uint64_t tellp() override { return pos_; }
    void seekp(uint64_t pos) override { pos_ = size_t(pos); }
    std::string take() { return std::move(bytes_); }

private:
    std::string bytes_;
    size_t pos_ = 0;
};

}  // namespace

ImageFormat image_format_for(const std::string& path) {
    if (path == "-") return ImageFormat::Png;
    const std::string ext = lower(std::filesystem::path(path).extension().string());
    if (ext.empty() || ext == ".png") return ImageFormat::Png;  // no extension: -o /dev/null, a FIFO
    if (ext == ".exr") return ImageFormat::Exr;
    if (ext == ".pfm") return ImageFormat::Pfm;
    throw InputError("-o " + path + ": '" + ext + "' is not a format stencilrt writes (it writes .png, .exr, .pfm)");
}

const char* extension_of(ImageFormat f) {
    switch (f) {
        case ImageFormat::Exr: return ".exr";
        case ImageFormat::Pfm: return ".pfm";
        default: return ".png";
    }
}

bool is_linear(ImageFormat f) { return f != ImageFormat::Png; }

std::string encode_exr(const LinearImage& img, const ExrOptions& o) {
    const Imf::PixelType type = o.half ? Imf::HALF : Imf::FLOAT;
    Imf::Header header(img.width, img.height);
    header.compression() = Imf::ZIP_COMPRESSION;
    for (const char* c : {"R", "G", "B"}) header.channels().insert(c, Imf::Channel(type));
    if (o.alpha) header.channels().insert("A", Imf::Channel(type));
    // The frame buffer holds the pixels in the file's own type (OpenEXR converts
    // between types only when reading): float as it is, or rounded to half.
    const size_t n = size_t(img.width) * size_t(img.height), nc = o.alpha ? 4 : 3;
    std::vector<float> f32;
    std::vector<Imath::half> f16;
    if (o.half) f16.resize(n * nc);
    else f32.resize(n * nc);
    for (size_t p = 0; p < n; ++p)
        for (size_t c = 0; c < nc; ++c) {
            const float v = c < 3 ? img.rgb[3 * p + c] : 1.0f;
            if (o.half) f16[nc * p + c] = Imath::half(v);
            else f32[nc * p + c] = v;
        }
    char* base = o.half ? reinterpret_cast<char*>(f16.data()) : reinterpret_cast<char*>(f32.data());
    const size_t px = nc * (o.half ? sizeof(Imath::half) : sizeof(float)), row = px * size_t(img.width);
    const size_t size = o.half ? sizeof(Imath::half) : sizeof(float);
    Imf::FrameBuffer fb;
    const char* names[4] = {"R", "G", "B", "A"};
    for (size_t c = 0; c < nc; ++c) fb.insert(names[c], Imf::Slice(type, base + c * size, px, row));
    MemoryStream stream;
    {
        Imf::OutputFile file(stream, header);
        file.setFrameBuffer(fb);
        file.writePixels(img.height);
    }  // the destructor finishes the file (the line offset table)
    return stream.take();
}

std::string encode_pfm(const LinearImage& img) {
    // "PF" = colour; a negative scale = little-endian floats; rows from the bottom up.
    std::string out = "PF\n" + std::to_string(img.width) + " " + std::to_string(img.height) + "\n-1.0\n";
    const size_t header = out.size(), row = size_t(img.width) * 3 * sizeof(float);
    out.resize(header + row * size_t(img.height));
    for (int y = 0; y < img.height; ++y) {
        const float* src = img.pixel(0, img.height - 1 - y);
        char* dst = &out[header + row * size_t(y)];
        for (size_t k = 0; k < size_t(img.width) * 3; ++k) {
            uint32_t u;
            std::memcpy(&u, &src[k], 4);
            const unsigned char b[4] = {uint8_t(u), uint8_t(u >> 8), uint8_t(u >> 16), uint8_t(u >> 24)};
            std::memcpy(dst + 4 * k, b, 4);
        }
    }
    return out;
}

void write_image(const std::string& path, ImageFormat format, const Image& png, const LinearImage& linear,
                 const ExrOptions& exr) {
    switch (format) {
        case ImageFormat::Png: write_png_atomic(path, png); return;
        case ImageFormat::Exr: write_output_file(path, encode_exr(linear, exr)); return;
        case ImageFormat::Pfm: write_output_file(path, encode_pfm(linear)); return;
    }
}

}  // namespace srt
