#version 450
// SPH pass 1 (particles in cell order): rho_i = sum_j m_j W_poly6(x_i - x_j),
// j = i included (Müller et al. 2003, eq. 3), plus the walls' share.
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Pos { vec4 spos[]; };
layout(std430, binding = 2) readonly buffer Mass { float smass[]; };
layout(std430, binding = 3) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 4) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 5) writeonly buffer Density { float sdensity[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= SPH_COUNT)
        return;
    vec3 p = spos[i].xyz;
    ivec3 c = sph_cell(p);
    float h = SPH_H, rho = 0.0;
    for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
        ivec3 q = c + ivec3(dx, dy, dz);
        if (any(lessThan(q, ivec3(0))) || any(greaterThanEqual(q, P.dims.xyz)))
            continue;
        uint cell = eddy_grid_linear(q, P.dims.xyz);
        uint s = cell_start[cell];
        if (s == EDDY_GRID_EMPTY)
            continue;
        for (uint j = s; j < cell_end[cell]; j++) {
            vec3 d = p - spos[j].xyz;
            rho += smass[j] * eddy_w_poly6(dot(d, d), h);
        }
    }
    sdensity[i] = rho + sph_wall_density(p);
}
