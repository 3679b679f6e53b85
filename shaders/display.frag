#version 330 core
// Shows the ray tracer's frame, 1:1, texel for pixel.
//
// Colour: the renderer's resolve stage is the one place that encodes sRGB; the
// texture holds those sRGB bytes as GL_RGBA8 (not GL_SRGB8_ALPHA8) and the default
// framebuffer is not sRGB-encoding, so the bytes reach the screen untouched.
// Exposure is applied by resolve too (RenderSettings::exposure, in linear light before
// the encoding), so the window shows exactly the bytes the headless `render` command
// writes with the same --exposure.

uniform sampler2D u_image;   // the frame, row 0 = top row of the image
uniform sampler2D u_mask;    // stencil overlay (R8): 1.0 = warp dead, 0.5 = lane dead in a live warp
uniform int u_overlay;       // 1 = tint from u_mask

out vec4 frag_colour;

void main() {
    ivec2 size = textureSize(u_image, 0);
    // GL's window origin is the bottom-left; the image's row 0 is the top.
    ivec2 texel = ivec2(int(gl_FragCoord.x), size.y - 1 - int(gl_FragCoord.y));
    vec3 c = texelFetch(u_image, texel, 0).rgb;
    if (u_overlay != 0) {
        float m = texelFetch(u_mask, texel, 0).r;
        if (m > 0.75)
            c = mix(c, vec3(1.0, 0.1, 0.1), 0.55);   // whole warp dead: skipped by every stage
        else if (m > 0.25)
            c = mix(c, vec3(1.0, 0.8, 0.1), 0.35);   // this lane dead, its warp still runs
    }
    frag_colour = vec4(c, 1.0);
}
