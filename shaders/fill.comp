#version 450
// data[offset + i] = value for i < count (clears counters and grid tables
// inside a graph, where a transfer command would need its own barriers).
// Grid-stride loop: any count fits the device's workgroup-count limit.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) writeonly buffer Data { uint data[]; };
layout(push_constant) uniform P { uint count; uint offset; uint value; } pc;

void main()
{
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride)
        data[pc.offset + i] = pc.value;
}
