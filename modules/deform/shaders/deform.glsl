// Shared by the deform module's shaders: the parameter block (binding 0 in
// every pass), symmetric 3x3 blocks and the spring and contact terms of
// PHYSICS.md's deformable section. The C reference is deform_cpu.c.
#ifndef DEFORM_GLSL
#define DEFORM_GLSL
#include "../deform_params.h"
#include "eddy_solids.h"

layout(std430, binding = 0) readonly buffer Params { eddy_deform_params P; };

#define D_COUNT (P.counts.x)
#define D_EDGES (P.counts.y)
#define D_H (P.gravity.w)

// A symmetric 3x3 block as two vec4: d = (xx, yy, zz, -), o = (xy, xz, yz, -).
struct Sym3 {
    vec4 d;
    vec4 o;
};

vec3 sym_mul(Sym3 a, vec3 v)
{
    return vec3(a.d.x * v.x + a.o.x * v.y + a.o.y * v.z,
                a.o.x * v.x + a.d.y * v.y + a.o.z * v.z,
                a.o.y * v.x + a.o.z * v.y + a.d.z * v.z);
}

// s n n^T + c I
Sym3 sym_outer(vec3 n, float s, float c)
{
    Sym3 r;
    r.d = vec4(s * n.x * n.x + c, s * n.y * n.y + c, s * n.z * n.z + c, 0.0);
    r.o = vec4(s * n.x * n.y, s * n.x * n.z, s * n.y * n.z, 0.0);
    return r;
}

// The inverse of a symmetric positive definite block (adjugate / det);
// the identity's inverse where the determinant vanishes.
Sym3 sym_inverse(Sym3 a)
{
    float xx = a.d.x, yy = a.d.y, zz = a.d.z, xy = a.o.x, xz = a.o.y, yz = a.o.z;
    float c00 = yy * zz - yz * yz, c01 = xz * yz - xy * zz, c02 = xy * yz - xz * yy;
    float det = xx * c00 + xy * c01 + xz * c02;
    Sym3 r;
    if (!(abs(det) > 0.0)) {
        r.d = vec4(1.0, 1.0, 1.0, 0.0);
        r.o = vec4(0.0);
        return r;
    }
    float inv = 1.0 / det;
    r.d = vec4(c00, xx * zz - xz * xz, xx * yy - xy * xy, 0.0) * inv;
    r.o = vec4(c01, c02, xy * xz - xx * yz, 0.0) * inv;
    return r;
}

// The spring between x_i and x_j (rest length L, stiffness ks): the force
// on i, ks (l - L) n with n = (x_j - x_i) / l, and the block
// K = df_i/dx_j = ks [n n^T + (1 - L/l)(I - n n^T)] (df_i/dx_i = -K).
// DEFINITE clamps 1 - L/l at 0: a compressed spring then adds no negative
// stiffness across it, which keeps the implicit system positive definite.
vec3 spring(vec3 xi, vec3 xj, float L, float ks, bool definite, out Sym3 K, out float len)
{
    vec3 d = xj - xi;
    len = length(d);
    if (!(len > 0.0)) {
        K = sym_outer(vec3(0.0), 0.0, ks);
        return vec3(0.0);
    }
    vec3 n = d / len;
    float c = 1.0 - L / len;
    if (definite)
        c = max(c, 0.0);
    K = sym_outer(n, ks * (1.0 - c), ks * c);
    return ks * (len - L) * n;
}

#endif
