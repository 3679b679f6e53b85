// test_parsers.cpp - scene loaders: good files load with the right values, every bad
// file fails with "file:line[:col]: message", and our own scene files stay loadable.
#include "core/error.h"
#include "scene/load.h"
#include "scene/scene.h"

#include "render/scene_gpu.h"

#include <gtest/gtest.h>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/glm.hpp>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace srt;

namespace {

const std::string kData = SRT_TEST_DATA;
const std::string kSource = SRT_SOURCE_DIR;
const std::string kShared = SRT_SHARED_DATA;

std::string good(const std::string& name) { return kData + "/good/" + name; }
std::string bad(const std::string& name) { return kData + "/bad/" + name; }

// The message of the InputError `path` raises, or "" if it loads.
std::string load_error(const std::string& path) {
    try {
        load_scene(path);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

// The scene's material of that name (material 0, and a failure, when there is none).
const Material& material_named(const Scene& s, const std::string& name) {
    for (const Material& m : s.materials)
        if (m.name == name) return m;
    ADD_FAILURE() << "no material " << name;
    return s.materials[0];
}

bool has_note(const Scene& s, const std::string& part) {
    for (const std::string& n : s.notes)
        if (n.find(part) != std::string::npos) return true;
    return false;
}

#define EXPECT_VEC3_EQ(a, b)       \
    do {                           \
        EXPECT_EQ((a).x, (b).x);   \
        EXPECT_EQ((a).y, (b).y);   \
        EXPECT_EQ((a).z, (b).z);   \
    } while (0)

#define EXPECT_VEC3_NEAR(a, b, eps)       \
    do {                                  \
        EXPECT_NEAR((a).x, (b).x, (eps)); \
        EXPECT_NEAR((a).y, (b).y, (eps)); \
        EXPECT_NEAR((a).z, (b).z, (eps)); \
    } while (0)

}  // namespace

// ---------------------------------------------------------------------------
// Bad files: each with the error it must give, file:line[:col] prefix included.
// ---------------------------------------------------------------------------

struct BadCase {
    const char* file;
    const char* expected;  // substring of what(); "bad/" is the start of the file's path
};

class ParserBad : public ::testing::TestWithParam<BadCase> {};

TEST_P(ParserBad, FailsWithLocation) {
    const BadCase& c = GetParam();
    const std::string msg = load_error(bad(c.file));
    ASSERT_FALSE(msg.empty()) << c.file << " loaded without error";
    EXPECT_NE(msg.find(c.expected), std::string::npos) << "file: " << c.file << "\n  got: " << msg
                                                       << "\n  want substring: " << c.expected;
}

// clang-format off
const BadCase kBadCases[] = {
    // JSON syntax: nlohmann's byte offset turned into line:col
    {"json_syntax_trailing_comma.json", "bad/json_syntax_trailing_comma.json:5:5: syntax error"},
    {"json_syntax_unterminated_string.json", "bad/json_syntax_unterminated_string.json:4:"},
    {"json_syntax_empty.json", "bad/json_syntax_empty.json:1:1: syntax error"},
    {"json_number_overflow.json", "bad/json_number_overflow.json:3:54: JSON syntax error: number overflow"},
    {"json_duplicate_key.json", "bad/json_duplicate_key.json:4:62: duplicate key 'radius'"},
    {"json_deep_nesting.json", "bad/json_deep_nesting.json:3:73: JSON nested deeper than 64 levels"},
    // JSON semantics: the line:col of the offending value
    {"json_top_not_object.json", "bad/json_top_not_object.json:1:1: the scene must be an object"},
    {"json_sphere_negative_radius.json", "bad/json_sphere_negative_radius.json:5:41: sphere 'radius' must be > 0"},
    {"json_radius_string.json", "bad/json_radius_string.json:4:59: sphere 'radius' must be a number, not a string"},
    {"json_missing_centre.json", "bad/json_missing_centre.json:4:9: sphere is missing 'centre'"},
    {"json_unknown_material.json", "bad/json_unknown_material.json:6:22: unknown material 'chrom' (did you mean 'chrome'?)"},
    {"json_instance_unknown_mesh.json", "bad/json_instance_unknown_mesh.json:5:38: unknown mesh 'knto' (did you mean 'knot'?)"},
    {"json_instance_no_meshes.json", "bad/json_instance_no_meshes.json:4:38: unknown mesh 'knot' (the scene's 'meshes' name none)"},
    {"json_instance_huge_scale.json", "bad/json_instance_huge_scale.json:5:59: instance 'transform' scales beyond what float carries"},
    {"json_instance_zero_scale.json", "bad/json_instance_zero_scale.json:5:69: transform 'scale' must not be 0"},
    {"json_instance_missing_mesh.json", "bad/json_instance_missing_mesh.json:5:9: instance is missing 'mesh'"},
    {"json_mesh_missing_file.json", "bad/json_mesh_missing_file.json:3: mesh file '"},
    {"json_meshes_not_object.json", "bad/json_meshes_not_object.json:3:15: 'meshes' must be an object of named meshes"},
    {"json_material_index_range.json", "bad/json_material_index_range.json:4:74: material index 7 out of range"},
    {"json_plane_zero_normal.json", "bad/json_plane_zero_normal.json:4:57: plane 'normal' must not be zero"},
    {"json_vec_wrong_length.json", "bad/json_vec_wrong_length.json:4:38: sphere 'centre' must be an array of 3 numbers"},
    {"json_number_too_big.json", "bad/json_number_too_big.json:3:19: 'background'[1] is not a finite number"},
    {"json_unknown_object_type.json", "bad/json_unknown_object_type.json:4:18: unknown object type 'sphre' (did you mean 'sphere'?)"},
    {"json_unknown_light_type.json", "bad/json_unknown_light_type.json:4:18: unknown light type 'spot'"},
    {"json_camera_missing.json", "bad/json_camera_missing.json:1:1: the scene is missing 'camera'"},
    {"json_camera_fov.json", "bad/json_camera_fov.json:3:23: camera 'fov' must be in (0, 180) degrees"},
    {"json_camera_aperture.json", "bad/json_camera_aperture.json:3:28: camera 'aperture' (the lens's radius) must be 0 (a pinhole) or more"},
    {"json_camera_focus.json", "bad/json_camera_focus.json:3:34: camera 'focus_distance' must be more than 0 (leave it out to focus at 'at')"},
    // from and at are double, the view direction between them float
    // the environment map: its keys, and its file's own complaint after the scene's line
    {"json_env_no_file.json", "bad/json_env_no_file.json:3:20: 'environment' is missing 'file'"},
    {"json_env_intensity.json", "bad/json_env_intensity.json:3:53: environment 'intensity' must be 0 or more"},
    {"json_env_missing.json", "bad/no-such-sky.hdr: cannot open image file: No such file or directory"},
    {"json_env_truncated.json", "bad/env_truncated.hdr: scanline 0 runs past the end of the file"},
    {"json_camera_too_far.json", "bad/json_camera_too_far.json:2:15: camera 'at' is too far from 'from'"},
    {"json_material_ka_negative.json", "bad/json_material_ka_negative.json:3:52: 'ka' must be >= 0"},
    {"json_ambient_negative.json", "bad/json_ambient_negative.json:3:16: 'ambient' components must be >= 0"},
    // the material terms beyond Whitted's, and the integrator a scene suggests
    {"json_mat_emission_negative.json", "bad/json_mat_emission_negative.json:3:37: material 'm' 'emission' components must be >= 0"},
    // Finite but past what the film can sum (scene.h kMaxEmission): infinite pixels.
    {"json_mat_emission_huge.json", "bad/json_mat_emission_huge.json:3:37: material 'm' 'emission' components must be at most 1e18, not 3e+38: a brighter emitter overflows the film (a pixel sums up to 2^24 samples, shown at up to 2^30 exposure)"},
    {"json_mat_two_sided_number.json", "bad/json_mat_two_sided_number.json:3:70: material 'm' 'emission_two_sided' must be true or false, not a number"},
    {"json_mat_roughness_range.json", "bad/json_mat_roughness_range.json:3:49: 'roughness' must be in [0, 1]"},
    {"json_mat_metallic_range.json", "bad/json_mat_metallic_range.json:3:37: 'metallic' must be in [0, 1]"},
    {"json_mat_metallic_texture_alone.json", "bad/json_mat_metallic_texture_alone.json:3:63: 'metallic_texture' needs 'metallic', which it multiplies"},
    {"json_mat_normal_scale_alone.json", "bad/json_mat_normal_scale_alone.json:3:68: 'normal_scale' needs 'normal_texture', whose tilt it scales"},
    {"json_mat_normal_scale_range.json", "bad/json_mat_normal_scale_range.json:3:90: 'normal_scale' must be in [-10, 10]"},
    {"json_mat_emission_texture_alone.json", "bad/json_mat_emission_texture_alone.json:3:72: 'emission_texture' needs 'emission', which it multiplies"},
    {"json_tex_scale_shape.json", "bad/json_tex_scale_shape.json:3:93: material 'm' 'texture' 'scale' must be an array of 2 numbers"},
    {"json_tex_rotation_string.json", "bad/json_tex_rotation_string.json:3:96: material 'm' 'texture' 'rotation' must be a number, not a string"},
    {"json_mat_map_channel.json", "bad/json_mat_map_channel.json:3:107: material 'm' 'roughness_texture' 'channel' must be \"r\", \"g\" or \"b\", not 'a'"},
    {"json_mat_metallic_kr.json", "bad/json_mat_metallic_kr.json:3:48: 'metallic' (glTF's BRDF) and 'kr' are two models of one surface: give one"},
    {"json_mat_glossy_range.json", "bad/json_mat_glossy_range.json:3:35: 'glossy' must be in [0, 1]"},
    {"json_mat_glossy_with_kr.json", "bad/json_mat_glossy_with_kr.json:3:46: 'glossy' is for a material without 'kr' (a rough mirror is 'kr' with 'roughness')"},
    {"json_mat_ior_zero.json", "bad/json_mat_ior_zero.json:3:32: 'ior' must be in (0, 10]"},
    {"json_mat_ior_huge.json", "bad/json_mat_ior_huge.json:3:32: 'ior' must be in (0, 10]"},
    {"json_mat_absorption_without_ior.json", "bad/json_mat_absorption_without_ior.json:3:39: 'absorption' needs 'ior': only a dielectric absorbs inside"},
    {"json_mat_absorption_negative.json", "bad/json_mat_absorption_negative.json:3:51: material 'm' 'absorption' components must be >= 0"},
    {"json_mat_kt_without_ior.json", "bad/json_mat_kt_without_ior.json:3:42: 'kt' needs 'ior': it weights a dielectric's refracted ray"},
    {"json_mat_kt_range.json", "bad/json_mat_kt_range.json:3:43: 'kt' must be in [0, 1]"},
    {"json_render_integrator.json", "bad/json_render_integrator.json:3:43: render 'integrator' must be \"whitted\" or \"path\", not \"paht\" (did you mean 'path'?)"},
    {"json_render_sampler.json", "bad/json_render_sampler.json:3:40: render 'sampler' must be \"independent\", \"sobol\" or \"zsobol\", not \"zsbol\" (did you mean 'zsobol'?)"},
    {"json_render_integrator_number.json", "bad/json_render_integrator_number.json:3:30: render 'integrator' must be a string, not a number"},
    // PLY (scene/load_ply.cpp): file:line in the header and ASCII data, a byte offset in binary data
    {"ply_ascii_huge_count.ply", "bad/ply_ascii_huge_count.ply:14: the file ends before 'x' of vertex 3"},
    {"ply_bad_count.ply", "bad/ply_bad_count.ply:3: element count '-3' is not a count"},
    {"ply_bad_format.ply", "bad/ply_bad_format.ply:2: unknown format 'binary_middle_endian'"},
    {"ply_binary_huge_list.ply", "bad/ply_binary_huge_list.ply: byte 240: the file ends inside 'vertex_indices' of face 0 (0 bytes left, 4 needed)"},
    {"ply_binary_index_range.ply", "bad/ply_binary_index_range.ply: byte 233: vertex index 5 in face 0 is out of range (3 vertices)"},
    {"ply_binary_nan.ply", "bad/ply_binary_nan.ply: byte 202: 'x' of vertex 1 is not a finite number"},
    {"ply_binary_short.ply", "bad/ply_binary_short.ply: byte 232: the file ends before the 12000002 bytes its header declares at least"},
    {"ply_binary_trailing.ply", "bad/ply_binary_trailing.ply: byte 240: 4 bytes after the last element the header declares"},
    {"ply_duplicate_property.ply", "bad/ply_duplicate_property.ply:5: property 'x' declared twice"},
    {"ply_extra_data.ply", "bad/ply_extra_data.ply:14: data after the last element the header declares"},
    {"ply_index_out_of_range.ply", "bad/ply_index_out_of_range.ply:13: vertex index 3 in face 0 is out of range (3 vertices)"},
    {"ply_index_huge.ply", "bad/ply_index_huge.ply:13: vertex index 1e+61 in face 0 is out of range (3 vertices)"},
    {"ply_list_float_count.ply", "bad/ply_list_float_count.ply:8: list count type 'float' must be an integer type"},
    {"ply_malformed_number.ply", "bad/ply_malformed_number.ply:11: malformed number '0x' in 'z' of vertex 1"},
    {"ply_missing_z.ply", "bad/ply_missing_z.ply:3: element vertex needs properties x, y and z"},
    {"ply_no_end_header.ply", "bad/ply_no_end_header.ply:4: the header has no 'end_header'"},
    {"ply_no_faces.ply", "bad/ply_no_faces.ply:7: no 'element face' (point clouds have no surface to render)"},
    {"ply_non_integer_index.ply", "bad/ply_non_integer_index.ply:13: '1.5' in 'vertex_indices' of face 0 is not an integer"},
    {"ply_not_ply.ply", "bad/ply_not_ply.ply:1: not a PLY file (the first line must be 'ply')"},
    {"ply_property_before_element.ply", "bad/ply_property_before_element.ply:3: 'property' before any 'element'"},
    {"ply_too_few_values.ply", "bad/ply_too_few_values.ply:11: missing 'z' of vertex 1 (the line has fewer values than the header declares)"},
    {"ply_truncated_ascii.ply", "bad/ply_truncated_ascii.ply:12: the file ends before 'x' of vertex 2"},
    {"ply_truncated_binary.ply", "bad/ply_truncated_binary.ply: byte 229: the file ends inside 'vertex_indices' of face 0 (0 bytes left, 4 needed)"},
    {"ply_unknown_type.ply", "bad/ply_unknown_type.ply:4: unknown type 'float3'"},
    // glTF 2.0 (scene/load_gltf.cpp): the file and a JSON pointer, or tinygltf's reason
    {"gltf_accessor_count.gltf", "bad/gltf_accessor_count.gltf: /accessors/0: count 30 runs past the end of its buffer view (36 bytes)"},
    {"gltf_bad_magic.glb", "bad/gltf_bad_magic.glb: GLB: the file does not start with 'glTF'"},
    {"gltf_bufferview_past_buffer.gltf", "bad/gltf_bufferview_past_buffer.gltf: /bufferViews/0: runs past the end of buffer 0 (44 bytes)"},
    {"gltf_bufferview_range.gltf", "bad/gltf_bufferview_range.gltf: /accessors/0: bufferView missing or out of range"},
    {"gltf_index_range.gltf", "bad/gltf_index_range.gltf: /accessors/1: index 7 at 2 is out of range (3 vertices)"},
    {"gltf_missing_buffer.gltf", "bad/gltf_missing_buffer.gltf: not a valid glTF 2.0 file: File not found : missing.bin"},
    // A buffer URI naming a directory (the fuzzer's find: tinygltf's own reader tried to
    // allocate 2^63 - 1 bytes for it): only regular files are read.
    {"gltf_buffer_is_directory.gltf", "bad/gltf_buffer_is_directory.gltf: not a valid glTF 2.0 file: File not found : ."},
    {"gltf_no_asset.gltf", "bad/gltf_no_asset.gltf: not a valid glTF 2.0 file: \"asset\" object not found in .gltf or not an object type"},
    {"gltf_no_position.gltf", "bad/gltf_no_position.gltf: /meshes/0/primitives/0: has no POSITION attribute"},
    {"gltf_node_cycle.gltf", "bad/gltf_node_cycle.gltf: /nodes/0: the node hierarchy has a cycle"},
    // materials: emission and the KHR_materials_* extensions
    {"gltf_mat_emissive_negative.gltf", "bad/gltf_mat_emissive_negative.gltf: /materials/0/emissiveFactor: components must be >= 0"},
    {"gltf_mat_emissive_strength.gltf", "bad/gltf_mat_emissive_strength.gltf: /materials/0/extensions/KHR_materials_emissive_strength/emissiveStrength: must be a number >= 0"},
    {"gltf_mat_emissive_strength_huge.gltf", "bad/gltf_mat_emissive_strength_huge.gltf: /materials/0/extensions/KHR_materials_emissive_strength/emissiveStrength: emissiveFactor x emissiveStrength must be at most 1e18, not 1e+35: a brighter emitter overflows the film (a pixel sums up to 2^24 samples, shown at up to 2^30 exposure)"},
    {"gltf_mat_emissive_factor_huge.gltf", "bad/gltf_mat_emissive_factor_huge.gltf: /materials/0/emissiveFactor: emissiveFactor x emissiveStrength must be at most 1e18, not 3e+38: a brighter emitter overflows the film"},
    {"gltf_tangent_count.gltf", "bad/gltf_tangent_count.gltf: /accessors/4: TANGENT has 3 entries, POSITION 4"},
    {"gltf_normal_texcoord.gltf", "bad/gltf_normal_texcoord.gltf: /materials/0/normalTexture/texCoord: must be >= 0"},
    {"gltf_mat_ior_range.gltf", "bad/gltf_mat_ior_range.gltf: /materials/0/extensions/KHR_materials_ior/ior: must be a number in [1, 10], or 0"},
    {"gltf_mat_transmission_range.gltf", "bad/gltf_mat_transmission_range.gltf: /materials/0/extensions/KHR_materials_transmission/transmissionFactor: must be a number in [0, 1]"},
    {"gltf_mat_attenuation_distance.gltf", "bad/gltf_mat_attenuation_distance.gltf: /materials/0/extensions/KHR_materials_volume/attenuationDistance: must be a number > 0"},
    {"gltf_mat_attenuation_color.gltf", "bad/gltf_mat_attenuation_color.gltf: /materials/0/extensions/KHR_materials_volume/attenuationColor: must be an array of 3 numbers in [0, 1]"},
    // textures (scene/texture_file.h, core/image_decode.h)
    {"gltf_tex_required_extension.gltf", "bad/gltf_tex_required_extension.gltf: /extensionsRequired/0: the file requires the extension 'KHR_draco_mesh_compression', which stencilrt does not support"},
    {"gltf_tex_bad_png.gltf", "bad/gltf_tex_bad_png.gltf: /images/0: corrupt PNG: "},
    {"gltf_tex_bad_data_uri.gltf", "bad/gltf_tex_bad_data_uri.gltf: not a valid glTF 2.0 file: Failed to decode 'uri' for image[0]"},
    {"gltf_tex_wrap.gltf", "bad/gltf_tex_wrap.gltf: /samplers/0/wrapS: unknown wrap mode 1234"},
    {"gltf_tex_bufferview_past_buffer.gltf", "bad/gltf_tex_bufferview_past_buffer.gltf: /bufferViews/2: runs past the end of buffer 0 (92 bytes)"},
    {"json_tex_huge_claim.json", "bad/tex_huge_claim.png: the header claims 16384 x 16384 texels, more than a file of 68 bytes can hold"},
    {"json_tex_truncated.json", "bad/tex_truncated.png: corrupt PNG: the file ends inside the image data (truncated)"},
    {"json_tex_wrap.json", "bad/json_tex_wrap.json:4:63: unknown wrap mode 'mirror'"},
    {"json_tex_mask_on_sphere.json", "bad/json_tex_mask_on_sphere.json:6:80: material 'holey' has an alpha mask, which only mesh triangles may have"},
    {"obj_map_option.obj", "bad/obj_map_option.mtl:3: unknown option '-zz' in 'map_Kd'"},
    {"gltf_not_triangles.gltf", "bad/gltf_not_triangles.gltf: /meshes/0/primitives/0: 2 indices are not whole triangles"},
    {"gltf_position_vec2.gltf", "bad/gltf_position_vec2.gltf: /accessors/0: is VEC2 where VEC3 is needed"},
    {"gltf_syntax.gltf", "bad/gltf_syntax.gltf: not a valid glTF 2.0 file: [json.exception.parse_error.101] parse error at line 2, column 1: syntax error while parsing value - unexpected end of input; expected '[', '{', or a literal"},
    {"gltf_truncated.glb", "bad/gltf_truncated.glb: GLB: the header gives a length of 588 bytes, the file has 294"},
    // camera animation (scene.h's CameraPath)
    {"json_anim_unsorted.json", "bad/json_anim_unsorted.json:7:18: animation key 2 'time' 1 is not after the previous key's 2 (times must increase)"},
    {"json_anim_equal_times.json", "bad/json_anim_equal_times.json:7:18: animation key 2 'time' 1 is not after the previous key's 1"},
    {"json_anim_one_key.json", "bad/json_anim_one_key.json:4:27: animation 'keys' needs at least 2 keys (it has 1)"},
    {"json_anim_time_overflow.json", "bad/json_anim_time_overflow.json:6:22: JSON syntax error: number overflow"},
    {"json_anim_fps.json", "bad/json_anim_fps.json:4:26: animation 'fps' must be in (0, 10000]"},
    {"json_anim_interpolation.json", "bad/json_anim_interpolation.json:4:36: animation 'interpolation' must be \"linear\" or \"catmull-rom\", not \"bezier\""},
    {"json_anim_from_equals_at.json", "bad/json_anim_from_equals_at.json:6:9: animation key 1: 'from' equals 'at'"},
    {"json_anim_time_string.json", "bad/json_anim_time_string.json:6:18: animation key 1 'time' must be a number, not a string"},
    {"json_anim_missing_time.json", "bad/json_anim_missing_time.json:6:9: animation key 1 is missing 'time'"},
    {"json_anim_too_long.json", "bad/json_anim_too_long.json:4:18: animation is longer than 10,000,000 frames"},
    {"json_camera_from_equals_at.json", "bad/json_camera_from_equals_at.json:2:15: camera 'from' equals 'at'"},
    {"json_render_width_huge.json", "bad/json_render_width_huge.json:3:25: render 'width' must be in 1..16384"},
    {"json_render_depth_fraction.json", "bad/json_render_depth_fraction.json:3:25: render 'depth' must be an integer"},
    {"json_kr_above_one.json", "bad/json_kr_above_one.json:4:23: 'kr' must be in [0, 1]"},
    {"json_negative_colour.json", "bad/json_negative_colour.json:4:28: material 'dark' 'colour' components must be >= 0"},
    {"json_degenerate_triangle.json", "bad/json_degenerate_triangle.json:4:9: triangle has zero area"},
    {"json_checker_size.json", "bad/json_checker_size.json:5:30: checker 'size' must be > 0"},
    {"json_directional_zero.json", "bad/json_directional_zero.json:4:46: directional light 'direction' must not be zero"},
    {"json_mesh_missing.json", "bad/json_mesh_missing.json:5: mesh file '"},
    {"json_mesh_zero_scale.json", "bad/json_mesh_zero_scale.json:4:77: transform 'scale' must not be 0"},
    {"json_mesh_bad_obj.json", "bad/obj_bad_number.obj:3: malformed number 'abc' in 'v'"},
    {"json_include_recursive_a.json", "bad/json_include_recursive_b.json:3:9: recursive include: "},
    {"json_include_recursive_b.json", "bad/json_include_recursive_a.json:3:17: recursive include: "},
    {"json_include_missing.json", "bad/json_include_missing.json:3:17: included file '"},
    {"json_truncated.json", "bad/json_truncated.json:4:60: syntax error while parsing object - unexpected end of input"},
    {"json_nan_literal.json", "bad/json_nan_literal.json:4:42: syntax error while parsing value - invalid literal"},
    {"json_camera_wrong_type.json", "bad/json_camera_wrong_type.json:2:15: 'camera' must be an object, not a string"},
    {"json_objects_not_array.json", "bad/json_objects_not_array.json:3:16: 'objects' must be an array, not an object"},
    {"json_sphere_zero_radius.json", "bad/json_sphere_zero_radius.json:4:59: sphere 'radius' must be > 0"},
    {"json_material_index_negative.json", "bad/json_material_index_negative.json:4:74: material index -1 out of range"},
    {"json_collinear_triangle.json", "bad/json_collinear_triangle.json:4:9: triangle has zero area"},
    // Devices are refused unread (tools/fuzz.sh found /dev/zero read until out of memory)
    {"json_include_device.json", "bad/json_include_device.json:3:17: included file '/dev/zero' is not a regular file"},
    {"json_mesh_device.json", "bad/json_mesh_device.json:4: mesh file '/dev/zero' is not a regular file"},
    // OBJ
    {"obj_bad_number.obj", "bad/obj_bad_number.obj:3: malformed number 'abc' in 'v'"},
    {"obj_nan.obj", "bad/obj_nan.obj:2: malformed number 'nan' in 'v'"},
    {"obj_v_count.obj", "bad/obj_v_count.obj:2: 'v' expects 3 coordinates, got 2"},
    {"obj_index_zero.obj", "bad/obj_index_zero.obj:4: vertex index 0 is not valid"},
    {"obj_index_range.obj", "bad/obj_index_range.obj:5: vertex index 9 out of range (3 vertices defined so far)"},
    {"obj_negative_range.obj", "bad/obj_negative_range.obj:4: vertex index -4 out of range"},
    {"obj_face_two_vertices.obj", "bad/obj_face_two_vertices.obj:4: face has 2 vertices (at least 3 needed)"},
    {"obj_bad_face_token.obj", "bad/obj_bad_face_token.obj:5: malformed texture coordinate index 'x'"},
    {"obj_vt_range.obj", "bad/obj_vt_range.obj:5: texture coordinate index 2 out of range"},
    {"obj_unknown_statement.obj", "bad/obj_unknown_statement.obj:4: unknown OBJ statement 'vx'"},
    {"obj_missing_mtllib.obj", "bad/obj_missing_mtllib.obj:2: material library '"},
    {"obj_no_faces.obj", "bad/obj_no_faces.obj: OBJ file has no (non-degenerate) faces"},
    {"obj_degenerate_only.obj", "bad/obj_degenerate_only.obj: OBJ file has no (non-degenerate) faces"},
    {"obj_inf.obj", "bad/obj_inf.obj:3: malformed number 'inf' in 'v'"},
    {"obj_huge_index.obj", "bad/obj_huge_index.obj:5: malformed vertex index '99999999999999999'"},
    {"obj_truncated.obj", "bad/obj_truncated.obj:5: 'v' expects 3 coordinates, got 2"},
    {"obj_vn_negative_range.obj", "bad/obj_vn_negative_range.obj:5: normal index -2 out of range (1 normals defined so far)"},
    {"obj_mtllib_device.obj", "bad/obj_mtllib_device.obj:2: material library '/dev/zero' is not a regular file"},
    // MTL: reported in the MTL file, at its line
    {"mtl_kd_before_newmtl.obj", "bad/mtl_kd_before_newmtl.mtl:2: 'Kd' before any 'newmtl'"},
    {"mtl_bad_number.obj", "bad/mtl_bad_number.mtl:3: malformed number 'x' in 'Kd'"},
    {"mtl_illum_bad.obj", "bad/mtl_illum_bad.mtl:2: 'illum' expects an integer"},
    {"mtl_spectral.obj", "bad/mtl_spectral.mtl:3: 'Ks spectral' colours are not supported"},
    {"mtl_negative_ke.obj", "bad/mtl_negative_ke.mtl:2: 'Ke' components must be >= 0"},
    {"mtl_ke_huge.obj", "bad/mtl_ke_huge.mtl:2: 'Ke' components must be at most 1e18, not 2e+20: a brighter emitter overflows the film"},
    {"mtl_pr_range.obj", "bad/mtl_pr_range.mtl:3: 'Pr' (roughness) expects one number in [0, 1]"},
    {"mtl_norm_bm.obj", "bad/mtl_norm_bm.mtl:3: 'norm -bm' expects a number"},
    {"mtl_map_ke.obj", "bad/mtl_map_ke.mtl:3: 'map_Ke -imfchan' expects a channel: r, g, b, m, l or z"},
    {"mtl_imfchan.obj", "bad/mtl_imfchan.mtl:3: 'map_Pr -imfchan' expects a channel: r, g, b, m, l or z"},
    {"mtl_pm_word.obj", "bad/mtl_pm_word.mtl:2: 'Pm' (metallic) expects one number in [0, 1]"},
    {"mtl_nan.obj", "bad/mtl_nan.mtl:2: malformed number 'nan' in 'Kd'"},
    {"mtl_ni_zero.obj", "bad/mtl_ni_zero.mtl:2: 'Ni' (index of refraction) must be in (0, 10], not 0"},
    {"mtl_ns_bad.obj", "bad/mtl_ns_bad.mtl:3: 'Ns' expects one number"},
    {"mtl_tf_short.obj", "bad/mtl_tf_short.mtl:2: malformed number 'x' in 'Tf'"},
    // NFF
    {"nff_cone.nff", "bad/nff_cone.nff:8: cones and cylinders ('c') are not supported"},
    {"nff_bad_number.nff", "bad/nff_bad_number.nff:8: malformed number '1.0.0' in s"},
    {"nff_polygon_truncated.nff", "bad/nff_polygon_truncated.nff:8: file ends after 2 of 4 polygon vertices"},
    {"nff_polygon_huge_count.nff", "bad/nff_polygon_huge_count.nff:8: file ends after 1 of 5000000 polygon vertices"},
    {"nff_polygon_two.nff", "bad/nff_polygon_two.nff:8: polygon has 2 vertices (at least 3 needed)"},
    {"nff_pp_missing_normal.nff", "bad/nff_pp_missing_normal.nff:11: polygon vertex expects 6 numbers, got 5"},
    {"nff_pp_extra_number.nff", "bad/nff_pp_extra_number.nff:9: polygon vertex expects 6 numbers, got 7"},
    {"nff_pp_bad_normal.nff", "bad/nff_pp_bad_normal.nff:11: malformed number 'abc' in vertex normal"},
    {"nff_pp_normal_nan.nff", "bad/nff_pp_normal_nan.nff:10: malformed number 'nan' in vertex normal"},
    {"nff_pp_normal_huge.nff", "bad/nff_pp_normal_huge.nff:11: malformed number '1e39' in vertex normal"},
    {"nff_no_view.nff", "bad/nff_no_view.nff: no viewpoint ('v') block"},
    {"nff_view_missing_at.nff", "bad/nff_view_missing_at.nff:3: expected 'at' in the viewpoint block, got 'up'"},
    {"nff_view_truncated.nff", "bad/nff_view_truncated.nff:3: file ends inside the viewpoint block"},
    {"nff_angle_range.nff", "bad/nff_angle_range.nff:5: angle must be in (0, 180) degrees"},
    {"nff_resolution_bad.nff", "bad/nff_resolution_bad.nff:7: resolution expects two integers"},
    {"nff_unknown_entity.nff", "bad/nff_unknown_entity.nff:9: unknown NFF entity 't'"},
    {"nff_sphere_zero.nff", "bad/nff_sphere_zero.nff:8: sphere radius must not be 0"},
    {"nff_f_short.nff", "bad/nff_f_short.nff:8: 'f' expects 8 value(s), got 5"},
    {"nff_light_bad.nff", "bad/nff_light_bad.nff:8: 'l' expects x y z [r g b]"},
    {"nff_background_inf.nff", "bad/nff_background_inf.nff:1: malformed number 'inf' in b"},
    {"nff_two_views.nff", "bad/nff_two_views.nff:8: second viewpoint ('v') block"},
    {"nff_sphere_nan.nff", "bad/nff_sphere_nan.nff:8: malformed number 'nan' in s"},
    {"nff_sphere_neg_inf.nff", "bad/nff_sphere_neg_inf.nff:8: malformed number '-inf' in s"},
    {"nff_resolution_huge.nff", "bad/nff_resolution_huge.nff:7: resolution must be 2..32768 in each direction"},
    {"nff_truncated_mid_polygon.nff", "bad/nff_truncated_mid_polygon.nff:9: file ends after 2 of 3 polygon vertices"},
    {"nff_polygon_count_overflow.nff", "bad/nff_polygon_count_overflow.nff:9: polygon vertex count 4000000000 is unreasonably large"},
    {"nff_f_t_negative.nff", "bad/nff_f_t_negative.nff:8: 'f' T (transmittance) must be in [0, 1], not -0.5"},
    {"nff_f_t_above_one.nff", "bad/nff_f_t_above_one.nff:8: 'f' T (transmittance) must be in [0, 1], not 1.5"},
    // Ks is JSON's kr: a mirror of Ks 2 returned twice the light it was given.
    {"nff_f_ks_above_one.nff", "bad/nff_f_ks_above_one.nff:8: 'f' Ks (mirror reflectance) must be in [0, 1], not 2"},
    {"nff_f_t_without_ior.nff", "bad/nff_f_t_without_ior.nff:8: 'f' with T > 0 needs an index of refraction in (0, 10], not 0"},
    {"nff_f_ior_huge.nff", "bad/nff_f_ior_huge.nff:8: 'f' with T > 0 needs an index of refraction in (0, 10], not 20"},
    // dispatch
    {"unknown_extension.txt", "bad/unknown_extension.txt: unknown scene file extension '.txt'"},
};
// clang-format on

INSTANTIATE_TEST_SUITE_P(Parser, ParserBad, ::testing::ValuesIn(kBadCases),
                         [](const ::testing::TestParamInfo<BadCase>& info) {
                             std::string name = info.param.file;
                             for (char& c : name)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return name;
                         });

// Every file in tests/data/bad that a loader would pick up has a row above (MTL files
// are reached through their OBJ, images and environment maps through the scenes that name them).
TEST(ParserBadTable, CoversEveryBadFile) {
    size_t n = 0;
    for (const auto& entry : fs::directory_iterator(kData + "/bad")) {
        const std::string name = entry.path().filename().string();
        if (entry.path().extension() == ".mtl" || entry.path().extension() == ".png" ||
            entry.path().extension() == ".hdr")
            continue;
        bool listed = false;
        for (const BadCase& c : kBadCases) listed = listed || name == c.file;
        EXPECT_TRUE(listed) << name << " has no row in kBadCases";
        ++n;
    }
    EXPECT_GE(n, 60u);  // a corpus of at least 60 bad files
}

// Loaders read regular files only: a device would be read forever (or block).
TEST(ParserBadTable, DevicesAreRefused) {
    for (const std::string& path : {std::string("/dev/zero")}) {
        for (auto load : {load_json_scene, load_obj_scene, load_nff_scene}) {
            try {
                load(path);
                ADD_FAILURE() << path << " loaded";
            } catch (const InputError& e) {
                EXPECT_EQ(std::string(e.what()), path + ": not a regular file");
            }
        }
    }
}

TEST(ParserJson, MissingMeshNamesTheReferencingFile) {
    const std::string msg = load_error(bad("json_mesh_missing.json"));
    EXPECT_NE(msg.find("json_mesh_missing.json:5: mesh file '"), std::string::npos) << msg;
    EXPECT_NE(msg.find("no-such-mesh.obj' not found"), std::string::npos) << msg;
    // The same through the API the JSON loader uses.
    Scene s;
    s.add_material(Material{});
    try {
        append_obj_mesh(s, "/nonexistent/x.obj", glm::mat4(1.0f), std::nullopt, "scene.json", 12);
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), "scene.json:12: mesh file '/nonexistent/x.obj' not found");
        EXPECT_EQ(e.file(), "scene.json");
        EXPECT_EQ(e.line(), 12);
    }
}

