#version 450
// Friction: this substep's contact memory becomes the next one's input.
#extension GL_GOOGLE_include_directive : require
#include "rigid_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer IdIn { uint id_in[]; };
layout(std430, binding = 2) readonly buffer XiIn { vec4 xi_in[]; };
layout(std430, binding = 3) writeonly buffer IdOut { uint id_out[]; };
layout(std430, binding = 4) writeonly buffer XiOut { vec4 xi_out[]; };

vec3 rigid_recall(uint slot0, uint id) { return vec3(0.0); }
void rigid_remember(uint id, vec3 xi) {}

void main()
{
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint k = gl_GlobalInvocationID.x; k < RIGID_N * RIGID_SLOTS; k += stride) {
        id_out[k] = id_in[k];
        xi_out[k] = xi_in[k];
    }
}
