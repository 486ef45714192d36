// Deterministic reductions: every value is combined in a fixed tree order
// that does not depend on scheduling, so float sums are bitwise the same on
// every run (no float atomics).
#ifndef EDDY_REDUCE_GLSL
#define EDDY_REDUCE_GLSL

#define EDDY_REDUCE_SUM 0u
#define EDDY_REDUCE_MIN 1u
#define EDDY_REDUCE_MAX 2u

vec4 eddy_reduce_identity(uint op)
{
    return op == EDDY_REDUCE_SUM ? vec4(0.0) : op == EDDY_REDUCE_MIN ? vec4(uintBitsToFloat(0x7f800000u)) : vec4(-uintBitsToFloat(0x7f800000u));
}

vec4 eddy_reduce_op(uint op, vec4 a, vec4 b)
{
    return op == EDDY_REDUCE_SUM ? a + b : op == EDDY_REDUCE_MIN ? min(a, b) : max(a, b);
}

shared vec4 eddy_reduce_tree[256];

// Combines one vec4 per thread of a 256-thread workgroup; thread 0 gets the result.
vec4 eddy_workgroup_reduce(uint op, vec4 v)
{
    uint t = gl_LocalInvocationIndex;
    eddy_reduce_tree[t] = v;
    barrier();
    for (uint s = 128u; s > 0u; s >>= 1u) {
        if (t < s)
            eddy_reduce_tree[t] = eddy_reduce_op(op, eddy_reduce_tree[t], eddy_reduce_tree[t + s]);
        barrier();
    }
    vec4 r = eddy_reduce_tree[0];
    barrier();
    return r;
}

#endif
