// Bindings every SPH pass shares, and the neighbour loop.
#extension GL_GOOGLE_include_directive : require
#include "../sph_params.h"
#include "sph_kernels.h"
#include "eddy_solids.h"
#include "grid.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Params { eddy_sph_params P; };

#define SPH_H (P.box_min.w)
#define SPH_DT (P.box_max.w)
#define SPH_RHO0 (P.gravity.w)
#define SPH_COUNT (P.misc.x)

ivec3 sph_cell(vec3 p)
{
    return eddy_grid_cell(p, P.grid.xyz, P.grid.w, P.dims.xyz);
}

// The box walls stand for fluid at rest beyond them (sph_kernels.h): their
// share of the density, and the direction-weighted factor of their pressure
// push (force density p_i * sph_wall_push(p)).
float sph_wall_density(vec3 p)
{
    float h = SPH_H, w = 0.0;
    for (int a = 0; a < 3; a++)
        w += eddy_wall_poly6(p[a] - P.box_min[a], h) + eddy_wall_poly6(P.box_max[a] - p[a], h);
    return SPH_RHO0 * w;
}

vec3 sph_wall_push(vec3 p)
{
    float h = SPH_H;
    vec3 f = vec3(0.0);
    for (int a = 0; a < 3; a++)
        f[a] = eddy_wall_spiky(p[a] - P.box_min[a], h) - eddy_wall_spiky(P.box_max[a] - p[a], h);
    return f;
}
