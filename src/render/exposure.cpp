// exposure.cpp - auto exposure and the dark image's note (exposure.h).
#include "render/exposure.h"

#include "render/pipeline.h"
#include "render/srgb.h"
#include "render/stages.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace srt {

namespace {
double lum(double r, double g, double b) { return 0.2126 * r + 0.7152 * g + 0.0722 * b; }
double lum(const glm::vec3& c) { return lum(c.x, c.y, c.z); }

std::string ev_text(float ev) {
    char b[32];
    std::snprintf(b, sizeof b, "%+.2f", double(ev));
    return b;
}
}  // namespace

float auto_exposure(const LinearImage& linear) {
    double sum_log = 0.0;
    size_t n = 0;
    for (size_t i = 0; i + 2 < linear.rgb.size(); i += 3) {
        const double l = lum(linear.rgb[i], linear.rgb[i + 1], linear.rgb[i + 2]);
        if (!(l > 0.0) || !std::isfinite(l)) continue;
        sum_log += std::log(l);
        ++n;
    }
    if (n == 0) return 0.0f;
    const double ev = std::log2(0.18) - sum_log / double(n) / std::log(2.0);
    return float(std::clamp(std::round(ev * 100.0) / 100.0, -30.0, 30.0));
}

void encode_at_exposure(const LinearImage& linear, float ev, Image& out) {
    out = Image(linear.width, linear.height);
    const auto thresholds = make_srgb_thresholds();
    const float scale = exposure_scale(ev);
    for (int y = 0; y < linear.height; ++y)
        for (int x = 0; x < linear.width; ++x) {
            const float* p = linear.pixel(x, y);
            const uint32_t rgba = pack_rgba(thresholds.data(), glm::vec3(p[0], p[1], p[2]) * scale);
            uint8_t* o = out.pixel(x, y);
            for (int c = 0; c < 4; ++c) o[c] = uint8_t(rgba >> (8 * c));
        }
}

double mean_luminance(const LinearImage& linear) {
    double sum = 0.0;
    for (size_t i = 0; i + 2 < linear.rgb.size(); i += 3) sum += lum(linear.rgb[i], linear.rgb[i + 1], linear.rgb[i + 2]);
    const size_t pixels = linear.rgb.size() / 3;
    return pixels ? sum / double(pixels) : 0.0;
}

double brightest_light(const Scene& scene) {
    double b = lum(scene.background);
    for (const Light& l : scene.lights) b = std::max(b, lum(l.colour));
    for (const Material& m : scene.materials) b = std::max(b, lum(m.emission));
    if (const Environment& e = scene.environment; e.active()) {  // its mean: a sun's few texels would mislead
        const RadianceImage& img = *e.image;
        double sum = 0.0;
        for (size_t k = 0; k + 2 < img.rgb.size(); k += 3) sum += lum(img.rgb[k], img.rgb[k + 1], img.rgb[k + 2]);
        b = std::max(b, double(e.intensity) * sum / double(img.rgb.size() / 3));
    }
    return b;
}

std::string dark_image_note(const Scene& scene, const LinearImage& linear, float ev) {
    const double mean = mean_luminance(linear), brightest = brightest_light(scene);
    char head[256];
    if (!(brightest > 0.0)) {
        if (mean > 0.0) return "";
        return "the image is black: nothing in the scene emits light (no lights, no emissive material, a black "
               "background); add a light (--light x,y,z) or an emitter";
    }
    if (mean >= 1e-3 * brightest) return "";
    std::snprintf(head, sizeof head, "the image is nearly black: its mean luminance %.3g is below 1/1000 of its brightest light's %.3g",
                  mean, brightest);
    std::string why;
    // The physical point light farthest from the scene's centre, relative to its intensity.
    // The scene's centre: that of its finite bounds, or (planes alone) what the camera looks at.
    const Bounds3 bounds = finite_bounds(scene);
    const glm::dvec3 centre = bounds.lo.x <= bounds.hi.x ? 0.5 * (bounds.lo + bounds.hi) : glm::dvec3(scene.camera.at);
    if (scene.light_model == LightModel::Physical) {
        double best = -1.0, d_best = 0.0, i_best = 0.0;
        for (const Light& l : scene.lights) {
            if (l.type != LightType::Point) continue;
            const double d = glm::length(glm::dvec3(l.position) - centre), e = lum(l.colour) / std::max(d * d, 1e-30);
            if (e > best) best = e, d_best = d, i_best = lum(l.colour);
        }
        if (best >= 0.0) {
            char b[256];
            std::snprintf(b, sizeof b, "; under the physical light model a point light falls off as 1/d^2, and the "
                          "brightest reaching the scene (%.3g) is %.3g from its centre, giving %.3g there; "
                          "--light-model classic keeps it undimmed", i_best, d_best, best);
            why = b;
        }
    }
    if (why.empty()) why = "; the lit surfaces are out of view or in shadow";
    const float suggested = auto_exposure(linear);
    std::string what = suggested != ev ? "; --exposure auto would choose " + ev_text(suggested) + " EV" : "";
    return head + why + what;
}

}  // namespace srt
