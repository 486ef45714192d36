// Shared by the PBF passes: parameters, kernels and the wall ghosts.
#extension GL_GOOGLE_include_directive : require
#include "../pbf_params.h"
#include "sph_kernels.h"
#include "eddy_solids.h"
#include "grid.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Params { eddy_pbf_params P; };

#define PBF_H (P.box_min.w)
#define PBF_DT (P.box_max.w)
#define PBF_RHO0 (P.gravity.w)
#define PBF_COUNT (P.misc.x)
#define PBF_WALL_S (P.options.z)

// Wall ghosts (as in the SPH module): a lattice of the fill spacing continues
// the fluid behind the box walls. Returns sum grad W_spiky (xyz) and sum
// W_poly6 (w) over the ghosts near p; each ghost has mass rho0 s^3.
vec4 pbf_ghosts(vec3 p)
{
    float h = PBF_H, s = PBF_WALL_S;
    vec3 lo = P.box_min.xyz, hi = P.box_max.xyz;
    if (all(greaterThanEqual(p - lo, vec3(h))) && all(greaterThanEqual(hi - p, vec3(h))))
        return vec4(0.0);
    ivec3 k0 = ivec3(floor((p - h - lo) / s - 0.5)), k1 = ivec3(ceil((p + h - lo) / s - 0.5));
    float w = 0.0;
    vec3 g = vec3(0.0);
    for (int kz = k0.z; kz <= k1.z; kz++)
    for (int ky = k0.y; ky <= k1.y; ky++)
    for (int kx = k0.x; kx <= k1.x; kx++) {
        vec3 q = lo + s * (vec3(kx, ky, kz) + 0.5);
        if (all(greaterThan(q, lo)) && all(lessThan(q, hi)))
            continue;
        vec3 r = p - q;
        float r2 = dot(r, r);
        if (r2 >= h * h)
            continue;
        w += eddy_w_poly6(r2, h);
        g += eddy_grad_spiky(r2, h) * r;
    }
    return vec4(g, w);
}
