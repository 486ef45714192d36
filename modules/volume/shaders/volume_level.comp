#version 450
// volume.level, one thread per node of a level [m, 2m) of the complete
// tree (heap order: the root is 1, node k's children 2k and 2k + 1): its
// box the union of its children's. One pass a level, leaves to root.
#extension GL_GOOGLE_include_directive : require
#include "volume.glsl"

layout(local_size_x = 64) in;
layout(std430, binding = 1) buffer Nodes { vec4 nodes[]; };
layout(push_constant) uniform Level { uint m; } L;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= L.m)
        return;
    uint k = L.m + i;
    nodes[2u * k] = min(nodes[4u * k], nodes[4u * k + 2u]);
    nodes[2u * k + 1u] = max(nodes[4u * k + 1u], nodes[4u * k + 3u]);
}
