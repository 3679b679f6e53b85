// json_meshes.cpp - see json_meshes.h.
#include "scene/json_meshes.h"

#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <string>

namespace srt {

using namespace json_doc;

namespace {

// Box projection: each triangle takes the two world axes across its normal's largest
// component, in units of `size` (one copy of a texture per size x size square), with v
// down so that a texture stands upright on walls.
void box_project_uvs(std::vector<Triangle>& tris, size_t first, double size) {
    for (size_t i = first; i < tris.size(); ++i) {
        Triangle& t = tris[i];
        const glm::dvec3 n = glm::abs(glm::cross(t.v1 - t.v0, t.v2 - t.v0));
        const int a = n.x >= n.y && n.x >= n.z ? 0 : n.y >= n.z ? 1 : 2;
        const int ua = a == 0 ? 2 : 0, va = a == 1 ? 2 : 1;
        auto uv = [&](const Point3& p) { return glm::vec2(float(p[ua] / size), float(-p[va] / size)); };
        t.uv0 = uv(t.v0);
        t.uv1 = uv(t.v1);
        t.uv2 = uv(t.v2);
        t.has_uv = true;
    }
}

}  // namespace

glm::mat4 read_transform(const Node& n) {
    n.object("an object");
    n.check_keys({"translate", "rotate", "scale"}, "mesh 'transform'");
    glm::vec3 t(0.0f), r(0.0f), s(1.0f);
    if (Node tn = n.member("translate", "transform 'translate'")) t = tn.vec3();
    if (Node rn = n.member("rotate", "transform 'rotate'")) r = rn.vec3();
    if (Node sn = n.member("scale", "transform 'scale'")) {
        s = sn.v->is_number() ? glm::vec3(sn.number()) : sn.vec3();
        // A zero scale flattens every triangle to nothing.
        if (s.x == 0.0f || s.y == 0.0f || s.z == 0.0f) sn.fail("transform 'scale' must not be 0");
    }
    glm::mat4 m = glm::translate(glm::mat4(1.0f), t);
    m = glm::rotate(m, glm::radians(r.z), glm::vec3(0, 0, 1));
    m = glm::rotate(m, glm::radians(r.y), glm::vec3(0, 1, 0));
    m = glm::rotate(m, glm::radians(r.x), glm::vec3(1, 0, 0));
    return glm::scale(m, s);
}

// The instance keeps the digits the file gives: a placement at 1e5 rounded to float
// would move by 4e-3.
void read_transform_double(const Node& n, glm::dmat3& linear, glm::dvec3& translate) {
    n.object("an object");
    n.check_keys({"translate", "rotate", "scale"}, "instance 'transform'");
    glm::dvec3 t(0.0), r(0.0), sc(1.0);
    if (Node tn = n.member("translate", "transform 'translate'")) t = tn.point();
    if (Node rn = n.member("rotate", "transform 'rotate'")) r = rn.point();
    if (Node sn = n.member("scale", "transform 'scale'")) {
        sc = sn.v->is_number() ? glm::dvec3(sn.number_double()) : sn.point();
        if (sc.x == 0.0 || sc.y == 0.0 || sc.z == 0.0) sn.fail("transform 'scale' must not be 0");
    }
    const auto rot = [](double deg, int axis) {
        // Exact for multiples of 90 degrees, so that a quarter turn moves no float.
        const double q = deg / 90.0;
        double c, s;
        if (q == std::floor(q)) {
            const int k = int(std::fmod(std::fmod(q, 4.0) + 4.0, 4.0));
            c = k == 0 ? 1.0 : k == 2 ? -1.0 : 0.0;
            s = k == 1 ? 1.0 : k == 3 ? -1.0 : 0.0;
        } else {
            c = std::cos(deg * M_PI / 180.0);
            s = std::sin(deg * M_PI / 180.0);
        }
        glm::dmat3 m(1.0);
        const int a = (axis + 1) % 3, b = (axis + 2) % 3;  // column-major: m[column][row]
        m[a][a] = c;
        m[a][b] = s;
        m[b][a] = -s;
        m[b][b] = c;
        return m;
    };
    linear = rot(r.z, 2) * rot(r.y, 1) * rot(r.x, 0) * glm::dmat3(glm::dvec3(sc.x, 0, 0), glm::dvec3(0, sc.y, 0), glm::dvec3(0, 0, sc.z));
    translate = t;
    // Renderers move rays by the transform and its inverse in float.
    const double det = glm::determinant(linear);
    bool fits = std::isfinite(det) && std::fabs(det) >= 1e-30 && std::fabs(det) <= 1e30;
    for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 3; ++k) fits = fits && std::fabs(linear[c][k]) <= 1e30;
    if (!fits) n.fail("instance 'transform' scales beyond what float carries (entries at most 1e30, the determinant within 1e-30 to 1e30)");
}

void read_uv_projection(const Node& uv, std::vector<Triangle>& tris, size_t first) {
    uv.object("an object");
    uv.check_keys({"projection", "size"}, "mesh 'uv'");
    const std::string proj = uv.require("projection", "mesh 'uv'").str();
    if (proj != "box") uv.member("projection", "").fail("unknown uv projection '" + proj + "'" + suggestion(proj, {"box"}));
    double size = 1.0;
    if (Node sz = uv.member("size", "mesh 'uv' 'size'")) {
        size = sz.number_double();
        if (!(size > 0.0)) sz.fail("mesh 'uv' 'size' must be > 0");
    }
    box_project_uvs(tris, first, size);
}

}  // namespace srt
