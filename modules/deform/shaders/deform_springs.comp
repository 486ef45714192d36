#version 450
// deform.springs, one thread per spring: its force on its first vertex
// (the second gets the opposite) with its damping, its strain |l/L - 1|,
// K_ij (v_j - v_i) for the implicit right-hand side, and the spring's
// off-diagonal block of the implicit matrix, O = h D + h^2 K_ij
// (A_ij = -O, and O adds to both diagonal blocks): D = kd n n^T for the
// damping along the spring (the default: it damps stretching only, so a
// spinning body keeps its angular momentum), kd I for the paper's
// -kd (v_i - v_j), which also damps rigid rotation.
#extension GL_GOOGLE_include_directive : require
#include "deform.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Position { vec4 position[]; };
layout(std430, binding = 2) readonly buffer Velocity { vec4 velocity[]; };
layout(std430, binding = 3) readonly buffer Edges { uvec2 edges[]; };
layout(std430, binding = 4) readonly buffer EdgeParam { vec4 edge_param[]; }; // L, ks, kd, -
layout(std430, binding = 5) writeonly buffer EdgeForce { vec4 edge_force[]; }; // 2 per spring:
    // force on i (xyz), strain (w); K_ij (v_j - v_i)
layout(std430, binding = 6) writeonly buffer EdgeBlock { vec4 edge_block[]; }; // O: 2 vec4
// O again at the spring's two entries of the sliced ELLPACK order
// deform.cg_matvec reads (deform.c).
layout(std430, binding = 7) readonly buffer EdgeSlots { uvec2 edge_slots[]; };
layout(std430, binding = 8) writeonly buffer AdjBlock { vec4 adj_block[]; };

void main()
{
    uint k = gl_GlobalInvocationID.x;
    if (k >= D_EDGES)
        return;
    uvec2 e = edges[k];
    vec4 pr = edge_param[k];
    Sym3 K;
    float len;
    vec3 xi = position[e.x].xyz, xj = position[e.y].xyz, dv = velocity[e.y].xyz - velocity[e.x].xyz;
    vec3 f = spring(xi, xj, pr.x, pr.y, (P.misc.y & EDDY_DEFORM_DEFINITE) != 0u, K, len);
    float h = D_H;
    Sym3 O;
    if ((P.misc.y & EDDY_DEFORM_ISOTROPIC) != 0u) {
        f += pr.z * dv;
        O = sym_outer(vec3(0.0), 0.0, h * pr.z);
    } else {
        vec3 n = len > 0.0 ? (xj - xi) / len : vec3(0.0);
        f += pr.z * dot(dv, n) * n;
        O = sym_outer(n, h * pr.z, 0.0);
    }
    O.d += h * h * K.d;
    O.o += h * h * K.o;
    edge_force[2u * k] = vec4(f, abs(len / pr.x - 1.0));
    edge_force[2u * k + 1u] = vec4(sym_mul(K, dv), 0.0);
    edge_block[2u * k] = O.d;
    edge_block[2u * k + 1u] = O.o;
    uvec2 s = edge_slots[k];
    adj_block[2u * s.x] = O.d;
    adj_block[2u * s.x + 1u] = O.o;
    adj_block[2u * s.y] = O.d;
    adj_block[2u * s.y + 1u] = O.o;
}
