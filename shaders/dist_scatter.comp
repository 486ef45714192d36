#version 450
// Ghost rows refreshed between two parts of a substep over MPI ranks
// (scene/src/scene_dist_parts.c): dst[perm[k]] = src[k], elements of
// `words` uints, bit-exact copies.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Perm { uint perm[]; };
layout(std430, binding = 1) readonly buffer Src { uint src[]; };
layout(std430, binding = 2) buffer Dst { uint dst[]; };
layout(push_constant) uniform P { uint count; uint words; uint unused; } pc;

void main()
{
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint k = gl_GlobalInvocationID.x; k < pc.count; k += stride) {
        uint to = perm[k];
        for (uint w = 0u; w < pc.words; w++)
            dst[to * pc.words + w] = src[k * pc.words + w];
    }
}
