#version 450
// DFSPH, after the constant-density phase (cell order): its pressure, p_i
// = K_i rho_i^2 with K_i the phase's sum of k_i (warm start
// included; sph_dfsph.glsl), in the particles' own order: the set's
// "pressure" buffer (Pa), the next substep's warm start; and, in cell
// order, the pressure of every k applied this substep (both phases),
// sdf.w rho_i^2, from which couple.sph gives a coupled set's particles the
// opposite of the fluid's push (p B_i / rho_i = K rho0 (1 + rho_i^2 /
// rho0^2), the ghost factor of sph.dfsph_apply).
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"

layout(local_size_x = 256) in;
layout(std430, binding = 1) readonly buffer Sdv { vec4 sdv[]; };
layout(std430, binding = 2) readonly buffer Sdf { vec4 sdf[]; };
layout(std430, binding = 3) readonly buffer Index { uint sorted_index[]; };
layout(std430, binding = 4) writeonly buffer Pressure { float pressure[]; };
layout(std430, binding = 5) writeonly buffer Applied { float applied[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= SPH_COUNT)
        return;
    float rho = sdv[i].w;
    pressure[sorted_index[i]] = sdf[i].z * rho * rho;
    applied[i] = sdf[i].w * rho * rho;
}
