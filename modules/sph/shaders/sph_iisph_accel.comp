#version 450
// IISPH (cell order, 256-thread groups): each particle's pressure
// acceleration from the current pressures (sph_iisph.glsl). Indirect in the
// iterations, writing `acc`; FINAL (after them, always dispatched): added
// to the non-pressure acceleration the leap-frog reads, and the pressure
// written in the particles' own order (the set's "pressure" buffer, also
// the next substep's start).
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"
#include "sph_iisph.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 1) const bool FINAL = false;
layout(std430, binding = 1) readonly buffer PosMass { vec4 spm[]; }; // xyz position, w mass
layout(std430, binding = 2) readonly buffer VelRho { vec4 svr[]; };  // xyz velocity, w density
layout(std430, binding = 3) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 4) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 5) readonly buffer SPressure { float spress[]; };
layout(std430, binding = 6) buffer Acc { vec4 acc[]; };
layout(std430, binding = 7) readonly buffer Index { uint sorted_index[]; };
layout(std430, binding = 8) writeonly buffer Pressure { float pressure[]; }; // FINAL only

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= SPH_COUNT)
        return;
    vec3 x = spm[i].xyz, f = vec3(0.0);
    float rho_i = svr[i].w, p_i = spress[i];
    SPH_IISPH_ACCEL_LOOP
    vec3 a = f / rho_i;
    if (FINAL) {
        acc[i].xyz += a;
        pressure[sorted_index[i]] = p_i;
    } else {
        acc[i] = vec4(a, 0.0);
    }
}
