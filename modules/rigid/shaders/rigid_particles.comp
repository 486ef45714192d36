#version 450
// Rigid step 1 (particle order; Harada eqs. 18-20): each particle from its
// body: r_i = q r_i0 q*, x_i = X + r_i, v_i = V + W x r_i.
#extension GL_GOOGLE_include_directive : require
#include "rigid_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Bodies { eddy_rigid_body bodies[]; };
layout(std430, binding = 2) readonly buffer Rest { vec4 rest[]; };
layout(std430, binding = 3) readonly buffer Phase { uint body[]; };
layout(std430, binding = 4) buffer Position { vec4 position[]; };
layout(std430, binding = 5) writeonly buffer Velocity { vec4 velocity[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= RIGID_N)
        return;
    eddy_rigid_body b = bodies[body[i]];
    vec3 r = rigid_rotate(b.q, rest[i].xyz);
    position[i] = vec4(b.x.xyz + r, position[i].w);
    velocity[i] = vec4(b.v.xyz + cross(b.w.xyz, r), 0.0);
}
