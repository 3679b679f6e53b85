// pathref: equirectangular environment map, its lookup and its importance
// sampling (see path_reference.md, "Environment").
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "support/path_reference.h"

namespace pathref {

namespace {
constexpr double kPi = 3.14159265358979323846;

// World -> map-local direction: undo the map's rotation by +a about +Y.
Vec3 to_local(Vec3 d, double c, double s) {
    return {d.x * c - d.z * s, d.y, d.x * s + d.z * c};
}
// Map-local -> world: the rotation by +a about +Y (inverse of to_local).
Vec3 to_world(Vec3 l, double c, double s) {
    return {l.x * c + l.z * s, l.y, -l.x * s + l.z * c};
}

// (u, v) of a map-local unit direction.
void local_uv(Vec3 l, double& u, double& v) {
    u = 0.5 + std::atan2(l.z, l.x) / (2 * kPi);
    v = std::acos(std::clamp(l.y, -1.0, 1.0)) / kPi;
}

int wrap(int i, int n) {
    const int r = i % n;
    return r < 0 ? r + n : r;
}

const Rgb& texel(const Environment& env, int i, int j) {
    return env.texels[static_cast<size_t>(j) * env.width + i];
}

// Band b (0..H) of the dual grid spans v in [(b - 0.5) / H, (b + 0.5) / H],
// cut to [0, 1]: its corners are rows b - 1 and b, clamped. The two end bands
// are half as tall and interpolate within row 0 / row H - 1 only.
void band_v(int b, int h, double& v_top, double& v_bottom) {
    v_top = std::max(0.0, (b - 0.5) / h);
    v_bottom = std::min(1.0, (b + 0.5) / h);
}
}  // namespace

Rgb environment_radiance(const Environment& env, Vec3 d) {
    const double a = env.rotation_deg * kPi / 180;
    double u, v;
    local_uv(to_local(d, std::cos(a), std::sin(a)), u, v);
    // Texel centres sit at half-integer x, y.
    const double x = u * env.width - 0.5, y = v * env.height - 0.5;
    const double fi = std::floor(x), fj = std::floor(y);
    const double fx = x - fi, fy = y - fj;
    const int i0 = wrap(static_cast<int>(fi), env.width), i1 = wrap(static_cast<int>(fi) + 1, env.width);
    const int j0 = std::clamp(static_cast<int>(fj), 0, env.height - 1);
    const int j1 = std::clamp(static_cast<int>(fj) + 1, 0, env.height - 1);
    const Rgb top = texel(env, i0, j0) * (1 - fx) + texel(env, i1, j0) * fx;
    const Rgb bottom = texel(env, i0, j1) * (1 - fx) + texel(env, i1, j1) * fx;
    return (top * (1 - fy) + bottom * fy) * env.intensity;
}

EnvironmentSampler::EnvironmentSampler(const Environment& env) {
    if (env.width <= 0) return;  // absent
    if (env.height <= 0 || env.texels.size() != static_cast<size_t>(env.width) * env.height)
        throw std::invalid_argument("pathref: environment needs height > 0 and width * height texels");
    if (!(env.intensity >= 0) || !std::isfinite(env.intensity) || !std::isfinite(env.rotation_deg))
        throw std::invalid_argument("pathref: environment intensity must be finite and >= 0");
    for (const Rgb& t : env.texels)
        if (!(t.r >= 0 && t.g >= 0 && t.b >= 0) || !std::isfinite(t.r + t.g + t.b))
            throw std::invalid_argument("pathref: environment texels must be finite and >= 0");
    width_ = env.width;
    height_ = env.height;
    const double a = env.rotation_deg * kPi / 180;
    cos_rot_ = std::cos(a);
    sin_rot_ = std::sin(a);

    const double dphi = 2 * kPi / width_;
    band_dcos_.resize(height_ + 1);
    cdf_.resize(static_cast<size_t>(height_ + 1) * width_);
    cell_pdf_.resize(cdf_.size());
    double total = 0;
    for (int b = 0; b <= height_; ++b) {
        double v0, v1;
        band_v(b, height_, v0, v1);
        // cos(pi v0) - cos(pi v1), in a form without cancellation near the poles.
        band_dcos_[b] = 2 * std::sin(kPi * (v0 + v1) / 2) * std::sin(kPi * (v1 - v0) / 2);
        const int r0 = std::clamp(b - 1, 0, height_ - 1), r1 = std::clamp(b, 0, height_ - 1);
        for (int c = 0; c < width_; ++c) {
            const int c1 = (c + 1) % width_;
            // Zero iff all four corners are black, i.e. iff the bilinear radiance is 0 in the cell.
            const double corners = mean_component(texel(env, c, r0)) + mean_component(texel(env, c1, r0)) +
                                   mean_component(texel(env, c, r1)) + mean_component(texel(env, c1, r1));
            const double w = env.intensity * corners / 4 * dphi * band_dcos_[b];
            const size_t k = static_cast<size_t>(b) * width_ + c;
            cell_pdf_[k] = w;  // normalised below
            total += w;
            cdf_[k] = total;
        }
    }
    total_ = total;
    if (!(total_ > 0)) return;
    for (size_t k = 0; k < cdf_.size(); ++k) {
        cdf_[k] /= total_;
        const int b = static_cast<int>(k / width_);
        cell_pdf_[k] = cell_pdf_[k] / total_ / (dphi * band_dcos_[b]);  // P(cell) / solid angle
    }
    cdf_.back() = 1.0;
}

Vec3 EnvironmentSampler::sample(double u0, double u1, double u2, double* pdf) const {
    // First cell whose cdf exceeds u0: never a zero-probability cell.
    const size_t k = std::min<size_t>(std::upper_bound(cdf_.begin(), cdf_.end(), u0) - cdf_.begin(),
                                      cdf_.size() - 1);
    const int b = static_cast<int>(k / width_), c = static_cast<int>(k % width_);
    // Column c spans u in [(c + 0.5) / W, (c + 1.5) / W), wrapped past u = 1.
    double u = (c + 0.5 + u1) / width_;
    if (u >= 1) u -= 1;
    // Uniform in solid angle within the band: cos(theta) uniform.
    double v0, v1;
    band_v(b, height_, v0, v1);
    const double cos_t = std::cos(kPi * v0) - u2 * band_dcos_[b];
    const double sin_t = std::sqrt(std::max(0.0, 1 - cos_t * cos_t));
    const double phi = 2 * kPi * (u - 0.5);  // inverse of u = 0.5 + atan2(l.z, l.x) / (2 pi)
    *pdf = cell_pdf_[k];
    return to_world({sin_t * std::cos(phi), cos_t, sin_t * std::sin(phi)}, cos_rot_, sin_rot_);
}

double EnvironmentSampler::pdf(Vec3 d) const {
    if (!active()) return 0;
    double u, v;
    local_uv(to_local(d, cos_rot_, sin_rot_), u, v);
    const int c = wrap(static_cast<int>(std::floor(u * width_ - 0.5)), width_);
    const int b = std::clamp(static_cast<int>(std::floor(v * height_ + 0.5)), 0, height_);
    return cell_pdf_[static_cast<size_t>(b) * width_ + c];
}

}  // namespace pathref
