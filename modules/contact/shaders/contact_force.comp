#version 450
// Contact step 2, once per side (one thread a particle of the side,
// combined order): the force on it from every particle of the other side
// within the sum of their radii (contact_pair), a gather over the other
// side's grid in a fixed order (cells, then cell order), written in
// combined order.
#extension GL_GOOGLE_include_directive : require
#include "contact_common.glsl"

layout(local_size_x_id = 0) in;
layout(push_constant) uniform Count { uint count; } S; // this side's particles
layout(std430, binding = 0) readonly buffer Params { eddy_contact_params P; };
layout(std430, binding = 1) readonly buffer CPos { vec4 cpos[]; };   // this side
layout(std430, binding = 2) readonly buffer CVel { vec4 cvel[]; };
layout(std430, binding = 3) readonly buffer OPos { vec4 opos[]; };   // the other side, sorted
layout(std430, binding = 4) readonly buffer OVel { vec4 ovel[]; };
layout(std430, binding = 5) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 6) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 7) writeonly buffer Force { vec4 force[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= S.count)
        return;
    vec4 xi = cpos[i];
    vec3 v = cvel[i].xyz, f = vec3(0.0);
    ivec3 dims = P.dims.xyz;
    ivec3 c = eddy_grid_cell(xi.xyz, P.grid.xyz, P.grid.w, dims);
    for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
        ivec3 q = c + ivec3(dx, dy, dz);
        if (any(lessThan(q, ivec3(0))) || any(greaterThanEqual(q, dims)))
            continue;
        uint cell = eddy_grid_linear(q, dims);
        uint s = cell_start[cell];
        if (s == EDDY_GRID_EMPTY)
            continue;
        uint e = cell_end[cell];
        for (uint j = s; j < e; j++) {
            vec4 xj = opos[j];
            f += contact_pair(xj.xyz - xi.xyz, ovel[j].xyz - v, xi.w + xj.w, P.coeffs);
        }
    }
    force[i] = vec4(f, 0.0);
}
