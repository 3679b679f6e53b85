// texture_file.h - textures into a Scene, from image files or bytes a glTF holds.
//
// Each image is decoded once per use (a colour texture and a mask of the same file are
// two images only when the file has no alpha channel) and each (image, wrap modes) pair
// is one Scene::textures entry, so materials that share a file share its texels.
#pragma once

#include "scene/scene.h"

#include <cstddef>
#include <string>

namespace srt {

// Colour: the file's RGB (grey replicated) and its alpha. Mask (MTL map_d): alpha is the
// file's alpha channel, or its grey level (red) when the file has none. Data (metallic,
// roughness): the file's channels as values in [0, 1], not sRGB colour: an image of its
// own even where the same file is a colour texture too. Normal: data whose bytes decode
// to [-1, 1] with 128 at 0 (TextureImage::normal_map).
enum class TextureUse { Colour, Mask, Data, Normal };

// The texture for the image file `path`, sampled with the wrap modes given and laid as
// `transform` says; its index in scene.textures. A missing file is not an error (scene files often travel without
// their images: Sponza and Sibenik in ../shared/data do): it adds a note naming
// `ref_file:ref_line` and returns kNoTexture, and the material keeps its flat colour. A
// file that is there but cannot be decoded throws InputError(path, 0, what).
int32_t texture_from_file(Scene& scene, const std::string& path, TextureUse use, Wrap wrap_u, Wrap wrap_v,
                          const std::string& ref_file, int ref_line, const UvTransform& transform = {});

// The same for an image in memory (a glTF's buffer view or data URI); `name` identifies
// it in messages and dedups it. Throws InputError(name, 0, what).
int32_t texture_from_bytes(Scene& scene, const unsigned char* data, size_t size, const std::string& name,
                           TextureUse use, Wrap wrap_u, Wrap wrap_v, const UvTransform& transform = {});

}  // namespace srt
