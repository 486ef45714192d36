#version 450
// Coupling step 1, once per boundary set (the set's particle order): each of
// its particles at the position it has at the end of the substep, x + lead v
// (lead 0 when the set's own system has stepped already this substep; else
// pbf: lead dt, where the fluid's predicted positions are; sph: 0), with its
// volume V = (2 r)^3 in w (r the position's w: eddy_couple_volume, so that
// it travels with the particle), and its share of its body's inverse mass, written at the
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
layout(std430, binding = 4) writeonly buffer Predicted { vec4 predicted[]; };
layout(std430, binding = 5) writeonly buffer Weight { float weight[]; };
layout(std430, binding = 6) writeonly buffer Force { vec4 force[]; };
layout(std430, binding = 7) writeonly buffer BVel { vec4 bvel[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= S.count)
        return;
    uint j = S.offset + i;
    precise float r = position[i].w, V = 8.0 * r * r * r;
    predicted[j] = vec4(position[i].xyz + S.lead * velocity[i].xyz, V);
    weight[j] = inverse_mass[i];
    force[j] = vec4(0.0);
    bvel[j] = vec4(velocity[i].xyz, 0.0);
}
