// variant.h - the kernels' compile-time variant (`kWidth`, `kVariant`): the BVH width
// and the bits that say what else a kernel is compiled for, and the dispatch from a
// scene to the variant that runs it (with_bvh_width and its siblings), shared by host
// and device, by traversal (accel/intersect.h) and by every stage (render/stages.h).
#pragma once

#include "accel/scene_view.h"
#include "core/hd.h"

#include <type_traits>

namespace srt {

// The kernels' compile-time variant, `kWidth`: the BVH width (2, 4 or 8) and four bits:
// kPreciseSpheres, whether the scene has spheres computed in double; kTextures, whether
// it has textures, whose shading the others skip; kRayCones, whether its textures have
// mip chains, whose levels the cone each ray carries picks (render/surface.h); and
// kAlphaMasks, whether some triangle has an alpha mask that traversal must test
// (with_bvh_width; masks come with both texture bits).
constexpr int kPreciseSpheres = 16;
constexpr int kAlphaMasks = 32;
constexpr int kTextures = 64;
constexpr int kRayCones = 128;
// Not the traversal's: the integrator whose shading a kernel runs (render/stages.h
// with_variant). Traversal-only code strips it (whitted_variant), so that intersect
// kernels are not compiled twice.
constexpr int kPathTracing = 256;
// Whitted's ray tree (render/ray_tree.h): the kernels of Whitted frames with glass. Not
// the traversal's either, except that its shadow rays pass through glass.
constexpr int kRayTree = 512;
// --kill (render/kill.h): the kernels of frames whose rays are killed to a schedule. Not
// the traversal's: only the stages that send rays on test it, and frames without a kill
// run kernels that hold none of its code (its arithmetic inline cost the megakernel 24
// bytes more spills, and frames without a kill 1-2%).
constexpr int kKill = 1024;
// The path integrator's materials beyond Whitted's (glTF's BRDF, rough glass,
// render/bsdf.h; maps of metallic and roughness, render/surface.h): only the kernels of
// scenes that have them hold their code. Their calls in every path vertex, even untaken,
// cost the path kernels 12% (more spills, longer code;
// docs/performance.md, "glTF's BRDF and rough glass"). Not the traversal's.
constexpr int kMaterials = 2048;
// Instances (accel/traverse_instances.h): a top-level BVH over placed meshes, each walked
// in its own space, and shading that moves its hits back. The traversal's. A scene with
// instances runs one variant of each kernel set: the BVH8's, with every other bit
// (kInstanced, below). Its code in the variants of every bit, which glass under Whitted,
// spheres in double and the extended materials run, cost those frames 3-18% on the H200
// (docs/performance.md, "Instances"); a variant for each width would cost `make render`
// three more variants of every kernel.
constexpr int kInstances = 4096;
constexpr int bvh_of(int variant) { return variant & 15; }
constexpr bool precise_spheres_of(int variant) { return (variant & kPreciseSpheres) != 0; }
constexpr bool alpha_masks_of(int variant) { return (variant & kAlphaMasks) != 0; }
constexpr bool textures_of(int variant) { return (variant & kTextures) != 0; }
constexpr bool ray_cones_of(int variant) { return (variant & kRayCones) != 0; }
constexpr bool path_tracing_of(int variant) { return (variant & kPathTracing) != 0; }
constexpr bool ray_tree_of(int variant) { return (variant & kRayTree) != 0; }
constexpr bool kill_of(int variant) { return (variant & kKill) != 0; }
constexpr bool materials_of(int variant) { return (variant & kMaterials) != 0; }
constexpr bool instances_of(int variant) { return (variant & kInstances) != 0; }
// What traversal and intersect kernels are compiled for: no integrator, kill or lobes.
constexpr int whitted_variant(int variant) { return variant & ~(kPathTracing | kKill | kMaterials); }
// What shade kernels are compiled for: a kill does not change shading.
constexpr int shade_variant(int variant) { return variant & ~kKill; }

// The width the scene was compiled for (render/scene_gpu.h: --accel).
SRT_HD_INLINE int bvh_width(const SceneView& s) { return s.nodes8 ? 8 : s.nodes4 ? 4 : 2; }

// Calls fn(std::integral_constant<int, W>{}) for the scene's width W, so that code
// compiled per width runs the one in use.
// Also for the scene's spheres: with SceneView::precise_spheres (a sphere small for its
// distance from the origin, accel/bvh.h sphere_needs_double), W carries kPreciseSpheres,
// and the code compiled for it computes those spheres' hit points and near-surface tests
// in double. The other scenes run code without it (measured on the H100: that code in
// every kernel cost the default scene's and Conference's frames 3-10%). Such scenes are
// rare (a scene moved far from its origin), so they run the code of every surface bit
// too, as a ray tree's does, rather than variants of their own: the same images, since
// that code finds nothing to do where there are no textures and reads the same colours
// where there are (below), for a third fewer variants to build.
// Likewise for what surfaces carry: a scene with alpha masks, or with textures whose mip
// chains its rays' cones pick from (kRayCones), runs the code of all three texture bits
// (kTextures, kRayCones, kAlphaMasks), which finds nothing to do where there is nothing
// (no mask: a null prim_alpha, one pointer test per closer hit); a scene without
// textures runs none of it (two cone floats live through the path kernels' traversal
// cost them 2.5-4%). Bilinear textures (no cones, no masks) keep a Whitted variant of
// their own, kTextures alone: the code of all three cost their megakernels 5-13%; the
// path integrator runs them on the code of all three (a cone over an image without a
// mip chain picks level 0, as the bilinear code does: the same colours), which moved
// its frames by -11% to +4% by mode. Each variant of every kernel costs `make render`
// build time: 12 variants of each Whitted kernel, 6 of each path kernel, and on the GPU
// 3 more of each for the extended materials and spheres in double (with_path_variant;
// docs/performance.md, "Textures" and "The build").
constexpr int kSurfaceBits = kTextures | kRayCones | kAlphaMasks;
template <int kFlags, class Fn>
SRT_HD_INLINE decltype(auto) with_width_flags(const SceneView& s, Fn&& fn) {
    switch (bvh_width(s)) {
    case 8: return fn(std::integral_constant<int, 8 | kFlags>{});
    case 4: return fn(std::integral_constant<int, 4 | kFlags>{});
    default: return fn(std::integral_constant<int, 2 | kFlags>{});
    }
}
template <int kFlags, class Fn>
SRT_HD_INLINE decltype(auto) with_surface_flags(const SceneView& s, Fn&& fn) {
    if constexpr (!path_tracing_of(kFlags)) {
        if (s.textures && !s.ray_cones && !s.alpha_masks) return with_width_flags<kFlags | kTextures>(s, fn);
    }
    if (s.textures || s.alpha_masks) return with_width_flags<kFlags | kSurfaceBits>(s, fn);
    return with_width_flags<kFlags>(s, fn);
}
// What a scene with spheres in double runs: the code of every bit.
constexpr int kEveryBit = kPreciseSpheres | kSurfaceBits;
// What a scene with instances runs, whatever its kernels' other bits: the BVH8 (which
// compile_scene builds for it, render/scene_geometry.cpp), every bit, and instancing's code.
constexpr int kInstanced = 8 | kEveryBit | kInstances;
template <int kFlags, class Fn>
SRT_HD_INLINE decltype(auto) with_scene_flags(const SceneView& s, Fn&& fn) {
    if (s.instances != nullptr) return fn(std::integral_constant<int, kFlags | kInstanced>{});
    if (s.precise_spheres) return with_width_flags<kFlags | kEveryBit>(s, fn);
    return with_surface_flags<kFlags>(s, fn);
}
template <class Fn>
SRT_HD_INLINE decltype(auto) with_bvh_width(const SceneView& s, Fn&& fn) {
    return with_scene_flags<0>(s, fn);
}

// Every bit a path kernel can carry but the kill's.
constexpr int kEveryPathBit = kPathTracing | kMaterials | kEveryBit;

// The same for the path integrator's kernels (kPathTracing). A scene with glTF's BRDF,
// rough glass or maps of metallic and roughness (SceneView::extended_materials) runs the
// code of every bit, one variant per width for build time, as a ray tree's does; so does
// its wavefront's intersect (with_path_intersect_variant), which must find the hits the
// path kernels find (spheres in double, or not, alike). So does a scene with spheres in
// double, rare enough (above) that the lobes' cost in its frames buys 3 variants fewer.
// kLeanLobes: whether the other scenes run code without those lobes (kMaterials), as the
// GPU's kernels do; the CPU's executor compiles the lobes into all its path variants
// instead (a branch never taken costs a CPU next to nothing, and each variant costs build
// time), so that it has no more variants than before them. The bits are the same either
// way: the lobes' code finds nothing to do in a scene without them.
template <bool kLeanLobes = false, class Fn>
SRT_HD_INLINE decltype(auto) with_path_variant(const SceneView& s, Fn&& fn) {
    if (s.instances != nullptr) return fn(std::integral_constant<int, kEveryPathBit | kInstanced>{});
    if (s.extended_materials || s.precise_spheres) return with_width_flags<kEveryPathBit>(s, fn);
    if constexpr (kLeanLobes) return with_scene_flags<kPathTracing>(s, fn);
    else return with_scene_flags<kPathTracing | kMaterials>(s, fn);
}

// The variant of a path frame's intersect (which both integrators share, its kernels
// compiled for Whitted's): the traversal bits of with_path_variant's choice.
template <class Fn>
SRT_HD_INLINE decltype(auto) with_path_intersect_variant(const SceneView& s, Fn&& fn) {
    if (s.extended_materials && s.instances == nullptr) return with_width_flags<whitted_variant(kEveryPathBit)>(s, fn);
    return with_bvh_width(s, fn);
}

// The same for Whitted frames with glass (kRayTree): one variant per BVH width, since
// glass is rare and each variant costs build time (`make render` on 2 cores). Every such
// scene runs the code for textures, their cones and alpha masks, which finds nothing to
// do where there are none (a texture-less material, null prim_alpha) and reads the same
// colours where there are (one level of an image without a mip chain), and computes its
// spheres in double (every sphere carries what rounding lost, accel/bvh.h), which costs
// GPUs of slow double precision more than it does the H100.
template <class Fn>
SRT_HD_INLINE decltype(auto) with_tree_variant(const SceneView& s, Fn&& fn) {
    if (s.instances != nullptr) return fn(std::integral_constant<int, kRayTree | kInstanced>{});
    return with_width_flags<kRayTree | kEveryBit>(s, fn);
}

// The same for frames under --kill (kKill), of either integrator (kIntegrator: 0 or
// kPathTracing): two variants per BVH width, for build time. A plain scene (no spheres in
// double, no textures, no masks: the default scene, the Cornell boxes, Conference) runs
// the plain code with the kill, so that a kill frame costs what the frame does without it
// but for the kill itself; every other scene runs the code of every bit, as a ray tree's
// (measured with ptxas on the megakernel of the BVH2: 232 bytes of spills plain, 312 with
// every bit, 332 with every bit and the kill).
// A scene with the extended materials (glTF's BRDF, rough glass, maps) is one of the
// others, under either integrator, so that the intersect (with_kill_variant<0>) finds the
// hits the path kernels find; the path integrator's every-bit kernels hold those
// materials' code (kMaterials), its plain ones do not.
template <int kIntegrator, class Fn>
SRT_HD_INLINE decltype(auto) with_kill_variant(const SceneView& s, Fn&& fn) {
    constexpr int kLobes = path_tracing_of(kIntegrator) ? kMaterials : 0;
    if (s.instances != nullptr) return fn(std::integral_constant<int, kKill | kIntegrator | kLobes | kInstanced>{});
    if (s.precise_spheres || s.textures || s.ray_cones || s.alpha_masks || s.extended_materials)
        return with_width_flags<kKill | kIntegrator | kLobes | kEveryBit>(s, fn);
    return with_width_flags<kKill | kIntegrator>(s, fn);
}

}  // namespace srt
