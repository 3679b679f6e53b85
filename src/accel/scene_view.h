// scene_view.h - the scene as the stage functions see it: flat arrays of small PODs.
//
// `SceneView` is a bundle of raw pointers into host memory (CPU executor) or device
// memory (CUDA executor). Stage code and traversal only see SceneView, so they cannot
// tell which side they run on. The structs are laid out for 16-byte loads and state
// their sizes; render/scene_gpu.h compiles a Scene into them.
#pragma once

#include "accel/bvh.h"
#include "accel/texture.h"
#include "core/hd.h"

#include <glm/glm.hpp>

#include <cstdint>

namespace srt {

// 112 bytes: Whitted's shading reads the first three fields, the path integrator all
// seven (the seventh only in kernels with the extended materials, accel/variant.h).
struct alignas(16) MaterialGpu {
    f4 colour;  // xyz = linear colour, w = kd
    f4 kr;      // xyz = mirror reflectance, w = ka (ambient weight)
    f4 tex;     // x = bit-cast colour texture (kNoTextureGpu: none), y = bit-cast alpha
                // texture, z = alpha cutoff, w = alpha factor (accel/texture.h)
    f4 emission;  // xyz = emitted radiance; w = bit-cast: bit 0 set: from both sides (scene.h Material),
                  // bits 1-31: the emission texture + 1 (0: none; accel/traversal_common.h emission_texture_of)
    f4 glossy;    // xyz = glossy lobe reflectance (where kr is 0), w = roughness; a dielectric's:
                  // x = NFF's kt, the Whitted weight of its refracted ray (0: Fresnel's), w =
                  // roughness; glTF's BRDF (z = kGltfMarker): x = metallic, y = the dielectric's
                  // F0, w = roughness. One slot that the path vertex loads anyway, not one more.
    f4 medium;    // xyz = absorption inside a dielectric, w = ior (0: not a dielectric)
    f4 maps;      // x, y = bit-cast metallic and roughness data textures (kNoTextureGpu: none),
                  // z = bit-cast channels: metallic's in bits 0-1, roughness's in bits 2-3 (scene.h),
                  // and the normal map + 1 in bits 4-31 (0: none); w = the normal map's scale
};
constexpr uint32_t kNormalMapShift = 4;
constexpr uint32_t kEmissionTwoSided = 1u, kEmissionTextureShift = 1;
static_assert(sizeof(MaterialGpu) == 112, "MaterialGpu must be 112 bytes");
constexpr float kGltfMarker = -1.0f;  // in MaterialGpu::glossy.z: glTF's BRDF (a reflectance is never negative)

// 64 bytes. The checker is laid out on the plane's own axes u, v.
struct alignas(16) PlaneGpu {
    f4 point_mat;   // xyz = point on plane, w = bit-cast material index
    f4 normal;      // xyz = unit normal, w = checker size (0 = no checker)
    f4 u;           // xyz = first in-plane axis (unit), w = texture size (Plane::texture_size)
    f4 checker;     // xyz = second checker colour; w = bit-cast original primitive id
};
static_assert(sizeof(PlaneGpu) == 64, "PlaneGpu must be 64 bytes");

// 32 bytes.
struct alignas(16) LightGpu {
    f4 pos_or_dir;  // point: position; directional: direction TO the light (unit). w: 1 = point, 0 = directional
    f4 colour;      // xyz colour; w: 0 = classic, 1 = physical (scene/integrator.h LightModel)
};
static_assert(sizeof(LightGpu) == 32, "LightGpu must be 32 bytes");

// An emissive primitive, as the path integrator samples it for light (render/lights.h),
// 64 bytes. Positions in rendering space.
//   triangle: p0 = v0, e1 = v1 - v0, e2 = v2 - v0 (its front face: e1 x e2)
//   sphere  : p0 = centre, e1.x = radius (its front face: outward)
struct alignas(16) EmitterGpu {
    f4 p0;        // w: bit-cast primitive index (BVH order; its first copy where a spatial split cut it)
    f4 e1;        // w: area
    f4 e2;        // w: bit-cast kind: kEmitterTriangle or kEmitterSphere
    f4 radiance;  // xyz: Le; w: 1 = emits from both sides, 0 = from the front only
};
static_assert(sizeof(EmitterGpu) == 64, "EmitterGpu must be 64 bytes");
constexpr uint32_t kEmitterTriangle = 0u, kEmitterSphere = 1u;
constexpr uint32_t kNoEmitter = 0xffffffffu;

// The pinhole camera, precomputed for a given image size.
// Ray through pixel (x, y), sample offset (sx, sy) in [0,1):
//   dir = normalize(forward + ((x + sx) * 2/W - 1) * right + (1 - (y + sy) * 2/H) * up)
// where |right| = tan(fov/2) and |up| = |right| * H / W, so row 0 is the top row.
// A thin lens (focus > 0) moves the ray's origin to origin + x lens_u + y lens_v for a
// point (x, y) of the unit disk, and aims it at where the pinhole's ray meets the plane
// `focus` along `forward` (render/lens.h).
struct CameraGpu {
    glm::vec3 origin;
    glm::vec3 forward;
    glm::vec3 right;
    glm::vec3 up;
    float pixel_spread;  // 2 |right| / W: the angle a pixel spans at the centre (render/surface.h Cone)
    glm::vec3 lens_u{0.0f}, lens_v{0.0f};  // the lens's radius along right and up
    float focus = 0.0f;                    // 0: a pinhole
};

// The environment map (render/environment.h): radiance from every direction at infinity,
// an equirectangular (latitude-longitude) image whose row 0 is straight up (+Y) and whose
// centre column looks along +X, turned about +Y by the scene's rotation. Its sampling
// distribution is piecewise constant over the texels, in the map's own frame: a cdf over
// the rows, and one over each row's columns.
struct EnvironmentView {
    const f4* texels = nullptr;       // width x height, linear RGB times the intensity; null: no map
    const float* row_cdf = nullptr;   // height entries: row j is picked by [row_cdf[j], row_cdf[j + 1]), the last up to 1
    const float* col_cdf = nullptr;   // height x width, the same over each row's columns
    uint32_t width = 0, height = 0;
    float cos_rot = 1.0f, sin_rot = 0.0f;  // the map's turn about +Y
    uint32_t light = kNoEmitter;           // its slot in the light table (after the lights and emitters), or none
};

// A placed mesh (scene.h Instance) as traversal and shading read it, 128 bytes: its
// transforms between rendering space and the mesh's object space, as rows (x' =
// dot(row.xyz, x) + row.w), where its bottom-level BVH starts, and its primitives' ids.
struct alignas(16) InstanceGpu {
    f4 to_object[3];  // rendering space -> object space: the inverse, computed in double
    f4 to_world[3];   // object space -> rendering space
    f4 meta;  // x: bit-cast root node of its BVH (in the layout's array); y: bit-cast flags
              // (kInstanceIdentity, kInstanceMirror); z: |det| of to_world's linear part
              // (how much it scales areas, with the normal's change); w: how far (in rendering
              // units, per axis) a hit point moved back can lie off the surface traversal hit,
              // since to_world is not exactly to_object's inverse once both are floats
    f4 keys;  // x: bit-cast, what its primitives' original ids (PrimGpu::p2.w) are counted from:
              // the ids its triangles have in the flattened scene (scene/instances.h), so that
              // ties between instances go as there (accel/traversal_common.h closer_prim);
              // y: bit-cast, its index in Scene::instances
};
static_assert(sizeof(InstanceGpu) == 128, "InstanceGpu must be 128 bytes");
// The scene's own primitives, which are in rendering space already: no transform, and
// their hits carry no instance (Hit::inst kNoInstance).
constexpr uint32_t kInstanceIdentity = 1u;
constexpr uint32_t kInstanceMirror = 2u;  // a negative determinant: normals turn over
// Both transforms move every float exactly (a diagonal of powers of two, no translation):
// a hit point moved back is the point a copy of the mesh would give, bound and all.
constexpr uint32_t kInstanceExact = 4u;
constexpr uint32_t kNoInstance = 0xffffffffu;

struct Bvh4Node;
struct Bvh8Node;

struct SceneView {
    const BvhNode* nodes = nullptr;
    const Bvh4Node* nodes4 = nullptr;  // when set, traversal uses the BVH4 (accel/bvh4.h) instead of `nodes`
    const Bvh8Node* nodes8 = nullptr;  // when set, traversal uses the BVH8 (accel/bvh8.h)
    const PrimGpu* prims = nullptr;            // shading's view of the primitives (BVH order)
    const PrimTestGpu* prim_tests = nullptr;   // traversal's, in the same order
    // Instances (accel/traverse_instances.h), null in a scene without them: a BVH2 over
    // their boxes (rendering space) whose leaves are ranges of `instances`. Then `nodes`
    // (or nodes4, nodes8) hold one bottom-level BVH per mesh and one over the scene's own
    // primitives, each from its InstanceGpu's root, and `prims` all their primitives.
    const BvhNode* tlas = nullptr;
    const InstanceGpu* instances = nullptr;
    uint32_t instance_count = 0;
    const f4* normals = nullptr;  // 3 per primitive (BVH order) when any triangle is smooth: n0, n1, n2
    // 3 per primitive (BVH order) when a triangle is normal-mapped: its corners' tangents
    // (scene.h Triangle::t0, t1, t2: xyz along +u, w the handedness).
    const f4* tangents = nullptr;
    const PlaneGpu* planes = nullptr;
    const MaterialGpu* materials = nullptr;
    const LightGpu* lights = nullptr;
    // Textures (accel/texture.h); null in a scene without them.
    const TextureGpu* textures = nullptr;
    const uint32_t* texels = nullptr;  // RGBA8, sRGB colour, linear alpha
    const float* srgb_lut = nullptr;   // 3 x 256 entries: sRGB byte -> linear float, byte / 255 (kTexLinear),
                                       // (byte - 128) / 127 (kTexSigned)
    // Per texture entry, where it lies on the coordinates (TexTransformGpu); null where no
    // texture of the scene is transformed, so that others read the coordinates as they are.
    const TexTransformGpu* tex_transforms = nullptr;
    const f4* uvs = nullptr;           // 2 per primitive (BVH order): (u0 v0 u1 v1), (u2 v2 - -)
    // Per primitive (BVH order): the material whose alpha mask traversal tests on a hit,
    // or kNoMaskGpu. Set only in a scene with a masked material (alpha_masks).
    const uint32_t* prim_alpha = nullptr;
    // The lights the path integrator samples (render/lights.h): the point and directional
    // lights (`lights`, first) and then the emitters, each picked with probability
    // light_pmf[k] (in proportion to its power), found from one uniform number by
    // light_cdf[k] (the sum of the pmfs before k); per primitive (BVH order) its emitter
    // or kNoEmitter, for the density of a light sample at a hit. Null without emitters
    // and lights.
    const EmitterGpu* emitters = nullptr;
    const float* light_cdf = nullptr;
    const float* light_pmf = nullptr;
    const uint32_t* prim_emitter = nullptr;
    uint32_t emitter_count = 0;
    uint32_t node_count = 0;
    uint32_t prim_count = 0;
    uint32_t plane_count = 0;
    uint32_t light_count = 0;
    // Some sphere's hit points and near-surface tests are computed in double (accel/bvh.h
    // sphere_needs_double): the kernels for this scene are the ones compiled with that
    // code (accel/variant.h kPreciseSpheres); scenes without such a sphere run kernels
    // that do not hold it.
    bool precise_spheres = false;
    // Some triangle's material has an alpha mask: traversal runs the kernels compiled with
    // the mask test (accel/variant.h kAlphaMasks); other scenes never pay for it.
    bool alpha_masks = false;
    // The textures have mip chains (scene.h TextureFilter::Trilinear): rays carry cones
    // to pick their levels (accel/variant.h kRayCones).
    bool ray_cones = false;
    // Some material is a dielectric (glass, water): under Whitted, rays split there
    // (render/ray_tree.h) and shadow rays pass through it.
    bool dielectrics = false;
    // Some material has glTF's BRDF, is rough glass or has maps of metallic and
    // roughness: the path integrator runs the kernels compiled with them (accel/variant.h
    // kMaterials).
    bool extended_materials = false;
    glm::vec3 background{0.0f};  // what a ray that leaves the scene sees, where there is no environment map
    EnvironmentView env;
    glm::vec3 ambient{0.0f};  // Scene::ambient
};

}  // namespace srt
