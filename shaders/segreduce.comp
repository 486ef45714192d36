#version 450
// Segmented deterministic reduction: segment s covers elements
// [offsets[s], offsets[s+1]) (e.g. the particles of one rigid body); one
// workgroup per segment combines them in a fixed order into out[s].
#extension GL_GOOGLE_include_directive : require
#include "reduce.glsl"

layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer In { float data_in[]; };
layout(std430, binding = 1) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 2) writeonly buffer Out { vec4 data_out[]; };
layout(push_constant) uniform P {
    uint segments;
    uint stride;  // floats between elements
    uint comps;   // floats per element, 1..4
    uint op;      // EDDY_REDUCE_*
} pc;

void main()
{
    uint t = gl_LocalInvocationIndex;
    for (uint s = gl_WorkGroupID.x; s < pc.segments; s += gl_NumWorkGroups.x) {
        uint first = offsets[s], last = offsets[s + 1u];
        vec4 acc = eddy_reduce_identity(pc.op);
        for (uint i = first + t; i < last; i += 256u) {
            vec4 v = vec4(0.0);
            for (uint c = 0u; c < pc.comps; c++)
                v[c] = data_in[i * pc.stride + c];
            acc = eddy_reduce_op(pc.op, acc, v);
        }
        vec4 r = eddy_workgroup_reduce(pc.op, acc);
        if (t == 0u) {
            for (uint c = pc.comps; c < 4u; c++)
                r[c] = 0.0;
            data_out[s] = r;
        }
    }
}
