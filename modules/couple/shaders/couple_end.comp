#version 450
// Coupling, last (sorted boundary order): the substep's force on each
// boundary particle into the set's rigid.external (its own order), and the
// sum cleared for the next substep.
#extension GL_GOOGLE_include_directive : require
#include "../couple_params.h"

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Params { eddy_couple_params CP; };
layout(std430, binding = 1) buffer Force { vec4 force[]; };
layout(std430, binding = 2) readonly buffer Index { uint sorted_index[]; };
layout(std430, binding = 3) writeonly buffer External { vec4 ext_force[]; };

void main()
{
    uint b = gl_GlobalInvocationID.x;
    if (b >= CP.counts.x)
        return;
    ext_force[sorted_index[b]] = vec4(force[b].xyz, 0.0);
    force[b] = vec4(0.0);
}
