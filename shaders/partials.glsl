// Deterministic sums for iterative solvers that stop on the GPU (deform's
// conjugate gradients, sph's IISPH): each workgroup of a per-element pass
// writes one partial vec4, and a one-workgroup pass adds the partials.
// Both in a fixed order, so reruns give the same bits.
#ifndef EDDY_PARTIALS_GLSL
#define EDDY_PARTIALS_GLSL

// The sum of one vec4 per thread of a 256-thread workgroup, in a fixed
// order (so reruns give the same bits): 16 threads each add a run of 16 in
// turn, then thread 0 adds the 16 runs in turn: two barriers where
// reduce.glsl's tree takes nine. On lavapipe a barrier suspends and resumes
// every invocation of the group: deform.cg_update on bunny_25k took 30 ms a
// step with the tree, 19 ms with this, 12 ms with no reduction at all.
// Thread 0 gets the result.
shared vec4 eddy_sum_in[256];
shared vec4 eddy_sum_runs[16];

vec4 eddy_workgroup_sum(vec4 v)
{
    uint t = gl_LocalInvocationIndex;
    eddy_sum_in[t] = v;
    barrier();
    if (t < 16u) {
        vec4 s = eddy_sum_in[16u * t];
        for (uint k = 1u; k < 16u; k++)
            s += eddy_sum_in[16u * t + k];
        eddy_sum_runs[t] = s;
    }
    barrier();
    vec4 r = vec4(0.0);
    if (t == 0u) {
        r = eddy_sum_runs[0];
        for (uint k = 1u; k < 16u; k++)
            r += eddy_sum_runs[k];
    }
    return r;
}

// The sum of s and the largest m over a 256-thread workgroup (x and y of
// the result; m >= 0), with the same two barriers: a local error's bound
// needs the largest residual beside the mean. Thread 0 gets the result.
vec2 eddy_workgroup_sum_max(float s, float m)
{
    uint t = gl_LocalInvocationIndex;
    eddy_sum_in[t] = vec4(s, m, 0.0, 0.0);
    barrier();
    if (t < 16u) {
        vec4 r = eddy_sum_in[16u * t];
        for (uint k = 1u; k < 16u; k++) {
            r.x += eddy_sum_in[16u * t + k].x;
            r.y = max(r.y, eddy_sum_in[16u * t + k].y);
        }
        eddy_sum_runs[t] = r;
    }
    barrier();
    vec2 r = vec2(0.0);
    if (t == 0u) {
        r = eddy_sum_runs[0].xy;
        for (uint k = 1u; k < 16u; k++)
            r = vec2(r.x + eddy_sum_runs[k].x, max(r.y, eddy_sum_runs[k].y));
    }
    return r;
}

// The partials' x summed and y's largest, in a fixed order (as below).
#define EDDY_SUM_MAX_PARTIALS                                         \
    vec2 sum_max_partials(uint groups)                                \
    {                                                                 \
        vec2 s = vec2(0.0);                                           \
        for (uint g = gl_LocalInvocationIndex; g < groups; g += 256u) \
            s = vec2(s.x + partials[g].x, max(s.y, partials[g].y));   \
        return eddy_workgroup_sum_max(s.x, s.y);                      \
    }

// The sum of the reduction groups' partial vec4s in a fixed order: thread
// t adds partials t, t + 256, ... in turn, then eddy_workgroup_sum. A
// shader declares its `partials` buffer, then writes EDDY_SUM_PARTIALS.
#define EDDY_SUM_PARTIALS                                             \
    vec4 sum_partials(uint groups)                                    \
    {                                                                 \
        vec4 s = vec4(0.0);                                           \
        for (uint g = gl_LocalInvocationIndex; g < groups; g += 256u) \
            s += partials[g];                                         \
        return eddy_workgroup_sum(s);                                 \
    }

#ifdef EDDY_FIXED_SUMS
// Error sums in fixed point for solvers that stop on a mean error: a
// particle's error e >= 0 counts as the 64-bit integer floor(min(e, 255)
// 2^32) (x low, y high word), added with saturation (a sum past 2^64 - 1
// stays there: a mean far above any tolerance), beside the largest e's
// bits (z; non-negative floats order as their bits, NaN and infinity
// above every number, and either saturates the sum) and the particles
// counted (w). Integer sums do not depend on their order, so the same
// particles give the same mean on one device or split over MPI ranks,
// whichever rank adds which. The resolution, 2^-32 = 2.3e-10 a particle,
// is far below any tolerance.
shared uvec4 eddy_fix_in[256];
shared uvec4 eddy_fix_runs[16];

uvec4 eddy_fixed_error(float e, bool counted)
{
    if (!counted)
        return uvec4(0u);
    if (isnan(e) || isinf(e))
        return uvec4(0xffffffffu, 0xffffffffu, max(floatBitsToUint(abs(e)), 0x7f800000u), 1u);
    float c = min(max(e, 0.0), 255.0), whole = floor(c);
    return uvec4(uint((c - whole) * 4294967296.0), uint(whole), floatBitsToUint(max(e, 0.0)), 1u);
}

uvec4 eddy_fixed_add(uvec4 a, uvec4 b)
{
    uint c0, c1, c2;
    uint lo = uaddCarry(a.x, b.x, c0);
    uint hi = uaddCarry(a.y, b.y, c1);
    hi = uaddCarry(hi, c0, c2);
    uvec2 sum = c1 + c2 != 0u ? uvec2(0xffffffffu) : uvec2(lo, hi);
    return uvec4(sum, max(a.z, b.z), a.w + b.w);
}

// eddy_fixed_error values summed over a 256-thread workgroup (thread 0
// gets the result).
uvec4 eddy_workgroup_fixed(uvec4 v)
{
    uint t = gl_LocalInvocationIndex;
    eddy_fix_in[t] = v;
    barrier();
    if (t < 16u) {
        uvec4 r = eddy_fix_in[16u * t];
        for (uint k = 1u; k < 16u; k++)
            r = eddy_fixed_add(r, eddy_fix_in[16u * t + k]);
        eddy_fix_runs[t] = r;
    }
    barrier();
    uvec4 r = uvec4(0u);
    if (t == 0u) {
        r = eddy_fix_runs[0];
        for (uint k = 1u; k < 16u; k++)
            r = eddy_fixed_add(r, eddy_fix_runs[k]);
    }
    return r;
}

// A fixed-point sum's value (the sum of the errors).
float eddy_fixed_value(uvec2 sum)
{
    return float(sum.y) + float(sum.x) * (1.0 / 4294967296.0);
}
#endif

#endif
