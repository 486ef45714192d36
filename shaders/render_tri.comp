#version 450
// Renderer passes 1 (mode 0) and 2 (mode 1) for the triangles, after the
// spheres' own (render_splat.comp) and into the same depth and id buffers, so
// spheres and triangles hide each other. One thread a triangle: its screen
// bounding box, a ray through every pixel centre in it against the triangle
// (eddy_hit_triangle); mode 0 keeps the nearest hit distance per pixel
// (atomicMin of the float's bits: positive floats order like their bits),
// mode 1 lets the triangles whose hit equals the pixel's minimum claim it
// (atomicMin of the id: ties go to the lowest id, and every sphere's id is
// below every triangle's).
//
// Near the eye: a triangle with a corner at view depth <= NEAR (in front of
// the eye plane by less than 1 mm, or behind it) is skipped, not clipped:
// its projection would be unbounded or folded. Large ones: the box is clamped
// to the image and to MAX_SPAN px a side from its top-left corner (a thread
// loops over at most MAX_SPAN^2 pixels), so a triangle wider than that on
// screen is drawn cut.
#extension GL_GOOGLE_include_directive : require
#include "render.glsl"

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Tri { vec4 tri[]; }; // render_tri_gather.comp
layout(std430, binding = 1) buffer Depth { uint depth[]; };
layout(std430, binding = 2) buffer Ids { uint ids[]; };
layout(constant_id = 1) const uint MODE = 0u;

const float NEAR = 1e-3;    // m
const float MAX_SPAN = 512.0; // px

void main()
{
    uint j = gl_GlobalInvocationID.x;
    if (j >= cam.count)
        return;
    vec4 a = tri[3u * j], b = tri[3u * j + 1u], c = tri[3u * j + 2u];
    if (b.w == 0.0)
        return; // names particles not in use
    // Finite and below 1e18 m, so the projection below stays finite and the
    // box's float to int conversions are defined (NaN fails the test too).
    vec3 big = vec3(1e18);
    if (!(all(lessThan(abs(a.xyz), big)) && all(lessThan(abs(b.xyz), big)) && all(lessThan(abs(c.xyz), big))))
        return;
    vec3 pa = eddy_project(a.xyz), pb = eddy_project(b.xyz), pc = eddy_project(c.xyz);
    if (!(pa.z > NEAR && pb.z > NEAR && pc.z > NEAR))
        return; // behind, across or too near the eye plane
    vec2 lo = min(pa.xy, min(pb.xy, pc.xy)), hi = max(pa.xy, max(pb.xy, pc.xy));
    vec2 size = vec2(cam.right.w, cam.up.w);
    if (any(lessThan(hi, vec2(-1.0))) || any(greaterThan(lo, size + 1.0)))
        return; // off screen
    // Pixel x's centre is x + 0.5: one pixel of margin either way leaves the
    // decision to the ray test.
    lo = max(floor(lo) - 1.0, vec2(0.0));
    hi = min(min(ceil(hi), size - 1.0), lo + (MAX_SPAN - 1.0));
    int x0 = int(lo.x), x1 = int(hi.x), y0 = int(lo.y), y1 = int(hi.y);
    vec3 ea = cam.eye.xyz - a.xyz, e1 = b.xyz - a.xyz, e2 = c.xyz - a.xyz;
    uint w = uint(cam.right.w);
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            float t = eddy_hit_triangle(eddy_ray(float(x), float(y)), ea, e1, e2);
            if (t <= 0.0)
                continue;
            uint pix = uint(y) * w + uint(x);
            if (MODE == 0u)
                atomicMin(depth[pix], floatBitsToUint(t));
            else if (depth[pix] == floatBitsToUint(t))
                atomicMin(ids[pix], cam.id_base + j);
        }
}
