#version 450
// IISPH, one group after each iteration (indirect): the mean and the
// largest density error over the particles (sph_iisph_update.comp); once
// the mean is at most the tolerance and the largest at most max_error,
// after two iterations at least, the iterations left are switched off
// (zero groups). The substep's outcome (converged or stopped at
// max_iterations) is added to the counts stats reads (eddy_sph_iisph_state.f).
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"
#include "sph_iisph.glsl"
#include "partials.glsl"

layout(local_size_x = 256) in;
layout(std430, binding = 1) readonly buffer Partials { vec4 partials[]; };
layout(std430, binding = 2) buffer State { eddy_sph_iisph_state st; };
layout(std430, binding = 3) writeonly buffer Args { uint args[]; };
EDDY_SUM_MAX_PARTIALS

void main()
{
    vec2 s = sum_max_partials((SPH_COUNT + 255u) / 256u);
    if (gl_LocalInvocationIndex != 0u)
        return;
    float mean = s.x / float(SPH_COUNT), largest = s.y;
    uint it = st.s.x + 1u;
    st.s.x = it;
    st.s.y = floatBitsToUint(mean);
    st.s.w = floatBitsToUint(largest);
    bool done = it >= 2u && mean <= uintBitsToFloat(P.solve.z) && largest <= P.solve2.x;
    if (done) {
        st.s.z = 1u;
        args[0] = 0u;
        args[3] = 0u;
    }
    if (done || it >= P.solve.y) {
        // Non-negative floats order as their bits.
        st.f = uvec4(st.f.x + 1u, st.f.y + (done ? 0u : 1u), max(st.f.z, it),
                     max(st.f.w, floatBitsToUint(largest)));
        st.g.x = max(st.g.x, floatBitsToUint(mean));
    }
}
