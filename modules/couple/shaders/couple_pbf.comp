#version 450
// Coupling, once per PBF solver iteration (sorted boundary order): the pbf
// delta pass moved each fluid particle i by V_b lambda_i grad W_spiky(x_i - x_b)
// for every boundary particle b within h; that is an impulse m_i dx / dt on
// the fluid, so b receives the force -m_i V_b lambda_i grad W / dt^2 (summed
// over the iterations; exact momentum exchange). A gather over the fluid's
// cells two deep: the fluid's cells are those of its predicted positions and
// the iterations move particles (less than a cell), so one ring could miss a
// pair the delta pass found. The C twin is eddy_couple_pbf_cpu.
#extension GL_GOOGLE_include_directive : require
#include "../couple_params.h"
#include "sph_kernels.h"
#include "grid.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Params { eddy_couple_params CP; };
layout(std430, binding = 1) readonly buffer Boundary { vec4 couple_b[]; };
layout(std430, binding = 2) readonly buffer Pos { vec4 sp[]; };
layout(std430, binding = 3) readonly buffer Mass { float smass[]; };
layout(std430, binding = 4) readonly buffer Lambda { vec4 lambda[]; };
layout(std430, binding = 5) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 6) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 7) buffer Force { vec4 force[]; };

void main()
{
    uint b = gl_GlobalInvocationID.x;
    if (b >= CP.counts.x)
        return;
    vec3 xb = couple_b[b].xyz;
    float h = CP.misc.x, dt = CP.misc.y;
    ivec3 dims = CP.dims.xyz;
    ivec3 c = eddy_grid_cell(xb, CP.grid.xyz, CP.grid.w, dims);
    vec3 f = vec3(0.0);
    for (int dz = -2; dz <= 2; dz++)
    for (int dy = -2; dy <= 2; dy++)
    for (int dx = -2; dx <= 2; dx++) {
        ivec3 q = c + ivec3(dx, dy, dz);
        if (any(lessThan(q, ivec3(0))) || any(greaterThanEqual(q, dims)))
            continue;
        uint cell = eddy_grid_linear(q, dims);
        uint s = cell_start[cell];
        if (s == EDDY_GRID_EMPTY)
            continue;
        uint e = cell_end[cell];
        for (uint i = s; i < e; i++) {
            vec3 r = sp[i].xyz - xb;
            float r2 = dot(r, r);
            if (r2 >= h * h)
                continue;
            f += (smass[i] * lambda[i].x) * (eddy_grad_spiky(r2, h) * r);
        }
    }
    force[b].xyz -= couple_b[b].w * f / (dt * dt);
}
