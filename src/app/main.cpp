// main.cpp - the `stencilrt` command: render, view, bench.
#include "app/app.h"
#include <algorithm>
#include "render/scene_gpu.h"
#include "app/memory_check.h"
#include "app/flag_checks.h"
#include "app/suggest.h"

#include "core/error.h"
#include "scene/instances.h"
#include "scene/load.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <type_traits>

namespace srt::app {
namespace {

// Three numbers x,y,z, each rounded once from its text to T: positions (the camera's
// from and at, a light's position) double, as the scene keeps them, so that the
// viewer's `C`, which prints them with 17 digits, gives back the same camera; directions
// and colours float.
template <class T>
glm::vec<3, T> parse_xyz(const std::string& flag, const std::string& text, const char* names = "x,y,z") {
    std::vector<T> v;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        char* end = nullptr;
        const T f = std::is_same_v<T, float> ? T(std::strtof(item.c_str(), &end)) : T(std::strtod(item.c_str(), &end));
        if (item.empty() || *end != '\0' || !std::isfinite(f))
            throw InputError(flag + ": '" + text + "' is not three numbers " + names);
        v.push_back(f);
    }
    if (v.size() != 3) throw InputError(flag + ": '" + text + "' is not three numbers " + names);
    return {v[0], v[1], v[2]};
}
glm::vec3 parse_vec3(const std::string& flag, const std::string& text) { return parse_xyz<float>(flag, text); }

}  // namespace

std::string sampler_help() {
    return std::string("Path integrator: where its random numbers come from: independent (every number independent), "
                       "sobol (Owen-scrambled Sobol points, per pixel) or zsobol (the same points over Morton-ordered "
                       "pixels: the error as blue noise). Default: the scene's render.sampler, else ") +
           to_string(kDefaultSampler);
}

CLI::Validator kill_validator() {
    return CLI::Validator(
        [](std::string& input) {
            KillPattern k;
            return parse_kill(input, k);
        },
        "none|ray:P|warp:P|blockK:P|...:pbrt");
}

void check_kill_applies(const KillPattern& kill, const Scene& scene, Integrator integrator) {
    if (!kill.active() || integrator != Integrator::Whitted) return;
    for (const Material& m : scene.materials)
        if (m.is_dielectric())
            throw InputError("--kill " + to_string(kill) + ": the scene has glass, and under the Whitted integrator its "
                             "rays form trees (docs/ARCHITECTURE.md), which --kill does not cut; use --integrator path, "
                             "or a scene without glass");
}

