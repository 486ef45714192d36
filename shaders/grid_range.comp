#version 450
// Grid step 3: from the sorted cell keys, the first and one-past-last sorted
// index of every occupied cell (cell_start of empty cells stays EDDY_GRID_EMPTY).
#extension GL_GOOGLE_include_directive : require
#include "grid.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) writeonly buffer Start { uint cell_start[]; };
layout(std430, binding = 2) writeonly buffer End { uint cell_end[]; };
layout(push_constant) uniform P { uint count; } pc;

void main()
{
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) {
        uint k = keys[i];
        if (i == 0u || keys[i - 1u] != k)
            cell_start[k] = i;
        if (i + 1u == pc.count || keys[i + 1u] != k)
            cell_end[k] = i + 1u;
    }
}
