// path_stats.h - a path-traced image as the statistics of its samples, for tests that
// hold the path integrator to a closed form or to another renderer: every pixel's samples
// through the per-pixel reference (render/reference_path.cpp), their means and error bars,
// by the samples' spread or, for scrambled samplers, by independent replicates'.
#pragma once

#include "render/executor.h"
#include "render/path_vertex.h"
#include "render/scene_gpu.h"
#include "support/path_reference.h"

#include <glm/glm.hpp>

#include <stdexcept>
#include <thread>
#include <vector>

namespace srt::test {

struct Stats {
    std::vector<glm::dvec3> sum, sum2;  // per pixel, over every sample of every replicate
    // With reps > 1: each replicate's mean per pixel, [r * w * h + y * w + x]. Replicates
    // are independent randomisations (another seed), so the spread of their means is an
    // honest error bar for samplers whose samples within a pixel, or across pixels
    // (zsobol), are not independent.
    std::vector<glm::dvec3> rep_mean;
    int w = 0, h = 0, n = 0, reps = 1;
    glm::dvec3 mean(int x, int y) const { return sum[size_t(y * w + x)] / double(n); }
    glm::dvec3 var_of_mean(int x, int y) const {
        const glm::dvec3 m = mean(x, y);
        return glm::max(sum2[size_t(y * w + x)] / double(n) - m * m, glm::dvec3(0.0)) / double(n);
    }
};

// Every pixel's samples through the reference, over two threads (each pixel's samples in
// order, so the sums do not depend on the split): `reps` replicates of spp / reps samples
// each, replicate r under seed r, numbers from `sampler`.
inline Stats render_stats(const CompiledScene& cs, int w, int h, int spp, int depth,
                   PathStrategy strategy = PathStrategy::Mis, SamplerKind sampler = SamplerKind::Independent,
                   int reps = 1) {
    Stats st;
    st.w = w;
    st.h = h;
    st.n = spp;
    st.reps = reps;
    st.sum.assign(size_t(w * h), glm::dvec3(0.0));
    st.sum2 = st.sum;
    st.rep_mean.assign(size_t(reps * w * h), glm::dvec3(0.0));
    const int per_rep = spp / reps;
    SamplerLayout layout;
    layout.kind = sampler;
    if (sampler == SamplerKind::ZSobol && !zsobol_layout(uint32_t(w), uint32_t(h), uint32_t(per_rep), layout))
        throw std::invalid_argument("zsobol cannot lay out this frame");
    const CameraGpu cam = make_camera(cs.camera, w, h, cs.render_origin);
    auto rows = [&](int y0, int step) {
        for (int y = y0; y < h; y += step)
            for (int x = 0; x < w; ++x)
                for (int r = 0; r < reps; ++r)
                    for (int s = 0; s < per_rep; ++s) {
                        const glm::dvec3 v(reference_path_sample(cs, cam, w, h, x, y, uint32_t(s), depth,
                                                                 uint32_t(r), nullptr, strategy, layout));
                        st.sum[size_t(y * w + x)] += v;
                        st.sum2[size_t(y * w + x)] += v * v;
                        st.rep_mean[size_t((r * h + y) * w + x)] += v / double(per_rep);
                    }
    };
    std::thread t(rows, 1, 2);
    rows(0, 2);
    t.join();
    return st;
}

// The mean over the size x size pixels at (x0, y0), and its variance (of the mean): from
// the replicates' spread where there are several, else from the samples'.
inline void region_stats(const Stats& st, int x0, int y0, int size, glm::dvec3& m, glm::dvec3& v) {
    m = v = glm::dvec3(0.0);
    const double px = double(size * size);
    for (int y = y0; y < y0 + size; ++y)
        for (int x = x0; x < x0 + size; ++x) {
            m += st.mean(x, y) / px;
            if (st.reps == 1) v += st.var_of_mean(x, y) / (px * px);
        }
    if (st.reps == 1) return;
    for (int r = 0; r < st.reps; ++r) {
        glm::dvec3 rm(0.0);
        for (int y = y0; y < y0 + size; ++y)
            for (int x = x0; x < x0 + size; ++x) rm += st.rep_mean[size_t((r * st.h + y) * st.w + x)] / px;
        v += (rm - m) * (rm - m);
    }
    v /= double(st.reps) * double(st.reps - 1);
}

// k standard errors for `comparisons` tests at a family-wise false-failure rate of 1e-3
// when each error bar is estimated from `dof` degrees of freedom: Bonferroni's normal
// quantile, widened to Student's t (the first terms of its expansion in 1 / dof).
inline double k_for(int comparisons, int dof) {
    const double z = pathref::bonferroni_k(comparisons, 1e-3);
    if (dof <= 0) return z;
    const double z3 = z * z * z, z5 = z3 * z * z;
    return z + (z3 + z) / (4.0 * dof) + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * dof * dof);
}

// The largest |a - scale b| over the combined standard error, over every region channel
// that either image lights.
inline double worst_z(const Stats& a, const Stats& b, double scale = 1.0) {
    double worst = 0.0;
    for (int ry = 0; ry < a.h / 4; ++ry)
        for (int rx = 0; rx < a.w / 4; ++rx) {
            glm::dvec3 ma, va, mb, vb;
            region_stats(a, rx * 4, ry * 4, 4, ma, va);
            region_stats(b, rx * 4, ry * 4, 4, mb, vb);
            for (int c = 0; c < 3; ++c) {
                const double se = std::sqrt(va[c] + scale * scale * vb[c]);
                const double d = std::fabs(ma[c] - scale * mb[c]);
                if (se > 0.0) worst = std::max(worst, d / se);
                else if (d > 0.0) worst = INFINITY;  // both exact, and they differ
            }
        }
    return worst;
}

// The same against the independent path tracer's image (support/path_reference.h), over
// 4 x 4 regions: the largest |scale ours - theirs| over the combined standard error, and
// where it is.
struct WorstRegion {
    double z = 0.0;
    int rx = -1, ry = -1, channel = -1;
    double ours = 0.0, theirs = 0.0;
};
inline WorstRegion worst_z(const Stats& ours, const pathref::Image& theirs, double scale = 1.0) {
    WorstRegion w;
    for (int ry = 0; ry < ours.h / 4; ++ry)
        for (int rx = 0; rx < ours.w / 4; ++rx) {
            glm::dvec3 m, var;
            region_stats(ours, rx * 4, ry * 4, 4, m, var);
            const pathref::Estimate t = pathref::region_stats(theirs, rx * 4, ry * 4, 4, 4);
            const double tm[3] = {t.mean.r, t.mean.g, t.mean.b}, ts[3] = {t.se.r, t.se.g, t.se.b};
            for (int c = 0; c < 3; ++c) {
                const double se = std::sqrt(scale * scale * var[c] + ts[c] * ts[c]);
                const double d = std::fabs(scale * m[c] - tm[c]);
                const double z = se > 0.0 ? d / se : (d > 0.0 ? INFINITY : 0.0);
                if (z > w.z || w.rx < 0) w = WorstRegion{z, rx, ry, c, m[c], tm[c]};
            }
        }
    return w;
}

}  // namespace srt::test
