// Shared by the volume module's shaders: the parameter block (binding 0 in
// every pass), the view ray, the transfer function and the BVH's tests.
// The C twins are in volume_cpu.c and follow these line by line.
#ifndef VOLUME_GLSL
#define VOLUME_GLSL
#include "../volume_params.h"
#include "view.glsl"

layout(std430, binding = 0) readonly buffer Params { eddy_volume_params P_buffer; };
#ifdef VOLUME_PRIVATE_PARAMS
// A private copy that main() fills first: lavapipe loads a buffer's value
// anew at every use, lane by lane, even a uniform one.
eddy_volume_params P;
#else
#define P P_buffer
#endif

// Texel k of the per-tet images (planes: 4 t + i, gradient: t, neighbours:
// 4 t + i). Images, not buffers: lavapipe loads a buffer's values lane by
// lane but an image's texels for all lanes at once.
ivec2 texel_of(uint k)
{
    return ivec2(k & ((1u << EDDY_VOLUME_ROW_SHIFT) - 1u), k >> EDDY_VOLUME_ROW_SHIFT);
}

// Face i of a tet is opposite vertex i: its other three vertices.
const uvec3 FACE_VERTEX[4] = uvec3[4](uvec3(1, 2, 3), uvec3(0, 2, 3), uvec3(0, 1, 3), uvec3(0, 1, 2));

// The view ray through pixel centre (px, py): the particle renderer's camera.
vec3 view_ray(float px, float py)
{
    return eddy_view_ray(P.eye, P.forward, P.right, P.up, px, py);
}

#ifdef VOLUME_TF
// The transfer function at s: colour and extinction (1/m); tf[2k] is point
// k's scalar in x, tf[2k + 1] its colour and opacity. Linear between
// points, constant beyond the ends; opacity a of a slab of the unit
// distance: extinction -ln(1 - a) / unit.
void tf_eval(float s, out vec3 color, out float tau)
{
    uint n = P.counts.w;
    float a;
    if (n == 1u || !(s > tf[0].x)) {
        color = tf[1].xyz;
        a = tf[1].w;
    } else if (!(s < tf[2u * (n - 1u)].x)) {
        color = tf[2u * n - 1u].xyz;
        a = tf[2u * n - 1u].w;
    } else {
        uint k = 0u;
        while (k + 2u < n && !(s < tf[2u * (k + 1u)].x))
            k++;
        float s0 = tf[2u * k].x, s1 = tf[2u * k + 2u].x;
        vec4 p = tf[2u * k + 1u], q = tf[2u * k + 3u];
        float w = (s - s0) / (s1 - s0);
        color = p.xyz + w * (q.xyz - p.xyz);
        a = p.w + w * (q.w - p.w);
    }
    a = clamp(a, 0.0, 1.0 - 1e-6);
    tau = -log(1.0 - a) / P.range.w;
}
#endif

#ifdef VOLUME_FACES
// The corners of boundary face id (tet << 2 | face): needs the position and
// tets buffers declared before this header.
void face_corners(uint id, out vec3 c0, out vec3 c1, out vec3 c2)
{
    uint t = id >> 2;
    uvec3 fv = FACE_VERTEX[id & 3u];
    c0 = position[tets[4u * t + fv.x]].xyz;
    c1 = position[tets[4u * t + fv.y]].xyz;
    c2 = position[tets[4u * t + fv.z]].xyz;
}

// The watertight ray-triangle test of Woop, Benthin and Wald (2013): the
// corners in a frame sheared so the ray is the z axis, three edge functions
// that two triangles sharing an edge compute from the same two corners
// (exactly opposite: `precise` keeps the compiler from fusing them
// differently), edges and corners inside, so a ray through a shared edge or
// vertex never slips between triangles. Any sign of t.
bool tri_hit(vec3 dir, vec3 eye, vec3 c0, vec3 c1, vec3 c2, out float t)
{
    t = 0.0;
    vec3 ad = abs(dir);
    uint kz = ad.x > ad.y ? (ad.x > ad.z ? 0u : 2u) : (ad.y > ad.z ? 1u : 2u);
    uint kx = (kz + 1u) % 3u, ky = (kx + 1u) % 3u;
    if (dir[kz] < 0.0) {
        uint s = kx;
        kx = ky;
        ky = s;
    }
    precise float sx = dir[kx] / dir[kz], sy = dir[ky] / dir[kz], sz = 1.0 / dir[kz];
    precise vec3 a0 = c0 - eye, a1 = c1 - eye, a2 = c2 - eye;
    precise vec3 px = vec3(a0[kx] - sx * a0[kz], a1[kx] - sx * a1[kz], a2[kx] - sx * a2[kz]);
    precise vec3 py = vec3(a0[ky] - sy * a0[kz], a1[ky] - sy * a1[kz], a2[ky] - sy * a2[kz]);
    precise vec3 pz = sz * vec3(a0[kz], a1[kz], a2[kz]);
    precise float u = px.z * py.y - py.z * px.y;
    precise float v = px.x * py.z - py.x * px.z;
    precise float w = px.y * py.x - py.y * px.x;
    if ((u < 0.0 || v < 0.0 || w < 0.0) && (u > 0.0 || v > 0.0 || w > 0.0))
        return false;
    precise float det = u + v + w;
    if (det == 0.0)
        return false;
    precise float tt = (u * pz.x + v * pz.y + w * pz.z) / det;
    t = tt;
    return t == t;
}
#endif

#endif
