// path_vertex.h - one vertex of the path integrator (unidirectional path tracing with
// next-event estimation and multiple importance sampling, as pbrt-v4's `path` integrator),
// written once over a Surface, for every mode's stages (render/stages.h):
//   arrive   the segment just travelled: absorption inside a dielectric, then the
//            surface's emission, weighed by MIS against the light sample that could have
//            found it (full weight after the camera or a delta lobe);
//   light    next-event estimation: one light picked by power, MIS against the BSDF's
//            density for that direction, and the shadow ray for the caller to trace;
//   scatter  a direction from the BSDF, the throughput times its weight, Russian roulette
//            from the third bounce on, survival from the throughput.
// Random numbers come from the frame's sampler (render/sampler.h, which assigns every
// dimension), keyed by (pixel, sample, bounce): group 0 for the light sample, group 1 for
// the BSDF sample and roulette.
#pragma once

#include "accel/intersect.h"
#include "core/hd.h"
#include "render/bsdf.h"
#include "render/lights.h"
#include "render/ray_tree.h"
#include "render/rng.h"
#include "render/sampling.h"
#include "render/surface.h"

#include <glm/glm.hpp>

namespace srt {

// Which estimators of direct light a path combines: both, weighed by multiple importance
// sampling (what renders), or one alone: BsdfOnly counts emission wherever a BSDF sample
// finds it and samples only delta lights; LightOnly counts an area light only through its
// light sample (and emission after the camera or a delta lobe, which no light sample can
// stand for). All three converge to the same image; the tests hold MIS to the other two.
enum class PathStrategy { Mis, BsdfOnly, LightOnly };

// What a path carries from one vertex to the next.
struct PathState {
    glm::vec3 throughput{1.0f};
    float prev_pdf = 0.0f;  // the BSDF density that chose the last segment; 0: the camera or a delta lobe
};

// The surface's BSDF at a hit (render/bsdf.h), its colour (texture, checker) and maps
// (metallic, roughness) included. Kernels without the extended materials (accel/variant.h
// kMaterials) read neither glass's roughness, nor glTF's parameters, nor maps: their
// scenes have none.
template <int kVariant>
SRT_HD_INLINE BsdfParams surface_bsdf(const SceneView& s, const Surface& sf) {
    BsdfParams b;
    const f4 medium = load_f4(&s.materials[sf.material].medium);
    const f4 g = load_f4(&s.materials[sf.material].glossy);
    const float rough = materials_of(kVariant) ? g.w * sf.maps.y : g.w;
    if (medium.w > 0.0f) {  // a dielectric: n inside / n outside, turned to this side's ratio
        b.eta = sf.front ? medium.w : 1.0f / medium.w;
        if constexpr (materials_of(kVariant)) b.alpha = rough * rough;
        return b;
    }
    if (materials_of(kVariant) && g.z == kGltfMarker) return gltf_bsdf(sf.colour, g.x * sf.maps.x, rough * rough, g.y);
    b.diffuse = sf.colour * sf.kd;
    const bool glossy = g.x > 0.0f || g.y > 0.0f || g.z > 0.0f;
    b.specular = glossy ? glm::vec3(g.x, g.y, g.z) : sf.kr;
    // A roughness without a lobe to be rough (MTL walls: Ks 0 with an Ns) means nothing.
    b.alpha = luminance(b.specular) > 0.0f ? rough * rough : 0.0f;
    return b;
}

// The segment from the last vertex to this hit (t along the unit direction d), and the
// light the surface sends back along it.
template <int kVariant, PathStrategy kStrategy = PathStrategy::Mis>
SRT_HD_INLINE glm::vec3 path_arrive(const SceneView& s, const Surface& sf, int32_t prim, const glm::vec3& d, float t,
                                    PathState& st) {
    const f4 medium = load_f4(&s.materials[sf.material].medium);
    if (medium.w > 0.0f && !sf.front)  // it travelled inside this dielectric: Beer-Lambert
        st.throughput = st.throughput * beer_lambert(medium, t);
    const f4 e = load_f4(&s.materials[sf.material].emission);
    if (!(e.x > 0.0f || e.y > 0.0f || e.z > 0.0f) || !(sf.front || (float_bits(e.w) & kEmissionTwoSided))) return glm::vec3(0.0f);
    float mis = 1.0f;
    if constexpr (kStrategy == PathStrategy::LightOnly)
        if (st.prev_pdf > 0.0f) return glm::vec3(0.0f);  // the light sample counted it
    if (kStrategy == PathStrategy::Mis && st.prev_pdf > 0.0f && s.prim_emitter != nullptr &&
        uint32_t(prim) < s.prim_count) {
        const uint32_t k = s.prim_emitter[prim];
        if (k != kNoEmitter) {
            // sf.n faces the ray; the density depends on |cos| alone.
            mis = power_heuristic(st.prev_pdf, emitter_pdf(s, k, d, t, sf.n));
        }
    }
    glm::vec3 le(e.x, e.y, e.z);
    if constexpr (materials_of(kVariant)) le = le * sf.emission;  // its texture (render/surface.h)
    return st.throughput * le * mis;
}

// What a path's ray that leaves the scene along d brings back, per unit throughput: the sky
// (render/environment.h). The environment map is a light that light samples find too, so
// after a BSDF sample (prev_pdf > 0) its radiance is weighed by MIS against them; after
// the camera or a delta lobe, or where the map is not sampled, it counts whole.
template <PathStrategy kStrategy = PathStrategy::Mis>
SRT_HD_INLINE glm::vec3 path_escape(const SceneView& s, const glm::vec3& d, float prev_pdf) {
    const glm::vec3 sky = sky_radiance(s, d);
    if (!(prev_pdf > 0.0f) || s.env.light == kNoEmitter) return sky;
    if constexpr (kStrategy == PathStrategy::LightOnly) return glm::vec3(0.0f);  // the light sample counted it
    if constexpr (kStrategy == PathStrategy::BsdfOnly) return sky;
    return sky * power_heuristic(prev_pdf, s.light_pmf[s.env.light] * env_pdf(s.env, d));
}

// Next-event estimation at the surface, up to its shadow ray: one light sample, the ray
// that must reach the light unblocked, and what it brings if it does. The caller traces
// the ray (render/stages.h: at once in the wavefront's shade, or with the path's next
// segment's traversal in a kernel that holds the path in registers).
struct LightQuery {
    glm::vec3 origin{0.0f};
    glm::vec3 dir{0.0f};
    float tmax = 0.0f;
    glm::vec3 lit{0.0f};  // the sample's contribution, unblocked
    bool trace = false;   // false: the sample brings nothing, and no shadow ray is traced
};

template <PathStrategy kStrategy = PathStrategy::Mis, bool kExtended = true>
SRT_HD_INLINE LightQuery path_light(const SceneView& s, const Surface& sf, const BsdfParams& b, const Frame& frame,
                                    const glm::vec3& wo, const glm::vec4& u, const PathState& st) {
    LightQuery q;
    if (!has_density<kExtended>(b)) return q;
    const glm::vec3 o = offset_origin(sf);
    const LightSample ls = sample_light<kExtended>(s, o, u.x, u.y, u.z);
    if (!ls.valid) return q;
    // A light behind the surface is seen only through a rough dielectric, by a shadow ray
    // that leaves from the far side of the hit point's error bound.
    const float side = glm::dot(ls.wi, sf.n);
    const bool behind = !(side > 0.0f);
    if (behind && !(has_rough_dielectric<kExtended>(b) && side < 0.0f)) return q;
    if (kStrategy == PathStrategy::BsdfOnly && !ls.delta) return q;  // the BSDF sample finds it
    const glm::vec3 wi = frame.to_local(ls.wi);
    const glm::vec3 f = bsdf_eval<kExtended>(b, wo, wi);
    if (!(f.x > 0.0f || f.y > 0.0f || f.z > 0.0f)) return q;
    const float mis = ls.delta || kStrategy != PathStrategy::Mis ? 1.0f : power_heuristic(ls.pdf, bsdf_pdf<kExtended>(b, wo, wi));
    q.origin = behind ? offset_ray_origin(sf.p, sf.p_err, -sf.n) : o;
    q.dir = ls.wi;
    // Short of the light by a part in 10^4, so that the emitter itself does not block it.
    q.tmax = ls.delta ? ls.dist : ls.dist * 0.9999f;
    q.lit = st.throughput * f * ls.radiance * (fabsf(wi.z) * mis / ls.pdf);
    // Into the dielectric from outside: what its inside absorbs on the way to the light
    // (tested first, a directional light's distance being infinite: 0 x inf is NaN).
    if (behind && sf.front) {
        const f4 medium = load_f4(&s.materials[sf.material].medium);
        if (medium.x > 0.0f || medium.y > 0.0f || medium.z > 0.0f) q.lit = q.lit * beer_lambert(medium, ls.dist);
    }
    q.trace = true;
    return q;
}

// The next segment from the BSDF: false when the path ends here (absorbed, or cut by
// Russian roulette). `bounce` 0 is the camera ray's hit.
template <bool kExtended = true>
SRT_HD_INLINE bool path_scatter(const Surface& sf, const BsdfParams& b, const Frame& frame, const glm::vec3& wo,
                                const glm::vec4& u, int bounce, PathState& st, glm::vec3& origin, glm::vec3& dir) {
    const BsdfSample bs = bsdf_sample<kExtended>(b, wo, u.x, u.y, u.z);
    if (!bs.valid) return false;
    const glm::vec3 wi = frame.to_world(bs.wi);
    // A shading normal can send a reflected ray below the surface, or a refracted one
    // above it: such a path ends.
    const float side = glm::dot(wi, sf.n);
    if (bs.transmitted ? !(side < 0.0f) : !(side > 0.0f)) return false;
    st.throughput = st.throughput * bs.weight;
    st.prev_pdf = bs.delta ? 0.0f : bs.pdf;
    if (bounce >= 2) {
        const float q = fminf(1.0f, max_component(st.throughput));
        if (!(u.w < q)) return false;
        st.throughput = st.throughput * (1.0f / q);
    }
    origin = offset_ray_origin(sf.p, sf.p_err, bs.transmitted ? -sf.n : sf.n);
    dir = glm::normalize(wi);
    return true;
}

}  // namespace srt
