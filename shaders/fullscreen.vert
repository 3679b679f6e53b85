#version 330 core
// One triangle that covers the viewport, made from gl_VertexID alone: no vertex
// buffer, and no diagonal seam as with two triangles. Vertices (-1,-1), (3,-1), (-1,3);
// the part outside the viewport is clipped.
void main() {
    vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);
    gl_Position = vec4(p, 0.0, 1.0);
}
