#version 450
// deform.cg_update, one thread per vertex: dv += alpha p, r -= alpha q,
// z = P^-1 r; this workgroup's parts of r.z and r.r.
#extension GL_GOOGLE_include_directive : require
#include "deform.glsl"
#include "deform_cg.glsl"

layout(local_size_x = 256) in;
layout(std430, binding = 1) readonly buffer Cg { CgState cg; };
layout(std430, binding = 2) readonly buffer Diag { vec4 diag[]; };
layout(std430, binding = 3) readonly buffer Pdir { vec4 cg_p[]; };
layout(std430, binding = 4) readonly buffer Q { vec4 cg_q[]; };
layout(std430, binding = 5) buffer X { vec4 cg_x[]; };
layout(std430, binding = 6) buffer R { vec4 cg_r[]; };
layout(std430, binding = 7) writeonly buffer Z { vec4 cg_z[]; };
layout(std430, binding = 8) writeonly buffer Partials { vec4 partials[]; }; // one per workgroup

void main()
{
    uint i = gl_GlobalInvocationID.x;
    vec4 dots = vec4(0.0);
    if (i < D_COUNT) {
        float alpha = cg.alpha;
        cg_x[i].xyz += alpha * cg_p[i].xyz;
        vec3 r = cg_r[i].xyz - alpha * cg_q[i].xyz;
        Sym3 Pi;
        Pi.d = diag[4u * i + 2u];
        Pi.o = diag[4u * i + 3u];
        vec3 z = sym_mul(Pi, r);
        cg_r[i] = vec4(r, 0.0);
        cg_z[i] = vec4(z, 0.0);
        dots = vec4(dot(r, z), dot(r, r), 0.0, 0.0);
    }
    vec4 s = eddy_workgroup_sum(dots);
    if (gl_LocalInvocationIndex == 0u)
        partials[gl_WorkGroupID.x] = s;
}
