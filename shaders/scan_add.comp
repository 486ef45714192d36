#version 450
// Adds each block's exclusive prefix (the scanned block totals of the level
// above) to the block's 1024 elements.
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer Data { uint data[]; };
layout(std430, binding = 1) readonly buffer Sums { uint sums[]; };
layout(push_constant) uniform P {
    uint count;
    uint offset;      // elements into data
    uint sums_offset; // elements into sums
} pc;

void main()
{
    uint add = sums[pc.sums_offset + gl_WorkGroupID.x];
    uint base = gl_WorkGroupID.x * 1024u + gl_LocalInvocationIndex;
    for (uint k = 0u; k < 4u; k++) {
        uint i = base + k * 256u;
        if (i < pc.count)
            data[pc.offset + i] += add;
    }
}
