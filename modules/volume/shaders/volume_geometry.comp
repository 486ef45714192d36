#version 450
// volume.geometry, one thread per tet: the outward unit normal of each face
// with n . x on it (face i opposite vertex i, turned away from vertex i so
// an inverted tet still has outward normals), and the scalar's gradient g
// with g-hat = s_0 - g . v_0 (PHYSICS.md, seed 003 eq. 12 and 14). A flat
// tet gets g = 0 and the mean scalar. A tet that holds the eye (on the
// inner side of its four planes, within their rounding) offers its index
// to guards[3] as ~t under atomicMax, so the lowest such tet wins whatever
// the order: volume.cast starts there (0 left: the eye is outside).
#extension GL_GOOGLE_include_directive : require
#include "volume.glsl"

layout(local_size_x = 64) in;
layout(std430, binding = 1) readonly buffer Pos { vec4 position[]; };
layout(std430, binding = 2) readonly buffer Scalar { float scalar[]; };
layout(std430, binding = 3) readonly buffer Tets { uint tets[]; };
layout(binding = 4, rgba32f) uniform writeonly image2D planes;
layout(binding = 5, rgba32f) uniform writeonly image2D gradient;
layout(std430, binding = 6) buffer Guards { uint guards[]; };

void main()
{
    uint t = gl_GlobalInvocationID.x;
    if (t >= P.counts.x)
        return;
    vec3 v[4];
    float s[4];
    for (uint i = 0u; i < 4u; i++) {
        uint k = tets[4u * t + i];
        v[i] = position[k].xyz;
        s[i] = scalar[k];
    }
    vec3 g = vec3(0.0);
    bool flat_ = false, holds = true;
    for (uint i = 0u; i < 4u; i++) {
        vec3 a = v[FACE_VERTEX[i].x], b = v[FACE_VERTEX[i].y], c = v[FACE_VERTEX[i].z];
        vec3 n = cross(b - a, c - a), to = v[i] - a;
        if (dot(n, to) > 0.0)
            n = -n;
        float len = sqrt(dot(n, n));
        n *= len > 0.0 ? 1.0 / len : 0.0;
        imageStore(planes, texel_of(4u * t + i), vec4(n, dot(n, a)));
        vec3 e = P.eye.xyz - a;
        holds = holds && dot(n, e) <= 1e-6 * sqrt(dot(e, e));
        float h = dot(n, to);
        if (!(h < 0.0))
            flat_ = true;
        else
            g += s[i] / h * n;
    }
    // counted after the loop: lavapipe runs a branch's code whether or not
    // a lane takes it
    if (holds && !flat_)
        atomicMax(guards[3], ~t);
    imageStore(gradient, texel_of(t), flat_ ? vec4(0.0, 0.0, 0.0, 0.25 * (s[0] + s[1] + s[2] + s[3]))
                                            : vec4(g, s[0] - dot(g, v[0])));
}
