#version 450
// PBF: x* += dx, then out of the tool, the box and the solids (positions
// only: the velocity comes from the positions at the end of the step).
#extension GL_GOOGLE_include_directive : require
#include "pbf_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) buffer Pos { vec4 sp[]; };
layout(std430, binding = 2) readonly buffer Delta { vec4 dp[]; };
layout(std430, binding = 3) readonly buffer Solids { EddySolid solids[]; };
layout(std430, binding = 4) readonly buffer Tool { eddy_pbf_tool T; };
layout(std430, binding = 5) buffer ToolPush { vec4 tpush[]; };
layout(std430, binding = 6) readonly buffer Index { uint sorted_index[]; };
layout(std430, binding = 7) writeonly buffer Clamped { uint clamped[]; };
layout(std430, binding = 8) readonly buffer Built { vec4 lpos[]; }; // where the lists were built
layout(std430, binding = 9) buffer Count { uint ncount[]; }; // [n]: the neighbour lists' flag
layout(std430, binding = 10) readonly buffer Old { vec4 sold[]; }; // w: the radius (sp's w is the mass)

#include "solids.glsl"

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= PBF_COUNT)
        return;
    vec4 x = sp[i];
    vec3 p = x.xyz + dp[i].xyz, v = vec3(0.0);
    float radius = sold[i].w;
    // Out of the tool first, radially to one particle radius off its
    // surface; the move is part of the tool's contact push.
    if (PBF_TOOL_R > 0.0) {
        vec3 d = p - T.centre.xyz;
        float r = length(d), lim = PBF_TOOL_R + radius;
        if (r < lim) {
            vec3 q = T.centre.xyz + (r > 0.0 ? d / r : vec3(0.0, 1.0, 0.0)) * lim;
            tpush[i].xyz += q - p;
            p = q;
        }
    }
    if (eddy_past_box(p, P.box_min.xyz, P.box_max.xyz))
        clamped[sorted_index[i]] = 1u;
    eddy_collide(p, v, radius, 0.0, P.box_min.xyz, P.box_max.xyz, uint(P.dims.w));
    sp[i] = vec4(p, x.w);
    // Past 0.45 skin (0.05 skin for rounding) the lists may miss a pair:
    // pbf.neighbours builds them again.
    if (PBF_NLIST > 0u) {
        vec3 moved = p - lpos[i].xyz;
        float skin = PBF_LIST_R - PBF_H;
        if (dot(moved, moved) > 0.2025 * skin * skin)
            atomicOr(ncount[PBF_COUNT], 1u);
    }
}
