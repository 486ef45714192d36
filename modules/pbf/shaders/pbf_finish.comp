#version 450
// PBF end of step: vorticity confinement (eq. 16: eta = grad |omega|,
// N = eta / |eta|, v += dt epsilon_v N x omega) and XSPH viscosity
// v_i += c sum_j (m_j / rho0) (v_j - v_i) W_poly6, then position, velocity and
// density back in particle order.
#extension GL_GOOGLE_include_directive : require
#include "pbf_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Pos { vec4 sp[]; };
layout(std430, binding = 2) readonly buffer Vel { vec4 sv[]; };
layout(std430, binding = 3) readonly buffer Mass { float smass[]; };
layout(std430, binding = 4) readonly buffer Lambda { vec4 lambda[]; };
layout(std430, binding = 5) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 6) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 7) readonly buffer Index { uint sorted_index[]; };
layout(std430, binding = 8) writeonly buffer Position { vec4 position[]; };
layout(std430, binding = 9) writeonly buffer Velocity { vec4 velocity[]; };
layout(std430, binding = 10) writeonly buffer Density { float density[]; };
layout(std430, binding = 11) readonly buffer Vort { vec4 svort[]; };
layout(std430, binding = 12) readonly buffer Bin { vec4 sbin[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= PBF_COUNT)
        return;
    vec3 p = sp[i].xyz, v = sv[i].xyz, dv = vec3(0.0), eta = vec3(0.0);
    float h = PBF_H, rho0 = PBF_RHO0, eps_v = P.options.w;
    if (P.options.x != 0.0 || eps_v != 0.0) {
        ivec3 dims = P.dims.xyz;
        ivec3 c = eddy_grid_cell(sbin[i].xyz, P.grid.xyz, P.grid.w, dims);
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
                float r2 = dot(r, r), vol = smass[j] / rho0;
                dv += vol * (sv[j].xyz - v) * eddy_w_poly6(r2, h);
                if (eps_v != 0.0)
                    eta += vol * svort[j].w * eddy_grad_spiky(r2, h) * r;
            }
        }
    }
    uint o = sorted_index[i];
    position[o] = sp[i];
    vec3 f = vec3(0.0);
    float el = length(eta);
    if (eps_v != 0.0 && el > 0.0)
        f = eps_v * cross(eta / el, svort[i].xyz);
    velocity[o] = vec4(v + P.options.x * dv + PBF_DT * f, 0.0);
    density[o] = lambda[i].z;
}
