#version 450
// volume.raster, 8 threads per boundary face (4 x 2 pixels at a time):
// every pixel whose view ray enters the mesh through the face (the face
// against the ray, the watertight test, t > 0) gets (t, id) in its list
// (id: tet << 2 | face). The pixels tried are those whose centres lie in
// the box of the face's projection grown by its rounding, or the whole
// image when a corner is at or behind the eye's plane. hits[pixel] counts them
// all; the list keeps the first P.lists.x (in any order: the cast takes
// the smallest (t, id), which no order changes), and a pixel with more
// uses the BVH instead, which gives the same faces.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
layout(std430, binding = 1) readonly buffer Pos { vec4 position[]; };
layout(std430, binding = 2) readonly buffer Tets { uint tets[]; };
layout(std430, binding = 3) readonly buffer Boundary { uint boundary[]; };
layout(binding = 4, rgba32f) uniform readonly image2D planes;
layout(std430, binding = 5) buffer Hits { uint hits[]; };
layout(std430, binding = 6) writeonly buffer Entries { uvec2 entries[]; };
#define VOLUME_FACES
#define VOLUME_PRIVATE_PARAMS
#include "volume.glsl"

void main()
{
    P = P_buffer;
    uint f = gl_GlobalInvocationID.x >> 3, lane = gl_GlobalInvocationID.x & 7u;
    if (f >= P.counts.y)
        return;
    uint id = boundary[f];
    vec3 n = imageLoad(planes, texel_of(id)).xyz, c[3];
    face_corners(id, c[0], c[1], c[2]);
    float w = P.right.w, h = P.up.w;
    vec2 lo = vec2(0.0), hi = vec2(w - 1.0, h - 1.0);
    float zmax = -1.0 / 0.0, zmin = 1.0 / 0.0, rmax = 0.0;
    vec2 qlo = vec2(1.0 / 0.0), qhi = vec2(-1.0 / 0.0);
    for (uint k = 0u; k < 3u; k++) {
        if (any(isnan(c[k])) || any(isinf(c[k])))
            return; // never hit (tri_hit fails on it)
        vec3 r = c[k] - P.eye.xyz;
        float z = dot(r, P.forward.xyz);
        zmax = max(zmax, z);
        zmin = min(zmin, z);
        rmax = max(rmax, length(r));
        // the inverse of eddy_view_ray: the pixel whose centre sees r
        vec2 q = vec2((dot(r, P.right.xyz) / (z * P.eye.w * P.forward.w) + 1.0) * 0.5 * w - 0.5,
                      (1.0 - dot(r, P.up.xyz) / (z * P.eye.w)) * 0.5 * h - 0.5);
        qlo = min(qlo, q);
        qhi = max(qhi, q);
    }
    // all corners at or behind the eye's plane: no hit at t > 0
    if (!(zmax > 0.0))
        return;
    // Turned away from the eye by a clear margin: every ray that meets the
    // face's plane at t > 0 has r . n > 0 (r . n has the sign of
    // n . (c - eye) on the plane), so no pixel's test can pass.
    float side = dot(n, c[0] - P.eye.xyz);
    if (side > 1e-4 * rmax)
        return;
    if (zmin > 0.0) {
        // Pixel (x, y) sees q = (x, y): the pixels whose centres are in the
        // projection's box, grown by its rounding many times over (and by
        // the watertight test's, which takes edges in).
        float pad = 0.01 + 1e-5 * (rmax / zmin) * (w + h) / P.eye.w;
        qlo = ceil(qlo - pad);
        qhi = floor(qhi + pad);
        if (!(qhi.x >= 0.0 && qhi.y >= 0.0 && qlo.x <= hi.x && qlo.y <= hi.y && qlo.x <= qhi.x && qlo.y <= qhi.y))
            return;
        lo = clamp(qlo, vec2(0.0), hi);
        hi = clamp(qhi, vec2(0.0), hi);
    }
    uint slots = P.lists.x, width = uint(w);
    for (uint py = uint(lo.y) + (lane >> 2); py <= uint(hi.y); py += 2u)
        for (uint px = uint(lo.x) + (lane & 3u); px <= uint(hi.x); px += 4u) {
            vec3 dir = view_ray(float(px), float(py));
            float t;
            if (dot(dir, n) < 0.0 && tri_hit(dir, P.eye.xyz, c[0], c[1], c[2], t) && t > 0.0) {
                uint pix = py * width + px, k = atomicAdd(hits[pix], 1u);
                if (k < slots)
                    entries[pix * slots + k] = uvec2(floatBitsToUint(t), id);
            }
        }
}
