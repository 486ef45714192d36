#version 450
// PBF vorticity (cell order), Macklin & Müller 2013 eq. 15:
// omega_i = sum_j (m_j / rho0) (v_j - v_i) x grad W_spiky(x_i - x_j).
#extension GL_GOOGLE_include_directive : require
#include "pbf_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Pos { vec4 sp[]; };
layout(std430, binding = 2) readonly buffer Vel { vec4 sv[]; };
layout(std430, binding = 3) readonly buffer Mass { float smass[]; };
layout(std430, binding = 4) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 5) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 6) writeonly buffer Vort { vec4 svort[]; }; // xyz omega, w |omega|
layout(std430, binding = 7) readonly buffer Bin { vec4 sbin[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= PBF_COUNT)
        return;
    vec3 p = sp[i].xyz, v = sv[i].xyz, w = vec3(0.0);
    float h = PBF_H, rho0 = PBF_RHO0;
    ivec3 dims = P.dims.xyz;
    ivec3 c = eddy_grid_cell(sbin[i].xyz, P.grid.xyz, P.grid.w, dims); // see pbf_common.glsl
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
            vec3 r = p - sp[j].xyz;
            w += (smass[j] / rho0) * cross(sv[j].xyz - v, eddy_grad_spiky(dot(r, r), h) * r);
        }
    }
    svort[i] = vec4(w, length(w));
}
