#version 450
// PBF: v = (x* - x) / dt (cell order).
#extension GL_GOOGLE_include_directive : require
#include "pbf_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Pos { vec4 sp[]; };
layout(std430, binding = 2) readonly buffer Old { vec4 sold[]; };
layout(std430, binding = 3) writeonly buffer Vel { vec4 sv[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= PBF_COUNT)
        return;
    sv[i] = vec4((sp[i].xyz - sold[i].xyz) / PBF_DT, 0.0);
}
