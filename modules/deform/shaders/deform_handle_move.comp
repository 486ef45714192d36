#version 450
// deform.handle_move, one thread per vertex, before the springs: a handle
// vertex goes to its offset from the handle's centre at the substep's start
// and takes the handle's velocity (the solve holds it: its row is filtered
// out like a pin's; the step's end moves it on by h v).
#extension GL_GOOGLE_include_directive : require
#include "deform.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Handle { eddy_deform_handle T; };
layout(std430, binding = 2) readonly buffer Flags { uint flags[]; };
layout(std430, binding = 3) readonly buffer Offset { vec4 offset[]; }; // from the centre at the start (m)
layout(std430, binding = 4) buffer Position { vec4 position[]; };
layout(std430, binding = 5) buffer Velocity { vec4 velocity[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= D_COUNT || (flags[i] & EDDY_DEFORM_HANDLE) == 0u)
        return;
    position[i] = vec4(T.start.xyz + offset[i].xyz, position[i].w);
    velocity[i] = vec4(T.velocity.xyz, 0.0);
}
