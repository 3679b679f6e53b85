// load_gltf.cpp - glTF 2.0 (.gltf with embedded or external buffers, and .glb) through
// Debian's libtinygltf-dev.
//
// The file is read and checked in gltf_model.cpp, its materials made in
// gltf_materials.cpp; here: the node walk and what hangs on the nodes.
//
// The mapping onto our model (docs/scene-format.md, "glTF 2.0"):
//   meshes   triangles of every primitive of mode TRIANGLES (4; the default), placed by
//            the node hierarchy of the default scene; NORMAL makes them smooth;
//            TANGENT gives a normal map its frame (else scene/tangents.h makes it);
//   camera   the first node with a perspective camera: from its origin along -z, up +y,
//            yfov and aspectRatio (16:9 when absent) turned into our horizontal fov;
//   lights   KHR_lights_punctual: point lights, directional lights, and spot lights as
//            point lights (a note says so); colours scaled together so the brightest
//            channel times intensity is 1 (no falloff in our model);
//   material baseColorFactor -> colour; metallic m and roughness r -> a mirror of
//            weight m (1 - r)^2 tinted by the base colour, kd = 1 - that weight; for the
//            path integrator the roughness, emission and glass (gltf_materials.cpp);
//   emitters in a file without lights: a point light at each emissive primitive, as
//            OBJ's Ke (add_emitter_lights).
#include "scene/load.h"

#include "core/error.h"
#include "core/load_progress.h"
#include "core/parallel.h"
#include "scene/gltf_model.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace srt {
namespace {
constexpr uint32_t kNoMesh = 0xffffffffu;

using namespace gltf;

// Deep enough for any exporter's skeleton or chain, shallow enough that a file cannot
// make the walk hold gigabytes.
constexpr size_t kMaxNodeDepth = 100000;

}  // namespace

