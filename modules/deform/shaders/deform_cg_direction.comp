#version 450
// deform.cg_direction, one thread per vertex: p = z + beta p.
#extension GL_GOOGLE_include_directive : require
#include "deform.glsl"
#include "deform_cg.glsl"

layout(local_size_x = 256) in;
layout(std430, binding = 1) readonly buffer Cg { CgState cg; };
layout(std430, binding = 2) readonly buffer Z { vec4 cg_z[]; };
layout(std430, binding = 3) buffer Pdir { vec4 cg_p[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < D_COUNT)
        cg_p[i].xyz = cg_z[i].xyz + cg.beta * cg_p[i].xyz;
}
