#version 450
// Coupling step 1 (boundary particle order): each boundary particle at the
// position it has at the end of the substep, x + dt v (the fluid's predicted
// positions are at that time too), with its volume V in w; and the force
// sum of couple.pbf cleared (its order does not matter here).
#extension GL_GOOGLE_include_directive : require
#include "../couple_params.h"

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Params { eddy_couple_params CP; };
layout(std430, binding = 1) readonly buffer Position { vec4 position[]; };
layout(std430, binding = 2) readonly buffer Velocity { vec4 velocity[]; };
layout(std430, binding = 3) readonly buffer Volume { float volume[]; };
layout(std430, binding = 4) writeonly buffer Predicted { vec4 predicted[]; };
layout(std430, binding = 5) writeonly buffer Force { vec4 force[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= CP.counts.x)
        return;
    predicted[i] = vec4(position[i].xyz + CP.misc.w * velocity[i].xyz, volume[i]);
    force[i] = vec4(0.0);
}