// `emitters`, when given, gets one group per placed primitive of an emissive material.
size_t append_gltf(Scene& scene, const std::string& path, const glm::mat4& xform, std::optional<uint32_t> material,
                   const std::string& referenced_from, int ref_line, bool take_camera_and_lights,
                   std::vector<EmitterGroup>* emitters) {
    const tinygltf::Model m = load_model(path, referenced_from, ref_line);

    // Extensions: a required one we do not render refuses the file (the specification
    // says a loader must); one only used is ignored, with a note.
    for (size_t i = 0; i < m.extensionsRequired.size(); ++i)
        if (!supported_extension(m.extensionsRequired[i]))
            fail(path, "/extensionsRequired/" + std::to_string(i),
                 "the file requires the extension '" + m.extensionsRequired[i] + "', which stencilrt does not support");
    for (const std::string& e : m.extensionsUsed)
        if (!supported_extension(e)) scene.notes.push_back(path + ": ignored the extension '" + e + "' (used, not required)");

    // Materials (unless one is imposed).
    const Materials mats = material ? Materials{} : add_materials(scene, m, path);

    const int root_scene = m.defaultScene >= 0 ? m.defaultScene : 0;
    std::vector<int> roots;
    if (size_t(root_scene) < m.scenes.size()) roots = m.scenes[size_t(root_scene)].nodes;
    else
        for (size_t i = 0; i < m.nodes.size(); ++i) roots.push_back(int(i));  // no scene: every node

    size_t added = 0, skipped_modes = 0, degenerate = 0;
    bool have_camera = false, spot_note = false;
    std::vector<Light> lights;
    std::vector<float> light_peak;
    std::vector<char> visiting(m.nodes.size(), 0);
    // Mesh `mesh_index`'s triangles appended to the scene's, placed at `world`.
    const auto place_mesh = [&](int mesh_index, const glm::dmat4& world) {
        const tinygltf::Mesh& mesh = m.meshes[size_t(mesh_index)];
        const glm::dmat3 nmat = glm::transpose(glm::inverse(glm::dmat3(world)));
        for (size_t pi = 0; pi < mesh.primitives.size(); ++pi) {
            const tinygltf::Primitive& prim = mesh.primitives[pi];
            const std::string pptr = "/meshes/" + std::to_string(mesh_index) + "/primitives/" + std::to_string(pi);
            if (prim.mode != TINYGLTF_MODE_TRIANGLES && prim.mode != -1) {
                ++skipped_modes;
                continue;
            }
            const auto pos_it = prim.attributes.find("POSITION");
            if (pos_it == prim.attributes.end()) fail(path, pptr, "has no POSITION attribute");
            const View pos = accessor_view(path, m, pos_it->second, TINYGLTF_TYPE_VEC3, {TINYGLTF_COMPONENT_TYPE_FLOAT});
            View nrm;
            const auto n_it = prim.attributes.find("NORMAL");
            const bool smooth = n_it != prim.attributes.end();
            if (smooth) {
                nrm = accessor_view(path, m, n_it->second, TINYGLTF_TYPE_VEC3, {TINYGLTF_COMPONENT_TYPE_FLOAT});
                if (nrm.count != pos.count)
                    fail(path, "/accessors/" + std::to_string(n_it->second), "NORMAL has " + std::to_string(nrm.count) +
                                                                              " entries, POSITION " + std::to_string(pos.count));
            }
            std::vector<uint32_t> idx;
            if (prim.indices >= 0) {
                const View iv = accessor_view(path, m, prim.indices, TINYGLTF_TYPE_SCALAR,
                                              {TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT,
                                               TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT});
                idx.resize(iv.count);
                for (size_t i = 0; i < iv.count; ++i) {
                    idx[i] = read_index(iv, i);
                    if (idx[i] >= pos.count)
                        fail(path, "/accessors/" + std::to_string(prim.indices), "index " + std::to_string(idx[i]) +
                                                                                 " at " + std::to_string(i) + " is out of range (" +
                                                                                 std::to_string(pos.count) + " vertices)");
                }
            } else {
                idx.resize(pos.count);
                for (size_t i = 0; i < pos.count; ++i) idx[i] = uint32_t(i);
            }
            if (idx.size() % 3 != 0) fail(path, pptr, std::to_string(idx.size()) + " indices are not whole triangles");
            uint32_t mat_id = material.value_or(0u);
            int texcoord = 0;
            if (!material && prim.material >= 0) {
                if (size_t(prim.material) >= m.materials.size()) fail(path, pptr + "/material", "no such material");
                mat_id = mats.ids[size_t(prim.material)];
                texcoord = mats.texcoords[size_t(prim.material)];
            }
            // Texture coordinates, read where a texture or a mask will use them.
            View uvs;
            const Material& pm = scene.materials[mat_id];
            if (pm.reads_uvs()) {
                const auto uv_it = prim.attributes.find("TEXCOORD_" + std::to_string(texcoord));
                if (uv_it != prim.attributes.end()) {
                    uvs = accessor_view(path, m, uv_it->second, TINYGLTF_TYPE_VEC2,
                                        {TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE,
                                         TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT});
                    if (uvs.count != pos.count)
                        fail(path, "/accessors/" + std::to_string(uv_it->second),
                             uv_it->first + " has " + std::to_string(uvs.count) + " entries, POSITION " + std::to_string(pos.count));
                }
            }
            // The file's tangents, where a normal map will use them and the normals they
            // go with are the file's (without NORMAL glTF ignores TANGENT).
            View tan;
            if (pm.normal_mapped() && smooth && uvs.data != nullptr) {
                const auto t_it = prim.attributes.find("TANGENT");
                if (t_it != prim.attributes.end()) {
                    tan = accessor_view(path, m, t_it->second, TINYGLTF_TYPE_VEC4, {TINYGLTF_COMPONENT_TYPE_FLOAT});
                    if (tan.count != pos.count)
                        fail(path, "/accessors/" + std::to_string(t_it->second),
                             "TANGENT has " + std::to_string(tan.count) + " entries, POSITION " + std::to_string(pos.count));
                    // Tangents far from perpendicular to their normals are not a frame the
                    // map was baked in (WaterBottle's 2017 revision has z turned over at
                    // 77% of its vertices): MikkTSpace's, as for a file without them.
                    size_t skewed = 0;
                    for (size_t k = 0; k < tan.count; ++k) {
                        const glm::dvec3 n(read_float(nrm, k, 0), read_float(nrm, k, 1), read_float(nrm, k, 2));
                        const glm::dvec3 t(read_float(tan, k, 0), read_float(tan, k, 1), read_float(tan, k, 2));
                        const double c = std::fabs(glm::dot(n, t)) / (glm::length(n) * glm::length(t));
                        skewed += !(c <= 0.1);
                    }
                    if (skewed * 100 > tan.count) {
                        scene.notes.push_back(path + ": " + pptr + ": TANGENT is more than 5.7 degrees from perpendicular to "
                                              "NORMAL at " + std::to_string(skewed) + " of " + std::to_string(tan.count) +
                                              " vertices: MikkTSpace tangents are used instead");
                        tan = View{};
                    }
                }
            }
            // Tangents are directions: the linear part carries them; a mirroring one
            // turns the handedness over, as it turns cross(n, t).
            const glm::dmat3 tmat = glm::dmat3(glm::dmat4(xform)) * glm::dmat3(world);
            const double handed = glm::determinant(tmat) < 0.0 ? -1.0 : 1.0;
            EmitterGroup* emitter = nullptr;
            if (emitters && pm.emits()) {
                emitters->push_back(EmitterGroup{});
                emitter = &emitters->back();
                emitter->emission = pm.emission;
            }
            // Each triangle made on its own, on every core (the same bits: the matrices
            // are the products the per-vertex expressions formed, in their order); then,
            // in file order, the first bad position, the emitter's sums, the scene.
            const glm::dmat4 place = glm::dmat4(xform) * world;
            const glm::dmat3 normal_place = glm::dmat3(glm::transpose(glm::inverse(glm::dmat3(glm::dmat4(xform))))) * nmat;
            constexpr int64_t kKept = -1, kDegenerate = -2;  // else: the vertex whose position is not finite
            const auto make_triangle = [&](size_t t, Triangle& tri) -> int64_t {
                Point3* v[3] = {&tri.v0, &tri.v1, &tri.v2};
                glm::vec3* nn[3] = {&tri.n0, &tri.n1, &tri.n2};
                glm::vec2* tc[3] = {&tri.uv0, &tri.uv1, &tri.uv2};
                glm::vec4* tg[3] = {&tri.t0, &tri.t1, &tri.t2};
                tri.has_uv = uvs.data != nullptr;
                tri.has_tangent = tan.data != nullptr;
                bool ok = smooth;
                for (int c = 0; c < 3; ++c) {
                    const size_t k = idx[t + size_t(c)];
                    const glm::dvec3 p(read_float(pos, k, 0), read_float(pos, k, 1), read_float(pos, k, 2));
                    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) return int64_t(k);
                    *v[c] = Point3(place * glm::dvec4(p, 1.0));
                    if (tri.has_uv) *tc[c] = glm::vec2(read_texcoord(uvs, k, 0), read_texcoord(uvs, k, 1));
                    if (smooth) {
                        const glm::dvec3 n = normal_place * glm::dvec3(read_float(nrm, k, 0), read_float(nrm, k, 1), read_float(nrm, k, 2));
                        const double len = glm::length(n);
                        ok = ok && len > 0.0 && std::isfinite(len);
                        *nn[c] = ok ? glm::vec3(n / len) : glm::vec3(0.0f);
                    }
                    if (tri.has_tangent) {
                        // One that is zero or not finite: MikkTSpace's frame for the triangle instead.
                        const glm::dvec3 t3 = tmat * glm::dvec3(read_float(tan, k, 0), read_float(tan, k, 1), read_float(tan, k, 2));
                        const double len = glm::length(t3), w = read_float(tan, k, 3);
                        tri.has_tangent = len > 0.0 && std::isfinite(len) && std::isfinite(w);
                        if (tri.has_tangent) *tg[c] = glm::vec4(glm::vec3(t3 / len), float(w < 0.0 ? -handed : handed));
                    }
                }
                if (degenerate_triangle(tri.v0, tri.v1, tri.v2)) return kDegenerate;
                tri.smooth = ok;
                if (!ok) tri.n0 = tri.n1 = tri.n2 = glm::vec3(0.0f);
                if (!ok || !tri.has_tangent) {
                    tri.has_tangent = false;
                    tri.t0 = tri.t1 = tri.t2 = glm::vec4(0.0f);
                }
                tri.material = mat_id;
                return kKept;
            };
            const size_t ntri = idx.size() / 3;
            std::vector<Triangle> tris(ntri);
            std::vector<int64_t> state(ntri);
            parallel_for(uint32_t(ntri), 8192, host_cores(),
                         [&](uint32_t b, uint32_t e) {
                             for (size_t t = b; t < e; ++t) state[t] = make_triangle(3 * t, tris[t]);
                         });
            scene.triangles.reserve(scene.triangles.size() + ntri);
            for (size_t t = 0; t < ntri; ++t) {
                if (state[t] >= 0)
                    fail(path, "/accessors/" + std::to_string(pos_it->second), "position " + std::to_string(state[t]) + " is not finite");
                if (state[t] == kDegenerate) {
                    ++degenerate;
                    continue;
                }
                if (emitter) emitter->add(tris[t].v0, tris[t].v1, tris[t].v2);
                scene.triangles.push_back(tris[t]);
                ++added;
            }
        }
    };
    // A mesh that several nodes place becomes one Mesh and an instance a node (scene.h),
    // unless it emits (its triangles are then each a light) or the file is read as a JSON
    // scene's mesh (whose triangles the scene takes as they are): then copies.
    std::vector<int> placements(m.meshes.size(), 0);
    if (take_camera_and_lights)
        for (const tinygltf::Node& n : m.nodes)
            if (n.mesh >= 0 && size_t(n.mesh) < m.meshes.size()) ++placements[size_t(n.mesh)];
    const auto mesh_emits = [&](const tinygltf::Mesh& mesh) {
        for (const tinygltf::Primitive& prim : mesh.primitives) {
            const uint32_t id = material ? *material
                                : prim.material >= 0 && size_t(prim.material) < m.materials.size() ? mats.ids[size_t(prim.material)]
                                                                                                    : 0u;
            if (scene.materials[id].emits()) return true;
        }
        return false;
    };
    std::vector<uint32_t> mesh_of(m.meshes.size(), kNoMesh);
    // One node, placed at `world`: its mesh, its camera, its light.
    const auto place_node = [&](int ni, const glm::dmat4& world) {
        const std::string nptr = "/nodes/" + std::to_string(ni);
        const tinygltf::Node& node = m.nodes[size_t(ni)];
        if (node.mesh >= 0) {
            if (size_t(node.mesh) >= m.meshes.size()) fail(path, nptr + "/mesh", "no such mesh");
            if (placements[size_t(node.mesh)] < 2 || mesh_emits(m.meshes[size_t(node.mesh)])) {
                place_mesh(node.mesh, world);
            } else {
                uint32_t& mi = mesh_of[size_t(node.mesh)];
                if (mi == kNoMesh) {  // its triangles in its own space, once
                    const size_t first = scene.triangles.size();
                    place_mesh(node.mesh, glm::dmat4(1.0));
                    added -= scene.triangles.size() - first;  // counted below, once a placement
                    Mesh mesh;
                    mesh.name = path + ": /meshes/" + std::to_string(node.mesh);
                    mesh.triangles.assign(scene.triangles.begin() + std::ptrdiff_t(first), scene.triangles.end());
                    scene.triangles.resize(first);
                    mi = uint32_t(scene.meshes.size());
                    scene.meshes.push_back(std::move(mesh));
                }
                const glm::dmat4 place = glm::dmat4(xform) * world;
                Instance inst;
                inst.mesh = mi;
                inst.linear = glm::dmat3(place);
                inst.translate = glm::dvec3(place[3]);
                if (!(std::fabs(glm::determinant(inst.linear)) > 0.0))
                    fail(path, nptr, "places its mesh with a transform that flattens it (determinant 0)");
                scene.instances.push_back(inst);
                added += scene.meshes[mi].triangles.size();
            }
        }
        if (take_camera_and_lights && node.camera >= 0 && !have_camera) {
            if (size_t(node.camera) >= m.cameras.size()) fail(path, nptr + "/camera", "no such camera");
            const tinygltf::Camera& cam = m.cameras[size_t(node.camera)];
            if (cam.type == "perspective") {
                const glm::dmat4 w = glm::dmat4(xform) * world;
                scene.camera.from = Point3(w * glm::dvec4(0, 0, 0, 1));
                scene.camera.at = Point3(w * glm::dvec4(0, 0, -1, 1));
                scene.camera.up = glm::vec3(glm::normalize(glm::dmat3(w) * glm::dvec3(0, 1, 0)));
                const double aspect = cam.perspective.aspectRatio > 0 ? cam.perspective.aspectRatio : 16.0 / 9.0;
                const double yfov = cam.perspective.yfov;
                if (!(yfov > 0.0 && yfov < 3.1)) fail(path, "/cameras/" + std::to_string(node.camera) + "/perspective/yfov", "must be in (0, pi)");
                scene.camera.fov_deg = float(std::min(179.0, 2.0 * std::atan(std::tan(yfov / 2.0) * aspect) * 180.0 / 3.14159265358979323846));
                have_camera = true;
            }
        }
        if (take_camera_and_lights) {
            const auto ext = node.extensions.find("KHR_lights_punctual");
            if (ext != node.extensions.end() && ext->second.Has("light")) {
                const int li = ext->second.Get("light").GetNumberAsInt();
                if (li < 0 || size_t(li) >= m.lights.size()) fail(path, nptr + "/extensions/KHR_lights_punctual/light", "no such light");
                const tinygltf::Light& gl = m.lights[size_t(li)];
                const glm::dmat4 w = glm::dmat4(xform) * world;
                Light l;
                glm::vec3 c(1.0f);
                if (gl.color.size() >= 3) c = glm::vec3(float(gl.color[0]), float(gl.color[1]), float(gl.color[2]));
                l.colour = glm::max(c, glm::vec3(0.0f)) * float(std::max(gl.intensity, 0.0));
                if (gl.type == "directional") {
                    l.type = LightType::Directional;
                    l.direction = glm::vec3(glm::normalize(glm::dmat3(w) * glm::dvec3(0, 0, -1)));
                } else {
                    if (gl.type == "spot") spot_note = true;
                    l.type = LightType::Point;
                    l.position = Point3(w * glm::dvec4(0, 0, 0, 1));
                }
                lights.push_back(l);
            }
        }
    };
    // The hierarchy, depth first with an explicit stack: glTF sets no limit on nesting,
    // and exporters nest deeply (a skeleton's bone chains, a rope or a chain of links one
    // node per link), so the depth must not be bounded by the call stack. Cycles (which
    // glTF forbids) are refused, and so are hierarchies deeper than kMaxNodeDepth.
    struct Frame {
        int node;
        glm::dmat4 world;
        size_t next_child;
    };
    std::vector<Frame> stack;
    const auto enter = [&](int ni, const glm::dmat4& parent) {
        const std::string nptr = "/nodes/" + std::to_string(ni);
        if (ni < 0 || size_t(ni) >= m.nodes.size()) fail(path, nptr, "no such node");
        if (visiting[size_t(ni)]) fail(path, nptr, "the node hierarchy has a cycle");
        if (stack.size() >= kMaxNodeDepth)
            fail(path, nptr, "the node hierarchy is deeper than " + std::to_string(kMaxNodeDepth) + " levels");
        const tinygltf::Node& node = m.nodes[size_t(ni)];
        if (!node.matrix.empty() && node.matrix.size() != 16) fail(path, nptr + "/matrix", "must have 16 numbers");
        visiting[size_t(ni)] = 1;
        const glm::dmat4 world = parent * node_matrix(node);
        place_node(ni, world);
        stack.push_back(Frame{ni, world, 0});
    };
    for (int r : roots) {
        enter(r, glm::dmat4(1.0));
        while (!stack.empty()) {
            Frame& f = stack.back();
            const std::vector<int>& children = m.nodes[size_t(f.node)].children;
            if (f.next_child < children.size()) {
                const int child = children[f.next_child++];
                const glm::dmat4 world = f.world;
                enter(child, world);
            } else {
                visiting[size_t(f.node)] = 0;
                stack.pop_back();
            }
        }
    }

    if (!lights.empty()) {
        // glTF intensities are photometric; our lights have no falloff. Scale them together
        // so the brightest channel is 1, keeping their colours and ratios (as for OBJ Ke).
        float peak = 0.0f;
        for (const Light& l : lights) peak = std::max({peak, l.colour.x, l.colour.y, l.colour.z});
        if (peak > 0.0f)
            for (Light& l : lights) l.colour /= peak;
        scene.lights.insert(scene.lights.end(), lights.begin(), lights.end());
        scene.add_light_note(path + ": " + std::to_string(lights.size()) + " KHR_lights_punctual light(s), scaled so the brightest channel is 1");
    }
    if (mats.blended) scene.notes.push_back(path + ": " + std::to_string(mats.blended) + " material(s) with alphaMode BLEND rendered opaque");
    if (spot_note) scene.add_light_note(path + ": spot lights are rendered as point lights (no cone)");
    if (skipped_modes) scene.notes.push_back(path + ": skipped " + std::to_string(skipped_modes) + " primitive(s) that are not triangles");
    if (degenerate) scene.notes.push_back(path + ": dropped " + std::to_string(degenerate) + " degenerate triangle(s)");
    if (have_camera) scene.notes.push_back(path + ": camera from the file");
    return added;
}

