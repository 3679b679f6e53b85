// load_json.cpp - our JSON scene format (docs/scene-format.md). Every error names
// file:line:col: values are read through scene/json_doc.h, which remembers where each
// came from.
#include "scene/load.h"
#include "scene/json_material.h"
#include "scene/json_meshes.h"

#include "scene/json_doc.h"
#include "scene/instances.h"

#include "core/error.h"
#include "core/file_reason.h"

#include <glm/glm.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace srt {

namespace {

using namespace json_doc;

constexpr size_t kMaxIncludeDepth = 16;
constexpr int kMaxImageSide = 16384;
constexpr int kMaxDepthLimit = 64;  // the command line's --depth range

// ---------------------------------------------------------------------------
// Scene building
// ---------------------------------------------------------------------------

class JsonSceneBuilder {
public:
    explicit JsonSceneBuilder(Scene& scene) : scene_(scene) { material_ids_["default"] = 0; }

    void load(const std::string& path, bool top, const Node* included_at) {
        namespace fs = std::filesystem;
        std::error_code ec;
        fs::path canon = fs::weakly_canonical(fs::path(path), ec);
        const std::string key = ec ? path : canon.string();
        if (std::find(chain_keys_.begin(), chain_keys_.end(), key) != chain_keys_.end()) {
            std::string msg = "recursive include: ";
            for (const std::string& f : chain_names_) msg += f + " -> ";
            included_at->fail(msg + path);
        }
        if (chain_keys_.size() >= kMaxIncludeDepth)
            included_at->fail("includes nested deeper than " + std::to_string(kMaxIncludeDepth) + " levels");

        auto doc = std::make_unique<Doc>();
        doc->file = path;
        // A device or FIFO ("include": ["/dev/zero"]) would be read until memory runs
        // out (its size says 0), or block forever.
        const auto st = fs::status(path, ec);
        if (!ec && fs::exists(st) && !fs::is_regular_file(st)) {
            if (included_at) included_at->fail("included file '" + path + "' is not a regular file");
            throw InputError(path, 0, "not a regular file");
        }
        if (!read_file(path, doc->text)) {
            const std::string why = unreadable_reason(path);
            if (included_at)
                included_at->fail("included file '" + path + "' " + (why.empty() || errno == ENOENT ? "not found" : "cannot be read: " + why));
            throw InputError(path, 0, cannot_open(path, "scene"));
        }
        if (doc->text.size() > kMaxFileBytes)
            throw InputError(path, 0, "scene file is larger than " + std::to_string(kMaxFileBytes >> 20) +
                                          " MiB; put large meshes in an OBJ file");
        parse_doc(*doc);
        const Doc& d = *docs_.emplace_back(std::move(doc));

        chain_keys_.push_back(key);
        chain_names_.push_back(path);
        Node root{&d, &d.root, "", "the scene"};
        root.object("an object");
        static const std::vector<std::string> top_keys = {"camera", "background", "render", "materials",
                                                          "lights", "objects", "include", "animation", "ambient",
                                                          "light_model", "environment", "meshes"};
        root.check_keys(top_keys, "the scene");

        if (Node inc = root.member("include", "'include'")) {
            inc.array();
            for (size_t i = 0; i < inc.v->size(); ++i) {
                Node e = inc.element(i);
                load(resolve_path(path, e.str()), false, &e);
            }
        }
        if (top) {
            if (Node cam = root.member("camera", "'camera'")) read_camera(cam);
            else root.fail("the scene is missing 'camera'");
            if (Node bg = root.member("background", "'background'")) scene_.background = bg.colour();
            if (Node am = root.member("ambient", "'ambient'")) scene_.ambient = am.colour();
            if (Node r = root.member("render", "'render'")) read_render(r);
            if (Node e = root.member("environment", "'environment'")) read_environment(e);
            if (Node a = root.member("animation", "'animation'")) read_animation(a);
            if (Node lm = root.member("light_model", "'light_model'")) {
                const std::string v = lm.str();
                if (!parse_light_model(v, scene_.light_model))
                    lm.fail("'light_model' must be \"classic\" or \"physical\", not \"" + v + "\"" +
                            suggestion(v, {"classic", "physical"}));
            }
        } else {
            for (const char* k : {"camera", "background", "render", "animation", "ambient", "light_model", "environment"})
                if (Node n = root.member(k, k))
                    std::cerr << d.where(n.offset()) << ": warning: '" << k
                              << "' in an included file is ignored (only the top-level file sets it)\n";
        }
        if (Node mats = root.member("materials", "'materials'")) read_materials(mats);
        if (Node meshes = root.member("meshes", "'meshes'")) read_meshes(meshes);
        if (Node lights = root.member("lights", "'lights'")) {
            lights.array();
            for (size_t i = 0; i < lights.v->size(); ++i) read_light(lights.element(i));
        }
        if (Node objs = root.member("objects", "'objects'")) {
            objs.array();
            for (size_t i = 0; i < objs.v->size(); ++i) read_object(objs.element(i));
        }
        chain_keys_.pop_back();
        chain_names_.pop_back();
    }

private:
    static bool read_file(const std::string& path, std::string& out) {
        std::ifstream in(path, std::ios::binary);
        if (!in) return false;
        // Check the size before reading, so a huge file is refused without reading it.
        in.seekg(0, std::ios::end);
        const std::streamoff size = in.tellg();
        in.seekg(0, std::ios::beg);
        if (size < 0) return false;
        if (static_cast<size_t>(size) > kMaxFileBytes) {
            out.assign(kMaxFileBytes + 1, ' ');
            return true;
        }
        std::ostringstream ss;
        ss << in.rdbuf();
        out = ss.str();
        return true;
    }

