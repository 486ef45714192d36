#version 450
// Segmented deterministic reduction for many short segments (a few
// particles a body): one thread per segment combines its elements in order.
// Same interface as segreduce.comp; chosen when segments are short on
// average, where a workgroup per segment would mostly idle.
#extension GL_GOOGLE_include_directive : require
#include "reduce.glsl"

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { float data_in[]; };
layout(std430, binding = 1) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 2) writeonly buffer Out { vec4 data_out[]; };
layout(push_constant) uniform P {
    uint segments;
    uint stride;
    uint comps;
    uint op;
} pc;

void main()
{
    uint s = gl_GlobalInvocationID.x;
    if (s >= pc.segments)
        return;
    vec4 acc = eddy_reduce_identity(pc.op);
    for (uint i = offsets[s]; i < offsets[s + 1u]; i++) {
        vec4 v = vec4(0.0);
        for (uint c = 0u; c < pc.comps; c++)
            v[c] = data_in[i * pc.stride + c];
        acc = eddy_reduce_op(pc.op, acc, v);
    }
    for (uint c = pc.comps; c < 4u; c++)
        acc[c] = 0.0;
    data_out[s] = acc;
}
