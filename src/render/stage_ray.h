// stage_ray.h - a ray as the stage functions (render/stages.h) see it, in either of its
// two forms, and the film its radiance is added to:
//   RaySlot - ray i's slots in the frame's SoA buffers (the wavefront stages);
//   PathRay - one ray in registers (the kernels that follow a path through every bounce).
// Both add radiance through the film's rule for samples that are not finite, so every
// mode drops the same samples.
#pragma once

#include "accel/hit_point.h"
#include "core/hd.h"
#include "render/frame.h"
#include "render/path_vertex.h"
#include "render/surface.h"

#include <glm/glm.hpp>

namespace srt {

SRT_HD_INLINE glm::vec3 load3(const f4* p, uint32_t i) { return xyz(p[i]); }
SRT_HD_INLINE void store3(f4* p, uint32_t i, const glm::vec3& v) { p[i] = f4{v.x, v.y, v.z, 0.0f}; }

// ---------------------------------------------------------------------------
// The film: a pixel's running sum of radiance, and the samples it drops
// ---------------------------------------------------------------------------
// A NaN or an infinity added to a pixel's sum stays there for every later sample and
// frame of it, so, as Cycles and pbrt do, a radiance sample (a term a path adds: the
// background, an emission, a light sample) that is not finite, or would make the sum
// overflow, is left out and counted instead, in the sum's w (RayBuffers::radiance),
// which resolve totals into FrameStats::nonfinite_samples.
// A path whose throughput stops being finite ends there, counted once, rather than
// adding a non-finite term at each vertex after. The check is on bits every device
// computes alike, so every mode and both executors drop the same samples.

// Every component finite (not a NaN, not an infinity).
SRT_HD_INLINE bool finite3(const glm::vec3& v) {
    return fabsf(v.x) <= 3.40282347e38f && fabsf(v.y) <= 3.40282347e38f && fabsf(v.z) <= 3.40282347e38f;
}

// sum += term where the new sum is finite; false (sum unchanged) where it is not: a term
// that is a NaN or an infinity, or a finite one too bright for the sum to hold.
SRT_HD_INLINE bool add_finite(glm::vec3& sum, const glm::vec3& term) {
    const glm::vec3 next = sum + term;
    if (!finite3(next)) return false;
    sum = next;
    return true;
}

// Adds a pixel's count of dropped samples to the frame's (FrameContext::nonfinite), one
// atomic per pixel that dropped any, from resolve's threads on either side.
SRT_HD_INLINE void count_nonfinite(const FrameContext& f, float dropped) {
    if (!(dropped > 0.0f) || f.nonfinite == nullptr) return;
#if defined(__CUDA_ARCH__)
    atomicAdd(f.nonfinite, (unsigned long long)dropped);
#else
    __atomic_fetch_add(f.nonfinite, (unsigned long long)dropped, __ATOMIC_RELAXED);
#endif
}

// ---------------------------------------------------------------------------
// A ray as the stages see it. The stage logic (render/stages.h) is written once, over
// either form:
//   RaySlot - ray i's slots in the frame's SoA buffers: a field is loaded when read and
//             stored when written, so a wavefront stage moves only the fields it needs;
//   PathRay - one ray in registers, for kernels that follow a path through every bounce
//             (the megakernel, path regeneration, the stencil's path tail).
// Both do the same arithmetic in the same order, so every mode makes the same image.
// ---------------------------------------------------------------------------
struct RaySlot {
    const RayBuffers* b;
    uint32_t i;
    SRT_HD_INLINE glm::vec3 origin() const { return load3(b->origin, i); }
    SRT_HD_INLINE glm::vec3 dir() const { return load3(b->dir, i); }
    SRT_HD_INLINE glm::vec3 weight() const { return load3(b->weight, i); }
    SRT_HD_INLINE glm::vec3 radiance() const { return load3(b->radiance, i); }
    SRT_HD_INLINE float hit_t() const { return b->hit_t[i]; }
    SRT_HD_INLINE int32_t hit_id() const { return b->hit_id[i]; }
    SRT_HD_INLINE uint32_t hit_inst() const { return b->hit_inst[i]; }
    SRT_HD_INLINE Cone cone() const { return Cone{b->origin[i].w, b->dir[i].w}; }
    SRT_HD_INLINE void set_ray(const glm::vec3& o, const glm::vec3& d, const Cone& c) const {
        b->origin[i] = f4{o.x, o.y, o.z, c.width};
        b->dir[i] = f4{d.x, d.y, d.z, c.spread};
    }
    SRT_HD_INLINE void set_weight(const glm::vec3& v) const { store3(b->weight, i, v); }
    // The pixel's sum (the film, above): cleared by sample 0; a sample added or dropped.
    SRT_HD_INLINE void clear_sum() const { b->radiance[i] = f4{0.0f, 0.0f, 0.0f, 0.0f}; }
    SRT_HD_INLINE void add_radiance(const glm::vec3& t) const {
        const f4 v = b->radiance[i];
        glm::vec3 sum = xyz(v);
        const float dropped = v.w + float(!add_finite(sum, t));
        b->radiance[i] = f4{sum.x, sum.y, sum.z, dropped};
    }
    // (sum + t0) + t1, with one load and one store of the sum.
    SRT_HD_INLINE void add_radiance(const glm::vec3& t0, const glm::vec3& t1) const {
        const f4 v = b->radiance[i];
        glm::vec3 sum = xyz(v);
        const float dropped = v.w + float(!add_finite(sum, t0)) + float(!add_finite(sum, t1));
        b->radiance[i] = f4{sum.x, sum.y, sum.z, dropped};
    }
    SRT_HD_INLINE void drop_sample() const { b->radiance[i].w += 1.0f; }
    // The path integrator's weight: the throughput, and in w the last BSDF density.
    SRT_HD_INLINE PathState path_state() const {
        const f4 w = b->weight[i];
        return PathState{xyz(w), w.w};
    }
    SRT_HD_INLINE void set_path_state(const PathState& st) const {
        b->weight[i] = f4{st.throughput.x, st.throughput.y, st.throughput.z, st.prev_pdf};
    }
    SRT_HD_INLINE void set_hit(float t, int32_t id) const {
        b->hit_t[i] = t;
        b->hit_id[i] = id;
    }
    SRT_HD_INLINE void set_hit_inst(uint32_t inst) const { b->hit_inst[i] = inst; }
    // Whitted's ray tree (render/ray_tree.h): the weight and, in w, the ray's level.
    SRT_HD_INLINE float level() const { return b->weight[i].w; }
    SRT_HD_INLINE void set_weight_level(const glm::vec3& v, float level) const {
        b->weight[i] = f4{v.x, v.y, v.z, level};
    }
};

struct PathRay {
    glm::vec3 o, d, w, rad;
    float dropped = 0.0f;  // the pixel's non-finite samples left out of rad (the film, above)
    Cone c;
    float pdf = 0.0f;  // path: the last BSDF density (PathState::prev_pdf); Whitted's ray tree: the level
    float t = 0.0f;
    int32_t id = -1;
    uint32_t inst = kNoInstance;
    SRT_HD_INLINE glm::vec3 origin() const { return o; }
    SRT_HD_INLINE glm::vec3 dir() const { return d; }
    SRT_HD_INLINE glm::vec3 weight() const { return w; }
    SRT_HD_INLINE glm::vec3 radiance() const { return rad; }
    SRT_HD_INLINE float hit_t() const { return t; }
    SRT_HD_INLINE int32_t hit_id() const { return id; }
    SRT_HD_INLINE uint32_t hit_inst() const { return inst; }
    SRT_HD_INLINE Cone cone() const { return c; }
    SRT_HD_INLINE void set_ray(const glm::vec3& ro, const glm::vec3& rd, const Cone& rc) {
        o = ro;
        d = rd;
        c = rc;
    }
    SRT_HD_INLINE void set_weight(const glm::vec3& v) { w = v; }
    SRT_HD_INLINE void clear_sum() {
        rad = glm::vec3(0.0f);
        dropped = 0.0f;
    }
    SRT_HD_INLINE void add_radiance(const glm::vec3& t) { dropped += float(!add_finite(rad, t)); }
    SRT_HD_INLINE void add_radiance(const glm::vec3& t0, const glm::vec3& t1) {
        add_radiance(t0);
        add_radiance(t1);
    }
    SRT_HD_INLINE void drop_sample() { dropped += 1.0f; }
    // The pixel's sum from its slot, for a kernel that goes on with it, and back.
    SRT_HD_INLINE void load_sum(const RayBuffers& b, uint32_t i) {
        const f4 v = b.radiance[i];
        rad = xyz(v);
        dropped = v.w;
    }
    SRT_HD_INLINE void store_sum(const RayBuffers& b, uint32_t i) const {
        b.radiance[i] = f4{rad.x, rad.y, rad.z, dropped};
    }
    SRT_HD_INLINE PathState path_state() const { return PathState{w, pdf}; }
    SRT_HD_INLINE void set_path_state(const PathState& st) {
        w = st.throughput;
        pdf = st.prev_pdf;
    }
    SRT_HD_INLINE void set_hit(float ht, int32_t hid) {
        t = ht;
        id = hid;
    }
    SRT_HD_INLINE void set_hit_inst(uint32_t hinst) { inst = hinst; }
    SRT_HD_INLINE float level() const { return pdf; }
    SRT_HD_INLINE void set_weight_level(const glm::vec3& v, float level) {
        w = v;
        pdf = level;
    }
    // The whole ray from its slots (a path tail picks up where the wavefront left it).
    SRT_HD_INLINE static PathRay load(const RayBuffers& b, uint32_t i) {
        PathRay r;
        const f4 o = b.origin[i], d = b.dir[i], w = b.weight[i];
        r.o = xyz(o);
        r.d = xyz(d);
        r.c = Cone{o.w, d.w};
        r.w = xyz(w);
        r.pdf = w.w;
        r.load_sum(b, i);
        return r;
    }
};

}  // namespace srt
