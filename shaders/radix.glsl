// Shared by the radix sort kernels: 4-bit digits, blocks of 4096 keys, 256
// threads with 16 contiguous keys each. A thread counts its digits in two
// uvec4 of packed 16-bit fields (digit d: component (d >> 1) & 3 of lo for
// d < 8, of hi otherwise, bits 16 (d & 1) and up); block totals stay below
// 2^16, so the packed fields never carry into each other and one uvec4 scan
// over threads ranks all 16 digits at once. No atomics decide any position.
#ifndef EDDY_RADIX_GLSL
#define EDDY_RADIX_GLSL

#define EDDY_RADIX_ITEMS 16u
#define EDDY_RADIX_BLOCK 4096u

layout(push_constant) uniform P {
    uint count;   // keys
    uint shift;   // bit position of this pass's digit
    uint blocks;  // ceil(count / 4096)
} pc;

uint eddy_digit(uint key)
{
    return (key >> pc.shift) & 15u;
}

// Adds one to digit d of the packed counters.
void eddy_radix_inc(inout uvec4 lo, inout uvec4 hi, uint d)
{
    uint j = (d >> 1u) & 3u;
    uvec4 inc = uvec4(j == 0u, j == 1u, j == 2u, j == 3u) * (1u << (16u * (d & 1u)));
    if (d < 8u)
        lo += inc;
    else
        hi += inc;
}

uint eddy_radix_get(uvec4 lo, uvec4 hi, uint d)
{
    uvec4 v = d < 8u ? lo : hi;
    uint j = (d >> 1u) & 3u;
    uint w = j == 0u ? v.x : j == 1u ? v.y : j == 2u ? v.z : v.w;
    return (w >> (16u * (d & 1u))) & 0xffffu;
}

#ifdef EDDY_SUBGROUP
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_basic : require
shared uvec4 eddy_radix_sg[2][256];
#else
shared uvec4 eddy_radix_tree[2][2][256];
#endif
shared uvec4 eddy_radix_total[2];

// Exclusive scan of the packed counters over the workgroup's 256 threads;
// eddy_radix_total holds the block's totals afterwards.
void eddy_radix_scan(inout uvec4 lo, inout uvec4 hi)
{
    uint t = gl_LocalInvocationIndex;
#ifdef EDDY_SUBGROUP
    uvec4 il = subgroupInclusiveAdd(lo), ih = subgroupInclusiveAdd(hi);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1u) {
        eddy_radix_sg[0][gl_SubgroupID] = il;
        eddy_radix_sg[1][gl_SubgroupID] = ih;
    }
    barrier();
    if (t == 0u) {
        uvec4 rl = uvec4(0u), rh = uvec4(0u);
        for (uint s = 0u; s < gl_NumSubgroups; s++) {
            uvec4 xl = eddy_radix_sg[0][s], xh = eddy_radix_sg[1][s];
            eddy_radix_sg[0][s] = rl;
            eddy_radix_sg[1][s] = rh;
            rl += xl;
            rh += xh;
        }
        eddy_radix_total[0] = rl;
        eddy_radix_total[1] = rh;
    }
    barrier();
    lo = eddy_radix_sg[0][gl_SubgroupID] + il - lo;
    hi = eddy_radix_sg[1][gl_SubgroupID] + ih - hi;
#else
    uint src = 0u;
    eddy_radix_tree[0][0][t] = lo;
    eddy_radix_tree[0][1][t] = hi;
    barrier();
    for (uint d = 1u; d < 256u; d <<= 1u) {
        uint dst = 1u - src;
        uvec4 xl = eddy_radix_tree[src][0][t], xh = eddy_radix_tree[src][1][t];
        if (t >= d) {
            xl += eddy_radix_tree[src][0][t - d];
            xh += eddy_radix_tree[src][1][t - d];
        }
        eddy_radix_tree[dst][0][t] = xl;
        eddy_radix_tree[dst][1][t] = xh;
        src = dst;
        barrier();
    }
    if (t == 255u) {
        eddy_radix_total[0] = eddy_radix_tree[src][0][t];
        eddy_radix_total[1] = eddy_radix_tree[src][1][t];
    }
    barrier();
    lo = eddy_radix_tree[src][0][t] - lo;
    hi = eddy_radix_tree[src][1][t] - hi;
#endif
}


#endif