    void read_camera(const Node& n) {
        n.object("an object");
        n.check_keys({"from", "at", "up", "fov", "aperture", "focus_distance"}, "'camera'");
        Camera& c = scene_.camera;
        c.from = n.require("from", "'camera'").point();
        c.at = n.require("at", "'camera'").point();
        if (Node up = n.member("up", "camera 'up'")) c.up = up.vec3();
        if (Node fov = n.member("fov", "camera 'fov'")) {
            c.fov_deg = fov.number();
            if (!(c.fov_deg > 0.0f && c.fov_deg < 180.0f)) fov.fail("camera 'fov' must be in (0, 180) degrees");
        }
        if (Node a = n.member("aperture", "camera 'aperture'")) {
            c.aperture = a.number();
            if (!(c.aperture >= 0.0f && std::isfinite(c.aperture)))
                a.fail("camera 'aperture' (the lens's radius) must be 0 (a pinhole) or more");
        }
        if (Node fd = n.member("focus_distance", "camera 'focus_distance'")) {
            c.focus_distance = fd.number();
            if (!(c.focus_distance > 0.0f && std::isfinite(c.focus_distance)))
                fd.fail("camera 'focus_distance' must be more than 0 (leave it out to focus at 'at')");
        }
        if (glm::length(c.direction()) == 0.0f) n.fail("camera 'from' equals 'at'");
        if (!std::isfinite(glm::length(c.direction()))) n.fail("camera 'at' is too far from 'from'");
        if (glm::length(glm::cross(c.direction(), c.up)) == 0.0f)
            n.fail("camera 'up' is zero or parallel to the view direction");
    }

