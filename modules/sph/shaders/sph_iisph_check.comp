#version 450
// IISPH and DFSPH, one group after each iteration (indirect): the mean and
// the largest error over the particles (sph_iisph_update.comp,
// sph_dfsph_kappa.comp); once the mean is at most the tolerance and the
// largest at most max_error, the iterations left are switched off (zero
// groups). MODE 0, IISPH: after two iterations at least. DFSPH's phases
// (sph_dfsph.glsl) check the error of the velocities before the iteration's
// correction, so a phase already converged takes none; the divergence
// phase has its own tolerance and iteration limit, and no largest-error
// bound. The solve's outcome (converged or stopped at its limit) is added
// to the counts stats reads (eddy_sph_iisph_state.f).
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"
#include "sph_iisph.glsl"
#include "sph_dfsph.glsl"
#include "partials.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 1) const uint MODE = 0u;
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
    bool div = MODE == SPH_DFSPH_DIVERGENCE;
    float tol = div ? P.solve2.y : uintBitsToFloat(P.solve.z);
    uint most = div ? uint(P.solve2.z) : P.solve.y;
    bool done = it >= (MODE == 0u ? 2u : 1u) && mean <= tol && (div || largest <= P.solve2.x);
    if (done) {
        st.s.z = 1u;
        args[0] = 0u;
        args[3] = 0u;
    }
    if (done || it >= most) {
        // Non-negative floats order as their bits.
        st.f = uvec4(st.f.x + 1u, st.f.y + (done ? 0u : 1u), max(st.f.z, it),
                     max(st.f.w, floatBitsToUint(largest)));
        st.g.x = max(st.g.x, floatBitsToUint(mean));
    }
}
