// Shared by the PBF passes: parameters, kernels and the wall ghosts.
#extension GL_GOOGLE_include_directive : require
#include "../pbf_params.h"
#include "sph_kernels.h"
#include "eddy_solids.h"
#include "grid.glsl"
#include "ghosts.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Params { eddy_pbf_params P; };

// Neighbour loops start from the cell a particle was sorted into (sbin: its
// predicted position), not from where the iterations have moved it: then i
// finds j exactly when j finds i, every pair term acts on both, and momentum
// is conserved (from the current cell, a particle one cell over from its bin
// saw neighbours that did not see it: 1e-3 of a body's momentum in
// tests/physics/test_couple.c).
#define PBF_H (P.box_min.w)
#define PBF_DT (P.box_max.w)
#define PBF_RHO0 (P.gravity.w)
#define PBF_COUNT (P.misc.x)
#define PBF_WALL_S (P.options.z)

// Wall ghosts (shaders/ghosts.glsl); each ghost has mass rho0 s^3.
vec4 pbf_ghosts(vec3 p)
{
    return eddy_wall_ghosts(p, PBF_H, PBF_WALL_S, P.box_min.xyz, P.box_max.xyz);
}

#define PBF_TOOL_R (P.tool.x)

// Tool ghosts: the lattice c + s k (spacing s = the wall spacing) inside the
// tool, |s k| <= R - s/2, fixed fluid at rest like the wall ghosts, moving
// with the tool. Returns sum grad W_spiky (xyz) and sum W_poly6 (w) over
// those within h of p. The C twin is eddy_sphere_ghosts_cpu (modules/common/ghosts.h).
vec4 pbf_tool_ghosts(vec3 p, vec3 c)
{
    float h = PBF_H, s = PBF_WALL_S, R = PBF_TOOL_R, Ri = R - 0.5 * s;
    vec3 d = p - c;
    if (R <= 0.0 || Ri <= 0.0 || dot(d, d) >= (Ri + h) * (Ri + h))
        return vec4(0.0);
    ivec3 k0 = ivec3(floor((d - h) / s)), k1 = ivec3(ceil((d + h) / s));
    float w = 0.0;
    vec3 g = vec3(0.0);
    for (int kz = k0.z; kz <= k1.z; kz++)
    for (int ky = k0.y; ky <= k1.y; ky++)
    for (int kx = k0.x; kx <= k1.x; kx++) {
        vec3 q = s * vec3(kx, ky, kz);
        if (dot(q, q) > Ri * Ri)
            continue;
        vec3 r = d - q;
        float r2 = dot(r, r);
        if (r2 >= h * h)
            continue;
        w += eddy_w_poly6(r2, h);
        g += eddy_grad_spiky(r2, h) * r;
    }
    return vec4(g, w);
}
