#version 450
// Renderer pass 0 for a set drawn as its triangle surface (a deformable body,
// a cloth): each triangle's corners straight from the set's positions into
// the renderer's triangle list (3 vec4 a triangle, at id_base), so a frame
// uploads nothing. Corner 0's w is the triangle's colour scalar, the mean of
// its three vertices' eddy_particle_scalar (render.glsl: the spheres' own);
// corner 1's w is 1, or 0 for a triangle that names a particle at or past the
// set's count (not drawn: those particles are not in use); corner 2's w is 0.
// CPU reference: tests/gpu/test_render.c.
#extension GL_GOOGLE_include_directive : require
#define EDDY_RENDER_GATHER
#include "render.glsl"

layout(local_size_x = 64) in;
layout(std430, binding = 4) readonly buffer Triangles { uint index[]; }; // 3 a triangle
layout(std430, binding = 5) writeonly buffer Tri { vec4 tri[]; };

void main()
{
    uint j = gl_GlobalInvocationID.x;
    if (j >= pc.count)
        return;
    uint a = index[3u * j], b = index[3u * j + 1u], c = index[3u * j + 2u];
    uint o = 3u * (pc.id_base + j);
    if (a >= pc.vertices || b >= pc.vertices || c >= pc.vertices) {
        tri[o] = vec4(0.0);
        tri[o + 1u] = vec4(0.0);
        tri[o + 2u] = vec4(0.0);
        return;
    }
    float s = (eddy_particle_scalar(a) + eddy_particle_scalar(b) + eddy_particle_scalar(c)) / 3.0;
    tri[o] = vec4(position[a].xyz, s);
    tri[o + 1u] = vec4(position[b].xyz, 1.0);
    tri[o + 2u] = vec4(position[c].xyz, 0.0);
}
