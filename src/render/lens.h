// lens.h - the thin lens: where a camera ray leaves the lens and where it goes.
//
// The lens is a disk of radius |lens_u| around the camera's position, facing `forward`
// (CameraGpu, made by render/scene_gpu.cpp make_camera). Every ray of a pixel passes
// through the point where the pinhole's ray of that pixel position meets the plane in
// focus, `focus` along `forward`; so a point on that plane is sharp, and a point at depth
// z is spread over a disk of radius R |1/focus - 1/z| in the image plane's tangent units
// (R the lens radius). The point on the lens comes from the sampler (render/sampler.h
// sample_lens) through Shirley and Chiu's concentric map, which keeps stratified points
// stratified on the disk.
#pragma once

#include "accel/prim_hits.h"
#include "accel/scene_view.h"
#include "core/hd.h"
#include "render/sampler.h"
#include "render/sampling.h"

#include <glm/glm.hpp>

namespace srt {

// A uniform point on the unit disk for u in [0, 1)^2 (Shirley and Chiu 1997): the square
// [-1, 1]^2's concentric squares go to concentric circles.
SRT_HD_INLINE glm::vec2 concentric_disk(glm::vec2 u) {
    const float a = 2.0f * u.x - 1.0f, b = 2.0f * u.y - 1.0f;
    if (a == 0.0f && b == 0.0f) return glm::vec2(0.0f);
    float r, turns;
    if (fabsf(a) > fabsf(b)) {
        r = a;
        turns = 0.125f * (b / a);
    } else {
        r = b;
        turns = 0.25f - 0.125f * (a / b);
    }
    float s, c;
    sincos_turns(turns, s, c);
    return glm::vec2(r * c, r * s);
}

struct CameraRay {
    glm::vec3 origin, dir;
};

// The ray through the lens for the pinhole direction `d` (unit) of a pixel position, from
// the lens point that sample `k` draws. Out of line: a frame without an aperture pays for
// no more than the test of c.focus, and the Whitted kernels stay the size they were.
SRT_HD_NOINLINE CameraRay lens_ray(CameraGpu c, glm::vec3 d, SamplerLayout l, RngKey k, bool scrambled) {
    const glm::vec2 p = concentric_disk(sample_lens(l, k, scrambled));
    const glm::vec3 on_focus = d * (c.focus / glm::dot(d, c.forward));  // from the lens's centre
    const glm::vec3 off = c.lens_u * p.x + c.lens_v * p.y;
    return CameraRay{c.origin + off, unit(on_focus - off)};
}

// The camera ray for the pinhole direction `d`: the pinhole's own where there is no lens.
SRT_HD_INLINE CameraRay camera_ray(const CameraGpu& c, const glm::vec3& d, const SamplerLayout& l, const RngKey& k,
                                   bool scrambled) {
    if (!(c.focus > 0.0f)) return CameraRay{c.origin, d};
    return lens_ray(c, d, l, k, scrambled);
}

}  // namespace srt
