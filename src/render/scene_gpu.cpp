// scene_gpu.cpp - Scene -> CompiledScene: BVH build and flat GPU-ready arrays.
#include "render/scene_gpu.h"

#include "accel/intersect.h"
#include "core/load_progress.h"
#include "core/error.h"
#include "render/mip_chain.h"
#include "render/srgb.h"

#include "core/parallel.h"

#include <algorithm>
#include <atomic>
#include <cmath>

namespace srt {

namespace {
f4 make_f4(const glm::vec3& v, float w) { return f4{v.x, v.y, v.z, w}; }

glm::dvec3 dvec(const glm::vec3& v) { return glm::dvec3(v.x, v.y, v.z); }

// The optional per-primitive arrays a triangle writes: one rule for the scan that sizes
// them and the pass that fills them.
struct TriangleArrays {
    bool normals, tangents, uvs, alpha;
};
TriangleArrays arrays_of(const Triangle& tri, const Material& mat) {
    return {tri.smooth, mat.normal_mapped() && tri.has_tangent && tri.has_uv, mat.reads_uvs(), mat.alpha_mask};
}

// World position -> rendering space: subtracted in double, rounded once.
glm::vec3 relative_to(const Point3& p, const Point3& origin) { return glm::vec3(p - origin); }

// The point that anchors a plane (and its checker and texture) in rendering space: moved
// along the plane to near the camera's foot on it, by whole periods of its pattern (2
// checker squares, one texture copy, or a period of both when one divides the other) so
// that the pattern does not move; not at all when the two periods have none in common.
glm::vec3 plane_anchor(const Plane& pl, bool textured, const glm::vec3& n, const glm::vec3& u, const Point3& origin) {
    const glm::dvec3 q = pl.point - origin, dn = dvec(n), du = dvec(u);
    const glm::dvec3 dv = glm::cross(dn, du);
    double su = -glm::dot(q, du), sv = -glm::dot(q, dv);  // from q to the foot, along u and v
    double period = 0.0;  // 0: any shift keeps the pattern
    const double chk = pl.checker ? 2.0 * double(pl.checker_size) : 0.0, tex = textured ? pl.texture_size : 0.0;
    const auto multiple = [](double a, double b) { return std::fmod(a, b) == 0.0; };
    if (chk > 0.0 && tex > 0.0) period = multiple(chk, tex) ? chk : multiple(tex, chk) ? tex : -1.0;
    else period = chk > 0.0 ? chk : tex;
    if (period < 0.0) return glm::vec3(q);
    if (period > 0.0) {
        su = period * std::round(su / period);
        sv = period * std::round(sv / period);
    }
    return glm::vec3(q + su * du + sv * dv);
}
// How many texture-coordinate units one unit of length on the triangle spans, on average:
// sqrt(area in uv / area in the scene), from the scene's own double corners so that a
// moved scene gets the same value (render/surface.h: the ray cone's footprint in texels); 0 for a
// triangle without area in either.
double uv_per_length(const Triangle& t) {
    const double area = glm::length(glm::cross(t.v1 - t.v0, t.v2 - t.v0));
    const glm::dvec2 a = glm::dvec2(t.uv1) - glm::dvec2(t.uv0), b = glm::dvec2(t.uv2) - glm::dvec2(t.uv0);
    const double uv_area = std::fabs(a.x * b.y - a.y * b.x);
    return area > 0.0 ? std::sqrt(uv_area / area) : 0.0;
}
}  // namespace

CameraGpu make_camera(const Camera& c, int width, int height, const Point3& render_origin) {
    CameraGpu g;
    g.origin = relative_to(c.from, render_origin);
    // at - from in double, rounded once (Camera::direction): near 1e4 a difference in
    // float would keep only the digits the two share. For a camera of floats it is the
    // float difference to the bit (the difference of two floats is exact in double).
    g.forward = unit(c.direction());
    const glm::vec3 right_unit = unit(glm::cross(g.forward, c.up));
    const glm::vec3 up_unit = glm::cross(right_unit, g.forward);
    const double tan_half = std::tan(double(c.fov_deg) * 0.5 * 3.14159265358979323846 / 180.0);
    const float half = float(tan_half);
    g.right = right_unit * half;
    g.up = up_unit * (half * float(height) / float(width));
    g.pixel_spread = float(2.0 * tan_half / double(width));
    if (c.aperture > 0.0f) {
        g.lens_u = right_unit * c.aperture;
        g.lens_v = up_unit * c.aperture;
        g.focus = c.focus();
    }
    return g;
}

const char* to_string(AccelLayout a) {
    switch (a) {
    case AccelLayout::Bvh4: return "bvh4";
    case AccelLayout::Bvh8: return "bvh8";
    default: return "bvh2";
    }
}
bool parse_accel(const std::string& s, AccelLayout& out) {
    if (s == "bvh2") out = AccelLayout::Bvh2;
    else if (s == "bvh4") out = AccelLayout::Bvh4;
    else if (s == "bvh8") out = AccelLayout::Bvh8;
    else return false;
    return true;
}

// A texture's placement as the device reads it (accel/texture.h TexTransformGpu), from
// the double matrix: the identity's numbers are exact, so its coordinates stay the same bits.
static TexTransformGpu tex_transform_gpu(const UvTransform& t) {
    const glm::dmat2& a = t.linear;  // column-major: a[column][row]
    TexTransformGpu g;
    g.m = f4{float(a[0][0]), float(a[1][0]), float(a[0][1]), float(a[1][1])};
    const double det = glm::determinant(a);
    g.o = f4{float(t.offset.x), float(t.offset.y), float(std::sqrt(std::fabs(det))), 0.0f};
    // The inverse's columns, each unit; a singular matrix (every point of a triangle reads
    // one texel, so the map tilts nothing there) keeps the triangles' axes.
    glm::dvec2 u(1.0, 0.0), v(0.0, 1.0);
    if (det != 0.0 && std::isfinite(det)) {
        const glm::dmat2 inv = glm::inverse(a);
        u = glm::normalize(inv[0]);
        v = glm::normalize(inv[1]);
    }
    // A texel's y runs up the image, against v (glTF's and MikkTSpace's bitangent): the
    // axes in the frame (tangent, bitangent) are the unit columns with their v turned over.
    g.axes = f4{float(u.x), float(-v.x), float(-u.y), float(v.y)};
    return g;
}

// The scene's images one after another in `texels`, each followed by its mip chain
// (unless the scene filters bilinearly); each texture is one TextureGpu per level of its
// image. Returns each Scene texture's first entry.
static std::vector<uint32_t> compile_textures(const Scene& scene, CompiledScene& cs) {
    std::vector<uint32_t> first;
    if (scene.textures.empty()) return first;
    struct Level {
        uint32_t offset, width, height;
    };
    std::vector<std::vector<Level>> image_levels(scene.images.size());
    const bool mips = scene.texture_filter == TextureFilter::Trilinear;
    cs.ray_cones = mips;
    for (size_t i = 0; i < scene.images.size(); ++i) {
        const TextureImage& img = scene.images[i];
        std::vector<MipLevel> chain;
        if (mips) chain = build_mip_chain(img);
        const auto add = [&](uint32_t w, uint32_t h, const std::vector<uint32_t>& texels) {
            // Texel indices are 32-bit on the device.
            if (cs.texels.size() + texels.size() > 0xffffffffu)
                throw InputError(scene.name, 0, "the textures hold more than 2^32 texels");
            image_levels[i].push_back({uint32_t(cs.texels.size()), w, h});
            cs.texels.insert(cs.texels.end(), texels.begin(), texels.end());
        };
        add(uint32_t(img.width), uint32_t(img.height), img.texels);
        for (const MipLevel& l : chain) add(l.width, l.height, l.texels);
    }
    const auto wrap = [](Wrap w) { return w == Wrap::Clamp ? kWrapClamp : w == Wrap::MirroredRepeat ? kWrapMirror : kWrapRepeat; };
    const bool transformed =
        std::any_of(scene.textures.begin(), scene.textures.end(), [](const Texture& t) { return !t.transform.identity(); });
    for (const Texture& t : scene.textures) {
        first.push_back(uint32_t(cs.textures.size()));
        const std::vector<Level>& levels = image_levels[t.image];
        const uint32_t bits = wrap(t.wrap_u) | (wrap(t.wrap_v) << 2) | (uint32_t(levels.size()) << kTexLevelShift) |
                              (scene.images[t.image].normal_map ? kTexSigned : scene.images[t.image].linear ? kTexLinear : 0u);
        for (const Level& l : levels) {
            cs.textures.push_back({l.offset, l.width, l.height, bits});
            if (transformed) cs.tex_transforms.push_back(tex_transform_gpu(t.transform));
        }
    }
    // sRGB -> linear, exact to float (IEC 61966-2-1), for every byte value; then a data
    // texture's byte / 255, the division rounded once, as on the device; then a normal
    // map's (byte - 128) / 127, in [-1, 1] (0 clamped), 128 exactly 0.
    cs.srgb_lut.resize(kSignedLutOffset + 256);
    for (int b = 0; b < 256; ++b) {
        cs.srgb_lut[size_t(b)] = float(srgb_to_linear(b / 255.0));
        cs.srgb_lut[kLinearLutOffset + size_t(b)] = float(b) / 255.0f;
        cs.srgb_lut[kSignedLutOffset + size_t(b)] = std::max(-1.0f, float(b - 128) / 127.0f);
    }
    return first;
}

CompiledScene compile_scene(const Scene& scene, AccelLayout accel, const BvhBuildOptions& options) {
    CompiledScene cs;
    cs.camera = scene.camera;
    cs.render_origin = scene.render_origin.value_or(scene.camera.from);
    cs.background = scene.background;
    cs.ambient = scene.ambient;
    const auto rel = [&](const Point3& p) { return relative_to(p, cs.render_origin); };

    // Triangles and spheres in rendering space.
    std::vector<glm::vec3> centres(scene.spheres.size());
    for (size_t i = 0; i < scene.spheres.size(); ++i) centres[i] = rel(scene.spheres[i].centre);
    struct Corners {
        glm::vec3 v0, v1, v2;
    };
    // Every per-primitive pass runs on every core: each element is a function of its
    // index alone, so the arrays are the same whatever the threads.
    const int threads = host_cores();
    constexpr uint32_t kGrain = 16384;
    std::vector<Corners> tris(scene.triangles.size());
    parallel_for(uint32_t(tris.size()), kGrain, threads, [&](uint32_t b, uint32_t e) {
        for (size_t i = b; i < e; ++i) {
            const Triangle& t = scene.triangles[i];
            tris[i] = {rel(t.v0), rel(t.v1), rel(t.v2)};
        }
    });

    // Primitives the BVH is built over: spheres first, then triangles.
    const size_t ns = scene.spheres.size(), nt = scene.triangles.size();
    std::vector<BuildPrim> build(ns + nt);
    for (size_t i = 0; i < ns; ++i) {
        const float r = float(scene.spheres[i].radius);
        build[i] = {centres[i] - glm::vec3(r), centres[i] + glm::vec3(r)};
    }
    parallel_for(uint32_t(nt), kGrain, threads, [&](uint32_t b, uint32_t e) {
        for (size_t i = b; i < e; ++i) {
            const Corners& t = tris[i];
            build[ns + i] = {glm::min(t.v0, glm::min(t.v1, t.v2)), glm::max(t.v0, glm::max(t.v1, t.v2)), true, t.v0, t.v1, t.v2};
        }
    });
    load_progress::Stage stage("build", build.size(), "primitives");
    Bvh bvh = build_bvh(build, options);
    cs.nodes = std::move(bvh.nodes);
    cs.bvh_stats = bvh.stats;
    if (accel == AccelLayout::Bvh4 && !cs.nodes.empty()) {
        Bvh4 b4 = collapse_bvh4(cs.nodes);
        cs.nodes4 = std::move(b4.nodes);
        cs.bvh4_stats = b4.stats;
    }
    if (accel == AccelLayout::Bvh8 && !cs.nodes.empty()) {
        // The BVH8 wants each node's leaves together: the primitives move (and the BVH2's
        // leaves with them); ties go by original id, so no hit changes.
        Bvh8 b8 = collapse_bvh8(cs.nodes, bvh.order.size());
        std::vector<uint32_t> order(b8.prim_order.size());
        for (size_t k = 0; k < order.size(); ++k) order[k] = bvh.order[b8.prim_order[k]];
        bvh.order = std::move(order);
        cs.nodes8 = std::move(b8.nodes);
        cs.bvh8_stats = b8.stats;
    }

    cs.prims.resize(bvh.order.size());
    cs.prim_tests.resize(bvh.order.size());
    // The optional per-primitive arrays exist where some triangle needs them.
    std::atomic<bool> any_smooth{false}, any_tangents{false}, any_uvs{false}, any_alpha{false};
    parallel_for(uint32_t(nt), kGrain, threads, [&](uint32_t b, uint32_t e) {
        bool smooth = false, tangents = false, uvs = false, alpha = false;
        for (size_t i = b; i < e; ++i) {
            const Triangle& tri = scene.triangles[i];
            const TriangleArrays a = arrays_of(tri, scene.materials[tri.material]);
            smooth = smooth || a.normals;
            tangents = tangents || a.tangents;
            uvs = uvs || a.uvs;
            alpha = alpha || a.alpha;
        }
        if (smooth) any_smooth = true;
        if (tangents) any_tangents = true;
        if (uvs) any_uvs = true;
        if (alpha) any_alpha = true;
    });
    const size_t np = bvh.order.size();
    if (any_smooth) cs.normals.assign(3 * np, f4{0, 0, 0, 0});
    if (any_tangents) cs.tangents.assign(3 * np, f4{0, 0, 0, 0});
    if (any_uvs) cs.uvs.assign(2 * np, f4{0, 0, 0, 0});
    if (any_alpha) cs.prim_alpha.assign(np, kNoMaskGpu);
    for (size_t i = 0; i < ns; ++i) {
        // A scene with a sphere large against its distance from the camera, whose float
        // hit points would err by more than those of the things around it, computes
        // every sphere in double; a scene without one runs kernels without that code
        // (SceneView::precise_spheres).
        cs.precise_spheres = cs.precise_spheres || sphere_needs_double(centres[i], float(scene.spheres[i].radius));
    }
    parallel_for(uint32_t(np), kGrain, threads, [&](uint32_t kb, uint32_t ke) {
        for (size_t k = kb; k < ke; ++k) {
            const uint32_t src = bvh.order[k];
            PrimGpu& p = cs.prims[k];
            if (src < ns) {
                const Sphere& s = scene.spheres[src];
                p.p0 = make_f4(centres[src], bits_float(kPrimSphereBit | s.material));
                const float r = float(s.radius);
                // What rounding the centre (in rendering space) and the radius to float lost,
                // so that hit points can be found on the sphere the scene gave, in double
                // (accel/hit_point.h): for a ground sphere of radius 1000 the float centre is
                // up to 3e-5 off, more than the gaps at contacts.
                const glm::vec3 centre_lo(s.centre - cs.render_origin - dvec(centres[src]));
                const float r_lo = float(s.radius - double(r));
                p.p1 = f4{r, r * r, r_lo, float(1.0 / s.radius)};  // 1/r: the cone's curvature (render/surface.h)
                p.p2 = f4{centre_lo.x, centre_lo.y, centre_lo.z, bits_float(src)};
                cs.prim_tests[k] = make_sphere_test(centres[src], r, centre_lo, r_lo);
            } else {
                const Corners& t = tris[src - ns];
                const Triangle& tri = scene.triangles[src - ns];
                p.p0 = make_f4(t.v0, bits_float((tri.material & kPrimMaterialMask) | (tri.smooth ? kPrimSmoothBit : 0u)));
                const TriangleArrays a = arrays_of(tri, scene.materials[tri.material]);
                if (a.normals) {
                    cs.normals[3 * k + 0] = make_f4(tri.n0, 0.0f);
                    cs.normals[3 * k + 1] = make_f4(tri.n1, 0.0f);
                    cs.normals[3 * k + 2] = make_f4(tri.n2, 0.0f);
                }
                if (a.tangents) {
                    cs.tangents[3 * k + 0] = make_f4(glm::vec3(tri.t0), tri.t0.w);
                    cs.tangents[3 * k + 1] = make_f4(glm::vec3(tri.t1), tri.t1.w);
                    cs.tangents[3 * k + 2] = make_f4(glm::vec3(tri.t2), tri.t2.w);
                }
                if (a.uvs) {
                    cs.uvs[2 * k + 0] = f4{tri.uv0.x, tri.uv0.y, tri.uv1.x, tri.uv1.y};
                    cs.uvs[2 * k + 1] = f4{tri.uv2.x, tri.uv2.y, float(uv_per_length(tri)), 0.0f};
                }
                if (a.alpha) {
                    cs.prim_alpha[k] = tri.material;
                }
                const glm::vec3 e1 = t.v1 - t.v0, e2 = t.v2 - t.v0;
                p.p1 = make_f4(e1, 0.0f);
                p.p2 = make_f4(e2, bits_float(src));
                cs.prim_tests[k] = make_triangle_test(t.v0, e1, e2);
            }
        }
    });

    for (size_t j = 0; j < scene.planes.size(); ++j) {
        const Plane& pl = scene.planes[j];
        PlaneGpu g;
        const glm::vec3 n = unit(pl.normal);
        // The plane's own axes: u = n x h, v = n x u, h = +z unless n is close to it.
        const glm::vec3 h = std::fabs(n.z) < 0.9f ? glm::vec3(0, 0, 1) : glm::vec3(1, 0, 0);
        const glm::vec3 u = unit(glm::cross(n, h));
        g.point_mat = make_f4(plane_anchor(pl, scene.materials[pl.material].reads_uvs(), n, u, cs.render_origin), bits_float(pl.material));
        g.normal = make_f4(n, pl.checker ? float(pl.checker_size) : 0.0f);
        g.u = make_f4(u, float(pl.texture_size));
        g.checker = make_f4(pl.checker_colour, bits_float(uint32_t(ns + nt + j)));
        cs.planes.push_back(g);
    }

    const std::vector<uint32_t> first_level = compile_textures(scene, cs);
    const auto tex_bits = [&](int32_t t) { return bits_float(t == kNoTexture ? kNoTextureGpu : first_level[size_t(t)]); };
    for (const Material& m : scene.materials) {
        // A dielectric's glossy slot holds NFF's kt (Whitted's constant weight on the
        // refracted ray; 0: Fresnel's weights), which render/ray_tree.h reads, and its
        // roughness, which makes the path integrator's glass rough (Whitted's stays
        // smooth). A Fresnel dielectric is glass alone: no diffuse, ambient or mirror
        // term of its own under Whitted (the path integrator's BSDF ignores them too).
        const bool fresnel_glass = m.is_dielectric() && !(m.kt > 0.0f);
        const float kd = fresnel_glass ? 0.0f : m.kd, ka = fresnel_glass ? 0.0f : m.ka;
        const glm::vec3 kr = fresnel_glass ? glm::vec3(0.0f) : m.kr;
        const f4 glossy = m.is_dielectric() ? f4{m.kt, 0.0f, 0.0f, m.roughness}
                          : m.pbr           ? f4{m.metallic, m.dielectric_f0, kGltfMarker, m.roughness}
                                            : make_f4(m.glossy, m.roughness);
        cs.materials.push_back({make_f4(m.colour, kd), make_f4(kr, ka),
                                f4{tex_bits(m.texture), tex_bits(m.alpha_texture), m.alpha_cutoff, m.alpha_factor},
                                make_f4(m.emission, bits_float((m.emission_two_sided ? kEmissionTwoSided : 0u) |
                                                               (m.emission_texture != kNoTexture ? (first_level[size_t(m.emission_texture)] + 1u) << kEmissionTextureShift : 0u))),
                                glossy,
                                make_f4(m.absorption, m.ior),
                                f4{tex_bits(m.metallic_texture), tex_bits(m.roughness_texture),
                                   bits_float(uint32_t(m.metallic_channel) | (uint32_t(m.roughness_channel) << 2) |
                                              (m.normal_mapped() ? (first_level[size_t(m.normal_texture)] + 1u) << kNormalMapShift : 0u)),
                                   m.normal_scale}});
        cs.dielectrics = cs.dielectrics || m.is_dielectric();
        // Any roughness on glass (the lobes decide which is rough enough to matter), and
        // the maps of metallic, roughness, normals and emission.
        const bool extended = (m.is_dielectric() ? m.roughness > 0.0f : m.pbr) || m.has_maps();
        cs.extended_materials = cs.extended_materials || extended;
    }

    for (const Light& l : scene.lights) {
        LightGpu g;
        if (l.type == LightType::Point)
            g.pos_or_dir = make_f4(rel(l.position), 1.0f);
        else
            g.pos_or_dir = make_f4(-unit(l.direction), 0.0f);
        g.colour = make_f4(l.colour, scene.light_model == LightModel::Physical ? 1.0f : 0.0f);
        cs.lights.push_back(g);
    }

    compile_light_table(scene, cs);
    return cs;
}

SceneView CompiledScene::view() const {
    SceneView v;
    v.nodes = nodes.data();
    v.nodes4 = nodes4.empty() ? nullptr : nodes4.data();
    v.nodes8 = nodes8.empty() ? nullptr : nodes8.data();
    v.prims = prims.data();
    v.prim_tests = prim_tests.data();
    v.normals = normals.empty() ? nullptr : normals.data();
    v.tangents = tangents.empty() ? nullptr : tangents.data();
    v.planes = planes.data();
    v.materials = materials.data();
    v.lights = lights.data();
    v.textures = textures.empty() ? nullptr : textures.data();
    v.texels = texels.empty() ? nullptr : texels.data();
    v.srgb_lut = srgb_lut.empty() ? nullptr : srgb_lut.data();
    v.tex_transforms = tex_transforms.empty() ? nullptr : tex_transforms.data();
    v.uvs = uvs.empty() ? nullptr : uvs.data();
    v.prim_alpha = prim_alpha.empty() ? nullptr : prim_alpha.data();
    v.emitters = emitters.empty() ? nullptr : emitters.data();
    v.light_cdf = light_cdf.empty() ? nullptr : light_cdf.data();
    v.light_pmf = light_pmf.empty() ? nullptr : light_pmf.data();
    v.prim_emitter = prim_emitter.empty() ? nullptr : prim_emitter.data();
    v.emitter_count = uint32_t(emitters.size());
    v.alpha_masks = !prim_alpha.empty();
    v.ray_cones = ray_cones;
    v.dielectrics = dielectrics;
    v.extended_materials = extended_materials;
    v.node_count = uint32_t(nodes.size());
    v.prim_count = uint32_t(prims.size());
    v.plane_count = uint32_t(planes.size());
    v.light_count = uint32_t(lights.size());
    v.background = background;
    v.env = env;
    v.env.texels = env_texels.empty() ? nullptr : env_texels.data();
    v.env.row_cdf = env_row_cdf.empty() ? nullptr : env_row_cdf.data();
    v.env.col_cdf = env_col_cdf.empty() ? nullptr : env_col_cdf.data();
    v.precise_spheres = precise_spheres;
    v.ambient = ambient;
    return v;
}

size_t CompiledScene::device_bytes() const {
    return nodes.size() * sizeof(BvhNode) + nodes4.size() * sizeof(Bvh4Node) + nodes8.size() * sizeof(Bvh8Node) + prims.size() * (sizeof(PrimGpu) + sizeof(PrimTestGpu)) + (normals.size() + tangents.size()) * sizeof(f4) +
           planes.size() * sizeof(PlaneGpu) + materials.size() * sizeof(MaterialGpu) +
           lights.size() * sizeof(LightGpu) + texture_bytes() + uvs.size() * sizeof(f4) +
           prim_alpha.size() * sizeof(uint32_t) + emitters.size() * sizeof(EmitterGpu) +
           (light_cdf.size() + light_pmf.size()) * sizeof(float) + prim_emitter.size() * sizeof(uint32_t) +
           env_texels.size() * sizeof(f4) + (env_row_cdf.size() + env_col_cdf.size()) * sizeof(float);
}

size_t CompiledScene::texture_bytes() const {
    return texels.size() * sizeof(uint32_t) + textures.size() * sizeof(TextureGpu) + srgb_lut.size() * sizeof(float) +
           tex_transforms.size() * sizeof(TexTransformGpu);
}

}  // namespace srt
