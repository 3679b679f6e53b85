// image_decode.cpp - PNG through libpng and JPEG through libjpeg-turbo (libjpeg-dev), both
// read from memory into 8-bit RGBA. Why these two and not stb_image: third_party/README.md.
//
// Both libraries report errors by longjmp to a setjmp in the function that called them
// (no C++ exception crosses their C frames). The functions below therefore create every
// C++ object they need (the output, the row pointers) before setjmp, and nothing with a
// destructor between setjmp and the calls that may jump.
#include "core/image_decode.h"

#include "core/error.h"

#include <png.h>
// jpeglib.h needs FILE and size_t declared first.
#include <cstdio>
#include <jpeglib.h>
#include <jerror.h>

#include <csetjmp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>

namespace srt {
namespace {

// Why a header's size is refused before anything it implies is allocated
// (image_decode.h), or "" when it is acceptable. Neither function throws: they run
// between a setjmp and the calls that may jump back to it.
std::string claim_problem(uint64_t w, uint64_t h, size_t file_size) {
    if (w == 0 || h == 0 || w > uint64_t(kMaxImageSide) || h > uint64_t(kMaxImageSide))
        return "the image is " + std::to_string(w) + " x " + std::to_string(h) + " texels; each side must be 1 .. " +
               std::to_string(kMaxImageSide);
    if (w * h * 4 > kMaxExpansion * uint64_t(file_size) + kExpansionSlack)
        return "the header claims " + std::to_string(w) + " x " + std::to_string(h) + " texels, more than a file of " +
               std::to_string(file_size) + " bytes can hold: truncated or corrupt";
    return "";
}

std::string allocate_texels(std::vector<uint32_t>& texels, uint64_t w, uint64_t h) {
    try {
        texels.resize(size_t(w * h));
    } catch (const std::bad_alloc&) {
        return "not enough memory to hold the image (" + std::to_string(w) + " x " + std::to_string(h) + " texels)";
    }
    return "";
}

// ----- PNG -------------------------------------------------------------------------

struct PngSource {
    const unsigned char* data;
    size_t size, at;
    char message[200];
};

void png_read_bytes(png_structp png, png_bytep out, png_size_t n) {
    auto* src = static_cast<PngSource*>(png_get_io_ptr(png));
    if (n > src->size - src->at) png_error(png, "the file ends inside the image data (truncated)");
    std::memcpy(out, src->data + src->at, n);
    src->at += n;
}
void png_on_error(png_structp png, png_const_charp msg) {
    auto* src = static_cast<PngSource*>(png_get_error_ptr(png));
    std::snprintf(src->message, sizeof src->message, "%s", msg);
    png_longjmp(png, 1);
}
void png_on_warning(png_structp, png_const_charp) {}

// Fills `img`, or says in `problem` what went wrong. Its texels are allocated between the
// header and the rows; `rows` and `problem` belong to the caller, so they outlive a jump.
void decode_png(const unsigned char* data, size_t size, DecodedImage& img, std::vector<png_bytep>& rows,
                std::string& problem) {
    PngSource src{data, size, 0, {0}};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &src, png_on_error, png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!png || !info) {
        png_destroy_read_struct(&png, &info, nullptr);
        problem = "not enough memory to start decoding the PNG";
        return;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, nullptr);
        if (problem.empty()) problem = std::string("corrupt PNG: ") + src.message;
        return;
    }
    png_set_read_fn(png, &src, png_read_bytes);
    png_set_user_limits(png, kMaxImageSide, kMaxImageSide);
    png_set_chunk_malloc_max(png, 64u << 20);  // text and ICC chunks: no ancillary chunk needs more
    png_read_info(png, info);
    const png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    const int colour = png_get_color_type(png, info);
    const bool trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    img.channels = ((colour & PNG_COLOR_MASK_COLOR) ? 3 : 1) + (((colour & PNG_COLOR_MASK_ALPHA) || trns) ? 1 : 0);
    // To 8-bit RGBA: palettes and low bit depths expanded, 16 bits cut to 8, grey made
    // RGB, alpha added (opaque) where the file has none.
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_set_filler(png, 0xff, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    problem = claim_problem(w, h, size);
    if (problem.empty()) problem = allocate_texels(img.rgba, w, h);
    if (!problem.empty()) png_longjmp(png, 1);
    rows.assign(h, nullptr);
    if (png_get_rowbytes(png, info) != png_size_t(w) * 4) png_error(png, "unexpected row size after conversion");
    for (png_uint_32 y = 0; y < h; ++y) rows[y] = reinterpret_cast<png_bytep>(img.rgba.data() + size_t(y) * w);
    png_read_image(png, rows.data());
    png_read_end(png, nullptr);
    png_destroy_read_struct(&png, &info, nullptr);
    img.width = int(w);
    img.height = int(h);
}

// ----- JPEG ------------------------------------------------------------------------

struct JpegError {
    jpeg_error_mgr mgr;
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};
void jpeg_on_error(j_common_ptr cinfo) {
    auto* e = reinterpret_cast<JpegError*>(cinfo->err);
    (*cinfo->err->format_message)(cinfo, e->message);
    std::longjmp(e->jump, 1);
}
// Warnings are data libjpeg recovers from, and most stay warnings (other readers show
// such files); but a file that ends early would be padded with grey: that is an error.
void jpeg_on_message(j_common_ptr cinfo, int level) {
    if (level < 0 && (cinfo->err->msg_code == JWRN_JPEG_EOF || cinfo->err->msg_code == JWRN_HIT_MARKER))
        jpeg_on_error(cinfo);
}

void decode_jpeg(const unsigned char* data, size_t size, DecodedImage& img, std::string& problem) {
    jpeg_decompress_struct cinfo;
    JpegError err;
    std::memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = jpeg_std_error(&err.mgr);
    err.mgr.error_exit = jpeg_on_error;
    err.mgr.emit_message = jpeg_on_message;
    err.message[0] = 0;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        if (problem.empty()) problem = std::string("corrupt JPEG: ") + err.message;
        return;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, static_cast<unsigned long>(size));
    jpeg_read_header(&cinfo, TRUE);
    img.channels = cinfo.num_components == 1 ? 1 : 3;
    cinfo.out_color_space = JCS_EXT_RGBA;  // libjpeg-turbo's: RGBX with X = 255
    problem = claim_problem(cinfo.image_width, cinfo.image_height, size);
    // CMYK files have no conversion to RGBA in libjpeg: refused before decoding.
    if (problem.empty() && (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK))
        problem = "CMYK JPEG images are not supported";
    if (!problem.empty()) std::longjmp(err.jump, 1);
    jpeg_start_decompress(&cinfo);
    if (cinfo.output_components != 4) problem = "unexpected JPEG output format";
    if (problem.empty()) problem = allocate_texels(img.rgba, cinfo.output_width, cinfo.output_height);
    if (!problem.empty()) std::longjmp(err.jump, 1);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW out = reinterpret_cast<JSAMPROW>(img.rgba.data() + size_t(cinfo.output_scanline) * cinfo.output_width);
        jpeg_read_scanlines(&cinfo, &out, 1);
    }
    jpeg_finish_decompress(&cinfo);
    img.width = int(cinfo.output_width);
    img.height = int(cinfo.output_height);
    jpeg_destroy_decompress(&cinfo);
}

bool starts_with(const unsigned char* data, size_t size, const char* magic, size_t len) {
    return size >= len && std::memcmp(data, magic, len) == 0;
}

}  // namespace

DecodedImage decode_image(const unsigned char* data, size_t size, const std::string& name) {
    if (size == 0) throw InputError(name, 0, "the image file is empty");
    DecodedImage img;
    std::string error;
    if (starts_with(data, size, "\x89PNG\r\n\x1a\n", 8)) {
        std::vector<png_bytep> rows;
        decode_png(data, size, img, rows, error);
    } else if (starts_with(data, size, "\xff\xd8\xff", 3)) {
        decode_jpeg(data, size, img, error);
    } else {
        throw InputError(name, 0, "not a PNG or JPEG image (the only formats textures may have)");
    }
    if (!error.empty()) throw InputError(name, 0, error);
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
