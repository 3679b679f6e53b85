// radiance_image.cpp - see radiance_image.h.
#include "core/radiance_image.h"

#include "core/error.h"
#include "core/file_reason.h"
#include "core/image_decode.h"

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfInputFile.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>

namespace srt {

namespace {

// Texels a file of `size` bytes can hold at most: RGBE's run-length code spends two bytes
// on up to 127 values of one channel (16 texels a byte over four channels); its old code
// repeats a texel more, and is refused past this too. EXR's zip inflates at most 1032:1.
void check_size(uint64_t w, uint64_t h, uint64_t file_size, uint64_t texels_per_byte, const std::string& name) {
    if (w == 0 || h == 0 || w > uint64_t(kMaxImageSide) || h > uint64_t(kMaxImageSide))
        throw InputError(name, 0, std::to_string(w) + "x" + std::to_string(h) + " texels: each side must be 1 to " +
                                      std::to_string(kMaxImageSide));
    if (w * h > texels_per_byte * file_size + kExpansionSlack)
        throw InputError(name, 0, std::to_string(w) + "x" + std::to_string(h) +
                                      " texels cannot come from a file of " + std::to_string(file_size) + " bytes");
}

class RgbeReader {
public:
    RgbeReader(const unsigned char* data, size_t size, const std::string& name) : p_(data), end_(data + size), name_(name) {}

    RadianceImage read() {
        std::string_view line = next_line();
        if (line.substr(0, 2) != "#?") fail("not a Radiance RGBE file (it must begin with #?)");
        for (;;) {  // the header: variables up to an empty line
            if (p_ == end_) fail("the header has no end (an empty line)");
            line = next_line();
            if (line.empty()) break;
            if (line.substr(0, 7) == "FORMAT=" && line != "FORMAT=32-bit_rle_rgbe")
                fail("'" + std::string(line) + "': only FORMAT=32-bit_rle_rgbe is read");
        }
        line = next_line();
        char ys = 0, xs = 0, ya = 0, xa = 0;
        int h = 0, w = 0, used = 0;
        const std::string res(line);
        if (std::sscanf(res.c_str(), "%c%c %d %c%c %d%n", &ys, &ya, &h, &xs, &xa, &w, &used) != 6 ||
            size_t(used) != res.size() || ya != 'Y' || xa != 'X' || (ys != '-' && ys != '+') || xs != '+')
            fail("resolution line '" + res + "': stencilrt reads -Y H +X W and +Y H +X W");
        if (w <= 0 || h <= 0) fail("resolution line '" + res + "': the sides must be positive");
        check_size(uint64_t(w), uint64_t(h), uint64_t(end_ - p_) + 1, 16, name_);
        RadianceImage img;
        img.width = w;
        img.height = h;
        img.rgb.resize(size_t(w) * size_t(h) * 3);
        std::vector<unsigned char> scan(size_t(w) * 4);
        for (int y = 0; y < h; ++y) {
            read_scanline(scan, w, y);
            const int row = ys == '-' ? y : h - 1 - y;  // +Y: the bottom row first
            float* out = &img.rgb[size_t(row) * size_t(w) * 3];
            for (int x = 0; x < w; ++x) {
                const unsigned char* t = &scan[size_t(x) * 4];
                const float f = t[3] == 0 ? 0.0f : std::ldexp(1.0f, int(t[3]) - 136);
                for (int c = 0; c < 3; ++c) out[size_t(x) * 3 + size_t(c)] = float(t[c]) * f;
            }
        }
        return img;
    }

private:
    [[noreturn]] void fail(const std::string& what) const { throw InputError(name_, 0, what); }

    std::string_view next_line() {
        const unsigned char* s = p_;
        while (p_ != end_ && *p_ != '\n') ++p_;
        std::string_view line(reinterpret_cast<const char*>(s), size_t(p_ - s));
        if (p_ != end_) ++p_;
        if (line.size() > 4096) fail("a header line is longer than 4096 bytes");
        return line;
    }
    unsigned char byte(int y) {
        if (p_ == end_) fail("scanline " + std::to_string(y) + " runs past the end of the file");
        return *p_++;
    }

    // One scanline into `scan` (4 bytes a texel): new run-length encoding (2, 2, width),
    // flat texels, or the old code, where (1, 1, 1, n) repeats the last texel n times
    // (n shifted by 8 bits for each such texel in a row).
    void read_scanline(std::vector<unsigned char>& scan, int w, int y) {
        if (w >= 8 && w < 32768 && end_ - p_ >= 4 && p_[0] == 2 && p_[1] == 2 && (p_[2] & 0x80) == 0) {
            if (((int(p_[2]) << 8) | p_[3]) != w)
                fail("scanline " + std::to_string(y) + ": its run-length header gives width " +
                     std::to_string((int(p_[2]) << 8) | p_[3]) + ", not " + std::to_string(w));
            p_ += 4;
            for (int c = 0; c < 4; ++c) {
                for (int x = 0; x < w;) {
                    int n = byte(y);
                    if (n > 128) {  // a run of one value
                        n -= 128;
                        if (x + n > w) fail("scanline " + std::to_string(y) + ": a run passes the end of the line");
                        const unsigned char v = byte(y);
                        for (int k = 0; k < n; ++k) scan[size_t(x++) * 4 + size_t(c)] = v;
                    } else {  // n values as they are
                        if (n == 0 || x + n > w) fail("scanline " + std::to_string(y) + ": a bad count of " + std::to_string(n));
                        for (int k = 0; k < n; ++k) scan[size_t(x++) * 4 + size_t(c)] = byte(y);
                    }
                }
            }
            return;
        }
        int shift = 0;
        for (int x = 0; x < w;) {
            unsigned char t[4];
            for (unsigned char& b : t) b = byte(y);
            if (t[0] == 1 && t[1] == 1 && t[2] == 1) {
                if (x == 0) fail("scanline " + std::to_string(y) + ": a repeat with no texel before it");
                if (shift > 16) fail("scanline " + std::to_string(y) + ": a repeat count too large");
                const uint64_t n = uint64_t(t[3]) << shift;
                if (n > uint64_t(w - x)) fail("scanline " + std::to_string(y) + ": a repeat passes the end of the line");
                for (uint64_t k = 0; k < n; ++k, ++x) std::memcpy(&scan[size_t(x) * 4], &scan[size_t(x - 1) * 4], 4);
                shift += 8;
            } else {
                std::memcpy(&scan[size_t(x++) * 4], t, 4);
                shift = 0;
            }
        }
    }

