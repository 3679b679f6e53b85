// load_nff.cpp - NFF (Eric Haines' Standard Procedural Databases), classic mapping.
//
// See /work/shared/data/spd/NFF.TXT and docs/scene-format.md. The classic meaning:
// - `angle` runs from the centre of the first pixel to the centre of the last, so the
//   edge-to-edge horizontal fov is 2*atan(tan(angle/2) * N/(N-1)), N = x resolution;
// - `f r g b Kd Ks Shine T ior`: diffuse Kd*colour, mirror reflectance Ks (grey); T > 0
//   makes it a dielectric of index ior, its refracted ray weighted by T (Whitted 1980's
//   constant transmission, Material::kt); Shine, a Phong highlight, is reported as
//   ignored;
// - `l x y z` without a colour: grey 1/sqrt(number of lights), the SPD exporters' rule;
// - `p`/`pp`: polygons, fan-triangulated; the vertex normals of `pp` make its triangles
//   smooth, read as OBJ `vn` is (load_obj.cpp): normalised, and a zero one (or one whose
//   length a float cannot hold) leaves the triangles it touches flat. Each fan triangle
//   keeps its own corners' normals.
// Cones/cylinders (`c`) have no primitive here and are an error naming the line.
#include "scene/load.h"

#include "core/error.h"
#include "core/file_reason.h"

#include <glm/glm.hpp>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace srt {

namespace {

bool parse_double(const std::string& tok, double& out) {
    if (tok.empty()) return false;
    // strtod would also take "inf", "nan" and hex floats: none is a valid NFF number.
    for (char c : tok)
        if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
            return false;
    char* end = nullptr;
    const double v = std::strtod(tok.c_str(), &end);
    if (end != tok.c_str() + tok.size() || !std::isfinite(v) || std::fabs(v) > FLT_MAX) return false;
    out = v;
    return true;
}

bool parse_int(const std::string& tok, long long& out) {
    if (tok.empty() || tok.size() > 12) return false;
    size_t i = tok[0] == '-' || tok[0] == '+' ? 1 : 0;
    if (i == tok.size()) return false;
    long long v = 0;
    for (; i < tok.size(); ++i) {
        if (tok[i] < '0' || tok[i] > '9') return false;
        v = v * 10 + (tok[i] - '0');
    }
    out = tok[0] == '-' ? -v : v;
    return true;
}

// Hands out the non-blank lines of an NFF file as tokens, with their line numbers.
class NffReader {
public:
    NffReader(const std::string& path, std::string text) : path_(path), text_(std::move(text)) {}

    bool next(std::vector<std::string>& t) {
        while (pos_ < text_.size()) {
            size_t eol = text_.find('\n', pos_);
            if (eol == std::string::npos) eol = text_.size();
            ++line_;
            t.clear();
            for (size_t i = pos_; i < eol;) {
                const char c = text_[i];
                if (c == '#') break;  // the rest of the line is a comment (NFF.TXT)
                if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
                    ++i;
                    continue;
                }
                size_t j = i;
                while (j < eol && text_[j] != ' ' && text_[j] != '\t' && text_[j] != '\r' &&
                       text_[j] != '#' && text_[j] != '\f' && text_[j] != '\v')
                    ++j;
                t.emplace_back(text_, i, j - i);
                i = j;
            }
            pos_ = eol + 1;
            if (!t.empty()) return true;
        }
        return false;
    }

    [[noreturn]] void fail(const std::string& msg) const { throw InputError(path_, line_, msg); }

    double number_double(const std::vector<std::string>& t, size_t i, const char* what) const {
        double v = 0.0;
        if (!parse_double(t[i], v)) fail("malformed number '" + t[i] + "' in " + what);
        return v;
    }
    float number(const std::vector<std::string>& t, size_t i, const char* what) const {
        return static_cast<float>(number_double(t, i, what));
    }

