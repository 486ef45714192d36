#version 450
// PBF constraint pass (cell order), Macklin & Müller 2013 eqs. 1-11:
// rho_i = L sum_j m_j W_poly6 (L the normalise_density factor), C_i = rho_i / rho0 - 1,
// grad_k C_i = (m_k / rho0) grad W_spiky (k = j; minus their sum for k = i),
// lambda_i = -C_i / (sum_k |grad_k C_i|^2 + epsilon)  (the seed drops the minus).
#extension GL_GOOGLE_include_directive : require
#include "pbf_common.glsl"
#include "neighbours.glsl"

layout(local_size_x_id = 0) in;
layout(binding = 1, rgba32f) readonly uniform imageBuffer sp_tex;
#define sp_at(j) imageLoad(sp_tex, int(j))
layout(binding = 2, r32f) readonly uniform imageBuffer smass_tex;
#define smass_at(j) imageLoad(smass_tex, int(j)).x
layout(std430, binding = 3) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 4) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 5) writeonly buffer Lambda { vec4 lambda[]; }; // x lambda, y denominator, z rho
layout(std430, binding = 6) readonly buffer Tool { eddy_pbf_tool T; };
layout(std430, binding = 7) readonly buffer Bin { vec4 sbin[]; };
#ifdef EDDY_COUPLED
#define COUPLE_BINDING 11
#define COUPLE_MASS_BINDING 15
#include "couple_boundary.glsl"
#endif

layout(binding = 8, r32ui) readonly uniform uimageBuffer nlist_tex;
#define nlist_at(j) imageLoad(nlist_tex, int(j)).x
layout(std430, binding = 9) buffer Count { uint ncount[]; }; // [n]: the lists' flag, cleared here
// The ghosts' gradient sums, for pbf.delta at the same positions: [i] the
// walls', [n + i] the tool's (with a tool).
layout(std430, binding = 10) writeonly buffer Ghosts { vec4 sghost[]; };

vec3 g_p, g_gi;
float g_h, g_rho0, g_rho, g_sum2;

void visit(uint j)
{
    vec4 xj = sp_at(j); // w: the mass
    vec3 r = g_p - xj.xyz;
    float r2 = dot(r, r);
    if (r2 >= g_h * g_h)
        return;
    float m = xj.w;
    g_rho += m * eddy_w_poly6(r2, g_h);
    vec3 g = (m / g_rho0) * eddy_grad_spiky(r2, g_h) * r;
    g_gi += g;
    g_sum2 += dot(g, g);
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= PBF_COUNT)
        return;
    vec3 p = sp_at(i).xyz;
    float h = PBF_H, rho0 = PBF_RHO0;
    g_p = p, g_h = h, g_rho0 = rho0, g_rho = 0.0, g_sum2 = 0.0, g_gi = vec3(0.0);
    ivec3 dims = P.dims.xyz;
    ivec3 c = eddy_grid_cell(sbin[i].xyz, P.grid.xyz, P.grid.w, dims); // see pbf_common.glsl
    if (i == 0u)
        ncount[PBF_COUNT] = 0u; // pbf.apply sets it, pbf.neighbours reads it
    uint n = PBF_COUNT; // into a register: the list loop indexes with it
    EDDY_NEIGHBOURS(i, n, PBF_USE_LIST, PBF_NLIST, nlist_at, ncount, c, dims, cell_start, cell_end, visit)
    float rho = g_rho, sum2 = g_sum2;
    vec3 gi = g_gi;
    // Ghosts behind the walls: density and gradient, but they do not move.
    float s3 = PBF_WALL_S * PBF_WALL_S * PBF_WALL_S;
    vec4 gh = pbf_ghosts(p);
    sghost[i] = vec4(gh.xyz, 0.0);
    if (PBF_TOOL_R > 0.0) {
        vec4 gt = pbf_tool_ghosts(p, T.centre.xyz);
        sghost[PBF_COUNT + i] = vec4(gt.xyz, 0.0);
        gh += gt;
    }
    rho += rho0 * s3 * gh.w;
    gi += s3 * gh.xyz;
    // The boundary particles of a coupled rigid set: fluid at rest like the
    // ghosts, each of its own volume; they do not move in the projection,
    // but their bodies yield after it, so each also weighs in the
    // denominator with its share of its body's inverse mass relative to
    // this particle's (mass-weighted projection; modules/couple/README.md).
    vec3 gw = vec3(0.0);
#ifdef EDDY_COUPLED
    vec4 cb = couple_boundary(p, h, gw);
    rho += rho0 * cb.w;
    gi += cb.xyz;
#endif
    rho *= uintBitsToFloat(P.misc.w); // normalise_density: the rest lattice reads rho0
    float C = rho / rho0 - 1.0;
    if (P.options.y != 0.0)
        C = max(C, 0.0); // unilateral: no pull where the fluid is expanded (a free surface)
    float denom = dot(gi, gi) + sum2 + smass_at(i) * dot(gw, gw);
    lambda[i] = vec4(-C / (denom + P.solver.x), denom, rho, 0.0);
}
