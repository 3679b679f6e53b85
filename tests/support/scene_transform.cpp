// scene_transform.cpp - see scene_transform.h.
#include "support/scene_transform.h"

namespace srt {

Scene transformed(const Scene& s, float scale, const Point3& translate) {
    // In double, as the scene keeps positions: the transform itself rounds nothing.
    const auto move = [&](const Point3& p) { return double(scale) * p + translate; };
    Scene t = s;
    t.camera.from = move(s.camera.from);
    t.camera.at = move(s.camera.at);
    for (CameraKey& k : t.animation.keys) {
        k.camera.from = move(k.camera.from);
        k.camera.at = move(k.camera.at);
    }
    for (Sphere& sp : t.spheres) {
        sp.centre = move(sp.centre);
        sp.radius *= scale;
    }
    for (Plane& pl : t.planes) {
        pl.point = move(pl.point);
        pl.checker_size *= scale;
        pl.texture_size *= scale;
    }
    for (Triangle& tr : t.triangles) {
        tr.v0 = move(tr.v0);
        tr.v1 = move(tr.v1);
        tr.v2 = move(tr.v2);
    }
    for (Light& l : t.lights)
        if (l.type == LightType::Point) l.position = move(l.position);
    return t;
}

}  // namespace srt
