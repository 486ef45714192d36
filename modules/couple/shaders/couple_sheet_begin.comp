#version 450
// Coupling with sheets (a cloth's triangles in a fluid's boundary slot),
// once per substep after couple.begin (one thread a triangle, combined
// order): its centroid where its vertices will be at the substep's end,
// to bin the triangles into the fluid's grid geometry.
#extension GL_GOOGLE_include_directive : require
#include "../couple_params.h"

layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Params { eddy_couple_params CP; };
layout(std430, binding = 1) readonly buffer Tris { uvec4 tris[]; }; // a, b, c (combined), thickness bits
layout(std430, binding = 2) readonly buffer Predicted { vec4 predicted[]; };
layout(std430, binding = 3) writeonly buffer Centroid { vec4 centre[]; };

void main()
{
    uint t = gl_GlobalInvocationID.x;
    if (t >= CP.counts.y)
        return;
    uvec4 v = tris[t];
    centre[t] = vec4((predicted[v.x].xyz + predicted[v.y].xyz + predicted[v.z].xyz) / 3.0, 0.0);
}
