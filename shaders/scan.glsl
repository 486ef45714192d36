// Workgroup-wide exclusive scan of one uint per thread (256 threads), for the
// scan and radix sort kernels. With EDDY_SUBGROUP defined it uses subgroup
// arithmetic (where the device has it), else a shared-memory tree. Integer
// sums: the result is exact and the same in any execution order.
#ifndef EDDY_SCAN_GLSL
#define EDDY_SCAN_GLSL

#define EDDY_SCAN_THREADS 256u

#ifdef EDDY_SUBGROUP
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_basic : require
shared uint eddy_scan_sg[EDDY_SCAN_THREADS];
#else
shared uint eddy_scan_tree[2 * EDDY_SCAN_THREADS];
#endif
shared uint eddy_scan_total;

// Returns the exclusive prefix of v over the workgroup's threads (in local
// invocation order); eddy_scan_total holds the sum after the call. Every
// thread of the workgroup must call it.
uint eddy_workgroup_exclusive_scan(uint v)
{
    uint t = gl_LocalInvocationIndex;
#ifdef EDDY_SUBGROUP
    uint incl = subgroupInclusiveAdd(v);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u)
        eddy_scan_sg[gl_SubgroupID] = incl;
    barrier();
    if (t == 0u) {
        uint run = 0u;
        for (uint s = 0u; s < gl_NumSubgroups; s++) {
            uint x = eddy_scan_sg[s];
            eddy_scan_sg[s] = run;
            run += x;
        }
        eddy_scan_total = run;
    }
    barrier();
    uint r = eddy_scan_sg[gl_SubgroupID] + incl - v;
    barrier(); // eddy_scan_sg may be reused by the next call
    return r;
#else
    // Hillis-Steele over a double buffer.
    uint src = 0u;
    eddy_scan_tree[t] = v;
    barrier();
    for (uint d = 1u; d < EDDY_SCAN_THREADS; d <<= 1u) {
        uint dst = EDDY_SCAN_THREADS - src;
        uint x = eddy_scan_tree[src + t];
        if (t >= d)
            x += eddy_scan_tree[src + t - d];
        eddy_scan_tree[dst + t] = x;
        src = dst;
        barrier();
    }
    uint incl = eddy_scan_tree[src + t];
    if (t == EDDY_SCAN_THREADS - 1u)
        eddy_scan_total = incl;
    barrier();
    return incl - v;
#endif
}

#endif
