#version 450
// Coupling with sheets, after couple.sheet (one thread a boundary particle,
// sorted boundary order): the opposite of the impulses couple.sheet gave
// the fluid, -m dx / dt^2 over the substep, shared among the contact
// triangle's vertices by the particle's barycentric weights, added to the
// force couple.pbf gathered (exact momentum exchange, pair by pair). A
// gather over the fluid's cells within reach (the cells of the fluid's
// predicted positions; the iterations moved particles up to a cell), in a
// fixed order. C twin: eddy_couple_sheet_cpu (couple.h).
#extension GL_GOOGLE_include_directive : require
#include "../couple_params.h"
#include "grid.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Params { eddy_couple_params CP; };
layout(std430, binding = 1) readonly buffer Boundary { vec4 couple_b[]; }; // sorted
layout(std430, binding = 2) readonly buffer Index { uint bindex[]; };      // sorted -> combined
layout(std430, binding = 3) readonly buffer Start { uint cell_start[]; };  // the fluid's
layout(std430, binding = 4) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 5) readonly buffer ContactV { uvec4 contact_v[]; };
layout(std430, binding = 6) readonly buffer Contact { vec4 contact[]; };
layout(std430, binding = 7) buffer Force { vec4 force[]; };

void main()
{
    uint b = gl_GlobalInvocationID.x;
    if (b >= CP.counts.x)
        return;
    uint o = bindex[b];
    float dt = CP.misc.y;
    int D = int(CP.counts.w);
    ivec3 dims = CP.dims.xyz;
    ivec3 c = eddy_grid_cell(couple_b[b].xyz, CP.grid.xyz, CP.grid.w, dims);
    vec3 f = vec3(0.0);
    for (int dz = -D; dz <= D; dz++)
    for (int dy = -D; dy <= D; dy++)
    for (int dx = -D; dx <= D; dx++) {
        ivec3 q = c + ivec3(dx, dy, dz);
        if (any(lessThan(q, ivec3(0))) || any(greaterThanEqual(q, dims)))
            continue;
        uint cell = eddy_grid_linear(q, dims);
        uint s = cell_start[cell];
        if (s == EDDY_GRID_EMPTY)
            continue;
        uint e = cell_end[cell];
        for (uint k = s; k < e; k++) {
            uvec4 v = contact_v[k];
            if (v.w == 0u || (v.x != o && v.y != o && v.z != o))
                continue;
            vec4 wm = contact[2u * k + 1u];
            float w = v.x == o ? wm.x : v.y == o ? wm.y : wm.z;
            f += (w * wm.w) * contact[2u * k].xyz;
        }
    }
    force[b].xyz -= f / (dt * dt);
}
