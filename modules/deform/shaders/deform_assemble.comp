#version 450
// deform.assemble (implicit Euler), one thread per vertex: gathers the
// forces of its springs (fixed CSR order: no atomics, the same sums every
// run), gravity and contacts, the diagonal block of
//   A = M - h df/dv - h^2 df/dx,   A dv = b = h (f + h df/dx v)
// (PHYSICS.md, multiplied through by M so A is symmetric), and starts the
// conjugate gradients at dv = 0 (a fill pass zeroes dv): r = b, z = P^-1 r, p = z, with this
// workgroup's part of r.z and b.b. Pinned rows are filtered out (b = 0).
#extension GL_GOOGLE_include_directive : require
#include "deform.glsl"
#include "deform_cg.glsl"

layout(local_size_x = 256) in;
layout(std430, binding = 1) readonly buffer Position { vec4 position[]; };
layout(std430, binding = 2) readonly buffer Velocity { vec4 velocity[]; };
layout(std430, binding = 3) readonly buffer Mass { float mass[]; };
layout(std430, binding = 4) readonly buffer Flags { uint flags[]; };
layout(std430, binding = 5) readonly buffer Rows { uint rows[]; };
layout(std430, binding = 6) readonly buffer Adj { uvec2 adj[]; }; // neighbour, edge | 1<<31 when second
layout(std430, binding = 7) readonly buffer EdgeForce { vec4 edge_force[]; };
layout(std430, binding = 8) readonly buffer EdgeBlock { vec4 edge_block[]; };
layout(std430, binding = 9) readonly buffer Solids { EddySolid solids[]; };
layout(std430, binding = 10) writeonly buffer Diag { vec4 diag[]; };   // A_ii, then P^-1: 4 vec4
layout(std430, binding = 11) writeonly buffer R { vec4 cg_r[]; };
layout(std430, binding = 12) writeonly buffer Z { vec4 cg_z[]; };
layout(std430, binding = 13) writeonly buffer Pdir { vec4 cg_p[]; };
layout(std430, binding = 14) writeonly buffer Partials { vec4 partials[]; }; // one per workgroup
layout(std430, binding = 15) readonly buffer External { vec4 ext_force[]; }; // other systems' forces (P.misc.w)

#include "deform_contact.glsl"

void main()
{
    uint i = gl_GlobalInvocationID.x;
    vec4 dots = vec4(0.0);
    if (i < D_COUNT) {
        float h = D_H, m = mass[i];
        vec3 x = position[i].xyz, v = velocity[i].xyz;
        vec3 f = m * P.gravity.xyz, kv = vec3(0.0);
        Sym3 o;
        o.d = vec4(0.0);
        o.o = vec4(0.0);
        for (uint k = rows[i]; k < rows[i + 1u]; k++) {
            uint e = adj[k].y;
            bool second = (e >> 31) != 0u;
            e &= 0x7fffffffu;
            vec4 ef = edge_force[2u * e], ek = edge_force[2u * e + 1u];
            f += second ? -ef.xyz : ef.xyz;
            kv += second ? -ek.xyz : ek.xyz;
            o.d += edge_block[2u * e];
            o.o += edge_block[2u * e + 1u];
        }
        Sym3 J, C;
        f += contact_force(x, v, position[i].w, J, C);
        // Air drag: -drag m v, its -df/dv = drag m I.
        f -= P.solver.z * m * v;
        C.d.xyz += vec3(P.solver.z * m);
        // Other systems' forces (a fluid's pressure, contacts with rigid
        // sets): held over the step, no Jacobian.
        if (P.misc.w != 0u)
            f += ext_force[i].xyz;
        kv -= sym_mul(J, v);
        Sym3 A;
        A.d = m + o.d + h * C.d + h * h * J.d;
        A.o = o.o + h * C.o + h * h * J.o;
        A.d.w = 0.0;
        A.o.w = 0.0;
        bool free_ = (flags[i] & EDDY_DEFORM_FREE) != 0u;
        vec3 b = free_ ? h * (f + h * kv) : vec3(0.0);
        Sym3 Pi;
        if ((P.misc.y & EDDY_DEFORM_JACOBI) != 0u) {
            Pi = sym_inverse(A);
        } else {
            Pi.d = vec4(1.0, 1.0, 1.0, 0.0);
            Pi.o = vec4(0.0);
        }
        vec3 z = sym_mul(Pi, b);
        diag[4u * i] = A.d;
        diag[4u * i + 1u] = A.o;
        diag[4u * i + 2u] = Pi.d;
        diag[4u * i + 3u] = Pi.o;
        cg_r[i] = vec4(b, 0.0);
        cg_z[i] = vec4(z, 0.0);
        cg_p[i] = vec4(z, 0.0);
        dots = vec4(dot(b, z), dot(b, b), 0.0, 0.0);
    }
    vec4 s = eddy_workgroup_sum(dots);
    if (gl_LocalInvocationIndex == 0u)
        partials[gl_WorkGroupID.x] = s;
}
