#version 450
// Ballistic particles: symplectic Euler under gravity, with restitution
// against the walls of the scene's box. CPU reference: eddy_ballistic_step_cpu (ballistic.c),
// compared in tests/physics/test_ballistic.c.
#extension GL_GOOGLE_include_directive : require
#include "particles.glsl"

layout(local_size_x_id = 0) in;
EDDY_POSITION_BUFFER(0)
EDDY_VELOCITY_BUFFER(1)
layout(std430, binding = 2) writeonly buffer Clamped { uint clamped[]; }; // "clamped" (eddy.h)

layout(push_constant) uniform Params {
    vec4 gravity_dt;   // xyz gravity (m/s^2), w substep (s)
    vec4 box_min_e;    // xyz box minimum (m), w restitution
    vec4 box_max;      // xyz box maximum (m)
    uint count;        // particles
} pc;

void main()
{
    EDDY_PARTICLE_INDEX(pc.count)
    float dt = pc.gravity_dt.w;
    float e = pc.box_min_e.w;
    vec4 p = position[i];
    vec3 v = velocity[i].xyz + pc.gravity_dt.xyz * dt;
    vec3 x = p.xyz + v * dt;
    vec3 lo = pc.box_min_e.xyz + p.w;
    vec3 hi = pc.box_max.xyz - p.w;
    // A centre past a wall plane (not just the radius): the step was too
    // long for the speed; the mirror below puts it back, and it is counted.
    if (any(lessThan(x, pc.box_min_e.xyz)) || any(greaterThan(x, pc.box_max.xyz)))
        clamped[i] = 1u;
    for (int a = 0; a < 3; a++) {
        // Mirror the penetration, scaled by e, so the bounce loses energy as e^2.
        if (x[a] < lo[a]) {
            x[a] = lo[a] + e * (lo[a] - x[a]);
            v[a] = v[a] < 0.0 ? -e * v[a] : v[a];
        } else if (x[a] > hi[a]) {
            x[a] = hi[a] - e * (x[a] - hi[a]);
            v[a] = v[a] > 0.0 ? -e * v[a] : v[a];
        }
        x[a] = clamp(x[a], min(lo[a], hi[a]), max(lo[a], hi[a]));
    }
    position[i] = vec4(x, p.w);
    velocity[i] = vec4(v, 0.0);
}
