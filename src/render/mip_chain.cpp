// mip_chain.cpp - box-filtered mip levels in linear light (render/mip_chain.h).
#include "render/mip_chain.h"

#include "render/srgb.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace srt {
namespace {

struct Linear {
    uint32_t width = 0, height = 0;
    std::vector<std::array<double, 4>> px;  // linear RGB and alpha
};

// One axis of n samples down to m = max(1, n / 2): output i averages the input over
// [i * n / m, (i + 1) * n / m), each input sample counted by how much of it lies there.
// `at(j)` / `put(i, v)` read and write along the axis.
template <class At, class Put>
void box_axis(uint32_t n, uint32_t m, At at, Put put) {
    const double scale = double(n) / double(m);
    for (uint32_t i = 0; i < m; ++i) {
        const double a = i * scale, b = (i + 1) * scale;
        std::array<double, 4> sum{};
        for (uint32_t j = uint32_t(std::floor(a)); j < n && double(j) < b; ++j) {
            const double w = std::min(b, double(j + 1)) - std::max(a, double(j));
            if (w <= 0.0) continue;
            const std::array<double, 4>& v = at(j);
            for (int c = 0; c < 4; ++c) sum[c] += w * v[c];
        }
        for (double& c : sum) c /= scale;
        put(i, sum);
    }
}

Linear halve(const Linear& in) {
    const uint32_t w = std::max(1u, in.width / 2), h = std::max(1u, in.height / 2);
    Linear rows;  // across first: w x in.height
    rows.width = w;
    rows.height = in.height;
    rows.px.resize(size_t(w) * in.height);
    for (uint32_t y = 0; y < in.height; ++y)
        box_axis(
            in.width, w, [&](uint32_t j) -> const std::array<double, 4>& { return in.px[size_t(y) * in.width + j]; },
            [&](uint32_t i, const std::array<double, 4>& v) { rows.px[size_t(y) * w + i] = v; });
    Linear out;
    out.width = w;
    out.height = h;
    out.px.resize(size_t(w) * h);
    for (uint32_t x = 0; x < w; ++x)
        box_axis(
            in.height, h, [&](uint32_t j) -> const std::array<double, 4>& { return rows.px[size_t(j) * w + x]; },
            [&](uint32_t i, const std::array<double, 4>& v) { out.px[size_t(i) * w + x] = v; });
    return out;
}

uint32_t byte_of(double v) { return uint32_t(std::lround(std::clamp(v, 0.0, 1.0) * 255.0)); }

}  // namespace

std::vector<MipLevel> build_mip_chain(const TextureImage& img) {
    std::vector<MipLevel> levels;
    Linear cur;
    cur.width = uint32_t(img.width);
    cur.height = uint32_t(img.height);
    cur.px.resize(img.texels.size());
    for (size_t i = 0; i < img.texels.size(); ++i) {
        const uint32_t t = img.texels[i];
        for (int c = 0; c < 3; ++c) {
            const double v = double((t >> (8 * c)) & 255u) / 255.0;
            cur.px[i][size_t(c)] = img.linear ? v : srgb_to_linear(v);
        }
        cur.px[i][3] = double(t >> 24) / 255.0;
    }
    while (cur.width > 1 || cur.height > 1) {
        cur = halve(cur);
        MipLevel l;
        l.width = cur.width;
        l.height = cur.height;
        l.texels.resize(cur.px.size());
        for (size_t i = 0; i < cur.px.size(); ++i) {
            const std::array<double, 4>& p = cur.px[i];
            const auto encode = [&](double v) { return byte_of(img.linear ? v : linear_to_srgb(v)); };
            l.texels[i] = encode(p[0]) | (encode(p[1]) << 8) | (encode(p[2]) << 16) | (byte_of(p[3]) << 24);
        }
        levels.push_back(std::move(l));
    }
    return levels;
}

}  // namespace srt
