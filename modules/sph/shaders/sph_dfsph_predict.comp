#version 450
// DFSPH, after sph.forces (cell order): the velocities the other forces
// and the wall ghosts' hydrostatic push predict, v* = v + dt (a - s^3
// lever) (sph_dfsph.glsl), the constant-density phase's start, and its
// warm start from the last substep's pressure (K_i = p_i / rho_i^2 times
// eddy_dfsph_warm): the phase's sum so far (sdf.z) and the k that
// sph.dfsph_apply applies first (sdf.y). Thread 0 starts the phase (state
// and dispatch arguments).
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"
#include "sph_dfsph.glsl"

layout(local_size_x = 256) in;
layout(std430, binding = 1) readonly buffer Accel { vec4 saccel[]; };
layout(std430, binding = 2) buffer Sdv { vec4 sdv[]; };
layout(std430, binding = 3) writeonly buffer State { eddy_sph_iisph_state st; };
layout(std430, binding = 4) writeonly buffer Args { uint args[]; };
layout(std430, binding = 5) readonly buffer SPressure { float spress[]; };
layout(std430, binding = 6) buffer Sdf { vec4 sdf[]; };
layout(std430, binding = 7) readonly buffer Ghost { vec4 sghost[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i == 0u) {
        args[0] = (SPH_COUNT + 255u) / 256u;
        args[1] = 1u;
        args[2] = 1u;
        args[3] = 1u;
        args[4] = 1u;
        args[5] = 1u;
        st.s = uvec4(0u);
        st.g.y = 0u;
    }
    if (i >= SPH_COUNT)
        return;
    vec4 vr = sdv[i];
    float s = uintBitsToFloat(P.misc.w);
    sdv[i].xyz = vr.xyz + SPH_DT * (saccel[i].xyz - (s * s * s) * sghost[SPH_DFSPH_LEVER(i)].xyz);
    float k = vr.w > 0.0 ? spress[i] / (vr.w * vr.w) : 0.0;
    float w = eddy_dfsph_warm(vr.w, SPH_RHO0) * k;
    sdf[i].yz = vec2(w, w);
}