size_t append_gltf_mesh(Scene& scene, const std::string& path, const glm::mat4& xform, std::optional<uint32_t> material,
                        const std::string& referenced_from, int ref_line) {
    load_progress::Stage stage("parse", 0, "bytes");
    return append_gltf(scene, path, xform, material, referenced_from, ref_line, false, nullptr);
}

Scene load_gltf_scene(const std::string& path) {
    Scene scene;
    scene.name = path;
    Material grey;
    grey.name = "default";
    scene.add_material(grey);
    const Camera before = scene.camera;
    std::vector<EmitterGroup> emitters;
    {
        load_progress::Stage stage("parse", 0, "bytes");
        append_gltf(scene, path, glm::mat4(1.0f), std::nullopt, "", 0, true, &emitters);
    }
    if (scene.triangles.empty() && scene.instances.empty())
        throw InputError(path, 0, "glTF file has no triangles in its default scene");
    // A file without lights of its own is lit by its emissive surfaces, as an OBJ by its Ke.
    if (scene.lights.empty()) add_emitter_lights(scene, emitters, path, "emissiveFactor");
    const bool own_camera = !(scene.camera.from == before.from && scene.camera.at == before.at);
    if (own_camera) {
        if (scene.lights.empty()) {
            // No lights in the file: a white light at the camera.
            Light l;
            l.position = scene.camera.from;
            scene.lights.push_back(l);
            scene.add_light_note(path + ": no KHR_lights_punctual lights; added a white light at the camera");
        }
        validate(scene);
    } else {
        frame_mesh_scene(scene, path);
    }
    return scene;
}

}  // namespace srt

