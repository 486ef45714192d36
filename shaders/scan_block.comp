#version 450
// One level of the multi-level scan: each workgroup scans a block of 1024
// uints (4 per thread) and writes the block's total to sums[]. CPU reference:
// tests/gpu/test_prims.c.
#extension GL_GOOGLE_include_directive : require
#include "scan.glsl"

layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer In { uint data_in[]; };
layout(std430, binding = 1) writeonly buffer Out { uint data_out[]; };
layout(std430, binding = 2) writeonly buffer Sums { uint sums[]; };
layout(push_constant) uniform P {
    uint count;       // elements
    uint inclusive;   // 1: inclusive, 0: exclusive
    uint in_offset;   // elements into data_in
    uint out_offset;  // elements into data_out
    uint sums_offset; // elements into sums
    uint write_sums;  // 0: a single block, no totals needed
} pc;

shared uint tile[1024];

void main()
{
    uint t = gl_LocalInvocationIndex;
    uint base = gl_WorkGroupID.x * 1024u;
    uint v[4];
    // Coalesced loads; each thread then scans 4 contiguous elements.
    for (uint k = 0u; k < 4u; k++) {
        uint i = base + t + k * 256u;
        v[k] = i < pc.count ? data_in[pc.in_offset + i] : 0u;
        tile[t + k * 256u] = v[k];
    }
    barrier();
    uint a = tile[4u * t], b = tile[4u * t + 1u], c = tile[4u * t + 2u], d = tile[4u * t + 3u];
    uint prefix = eddy_workgroup_exclusive_scan(a + b + c + d);
    tile[4u * t] = prefix + a;
    tile[4u * t + 1u] = prefix + a + b;
    tile[4u * t + 2u] = prefix + a + b + c;
    tile[4u * t + 3u] = prefix + a + b + c + d;
    barrier();
    for (uint k = 0u; k < 4u; k++) {
        uint i = base + t + k * 256u;
        if (i < pc.count) {
            uint incl = tile[t + k * 256u];
            data_out[pc.out_offset + i] = pc.inclusive != 0u ? incl : incl - v[k];
        }
    }
    if (t == 0u && pc.write_sums != 0u)
        sums[pc.sums_offset + gl_WorkGroupID.x] = eddy_scan_total;
}