void SceneOptions::add_to(CLI::App& cmd) {
    cmd.add_option("scene", scene,
                   "Scene file: .json, .obj, .ply, .gltf, .glb or .nff (docs/scene-format.md); default: the "
                   "built-in scene");
    cmd.add_option("--camera-from", from_text, "Camera position x,y,z");
    cmd.add_option("--camera-at", at_text, "Camera target x,y,z");
    cmd.add_option("--camera-up", up_text, "Camera up vector x,y,z");
    cmd.add_option("--render-origin", origin_text,
                   "World position x,y,z that rendering is done relative to (default: the camera's); the "
                   "viewer's C prints it, so the command renders its view bit for bit");
    cmd.add_flag("--flatten-instances", flatten_instances,
                 "Place each instance's mesh as a copy of its triangles (one BVH) instead of sharing it "
                 "(a two-level BVH): the same picture, for comparing speed and memory");
    cmd.add_option_function<float>("--fov", [this](float f) { fov = f; },
                                   "Horizontal field of view in degrees, edge to edge")
        ->check(number_in(0.01, 179.0, "degrees"));
    cmd.add_option_function<float>("--aperture", [this](float a) { aperture = a; },
                                   "Thin lens: the lens's radius in scene units (0: a pinhole, the default); what is "
                                   "nearer or further than the focus blurs")
        ->check(number_in(0.0, 1e30, "scene units"));
    cmd.add_option_function<float>("--focus", [this](float d) { focus = d; },
                                   "Thin lens: the distance in focus, along the view direction (default: the "
                                   "scene's focus_distance, else the distance to the camera's target)")
        ->check(number_in(1e-30, 1e30, "scene units"));
    cmd.add_option("--light", lights,
                   "Replace the scene's lights with point lights: x,y,z or x,y,z:r,g,b (repeatable)")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    cmd.add_option("--env", env,
                   "Environment map: an equirectangular HDR image (.exr or .hdr), FILE or FILE:intensity, that "
                   "lights the scene from every direction under --integrator path (Whitted's rays see it where "
                   "they leave the scene); replaces the scene's environment and the light a mesh file is given");
    cmd.add_option_function<float>("--env-rotation", [this](float d) { env_rotation = d; },
                                   "Turn the environment map about the up axis (+Y) by this many degrees")
        ->check(number_in(-1e6, 1e6, "degrees"));
    cmd.add_option("--light-model", light_model,
                   "How point and directional lights are read, under both integrators: classic (a light's colour "
                   "is what a surface facing it receives, at any distance) or physical (intensity falling off as "
                   "1/d^2, and 1/pi for a diffuse surface); default: the scene's light_model, else classic")
        ->check(one_of({"classic", "physical"}));
    cmd.add_option("--accel", accel,
                   "Acceleration structure: bvh2 (two boxes a node), bvh4 (four, collapsed from it) or bvh8 "
                   "(eight quantized boxes, collapsed from it); the same image")
        ->check(one_of({"bvh2", "bvh4", "bvh8"}))
        ->capture_default_str();
    cmd.add_option_function<std::string>(
           "--spatial-splits", [this](const std::string& v) { spatial_splits = v == "on"; },
           "BVH build: on (a triangle may be cut by a split plane and referenced from two leaves, where "
           "that saves traversal; the default) or off (every primitive in one leaf: a faster build); the "
           "same image")
        ->check(one_of({"on", "off"}));
    cmd.add_option("--bvh-build", bvh_build,
                   "Who builds the BVH: sah (binned SAH with spatial splits on the CPU: the better tree), ploc "
                   "(locally-ordered clustering, on the GPU where there is one: a build in milliseconds, the same "
                   "tree on the CPU) or auto (ploc for view and for renders too short to repay the SAH build, sah "
                   "for the bench and long renders; the line 'bvh' says which and why); the same image")
        ->check(one_of({"auto", "sah", "ploc"}))
        ->capture_default_str();
    cmd.add_option("--texture-filter", texture_filter,
                   "Textures seen from far off: bilinear (from the full image alone; aliases where a texel is "
                   "smaller than a pixel, until samples per pixel add up) or trilinear (from each image's mip "
                   "chain, by the ray cone's width at the hit: smooth at one sample, textured frames 4-20% slower)")
        ->check(one_of({"bilinear", "trilinear"}))
        ->capture_default_str();
}

AccelLayout SceneOptions::accel_layout() const {
    AccelLayout a = AccelLayout::Bvh2;
    parse_accel(accel, a);  // validated by the option
    return a;
}

std::string texture_line(const Scene& scene, const CompiledScene& compiled) {
    if (scene.textures.empty() && compiled.prim_alpha.empty()) return "none";
    const size_t masked = size_t(std::count_if(compiled.prim_alpha.begin(), compiled.prim_alpha.end(),
                                               [](uint32_t m) { return m != kNoMaskGpu; }));
    return std::to_string(scene.textures.size()) + " texture(s) of " + std::to_string(scene.images.size()) +
           " image(s), " + format_bytes(compiled.texture_bytes()) + " of texels; " + std::to_string(masked) +
           " triangle(s) alpha-masked";
}