    glm::vec3 vec3(const std::vector<std::string>& t, size_t first, const char* what) const {
        return glm::vec3(point(t, first, what));
    }
    // Positions keep every digit of the file (scene.h's Point3).
    Point3 point(const std::vector<std::string>& t, size_t first, const char* what) const {
        return {number_double(t, first, what), number_double(t, first + 1, what),
                number_double(t, first + 2, what)};
    }

    void expect_count(const std::vector<std::string>& t, size_t n, const std::string& what) const {
        if (t.size() != n)
            fail("'" + what + "' expects " + std::to_string(n - 1) + " value(s), got " +
                 std::to_string(t.size() - 1));
    }

    int line() const { return line_; }

private:
    std::string path_;
    std::string text_;
    size_t pos_ = 0;
    int line_ = 0;
};

// A `pp` vertex normal as OBJ's reader makes a `vn` of an untransformed mesh: normalised
// in float as read, zero where its length is 0 or overflows (then its triangles are flat),
// and normalised again in double as append_mesh does after its (here identity)
// transform, so the same numbers in either file shade to the same bits.
glm::vec3 patch_normal(const glm::vec3& n) {
    const float len = glm::length(n);
    if (!(len > 0.0f && std::isfinite(len))) return glm::vec3(0.0f);
    const glm::dvec3 u(n / len);
    const double ulen = glm::length(u);
    return ulen > 0.0 ? glm::vec3(u / ulen) : glm::vec3(0.0f);
}

}  // namespace

