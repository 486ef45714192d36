#version 450
// deform.handle_end, once per substep after the force sum (one thread): the
// step's force on the handle is the mean over its substeps.
#extension GL_GOOGLE_include_directive : require
#include "deform.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) buffer Handle { eddy_deform_handle T; };
layout(std430, binding = 2) readonly buffer Sum { vec4 sum[]; };

void main()
{
    if (gl_GlobalInvocationID.x != 0u)
        return;
    float w = 1.0 / float(max(T.clock.y, 1u));
    bool first = T.clock.x <= 1u;
    T.force = (first ? vec4(0.0) : T.force) + w * vec4(sum[0].xyz, 0.0);
}
