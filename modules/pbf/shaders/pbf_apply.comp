#version 450
// PBF: x* += dx, then out of the box and the solids (positions only: the
// velocity comes from the positions at the end of the step).
#extension GL_GOOGLE_include_directive : require
#include "pbf_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) buffer Pos { vec4 sp[]; };
layout(std430, binding = 2) readonly buffer Delta { vec4 dp[]; };
layout(std430, binding = 3) readonly buffer Solids { EddySolid solids[]; };

#include "solids.glsl"

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= PBF_COUNT)
        return;
    vec4 x = sp[i];
    vec3 p = x.xyz + dp[i].xyz, v = vec3(0.0);
    eddy_collide(p, v, x.w, 0.0, P.box_min.xyz, P.box_max.xyz, uint(P.dims.w));
    sp[i] = vec4(p, x.w);
}