Scene load_nff_scene(const std::string& path) {
    std::string text;
    {
        // A device or FIFO (/dev/zero) would be read until memory runs out.
        std::error_code ec;
        const auto st = std::filesystem::status(path, ec);
        if (!ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
            throw InputError(path, 0, "not a regular file");
        std::ifstream in(path, std::ios::binary);
        if (!in) throw InputError(path, 0, cannot_open(path, "NFF"));
        std::ostringstream ss;
        ss << in.rdbuf();
        text = ss.str();
    }
    NffReader r(path, std::move(text));
    Scene scene;
    scene.name = path;
    Material grey;
    grey.name = "default";
    scene.add_material(grey);

    uint32_t current_material = 0;
    std::map<std::array<float, 7>, uint32_t> material_ids;  // f lines repeat; share materials
    std::vector<bool> light_has_colour;
    bool have_view = false;
    bool noted_shine = false;
    bool noted_negative_radius = false;
    size_t dropped = 0;
    std::vector<std::string> t;
    std::vector<Point3> poly;
    std::vector<glm::vec3> poly_normals;  // `pp` only: one per vertex, zero = none

    while (r.next(t)) {
        const std::string kw = t[0];
        if (kw == "v") {
            r.expect_count(t, 1, "v");
            if (have_view) r.fail("second viewpoint ('v') block");
            have_view = true;
            const char* keys[6] = {"from", "at", "up", "angle", "hither", "resolution"};
            // The six lines come in the order NFF.TXT lists them.
            float angle = 0.0f;
            long long xres = 0, yres = 0;
            for (const char* key : keys) {
                if (!r.next(t)) r.fail(std::string("file ends inside the viewpoint block (expected '") + key + "')");
                if (t[0] != key)
                    r.fail(std::string("expected '") + key + "' in the viewpoint block, got '" + t[0] + "'");
                const std::string k = key;
                if (k == "from" || k == "at" || k == "up") {
                    r.expect_count(t, 4, k);
                    const Point3 v = r.point(t, 1, key);
                    if (k == "from") scene.camera.from = v;
                    else if (k == "at") scene.camera.at = v;
                    else scene.camera.up = glm::vec3(v);
                } else if (k == "angle") {
                    r.expect_count(t, 2, k);
                    angle = r.number(t, 1, "angle");
                    if (!(angle > 0.0f && angle < 180.0f)) r.fail("angle must be in (0, 180) degrees");
                } else if (k == "hither") {
                    r.expect_count(t, 2, k);
                    r.number(t, 1, "hither");  // no near plane in a ray tracer; checked only
                } else {
                    r.expect_count(t, 3, k);
                    if (!parse_int(t[1], xres) || !parse_int(t[2], yres))
                        r.fail("resolution expects two integers");
                    if (xres < 2 || yres < 2 || xres > 32768 || yres > 32768)
                        r.fail("resolution must be 2..32768 in each direction");
                }
            }
            if (glm::length(scene.camera.direction()) == 0.0f)
                r.fail("viewpoint 'from' equals 'at'");
            if (glm::length(glm::cross(scene.camera.direction(), scene.camera.up)) == 0.0f)
                r.fail("viewpoint 'up' is zero or parallel to the view direction");
            // Pixel-centre to pixel-centre angle -> edge-to-edge horizontal fov.
            const double n = static_cast<double>(xres);
            const double half = 0.5 * static_cast<double>(angle) * 3.14159265358979323846 / 180.0;
            scene.camera.fov_deg =
                static_cast<float>(2.0 * std::atan(std::tan(half) * n / (n - 1.0)) * 180.0 / 3.14159265358979323846);
            scene.width = static_cast<int>(xres);
            scene.height = static_cast<int>(yres);
        } else if (kw == "b") {
            r.expect_count(t, 4, "b");
            scene.background = r.vec3(t, 1, "b");
            if (scene.background.x < 0 || scene.background.y < 0 || scene.background.z < 0)
                r.fail("background colour components must be >= 0");
        } else if (kw == "l") {
            if (t.size() != 4 && t.size() != 7) r.fail("'l' expects x y z [r g b]");
            Light l;
            l.type = LightType::Point;
            l.position = r.point(t, 1, "l");
            if (t.size() == 7) {
                l.colour = r.vec3(t, 4, "l");
                if (l.colour.x < 0 || l.colour.y < 0 || l.colour.z < 0)
                    r.fail("light colour components must be >= 0");
            }
            scene.lights.push_back(l);
            light_has_colour.push_back(t.size() == 7);
        } else if (kw == "f") {
            r.expect_count(t, 9, "f");
            float v[8];
            for (int i = 0; i < 8; ++i) v[i] = r.number(t, i + 1, "f");
            for (int i = 0; i < 5; ++i)
                if (v[i] < 0.0f) r.fail("'f' colour, Kd and Ks must be >= 0");
            // Ks is JSON's kr, with its range: above 1 a mirror adds light at every bounce.
            // No rule on Ks + T, as JSON has none on kr + kt: files give clear water T 1 and
            // a faint reflection on top (Ks 0.05), and under Whitted the depth bounds it.
            if (!(v[4] <= 1.0f)) r.fail("'f' Ks (mirror reflectance) must be in [0, 1], not " + t[5]);
            if (v[5] != 0.0f && !noted_shine) {
                scene.notes.push_back(path + ":" + std::to_string(r.line()) +
                                      ": NFF Shine (Phong highlight) ignored: mirror-only Whitted model");
                noted_shine = true;
            }
            // T is "the fraction of contribution of the transmitting ray" (NFF.TXT); an
            // opaque surface (T 0) has no use for its ior, which SPD writes as 0 or 1.
            if (!(v[6] >= 0.0f && v[6] <= 1.0f)) r.fail("'f' T (transmittance) must be in [0, 1], not " + t[7]);
            const float kt = v[6], ior = kt > 0.0f ? v[7] : 0.0f;
            if (kt > 0.0f && !(ior > 0.0f && ior <= 10.0f))
                r.fail("'f' with T > 0 needs an index of refraction in (0, 10], not " + t[8]);
            const std::array<float, 7> key{v[0], v[1], v[2], v[3], v[4], kt, ior};
            auto it = material_ids.find(key);
            if (it != material_ids.end()) {
                current_material = it->second;
            } else {
                Material m;
                m.name = "nff" + std::to_string(material_ids.size() + 1);
                m.colour = {v[0], v[1], v[2]};
                m.kd = v[3];
                m.kr = glm::vec3(v[4]);
                m.kt = kt;
                m.ior = ior;
                current_material = scene.add_material(m);
                material_ids.emplace(key, current_material);
            }
        } else if (kw == "c") {
            r.fail("cones and cylinders ('c') are not supported by this renderer");
        } else if (kw == "s") {
            r.expect_count(t, 5, "s");
            Sphere s;
            s.centre = r.point(t, 1, "s");
            double radius = r.number_double(t, 4, "s");
            if (radius == 0.0) r.fail("sphere radius must not be 0");
            if (radius < 0.0) {
                // Negative = "only the inside is visible"; spheres here are two-sided anyway.
                if (!noted_negative_radius)
                    scene.notes.push_back(path + ":" + std::to_string(r.line()) +
                                          ": negative sphere radius (inside-only) treated as a plain sphere");
                noted_negative_radius = true;
                radius = -radius;
            }
            s.radius = radius;
            s.material = current_material;
            scene.spheres.push_back(s);
        } else if (kw == "p" || kw == "pp") {
            r.expect_count(t, 2, kw);
            long long n = 0;
            if (!parse_int(t[1], n)) r.fail("'" + kw + "' expects a vertex count, got '" + t[1] + "'");
            if (n < 3) r.fail("polygon has " + std::to_string(n) + " vertices (at least 3 needed)");
            // The count only bounds the loop: nothing is reserved, so a huge count in a
            // short file fails at the end of the file instead of exhausting memory.
            if (n > 10000000) r.fail("polygon vertex count " + t[1] + " is unreasonably large");
            const int start_line = r.line();
            const size_t per = kw == "p" ? 4 : 7;
            poly.clear();
            poly_normals.clear();
            for (long long i = 0; i < n; ++i) {
                if (!r.next(t))
                    throw InputError(path, start_line,
                                     "file ends after " + std::to_string(i) + " of " + std::to_string(n) +
                                         " polygon vertices");
                if (t.size() != per - 1)
                    r.fail("polygon vertex expects " + std::to_string(per - 1) + " numbers, got " +
                           std::to_string(t.size()));
                poly.push_back(r.point(t, 0, "vertex"));
                if (per == 7) poly_normals.push_back(patch_normal(r.vec3(t, 3, "vertex normal")));
            }
            for (size_t i = 1; i + 1 < poly.size(); ++i) {
                if (degenerate_triangle(poly[0], poly[i], poly[i + 1])) {
                    ++dropped;
                    continue;
                }
                Triangle tri{poly[0], poly[i], poly[i + 1], current_material};
                if (!poly_normals.empty()) {
                    const glm::vec3 zero(0.0f);
                    tri.smooth = poly_normals[0] != zero && poly_normals[i] != zero && poly_normals[i + 1] != zero;
                    if (tri.smooth) {
                        tri.n0 = poly_normals[0];
                        tri.n1 = poly_normals[i];
                        tri.n2 = poly_normals[i + 1];
                    }
                }
                scene.triangles.push_back(tri);
            }
        } else {
            r.fail("unknown NFF entity '" + kw + "'");
        }
    }
    if (!have_view) throw InputError(path, 0, "no viewpoint ('v') block");

    // Uncoloured lights share the total intensity, whatever order the lights came in.
    const float grey_level = scene.lights.empty() ? 1.0f : 1.0f / std::sqrt(float(scene.lights.size()));
    for (size_t i = 0; i < scene.lights.size(); ++i)
        if (!light_has_colour[i]) scene.lights[i].colour = glm::vec3(grey_level);
    if (dropped > 0)
        scene.notes.push_back(path + ": dropped " + std::to_string(dropped) +
                              " degenerate (zero-area) triangle" + (dropped == 1 ? "" : "s"));
    validate(scene);
    return scene;
}

}  // namespace srt
