#version 450
// Surface pass 1: the fluid indicator c(x) = sum_j m_j / rho0 W_poly6(x - x_j)
// (the colour field with the rest volume m_j / rho0 for every particle: with
// m_j / rho_j, the thin surface particles would swell the field there and push
// the surface out; with rho0, c = 1/2 on a flat boundary)
// at every vertex of the surface grid (particles in cell order).
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Pos { vec4 spos[]; };
layout(std430, binding = 2) readonly buffer Mass { float smass[]; };
layout(std430, binding = 3) readonly buffer Density { float sdensity[]; };
layout(std430, binding = 4) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 5) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 6) writeonly buffer Field { float field[]; };
layout(push_constant) uniform V {
    vec4 origin_cell; // xyz first vertex (m), w vertex spacing (m)
    ivec4 dims;       // vertices along x, y, z
    float iso;
} pv;

void main()
{
    uint v = gl_GlobalInvocationID.x;
    uint nv = uint(pv.dims.x * pv.dims.y * pv.dims.z);
    if (v >= nv)
        return;
    uint ix = v % uint(pv.dims.x), iy = (v / uint(pv.dims.x)) % uint(pv.dims.y), iz = v / uint(pv.dims.x * pv.dims.y);
    vec3 x = pv.origin_cell.xyz + pv.origin_cell.w * vec3(ix, iy, iz);
    float h = SPH_H, c = 0.0;
    ivec3 cc = sph_cell(x);
    for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
        ivec3 q = cc + ivec3(dx, dy, dz);
        if (any(lessThan(q, ivec3(0))) || any(greaterThanEqual(q, P.dims.xyz)))
            continue;
        uint cell = eddy_grid_linear(q, P.dims.xyz);
        uint s = cell_start[cell];
        if (s == EDDY_GRID_EMPTY)
            continue;
        for (uint j = s; j < cell_end[cell]; j++) {
            vec3 d = x - spos[j].xyz;
            c += smass[j] / SPH_RHO0 * eddy_w_poly6(dot(d, d), h);
        }
    }
    field[v] = c;
}
