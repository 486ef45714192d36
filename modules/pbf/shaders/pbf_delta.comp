#version 450
// PBF position correction (cell order), Macklin & Müller 2013 eqs. 12-14:
// dx_i = sum_j (m_j / rho0) (lambda_i + lambda_j + s_corr) grad W_spiky(x_i - x_j),
// s_corr = -k_s (W(r) / W(dq))^n, expressed as a lambda (divided by the mean
// of the two constraint denominators) so that it keeps its meaning in SI units.
#extension GL_GOOGLE_include_directive : require
#include "pbf_common.glsl"
#include "neighbours.glsl"

layout(local_size_x_id = 0) in;
layout(binding = 1, rgba32f) readonly uniform imageBuffer sp_tex;
#define sp_at(j) imageLoad(sp_tex, int(j))
layout(binding = 2, r32f) readonly uniform imageBuffer smass_tex;
#define smass_at(j) imageLoad(smass_tex, int(j)).x
layout(binding = 3, rgba32f) readonly uniform imageBuffer lambda_tex;
#define lambda_at(j) imageLoad(lambda_tex, int(j))
layout(std430, binding = 4) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 5) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 6) writeonly buffer Delta { vec4 dp[]; };
layout(std430, binding = 7) readonly buffer Ghosts { vec4 sghost[]; }; // pbf.lambda's, at these positions
layout(std430, binding = 8) buffer ToolPush { vec4 tpush[]; };
layout(std430, binding = 9) readonly buffer Bin { vec4 sbin[]; };
#ifdef EDDY_COUPLED
#define COUPLE_BINDING 12
#include "couple_boundary.glsl"
#endif

layout(binding = 10, r32ui) readonly uniform uimageBuffer nlist_tex;
#define nlist_at(j) imageLoad(nlist_tex, int(j)).x
layout(std430, binding = 11) readonly buffer Count { uint ncount[]; };

uint g_i;
vec3 g_p, g_d;
vec4 g_li;
float g_h, g_rho0, g_eps, g_wdq, g_tk, g_tn;

void visit(uint j)
{
    if (j == g_i)
        return;
    vec4 xj = sp_at(j); // w: the mass
    vec3 r = g_p - xj.xyz;
    float r2 = dot(r, r);
    if (r2 >= g_h * g_h)
        return;
    vec4 lj = lambda_at(j);
    float corr = g_wdq > 0.0 ? pow(eddy_w_poly6(r2, g_h) / g_wdq, g_tn) : 0.0;
    float s_corr = -g_tk * corr * 2.0 / (g_li.y + lj.y + 2.0 * g_eps);
    g_d += (xj.w / g_rho0) * (g_li.x + lj.x + s_corr) * eddy_grad_spiky(r2, g_h) * r;
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= PBF_COUNT)
        return;
    vec3 p = sp_at(i).xyz;
    float h = PBF_H, rho0 = PBF_RHO0, eps = P.solver.x;
    vec4 li = lambda_at(i);
    float wdq = eddy_w_poly6(P.solver.w * P.solver.w, h);
    g_i = i, g_p = p, g_h = h, g_rho0 = rho0, g_eps = eps, g_li = li, g_wdq = wdq, g_d = vec3(0.0);
    // Parameters into registers: an SSBO load in the loop is paid per lane per visit.
    g_tk = P.solver.y, g_tn = P.solver.z;
    ivec3 dims = P.dims.xyz;
    ivec3 c = eddy_grid_cell(sbin[i].xyz, P.grid.xyz, P.grid.w, dims); // see pbf_common.glsl
    uint n = PBF_COUNT; // into a register: the list loop indexes with it
    EDDY_NEIGHBOURS(i, n, PBF_USE_LIST, PBF_NLIST, nlist_at, ncount, c, dims, cell_start, cell_end, visit)
    vec3 d = g_d;
    // Ghosts are fixed fluid at rest: lambda_g = 0, so only lambda_i acts
    // (a mirrored lambda_g = lambda_i pushed twice as hard and kept the wall
    // layer oscillating).
    float s3 = PBF_WALL_S * PBF_WALL_S * PBF_WALL_S;
    d += s3 * li.x * sghost[i].xyz;
    // The tool's ghosts push the same way; what they give is the tool's
    // contact push (summed over the iterations).
    if (PBF_TOOL_R > 0.0) {
        vec3 dt = s3 * li.x * sghost[PBF_COUNT + i].xyz;
        d += dt;
        tpush[i].xyz += dt;
    }
    // Boundary particles likewise; couple.pbf gives their bodies the opposite
    // momentum.
#ifdef EDDY_COUPLED
    vec3 unused;
    d += li.x * couple_boundary(p, h, unused).xyz;
#endif
    dp[i] = vec4(d, 0.0);
}