    // "animation": {"interpolation": "catmull-rom" | "linear", "fps": 30,
    //               "keys": [{"time": 0, "from": [..], "at": [..], "up": [..], "fov": 60}, ...]}
    // A key's missing up and fov are the scene camera's; times strictly increase.
    void read_animation(const Node& n) {
        n.object("an object");
        n.check_keys({"interpolation", "fps", "keys"}, "'animation'");
        CameraPath& path = scene_.animation;
        if (Node i = n.member("interpolation", "animation 'interpolation'")) {
            const std::string v = i.str();
            if (v == "linear") path.interpolation = CameraPath::Interpolation::Linear;
            else if (v == "catmull-rom") path.interpolation = CameraPath::Interpolation::CatmullRom;
            else i.fail("animation 'interpolation' must be \"linear\" or \"catmull-rom\", not \"" + v + "\"");
        }
        if (Node f = n.member("fps", "animation 'fps'")) {
            path.fps = f.number_double();
            if (!(path.fps > 0.0 && path.fps <= 10000.0)) f.fail("animation 'fps' must be in (0, 10000]");
        }
        Node keys = n.require("keys", "'animation'");
        keys.array();
        if (keys.v->size() < 2)
            keys.fail("animation 'keys' needs at least 2 keys (it has " + std::to_string(keys.v->size()) + ")");
        for (size_t k = 0; k < keys.v->size(); ++k) {
            Node e = keys.element(k);
            e.object("an object");
            const std::string what = "animation key " + std::to_string(k);
            e.check_keys({"time", "from", "at", "up", "fov"}, what);
            CameraKey key;
            key.camera = scene_.camera;
            Node t = e.require("time", what);
            key.time = t.number_double();
            if (!path.keys.empty() && !(key.time > path.keys.back().time))
                t.fail(what + " 'time' " + short_number(key.time) + " is not after the previous key's " +
                       short_number(path.keys.back().time) + " (times must increase)");
            key.camera.from = e.require("from", what).point();
            key.camera.at = e.require("at", what).point();
            if (Node up = e.member("up", what + " 'up'")) key.camera.up = up.vec3();
            if (Node fov = e.member("fov", what + " 'fov'")) {
                key.camera.fov_deg = fov.number();
                if (!(key.camera.fov_deg > 0.0f && key.camera.fov_deg < 180.0f)) fov.fail(what + " 'fov' must be in (0, 180) degrees");
            }
            if (glm::length(key.camera.direction()) == 0.0f) e.fail(what + ": 'from' equals 'at'");
            if (!std::isfinite(glm::length(key.camera.direction()))) e.fail(what + ": 'at' is too far from 'from'");
            if (glm::length(glm::cross(key.camera.direction(), key.camera.up)) == 0.0f)
                e.fail(what + ": 'up' is zero or parallel to the view direction");
            path.keys.push_back(key);
        }
        if ((path.keys.back().time - path.keys.front().time) * path.fps >= 1e7)
            n.fail("animation is longer than 10,000,000 frames");
    }
    // "environment": {"file": "sky.hdr", "intensity": 1, "rotation": 0}: the file relative
    // to the scene file; the rotation in degrees about +Y.
    void read_environment(const Node& n) {
        n.object("an object");
        n.check_keys({"file", "intensity", "rotation"}, "'environment'");
        float intensity = 1.0f, rotation = 0.0f;
        if (Node i = n.member("intensity", "environment 'intensity'")) {
            intensity = i.number();
            if (!(intensity >= 0.0f) || !std::isfinite(intensity)) i.fail("environment 'intensity' must be 0 or more");
        }
        if (Node r = n.member("rotation", "environment 'rotation'")) {
            rotation = r.number();
            if (!std::isfinite(rotation)) r.fail("environment 'rotation' (degrees) must be finite");
        }
        Node f = n.require("file", "'environment'");
        const std::string path = resolve_path(n.doc->file, f.str());
        try {
            scene_.environment = environment_from_file(path, intensity, rotation);
        } catch (const InputError& e) {
            f.fail(e.what());  // the scene's line, then the image's own complaint
        }
    }

    void read_render(const Node& n) {
        n.object("an object");
        n.check_keys({"width", "height", "depth", "integrator", "sampler"}, "'render'");
        if (Node w = n.member("width", "render 'width'")) scene_.width = w.integer(1, kMaxImageSide);
        if (Node h = n.member("height", "render 'height'")) scene_.height = h.integer(1, kMaxImageSide);
        if (Node d = n.member("depth", "render 'depth'")) scene_.depth = d.integer(1, kMaxDepthLimit);
        if (Node i = n.member("integrator", "render 'integrator'")) {
            const std::string v = i.str();
            Integrator chosen;
            if (parse_integrator(v, chosen)) scene_.integrator = chosen;
            else i.fail("render 'integrator' must be \"whitted\" or \"path\", not \"" + v + "\"" + suggestion(v, {"whitted", "path"}));
        }
        if (Node i = n.member("sampler", "render 'sampler'")) {
            const std::string v = i.str();
            SamplerKind chosen;
            if (parse_sampler(v, chosen)) scene_.sampler = chosen;
            else
                i.fail("render 'sampler' must be \"independent\", \"sobol\" or \"zsobol\", not \"" + v + "\"" +
                       suggestion(v, sampler_names()));
        }
    }

