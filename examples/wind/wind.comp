#version 450
// wind: every particle's velocity relaxes towards the wind velocity w with
// time constant tau, dv/dt = (w - v) / tau, integrated exactly over the
// substep dt:  v <- w + (v - w) exp(-dt / tau)  (the host computes the decay
// factor exp(-dt / tau) in double precision). CPU reference: wind_step_cpu
// in wind.c.
#extension GL_GOOGLE_include_directive : require
// Installed with eddy beside its headers (pkg-config: glsl_includedir):
// the standard particle buffers' layouts.
#include "particles.glsl"

layout(local_size_x_id = 0) in;
EDDY_VELOCITY_BUFFER(0)

layout(push_constant) uniform Params {
    vec4 wind_decay; // xyz wind velocity (m/s), w exp(-dt / tau) (1)
    uint count;      // particles
} pc;

void main()
{
    EDDY_PARTICLE_INDEX(pc.count)
    vec3 w = pc.wind_decay.xyz;
    vec3 v = velocity[i].xyz;
    velocity[i] = vec4(w + (v - w) * pc.wind_decay.w, 0.0);
}
