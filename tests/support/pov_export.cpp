// pov_export.cpp - Scene -> POV-Ray 3.7 source. See pov_export.h and
// /work/shared/docs/oracles.md for why each setting is what it is.
#include "support/pov_export.h"

#include <glm/glm.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

namespace srt {
namespace {

// %.9g round-trips a float exactly, so POV-Ray reads the very values we render.
std::string num(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}
// For values we compute in double here (matrices, distances): keep all of them.
std::string dnum(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}
std::string vec(const glm::vec3& v) { return "<" + num(v.x) + ", " + num(v.y) + ", " + num(v.z) + ">"; }
std::string dvec(const glm::dvec3& v) {
    return "<" + dnum(v.x) + ", " + dnum(v.y) + ", " + dnum(v.z) + ">";
}
glm::vec3 unit_f(const glm::vec3& v) { return v * (1.0f / std::sqrt(glm::dot(v, v))); }

// A dielectric, as /work/shared/docs/oracles.md "POV-Ray for Whitted glass" sets it up.
// Fresnel's glass: a clear pigment, fresnel reflection and conserve_energy (the refracted
// ray weighted 1 - F). NFF's constants (kt > 0): the transmit channel is kt, unfiltered,
// and POV-Ray scales a transmitting pigment's ambient and diffuse by 1 - kt, so they are
// divided by it here. Objects of either cast no shadow (no_shadow): our Whitted shadow
// rays pass through glass.
std::string dielectric_texture(const Material& m) {
    if (m.kt > 0.0f) {
        const double keep = 1.0 - double(m.kt);
        return "texture { pigment { rgbt <" + num(m.colour.x) + ", " + num(m.colour.y) + ", " + num(m.colour.z) +
               ", " + num(m.kt) + "> } finish { ambient " + dnum(m.ka / keep) + " emission 0 diffuse " +
               dnum(m.kd / keep) + " specular 0 phong 0 reflection { rgb " + vec(m.kr) + " } } }";
    }
    return "texture { pigment { rgbf <1, 1, 1, 1> } finish { ambient 0 emission 0 diffuse 0 specular 0 phong 0 "
           "reflection { 0, 1 fresnel on } conserve_energy } }";
}
// What follows an object's texture: a dielectric's interior, and no shadow.
std::string object_extra(const Material& m) {
    return m.is_dielectric() ? " interior { ior " + num(m.ior) + " } no_shadow" : "";
}

std::string finish_of(const Material& m) {
    // Ambient Ka (times global_settings' ambient_light), no emission/specular/phong:
    // the ambient, Lambert and mirror terms. POV-Ray adds reflection on top of the
    // diffuse term, as our model does.
    return "finish { ambient " + num(m.ka) + " emission 0 diffuse " + num(m.kd) +
           " specular 0 phong 0 reflection { rgb " + vec(m.kr) + " } }";
}

// The checker pattern as a matrix from world space to POV's pattern space. POV's
// `checker` is 3-D: value = floor(x) + floor(y) + floor(z), odd -> second colour. We map
//   x = dot(p - point, u) / size,  z = dot(p - point, v) / size,  y = dot(p - point, n) + 0.5
// so x and z floor exactly as our (u, v) cells do, and y sits in the middle of a cell
// (floor = 0) instead of on a boundary, where the pattern would flicker.
// (Older POV sources add SMALL_TOLERANCE = 1e-3 inside each floor; the 3.7 binary we
// test against does not: compensating for it put every cell-edge pixel within 1e-3
// of a boundary in the wrong cell, which the comparison showed plainly.)
std::string checker_transform(const Plane& pl) {
    // Axes exactly as compile_scene/surface_at compute them, in float.
    const glm::vec3 n = unit_f(pl.normal);
    const glm::vec3 h = std::fabs(n.z) < 0.9f ? glm::vec3(0, 0, 1) : glm::vec3(1, 0, 0);
    const glm::vec3 u = unit_f(glm::cross(n, h));
    const glm::vec3 v = glm::cross(n, u);
    const double s = pl.checker_size;
    const glm::dvec3 du(u), dv(v), dn(n), pt = pl.point;
    // POV's matrix <a..l> maps a row vector: x' = a x + d y + g z + j, and so on, so
    // column k of the 3x3 block is the k-th output axis.
    const glm::dvec3 cx = du / s, cy = dn, cz = dv / s;
    const double ox = -glm::dot(pt, du) / s, oy = -glm::dot(pt, dn) + 0.5, oz = -glm::dot(pt, dv) / s;
    std::ostringstream o;
    // `inverse`: the matrix we give maps world -> pattern; POV-Ray stores transforms
    // as pattern -> world and evaluates with the inverse, i.e. with exactly ours.
    o << "transform { matrix <" << dnum(cx.x) << ", " << dnum(cy.x) << ", " << dnum(cz.x) << ", "
      << dnum(cx.y) << ", " << dnum(cy.y) << ", " << dnum(cz.y) << ", " << dnum(cx.z) << ", "
      << dnum(cy.z) << ", " << dnum(cz.z) << ", " << dnum(ox) << ", " << dnum(oy) << ", "
      << dnum(oz) << "> inverse }";
    return o.str();
}

}  // namespace

std::string to_pov(const Scene& s, int width, int height, int depth) {
    std::ostringstream o;
    o << "// " << s.name << " exported for POV-Ray 3.7 by tests/support/pov_export.cpp\n";
    o << "#version 3.7;\n";
    // adc_bailout 0: weak reflection rays must not be cut early.
    o << "global_settings { assumed_gamma 1.0 ambient_light rgb " << vec(s.ambient) << " max_trace_level " << depth
      << " adc_bailout 0 }\n";
    o << "background { rgb " << vec(s.background) << " }\n";

    // Our camera is right-handed (right = forward x up). POV-Ray is left-handed; a
    // negative `right` flips its handedness, and with look_at it then builds
    // right = forward x sky and up = the part of sky orthogonal to forward, ours exactly.
    // `angle` is the horizontal field of view edge to edge, as our fov_deg is.
    const Camera& c = s.camera;
    o << "camera {\n  perspective\n  location " << dvec(c.from) << "\n  right <"
      << dnum(-double(width) / double(height)) << ", 0, 0>\n  up <0, 1, 0>\n  sky " << vec(c.up)
      << "\n  angle " << num(c.fov_deg) << "\n  look_at " << dvec(c.at) << "\n}\n";

    // Materials as textures (pigment + finish), one #declare each.
    for (size_t i = 0; i < s.materials.size(); ++i) {
        const Material& m = s.materials[i];
        if (m.is_dielectric())
            o << "#declare M" << i << " = " << dielectric_texture(m) << "\n";
        else
            o << "#declare M" << i << " = texture { pigment { rgb " << vec(m.colour) << " } " << finish_of(m)
              << " }\n";
    }

    // Parallel lights sit far outside everything finite: POV-Ray ends their shadow
    // rays at the plane through the light's location, ours go on forever.
    Bounds3 b = finite_bounds(s);
    b.grow(c.from);
    const glm::dvec3 centre = (glm::dvec3(b.lo) + glm::dvec3(b.hi)) * 0.5;
    const double extent = std::max(1.0, double(glm::length(b.hi - b.lo)));
    const double far = 1000.0 * extent;
    for (const Light& l : s.lights) {
        if (l.type == LightType::Point) {
            o << "light_source { " << dvec(l.position) << " color rgb " << vec(l.colour) << " }\n";
        } else {
            const glm::dvec3 d = glm::normalize(glm::dvec3(unit_f(l.direction)));
            o << "light_source { " << dvec(centre - far * d) << " color rgb " << vec(l.colour)
              << " parallel point_at " << dvec(centre) << " }\n";
        }
    }

    for (const Sphere& sp : s.spheres)
        o << "sphere { " << dvec(sp.centre) << ", " << dnum(sp.radius) << " texture { M" << sp.material << " }"
          << object_extra(s.materials[sp.material]) << " }\n";

    for (const Plane& pl : s.planes) {
        const glm::vec3 n = unit_f(pl.normal);
        // plane { n, d } is the set n.p = d.
        const double d = glm::dot(glm::dvec3(n), pl.point);
        o << "plane { " << vec(n) << ", " << dnum(d) << " ";
        if (pl.checker) {
            const Material& m = s.materials[pl.material];
            // Even cells: the material's colour; odd cells: checker_colour. Same finish.
            o << "texture { pigment { checker rgb " << vec(m.colour) << ", rgb "
              << vec(pl.checker_colour) << " " << checker_transform(pl) << " } " << finish_of(m)
              << " }";
        } else {
            o << "texture { M" << pl.material << " }";
        }
        o << " }\n";
    }

    // Triangles: one mesh2 per material (and per flat/smooth), three vertices per
    // triangle (no sharing, so every triangle keeps its exact corners). Smooth ones carry
    // their vertex normals (normal_vectors + normal_indices): POV-Ray interpolates them
    // for lighting and reflection, while rays still start on the flat triangle.
    for (int smooth = 0; smooth < 2; ++smooth) {
        std::vector<std::vector<size_t>> by_material(s.materials.size());
        for (size_t i = 0; i < s.triangles.size(); ++i)
            if (int(s.triangles[i].smooth) == smooth) by_material[s.triangles[i].material].push_back(i);
        for (size_t m = 0; m < by_material.size(); ++m) {
            const std::vector<size_t>& tris = by_material[m];
            if (tris.empty()) continue;
            o << "mesh2 {\n  vertex_vectors { " << tris.size() * 3;
            for (size_t i : tris) {
                const Triangle& t = s.triangles[i];
                o << ",\n    " << dvec(t.v0) << ", " << dvec(t.v1) << ", " << dvec(t.v2);
            }
            o << "\n  }\n";
            if (smooth) {
                o << "  normal_vectors { " << tris.size() * 3;
                for (size_t i : tris) {
                    const Triangle& t = s.triangles[i];
                    o << ",\n    " << vec(t.n0) << ", " << vec(t.n1) << ", " << vec(t.n2);
                }
                o << "\n  }\n";
            }
            o << "  face_indices { " << tris.size();
            for (size_t k = 0; k < tris.size(); ++k)
                o << ",\n    <" << 3 * k << ", " << 3 * k + 1 << ", " << 3 * k + 2 << ">";
            o << "\n  }\n";
            if (smooth) {
                o << "  normal_indices { " << tris.size();
                for (size_t k = 0; k < tris.size(); ++k)
                    o << ",\n    <" << 3 * k << ", " << 3 * k + 1 << ", " << 3 * k + 2 << ">";
                o << "\n  }\n";
            }
            // A dielectric mesh is a closed solid (its refraction needs an inside).
            if (s.materials[m].is_dielectric()) o << "  inside_vector <0, 0, 1>\n";
            o << "  texture { M" << m << " }" << object_extra(s.materials[m]) << "\n}\n";
        }
    }
    return o.str();
}

}  // namespace srt
