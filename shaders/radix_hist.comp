#version 450
// Radix sort pass, step 1: digit counts per block, stored digit-major
// (hist[digit * blocks + block]) so that one exclusive scan of hist gives
// every (digit, block) its first output position, in stable order.
#extension GL_GOOGLE_include_directive : require
#include "radix.glsl"

layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) writeonly buffer Hist { uint hist[]; };

void main()
{
    uint t = gl_LocalInvocationIndex;
    uint first = gl_WorkGroupID.x * EDDY_RADIX_BLOCK + t * EDDY_RADIX_ITEMS;
    uvec4 lo = uvec4(0u), hi = uvec4(0u);
    for (uint k = 0u; k < EDDY_RADIX_ITEMS; k++)
        if (first + k < pc.count)
            eddy_radix_inc(lo, hi, eddy_digit(keys[first + k]));
    eddy_radix_scan(lo, hi);
    if (t < 16u)
        hist[t * pc.blocks + gl_WorkGroupID.x] = eddy_radix_get(eddy_radix_total[0], eddy_radix_total[1], t);
}
