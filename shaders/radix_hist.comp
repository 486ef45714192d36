#version 450
// Radix sort pass, step 1: digit counts per block, stored digit-major
// (hist[digit * blocks + block]) so that one exclusive scan of hist gives
// every (digit, block) its first output position, in stable order.
#extension GL_GOOGLE_include_directive : require
#include "radix.glsl"

layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) writeonly buffer Hist { uint hist[]; };

shared uint counts[EDDY_RADIX_DIGITS];

void main()
{
    uint t = gl_LocalInvocationIndex;
    if (t < EDDY_RADIX_DIGITS)
        counts[t] = 0u;
    barrier();
    uint base = gl_WorkGroupID.x * EDDY_RADIX_BLOCK;
    for (uint k = 0u; k < 4u; k++) {
        uint i = base + t + k * 256u;
        if (i < pc.count)
            atomicAdd(counts[eddy_digit(keys[i])], 1u); // integer counts: order-free
    }
    barrier();
    if (t < EDDY_RADIX_DIGITS)
        hist[t * pc.blocks + gl_WorkGroupID.x] = counts[t];
}