TEST(ParserJson, RecursiveIncludeReportsTheChain) {
    const std::string msg = load_error(bad("json_include_recursive_a.json"));
    EXPECT_NE(msg.find("json_include_recursive_a.json -> "), std::string::npos) << msg;
    EXPECT_NE(msg.find("json_include_recursive_b.json -> "), std::string::npos) << msg;
}

// ---------------------------------------------------------------------------
// Limits: huge inputs fail fast instead of hanging or exhausting memory.
// ---------------------------------------------------------------------------

TEST(ParserJson, TooManyValuesIsAnError) {
    const std::string path = ::testing::TempDir() + "/srt_huge_array.json";
    {
        std::ofstream out(path);
        out << "{\"camera\": {\"from\": [0, 0, 5], \"at\": [0, 0, 0]},\n\"objects\": [";
        for (int i = 0; i < 2100000; ++i) out << "0,";
        out << "0]}\n";
    }
    const std::string msg = load_error(path);
    fs::remove(path);
    EXPECT_NE(msg.find("srt_huge_array.json:2:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("too many JSON values"), std::string::npos) << msg;
}

TEST(ParserJson, HugeFileIsRefusedUnread) {
    const std::string path = ::testing::TempDir() + "/srt_huge_file.json";
    {
        std::ofstream out(path);
        out << "{";
        out.seekp((40 << 20), std::ios::beg);  // sparse: 40 MiB without writing them
        out << "}";
    }
    const std::string msg = load_error(path);
    fs::remove(path);
    EXPECT_NE(msg.find("larger than 32 MiB"), std::string::npos) << msg;
}

// ---------------------------------------------------------------------------
// Good files
// ---------------------------------------------------------------------------

TEST(ParserJson, AllFeatures) {
    testing::internal::CaptureStderr();
    const Scene s = load_scene(good("json_all_features.json"));
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(err, "");  // no warnings for a clean file
    EXPECT_VEC3_EQ(s.camera.from, glm::vec3(0, 2, 8));
    EXPECT_EQ(s.camera.fov_deg, 55.0f);
    EXPECT_VEC3_EQ(s.background, glm::vec3(0.1f, 0.2f, 0.3f));
    EXPECT_EQ(s.width, 320);
    EXPECT_EQ(s.height, 240);
    EXPECT_EQ(s.depth, 12);

    // 0 = "default" (restyled by the file), then the include's, then this file's,
    // then the MTL materials of the mesh without an override.
    ASSERT_GE(s.materials.size(), 5u);
    EXPECT_EQ(s.materials[0].name, "default");
    EXPECT_EQ(s.materials[0].kd, 0.9f);
    EXPECT_VEC3_EQ(s.materials[0].colour, glm::vec3(0.5f));
    EXPECT_EQ(s.materials[1].name, "shared_red");
    EXPECT_EQ(s.materials[2].name, "chrome");
    EXPECT_VEC3_EQ(s.materials[2].kr, glm::vec3(0.9f));
    EXPECT_EQ(s.materials[3].name, "tinted");
    EXPECT_EQ(s.materials[3].kd, 1.0f);
    EXPECT_VEC3_EQ(s.materials[3].kr, glm::vec3(0.1f, 0.2f, 0.3f));

    ASSERT_EQ(s.lights.size(), 3u);  // include's first
    EXPECT_VEC3_EQ(s.lights[0].position, glm::vec3(-3, 4, 1));
    EXPECT_EQ(s.lights[2].type, LightType::Directional);
    EXPECT_VEC3_EQ(s.lights[2].direction, glm::vec3(0, -1, 0));  // normalised
    EXPECT_VEC3_EQ(s.lights[2].colour, glm::vec3(1.0f));         // default white

    ASSERT_EQ(s.spheres.size(), 3u);
    EXPECT_EQ(s.spheres[0].material, 1u);  // from the include
    EXPECT_EQ(s.spheres[1].material, 2u);
    EXPECT_EQ(s.spheres[2].material, 0u);  // by index

    ASSERT_EQ(s.planes.size(), 1u);
    EXPECT_VEC3_EQ(s.planes[0].normal, glm::vec3(0, 1, 0));
    EXPECT_TRUE(s.planes[0].checker);
    EXPECT_EQ(s.planes[0].checker_size, 0.5f);
    EXPECT_EQ(s.planes[0].material, 3u);

    // 1 triangle + 2 meshes of 6 triangles each (quad.obj: 2 + 2 + 1 + 1 valid, 1 degenerate)
    ASSERT_EQ(s.triangles.size(), 13u);
    ASSERT_EQ(s.materials.size(), 7u);  // + white, lamp, mirror from quad.mtl
    EXPECT_EQ(s.materials[6].name, "mirror");
    EXPECT_EQ(s.triangles[0].material, 1u);
    // First mesh: scale 2, rotate 90 deg about Y, translate (10,0,0): (-1,0,-1) -> (8,0,2).
    EXPECT_VEC3_NEAR(s.triangles[1].v0, glm::vec3(8, 0, 2), 1e-5f);
    // Second mesh: every triangle takes the override.
    for (size_t i = 7; i < 13; ++i) EXPECT_EQ(s.triangles[i].material, 2u);
    EXPECT_TRUE(has_note(s, "degenerate"));
}

TEST(ParserJson, MinimalFileGetsDefaults) {
    const Scene s = load_json_scene(good("json_minimal.json"));
    ASSERT_EQ(s.materials.size(), 1u);
    EXPECT_EQ(s.materials[0].name, "default");
    EXPECT_EQ(s.primitive_count(), 0u);
    EXPECT_EQ(s.width, 0);
    EXPECT_EQ(s.depth, 0);
    EXPECT_FALSE(s.integrator.has_value());
}

// The material terms beyond Whitted's (docs/scene-format.md, "Materials"), field by
// field, next to Whitted's own, which they leave as given; and the scene's integrator.
TEST(ParserJson, MaterialModel) {
    testing::internal::CaptureStderr();
    const Scene s = load_scene(good("json_materials.json"));
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    ASSERT_TRUE(s.integrator.has_value());
    EXPECT_EQ(*s.integrator, Integrator::Path);
    EXPECT_EQ(s.width, 64);
    ASSERT_EQ(s.materials.size(), 10u);
    auto mat = [&](const std::string& name) -> const Material& { return material_named(s, name); };
    const Material& lamp = mat("lamp");
    EXPECT_VEC3_EQ(lamp.emission, glm::vec3(17, 12, 4));
    EXPECT_FALSE(lamp.emission_two_sided);
    EXPECT_TRUE(lamp.emits());
    EXPECT_EQ(lamp.kd, 1.0f);
    const Material& panel = mat("panel");
    EXPECT_VEC3_EQ(panel.emission, glm::vec3(0.5f, 0.25f, 0.0f));
    EXPECT_TRUE(panel.emission_two_sided);
    EXPECT_VEC3_EQ(panel.colour, glm::vec3(0.2f));
    const Material& brushed = mat("brushed");
    EXPECT_VEC3_EQ(brushed.kr, glm::vec3(0.9f, 0.6f, 0.3f));
    EXPECT_EQ(brushed.roughness, 0.3f);
    EXPECT_EQ(brushed.kd, 0.0f);
    EXPECT_VEC3_EQ(brushed.glossy, glm::vec3(0.0f));
    const Material& plastic = mat("plastic");
    EXPECT_VEC3_EQ(plastic.glossy, glm::vec3(0.04f));  // a number is grey, as for kr
    EXPECT_EQ(plastic.roughness, 0.5f);
    EXPECT_VEC3_EQ(plastic.kr, glm::vec3(0.0f));
    EXPECT_EQ(plastic.kd, 1.0f);
    const Material& satin = mat("satin");
    EXPECT_VEC3_EQ(satin.glossy, glm::vec3(0.1f, 0.2f, 0.3f));
    EXPECT_EQ(satin.roughness, 0.75f);
    EXPECT_VEC3_EQ(satin.colour, glm::vec3(0.8f));  // the default colour
    const Material& glass = mat("glass");
    EXPECT_TRUE(glass.is_dielectric());
    EXPECT_EQ(glass.ior, 1.5f);
    EXPECT_VEC3_EQ(glass.absorption, glm::vec3(0.5f, 0.25f, 0.0f));
    EXPECT_EQ(glass.kt, 0.0f);  // Fresnel's weights
    EXPECT_EQ(glass.kd, 0.0f);
    EXPECT_FALSE(glass.emits());
    const Material& water = mat("water");
    EXPECT_EQ(water.ior, 1.33f);
    EXPECT_VEC3_EQ(water.absorption, glm::vec3(0.0f));
    const Material& whitted = mat("whitted-glass");
    EXPECT_EQ(whitted.ior, 1.5f);
    EXPECT_EQ(whitted.kt, 0.8f);
    EXPECT_VEC3_EQ(whitted.kr, glm::vec3(0.1f));
    EXPECT_EQ(whitted.kd, 0.1f);
    const Material& plain = mat("plain");  // every new term at its default
    EXPECT_VEC3_EQ(plain.emission, glm::vec3(0.0f));
    EXPECT_FALSE(plain.emission_two_sided);
    EXPECT_VEC3_EQ(plain.glossy, glm::vec3(0.0f));
    EXPECT_EQ(plain.roughness, 0.0f);
    EXPECT_EQ(plain.ior, 0.0f);
    EXPECT_EQ(plain.kt, 0.0f);
    EXPECT_VEC3_EQ(plain.absorption, glm::vec3(0.0f));
    EXPECT_FALSE(plain.is_dielectric());
    // A JSON scene's lights are its own: an emitter adds none.
    ASSERT_EQ(s.lights.size(), 1u);
    EXPECT_FALSE(s.lights[0].from_emission);
}

TEST(ParserJson, IntegratorWhitted) {
    const std::string path = ::testing::TempDir() + "/srt_integrator_whitted.json";
    {
        std::ofstream out(path);
        out << "{\"camera\": {\"from\": [0, 0, 5], \"at\": [0, 0, 0]}, \"render\": {\"integrator\": \"whitted\"}}\n";
    }
    const Scene s = load_json_scene(path);
    fs::remove(path);
    ASSERT_TRUE(s.integrator.has_value());
    EXPECT_EQ(*s.integrator, Integrator::Whitted);
}

TEST(ParserJson, Sampler) {
    for (const auto& [text, kind] : {std::pair{"independent", SamplerKind::Independent},
                                     std::pair{"sobol", SamplerKind::Sobol}, std::pair{"zsobol", SamplerKind::ZSobol}}) {
        const std::string path = ::testing::TempDir() + "/srt_sampler.json";
        {
            std::ofstream out(path);
            out << "{\"camera\": {\"from\": [0, 0, 5], \"at\": [0, 0, 0]}, \"render\": {\"sampler\": \"" << text
                << "\"}}\n";
        }
        const Scene s = load_json_scene(path);
        fs::remove(path);
        ASSERT_TRUE(s.sampler.has_value()) << text;
        EXPECT_EQ(*s.sampler, kind) << text;
        EXPECT_FALSE(s.integrator.has_value());
    }
}

TEST(ParserJson, UnknownKeysWarnWithSuggestion) {
    testing::internal::CaptureStderr();
    const Scene s = load_json_scene(good("json_unknown_keys.json"));
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("json_unknown_keys.json:3:5: warning: unknown key 'objetcs' in the scene "
                       "(did you mean 'objects'?)"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("json_unknown_keys.json:4:46: warning: unknown key 'kdd'"), std::string::npos) << err;
    EXPECT_NE(err.find("(did you mean 'kd'?)"), std::string::npos) << err;
    // The material terms beyond Whitted's and the render settings are candidates too.
    for (const char* w : {"json_unknown_keys.json:5:25: warning: unknown key 'iro' in material 'g' (did you mean 'ior'?)",
                          "json_unknown_keys.json:5:37: warning: unknown key 'absorbtion' in material 'g' (did you mean 'absorption'?)",
                          "json_unknown_keys.json:5:68: warning: unknown key 'emision' in material 'g' (did you mean 'emission'?)",
                          "json_unknown_keys.json:5:90: warning: unknown key 'roughnes' in material 'g' (did you mean 'roughness'?)",
                          "json_unknown_keys.json:6:16: warning: unknown key 'integrater' in 'render' (did you mean 'integrator'?)"})
        EXPECT_NE(err.find(w), std::string::npos) << w << "\n" << err;
    EXPECT_FALSE(s.integrator.has_value());
}

TEST(ParserScenes, DefaultJsonEqualsBuiltin) {
    const Scene a = load_json_scene(kSource + "/scenes/default.json");
    const Scene b = builtin_default_scene();
    EXPECT_VEC3_EQ(a.camera.from, b.camera.from);
    EXPECT_VEC3_EQ(a.camera.at, b.camera.at);
    EXPECT_VEC3_EQ(a.camera.up, b.camera.up);
    EXPECT_EQ(a.camera.fov_deg, b.camera.fov_deg);
    EXPECT_VEC3_EQ(a.background, b.background);
    EXPECT_EQ(a.width, b.width);
    EXPECT_EQ(a.height, b.height);
    EXPECT_EQ(a.depth, b.depth);
    ASSERT_EQ(a.materials.size(), b.materials.size());
    for (size_t i = 0; i < a.materials.size(); ++i) {
        SCOPED_TRACE("material " + std::to_string(i));
        EXPECT_EQ(a.materials[i].name, b.materials[i].name);
        EXPECT_VEC3_EQ(a.materials[i].colour, b.materials[i].colour);
        EXPECT_EQ(a.materials[i].kd, b.materials[i].kd);
        EXPECT_VEC3_EQ(a.materials[i].kr, b.materials[i].kr);
    }
    ASSERT_EQ(a.spheres.size(), b.spheres.size());
    for (size_t i = 0; i < a.spheres.size(); ++i) {
        SCOPED_TRACE("sphere " + std::to_string(i));
        EXPECT_VEC3_EQ(a.spheres[i].centre, b.spheres[i].centre);
        EXPECT_EQ(a.spheres[i].radius, b.spheres[i].radius);
        EXPECT_EQ(a.spheres[i].material, b.spheres[i].material);
    }
    ASSERT_EQ(a.planes.size(), b.planes.size());
    for (size_t i = 0; i < a.planes.size(); ++i) {
        SCOPED_TRACE("plane " + std::to_string(i));
        EXPECT_VEC3_EQ(a.planes[i].point, b.planes[i].point);
        EXPECT_VEC3_EQ(a.planes[i].normal, b.planes[i].normal);
        EXPECT_EQ(a.planes[i].material, b.planes[i].material);
        EXPECT_EQ(a.planes[i].checker, b.planes[i].checker);
        EXPECT_VEC3_EQ(a.planes[i].checker_colour, b.planes[i].checker_colour);
        EXPECT_EQ(a.planes[i].checker_size, b.planes[i].checker_size);
    }
    ASSERT_EQ(a.triangles.size(), b.triangles.size());
    for (size_t i = 0; i < a.triangles.size(); ++i) {
        SCOPED_TRACE("triangle " + std::to_string(i));
        EXPECT_VEC3_EQ(a.triangles[i].v0, b.triangles[i].v0);
        EXPECT_VEC3_EQ(a.triangles[i].v1, b.triangles[i].v1);
        EXPECT_VEC3_EQ(a.triangles[i].v2, b.triangles[i].v2);
        EXPECT_EQ(a.triangles[i].material, b.triangles[i].material);
    }
    ASSERT_EQ(a.lights.size(), b.lights.size());
    for (size_t i = 0; i < a.lights.size(); ++i) {
        SCOPED_TRACE("light " + std::to_string(i));
        EXPECT_EQ(a.lights[i].type, b.lights[i].type);
        if (a.lights[i].type == LightType::Point) EXPECT_VEC3_EQ(a.lights[i].position, b.lights[i].position);
        else EXPECT_VEC3_EQ(a.lights[i].direction, b.lights[i].direction);
        EXPECT_VEC3_EQ(a.lights[i].colour, b.lights[i].colour);
    }
}

TEST(ParserScenes, AllOurScenesLoad) {
    size_t n = 0;
    for (const auto& entry : fs::directory_iterator(kSource + "/scenes")) {
        if (entry.path().extension() != ".json") continue;
        SCOPED_TRACE(entry.path().string());
        testing::internal::CaptureStderr();
        Scene s;
        EXPECT_NO_THROW(s = load_scene(entry.path().string()));
        EXPECT_EQ(testing::internal::GetCapturedStderr(), "");  // no warnings in our own files
        EXPECT_GT(s.primitive_count(), 0u);
        // Lit: by a light, or (for the path integrator) by an emissive surface or an
        // environment map.
        const bool emits = std::any_of(s.materials.begin(), s.materials.end(),
                                       [](const Material& m) { return m.emission != glm::vec3(0.0f); });
        EXPECT_TRUE(s.lights.size() > 0 || emits || s.environment.active());
        ++n;
    }
    EXPECT_GE(n, 4u);
    const Scene mesh = load_scene(kSource + "/scenes/mesh.json");
    EXPECT_GE(mesh.triangles.size(), 2000u);  // the torus knot came in
}

// MTL onto the material model (docs/scene-format.md, "Materials"): Ke the emission, illum 7
// glass of index Ni absorbing -ln(Tf) per unit length, illum 5 a perfect mirror whatever Ns,
// illum 2's Ks a glossy lobe of roughness (2 / (Ns + 2))^(1/4), and an emitter's stand-in
// point light marked as such for the path integrator to drop.
TEST(ParserObj, MtlMaterialModel) {
    const Scene s = load_scene(good("materials.obj"));
    auto mat = [&](const std::string& name) -> const Material& { return material_named(s, name); };
    const Material& lamp = mat("lamp");
    EXPECT_VEC3_EQ(lamp.emission, glm::vec3(17.0f, 12.0f, 4.0f));
    EXPECT_FALSE(lamp.emission_two_sided);
    EXPECT_FALSE(lamp.is_dielectric());
    const Material& glass = mat("glass");
    EXPECT_EQ(glass.ior, 1.5f);
    EXPECT_TRUE(glass.is_dielectric());
    EXPECT_VEC3_NEAR(glass.absorption, glm::vec3(std::log(2.0f), std::log(4.0f), 0.0f), 1e-6f);
    EXPECT_VEC3_EQ(glass.kr, glm::vec3(0.0f));
    EXPECT_FALSE(glass.emits());
    const Material& mirror = mat("mirror");
    EXPECT_VEC3_EQ(mirror.kr, glm::vec3(0.9f));
    EXPECT_EQ(mirror.roughness, 0.0f);
    EXPECT_EQ(mirror.ior, 0.0f);
    const Material& glossy = mat("glossy");
    EXPECT_VEC3_EQ(glossy.kr, glm::vec3(0.0f));  // Whitted: no mirror
    EXPECT_VEC3_EQ(glossy.glossy, glm::vec3(0.5f));
    EXPECT_NEAR(glossy.roughness, std::pow(0.02, 0.25), 1e-6);
    const Material& wall = mat("wall");
    EXPECT_VEC3_EQ(wall.glossy, glm::vec3(0.0f));
    EXPECT_EQ(wall.ior, 0.0f);  // Ni without a refracting illum means nothing
    EXPECT_FALSE(wall.pbr);
    // The PBR extension: Pr on glass makes it rough; elsewhere Pr and Pm are glTF's BRDF
    // over Kd (F0 from Ni where given), in place of Ks's highlight.
    const Material& frosted = mat("frosted");
    EXPECT_TRUE(frosted.is_dielectric());
    EXPECT_FLOAT_EQ(frosted.roughness, 0.4f);
    EXPECT_FALSE(frosted.pbr);
    const Material& brass = mat("brass");
    EXPECT_TRUE(brass.pbr);
    EXPECT_EQ(brass.metallic, 1.0f);
    EXPECT_FLOAT_EQ(brass.roughness, 0.25f);
    EXPECT_NEAR(brass.dielectric_f0, (0.45 / 2.45) * (0.45 / 2.45), 1e-6);
    EXPECT_VEC3_EQ(brass.glossy, glm::vec3(0.0f));
    EXPECT_VEC3_NEAR(brass.kr, glm::vec3(0.9f, 0.7f, 0.3f) * 0.5625f, 1e-6f);  // Whitted: m (1 - r)^2 x Kd
    const Material& rubber = mat("rubber");
    EXPECT_TRUE(rubber.pbr);
    EXPECT_EQ(rubber.metallic, 0.0f);  // tinyobjloader's default for the one not given
    EXPECT_FLOAT_EQ(rubber.roughness, 0.8f);
    EXPECT_FLOAT_EQ(rubber.dielectric_f0, 0.04f);
    ASSERT_EQ(s.lights.size(), 1u);
    EXPECT_TRUE(s.lights[0].from_emission);
}

TEST(ParserObj, FeaturesAndEmissiveLights) {
    const Scene s = load_scene(good("quad.obj"));
    // quad (2) + lamp quad (2) + mirror triangle (1) + valid "f 1 2 3" (1); "f 1 1 2" dropped.
    EXPECT_EQ(s.triangles.size(), 6u);
    EXPECT_TRUE(has_note(s, "dropped 1 degenerate (zero-area) triangle"));
    // Material 0 default, then MTL materials in order of first use.
    ASSERT_EQ(s.materials.size(), 4u);
    EXPECT_EQ(s.materials[1].name, "white");
    EXPECT_VEC3_EQ(s.materials[1].kr, glm::vec3(0.0f));  // illum 2: Ks is a highlight, not a mirror
    EXPECT_EQ(s.materials[2].name, "lamp");
    EXPECT_EQ(s.materials[3].name, "mirror");
    EXPECT_VEC3_EQ(s.materials[3].colour, glm::vec3(0.1f));  // "Kd 0.1" = grey
    EXPECT_VEC3_EQ(s.materials[3].kr, glm::vec3(0.9f, 0.8f, 0.7f));
    EXPECT_EQ(s.triangles[0].material, 1u);
    EXPECT_EQ(s.triangles[2].material, 2u);
    EXPECT_EQ(s.triangles[4].material, 3u);
    // One light, at the lamp's centroid, nudged down into the scene (towards the
    // bounds centre), coloured Ke.
    ASSERT_EQ(s.lights.size(), 1u);
    EXPECT_NEAR(s.lights[0].position.x, 0.0f, 1e-5f);
    EXPECT_NEAR(s.lights[0].position.z, 0.0f, 1e-5f);
    EXPECT_LT(s.lights[0].position.y, 2.0f);
    EXPECT_GT(s.lights[0].position.y, 1.99f);
    // Ke 4 3 2, scaled so the brightest channel is 1; the note gives the scale as a reader
    // would write it.
    EXPECT_VEC3_NEAR(s.lights[0].colour, glm::vec3(1.0f, 0.75f, 0.5f), 1e-6f);
    EXPECT_TRUE(has_note(s, "placed at emissive (Ke) surfaces, scaled by 1/4 so the brightest channel is 1"));
    // Framing camera: looks at the bounds centre from +z, up +y, 50 degrees.
    const Bounds3 b = finite_bounds(s);
    const glm::vec3 c(0.5 * (b.lo + b.hi));
    EXPECT_VEC3_NEAR(s.camera.at, c, 1e-5f);
    EXPECT_EQ(s.camera.from.x, c.x);
    EXPECT_GT(s.camera.from.z, b.hi.z);
    EXPECT_EQ(s.camera.fov_deg, 50.0f);
    EXPECT_VEC3_EQ(s.background, glm::vec3(0.0f));
    // Every corner of the bounds is inside the view of a 16:9 image.
    const CameraGpu cam = make_camera(s.camera, 1600, 900, glm::vec3(0.0f));  // world space
    for (int k = 0; k < 8; ++k) {
        const glm::vec3 p((k & 1) ? b.hi.x : b.lo.x, (k & 2) ? b.hi.y : b.lo.y, (k & 4) ? b.hi.z : b.lo.z);
        const glm::vec3 d = p - cam.origin;
        const float depth = glm::dot(d, cam.forward);
        ASSERT_GT(depth, 0.0f) << "corner " << k << " behind the camera";
        EXPECT_LE(std::fabs(glm::dot(d, cam.right) / glm::dot(cam.right, cam.right) / depth), 1.0f) << k;
        EXPECT_LE(std::fabs(glm::dot(d, cam.up) / glm::dot(cam.up, cam.up) / depth), 1.0f) << k;
    }
}

TEST(ParserObj, NoEmissiveGetsDefaultLight) {
    const Scene s = load_scene(kSource + "/assets/torus-knot.obj");
    EXPECT_GE(s.triangles.size(), 2000u);
    ASSERT_EQ(s.lights.size(), 1u);
    EXPECT_VEC3_EQ(s.lights[0].colour, glm::vec3(1.0f));
    EXPECT_GT(s.lights[0].position.y, s.camera.from.y);  // above
    EXPECT_GT(s.lights[0].position.z, s.camera.from.z);  // behind
}

TEST(ParserObj, AppendWithTransformAndOverride) {
    Scene s;
    s.add_material(Material{});
    const uint32_t m = s.add_material(Material{"x", {1, 0, 0}, 1.0f, {0, 0, 0}});
    const glm::mat4 xf = glm::translate(glm::mat4(1.0f), glm::vec3(0, 0, 5));
    const size_t n = append_obj_mesh(s, good("quad.obj"), xf, m);
    EXPECT_EQ(n, 6u);
    EXPECT_EQ(s.materials.size(), 2u);  // the override means no MTL materials are added
    EXPECT_VEC3_EQ(s.triangles[0].v0, glm::vec3(-1, 0, 4));
    for (const Triangle& t : s.triangles) EXPECT_EQ(t.material, m);
}

TEST(ParserNff, SmallSceneClassicMapping) {
    const Scene s = load_scene(good("small.nff"));
    EXPECT_EQ(s.width, 200);
    EXPECT_EQ(s.height, 100);
    // 40 degrees between the centres of the first and last of 200 pixels.
    const double edge = 2.0 * std::atan(std::tan(glm::radians(20.0)) * 200.0 / 199.0);
    EXPECT_NEAR(s.camera.fov_deg, glm::degrees(edge), 1e-4);
    EXPECT_GT(s.camera.fov_deg, 40.0f);
    EXPECT_VEC3_EQ(s.background, glm::vec3(0.1f, 0.2f, 0.3f));
    ASSERT_EQ(s.lights.size(), 2u);
    EXPECT_VEC3_NEAR(s.lights[0].colour, glm::vec3(1.0f / std::sqrt(2.0f)), 1e-6f);
    EXPECT_VEC3_EQ(s.lights[1].colour, glm::vec3(0.5f, 0.25f, 0.125f));
    // Identical "f" lines share one material.
    ASSERT_EQ(s.materials.size(), 3u);
    EXPECT_VEC3_EQ(s.materials[1].colour, glm::vec3(1, 0.5f, 0.25f));
    EXPECT_EQ(s.materials[1].kd, 0.8f);
    EXPECT_VEC3_EQ(s.materials[1].kr, glm::vec3(0.3f));
    ASSERT_EQ(s.spheres.size(), 2u);
    EXPECT_EQ(s.spheres[1].radius, 0.5f);  // negative radius: noted, made positive
    EXPECT_TRUE(has_note(s, "negative sphere radius"));
    EXPECT_TRUE(has_note(s, "Shine"));
    EXPECT_FALSE(has_note(s, "refraction"));  // T = 0 and ior 0/1 mean none
    // p 4 -> 2 triangles, pp 3 -> 1 (smooth, by its normals), degenerate p 3 dropped.
    ASSERT_EQ(s.triangles.size(), 3u);
    EXPECT_EQ(s.triangles[0].material, 2u);
    EXPECT_EQ(s.triangles[2].material, 1u);
    EXPECT_FALSE(s.triangles[0].smooth);
    EXPECT_TRUE(s.triangles[2].smooth);
    EXPECT_VEC3_EQ(s.triangles[2].n1, glm::vec3(0, 0, 1));
    EXPECT_TRUE(has_note(s, "dropped 1 degenerate"));
}

// pp normals are read as OBJ vn is: the same polygons with the same normals give the
// same triangles, normals bit for bit, each fan triangle with its own corners' normals;
// a zero normal, or one whose length overflows or underflows a float, leaves its
// triangle flat.
TEST(ParserNff, PatchNormalsAsObjVn) {
    const Scene nff = load_scene(good("patch_normals.nff"));
    const Scene obj = load_scene(good("patch_normals.obj"));
    ASSERT_EQ(nff.triangles.size(), 8u);  // 2 + 3 + 1 + 1 + 1
    ASSERT_EQ(obj.triangles.size(), nff.triangles.size());
    for (size_t i = 0; i < nff.triangles.size(); ++i) {
        SCOPED_TRACE("triangle " + std::to_string(i));
        const Triangle &a = nff.triangles[i], &b = obj.triangles[i];
        EXPECT_VEC3_EQ(a.v0, b.v0);
        EXPECT_VEC3_EQ(a.v1, b.v1);
        EXPECT_VEC3_EQ(a.v2, b.v2);
        EXPECT_EQ(a.smooth, b.smooth);
        EXPECT_VEC3_EQ(a.n0, b.n0);
        EXPECT_VEC3_EQ(a.n1, b.n1);
        EXPECT_VEC3_EQ(a.n2, b.n2);
        EXPECT_EQ(a.smooth, i < 5) << "the last three have a zero normal";
    }
    // The quad's second triangle is corners 0, 2, 3; the pentagon's last is 0, 3, 4.
    const Triangle& q = nff.triangles[1];
    EXPECT_VEC3_EQ(q.n0, glm::vec3(0, 0, 1));
    EXPECT_VEC3_NEAR(q.n1, glm::normalize(glm::vec3(0.3f, 0.3f, 1)), 1e-6f);
    EXPECT_VEC3_NEAR(q.n2, glm::normalize(glm::vec3(0, 0.3f, 3)), 1e-6f);
    const Triangle& p = nff.triangles[4];
    EXPECT_VEC3_NEAR(p.n0, glm::normalize(glm::vec3(0.1f, 0, 1)), 1e-6f);
    EXPECT_VEC3_NEAR(p.n1, glm::vec3(1.0f / std::sqrt(3.0f)), 1e-6f);
    EXPECT_VEC3_NEAR(p.n2, glm::normalize(glm::vec3(-0.2f, 0.1f, 1)), 1e-6f);
    for (const Triangle& t : nff.triangles)
        if (!t.smooth) EXPECT_VEC3_EQ(t.n1, glm::vec3(0.0f));
}

// f's T and ior: T > 0 makes a dielectric of that index with T the constant weight on its
// refracted ray (Whitted 1980); T 0 is opaque whatever ior says. Kd, Ks and the colour
// stay Whitted's, Shine is still a note, and T and ior are no longer "ignored".
TEST(ParserNff, TransmissionAndIor) {
    const Scene s = load_scene(good("glass.nff"));
    // default; T 0.9 ior 1.5 (twice: shared); T 1 ior 1.33; T 0.5 ior 1.5; opaque (ior
    // 1.5 and 0 alike: shared).
    ASSERT_EQ(s.materials.size(), 5u);
    ASSERT_EQ(s.spheres.size(), 6u);
    const Material& glass = s.materials[s.spheres[0].material];
    EXPECT_EQ(glass.kt, 0.9f);
    EXPECT_EQ(glass.ior, 1.5f);
    EXPECT_TRUE(glass.is_dielectric());
    EXPECT_VEC3_EQ(glass.colour, glm::vec3(1.0f));
    EXPECT_EQ(glass.kd, 0.1f);
    EXPECT_VEC3_EQ(glass.kr, glm::vec3(0.1f));
    EXPECT_VEC3_EQ(glass.absorption, glm::vec3(0.0f));
    EXPECT_VEC3_EQ(glass.emission, glm::vec3(0.0f));
    const Material& water = s.materials[s.spheres[1].material];
    EXPECT_EQ(water.kt, 1.0f);
    EXPECT_EQ(water.ior, 1.33f);
    EXPECT_VEC3_EQ(water.colour, glm::vec3(0.8f, 0.9f, 1.0f));
    EXPECT_EQ(water.kd, 0.0f);
    EXPECT_VEC3_EQ(water.kr, glm::vec3(0.05f));
    const Material& half = s.materials[s.spheres[2].material];
    EXPECT_NE(s.spheres[2].material, s.spheres[0].material);  // T differs: not shared
    EXPECT_EQ(half.kt, 0.5f);
    EXPECT_EQ(half.ior, 1.5f);
    const Material& opaque = s.materials[s.spheres[3].material];
    EXPECT_EQ(s.spheres[4].material, s.spheres[3].material);
    EXPECT_EQ(opaque.kt, 0.0f);
    EXPECT_EQ(opaque.ior, 0.0f);
    EXPECT_FALSE(opaque.is_dielectric());
    EXPECT_EQ(opaque.kd, 0.8f);
    EXPECT_VEC3_EQ(opaque.kr, glm::vec3(0.2f));
    EXPECT_EQ(s.spheres[5].material, s.spheres[0].material);
    EXPECT_TRUE(has_note(s, "Shine"));
    EXPECT_FALSE(has_note(s, "T (transmittance)"));
    EXPECT_FALSE(has_note(s, "index of refraction"));
}

TEST(ParserScenes, ExtensionIsCaseInsensitive) {
    const Scene s = load_scene(good("CASE.NFF"));
    EXPECT_EQ(s.spheres.size(), 2u);
}

// ---------------------------------------------------------------------------
// Shared third-party data (skipped where ../shared/data is absent)
// ---------------------------------------------------------------------------

TEST(ParserShared, ObjAndNffFilesLoad) {
    if (!fs::is_directory(kShared)) GTEST_SKIP() << kShared << " not present";
    std::vector<std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(kShared)) {
        const std::string ext = entry.path().extension().string();
        if (ext == ".obj" || ext == ".nff") files.push_back(entry.path().string());
    }
    ASSERT_GE(files.size(), 10u);
    for (const std::string& f : files) {
        SCOPED_TRACE(f);
        Scene s;
        EXPECT_NO_THROW(s = load_scene(f));
        EXPECT_GT(s.primitive_count(), 0u);
        EXPECT_GT(s.lights.size(), 0u);
    }
}

TEST(ParserShared, CornellMirrorMapping) {
    const std::string f = kShared + "/scenes/cornell-box/CornellBox-Mirror.obj";
    if (!fs::exists(f)) GTEST_SKIP() << f << " not present";
    const Scene s = load_scene(f);
    EXPECT_EQ(s.triangles.size(), 36u);
    bool mirror = false;
    for (const Material& m : s.materials)
        if (m.name == "tallBox") {
            mirror = true;
            EXPECT_VEC3_EQ(m.kr, glm::vec3(0.95f));  // illum 5, Ks 0.95
        }
    EXPECT_TRUE(mirror);
    ASSERT_EQ(s.lights.size(), 1u);  // the Ke 17 12 4 ceiling light
    EXPECT_VEC3_NEAR(s.lights[0].colour, glm::vec3(17, 12, 4) / 17.0f, 1e-6f);  // scaled to peak 1
    EXPECT_LT(s.lights[0].position.y, 1.98f);  // below the light quad, inside the box
    EXPECT_GT(s.lights[0].position.y, 1.9f);
}

TEST(ParserShared, SpdCounts) {
    const std::string dir = kShared + "/spd";
    if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " not present";
    const Scene balls = load_scene(dir + "/balls_s2.nff");
    EXPECT_EQ(balls.spheres.size(), 91u);
    EXPECT_EQ(balls.lights.size(), 3u);
    EXPECT_VEC3_NEAR(balls.lights[0].colour, glm::vec3(1.0f / std::sqrt(3.0f)), 1e-6f);
    EXPECT_EQ(balls.width, 512);
    const Scene teapot = load_scene(dir + "/teapot_s12.nff");
    EXPECT_EQ(teapot.triangles.size() + 0, 9408u);
    size_t smooth = 0;  // the 9120 patches of the teapot, not the 144 floor squares
    for (const Triangle& t : teapot.triangles) smooth += t.smooth;
    EXPECT_EQ(smooth, 9120u);
}
