#version 450
// Granular mode (§29.3.1; particle order): the contact force moves each
// particle directly: v += (F / m + g) dt, x += v dt.
#extension GL_GOOGLE_include_directive : require
#include "rigid_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Force { vec4 force[]; };
layout(std430, binding = 2) readonly buffer Mass { float mass[]; };
layout(std430, binding = 3) buffer Position { vec4 position[]; };
layout(std430, binding = 4) buffer Velocity { vec4 velocity[]; };
layout(std430, binding = 5) writeonly buffer Clamped { uint clamped[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= RIGID_N)
        return;
    float dt = RIGID_DT;
    vec3 v = velocity[i].xyz + (force[i].xyz / mass[i] + P.gravity.xyz) * dt;
    vec3 x = position[i].xyz + v * dt;
    // The box as a hard limit (see rigid_box_limit in rigid.integrate): a
    // grain the wall springs let through is put back on the plane.
    for (int a = 0; a < 3; a++) {
        if (x[a] < P.box_min[a]) {
            x[a] = P.box_min[a];
            v[a] = max(v[a], 0.0);
            clamped[i] = 1u;
        } else if (x[a] > P.box_max[a]) {
            x[a] = P.box_max[a];
            v[a] = min(v[a], 0.0);
            clamped[i] = 1u;
        }
    }
    position[i].xyz = x;
    velocity[i] = vec4(v, 0.0);
}
