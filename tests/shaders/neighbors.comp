#version 450
// Neighbour lists through the grid, for the tests: mode 0 counts the
// neighbours within h of every sorted particle (itself excluded), mode 1
// writes their original indices from offset[i] on.
#extension GL_GOOGLE_include_directive : require
#include "grid.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Sorted { vec4 sorted_position[]; };
layout(std430, binding = 1) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 2) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 3) readonly buffer Index { uint sorted_index[]; };
layout(std430, binding = 4) buffer Counts { uint counts[]; };   // mode 0 writes, mode 1 reads (offsets)
layout(std430, binding = 5) writeonly buffer Lists { uint lists[]; };
layout(push_constant) uniform P {
    vec4 origin_inv_cell;
    ivec4 dims;
    float h;
    uint count;
    uint mode;
} pc;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count)
        return;
    vec3 p = sorted_position[i].xyz;
    ivec3 c = eddy_grid_cell(p, pc.origin_inv_cell.xyz, pc.origin_inv_cell.w, pc.dims.xyz);
    uint n = 0u, at = pc.mode == 1u ? counts[i] : 0u;
    for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
        ivec3 q = c + ivec3(dx, dy, dz);
        if (any(lessThan(q, ivec3(0))) || any(greaterThanEqual(q, pc.dims.xyz)))
            continue;
        uint cell = eddy_grid_linear(q, pc.dims.xyz);
        uint s = cell_start[cell];
        if (s == EDDY_GRID_EMPTY)
            continue;
        for (uint j = s; j < cell_end[cell]; j++) {
            vec3 d = p - sorted_position[j].xyz;
            if (j != i && dot(d, d) < pc.h * pc.h) {
                if (pc.mode == 1u)
                    lists[at + n] = sorted_index[j];
                n++;
            }
        }
    }
    if (pc.mode == 0u)
        counts[i] = n;
}
