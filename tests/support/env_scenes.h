// env_scenes.h - environment maps and scenes the tests build: a scene around a map, and a
// small sky with a gradient, a black band and a one-texel sun.
#pragma once

#include "core/radiance_image.h"
#include "scene/scene.h"

#include <memory>
#include <utility>

namespace srt::test {

inline Scene env_scene(std::shared_ptr<const RadianceImage> img, float intensity = 1.0f, float rotation = 0.0f) {
    Scene s;
    s.name = "env";
    s.add_material(Material{});
    s.environment.file = "test map";
    s.environment.image = std::move(img);
    s.environment.intensity = intensity;
    s.environment.rotation = rotation;
    return s;
}

// A sky: a gradient, a black band, and a sun of one texel a hundred times brighter.
inline std::shared_ptr<RadianceImage> sky_map(int w, int h) {
    auto img = std::make_shared<RadianceImage>();
    img->width = w;
    img->height = h;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const bool band = y == h / 2;
            const float g = band ? 0.0f : 0.2f + float(x) / float(w) + (y < h / 2 ? 1.0f : 0.1f);
            const bool sun = x == w / 4 && y == h / 4;
            img->rgb.push_back(sun ? 100.0f : g);
            img->rgb.push_back(sun ? 90.0f : 0.5f * g);
            img->rgb.push_back(sun ? 80.0f : (y < h / 2 ? 1.0f : 0.0f) * g);
        }
    return img;
}

}  // namespace srt::test
