#version 450
// Surface pass 2: triangles per cube (0 .. 12).
#extension GL_GOOGLE_include_directive : require
#include "sph_mt.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) writeonly buffer Counts { uint counts[]; };

void main()
{
    uint c = gl_GlobalInvocationID.x;
    if (c >= mt_cells())
        return;
    ivec3 base = mt_cell(c);
    uint inside = 0u;
    for (int k = 0; k < 8; k++)
        if (field[mt_vertex(base + corner[k])] > pv.iso)
            inside |= 1u << uint(k);
    uint n = 0u;
    for (int t = 0; t < 6; t++) {
        uint m = 0u;
        for (int k = 0; k < 4; k++)
            m |= ((inside >> uint(tets[4 * t + k])) & 1u) << uint(k);
        n += mt_tet_triangles(m);
    }
    counts[c] = n;
}
