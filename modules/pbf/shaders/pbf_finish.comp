#version 450
// PBF end of step: vorticity confinement (eq. 16: eta = grad |omega|,
// N = eta / |eta|, v += dt epsilon_v N x omega) and XSPH viscosity
// v_i += c sum_j (m_j / rho0) (v_j - v_i) W_poly6, then position, velocity and
// density back in particle order.
#extension GL_GOOGLE_include_directive : require
#include "pbf_common.glsl"
#include "neighbours.glsl"

layout(local_size_x_id = 0) in;
layout(binding = 1, rgba32f) readonly uniform imageBuffer sp_tex;
#define sp_at(j) imageLoad(sp_tex, int(j))
layout(binding = 2, rgba32f) readonly uniform imageBuffer sv_tex;
#define sv_at(j) imageLoad(sv_tex, int(j))
layout(binding = 3, r32f) readonly uniform imageBuffer smass_tex;
#define smass_at(j) imageLoad(smass_tex, int(j)).x
layout(binding = 4, rgba32f) readonly uniform imageBuffer lambda_tex;
#define lambda_at(j) imageLoad(lambda_tex, int(j))
layout(std430, binding = 5) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 6) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 7) readonly buffer Index { uint sorted_index[]; };
layout(std430, binding = 8) writeonly buffer Position { vec4 position[]; };
layout(std430, binding = 9) writeonly buffer Velocity { vec4 velocity[]; };
layout(std430, binding = 10) writeonly buffer Density { float density[]; };
layout(binding = 11, rgba32f) readonly uniform imageBuffer svort_tex;
#define svort_at(j) imageLoad(svort_tex, int(j))
layout(std430, binding = 12) readonly buffer Bin { vec4 sbin[]; };

layout(binding = 13, r32ui) readonly uniform uimageBuffer nlist_tex;
#define nlist_at(j) imageLoad(nlist_tex, int(j)).x
layout(std430, binding = 14) readonly buffer Count { uint ncount[]; };
layout(std430, binding = 15) readonly buffer Old { vec4 sold[]; }; // w: the radius (sp's w is the mass)

vec3 g_p, g_v, g_dv, g_eta;
float g_h, g_rho0, g_eps_v;

// No test of r against h: both kernels are zero beyond it, so the particles
// of the cells that are not neighbours add nothing (and are not in the list).
void visit(uint j)
{
    vec4 xj = sp_at(j); // w: the mass
    vec3 r = g_p - xj.xyz;
    float r2 = dot(r, r), vol = xj.w / g_rho0;
    g_dv += vol * (sv_at(j).xyz - g_v) * eddy_w_poly6(r2, g_h);
    if (g_eps_v != 0.0)
        g_eta += vol * svort_at(j).w * eddy_grad_spiky(r2, g_h) * r;
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= PBF_COUNT)
        return;
    vec3 p = sp_at(i).xyz, v = sv_at(i).xyz;
    float h = PBF_H, rho0 = PBF_RHO0, eps_v = P.options.w;
    g_p = p, g_v = v, g_dv = vec3(0.0), g_eta = vec3(0.0), g_h = h, g_rho0 = rho0, g_eps_v = eps_v;
    if (P.options.x != 0.0 || eps_v != 0.0) {
        ivec3 dims = P.dims.xyz;
        ivec3 c = eddy_grid_cell(sbin[i].xyz, P.grid.xyz, P.grid.w, dims);
        uint n = PBF_COUNT; // into a register: the list loop indexes with it
        EDDY_NEIGHBOURS(i, n, PBF_USE_LIST, PBF_NLIST, nlist_at, ncount, c, dims, cell_start, cell_end, visit)
    }
    vec3 dv = g_dv, eta = g_eta;
    uint o = sorted_index[i];
    position[o] = vec4(sp_at(i).xyz, sold[i].w);
    vec3 f = vec3(0.0);
    float el = length(eta);
    if (eps_v != 0.0 && el > 0.0)
        f = eps_v * cross(eta / el, svort_at(i).xyz);
    velocity[o] = vec4(v + P.options.x * dv + PBF_DT * f, 0.0);
    density[o] = lambda_at(i).z;
}
