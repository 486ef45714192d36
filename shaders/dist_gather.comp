#version 450
// A rank's particles rearranged between substeps of a run over MPI ranks
// (scene/src/scene_dist_exchange.c): dst[k] = perm[k] < split ? a[perm[k]]
// : b[perm[k] - split], elements of `words` uints, bit-exact copies. With
// b unused (split past every index): the rows a rank sends, gathered from
// its particles; with b the rows it received: its new particles in id order.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Perm { uint perm[]; };
layout(std430, binding = 1) readonly buffer A { uint a[]; };
layout(std430, binding = 2) readonly buffer B { uint b[]; };
layout(std430, binding = 3) writeonly buffer Dst { uint dst[]; };
layout(push_constant) uniform P { uint count; uint words; uint split; } pc;

void main()
{
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint k = gl_GlobalInvocationID.x; k < pc.count; k += stride) {
        uint from = perm[k];
        for (uint w = 0u; w < pc.words; w++)
            dst[k * pc.words + w] = from < pc.split ? a[from * pc.words + w] : b[(from - pc.split) * pc.words + w];
    }
}
