#version 450
// deform.forces, one thread per vertex: gravity, its springs' forces in CSR
// order and the contact forces (the explicit integrators' force; with a
// handle also the implicit one's, for the force on the handle: the handle
// vertices' forces again in `hforce`, zero elsewhere).
#extension GL_GOOGLE_include_directive : require
#include "deform.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Position { vec4 position[]; };
layout(std430, binding = 2) readonly buffer Velocity { vec4 velocity[]; };
layout(std430, binding = 3) readonly buffer Mass { float mass[]; };
layout(std430, binding = 4) readonly buffer Rows { uint rows[]; };
layout(std430, binding = 5) readonly buffer Adj { uvec2 adj[]; };
layout(std430, binding = 6) readonly buffer EdgeForce { vec4 edge_force[]; };
layout(std430, binding = 7) readonly buffer Solids { EddySolid solids[]; };
layout(std430, binding = 8) writeonly buffer Force { vec4 force[]; };
layout(std430, binding = 9) readonly buffer Flags { uint flags[]; };
layout(std430, binding = 10) writeonly buffer HForce { vec4 hforce[]; }; // one vec4 without a handle
layout(std430, binding = 11) readonly buffer External { vec4 ext_force[]; }; // other systems' forces (P.misc.w)
layout(constant_id = 1) const bool HANDLE = false;
#include "deform_contact.glsl"

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= D_COUNT)
        return;
    vec3 f = mass[i] * P.gravity.xyz;
    for (uint k = rows[i]; k < rows[i + 1u]; k++) {
        uvec2 a = adj[k];
        vec4 ef = edge_force[2u * (a.y & 0x7fffffffu)];
        f += (a.y >> 31) != 0u ? -ef.xyz : ef.xyz;
    }
    Sym3 J, C;
    f += contact_force(position[i].xyz, velocity[i].xyz, position[i].w, J, C);
    f -= P.solver.z * mass[i] * velocity[i].xyz; // air drag
    if (P.misc.w != 0u)
        f += ext_force[i].xyz;
    force[i] = vec4(f, 0.0);
    if (HANDLE)
        hforce[i] = (flags[i] & EDDY_DEFORM_HANDLE) != 0u ? vec4(f, 0.0) : vec4(0.0);
}
