#version 450
// Radix sort pass, step 2: every key (and its value) goes to
// offset[digit][block] + the number of keys of that digit before it in the
// block, so equal digits keep their input order: a stable pass, the same
// on every run.
#extension GL_GOOGLE_include_directive : require
#include "radix.glsl"

layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 1) readonly buffer ValuesIn { uint values_in[]; };
layout(std430, binding = 2) readonly buffer Offsets { uint offsets[]; }; // scanned hist
layout(std430, binding = 3) writeonly buffer KeysOut { uint keys_out[]; };
layout(std430, binding = 4) writeonly buffer ValuesOut { uint values_out[]; };

shared uint block_offset[16];

void main()
{
    uint t = gl_LocalInvocationIndex;
    if (t < 16u)
        block_offset[t] = offsets[t * pc.blocks + gl_WorkGroupID.x];
    uint first = gl_WorkGroupID.x * EDDY_RADIX_BLOCK + t * EDDY_RADIX_ITEMS;
    uint key[EDDY_RADIX_ITEMS];
    uvec4 lo = uvec4(0u), hi = uvec4(0u);
    for (uint k = 0u; k < EDDY_RADIX_ITEMS; k++) {
        key[k] = first + k < pc.count ? keys_in[first + k] : 0u;
        if (first + k < pc.count)
            eddy_radix_inc(lo, hi, eddy_digit(key[k]));
    }
    eddy_radix_scan(lo, hi); // lo/hi: this thread's first rank of every digit in the block
    for (uint k = 0u; k < EDDY_RADIX_ITEMS; k++) {
        if (first + k >= pc.count)
            break;
        uint d = eddy_digit(key[k]);
        uint dst = block_offset[d] + eddy_radix_get(lo, hi, d);
        eddy_radix_inc(lo, hi, d);
        keys_out[dst] = key[k];
        values_out[dst] = values_in[first + k];
    }
}
