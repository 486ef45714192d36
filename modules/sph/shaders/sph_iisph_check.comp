#version 450
// IISPH and DFSPH, one group after each iteration: the mean and the
// largest error over the particles (sph_iisph_update.comp,
// sph_dfsph_kappa.comp, in partials.glsl's fixed point); once the mean is
// at most the tolerance and the largest at most max_error, the iterations
// left are switched off (zero groups), and IISPH's at the iteration limit
// too. MODE 0, IISPH: after two iterations at least. DFSPH's phases
// (sph_dfsph.glsl) check the error of the velocities before the
// iteration's correction, so a phase already converged takes none; the
// divergence phase has its own tolerance and iteration limit, and no
// largest-error bound. The solve's outcome (converged or stopped at its
// limit) is added to the counts stats reads (eddy_sph_iisph_state.f), and
// g.y is set once the solve stopped.
// PHASE 0: the partials summed, then the test. Over MPI ranks the sum and
// the test are apart, with the ranks' sums added between them: PHASE 1
// sums this rank's partials into `reduce` (error sum and particles counted
// as 64-bit integers, the largest error's bits), PHASE 2 tests the sums
// found there. g.y is reset by the solve's first pass with st.s.
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"
#include "sph_iisph.glsl"
#include "sph_dfsph.glsl"
#define EDDY_FIXED_SUMS
#include "partials.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 1) const uint MODE = 0u;
layout(constant_id = 2) const uint PHASE = 0u;
layout(std430, binding = 1) readonly buffer Partials { uvec4 partials[]; };
layout(std430, binding = 2) buffer State { eddy_sph_iisph_state st; };
layout(std430, binding = 3) writeonly buffer Args { uint args[]; };
layout(std430, binding = 4) buffer Reduce { uint reduce[]; }; // error sum, count (uint64 each), largest bits

void main()
{
    uvec4 s = uvec4(0u);
    if (PHASE != 2u) {
        uint groups = (SPH_COUNT + 255u) / 256u;
        for (uint g = gl_LocalInvocationIndex; g < groups; g += 256u)
            s = eddy_fixed_add(s, partials[g]);
        s = eddy_workgroup_fixed(s);
    }
    if (gl_LocalInvocationIndex != 0u)
        return;
    if (PHASE == 1u) {
        reduce[0] = s.x, reduce[1] = s.y, reduce[2] = s.w, reduce[3] = 0u, reduce[4] = s.z;
        return;
    }
    uvec2 sum = PHASE == 2u ? uvec2(reduce[0], reduce[1]) : s.xy;
    uvec2 count = PHASE == 2u ? uvec2(reduce[2], reduce[3]) : uvec2(s.w, 0u);
    uint largest_bits = PHASE == 2u ? reduce[4] : s.z;
    float n = max(float(count.y) * 4294967296.0 + float(count.x), 1.0);
    float mean = eddy_fixed_value(sum) / n, largest = uintBitsToFloat(largest_bits);
    uint it = st.s.x + 1u;
    st.s.x = it;
    st.s.y = floatBitsToUint(mean);
    st.s.w = largest_bits;
    bool div = MODE == SPH_DFSPH_DIVERGENCE;
    float tol = div ? P.solve2.y : uintBitsToFloat(P.solve.z);
    uint most = div ? uint(P.solve2.z) : P.solve.y;
    bool finite = largest_bits < 0x7f800000u;
    bool done = it >= (MODE == 0u ? 2u : 1u) && finite && mean <= tol && (div || largest <= P.solve2.x);
    if (done)
        st.s.z = 1u;
    // IISPH's iterations end with this test; DFSPH's apply the velocity
    // change after it, also at the limit.
    if (done || (MODE == 0u && it >= most)) {
        args[0] = 0u;
        args[3] = 0u;
    }
    if (done || it >= most) {
        st.g.y = 1u;
        // Non-negative floats order as their bits.
        st.f = uvec4(st.f.x + 1u, st.f.y + (done ? 0u : 1u), max(st.f.z, it), max(st.f.w, largest_bits));
        st.g.x = max(st.g.x, floatBitsToUint(mean));
    }
}
