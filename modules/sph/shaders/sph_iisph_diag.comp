#version 450
// IISPH, once a substep after sph.forces (cell order): the source term
// rho0 - rho*_i, the diagonal a_ii of the pressure system, and the pressure
// the iterations start from (EDDY_SPH_IISPH_WARM of the last substep's).
// It keeps the wall ghosts' sums for the iterations (sph_iisph.glsl).
// Thread 0 resets the solver's state and dispatch arguments.
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"
#include "sph_iisph.glsl"
#include "neighbours.glsl"

layout(local_size_x_id = 0) in;
layout(binding = 1, rgba32f) readonly uniform imageBuffer spm_tex;
#define spm_at(j) imageLoad(spm_tex, int(j)) // xyz position, w mass
layout(binding = 2, rgba32f) readonly uniform imageBuffer svr_tex;
#define svr_at(j) imageLoad(svr_tex, int(j)) // xyz velocity, w density
layout(binding = 3, rgba32f) readonly uniform imageBuffer saccel_tex;
#define saccel_at(j) imageLoad(saccel_tex, int(j)) // non-pressure acceleration
layout(std430, binding = 4) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 5) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 6) buffer Pressure { float spress[]; };
layout(std430, binding = 7) writeonly buffer System { vec4 siis[]; }; // x rho0 - rho*, y a_ii
layout(std430, binding = 8) writeonly buffer Args { uint args[]; };
layout(std430, binding = 9) writeonly buffer State { eddy_sph_iisph_state st; };
layout(binding = 10, rgba32f) writeonly uniform imageBuffer sghost_tex; // SPH_IISPH_GHOSTS a particle
#ifdef EDDY_COUPLED
#define COUPLE_BINDING 11
#define COUPLE_VELOCITY_BINDING 15
#include "couple_boundary.glsl"
#endif

uint g_i;
vec3 g_x, g_vs, g_K, g_M;
float g_h, g_dt, g_m_i, g_rho_i, g_div, g_D;
bool g_symmetric;

void visit(uint j)
{
    vec4 pm = spm_at(j);
    vec3 r = g_x - pm.xyz;
    float r2 = dot(r, r), h = g_h;
    if (r2 >= h * h || j == g_i)
        return;
    vec4 vrj = svr_at(j);
    vec3 gw = eddy_grad_spiky(r2, h) * r, gd = eddy_grad_poly6(r2, h) * r;
    float m_j = pm.w, rho_j = vrj.w;
    g_div += m_j * dot(g_vs - (vrj.xyz + g_dt * saccel_at(j).xyz), gd);
    g_K += eddy_sph_pair(g_symmetric, m_j, g_rho_i, 1.0, rho_j, 0.0) * gw;
    g_M += m_j * gd;
    g_D += m_j / rho_j * eddy_sph_pair(g_symmetric, g_m_i, rho_j, 0.0, g_rho_i, 1.0) * dot(gw, gd);
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i == 0u) {
        uint g = (SPH_COUNT + 255u) / 256u;
        args[0] = g;
        args[1] = 1u;
        args[2] = 1u;
        args[3] = 1u;
        args[4] = 1u;
        args[5] = 1u;
        st.s = uvec4(0u);
        st.g.y = 0u;
    }
    if (i >= SPH_COUNT)
        return;
    bool symmetric = P.model.x == EDDY_SPH_SYMMETRIC;
    vec4 pmi = spm_at(i), vri = svr_at(i);
    vec3 x = pmi.xyz;
    float h = SPH_H, dt = SPH_DT, rho0 = SPH_RHO0, m_i = pmi.w, rho_i = vri.w;
    vec3 vs = vri.xyz + dt * saccel_at(i).xyz;
    g_i = i, g_x = x, g_vs = vs, g_h = h, g_dt = dt, g_m_i = m_i, g_rho_i = rho_i, g_symmetric = symmetric;
    g_div = 0.0, g_D = 0.0, g_K = vec3(0.0), g_M = vec3(0.0);
    // Once a substep: the scan (the lists' bindings would be over the limit).
    ivec3 c = sph_cell(x), dims = P.dims.xyz;
    EDDY_GRID_SCAN(c, dims, cell_start, cell_end, visit)
    float div = g_div, D = g_D;
    vec3 K = g_K, M = g_M;
    float s = uintBitsToFloat(P.misc.w), s3 = s * s * s, L = P.lattice.x;
    vec3 lever;
    vec3 G = eddy_wall_ghosts_lever(x, h, s, P.box_min.xyz, P.box_max.xyz, P.gravity.xyz, lever).xyz,
         Gd = eddy_wall_ghosts_grad_poly6(x, h, s, P.box_min.xyz, P.box_max.xyz);
    imageStore(sghost_tex, int(SPH_IISPH_GHOSTS * i + SPH_IISPH_GHOST_SPIKY), vec4(G, 0.0));
    imageStore(sghost_tex, int(SPH_IISPH_GHOSTS * i + SPH_IISPH_GHOST_LEVER), vec4(lever, 0.0));
    imageStore(sghost_tex, int(SPH_IISPH_GHOSTS * i + SPH_IISPH_GHOST_POLY6), vec4(Gd, 0.0));
    div += rho0 * s3 * dot(vs, Gd);
    vec3 B = s3 * G, Md = M + rho0 * s3 * Gd;
    bool body = false;
    // A coupled set's particles: boundary like the ghosts, of volume V_b
    // each, moving with their bodies (the density they predict is relative).
#ifdef EDDY_COUPLED
    vec3 unused, Bd;
    vec4 cb = couple_boundary(x, h, unused);
    B += cb.xyz;
    body = cb.w > 0.0;
    div += rho0 * couple_boundary_iisph(x, h, vs, Bd);
    Md += rho0 * Bd;
#endif
    vec3 ci = -(K + eddy_sph_boundary(symmetric, rho_i, rho0) * B) / rho_i;
    // a_ii = dt^2 L (c_i . M_i - D_i); next to a body its size is kept to a
    // quarter of the aligned value at least (eddy_sph_solve_denominator:
    // a cube held at 45 degrees across the water line drove the pressure to
    // infinity). Not at the walls alone: there the floor layer's diagonal
    // is small too (the ghosts push with B, about twice the fluid's weight)
    // but the iterations hold, and floored it changed a still column's
    // floor pressure (1.45 to 1.72 of hydrostatic at 0.3 m, 1200 kg/m^3).
    float st = -dot(ci, Md);
    float aii = -dt * dt * L * (body ? eddy_sph_solve_denominator(st, length(ci) * length(Md), D) : st + D);
    siis[i] = vec4(rho0 - (rho_i + dt * L * div), aii, 0.0, 0.0);
    spress[i] *= EDDY_SPH_IISPH_WARM;
}
