// prim_test.cpp - the primitives as traversal tests them (accel/bvh.h PrimTestGpu).
#include "accel/bvh.h"

#include <cmath>
#include <limits>

namespace srt {

PrimTestGpu make_triangle_test(const glm::vec3& v0, const glm::vec3& e1, const glm::vec3& e2) {
    // The inverse of [e1 e2 n] by cofactors, in double: row i is the cross product of
    // the other two columns over the determinant.
    const glm::dvec3 a(e1), b(e2);
    const glm::dvec3 n = glm::cross(a, b);
    const double det = glm::dot(a, glm::cross(b, n));  // = |n|^2
    glm::dvec3 r0(0.0), r1(0.0), r2(0.0);
    if (det > 0.0 && std::isfinite(det)) {
        r0 = glm::cross(b, n) / det;
        r1 = glm::cross(n, a) / det;
        r2 = n / det;  // glm::cross(a, b) / det
    }
    const double big = double(std::numeric_limits<float>::max());
    for (const glm::dvec3* r : {&r0, &r1, &r2})
        for (int k = 0; k < 3; ++k)
            if (!(std::fabs((*r)[k]) <= big)) r0 = r1 = r2 = glm::dvec3(0.0);
    PrimTestGpu t;
    t.a = f4{v0.x, v0.y, v0.z, float(r2.x)};
    t.b = f4{float(r2.y), float(r2.z), float(r0.x), float(r0.y)};
    t.c = f4{float(r0.z), float(r1.x), float(r1.y), float(r1.z)};
    return t;
}

PrimTestGpu make_sphere_test(const glm::vec3& centre, float radius, const glm::vec3& centre_lo, float radius_lo) {
    PrimTestGpu t;
    t.a = f4{centre.x, centre.y, centre.z, bits_float(kSphereTestTag)};
    t.b = f4{radius * radius, radius, 0.0f, 0.0f};
    t.c = f4{centre_lo.x, centre_lo.y, centre_lo.z, radius_lo};
    return t;
}

}  // namespace srt