Scene load_with_overrides(const SceneOptions& o) {
    Scene s = o.scene.empty() ? builtin_default_scene() : load_scene(o.scene);
    if (!o.from_text.empty()) s.camera.from = parse_xyz<double>("--camera-from", o.from_text);
    if (!o.at_text.empty()) s.camera.at = parse_xyz<double>("--camera-at", o.at_text);
    if (!o.up_text.empty()) s.camera.up = parse_vec3("--camera-up", o.up_text);
    if (o.fov) s.camera.fov_deg = *o.fov;
    // The lens holds for every frame of an animation too (its keys do not set one).
    std::vector<Camera*> cameras{&s.camera};
    for (CameraKey& k : s.animation.keys) cameras.push_back(&k.camera);
    for (Camera* c : cameras) {
        if (o.aperture) c->aperture = *o.aperture;
        if (o.focus) c->focus_distance = *o.focus;
    }
    if (!o.origin_text.empty()) s.render_origin = parse_xyz<double>("--render-origin", o.origin_text);
    if (o.flatten_instances) flatten_instances(s);
    place_auto_light(s);  // a light the loader made up for the file's camera follows the one used
    s.texture_filter = o.texture_filter == "trilinear" ? TextureFilter::Trilinear : TextureFilter::Bilinear;
    // The lights a loader made up, and what it said of them, go where the command line
    // brings light of its own.
    const auto drop_made_up_lights = [&s] {
        for (auto k = s.light_notes.rbegin(); k != s.light_notes.rend(); ++k)
            s.notes.erase(s.notes.begin() + std::ptrdiff_t(*k));
        s.light_notes.clear();
    };
    if (!o.env.empty()) {
        // FILE:intensity where what follows the last ':' is a number; else the whole is the file.
        std::string file = o.env;
        float intensity = 1.0f;
        const size_t colon = o.env.rfind(':');
        if (colon != std::string::npos) {
            const std::string tail = o.env.substr(colon + 1);
            char* end = nullptr;
            const float k = std::strtof(tail.c_str(), &end);
            if (!tail.empty() && end == tail.c_str() + tail.size()) {
                if (!(k >= 0.0f) || !std::isfinite(k))
                    throw InputError("--env " + o.env + ": the intensity must be a finite number, 0 or more");
                file = o.env.substr(0, colon);
                intensity = k;
            }
        }
        try {
            s.environment = environment_from_file(file, intensity, s.environment.rotation);
        } catch (const InputError& e) {
            throw InputError("--env " + o.env + ": " + e.what());
        }
        if (s.auto_light) {
            s.lights.erase(s.lights.begin() + std::ptrdiff_t(s.auto_light->index));
            s.auto_light.reset();
            drop_made_up_lights();
        }
    }
    if (o.env_rotation) {
        if (!s.environment.active()) throw InputError("--env-rotation: the scene has no environment map (give one with --env)");
        s.environment.rotation = *o.env_rotation;
    }
    if (!o.lights.empty()) {
        s.lights.clear();
        s.auto_light.reset();
        drop_made_up_lights();
        for (const std::string& l : o.lights) {
            Light light;
            const size_t colon = l.find(':');
            light.position = Point3(parse_xyz<double>("--light " + l, l.substr(0, colon)));
            if (colon != std::string::npos) light.colour = parse_xyz<float>("--light " + l, l.substr(colon + 1), "r,g,b");
            s.lights.push_back(light);
        }
    }
    if (!o.light_model.empty()) parse_light_model(o.light_model, s.light_model);  // validated by the option
    validate(s);
    return s;
}

