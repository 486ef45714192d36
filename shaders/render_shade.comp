#version 450
// Renderer pass 3: one pixel a thread: the claiming particle's sphere normal
// at the hit, Lambert plus ambient light from over the camera's shoulder, the
// particle's colour from a scalar (speed, density or set) through a blue to
// red ramp; the background a vertical grey gradient. RGBA8 out.
#extension GL_GOOGLE_include_directive : require
#include "render.glsl"

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Sphere { vec4 sphere[]; };  // per id: xyz centre, w radius
layout(std430, binding = 1) readonly buffer Scalar { float scalar[]; }; // per id: value in [0, 1], < 0 grey
layout(std430, binding = 2) readonly buffer Ids { uint ids[]; };
layout(std430, binding = 3) writeonly buffer Image { uint image[]; };

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
        vec4 s = sphere[id];
        vec3 dir = eddy_ray(float(x), float(y));
        float t = max(eddy_hit(dir, s.xyz, s.w), 0.0);
        vec3 n = normalize(cam.eye.xyz + t * dir - s.xyz);
        vec3 l = normalize(-cam.forward.xyz + 0.6 * cam.up.xyz + 0.3 * cam.right.xyz);
        float lambert = max(dot(n, l), 0.0);
        // A negative scalar marks a solid (a tool): light grey.
        c = (scalar[id] < 0.0 ? vec3(0.8) : ramp(scalar[id])) * (0.3 + 0.7 * lambert);
    }
    uvec3 b = uvec3(clamp(c, 0.0, 1.0) * 255.0 + 0.5);
    image[pix] = b.r | (b.g << 8) | (b.b << 16) | (255u << 24);
}
