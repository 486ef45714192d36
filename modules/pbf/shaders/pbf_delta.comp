#version 450
// PBF position correction (cell order), Macklin & Müller 2013 eqs. 12-14:
// dx_i = sum_j (m_j / rho0) (lambda_i + lambda_j + s_corr) grad W_spiky(x_i - x_j),
// s_corr = -k_s (W(r) / W(dq))^n, expressed as a lambda (divided by the mean
// of the two constraint denominators) so that it keeps its meaning in SI units.
#extension GL_GOOGLE_include_directive : require
#include "pbf_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Pos { vec4 sp[]; };
layout(std430, binding = 2) readonly buffer Mass { float smass[]; };
layout(std430, binding = 3) readonly buffer Lambda { vec4 lambda[]; };
layout(std430, binding = 4) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 5) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 6) writeonly buffer Delta { vec4 dp[]; };
layout(std430, binding = 7) readonly buffer Tool { eddy_pbf_tool T; };
layout(std430, binding = 8) buffer ToolPush { vec4 tpush[]; };
layout(std430, binding = 9) readonly buffer Bin { vec4 sbin[]; };
#ifdef EDDY_COUPLED
#define COUPLE_BINDING 10
#include "../../couple/shaders/couple_boundary.glsl"
#endif

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= PBF_COUNT)
        return;
    vec3 p = sp[i].xyz;
    float h = PBF_H, rho0 = PBF_RHO0, eps = P.solver.x;
    vec4 li = lambda[i];
    float wdq = eddy_w_poly6(P.solver.w * P.solver.w, h);
    vec3 d = vec3(0.0);
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
            if (j == i)
                continue;
            vec3 r = p - sp[j].xyz;
            float r2 = dot(r, r);
            if (r2 >= h * h)
                continue;
            vec4 lj = lambda[j];
            float corr = wdq > 0.0 ? pow(eddy_w_poly6(r2, h) / wdq, P.solver.z) : 0.0;
            float s_corr = -P.solver.y * corr * 2.0 / (li.y + lj.y + 2.0 * eps);
            d += (smass[j] / rho0) * (li.x + lj.x + s_corr) * eddy_grad_spiky(r2, h) * r;
        }
    }
    // Ghosts are fixed fluid at rest: lambda_g = 0, so only lambda_i acts
    // (a mirrored lambda_g = lambda_i pushed twice as hard and kept the wall
    // layer oscillating).
    float s3 = PBF_WALL_S * PBF_WALL_S * PBF_WALL_S;
    d += s3 * li.x * pbf_ghosts(p).xyz;
    // The tool's ghosts push the same way; what they give is the tool's
    // contact push (summed over the iterations).
    if (PBF_TOOL_R > 0.0) {
        vec3 dt = s3 * li.x * pbf_tool_ghosts(p, T.centre.xyz).xyz;
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
