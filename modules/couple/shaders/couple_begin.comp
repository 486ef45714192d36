#version 450
// Coupling step 1, once per boundary set (the set's particle order): each of
// its particles at the position it has at the end of the substep, x + lead v
// (lead 0 when the set's own system has stepped already this substep; else
// pbf: lead dt, where the fluid's predicted positions are; sph: 0), with its
// volume V in w, and its share of its body's inverse mass, written at the
// set's offset in the fluid's combined boundary arrays; and the force sum of
// couple.pbf / couple.sph cleared over the same range (its order does not
// matter here); and its velocity (IISPH's density prediction, gathered into
// sorted order only when the fluid asks for it).
#extension GL_GOOGLE_include_directive : require
#include "../couple_params.h"

layout(local_size_x_id = 0) in;
layout(push_constant) uniform Slice {
    uint offset; // the set's first particle in the combined arrays
    uint count;  // the set's particles
    float lead;  // s
} S;
layout(std430, binding = 0) readonly buffer Params { eddy_couple_params CP; };
layout(std430, binding = 1) readonly buffer Position { vec4 position[]; };
layout(std430, binding = 2) readonly buffer Velocity { vec4 velocity[]; };
layout(std430, binding = 3) readonly buffer InverseMass { float inverse_mass[]; };
layout(std430, binding = 4) readonly buffer Volume { float volume[]; };   // combined order
layout(std430, binding = 5) writeonly buffer Predicted { vec4 predicted[]; };
layout(std430, binding = 6) writeonly buffer Weight { float weight[]; };
layout(std430, binding = 7) writeonly buffer Force { vec4 force[]; };
layout(std430, binding = 8) writeonly buffer BVel { vec4 bvel[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= S.count)
        return;
    uint j = S.offset + i;
    predicted[j] = vec4(position[i].xyz + S.lead * velocity[i].xyz, volume[j]);
    weight[j] = inverse_mass[i];
    force[j] = vec4(0.0);
    bvel[j] = vec4(velocity[i].xyz, 0.0);
}
