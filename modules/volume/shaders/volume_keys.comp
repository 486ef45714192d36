#version 450
// volume.keys, one thread per boundary face: the 30-bit Morton code of its
// centroid in the params' box (clamped), and its index, for the sort.
#extension GL_GOOGLE_include_directive : require
#include "volume.glsl"

layout(local_size_x = 64) in;
layout(std430, binding = 1) readonly buffer Pos { vec4 position[]; };
layout(std430, binding = 2) readonly buffer Tets { uint tets[]; };
layout(std430, binding = 3) readonly buffer Boundary { uint boundary[]; };
layout(std430, binding = 4) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = 5) writeonly buffer Values { uint values[]; };

uint spread10(uint x)
{
    x &= 0x3ffu;
    x = (x | (x << 16)) & 0x030000ffu;
    x = (x | (x << 8)) & 0x0300f00fu;
    x = (x | (x << 4)) & 0x030c30c3u;
    x = (x | (x << 2)) & 0x09249249u;
    return x;
}

void main()
{
    uint b = gl_GlobalInvocationID.x;
    if (b >= P.counts.y)
        return;
    uint id = boundary[b], t = id >> 2;
    uvec3 fv = FACE_VERTEX[id & 3u];
    vec3 c0 = position[tets[4u * t + fv.x]].xyz, c1 = position[tets[4u * t + fv.y]].xyz,
         c2 = position[tets[4u * t + fv.z]].xyz;
    uint code = 0u;
    for (uint a = 0u; a < 3u; a++) {
        float mid = (c0[a] + c1[a] + c2[a]) * (1.0 / 3.0);
        float u = clamp((mid - P.bounds_min[a]) / (P.bounds_max[a] - P.bounds_min[a]), 0.0, 1.0);
        code |= spread10(uint(u * 1023.0)) << (2u - a);
    }
    keys[b] = code;
    values[b] = b;
}
