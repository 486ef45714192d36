#version 450
// Radix sort pass, step 2: every key (and its value) goes to
// offset[digit][block] + its rank among the block's keys of that digit, in
// input order: a stable pass. Ranks come from exclusive scans over threads, so
// no atomics decide any position and every run gives the same order.
#extension GL_GOOGLE_include_directive : require
#include "radix.glsl"

layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 1) readonly buffer ValuesIn { uint values_in[]; };
layout(std430, binding = 2) readonly buffer Offsets { uint offsets[]; }; // scanned hist
layout(std430, binding = 3) writeonly buffer KeysOut { uint keys_out[]; };
layout(std430, binding = 4) writeonly buffer ValuesOut { uint values_out[]; };

shared uint tile_k[EDDY_RADIX_BLOCK];
shared uint tile_v[EDDY_RADIX_BLOCK];
shared uint cnt[EDDY_RADIX_DIGITS][256];  // per digit and thread, then its exclusive prefix
shared uint part[EDDY_RADIX_DIGITS][16];  // per digit and group of 16 threads

void main()
{
    uint t = gl_LocalInvocationIndex;
    uint base = gl_WorkGroupID.x * EDDY_RADIX_BLOCK;
    uint n = min(EDDY_RADIX_BLOCK, pc.count - base);
    for (uint k = 0u; k < 4u; k++) {
        uint j = t + k * 256u;
        if (j < n) {
            tile_k[j] = keys_in[base + j];
            tile_v[j] = values_in[base + j];
        }
    }
    for (uint d = 0u; d < EDDY_RADIX_DIGITS; d++)
        cnt[d][t] = 0u;
    barrier();
    // Thread t owns the contiguous keys 4t .. 4t+3 of the block.
    uint dig[4];
    for (uint k = 0u; k < 4u; k++) {
        uint j = 4u * t + k;
        dig[k] = j < n ? eddy_digit(tile_k[j]) : 0xffffffffu;
        if (j < n)
            cnt[dig[k]][t] += 1u;
    }
    barrier();
    // Exclusive prefix over threads, per digit: 16 digits x 16 groups of 16 threads.
    {
        uint d = t >> 4u, g = t & 15u, run = 0u;
        for (uint i = 0u; i < 16u; i++) {
            uint x = cnt[d][g * 16u + i];
            cnt[d][g * 16u + i] = run;
            run += x;
        }
        part[d][g] = run;
    }
    barrier();
    if ((t & 15u) == 0u) {
        uint d = t >> 4u, run = 0u;
        for (uint g = 0u; g < 16u; g++) {
            uint x = part[d][g];
            part[d][g] = run;
            run += x;
        }
    }
    barrier();
    for (uint k = 0u; k < 4u; k++) {
        uint j = 4u * t + k;
        if (j >= n)
            break;
        uint d = dig[k];
        uint before = 0u; // this thread's earlier keys with the same digit
        for (uint q = 0u; q < k; q++)
            before += dig[q] == d ? 1u : 0u;
        uint dst = offsets[d * pc.blocks + gl_WorkGroupID.x] + part[d][t >> 4u] + cnt[d][t] + before;
        keys_out[dst] = tile_k[j];
        values_out[dst] = tile_v[j];
    }
}
