#version 450
// deform.cg_alpha, one workgroup: alpha = r.z / p.Ap. A step where p.Ap is
// not positive (an indefinite matrix: see the definite parameter) stops
// the solve there with status breakdown.
#extension GL_GOOGLE_include_directive : require
#include "deform.glsl"
#include "deform_cg.glsl"

layout(local_size_x = 256) in;
layout(std430, binding = 1) readonly buffer Partials { vec4 partials[]; };
layout(std430, binding = 2) buffer Cg { CgState cg; };
layout(std430, binding = 3) writeonly buffer Args { uint args[]; };
EDDY_SUM_PARTIALS

void main()
{
    vec4 s = sum_partials(P.misc.z);
    if (gl_LocalInvocationIndex != 0u)
        return;
    if (!(s.x > 0.0)) {
        cg.alpha = 0.0;
        cg.status = CG_BREAKDOWN;
        CG_ENDED(cg, false, true, cg.iterations, cg.residual)
        args[0] = 0u;
        args[3] = 0u;
        return;
    }
    cg.alpha = cg.rz / s.x;
}