    const unsigned char* p_;
    const unsigned char* end_;
    const std::string& name_;
};

RadianceImage read_exr(const std::string& path, uint64_t file_size) {
    try {
        Imf::InputFile file(path.c_str());
        const Imath::Box2i dw = file.header().dataWindow();
        const int64_t w = int64_t(dw.max.x) - dw.min.x + 1, h = int64_t(dw.max.y) - dw.min.y + 1;
        if (w <= 0 || h <= 0) throw InputError(path, 0, "an empty data window");
        check_size(uint64_t(w), uint64_t(h), file_size, kMaxExpansion / 12, path);
        const Imf::ChannelList& ch = file.header().channels();
        const bool rgb = ch.findChannel("R") && ch.findChannel("G") && ch.findChannel("B");
        if (!rgb && !ch.findChannel("Y")) throw InputError(path, 0, "has neither R, G and B channels nor Y");
        RadianceImage img;
        img.width = int(w);
        img.height = int(h);
        img.rgb.assign(size_t(w) * size_t(h) * 3, 0.0f);
        // The frame buffer's origin sits at the data window's, so (min.x, min.y) lands on texel 0.
        char* base = reinterpret_cast<char*>(img.rgb.data()) - (int64_t(dw.min.x) + int64_t(dw.min.y) * w) * 12;
        Imf::FrameBuffer fb;
        const char* names[3] = {"R", "G", "B"};
        if (rgb) {
            for (int c = 0; c < 3; ++c) fb.insert(names[c], Imf::Slice(Imf::FLOAT, base + c * 4, 12, size_t(w) * 12));
        } else {  // luminance alone: into red, then copied (a frame buffer holds one slice a name)
            fb.insert("Y", Imf::Slice(Imf::FLOAT, base, 12, size_t(w) * 12));
        }
        file.setFrameBuffer(fb);
        file.readPixels(dw.min.y, dw.max.y);
        if (!rgb)
            for (size_t k = 0; k < img.rgb.size(); k += 3) img.rgb[k + 1] = img.rgb[k + 2] = img.rgb[k];
        return img;
    } catch (const InputError&) {
        throw;
    } catch (const std::exception& e) {
        throw InputError(path, 0, e.what());
    }
}

}  // namespace

RadianceImage decode_rgbe(const unsigned char* data, size_t size, const std::string& name) {
    return RgbeReader(data, size, name).read();
}

RadianceImage read_radiance_image(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw InputError(path, 0, cannot_open(path, "image"));
    if (!std::filesystem::is_regular_file(path, ec)) throw InputError(path, 0, "not a regular file");
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) throw InputError(path, 0, cannot_open(path, "image"));
    if (size > (uintmax_t(1) << 30)) throw InputError(path, 0, "the image file is larger than 1 GiB");
    std::ifstream in(path, std::ios::binary);
    unsigned char magic[4] = {};
    if (!in || !in.read(reinterpret_cast<char*>(magic), 4)) {
        const std::string why = unreadable_reason(path);
        throw InputError(path, 0, why.empty() ? "too short for an image file" : cannot_open(path, "image"));
    }
    RadianceImage img;
    if (magic[0] == 0x76 && magic[1] == 0x2f && magic[2] == 0x31 && magic[3] == 0x01) {
        img = read_exr(path, size);
    } else if (magic[0] == '#' && magic[1] == '?') {
        std::vector<unsigned char> bytes(static_cast<size_t>(size));
        in.seekg(0);
        if (!in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(size)))
            throw InputError(path, 0, "cannot read the file");
        img = decode_rgbe(bytes.data(), bytes.size(), path);
    } else {
        throw InputError(path, 0, "neither an OpenEXR file nor a Radiance RGBE (.hdr) file");
    }
    for (size_t k = 0; k < img.rgb.size(); ++k) {
        const float v = img.rgb[k];
        if (!(v >= 0.0f) || !std::isfinite(v)) {
            const size_t t = k / 3;
            throw InputError(path, 0, "texel (" + std::to_string(t % size_t(img.width)) + ", " +
                                          std::to_string(t / size_t(img.width)) + ") holds " + short_number(v) +
                                          ": a radiance must be finite and not negative");
        }
    }
    return img;
}

}  // namespace srt
