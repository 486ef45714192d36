#version 450
// volume.leaves, one thread per leaf of the complete tree: leaf j holds the
// j-th boundary face in Morton order (the sort's values) and its box (node
// leaves + j: min, max); leaves past the faces get an empty box and no
// face (the traversal never enters them).
#extension GL_GOOGLE_include_directive : require
#include "volume.glsl"

layout(local_size_x = 64) in;
layout(std430, binding = 1) readonly buffer Pos { vec4 position[]; };
layout(std430, binding = 2) readonly buffer Tets { uint tets[]; };
layout(std430, binding = 3) readonly buffer Boundary { uint boundary[]; };
layout(std430, binding = 4) readonly buffer Values { uint values[]; };
layout(std430, binding = 5) writeonly buffer LeafFace { uint leaf_face[]; };
layout(std430, binding = 6) writeonly buffer Nodes { vec4 nodes[]; };

void main()
{
    uint j = gl_GlobalInvocationID.x, leaves = P.counts.z;
    if (j >= leaves)
        return;
    const float big = 3.402823466e38;
    vec4 lo = vec4(big), hi = vec4(-big);
    uint f = EDDY_VOLUME_NONE;
    if (j < P.counts.y) {
        f = values[j];
        uint id = boundary[f], t = id >> 2;
        uvec3 fv = FACE_VERTEX[id & 3u];
        vec3 c0 = position[tets[4u * t + fv.x]].xyz, c1 = position[tets[4u * t + fv.y]].xyz,
             c2 = position[tets[4u * t + fv.z]].xyz;
        vec3 l = min(min(c0, c1), c2), h = max(max(c0, c1), c2);
        // grown a little, so a ray grazing the face is not lost to the slab
        // test's rounding
        vec3 pad = 1e-5 * (h - l) + 1e-6 * max(abs(l), abs(h)) + 1e-30;
        lo = vec4(l - pad, big);
        hi = vec4(h + pad, -big);
    }
    leaf_face[j] = f;
    nodes[2u * (leaves + j)] = lo;
    nodes[2u * (leaves + j) + 1u] = hi;
}
