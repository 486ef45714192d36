#version 450
// Grid step 1: the cell of every particle (sort key) and its index (value);
// particles outside the grid are clamped into it and counted.
#extension GL_GOOGLE_include_directive : require
#include "grid.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Position { vec4 position[]; };
layout(std430, binding = 1) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) writeonly buffer Values { uint values[]; };
layout(std430, binding = 3) buffer Outside { uint outside[]; }; // [0]: particles outside
layout(push_constant) uniform P {
    vec4 origin_inv_cell; // xyz origin (m), w 1 / cell size (1/m)
    ivec4 dims;           // xyz cells
    uint count;
} pc;

void main()
{
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) {
        vec3 p = position[i].xyz;
        if (eddy_grid_outside(p, pc.origin_inv_cell.xyz, pc.origin_inv_cell.w, pc.dims.xyz))
            atomicAdd(outside[0], 1u); // an integer count: the same total in any order
        keys[i] = eddy_grid_linear(eddy_grid_cell(p, pc.origin_inv_cell.xyz, pc.origin_inv_cell.w,
                                                  pc.dims.xyz), pc.dims.xyz);
        values[i] = i;
    }
}
