// Penalty contact of a vertex (radius r) with the scene's box walls and
// static solids, for the deform module: where the vertex is closer than r to
// a surface (normal n, depth d = r - distance) it feels kc d n - cd (v.n) n.
// At exactly r (where the position clamp puts a vertex it caught) the
// contact is on with no force: its stiffness in the implicit step holds a
// resting vertex off the wall instead of letting it fall through to the
// clamp again every step.
// The caller declares `solids` (EddySolid[]) before including this.
// Returns the force; J gets the contact's -df/dx (kc n n^T) and C its
// -df/dv (cd n n^T), summed over contacts, for the implicit matrix.
#ifndef DEFORM_CONTACT_GLSL
#define DEFORM_CONTACT_GLSL
#include "solids.glsl"

void contact_add(vec3 n, float depth, vec3 v, inout vec3 f, inout Sym3 J, inout Sym3 C)
{
    float kc = P.box_min.w, cd = P.box_max.w;
    f += (kc * depth - cd * dot(v, n)) * n;
    Sym3 a = sym_outer(n, kc, 0.0), b = sym_outer(n, cd, 0.0);
    J.d += a.d;
    J.o += a.o;
    C.d += b.d;
    C.o += b.o;
}

vec3 contact_force(vec3 x, vec3 v, float r, out Sym3 J, out Sym3 C)
{
    vec3 f = vec3(0.0);
    J.d = vec4(0.0);
    J.o = vec4(0.0);
    C = J;
    for (uint k = 0u; k < P.counts.z; k++) {
        float d = eddy_solid_sdf(solids[k], x);
        if (d > r)
            continue;
        vec3 n = eddy_solid_normal(solids[k], x, r);
        if (n != vec3(0.0))
            contact_add(n, r - d, v, f, J, C);
    }
    for (int a = 0; a < 3; a++) {
        vec3 n = vec3(0.0);
        n[a] = 1.0;
        float lo = x[a] - P.box_min[a], hi = P.box_max[a] - x[a];
        if (lo <= r)
            contact_add(n, r - lo, v, f, J, C);
        if (hi <= r)
            contact_add(-n, r - hi, v, f, J, C);
    }
    return f;
}

#endif
