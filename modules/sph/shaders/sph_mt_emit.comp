#version 450
// Surface pass 3: the triangles of every cube from its scanned offset,
// wound counter-clockwise seen from outside (low c).
#extension GL_GOOGLE_include_directive : require
#include "sph_mt.glsl"

layout(local_size_x_id = 0) in;
// LIVE (surface_live): three vec4 vertices per triangle into a particle
// set's "position" buffer, at most MAX_TRIANGLES of them; else 9 packed
// floats per triangle for an output frame.
layout(constant_id = 1) const bool LIVE = false;
layout(constant_id = 2) const uint MAX_TRIANGLES = 0u;
layout(std430, binding = 1) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 2) writeonly buffer Tris { float tris[]; };

uint out_at;

void emit(vec3 a, vec3 b, vec3 c, vec3 outward)
{
    if (dot(cross(b - a, c - a), outward) < 0.0) {
        vec3 t = b; b = c; c = t;
    }
    if (LIVE) {
        if (out_at < MAX_TRIANGLES) {
            uint o = 12u * out_at;
            tris[o] = a.x; tris[o + 1u] = a.y; tris[o + 2u] = a.z; tris[o + 3u] = 0.0;
            tris[o + 4u] = b.x; tris[o + 5u] = b.y; tris[o + 6u] = b.z; tris[o + 7u] = 0.0;
            tris[o + 8u] = c.x; tris[o + 9u] = c.y; tris[o + 10u] = c.z; tris[o + 11u] = 0.0;
        }
    } else {
        uint o = 9u * out_at;
        tris[o] = a.x; tris[o + 1u] = a.y; tris[o + 2u] = a.z;
        tris[o + 3u] = b.x; tris[o + 4u] = b.y; tris[o + 5u] = b.z;
        tris[o + 6u] = c.x; tris[o + 7u] = c.y; tris[o + 8u] = c.z;
    }
    out_at++;
}

void main()
{
    uint c = gl_GlobalInvocationID.x;
    if (c >= mt_cells())
        return;
    ivec3 base = mt_cell(c);
    out_at = offsets[c];
    for (int t = 0; t < 6; t++) {
        ivec3 in_v[4], out_v[4];
        uint ni = 0u, no = 0u;
        vec3 cin = vec3(0.0), cout = vec3(0.0);
        for (int k = 0; k < 4; k++) {
            ivec3 p = base + corner[tets[4 * t + k]];
            if (field[mt_vertex(p)] > pv.iso) {
                in_v[ni++] = p;
                cin += mt_pos(p);
            } else {
                out_v[no++] = p;
                cout += mt_pos(p);
            }
        }
        if (ni == 0u || no == 0u)
            continue;
        vec3 outward = cout / float(no) - cin / float(ni);
        if (ni == 1u) {
            emit(mt_edge(in_v[0], out_v[0]), mt_edge(in_v[0], out_v[1]), mt_edge(in_v[0], out_v[2]), outward);
        } else if (no == 1u) {
            emit(mt_edge(out_v[0], in_v[0]), mt_edge(out_v[0], in_v[1]), mt_edge(out_v[0], in_v[2]), outward);
        } else {
            vec3 p0 = mt_edge(in_v[0], out_v[0]), p1 = mt_edge(in_v[0], out_v[1]);
            vec3 p2 = mt_edge(in_v[1], out_v[1]), p3 = mt_edge(in_v[1], out_v[0]);
            emit(p0, p1, p2, outward);
            emit(p0, p2, p3, outward);
        }
    }
}
