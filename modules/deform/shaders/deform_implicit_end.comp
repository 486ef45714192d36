#version 450
// deform.implicit_end, one thread per vertex: v += dv, x += h v (pinned
// vertices hold still, handle vertices move on by h v), then the box and the solids push x out as the
// fluids' particles are pushed (solids.glsl): the contact forces of the
// step keep the body out, this clamp only catches what they left inside.
#extension GL_GOOGLE_include_directive : require
#include "deform.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) buffer Position { vec4 position[]; };
layout(std430, binding = 2) buffer Velocity { vec4 velocity[]; };
layout(std430, binding = 3) readonly buffer Flags { uint flags[]; };
layout(std430, binding = 4) readonly buffer X { vec4 cg_x[]; };
layout(std430, binding = 5) readonly buffer Solids { EddySolid solids[]; };
layout(std430, binding = 6) writeonly buffer Clamped { uint clamped[]; };
#include "solids.glsl"

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= D_COUNT)
        return;
    if ((flags[i] & EDDY_DEFORM_HANDLE) != 0u) {
        position[i].xyz += D_H * velocity[i].xyz;
        return;
    }
    if ((flags[i] & EDDY_DEFORM_FREE) == 0u) {
        velocity[i] = vec4(0.0);
        return;
    }
    vec4 p = position[i];
    vec3 v = velocity[i].xyz + cg_x[i].xyz;
    vec3 x = p.xyz + D_H * v;
    if (eddy_past_box(x, P.box_min.xyz, P.box_max.xyz))
        clamped[i] = 1u;
    eddy_collide(x, v, p.w, P.solver.y, P.box_min.xyz, P.box_max.xyz, P.counts.z);
    position[i] = vec4(x, p.w);
    velocity[i] = vec4(v, 0.0);
}
