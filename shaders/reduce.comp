#version 450
// One level of a deterministic reduction (sum, min or max) of elements of
// `comps` floats spaced `stride` floats apart: each workgroup combines 1024
// elements (thread t: elements t, t+256, t+512, t+768 in that order, then a
// fixed tree) into one vec4. Missing components are 0.
#extension GL_GOOGLE_include_directive : require
#include "reduce.glsl"

layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer In { float data_in[]; };
layout(std430, binding = 1) writeonly buffer Out { vec4 data_out[]; };
layout(push_constant) uniform P {
    uint count;      // elements
    uint stride;     // floats between elements
    uint comps;      // floats per element, 1..4
    uint op;         // EDDY_REDUCE_*
    uint in_offset;  // floats into data_in
    uint out_offset; // vec4s into data_out
} pc;

void main()
{
    uint t = gl_LocalInvocationIndex;
    vec4 acc = eddy_reduce_identity(pc.op);
    uint base = gl_WorkGroupID.x * 1024u + t;
    for (uint k = 0u; k < 4u; k++) {
        uint i = base + k * 256u;
        if (i < pc.count) {
            uint o = pc.in_offset + i * pc.stride;
            vec4 v = vec4(0.0);
            for (uint c = 0u; c < pc.comps; c++)
                v[c] = data_in[o + c];
            acc = eddy_reduce_op(pc.op, acc, v);
        }
    }
    vec4 r = eddy_workgroup_reduce(pc.op, acc);
    if (t == 0u) {
        for (uint c = pc.comps; c < 4u; c++)
            r[c] = 0.0;
        data_out[pc.out_offset + gl_WorkGroupID.x] = r;
    }
}
