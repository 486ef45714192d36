// Shared by the volume module's shaders: the parameter block (binding 0 in
// every pass), the view ray, the transfer function and the BVH's tests.
// The C twins are in volume_cpu.c and follow these line by line.
#ifndef VOLUME_GLSL
#define VOLUME_GLSL
#include "../volume_params.h"
#include "view.glsl"

layout(std430, binding = 0) readonly buffer Params { eddy_volume_params P; };

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

#endif
