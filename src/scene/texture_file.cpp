// texture_file.cpp - decoding (core/image_decode.h) and sharing of a scene's textures.
#include "scene/texture_file.h"

#include "core/error.h"
#include "core/image_decode.h"

#include <filesystem>

namespace srt {
namespace {

const char* suffix(TextureUse use) {
    switch (use) {
        case TextureUse::Mask: return " (mask)";
        case TextureUse::Data: return " (data)";
        case TextureUse::Normal: return " (normal)";
        case TextureUse::Colour: break;
    }
    return "";
}

int32_t find_image(const Scene& scene, const std::string& key) {
    for (size_t i = 0; i < scene.images.size(); ++i)
        if (scene.images[i].name == key) return int32_t(i);
    return -1;
}

// A file with an alpha channel is one image for both uses; a mask of a file without one
// carries its grey level (red, which grey replicates) in alpha, as an image of its own.
bool has_alpha(int channels) { return channels == 2 || channels == 4; }

int32_t find_image(const Scene& scene, const std::string& name, TextureUse use) {
    int32_t i = find_image(scene, name + suffix(use));
    if (i < 0 && use == TextureUse::Mask) {
        i = find_image(scene, name);
        if (i >= 0 && !scene.images[size_t(i)].file_alpha) i = -1;
    }
    return i;
}

int32_t add_image(Scene& scene, const std::string& name, DecodedImage&& d, TextureUse use) {
    const bool alpha = has_alpha(d.channels);
    if (use == TextureUse::Mask && !alpha)
        for (uint32_t& t : d.rgba) t = (t & 0x00ffffffu) | ((t & 0xffu) << 24);
    TextureImage img;
    // A colour image with alpha is its mask too; data is never shared with either.
    const bool data = use == TextureUse::Data || use == TextureUse::Normal;
    img.name = alpha && !data ? name : name + suffix(use);
    img.file_alpha = alpha;
    img.linear = data;
    img.normal_map = use == TextureUse::Normal;
    img.width = d.width;
    img.height = d.height;
    img.texels = std::move(d.rgba);
    scene.images.push_back(std::move(img));
    return int32_t(scene.images.size() - 1);
}

int32_t texture_of(Scene& scene, int32_t image, Wrap wrap_u, Wrap wrap_v, const UvTransform& transform) {
    for (size_t i = 0; i < scene.textures.size(); ++i) {
        const Texture& t = scene.textures[i];
        if (t.image == uint32_t(image) && t.wrap_u == wrap_u && t.wrap_v == wrap_v && t.transform == transform)
            return int32_t(i);
    }
    scene.textures.push_back(Texture{uint32_t(image), wrap_u, wrap_v, transform});
    return int32_t(scene.textures.size() - 1);
}

}  // namespace

int32_t texture_from_file(Scene& scene, const std::string& path, TextureUse use, Wrap wrap_u, Wrap wrap_v,
                          const std::string& ref_file, int ref_line, const UvTransform& transform) {
    int32_t image = find_image(scene, path, use);
    if (image < 0) {
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) {
            // Once per file: Sibenik's MTL names the same missing image for 19 materials.
            const std::string what = "texture '" + path + "' not found";
            for (const std::string& n : scene.notes)
                if (n.find(what) != std::string::npos) return kNoTexture;
            scene.notes.push_back(InputError::format(ref_file, ref_line, 0, what + "; the material keeps its flat colour"));
            return kNoTexture;
        }
        image = add_image(scene, path, decode_image_file(path), use);
    }
    return texture_of(scene, image, wrap_u, wrap_v, transform);
}

int32_t texture_from_bytes(Scene& scene, const unsigned char* data, size_t size, const std::string& name,
                           TextureUse use, Wrap wrap_u, Wrap wrap_v, const UvTransform& transform) {
    int32_t image = find_image(scene, name, use);
    if (image < 0) image = add_image(scene, name, decode_image(data, size, name), use);
    return texture_of(scene, image, wrap_u, wrap_v, transform);
}

}  // namespace srt