void FrameOptions::add_to(CLI::App& cmd, bool with_size) {
    if (with_size) {
        cmd.add_option("--width,-W", width, "Image width in pixels")->check(whole_number(1, 16384))->capture_default_str();
        cmd.add_option("--height,-H", height, "Image height in pixels")->check(whole_number(1, 16384))->capture_default_str();
    }
    cmd.add_option("--depth,-d", depth, "Max trace depth: whitted, the primary ray is level 1; path, the most "
                                        "scattering vertices of a path (1 = direct light)")
        ->check(whole_number(1, 64))->capture_default_str();
    cmd.add_option("--integrator,-i", integrator,
                   "Light transport: whitted (hard shadows, mirrors, Fresnel-weighted glass; noise-free at one "
                   "sample) or path (path tracing: area lights, glass, rough metal; converges with --spp). "
                   "Default: the scene's render.integrator, else whitted")
        ->check(one_of({"whitted", "path"}));
    cmd.add_option("--seed", seed, "Path integrator: the random numbers' seed (another seed, another "
                                   "independent image of the same scene)")
        ->check(whole_number(0, 4294967295LL))->capture_default_str();
    cmd.add_option("--sampler", sampler, sampler_help())->check(one_of(sampler_names()));
    cmd.add_option("--spp", spp, "Samples per pixel")->check(whole_number(1, 4096))->capture_default_str();
    cmd.add_option("--exposure", exposure_text,
                   "Exposure in EV: 8-bit output (PNG, the viewer) shows radiance * 2^EV; EXR and PFM hold the "
                   "radiance unscaled. auto: chosen from the image (its log-average luminance brought to 0.18), "
                   "and printed")
        ->check(auto_or(number_in(-30.0, 30.0, "EV")))->capture_default_str();
    cmd.add_option("--backend,-b", backend, "Executor")->check(one_of({"auto", "cuda", "cpu"}))->capture_default_str();
    std::string modes_help = "Dead-ray strategy, the same image from each:";
    for (const DeadRayModeInfo& m : kDeadRayModeTable) modes_help += std::string(" ") + m.name + " (" + m.summary + ");";
    modes_help.back() = '.';
    cmd.add_option("--mode,-m", mode, modes_help)->check(one_of(mode_names()))->capture_default_str();
    cmd.add_option("--launch", launch, "How the GPU's kernels are issued: a CUDA graph with device-side loops, or stream launches (CUDA)")
        ->check(one_of({"graph", "stream"}))->capture_default_str();
    cmd.add_option("--devices", devices, "GPUs to split each frame over, in bands balanced by their speed: all, or a list like 0,1 (CUDA)");
    cmd.add_option("--warp-shape", warp_shape, "Pixels covered by one warp of 32 rays")
        ->check(one_of({"1x32", "2x16", "4x8", "8x4", "16x2", "32x1"}))->capture_default_str();
    cmd.add_option("--kill", kill, "Kill live rays at each bounce, an experiment on how rays die (docs/benchmark.md): "
                                   "PATTERN:P, PATTERN ray (each at random), warp (whole warp tiles) or blockK (K x K "
                                   "tiles), P the survival per bounce or pbrt (pbrt-v4's Cornell box); none")
        ->check(kill_validator())->capture_default_str();
}

RenderSettings FrameOptions::settings(const Scene& scene, const CLI::App& cmd) const {
    RenderSettings rs;
    // A scene may suggest a size and depth; flags given on the command line win.
    rs.width = (cmd.count("--width") == 0 && scene.width > 0) ? scene.width : width;
    rs.height = (cmd.count("--height") == 0 && scene.height > 0) ? scene.height : height;
    rs.depth = (cmd.count("--depth") == 0 && scene.depth > 0) ? scene.depth : depth;
    rs.spp = spp;
    rs.exposure = exposure_text == "auto" ? 0.0f : std::strtof(exposure_text.c_str(), nullptr);  // validated
    rs.warp_width = std::atoi(warp_shape.c_str());  // "8x4" -> 8 (validated by the option)
    parse_mode(mode, rs.mode);
    parse_launch_mode(launch, rs.launch);
    rs.integrator = chosen_integrator(integrator, scene.integrator);  // validated by the option
    rs.seed = seed;
    rs.sampler = chosen_sampler(sampler, scene.sampler);
    if (const std::string why = sampler_problem(rs); !why.empty()) throw InputError(why);
    parse_kill(kill, rs.kill);  // validated by the option
    check_kill_applies(rs.kill, scene, rs.integrator);
    return rs;
}

void RenderOptions::add_to(CLI::App& cmd) {
    cmd.add_option("-o,--output", out,
                   "Output image, by extension: .png (8-bit sRGB), .exr (OpenEXR, linear), .pfm (linear float); "
                   "a file (replaced atomically; a symlink is followed), a device or FIFO (written in place), "
                   "or - for a PNG on standard output")
        ->capture_default_str();
    cmd.add_flag("--stats", stats, "Print live rays, live warps and SIMD efficiency per bounce, and stage times");
    cmd.add_option("--exr-pixel", exr_pixel, "EXR pixel type")->check(one_of({"half", "float"}))->capture_default_str();
    cmd.add_option("--exr-channels", exr_channels, "EXR channels (A is 1)")->check(one_of({"rgb", "rgba"}))->capture_default_str();
    cmd.add_option("--frames", frames, "Render frames A..B (inclusive) of the scene's camera animation; -o then needs a frame number, like out_%04d.png");
    cmd.add_option("--frame", frame, "Render frame K of the scene's camera animation");
    cmd.add_flag("--frame-count", frame_count, "Print the number of frames of the scene's camera animation and exit (for job scripts)");
    cmd.add_option("--stats-json", stats_json, "Write the scene, device, settings, frame times, rays and live rays/warps per bounce as JSON (docs/stats-json.md)");
}

