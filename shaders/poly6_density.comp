#version 450
// SPH density with the poly6 kernel over all neighbours in the 27 cells
// around each particle (Müller et al. 2003, eq. 3 with W_poly6):
//   rho_i = sum_j m (315 / (64 pi h^9)) (h^2 - r^2)^3   for r < h, self included.
// Reads particles in cell order; the sum runs in sorted order, so it is the
// same on every run. Used by the neighbour-search tests and `eddy bench`.
#extension GL_GOOGLE_include_directive : require
#include "grid.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Sorted { vec4 sorted_position[]; };
layout(std430, binding = 1) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 2) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 3) writeonly buffer Density { float density[]; };
layout(push_constant) uniform P {
    vec4 origin_inv_cell; // xyz origin (m), w 1 / cell size (1/m)
    ivec4 dims;           // xyz cells
    float h;              // support radius (m)
    float coef;           // m * 315 / (64 pi h^9)
    uint count;
} pc;

void main()
{
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    float h2 = pc.h * pc.h;
    for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) {
        vec3 p = sorted_position[i].xyz;
        ivec3 c = eddy_grid_cell(p, pc.origin_inv_cell.xyz, pc.origin_inv_cell.w, pc.dims.xyz);
        float sum = 0.0;
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
            uint e = cell_end[cell];
            for (uint j = s; j < e; j++) {
                vec3 d = p - sorted_position[j].xyz;
                float r2 = dot(d, d);
                if (r2 < h2) {
                    float w = h2 - r2;
                    sum += w * w * w;
                }
            }
        }
        density[i] = pc.coef * sum;
    }
}
