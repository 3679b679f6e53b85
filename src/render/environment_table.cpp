// environment_table.cpp - the environment map compiled for rendering (render/environment.h):
// its texels times its intensity, and the distribution its light samples are drawn from.
//
// Each texel's cell gets the power that the bilinear radiance sends through it: the
// radiance's luminance averaged over the cell, times the cell's solid angle. Over a cell
// the bilinear interpolant averages to the texels weighed 1/8, 3/4, 1/8 along each axis
// (its neighbours' share of the cell's edges), so a cell is never 0 where the radiance in
// it is not, and every strategy of the path integrator stays unbiased. The rows' cdf and
// each row's cdf over its columns are built in double and rounded once; the densities
// the renderer reports are the widths of these float buckets (render/environment.h), the
// probabilities with which they are picked.
#include "render/scene_gpu.h"

#include <cmath>
#include <vector>

namespace srt {

namespace {

// Fills cdf[0..n) with the running sums of w over their total, from 0; uniform where
// the total is 0 (such a row is never picked).
void build_cdf(const double* w, size_t n, double total, float* cdf) {
    double sum = 0.0;
    for (size_t k = 0; k < n; ++k) {
        cdf[k] = total > 0.0 ? float(sum / total) : float(double(k) / double(n));
        sum += w[k];
    }
}

}  // namespace

void set_environment_rotation(EnvironmentView& env, float degrees) {
    const double a = double(degrees) * (M_PI / 180.0);
    env.cos_rot = float(std::cos(a));
    env.sin_rot = float(std::sin(a));
}

void compile_environment(const Scene& scene, double radius, CompiledScene& cs) {
    cs.env_texels.clear();
    cs.env_row_cdf.clear();
    cs.env_col_cdf.clear();
    cs.env = EnvironmentView{};
    cs.env_power = 0.0;
    const Environment& e = scene.environment;
    if (!e.active()) return;
    const RadianceImage& img = *e.image;
    const size_t w = size_t(img.width), h = size_t(img.height);
    cs.env.width = uint32_t(w);
    cs.env.height = uint32_t(h);
    set_environment_rotation(cs.env, e.rotation);
    cs.env_texels.resize(w * h);
    std::vector<float> lum(w * h);
    for (size_t k = 0; k < w * h; ++k) {
        const float* t = &img.rgb[k * 3];
        const f4 c{t[0] * e.intensity, t[1] * e.intensity, t[2] * e.intensity, 0.0f};
        cs.env_texels[k] = c;
        lum[k] = 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z;
    }
    // The cells' power, row by row; the rows' totals.
    std::vector<double> cell(w * h), row_power(h);
    const double weight[3] = {0.125, 0.75, 0.125};
    double total = 0.0;
    for (size_t j = 0; j < h; ++j) {
        const double cos0 = std::cos(M_PI * double(j) / double(h)), cos1 = std::cos(M_PI * double(j + 1) / double(h));
        const double solid_angle = (2.0 * M_PI / double(w)) * (cos0 - cos1);
        double row_sum = 0.0;
        for (size_t i = 0; i < w; ++i) {
            double avg = 0.0;
            for (int dj = -1; dj <= 1; ++dj) {
                const size_t jj = size_t(std::min<ptrdiff_t>(std::max<ptrdiff_t>(ptrdiff_t(j) + dj, 0), ptrdiff_t(h) - 1));
                for (int di = -1; di <= 1; ++di) {
                    const size_t ii = (i + w + size_t(di + 1) - 1) % w;
                    avg += weight[dj + 1] * weight[di + 1] * double(lum[jj * w + ii]);
                }
            }
            cell[j * w + i] = avg * solid_angle;
            row_sum += avg * solid_angle;
        }
        row_power[j] = row_sum;
        total += row_sum;
    }
    if (!(total > 0.0) || !std::isfinite(total)) return;  // a black map lights nothing: not sampled
    cs.env_row_cdf.resize(h);
    cs.env_col_cdf.resize(w * h);
    build_cdf(row_power.data(), h, total, cs.env_row_cdf.data());
    for (size_t j = 0; j < h; ++j) build_cdf(&cell[j * w], w, row_power[j], &cs.env_col_cdf[j * w]);
    // What the map sends onto a scene of radius r: the flux through its disc, pi r^2
    // times the integral of the radiance over the sphere.
    cs.env_power = M_PI * radius * radius * total;
}

}  // namespace srt