Backend FrameOptions::parsed_backend() const {
    Backend b = Backend::Auto;
    parse_backend(backend, b);
    return b;
}

}  // namespace srt::app

int main(int argc, char** argv) {
    using namespace srt;
    using namespace srt::app;
    CLI::App cli{"stencilrt - a CUDA wavefront ray tracer with a software stencil buffer for dead rays"};
    cli.set_version_flag("--version", std::string("stencilrt ") + SRT_VERSION);
    cli.require_subcommand(1);
    last_flag_wins(cli);  // before the subcommands, which copy it

    SceneOptions so;
    FrameOptions fo;

    CLI::App* render = cli.add_subcommand("render", "Render a scene to an image file (headless)");
    RenderOptions ro;
    so.add_to(*render);
    fo.add_to(*render);
    ro.add_to(*render);

    CLI::App* view = cli.add_subcommand("view", "Open the interactive viewer");
    SceneOptions vso;
    FrameOptions vfo;
    vfo.width = 1280;
    vfo.height = 720;
    vso.add_to(*view);
    vfo.add_to(*view);
    int frames = 0;
    std::string screenshot;
    bool no_vsync = false;
    std::string script;
    view->add_option("--frames", frames, "Render N frames, then exit (0 = run until closed)")->check(whole_number(0, 100000000));
    view->add_option("--screenshot", screenshot, "With --frames: save the final framebuffer here");
    view->add_flag("--no-vsync", no_vsync, "Start with vsync off");
    view->add_option("--input-script", script, "Replay scripted key presses (tests)");
    std::string shader_dir;
    int max_samples = 4096;
    view->add_option("--max-samples", max_samples,
                     "While nothing changes, each frame adds --spp samples to the image, up to this many (1 = no accumulation)")
        ->check(whole_number(1, 1 << 24))->capture_default_str();
    view->add_option("--shader-dir", shader_dir,
                     "Load fullscreen.vert and display.frag from this folder instead of the copies built in (to edit them)");

    // bench parses its own options (app/cmd_bench.cpp), --help included: everything
    // after the word "bench" is handed over unparsed.
    CLI::App* bench = cli.add_subcommand("bench", "Benchmark FPS per bounce depth and dead-ray mode (bench --help)");
    bench->allow_extras();
    bench->prefix_command();
    bench->set_help_flag();

    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return cli.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return cli.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        // The error of the command that failed (a subcommand's, unless what went wrong
        // came before it), a hint, and where its help is, in a few lines.
        const std::vector<CLI::App*> parsed = cli.get_subcommands();
        if (parsed.empty() || !cli.remaining().empty()) {
            std::fputs(parse_failure(cli, e, "stencilrt").c_str(), stderr);
        } else {
            std::fputs(parse_failure(*parsed.back(), e, "stencilrt " + parsed.back()->get_name()).c_str(), stderr);
        }
        return 2;
    }

    try {
        if (*render) return cmd_render(so, fo, *render, ro);
        if (*view) {
            std::vector<std::string> extra = {std::to_string(frames), screenshot,
                                              no_vsync ? "1" : "0", script, shader_dir, std::to_string(max_samples)};
            return cmd_view(vso, vfo, *view, extra);
        }
        if (*bench) return cmd_bench(argc, argv);
    } catch (const InputError& e) {
        std::fprintf(stderr, "stencilrt: %s\n", e.what());
        // A flag's value refused after parsing: where its help is, as a parse error says.
        if (e.what()[0] == '-' && e.what()[1] == '-')
            std::fprintf(stderr, "run `stencilrt %s --help` for its options\n", *render ? "render" : *view ? "view" : "bench");
        return 2;
    } catch (const OutputError& e) {
        std::fprintf(stderr, "stencilrt: %s\n", e.what());
        return 2;
    } catch (const BackendUnavailable& e) {
        std::fprintf(stderr, "stencilrt: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "stencilrt: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
