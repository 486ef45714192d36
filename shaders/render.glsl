// The offscreen particle renderer (engine/src/render.c): particles drawn as
// shaded spheres with a depth test, by compute passes only (no graphics
// pipeline, so it runs on any compute device). Depth and particle choice
// use atomicMin on integers, which gives the same image in any order.
#ifndef EDDY_RENDER_GLSL
#define EDDY_RENDER_GLSL

layout(push_constant) uniform Cam {
    vec4 eye;        // xyz camera position (m), w tan(fov_y / 2)
    vec4 forward;    // xyz unit view direction, w aspect (width / height)
    vec4 right;      // xyz unit, w image width (px)
    vec4 up;         // xyz unit, w image height (px)
    uint count;      // particles of this set
    uint id_base;    // first id of this set
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
    float x = ((px + 0.5) / cam.right.w * 2.0 - 1.0) * cam.eye.w * cam.forward.w;
    float y = (1.0 - (py + 0.5) / cam.up.w * 2.0) * cam.eye.w;
    return normalize(cam.forward.xyz + x * cam.right.xyz + y * cam.up.xyz);
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

#endif
