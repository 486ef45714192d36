#version 450
// deform.handle_begin, once per substep (one thread): the handle's centre
// moves linearly from `from` to `to` across the step's substeps (the host
// sets them and clock.x = 0 before the step, set_input).
#extension GL_GOOGLE_include_directive : require
#include "deform.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) buffer Handle { eddy_deform_handle T; };

void main()
{
    if (gl_GlobalInvocationID.x != 0u)
        return;
    uint n = max(T.clock.y, 1u);
    // A step the host did not set up (or a substep past the ones it was
    // set up for): the handle holds still where it is.
    if (T.clock.x >= n) {
        T.from = T.centre;
        T.to = T.centre;
        T.clock.x = 0u;
    }
    uint k = T.clock.x;
    T.clock.x = k + 1u;
    T.start = vec4(mix(T.from.xyz, T.to.xyz, float(k) / float(n)), 0.0);
    T.centre = vec4(mix(T.from.xyz, T.to.xyz, float(k + 1u) / float(n)), 0.0);
    T.velocity = vec4((T.centre.xyz - T.start.xyz) / D_H, 0.0);
}
