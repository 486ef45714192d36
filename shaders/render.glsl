// The offscreen renderer (scene/src/render.c): particle sets drawn as shaded
// spheres and deformable bodies as their triangle surfaces, with one depth
// test between both, by compute passes only (no graphics pipeline, so it runs
// on any compute device). Depth and the choice of sphere or triangle use
// atomicMin on integers, which gives the same image in any order.
//
// Ids: one ids buffer holds both kinds: spheres take 0..count-1 (the shade
// pass's cam.count), triangles count.. after them.
//
// Two halves: the gather passes (render_gather.comp, render_tri_gather.comp)
// define EDDY_RENDER_GATHER first and get the set's input buffers and the
// colour scalar, so a particle and a triangle corner are coloured by one
// function; the others get the camera.
#ifndef EDDY_RENDER_GLSL
#define EDDY_RENDER_GLSL
#include "view.glsl"

#ifdef EDDY_RENDER_GATHER

// One particle set straight from its device buffers (bindings 0..3).
layout(std430, binding = 0) readonly buffer Position { vec4 position[]; };
layout(std430, binding = 1) readonly buffer Velocity { vec4 velocity[]; };
layout(std430, binding = 2) readonly buffer Density { float density[]; };
layout(std430, binding = 3) readonly buffer Phase { uint phase[]; };
layout(push_constant) uniform P {
    uint count;    // particles (render_gather) or triangles (render_tri_gather) to gather
    uint id_base;  // first sphere / triangle of this set in the renderer's list
    uint mode;     // colour scalar: 0 speed, 1 density, 2 constant, 3 phase
    uint vertices; // the set's particles (render_tri_gather: indices at or past it are not drawn)
    float lo, span, value, pad2;
} pc;

// Particle i's colour scalar: mode 0: speed, 1: density (both mapped to
// [0, 1] by (x - lo) / span), 2: a constant (the set's colour), 3: phase (a
// golden-ratio hash, as the C colouring did). Only the mode's buffer is read:
// the others may be any of the set's buffers (bound, not read).
float eddy_particle_scalar(uint i)
{
    if (pc.mode == 0u)
        return (length(velocity[i].xyz) - pc.lo) / pc.span;
    if (pc.mode == 1u)
        return (density[i] - pc.lo) / pc.span;
    if (pc.mode == 2u)
        return pc.value;
    return 0.05 + 0.9 * fract(float(phase[i]) * 0.6180339887498949);
}

#else

layout(push_constant) uniform Cam {
    vec4 eye;        // xyz camera position (m), w tan(fov_y / 2)
    vec4 forward;    // xyz unit view direction, w aspect (width / height)
    vec4 right;      // xyz unit, w image width (px)
    vec4 up;         // xyz unit, w image height (px)
    uint count;      // spheres (splat, shade) or triangles (render_tri) of the pass
    uint id_base;    // first id of the pass (triangles: after every sphere)
    uint set;        // set index (colour by set)
    uint pad;
} cam;

// Screen position (px) and view depth of a point; depth <= 0 means behind.
vec3 eddy_project(vec3 p)
{
    vec3 d = p - cam.eye.xyz;
    float z = dot(d, cam.forward.xyz);
    float x = dot(d, cam.right.xyz) / (z * cam.eye.w * cam.forward.w);
    float y = dot(d, cam.up.xyz) / (z * cam.eye.w);
    return vec3((x * 0.5 + 0.5) * cam.right.w, (0.5 - y * 0.5) * cam.up.w, z);
}

// The view ray through pixel centre (px, py).
vec3 eddy_ray(float px, float py)
{
    return eddy_view_ray(cam.eye, cam.forward, cam.right, cam.up, px, py);
}

// Distance along ray dir from the eye to the sphere (c, r); < 0 if missed.
float eddy_hit(vec3 dir, vec3 c, float r)
{
    vec3 oc = cam.eye.xyz - c;
    float b = dot(oc, dir), q = dot(oc, oc) - r * r, disc = b * b - q;
    if (disc < 0.0)
        return -1.0;
    return -b - sqrt(disc);
}

// Distance along ray dir from the eye to the triangle (a, a + e1, a + e2)
// (Möller–Trumbore; ea = eye - a); < 0 if missed. The comparisons are
// written so that NaN misses. Edges count as inside: a pixel centre on an
// edge two triangles share is claimed by one of them (depth, then id).
float eddy_hit_triangle(vec3 dir, vec3 ea, vec3 e1, vec3 e2)
{
    vec3 p = cross(dir, e2);
    float det = dot(e1, p);
    if (det == 0.0)
        return -1.0; // edge-on or degenerate
    float inv = 1.0 / det;
    float u = dot(ea, p) * inv;
    if (!(u >= 0.0 && u <= 1.0))
        return -1.0;
    vec3 q = cross(ea, e1);
    float v = dot(dir, q) * inv;
    if (!(v >= 0.0 && u + v <= 1.0))
        return -1.0;
    float t = dot(e2, q) * inv;
    return t > 0.0 ? t : -1.0;
}

#endif
#endif
