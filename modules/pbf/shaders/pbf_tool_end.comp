#version 450
// PBF tool, once per substep after the force sums (one thread): the step's
// force is the mean over its substeps.
#extension GL_GOOGLE_include_directive : require
#include "pbf_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) buffer Tool { eddy_pbf_tool T; };
layout(std430, binding = 2) readonly buffer Sums { vec4 sums[]; }; // push, adhesion, damping

void main()
{
    if (gl_GlobalInvocationID.x != 0u)
        return;
    float w = 1.0 / float(max(T.clock.y, 1u));
    bool first = T.clock.x <= 1u;
    T.push = (first ? vec4(0.0) : T.push) + w * vec4(sums[0].xyz, 0.0);
    T.adhesion = (first ? vec4(0.0) : T.adhesion) + w * vec4(sums[1].xyz, 0.0);
    T.damping = (first ? vec4(0.0) : T.damping) + w * vec4(sums[2].xyz, 0.0);
}
