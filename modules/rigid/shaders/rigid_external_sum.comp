#version 450
// Rigid, before the contacts when two or more systems put forces on the set
// (particle order): the sum of the set's rigid.external.<k> slices, one pass
// a slice in slice order (k = 0 copies, the others add), so the sum's bits
// do not depend on which system ran first on the device.
layout(local_size_x_id = 0) in;
layout(push_constant) uniform Slice {
    uint count; // particles
    uint first; // 1 for slice 0
} S;
layout(std430, binding = 0) buffer Sum { vec4 sum[]; };
layout(std430, binding = 1) readonly buffer External { vec4 slice[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= S.count)
        return;
    sum[i] = S.first != 0u ? slice[i] : sum[i] + slice[i];
}
