#version 450
// Reorders per-particle data of `words` uints per element by a permutation
// (the grid's sorted particle indices): gather dst[i] = src[perm[i]] into
// cell order, scatter dst[perm[i]] = src[i] back. Bit-exact copies.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Perm { uint perm[]; };
layout(std430, binding = 1) readonly buffer Src { uint src[]; };
layout(std430, binding = 2) writeonly buffer Dst { uint dst[]; };
layout(push_constant) uniform P { uint count; uint words; uint scatter; } pc;

void main()
{
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) {
        uint from = pc.scatter != 0u ? i : perm[i];
        uint to = pc.scatter != 0u ? perm[i] : i;
        for (uint w = 0u; w < pc.words; w++)
            dst[to * pc.words + w] = src[from * pc.words + w];
    }
}
