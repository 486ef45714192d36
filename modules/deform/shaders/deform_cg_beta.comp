#version 450
// deform.cg_beta, one workgroup: one more iteration done; the relative
// residual |r| / |b| against the tolerance (converged: the dispatch
// arguments go to zero), else beta = r.z (new) / r.z (old).
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
    uint it = cg.iterations + 1u;
    cg.iterations = it;
    cg.rr = s.y;
    cg.residual = sqrt(s.y / cg.bb);
    float tol = P.solver.x;
    if (s.y <= tol * tol * cg.bb) {
        cg.status = CG_CONVERGED;
        args[0] = 0u;
        args[3] = 0u;
        CG_ENDED(cg, false, false, it, cg.residual)
        return;
    }
    if (it >= P.misc.x) {
        cg.status = CG_MAX_ITERATIONS;
        CG_ENDED(cg, true, false, it, cg.residual)
    }
    cg.beta = cg.rz > 0.0 ? s.x / cg.rz : 0.0;
    cg.rz = s.x;
}
