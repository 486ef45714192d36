#version 450
// Renderer pass 0, once per particle set drawn as spheres: the set's
// particles straight from its device buffers into the renderer's sphere list
// (at id_base) with their colour scalar (eddy_particle_scalar, render.glsl),
// so a frame uploads nothing. CPU reference: tests/gpu/test_render.c.
#extension GL_GOOGLE_include_directive : require
#define EDDY_RENDER_GATHER
#include "render.glsl"

layout(local_size_x = 64) in;
layout(std430, binding = 4) writeonly buffer Sphere { vec4 sphere[]; };
layout(std430, binding = 5) writeonly buffer Scalar { float scalar[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count)
        return;
    sphere[pc.id_base + i] = position[i];
    scalar[pc.id_base + i] = eddy_particle_scalar(i);
}
