#version 450
// IISPH, one group after each iteration (indirect): the mean density error
// over the particles (sph_iisph_update.comp); at or below the tolerance,
// after two iterations at least, the iterations left are switched off
// (zero groups).
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"
#include "sph_iisph.glsl"
#include "partials.glsl"

layout(local_size_x = 256) in;
layout(std430, binding = 1) readonly buffer Partials { vec4 partials[]; };
layout(std430, binding = 2) buffer State { eddy_sph_iisph_state st; };
layout(std430, binding = 3) writeonly buffer Args { uint args[]; };
EDDY_SUM_PARTIALS

void main()
{
    vec4 s = sum_partials((SPH_COUNT + 255u) / 256u);
    if (gl_LocalInvocationIndex != 0u)
        return;
    float mean = s.x / float(SPH_COUNT);
    uint it = st.s.x + 1u;
    st.s.x = it;
    st.s.y = floatBitsToUint(mean);
    if (it >= 2u && mean <= uintBitsToFloat(P.solve.z)) {
        st.s.z = 1u;
        args[0] = 0u;
        args[3] = 0u;
    }
}
