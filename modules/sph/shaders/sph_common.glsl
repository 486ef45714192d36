// Bindings every SPH pass shares, and the neighbour loop.
#extension GL_GOOGLE_include_directive : require
#include "../sph_params.h"
#include "sph_kernels.h"
#include "eddy_solids.h"
#include "grid.glsl"
#include "ghosts.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Params { eddy_sph_params P; };

#define SPH_H (P.box_min.w)
#define SPH_DT (P.box_max.w)
#define SPH_RHO0 (P.gravity.w)
#define SPH_COUNT (P.misc.x)

ivec3 sph_cell(vec3 p)
{
    return eddy_grid_cell(p, P.grid.xyz, P.grid.w, P.dims.xyz);
}

// The box walls stand for fluid at rest beyond them: a lattice of ghost
// particles of the fill spacing continues the fluid's lattice outside the box
// (points min + s (k + 1/2) per axis, outside along at least one axis). A
// particle within h of a wall gets their density and their pressure push
// (ghosts at rest density carry the particle's own pressure), so a lattice at
// rest has the same density at walls, edges and corners as inside.
// Returns sum W_poly6 (x, y, z: sum grad W_spiky) over the ghosts near p.
vec4 sph_ghosts(vec3 p)
{
    return eddy_wall_ghosts(p, SPH_H, uintBitsToFloat(P.misc.w), P.box_min.xyz, P.box_max.xyz);
}

// The moving push field (the paper's splash): a ball of radius R whose centre
// moves at constant velocity pushes particles out of it, with an acceleration
// falling linearly from `strength` at its centre to 0 at its rim.
vec3 sph_push(vec3 p, float t)
{
    float R = P.push.w;
    if (R <= 0.0)
        return vec3(0.0);
    vec3 d = p - (P.push.xyz + t * P.push_velocity.xyz);
    float l = length(d);
    return l < R && l > 0.0 ? P.push_velocity.w * (1.0 - l / R) * d / l : vec3(0.0);
}
