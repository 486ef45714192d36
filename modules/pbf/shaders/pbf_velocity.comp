#version 450
// PBF: v = (x* - x) / dt (cell order), and the largest compression the
// iterations left, max(rho / rho0 - 1, 0) with the last pbf.lambda's rho,
// into `worst` since stats last zeroed it (float bits: non-negative floats
// order as their bits; one atomic a workgroup, the same maximum in any
// order).
#extension GL_GOOGLE_include_directive : require
#include "pbf_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Pos { vec4 sp[]; };
layout(std430, binding = 2) readonly buffer Old { vec4 sold[]; };
layout(std430, binding = 3) writeonly buffer Vel { vec4 sv[]; };
layout(std430, binding = 4) readonly buffer Lambda { vec4 lambda[]; }; // z: rho
layout(std430, binding = 5) buffer Worst { uint worst[]; };

shared uint s_worst;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (gl_LocalInvocationIndex == 0u)
        s_worst = 0u;
    barrier();
    if (i < PBF_COUNT) {
        sv[i] = vec4((sp[i].xyz - sold[i].xyz) / PBF_DT, 0.0);
        atomicMax(s_worst, floatBitsToUint(max(lambda[i].z / PBF_RHO0 - 1.0, 0.0)));
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u && s_worst != 0u)
        atomicMax(worst[0], s_worst);
}
