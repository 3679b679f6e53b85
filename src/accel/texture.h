// texture.h - textures as the stage functions and traversal read them: the GPU-visible
// layout, texture coordinates on each kind of primitive, and bilinear sampling. The same
// code runs on the host and the device, so a textured image is the same bits on both.
//
// Sampling (what a GPU does with an sRGB texture, done in plain IEEE float arithmetic):
//   - texel centres at half-integers: u maps to x = u * width - 0.5, and the four texels
//     around x, y are blended by their distances (bilinear);
//   - each texel's colour is decoded from sRGB to linear light first (SceneView::
//     srgb_lut, exact to float), so the blend is in linear light; alpha is linear; a
//     data texture (kTexLinear: metallic-roughness) is read as its bytes / 255, a
//     normal map (kTexSigned) as (byte - 128) / 127;
//   - coordinates outside [0, 1] wrap per axis: repeat, mirrored repeat or clamp to the
//     edge (glTF's sampler modes; scene.h Wrap).
//   - minified, between two levels of the image's mip chain (trilinear): the level is
//     log2 of the ray cone's width at the hit in texels (render/surface.h, after Akenine-Moller et
//     al. 2019, "Texture Level of Detail Strategies for Real-Time Ray Tracing"); at or
//     below level 0 the plain bilinear sample above.
// Hardware texture units filter with 8-bit fractions of a texel and their own rounding,
// which the host cannot reproduce, so they are not used: the GPU image stays equal to
// the CPU's bit for bit.
#pragma once

#include "core/hd.h"

#include <glm/glm.hpp>

#include <cmath>
#include <cstdint>

