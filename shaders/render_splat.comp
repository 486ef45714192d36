#version 450
// Renderer pass 1 (mode 0) and 2 (mode 1) for the spheres: every pixel a
// particle's sphere covers gets its hit distance (atomicMin of the float's
// bits: positive floats order like their bits); then the particles whose hit
// equals the pixel's minimum claim it (atomicMin of the id: ties go to the
// lowest id). render_tri.comp does the same for triangles, into the same
// depth and id buffers.
#extension GL_GOOGLE_include_directive : require
#include "render.glsl"

layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Position { vec4 position[]; };
layout(std430, binding = 1) buffer Depth { uint depth[]; };
layout(std430, binding = 2) buffer Ids { uint ids[]; };
layout(constant_id = 1) const uint MODE = 0u;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= cam.count)
        return;
    vec4 p = position[i];
    vec3 s = eddy_project(p.xyz);
    if (s.z <= p.w)
        return; // behind the camera or around it
    float rpx = p.w / (s.z * cam.eye.w) * 0.5 * cam.up.w * 1.2 + 1.0;
    rpx = min(rpx, 64.0); // a particle near the lens covers at most 129 x 129 px
    int x0 = max(int(floor(s.x - rpx)), 0), x1 = min(int(ceil(s.x + rpx)), int(cam.right.w) - 1);
    int y0 = max(int(floor(s.y - rpx)), 0), y1 = min(int(ceil(s.y + rpx)), int(cam.up.w) - 1);
    uint w = uint(cam.right.w);
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            float t = eddy_hit(eddy_ray(float(x), float(y)), p.xyz, p.w);
            if (t <= 0.0)
                continue;
            uint pix = uint(y) * w + uint(x);
            if (MODE == 0u)
                atomicMin(depth[pix], floatBitsToUint(t));
            else if (depth[pix] == floatBitsToUint(t))
                atomicMin(ids[pix], cam.id_base + i);
        }
}
