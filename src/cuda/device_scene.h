// device_scene.h - a compiled scene's arrays on the device, owned, and the SceneView over
// them that the kernels traverse and shade with: the CUDA executor's scene, and
// traversal_bench's (tools/traversal-bench).
#pragma once

#include "cuda/device_buffer.h"
#include "render/scene_gpu.h"

namespace srt::cuda {

class DeviceScene {
public:
    // Copies the arrays of `s` to the current device, replacing the scene before. An array
    // `s` leaves empty (normals in a scene of flat triangles, textures, emitters) is freed,
    // and its pointer in view() is null, which is how the kernels know it is absent.
    void upload(const CompiledScene& s) {
        nodes_.upload(s.nodes, "BVH nodes");
        nodes4_.upload(s.nodes4, "BVH4 nodes");
        nodes8_.upload(s.nodes8, "BVH8 nodes");
        tlas_.upload(s.tlas, "instance BVH");
        instances_.upload(s.instances, "instances");
        prims_.upload(s.prims, "primitives");
        prim_tests_.upload(s.prim_tests, "primitive tests");
        normals_.upload(s.normals, "vertex normals");
        tangents_.upload(s.tangents, "tangents");
        planes_.upload(s.planes, "planes");
        materials_.upload(s.materials, "materials");
        lights_.upload(s.lights, "lights");
        texels_.upload(s.texels, "texture images");
        textures_.upload(s.textures, "textures");
        srgb_lut_.upload(s.srgb_lut, "sRGB table");
        tex_transforms_.upload(s.tex_transforms, "texture transforms");
        uvs_.upload(s.uvs, "texture coordinates");
        prim_alpha_.upload(s.prim_alpha, "alpha masks");
        emitters_.upload(s.emitters, "emitters");
        prim_emitter_.upload(s.prim_emitter, "emitters by primitive");
        light_cdf_.upload(s.light_cdf, "light distribution");
        light_pmf_.upload(s.light_pmf, "light probabilities");
        env_texels_.upload(s.env_texels, "environment map");
        env_row_cdf_.upload(s.env_row_cdf, "environment map's rows");
        env_col_cdf_.upload(s.env_col_cdf, "environment map's columns");
        view_ = s.view();  // the counts and flags; the pointers, the device's:
        view_.nodes = nodes_.get();
        view_.nodes4 = nodes4_.get();
        view_.nodes8 = nodes8_.get();
        view_.tlas = tlas_.get();
        view_.instances = instances_.get();
        view_.prims = prims_.get();
        view_.prim_tests = prim_tests_.get();
        view_.normals = normals_.get();
        view_.tangents = tangents_.get();
        view_.planes = planes_.get();
        view_.materials = materials_.get();
        view_.lights = lights_.get();
        view_.texels = texels_.get();
        view_.textures = textures_.get();
        view_.srgb_lut = srgb_lut_.get();
        view_.tex_transforms = tex_transforms_.get();
        view_.uvs = uvs_.get();
        view_.prim_alpha = prim_alpha_.get();
        view_.emitters = emitters_.get();
        view_.prim_emitter = prim_emitter_.get();
        view_.light_cdf = light_cdf_.get();
        view_.light_pmf = light_pmf_.get();
        view_.env.texels = env_texels_.get();
        view_.env.row_cdf = env_row_cdf_.get();
        view_.env.col_cdf = env_col_cdf_.get();
    }
    const SceneView& view() const { return view_; }

private:
    DeviceBuffer<BvhNode> nodes_;
    DeviceBuffer<Bvh4Node> nodes4_;
    DeviceBuffer<Bvh8Node> nodes8_;
    DeviceBuffer<BvhNode> tlas_;  // only for scenes with instances
    DeviceBuffer<InstanceGpu> instances_;
    DeviceBuffer<PrimGpu> prims_;
    DeviceBuffer<PrimTestGpu> prim_tests_;
    DeviceBuffer<f4> normals_;  // 3 per primitive, only for scenes with smooth triangles
    DeviceBuffer<f4> tangents_;  // 3 per primitive, only for scenes with normal maps
    DeviceBuffer<PlaneGpu> planes_;
    DeviceBuffer<MaterialGpu> materials_;
    DeviceBuffer<LightGpu> lights_;
    DeviceBuffer<uint32_t> texels_;  // the texture arrays, only for scenes with textures
    DeviceBuffer<TextureGpu> textures_;
    DeviceBuffer<float> srgb_lut_;
    DeviceBuffer<TexTransformGpu> tex_transforms_;  // only where a texture is transformed
    DeviceBuffer<f4> uvs_;
    DeviceBuffer<uint32_t> prim_alpha_;
    DeviceBuffer<EmitterGpu> emitters_;  // the path integrator's light table, only where there are lights to sample
    DeviceBuffer<uint32_t> prim_emitter_;
    DeviceBuffer<float> light_cdf_, light_pmf_;
    DeviceBuffer<f4> env_texels_;  // the environment map, only where there is one
    DeviceBuffer<float> env_row_cdf_, env_col_cdf_;
    SceneView view_;
};

}  // namespace srt::cuda
