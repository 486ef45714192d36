// The solver's state between passes (the "cg" buffer) and its indirect
// dispatch arguments (the "args" buffer): args[0..2] dispatch the
// per-vertex passes, args[3..5] the one-workgroup passes; a converged (or
// broken down) solve sets both to zero groups, so the iterations left in
// the recorded graph become empty dispatches (no host round trip).
#ifndef DEFORM_CG_GLSL
#define DEFORM_CG_GLSL

#define CG_RUNNING 0u
#define CG_CONVERGED 1u
#define CG_BREAKDOWN 2u   // p.Ap <= 0: the matrix is not positive definite
#define CG_MAX_ITERATIONS 3u

struct CgState {
    float rz;         // r.z of the current iterate
    float bb;         // b.b
    float alpha;
    float beta;
    float rr;         // r.r
    uint iterations;  // done in this step
    uint status;      // CG_*
    float residual;   // |r| / |b|
};

// The sum of one vec4 per thread of a 256-thread workgroup, in a fixed
// order (so reruns give the same bits): 16 threads each add a run of 16 in
// turn, then thread 0 adds the 16 runs in turn: two barriers where
// reduce.glsl's tree takes nine. On lavapipe a barrier suspends and resumes
// every invocation of the group: deform.cg_update on bunny_25k took 30 ms a
// step with the tree, 19 ms with this, 12 ms with no reduction at all.
// Thread 0 gets the result.
shared vec4 deform_sum_in[256];
shared vec4 deform_sum_runs[16];

vec4 deform_workgroup_sum(vec4 v)
{
    uint t = gl_LocalInvocationIndex;
    deform_sum_in[t] = v;
    barrier();
    if (t < 16u) {
        vec4 s = deform_sum_in[16u * t];
        for (uint k = 1u; k < 16u; k++)
            s += deform_sum_in[16u * t + k];
        deform_sum_runs[t] = s;
    }
    barrier();
    vec4 r = vec4(0.0);
    if (t == 0u) {
        r = deform_sum_runs[0];
        for (uint k = 1u; k < 16u; k++)
            r += deform_sum_runs[k];
    }
    return r;
}

// The sum of the reduction groups' partial vec4s in a fixed order: thread
// t adds partials t, t + 256, ... in turn, then deform_workgroup_sum. A
// shader declares its `partials` buffer, then writes DEFORM_SUM_PARTIALS.
#define DEFORM_SUM_PARTIALS                                              \
    vec4 sum_partials(uint groups)                                       \
    {                                                                    \
        vec4 s = vec4(0.0);                                              \
        for (uint g = gl_LocalInvocationIndex; g < groups; g += 256u)    \
            s += partials[g];                                            \
        return deform_workgroup_sum(s);                                  \
    }

#endif