namespace srt {

// 16 bytes. One level of an image with its wrap modes (images shared by several samplers
// are stored once: `offset` points into SceneView::texels). A texture is `levels`
// consecutive entries, level 0 (the image) first, each level half the one before,
// rounded down, down to 1x1 (render/mip_chain.h); a texture compiled without its mip
// chain has one.
struct alignas(16) TextureGpu {
    uint32_t offset;  // first texel in SceneView::texels
    uint32_t width;
    uint32_t height;
    uint32_t wrap;    // bits 0-1: wrap in u, bits 2-3: in v (kWrapRepeat, ...); bits 8-15: levels;
                      // bits 16-17: kTexLinear (data, not sRGB colour) or kTexSigned (a normal map)
};
static_assert(sizeof(TextureGpu) == 16, "TextureGpu must be 16 bytes");

// Where a texture lies on the triangles' coordinates (scene.h UvTransform): one per
// TextureGpu entry, every level of a texture alike, in a scene where some texture is
// transformed (SceneView::tex_transforms); 48 bytes.
//   - uv' = (m.x m.y; m.z m.w) uv + (o.x, o.y);
//   - o.z = sqrt |det|: how much wider a footprint is in the texture's coordinates than in
//     the triangles', for its mip level;
//   - a normal map's own axes in the tangent frame of the triangles' coordinates, (axes.x,
//     axes.z) its tangent and (axes.y, axes.w) its bitangent: the inverse's columns, each
//     made unit (their v turned over: a bitangent points up the image, against v), so
//     that a rotation turns the bumps with the image and a tiling does not flatten them
//     (a normal map holds directions, not slopes).
struct alignas(16) TexTransformGpu {
    f4 m, o, axes;
};
static_assert(sizeof(TexTransformGpu) == 48, "TexTransformGpu must be 48 bytes");

constexpr uint32_t kWrapRepeat = 0, kWrapMirror = 1, kWrapClamp = 2;
constexpr uint32_t kTexLevelShift = 8;
constexpr uint32_t kTexLinear = 1u << 16;
constexpr uint32_t kTexSigned = 2u << 16;  // a normal map: (byte - 128) / 127 (scene.h TextureImage)
// SceneView::srgb_lut holds the sRGB table, then the linear one (byte / 255) at this
// offset, then the signed one at twice it: bits 16-17 of the wrap word times 256.
constexpr uint32_t kLinearLutOffset = 256;
constexpr uint32_t kSignedLutOffset = 512;
SRT_HD_INLINE uint32_t tex_levels(const TextureGpu& t) { return (t.wrap >> kTexLevelShift) & 255u; }
constexpr uint32_t kNoTextureGpu = 0xffffffffu;  // "no texture" in MaterialGpu::tex
constexpr uint32_t kNoMaskGpu = 0xffffffffu;     // "not masked" in SceneView::prim_alpha

SRT_HD_INLINE uint32_t load_u32(const uint32_t* p) {
#if defined(__CUDA_ARCH__)
    return __ldg(p);
#else
    return *p;
#endif
}
SRT_HD_INLINE float load_f32(const float* p) {
#if defined(__CUDA_ARCH__)
    return __ldg(p);
#else
    return *p;
#endif
}

// One axis: the coordinate brought into the wrap mode's period first ([0, 1] for repeat,
// [0, 2] for mirrored repeat, [-1, 2] for clamp), so that huge or non-finite
// coordinates cannot overflow the texel index (NaN reads texel 0); then the two texels
// around it and the weight of the second.
struct TexAxis {
    uint32_t i0, i1;
    float f;
};
SRT_HD_INLINE TexAxis tex_axis(float u, uint32_t n, uint32_t mode) {
    float r;
    if (mode == kWrapRepeat) r = u - floorf(u);
    else if (mode == kWrapMirror) r = u - 2.0f * floorf(u * 0.5f);
    else r = fminf(fmaxf(u, -1.0f), 2.0f);
    if (!(r >= -1.0f && r <= 2.0f)) r = 0.0f;  // NaN or infinity
    const float x = r * float(n) - 0.5f;
    const float x0 = floorf(x);
    const int n2 = int(2 * n);
    int i[2] = {int(x0), int(x0) + 1};
    for (int k = 0; k < 2; ++k) {
        int j = i[k];
        if (mode == kWrapClamp) {
            j = j < 0 ? 0 : j >= int(n) ? int(n) - 1 : j;
        } else if (mode == kWrapRepeat) {
            j = j < 0 ? j + int(n) : j >= int(n) ? j - int(n) : j;
        } else {  // mirrored: period 2n, the second half reversed
            j = j < 0 ? j + n2 : j >= n2 ? j - n2 : j;
            j = j < int(n) ? j : n2 - 1 - j;
        }
        i[k] = j;
    }
    return {uint32_t(i[0]), uint32_t(i[1]), x - x0};
}

SRT_HD_INLINE TextureGpu load_texture(const TextureGpu* p) {
#if defined(__CUDA_ARCH__)
    const uint4 v = __ldg(reinterpret_cast<const uint4*>(p));
    return TextureGpu{v.x, v.y, v.z, v.w};
#else
    return *p;
#endif
}

// The four texels around (u, v) and their weights.
struct TexFootprint {
    uint32_t t00, t10, t01, t11;
    float fx, fy;
    uint32_t lut;  // where the texture's decoding table starts in SceneView::srgb_lut
};
SRT_HD_INLINE TexFootprint tex_footprint(const TextureGpu* textures, const uint32_t* texels, uint32_t tex,
                                         const glm::vec2& uv) {
    const TextureGpu d = load_texture(&textures[tex]);
    const TexAxis ax = tex_axis(uv.x, d.width, d.wrap & 3u);
    const TexAxis ay = tex_axis(uv.y, d.height, (d.wrap >> 2) & 3u);
    const uint32_t* base = texels + d.offset;
    TexFootprint f;
    f.t00 = load_u32(base + ay.i0 * d.width + ax.i0);
    f.t10 = load_u32(base + ay.i0 * d.width + ax.i1);
    f.t01 = load_u32(base + ay.i1 * d.width + ax.i0);
    f.t11 = load_u32(base + ay.i1 * d.width + ax.i1);
    f.fx = ax.f;
    f.fy = ay.f;
    f.lut = ((d.wrap >> 16) & 3u) << 8;  // kTexLinear: kLinearLutOffset, kTexSigned: kSignedLutOffset
    return f;
}

SRT_HD_INLINE glm::vec3 texel_linear(const float* lut, uint32_t t) {
    return glm::vec3(load_f32(&lut[t & 255u]), load_f32(&lut[(t >> 8) & 255u]), load_f32(&lut[(t >> 16) & 255u]));
}
SRT_HD_INLINE float texel_alpha(uint32_t t) { return float(t >> 24) / 255.0f; }

// The texture's linear colour at uv (a data texture's values).
SRT_HD_INLINE glm::vec3 sample_colour(const TextureGpu* textures, const uint32_t* texels, const float* luts,
                                      uint32_t tex, const glm::vec2& uv) {
    const TexFootprint f = tex_footprint(textures, texels, tex, uv);
    const float* lut = luts + f.lut;
    const float gx = 1.0f - f.fx, gy = 1.0f - f.fy;
    const glm::vec3 top = texel_linear(lut, f.t00) * gx + texel_linear(lut, f.t10) * f.fx;
    const glm::vec3 bottom = texel_linear(lut, f.t01) * gx + texel_linear(lut, f.t11) * f.fx;
    return top * gy + bottom * f.fy;
}

// The texture's linear colour at uv for a footprint `lod` = log2 of its width in level-0
// texels: between levels floor(lod) and the next, blended by lod's fraction (trilinear);
// at or below 0 (magnified), or with no mip chain, the bilinear sample of level 0, the
// same bits as sample_colour; beyond the last level, the last level (1x1).
SRT_HD_INLINE glm::vec3 sample_colour_lod(const TextureGpu* textures, const uint32_t* texels, const float* lut,
                                          uint32_t tex, const glm::vec2& uv, float lod) {
    const uint32_t levels = tex_levels(load_texture(&textures[tex]));
    if (!(lod > 0.0f) || levels <= 1) return sample_colour(textures, texels, lut, tex, uv);
    const float last = float(levels - 1);
    if (!(lod < last)) return sample_colour(textures, texels, lut, tex + levels - 1, uv);
    const float l0 = floorf(lod);
    const float f = lod - l0;
    const uint32_t k = tex + uint32_t(l0);
    const glm::vec3 a = sample_colour(textures, texels, lut, k, uv);
    const glm::vec3 b = sample_colour(textures, texels, lut, k + 1, uv);
    return a * (1.0f - f) + b * f;
}

// log2 from integer and float arithmetic alone (libm's and CUDA's log2f differ in the
// last bits, and a division costs more than the rest): the exponent from the bits, and
// for the mantissa 1 + t, t in [0, 1), a degree-6 polynomial in t fitted by least squares
// (error below 5e-6, 1e-5 after the sum rounds; exact at powers of two). Not positive (or NaN): -128;
// infinity: 128.
SRT_HD_INLINE float log2_portable(float x) {
    if (!(x > 0.0f)) return -128.0f;
    if (!(x <= 3.4e38f)) return 128.0f;
    const uint32_t b = float_bits(x);
    const int e = int((b >> 23) & 255u) - 127;
    if (e == -127) return -127.0f;  // subnormal: far below any level
    const float t = bits_float((b & 0x7fffffu) | 0x3f800000u) - 1.0f;
    const float p = t * (1.44251704f + t * (-0.717898369f + t * (0.456894159f + t * (-0.277365059f +
                    t * (0.121914141f + t * -0.0260663014f)))));
    return float(e) + p;
}

// The texture's alpha at uv, filtered the same way.
SRT_HD_INLINE float sample_alpha(const TextureGpu* textures, const uint32_t* texels, uint32_t tex, const glm::vec2& uv) {
    const TexFootprint f = tex_footprint(textures, texels, tex, uv);
    const float gx = 1.0f - f.fx, gy = 1.0f - f.fy;
    const float top = texel_alpha(f.t00) * gx + texel_alpha(f.t10) * f.fx;
    const float bottom = texel_alpha(f.t01) * gx + texel_alpha(f.t11) * f.fx;
    return top * gy + bottom * f.fy;
}

// atan2 from + - * / alone (libm's and CUDA's atan2f differ in the last bits): an odd
// polynomial for atan on [0, 1] (Abramowitz and Stegun 4.4.49, error below 1e-5 rad,
// a hundredth of a texel of a 4096-wide map), extended by symmetry.
SRT_HD_INLINE float atan2_portable(float y, float x) {
    const float ax = fabsf(x), ay = fabsf(y);
    const float hi = fmaxf(ax, ay), lo = fminf(ax, ay);
    if (hi == 0.0f) return 0.0f;
    const float z = lo / hi, z2 = z * z;
    float a = z * (0.9998660f + z2 * (-0.3302995f + z2 * (0.1801410f + z2 * (-0.0851330f + z2 * 0.0208351f))));
    if (ay > ax) a = 1.57079637f - a;
    if (x < 0.0f) a = 3.14159274f - a;
    return y < 0.0f ? -a : a;
}

// A sphere's texture coordinates at the unit outward normal n (a latitude-longitude
// map): u turns once around the y axis, 0 at -z, 0.25 at -x, 0.5 at +z, 0.75 at +x; v
// runs from the top pole (v = 0, the image's top row) down to the bottom pole (v = 1).
SRT_HD_INLINE glm::vec2 sphere_uv(const glm::vec3& n) {
    constexpr float kInvTwoPi = 0.159154943f, kInvPi = 0.318309886f;
    const float y = fminf(fmaxf(n.y, -1.0f), 1.0f);
    const float u = 0.5f + atan2_portable(n.x, n.z) * kInvTwoPi;
    const float v = atan2_portable(sqrtf(fmaxf(1.0f - y * y, 0.0f)), y) * kInvPi;
    return glm::vec2(u, v);
}

}  // namespace srt