    void read_materials(const Node& n) {
        n.object("an object of named materials");
        for (auto it = n.v->begin(); it != n.v->end(); ++it) {
            const std::string name = it.key();
            Node m = n.member(name, "material '" + name + "'");
            m.object("an object");
            const Material mat = read_json_material(m, name, scene_);
            auto found = material_ids_.find(name);
            if (name == "default" && !default_defined_) {
                // "default" is material 0, which always exists; a file may restyle it once.
                scene_.materials[0] = mat;
                default_defined_ = true;
                material_where_[name] = m.doc->where(m.offset());
            } else if (found != material_ids_.end()) {
                m.fail("material '" + name + "' is already defined at " + material_where_[name]);
            } else {
                material_ids_[name] = scene_.add_material(mat);
                material_where_[name] = m.doc->where(m.offset());
            }
        }
    }

    uint32_t material_ref(const Node& n) {
        if (n.v->is_number_integer()) {
            const double i = n.v->get<double>();
            if (i < 0 || i >= static_cast<double>(scene_.materials.size()))
                n.fail("material index " + n.v->dump() + " out of range (" +
                       std::to_string(scene_.materials.size()) + " materials)");
            return static_cast<uint32_t>(i);
        }
        const std::string name = n.str();
        auto it = material_ids_.find(name);
        if (it == material_ids_.end()) {
            std::vector<std::string> names;
            for (const auto& kv : material_ids_) names.push_back(kv.first);
            std::sort(names.begin(), names.end());
            n.fail("unknown material '" + name + "'" + suggestion(name, names));
        }
        return it->second;
    }

    void read_light(const Node& n) {
        n.object("an object");
        const std::string type = n.require("type", "light").str();
        Light l;
        if (Node c = n.member("colour", "light 'colour'")) l.colour = c.colour();
        if (type == "point") {
            n.check_keys({"type", "position", "colour"}, "point light");
            l.type = LightType::Point;
            l.position = n.require("position", "point light").point();
        } else if (type == "directional") {
            n.check_keys({"type", "direction", "colour"}, "directional light");
            l.type = LightType::Directional;
            Node d = n.require("direction", "directional light");
            const glm::vec3 dir = d.vec3();
            if (glm::length(dir) == 0.0f) d.fail("directional light 'direction' must not be zero");
            l.direction = glm::normalize(dir);
        } else {
            n.member("type", "").fail("unknown light type '" + type + "'" +
                                      suggestion(type, {"point", "directional"}));
        }
        scene_.lights.push_back(l);
    }

