#version 450
// PBF step 1 (particle order): v* = v + dt g, x* = x + dt v*; clears the
// tool push sums (an index is an index in either order).
#extension GL_GOOGLE_include_directive : require
#include "pbf_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Position { vec4 position[]; };
layout(std430, binding = 2) readonly buffer Velocity { vec4 velocity[]; };
layout(std430, binding = 3) writeonly buffer Predicted { vec4 predicted[]; };
layout(std430, binding = 4) writeonly buffer ToolPush { vec4 tpush[]; }; // cell order, cleared here
layout(std430, binding = 5) readonly buffer Mass { float mass[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= PBF_COUNT)
        return;
    vec4 x = position[i];
    vec3 v = velocity[i].xyz + PBF_DT * P.gravity.xyz;
    // w: the mass, so a neighbour loop reads position and mass in one load
    // (the radius stays in the sorted start positions' w).
    predicted[i] = vec4(x.xyz + PBF_DT * v, mass[i]);
    if (PBF_TOOL_R > 0.0)
        tpush[i] = vec4(0.0);
}
