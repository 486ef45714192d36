// Shared by the PBF passes: parameters, kernels and the wall ghosts.
#extension GL_GOOGLE_include_directive : require
#include "../pbf_params.h"
#include "sph_kernels.h"
#include "eddy_solids.h"
#include "grid.glsl"
#include "ghosts.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Params { eddy_pbf_params P; };

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
