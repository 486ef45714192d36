#version 450
// deform.cg_matvec, one thread per vertex: q = A p with A's diagonal block
// and one off-diagonal block per spring, -O, pinned rows zero; and this
// workgroup's part of p.q. The blocks are in sliced ELLPACK order
// (deform.c: slices of 8 rows padded to the longest, column-major inside
// the slice; deform.springs writes each spring's O at its two entries, the
// padding stays zero): the rows of a slice run the same count and its
// lanes read consecutive entries, in each row's CSR order (the same sums).
#extension GL_GOOGLE_include_directive : require
#include "deform.glsl"
#include "deform_cg.glsl"

layout(local_size_x = 256) in;
layout(std430, binding = 1) readonly buffer Flags { uint flags[]; };
layout(std430, binding = 2) readonly buffer SellStart { uint sell_start[]; }; // per slice of 8 rows
layout(std430, binding = 3) readonly buffer SellCol { uint sell_col[]; };     // per entry: the neighbour
layout(std430, binding = 4) readonly buffer SellBlock { vec4 sell_block[]; }; // per entry: O, 2 vec4
layout(std430, binding = 5) readonly buffer Diag { vec4 diag[]; };
layout(std430, binding = 6) readonly buffer Pdir { vec4 cg_p[]; };
layout(std430, binding = 7) writeonly buffer Q { vec4 cg_q[]; };
layout(std430, binding = 8) writeonly buffer Partials { vec4 partials[]; }; // one per workgroup

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
            uint s = i / 8u, end = sell_start[s + 1u];
            for (uint k = sell_start[s] + i % 8u; k < end; k += 8u) {
                Sym3 O;
                O.d = sell_block[2u * k];
                O.o = sell_block[2u * k + 1u];
                q -= sym_mul(O, cg_p[sell_col[k]].xyz);
            }
        }
        cg_q[i] = vec4(q, 0.0);
        dots = vec4(dot(p, q), 0.0, 0.0, 0.0);
    }
    vec4 s = eddy_workgroup_sum(dots);
    if (gl_LocalInvocationIndex == 0u)
        partials[gl_WorkGroupID.x] = s;
}
