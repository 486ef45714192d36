#version 450
// volume.preint, one thread per (front scalar i, back scalar j) texel of
// layer k of the table (x: front, y: back, z: length k (max segment) /
// (lengths - 1)); one pass a layer, k = 0, 1, 2, ... A texel holds the
// colour over the opacity and the optical depth (volume.h), which vary
// smoothly along the length where the opacity does not. Incremental
// pre-integration: layers 0 and 1 integrate their segment directly in 16
// slabs, each absorbing exactly (layer 0: the limit of C / alpha, the
// extinction-weighted mean colour); every longer layer is its front k/2
// layers followed by its back k - k/2 ones, both read from the table
// (linear in the scalar where they meet), so the work per texel stays
// constant and the error grows with log2 k, not k.
#extension GL_GOOGLE_include_directive : require
#define VOLUME_TF
layout(std430, binding = 1) readonly buffer Tf { vec4 tf[]; };
#include "volume.glsl"

layout(local_size_x = 64) in;
layout(binding = 2, rgba32f) uniform image3D table;
layout(push_constant) uniform Layer { uint k; } L;

#define SLABS 16u

float axis_scalar(uint i)
{
    return P.range.x + (P.range.y - P.range.x) * float(i) / float(P.table.x - 1u);
}

// (C / alpha, depth) from colour sums: the premultiplied colour cs, the
// optical depth, and sum(colour x extinction) / sum(extinction) for the
// limit of C / alpha when alpha vanishes (mean colour when both do).
vec4 texel(vec3 cs, float depth, vec3 ct, float tt, vec3 mean)
{
    float alpha = 1.0 - exp(-depth);
    vec3 c = alpha > 1e-6 ? cs / alpha : (tt > 0.0 ? ct / tt : mean);
    return vec4(c, depth);
}

void main()
{
    uint ns = P.table.x, id = gl_GlobalInvocationID.x;
    if (id >= ns * ns)
        return;
    uint i = id % ns, j = id / ns, k = L.k;
    vec4 o;
    if (k < 2u) {
        float sf = axis_scalar(i), sb = axis_scalar(j);
        float h = float(k) * (P.range.z / float(P.table.y - 1u)) / float(SLABS);
        vec3 c = vec3(0.0), ct = vec3(0.0), mean = vec3(0.0);
        float tt = 0.0, depth = 0.0;
        for (uint q = 0u; q < SLABS; q++) {
            vec3 col;
            float tau;
            tf_eval(sf + (sb - sf) * (float(q) + 0.5) / float(SLABS), col, tau);
            float a = 1.0 - exp(-tau * h), trans = exp(-depth);
            c += trans * col * a;
            ct += col * tau;
            mean += col * (1.0 / float(SLABS));
            tt += tau;
            depth += tau * h;
        }
        o = texel(c, depth, ct, tt, mean);
    } else {
        uint ka = k / 2u, kb = k - ka;
        float x = float(i) + (float(j) - float(i)) * float(ka) / float(k);
        uint m = uint(clamp(floor(x), 0.0, float(ns - 2u)));
        float w = x - float(m);
        vec4 f0 = imageLoad(table, ivec3(i, m, ka)), f1 = imageLoad(table, ivec3(i, m + 1u, ka));
        vec4 b0 = imageLoad(table, ivec3(m, j, kb)), b1 = imageLoad(table, ivec3(m + 1u, j, kb));
        vec4 f = f0 + w * (f1 - f0), b = b0 + w * (b1 - b0);
        float af = 1.0 - exp(-f.w), ab = 1.0 - exp(-b.w);
        vec3 cs = f.xyz * af + (1.0 - af) * b.xyz * ab, ct = f.xyz * f.w + b.xyz * b.w;
        o = texel(cs, f.w + b.w, ct, f.w + b.w, 0.5 * (f.xyz + b.xyz));
    }
    imageStore(table, ivec3(i, j, k), o);
}
