#version 450
// deform.cg_matvec, one thread per vertex: q = A p with A's diagonal block
// and one off-diagonal block per spring, -O (deform.springs; gathered in
// CSR order), pinned rows zero; and this workgroup's part of p.q.
#extension GL_GOOGLE_include_directive : require
#include "deform.glsl"
#include "reduce.glsl"

layout(local_size_x = 256) in;
layout(std430, binding = 1) readonly buffer Flags { uint flags[]; };
layout(std430, binding = 2) readonly buffer Rows { uint rows[]; };
layout(std430, binding = 3) readonly buffer Adj { uvec2 adj[]; };
layout(std430, binding = 4) readonly buffer EdgeBlock { vec4 edge_block[]; };
layout(std430, binding = 5) readonly buffer Diag { vec4 diag[]; };
layout(std430, binding = 6) readonly buffer Pdir { vec4 cg_p[]; };
layout(std430, binding = 7) writeonly buffer Q { vec4 cg_q[]; };
layout(std430, binding = 8) writeonly buffer Partials { vec4 partials[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    vec4 dots = vec4(0.0);
    if (i < D_COUNT) {
        vec3 q = vec3(0.0), p = cg_p[i].xyz;
        if ((flags[i] & EDDY_DEFORM_FREE) != 0u) {
            Sym3 A;
            A.d = diag[4u * i];
            A.o = diag[4u * i + 1u];
            q = sym_mul(A, p);
            for (uint k = rows[i]; k < rows[i + 1u]; k++) {
                uvec2 a = adj[k];
                uint e = a.y & 0x7fffffffu;
                Sym3 O;
                O.d = edge_block[2u * e];
                O.o = edge_block[2u * e + 1u];
                q -= sym_mul(O, cg_p[a.x].xyz);
            }
        }
        cg_q[i] = vec4(q, 0.0);
        dots = vec4(dot(p, q), 0.0, 0.0, 0.0);
    }
    vec4 s = eddy_workgroup_reduce(EDDY_REDUCE_SUM, dots);
    if (gl_LocalInvocationIndex == 0u)
        partials[gl_WorkGroupID.x] = s;
}
