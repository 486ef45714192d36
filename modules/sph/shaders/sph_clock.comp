#version 450
// The end of a substep: simulated time += dt, for the time-dependent fields
// (the push field). Kept on the GPU so the step needs no host round trip, and
// summed in float: the substep may change (adaptive stepping). One thread.
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"

layout(local_size_x = 1) in;
layout(std430, binding = 1) buffer Clock { float clock[]; };

void main()
{
    clock[0] += SPH_DT;
}
