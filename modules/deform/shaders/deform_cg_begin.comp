#version 450
// deform.cg_begin, one workgroup: r.z and b.b at the start (dv = 0), the
// iteration count reset, and the dispatch arguments of the iterations:
// none when b = 0 (nothing moves this step).
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
    bool done = !(s.y > 0.0);
    cg.rz = s.x;
    cg.bb = s.y;
    cg.alpha = 0.0;
    cg.beta = 0.0;
    cg.rr = s.y;
    cg.iterations = 0u;
    cg.status = done ? CG_CONVERGED : CG_RUNNING;
    cg.residual = done ? 0.0 : 1.0;
    if (done)
        CG_ENDED(cg, false, false, 0u, 0.0)
    uint g = done ? 0u : P.misc.z, one = done ? 0u : 1u;
    args[0] = g;
    args[1] = 1u;
    args[2] = 1u;
    args[3] = one;
    args[4] = 1u;
    args[5] = 1u;
}
