// builtin.cpp - the built-in default scene (scenes/default.json is the same scene;
// a test keeps the two equal).
//
// Mirror and diffuse spheres on a checkered floor between two facing mirrors: rays
// that enter the corridor bounce between the walls, so the picture changes with the
// depth limit up to depth 8 and beyond, and live rays thin out bounce by bounce.
#include "scene/scene.h"

namespace srt {

Scene builtin_default_scene() {
    Scene s;
    s.name = "builtin:default";
    s.camera.from = {0.0, 2.6, 10.5};
    s.camera.at = {0.0, 1.2, 0.0};
    s.camera.up = {0.0f, 1.0f, 0.0f};
    s.camera.fov_deg = 62.0f;
    s.background = {0.35f, 0.45f, 0.65f};

    Material grey;
    grey.name = "default";
    s.add_material(grey);  // 0

    Material floor{"floor", {0.9f, 0.9f, 0.85f}, 0.8f, {0.0f, 0.0f, 0.0f}};
    Material wall_mirror{"wall_mirror", {0.6f, 0.7f, 0.8f}, 0.08f, {0.85f, 0.88f, 0.9f}};
    Material chrome{"chrome", {1.0f, 1.0f, 1.0f}, 0.05f, {0.9f, 0.9f, 0.9f}};
    Material gold{"gold", {0.9f, 0.7f, 0.3f}, 0.3f, {0.7f, 0.55f, 0.25f}};
    Material red{"red", {0.85f, 0.15f, 0.12f}, 0.9f, {0.0f, 0.0f, 0.0f}};
    Material blue{"blue", {0.15f, 0.3f, 0.85f}, 0.9f, {0.0f, 0.0f, 0.0f}};
    Material green{"green", {0.2f, 0.75f, 0.25f}, 0.7f, {0.25f, 0.25f, 0.25f}};
    const uint32_t m_floor = s.add_material(floor);
    const uint32_t m_wall = s.add_material(wall_mirror);
    const uint32_t m_chrome = s.add_material(chrome);
    const uint32_t m_gold = s.add_material(gold);
    const uint32_t m_red = s.add_material(red);
    const uint32_t m_blue = s.add_material(blue);
    const uint32_t m_green = s.add_material(green);

    Plane ground;
    ground.point = {0.0, 0.0, 0.0};
    ground.normal = {0.0f, 1.0f, 0.0f};
    ground.material = m_floor;
    ground.checker = true;
    ground.checker_colour = {0.12f, 0.12f, 0.14f};
    ground.checker_size = 1.0f;
    s.planes.push_back(ground);

    // Two facing mirrors (finite quads, two triangles each), slightly toed in so the
    // reflections do not stack exactly, and low enough that the sky shows above them.
    auto quad = [&](Point3 a, Point3 b, Point3 c, Point3 d, uint32_t m) {
        s.triangles.push_back({a, b, c, m});
        s.triangles.push_back({a, c, d, m});
    };
    quad({-4.6, 0.0, 6.0}, {-4.2, 0.0, -14.0}, {-4.2, 3.6, -14.0}, {-4.6, 3.6, 6.0}, m_wall);
    quad({4.6, 0.0, 6.0}, {4.6, 3.6, 6.0}, {4.2, 3.6, -14.0}, {4.2, 0.0, -14.0}, m_wall);

    s.spheres.push_back({{0.0, 1.25, 0.0}, 1.25, m_chrome});
    s.spheres.push_back({{-2.6, 0.8, 1.2}, 0.8, m_red});
    s.spheres.push_back({{2.7, 1.0, -0.8}, 1.0, m_gold});
    s.spheres.push_back({{1.6, 0.5, 2.4}, 0.5, m_blue});
    s.spheres.push_back({{-1.4, 0.45, -2.2}, 0.45, m_green});
    s.spheres.push_back({{-0.9, 0.35, 3.0}, 0.35, m_chrome});

    Light key;
    key.type = LightType::Point;
    key.position = {2.0, 8.0, 6.0};
    key.colour = {0.8f, 0.78f, 0.72f};
    s.lights.push_back(key);
    Light sun;
    sun.type = LightType::Directional;
    sun.direction = glm::normalize(glm::vec3{-0.4f, -1.0f, -0.3f});
    sun.colour = {0.35f, 0.37f, 0.42f};
    s.lights.push_back(sun);
    return s;
}

}  // namespace srt