    void read_object(const Node& n) {
        n.object("an object");
        const std::string type = n.require("type", "object").str();
        if (type == "sphere") {
            n.check_keys({"type", "centre", "radius", "material"}, "sphere");
            Sphere s;
            s.centre = n.require("centre", "sphere").point();
            Node r = n.require("radius", "sphere");
            s.radius = r.number_double();
            if (!(s.radius > 0.0)) r.fail("sphere 'radius' must be > 0");
            if (Node m = n.member("material", "sphere 'material'")) {
                s.material = material_ref(m);
                if (scene_.materials[s.material].alpha_mask)
                    m.fail("material '" + scene_.materials[s.material].name + "' has an alpha mask, which only mesh triangles may have");
            }
            scene_.spheres.push_back(s);
        } else if (type == "plane") {
            n.check_keys({"type", "point", "normal", "material", "checker", "texture_size"}, "plane");
            Plane p;
            p.point = n.require("point", "plane").point();
            Node nn = n.require("normal", "plane");
            const glm::vec3 normal = nn.vec3();
            if (glm::length(normal) == 0.0f) nn.fail("plane 'normal' must not be zero");
            p.normal = glm::normalize(normal);
            if (Node m = n.member("material", "plane 'material'")) {
                p.material = material_ref(m);
                if (scene_.materials[p.material].alpha_mask)
                    m.fail("material '" + scene_.materials[p.material].name + "' has an alpha mask, which only mesh triangles may have");
            }
            if (Node ts = n.member("texture_size", "plane 'texture_size'")) {
                p.texture_size = ts.number_double();
                if (!(p.texture_size > 0.0)) ts.fail("plane 'texture_size' must be > 0");
            }
            if (Node c = n.member("checker", "plane 'checker'")) {
                c.object("an object");
                c.check_keys({"colour", "size"}, "plane 'checker'");
                p.checker = true;
                if (Node cc = c.member("colour", "checker 'colour'")) p.checker_colour = cc.colour();
                if (Node cs = c.member("size", "checker 'size'")) {
                    p.checker_size = cs.number_double();
                    if (!(p.checker_size > 0.0)) cs.fail("checker 'size' must be > 0");
                }
            }
            scene_.planes.push_back(p);
        } else if (type == "triangle") {
            n.check_keys({"type", "v0", "v1", "v2", "material", "uv"}, "triangle");
            Triangle t;
            t.v0 = n.require("v0", "triangle").point();
            t.v1 = n.require("v1", "triangle").point();
            t.v2 = n.require("v2", "triangle").point();
            if (glm::length(glm::cross(t.v1 - t.v0, t.v2 - t.v0)) == 0.0)
                n.fail("triangle has zero area");
            if (Node m = n.member("material", "triangle 'material'")) t.material = material_ref(m);
            // "uv": [[u0, v0], [u1, v1], [u2, v2]], v down from the image's top row.
            if (Node uv = n.member("uv", "triangle 'uv'")) {
                if (!uv.v->is_array() || uv.v->size() != 3) uv.fail("triangle 'uv' must be 3 [u, v] pairs");
                glm::vec2* out[3] = {&t.uv0, &t.uv1, &t.uv2};
                for (size_t k = 0; k < 3; ++k) {
                    const Node e = uv.element(k);
                    if (!e.v->is_array() || e.v->size() != 2) e.fail("triangle 'uv' must be 3 [u, v] pairs");
                    *out[k] = glm::vec2(e.number_of((*e.v)[0], "u"), e.number_of((*e.v)[1], "v"));
                }
                t.has_uv = true;
            }
            scene_.triangles.push_back(t);
        } else if (type == "mesh") {
            n.check_keys({"type", "file", "transform", "material", "smooth", "uv"}, "mesh");
            glm::mat4 xform(1.0f);
            if (Node t = n.member("transform", "mesh 'transform'")) xform = read_transform(t);
            read_mesh_file(n, xform);
        } else if (type == "instance") {
            n.check_keys({"type", "mesh", "transform"}, "instance");
            Node m = n.require("mesh", "instance");
            const std::string name = m.str();
            const auto it = mesh_ids_.find(name);
            if (it == mesh_ids_.end()) {
                std::vector<std::string> names;
                for (const auto& kv : mesh_ids_) names.push_back(kv.first);
                std::sort(names.begin(), names.end());
                m.fail("unknown mesh '" + name + "'" + (names.empty() ? std::string(" (the scene's 'meshes' name none)") : suggestion(name, names)));
            }
            Instance inst;
            inst.mesh = it->second;
            if (Node t = n.member("transform", "instance 'transform'")) read_transform_double(t, inst.linear, inst.translate);
            scene_.instances.push_back(inst);
        } else {
            n.member("type", "").fail("unknown object type '" + type + "'" +
                                      suggestion(type, {"sphere", "plane", "triangle", "mesh", "instance"}));
        }
    }

    // A mesh file's triangles appended to the scene's, as a 'mesh' object or a named mesh
    // (then `xform` is the identity: its object space) reads them: "file", and optionally
    // "material", "smooth" and "uv". Returns the index of its first triangle.
    size_t read_mesh_file(const Node& n, const glm::mat4& xform) {
        bool smooth = false;
        if (Node sm = n.member("smooth", "mesh 'smooth'")) smooth = sm.boolean();
        const size_t first = scene_.triangles.size();
        Node f = n.require("file", "mesh");
        const std::string file = resolve_path(n.doc->file, f.str());
        std::optional<uint32_t> override_mat;
        if (Node m = n.member("material", "mesh 'material'")) override_mat = material_ref(m);
        const size_t added = append_mesh_file(scene_, file, xform, override_mat, n.doc->file, f.line());
        // A mesh with normals of its own (OBJ 'vn') keeps them; "smooth" makes them
        // for a mesh that has none.
        if (smooth) {
            bool has_normals = false;
            for (size_t i = first; i < scene_.triangles.size(); ++i) has_normals = has_normals || scene_.triangles[i].smooth;
            if (!has_normals) compute_smooth_normals(scene_.triangles, first);
        }
        if (Node uv = n.member("uv", "mesh 'uv'")) read_uv_projection(uv, scene_.triangles, first);
        if (added == 0)
            std::cerr << n.doc->where(f.offset()) << ": warning: mesh '" << file << "' has no triangles\n";
        return first;
    }

