#version 450
// permute.comp for elements of a multiple of 16 bytes (vec4 positions,
// velocities): the same reorder with 16-byte loads and stores.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Perm { uint perm[]; };
layout(std430, binding = 1) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 2) writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform P { uint count; uint vecs; uint scatter; } pc; // vecs: uvec4 per element

void main()
{
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) {
        uint from = pc.scatter != 0u ? i : perm[i];
        uint to = pc.scatter != 0u ? perm[i] : i;
        for (uint w = 0u; w < pc.vecs; w++)
            dst[to * pc.vecs + w] = src[from * pc.vecs + w];
    }
}
