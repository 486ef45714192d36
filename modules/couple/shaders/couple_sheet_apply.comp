#version 450
// Coupling with sheets, last step, once per sheet set (a cloth whose own
// system stepped before the fluid this substep; the set's particle order):
// the force the fluid put on each vertex this substep (couple.pbf's and
// couple.sheet_force's, the combined array after the grid's scatter) as the
// impulse it is, v += dt F / m (1/m the set's rigid.inverse_mass: 0 for a
// pinned vertex), so cloth plus fluid momentum holds at the substep's end
// and the vertices stay where the fluid was kept off them; and those
// positions as the sheet's start for the next substep (couple.sheet tells
// a particle's side by them).
#extension GL_GOOGLE_include_directive : require
#include "../couple_params.h"

layout(local_size_x_id = 0) in;
layout(push_constant) uniform Slice {
    uint offset; // the set's first particle in the combined arrays
    uint count;  // the set's particles
} S;
layout(std430, binding = 0) readonly buffer Params { eddy_couple_params CP; };
layout(std430, binding = 1) readonly buffer Combined { vec4 combined[]; };
layout(std430, binding = 2) readonly buffer InverseMass { float inverse_mass[]; };
layout(std430, binding = 3) readonly buffer Position { vec4 position[]; };
layout(std430, binding = 4) buffer Velocity { vec4 velocity[]; };
layout(std430, binding = 5) writeonly buffer Start { vec4 start[]; }; // combined

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= S.count)
        return;
    uint j = S.offset + i;
    velocity[i].xyz += (CP.misc.y * inverse_mass[i]) * combined[j].xyz;
    start[j] = vec4(position[i].xyz, 0.0);
}
