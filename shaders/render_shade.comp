#version 450
// Renderer pass 3: one pixel a thread: the claiming sphere's normal at the
// hit, or the claiming triangle's face normal turned toward the viewer (two
// sided: cloth is open, and a closed surface's visible side faces the viewer
// anyway); Lambert plus ambient light from over the camera's shoulder; the
// colour from a scalar (speed, density, set or phase) through a blue to red
// ramp, a negative one grey; the background a vertical grey gradient. RGBA8
// out. Ids below cam.count are spheres, the rest triangles (render.glsl).
#extension GL_GOOGLE_include_directive : require
#include "render.glsl"

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Sphere { vec4 sphere[]; };  // per id: xyz centre, w radius
layout(std430, binding = 1) readonly buffer Scalar { float scalar[]; }; // per id: value in [0, 1], < 0 grey
layout(std430, binding = 2) readonly buffer Ids { uint ids[]; };
layout(std430, binding = 3) writeonly buffer Image { uint image[]; };
layout(std430, binding = 4) readonly buffer Tri { vec4 tri[]; };       // render_tri_gather.comp

vec3 ramp(float t)
{
    t = clamp(t, 0.0, 1.0);
    return clamp(vec3(1.5 - abs(4.0 * t - 3.0), 1.5 - abs(4.0 * t - 2.0), 1.5 - abs(4.0 * t - 1.0)), 0.0, 1.0);
}

void main()
{
    uint pix = gl_GlobalInvocationID.x;
    uint w = uint(cam.right.w), h = uint(cam.up.w);
    if (pix >= w * h)
        return;
    uint x = pix % w, y = pix / w;
    float g = 0.92 - 0.25 * float(y) / float(h);
    vec3 c = vec3(g, g, g + 0.03);
    uint id = ids[pix];
    if (id != 0xffffffffu) {
        vec3 dir = eddy_ray(float(x), float(y));
        vec3 n;
        float s;
        if (id < cam.count) {
            vec4 sp = sphere[id];
            float t = max(eddy_hit(dir, sp.xyz, sp.w), 0.0);
            n = normalize(cam.eye.xyz + t * dir - sp.xyz);
            s = scalar[id];
        } else {
            uint k = 3u * (id - cam.count);
            vec4 a = tri[k];
            n = normalize(cross(tri[k + 1u].xyz - a.xyz, tri[k + 2u].xyz - a.xyz));
            n = dot(n, dir) > 0.0 ? -n : n;
            s = a.w;
        }
        vec3 l = normalize(-cam.forward.xyz + 0.6 * cam.up.xyz + 0.3 * cam.right.xyz);
        float lambert = max(dot(n, l), 0.0);
        // A negative scalar marks a solid (a tool): light grey.
        c = (s < 0.0 ? vec3(0.8) : ramp(s)) * (0.3 + 0.7 * lambert);
    }
    uvec3 b = uvec3(clamp(c, 0.0, 1.0) * 255.0 + 0.5);
    image[pix] = b.r | (b.g << 8) | (b.b << 16) | (255u << 24);
}
