#version 450
// DFSPH, once a substep after sph.density (cell order): the factor beta_i
// (sph_dfsph.glsl), the wall ghosts' gradient sums G_i and H_i, and the
// solve's velocity (xyz) and density (w) copied from sph.density's packed
// state; thread 0 starts the divergence solve (state and dispatch
// arguments).
// Coupled (-DEDDY_COUPLED): a coupled set's boundary particles are ghosts
// of volume V_b that move with their bodies, folded into the ghosts' sums
// (G += sum V_b grad W_spiky / s^3, H += sum V_b grad W_poly6 / s^3, lever
// += their lever / s^3, all static while the solve runs), and H.w =
// -sum V_b v_b . grad W_poly6 / s^3, the density rate the boundary's own
// motion makes (sph.dfsph_kappa adds rho0 s^3 H.w). That variant scans
// the cells (the lists' binding 5 carries the boundary's velocities).
#extension GL_GOOGLE_include_directive : require
#include "sph_common.glsl"
#include "sph_dfsph.glsl"
#include "neighbours.glsl"

layout(local_size_x = 256) in;
#ifndef EDDY_COUPLED
layout(constant_id = 2) const uint SPH_NLIST = 0u;
#endif
layout(binding = 1, rgba32f) readonly uniform imageBuffer spm_tex;
#define spm_at(j) imageLoad(spm_tex, int(j)) // xyz position, w mass
layout(std430, binding = 2) readonly buffer VelRho { vec4 svr[]; };
layout(std430, binding = 3) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 4) readonly buffer End { uint cell_end[]; };
#ifndef EDDY_COUPLED
layout(binding = 5, r32ui) readonly uniform uimageBuffer nlist_tex;
#define nlist_at(j) imageLoad(nlist_tex, int(j)).x
#endif
layout(std430, binding = 6) readonly buffer Count { uint ncount[]; }; // the lists' (not read when coupled)
layout(std430, binding = 7) writeonly buffer Sdv { vec4 sdv[]; };   // xyz velocity, w density
layout(std430, binding = 8) writeonly buffer Sdf { vec4 sdf[]; };   // x beta, y k = kappa / rho
layout(std430, binding = 9) writeonly buffer Ghost { vec4 sghost[]; }; // SPH_DFSPH_G, SPH_DFSPH_H
layout(std430, binding = 10) writeonly buffer State { eddy_sph_iisph_state st; };
layout(std430, binding = 11) writeonly buffer Args { uint args[]; };
#ifdef EDDY_COUPLED
#define COUPLE_BINDING 12
#define COUPLE_VELOCITY_BINDING 5
#include "couple_boundary.glsl"
#endif

uint g_i;
vec3 g_x, g_S, g_T;
float g_h, g_Q;

void visit(uint j)
{
    vec4 pm = spm_at(j);
    vec3 r = g_x - pm.xyz;
    float r2 = dot(r, r), h = g_h;
    if (r2 >= h * h || j == g_i)
        return;
    vec3 gw = pm.w * eddy_grad_spiky(r2, h) * r, gp = pm.w * eddy_grad_poly6(r2, h) * r;
    g_S += gw;
    g_T += gp;
    g_Q += dot(gw, gp);
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i == 0u) {
        args[0] = (SPH_COUNT + 255u) / 256u;
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
    vec3 x = spm_at(i).xyz;
    vec4 vr = svr[i];
    float h = SPH_H;
    g_i = i, g_x = x, g_h = h, g_S = vec3(0.0), g_T = vec3(0.0), g_Q = 0.0;
    ivec3 c = sph_cell(x), dims = P.dims.xyz;
#ifdef EDDY_COUPLED
    EDDY_GRID_SCAN(c, dims, cell_start, cell_end, visit)
#else
    uint count = SPH_COUNT;
    EDDY_NEIGHBOURS(i, count, SPH_NLIST > 0u, SPH_NLIST, nlist_at, ncount, c, dims, cell_start, cell_end, visit)
#endif
    float s = uintBitsToFloat(P.misc.w), s3 = s * s * s;
    float m0 = SPH_RHO0 * s3, moving = 0.0; // a ghost's mass
    vec3 lever, H = eddy_wall_ghosts_grad_poly6(x, h, s, P.box_min.xyz, P.box_max.xyz);
    vec3 G = eddy_wall_ghosts_lever(x, h, s, P.box_min.xyz, P.box_max.xyz, P.gravity.xyz, lever).xyz;
#ifdef EDDY_COUPLED
    vec3 unused, blever, Hb;
    G += couple_boundary_lever(x, h, CP.gravity.xyz, unused, blever).xyz / s3;
    lever += blever / s3;
    moving = couple_boundary_iisph(x, h, vec3(0.0), Hb) / s3;
    H += Hb / s3;
#endif
    float B = eddy_dfsph_ghost_factor(vr.w, SPH_RHO0);
    vec3 SB = g_S + B * m0 * G, TH = g_T + m0 * H;
    float den = P.lattice.x * eddy_sph_solve_denominator(dot(SB, TH), length(SB) * length(TH), g_Q);
    sdf[i] = vec4(den > 0.0 ? 1.0 / den : 0.0, 0.0, 0.0, 0.0);
    sghost[SPH_DFSPH_G(i)] = vec4(G, 0.0);
    sghost[SPH_DFSPH_H(i)] = vec4(H, moving);
    sghost[SPH_DFSPH_LEVER(i)] = vec4(lever, 0.0);
    sdv[i] = vr;
}