    // "meshes": {"name": {"file": ..., "material", "smooth", "uv"}}: meshes that
    // 'instance' objects place, each loaded once in its own (object) space.
    void read_meshes(const Node& n) {
        n.object("an object of named meshes");
        for (auto it = n.v->begin(); it != n.v->end(); ++it) {
            const std::string name = it.key();
            Node m = n.member(name, "mesh '" + name + "'");
            m.object("an object");
            m.check_keys({"file", "material", "smooth", "uv"}, "mesh '" + name + "'");
            if (const auto found = mesh_where_.find(name); found != mesh_where_.end())
                m.fail("mesh '" + name + "' is already defined at " + found->second);
            const size_t first = read_mesh_file(m, glm::mat4(1.0f));
            Mesh mesh;
            mesh.name = name;
            mesh.triangles.assign(scene_.triangles.begin() + std::ptrdiff_t(first), scene_.triangles.end());
            scene_.triangles.resize(first);
            mesh_ids_[name] = uint32_t(scene_.meshes.size());
            mesh_where_[name] = m.doc->where(m.offset());
            scene_.meshes.push_back(std::move(mesh));
        }
    }

    Scene& scene_;
    std::vector<std::unique_ptr<Doc>> docs_;  // kept alive: nodes of includers point into them
    std::vector<std::string> chain_keys_, chain_names_;
    std::unordered_map<std::string, uint32_t> material_ids_;
    std::unordered_map<std::string, std::string> material_where_;
    std::unordered_map<std::string, uint32_t> mesh_ids_;
    std::unordered_map<std::string, std::string> mesh_where_;
    bool default_defined_ = false;
};

// A scene whose file brings emitters and no lights gets the stand-in point lights that
// the OBJ and glTF loaders give theirs (load.h add_emitter_lights), so that the Whitted
// integrator lights it too: one for the triangles of each emissive material, one for
// each emissive sphere, on its surface facing the scene's centre.
void add_json_emitter_lights(Scene& scene, const std::string& path) {
    std::vector<EmitterGroup> groups(scene.materials.size());
    for (size_t m = 0; m < scene.materials.size(); ++m) groups[m].emission = scene.materials[m].emission;
    for (const Triangle& t : scene.triangles)
        if (scene.materials[t.material].emits()) groups[t.material].add(t.v0, t.v1, t.v2);
    for (const Instance& inst : scene.instances)
        for (const Triangle& t : scene.meshes[inst.mesh].triangles)
            if (scene.materials[t.material].emits()) {
                const Triangle w = instance_triangle(t, inst);
                groups[t.material].add(w.v0, w.v1, w.v2);
            }
    const Bounds3 b = finite_bounds(scene);
    const glm::dvec3 centre = 0.5 * (b.lo + b.hi);
    for (const Sphere& sp : scene.spheres) {
        if (!scene.materials[sp.material].emits()) continue;
        glm::dvec3 u = centre - sp.centre;
        const double ul = glm::length(u);
        u = ul > 0.0 ? u / ul : glm::dvec3(0.0, -1.0, 0.0);
        EmitterGroup g;
        g.area = 4.0 * M_PI * sp.radius * sp.radius;
        g.weighted_centre = g.area * (sp.centre + u * sp.radius);
        g.normal_sum = g.area * u;
        g.emission = scene.materials[sp.material].emission;
        groups.push_back(g);
    }
    // An environment map lights the scene under the path integrator; under Whitted's the
    // render line says it is seen there, not a light.
    if (add_emitter_lights(scene, groups, path, "emission") == 0 && !scene.environment.active())
        scene.add_light_note(path + ": the scene has no lights and no emitters; the Whitted integrator shows only "
                                     "the background and the ambient term");
}

}  // namespace

Scene load_json_scene(const std::string& path) {
    Scene scene;
    scene.name = path;
    Material grey;
    grey.name = "default";
    scene.add_material(grey);  // material 0 always exists
    JsonSceneBuilder builder(scene);
    builder.load(path, true, nullptr);
    if (scene.lights.empty()) add_json_emitter_lights(scene, path);
    validate(scene);
    return scene;
}

}  // namespace srt
