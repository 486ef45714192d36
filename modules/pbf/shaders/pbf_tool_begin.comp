#version 450
// PBF tool, once per substep before the solve (one thread): the centre moves
// linearly from `from` to `to` across the step's substeps (set by the host
// before the step: clock.x = 0).
#extension GL_GOOGLE_include_directive : require
#include "pbf_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) buffer Tool { eddy_pbf_tool T; };

void main()
{
    if (gl_GlobalInvocationID.x != 0u)
        return;
    uint n = max(T.clock.y, 1u);
    // A step the host did not set up: the tool holds still.
    if (T.clock.x >= n) {
        T.from = T.to;
        T.clock.x = 0u;
    }
    uint k = T.clock.x + 1u;
    T.clock.x = k;
    T.centre = vec4(mix(T.from.xyz, T.to.xyz, float(k) / float(n)), 0.0);
    T.velocity = vec4((T.to.xyz - T.from.xyz) / (PBF_DT * float(n)), 0.0);
}
