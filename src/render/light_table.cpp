// light_table.cpp - the lights the path integrator samples (render/lights.h), compiled:
// every emissive triangle and sphere as an EmitterGpu, and one distribution over the
// scene's point and directional lights, the emitters and the environment map, in
// proportion to their power,
// so that bright lights get the samples. A point light a loader placed as the stand-in of
// an emissive surface (Light::from_emission) keeps its slot with probability 0: the
// surface itself is sampled instead, and Whitted's light list is left as it was.
#include "render/scene_geometry.h"
#include "render/scene_gpu.h"

#include "render/lights.h"
#include "render/sampling.h"

#include <algorithm>
#include <utility>
#include <vector>
#include <cmath>

namespace srt {

namespace {

double luminance_d(const glm::vec3& c) { return 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z; }

// The luminance a primitive with an emission texture sends on average over its surface:
// the emission times the texture at 8 x 8 stratified points, uniform in area, read as
// light samples read it (render/lights.h emitter_texture). An estimate: any
// positive power keeps light sampling unbiased, and one of 0 (a primitive whose texture
// is black where the points fall) leaves it to the BSDF's samples, which MIS then weighs
// fully.
double textured_luminance(const SceneView& v, const EmitterGpu& e, const glm::vec3& emission) {
    constexpr int kSide = 8;
    double sum = 0.0;
    for (int j = 0; j < kSide; ++j)
        for (int i = 0; i < kSide; ++i) {
            glm::vec3 p, n;
            glm::vec2 b(0.0f);
            emitter_point(e, (float(i) + 0.5f) / kSide, (float(j) + 0.5f) / kSide, p, n, b);
            sum += luminance_d(emission * emitter_texture(v, e, n, b));
        }
    return sum / (kSide * kSide);
}

}  // namespace

void compile_light_table(const Scene& scene, CompiledScene& cs) {
    cs.emitters.clear();
    cs.prim_emitter.clear();
    cs.light_cdf.clear();
    cs.light_pmf.clear();
    // The emitters, from the compiled primitives (rendering space).
    std::vector<double> power;
    bool any = false;
    for (const PrimGpu& p : cs.prims) {
        const uint32_t m = float_bits(p.p0.w) & kPrimMaterialMask;
        any = any || (m < scene.materials.size() && scene.materials[m].emits());
    }
    // Bounds of the primitives, for a directional light's power: what falls on the scene.
    glm::dvec3 lo(1e300), hi(-1e300);
    for (const PrimGpu& p : cs.prims) grow_prim_bounds(p, lo, hi);
    if (!cs.instances.empty()) {
        // With instances, meshes' primitives are in their object spaces: the box that
        // compile_scene made of the placements in rendering space instead.
        lo = cs.instanced_lo;
        hi = cs.instanced_hi;
    }
    const double radius = cs.prims.empty() ? 1.0 : 0.5 * glm::length(hi - lo);
    for (size_t k = 0; k < cs.lights.size(); ++k) {
        const glm::vec3 c(cs.lights[k].colour.x, cs.lights[k].colour.y, cs.lights[k].colour.z);
        const bool stand_in = k < scene.lights.size() && scene.lights[k].from_emission;
        const bool point = cs.lights[k].pos_or_dir.w != 0.0f;
        const bool classic = cs.lights[k].colour.w == 0.0f;
        // A physical point light of intensity I sends 4 pi I; a directional one of
        // irradiance E brings pi r^2 E onto a scene of radius r. A classic light brings
        // irradiance pi L wherever it is (render/lights.h), so pi r^2 pi L, point or not.
        const double area = M_PI * radius * radius;
        power.push_back(stand_in  ? 0.0
                        : classic ? luminance_d(c) * area * M_PI
                                  : luminance_d(c) * (point ? 4.0 * M_PI : area));
    }
    if (any) {
        cs.prim_emitter.assign(cs.prims.size(), kNoEmitter);
        // The emitters in the scene's order (by original id), not the BVH's, so that the
        // light a sample picks does not depend on the tree, its layout or its spatial
        // splits; a primitive stored once a reference (a split cut it) is one emitter.
        const SceneView view = cs.view();  // the textures and coordinates, for textured emitters
        std::vector<std::pair<uint32_t, uint32_t>> copies;  // (original id, position) of each emissive copy
        for (size_t i = 0; i < cs.prims.size(); ++i) {
            const PrimGpu& p = cs.prims[i];
            if (scene.materials[float_bits(p.p0.w) & kPrimMaterialMask].emits())
                copies.emplace_back(float_bits(p.p2.w), uint32_t(i));
        }
        std::sort(copies.begin(), copies.end());
        for (size_t c = 0, next = 0; c < copies.size(); c = next) {
            for (next = c; next < copies.size() && copies[next].first == copies[c].first;) ++next;
            const uint32_t i = copies[c].second;  // its first copy
            const PrimGpu& p = cs.prims[i];
            const uint32_t meta = float_bits(p.p0.w);
            const Material& m = scene.materials[meta & kPrimMaterialMask];
            EmitterGpu e;
            e.p0 = f4{p.p0.x, p.p0.y, p.p0.z, bits_float(i)};
            double area;
            if (meta & kPrimSphereBit) {
                const double r = p.p1.x;
                area = 4.0 * M_PI * r * r;
                e.e1 = f4{p.p1.x, 0.0f, 0.0f, float(area)};
                e.e2 = f4{0.0f, 0.0f, 0.0f, bits_float(kEmitterSphere)};
            } else {
                const glm::dvec3 e1(p.p1.x, p.p1.y, p.p1.z), e2(p.p2.x, p.p2.y, p.p2.z);
                area = 0.5 * glm::length(glm::cross(e1, e2));
                e.e1 = f4{p.p1.x, p.p1.y, p.p1.z, float(area)};
                e.e2 = f4{p.p2.x, p.p2.y, p.p2.z, bits_float(kEmitterTriangle)};
            }
            if (!(area > 0.0)) continue;
            e.radiance = f4{m.emission.x, m.emission.y, m.emission.z, m.emission_two_sided ? 1.0f : 0.0f};
            const double lum =
                m.emission_texture == kNoTexture ? luminance_d(m.emission) : textured_luminance(view, e, m.emission);
            for (size_t j = c; j < next; ++j) cs.prim_emitter[copies[j].second] = uint32_t(cs.emitters.size());
            cs.emitters.push_back(e);
            // Radiance L from area A into a hemisphere: pi A L (each side that emits).
            power.push_back(lum * M_PI * area * (m.emission_two_sided ? 2.0 : 1.0));
        }
        if (cs.emitters.empty()) cs.prim_emitter.clear();
    }
    // The environment map, last: its power is what it sends onto the scene's bounds.
    compile_environment(scene, radius, cs);
    if (cs.env_power > 0.0) {
        cs.env.light = uint32_t(power.size());
        power.push_back(cs.env_power);
    }
    double total = 0.0;
    for (double w : power) total += w;
    if (!(total > 0.0)) {  // nothing to sample: the table stays empty
        cs.env.light = kNoEmitter;
        return;
    }
    // The pmf is the float width of each light's interval of the cdf, so that the density
    // a light sample reports is the probability with which it is picked.
    double sum = 0.0;
    for (double w : power) {
        cs.light_cdf.push_back(float(sum / total));
        sum += w;
    }
    for (size_t k = 0; k < cs.light_cdf.size(); ++k)
        cs.light_pmf.push_back((k + 1 < cs.light_cdf.size() ? cs.light_cdf[k + 1] : 1.0f) - cs.light_cdf[k]);
}

}  // namespace srt
