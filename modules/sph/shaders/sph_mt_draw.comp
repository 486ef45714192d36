#version 450
// Surface pass 4 (surface_live): the live surface's draw record, a
// VkDrawIndexedIndirectCommand { 3 x triangles, 1, 0, 0, 0 }, from the last
// cube's scanned offset and count, at most MAX_TRIANGLES (what the emit
// pass kept). One invocation.
layout(local_size_x = 1) in;
layout(constant_id = 2) const uint MAX_TRIANGLES = 0u;
layout(std430, binding = 0) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 1) readonly buffer Counts { uint counts[]; };
layout(std430, binding = 2) writeonly buffer Draw { uint draw[]; };
layout(push_constant) uniform Cells { uint cells; } pc;

void main()
{
    uint total = pc.cells > 0u ? offsets[pc.cells - 1u] + counts[pc.cells - 1u] : 0u;
    draw[0] = 3u * min(total, MAX_TRIANGLES);
    draw[1] = 1u;
    draw[2] = 0u;
    draw[3] = 0u;
    draw[4] = 0u;
}
