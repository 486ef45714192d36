#version 450
// PBF constraint pass (cell order), Macklin & Müller 2013 eqs. 1-11:
// rho_i = sum_j m_j W_poly6, C_i = rho_i / rho0 - 1,
// grad_k C_i = (m_k / rho0) grad W_spiky (k = j; minus their sum for k = i),
// lambda_i = -C_i / (sum_k |grad_k C_i|^2 + epsilon)  (the seed drops the minus).
#extension GL_GOOGLE_include_directive : require
#include "pbf_common.glsl"

layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Pos { vec4 sp[]; };
layout(std430, binding = 2) readonly buffer Mass { float smass[]; };
layout(std430, binding = 3) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 4) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 5) writeonly buffer Lambda { vec4 lambda[]; }; // x lambda, y denominator, z rho
layout(std430, binding = 6) readonly buffer Tool { eddy_pbf_tool T; };
layout(std430, binding = 7) readonly buffer Bin { vec4 sbin[]; };
#ifdef EDDY_COUPLED
#define COUPLE_BINDING 8
#define COUPLE_MASS_BINDING 12
#include "../../couple/shaders/couple_boundary.glsl"
#endif

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= PBF_COUNT)
        return;
    vec3 p = sp[i].xyz;
    float h = PBF_H, rho0 = PBF_RHO0, rho = 0.0, sum2 = 0.0;
    vec3 gi = vec3(0.0);
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
            float r2 = dot(r, r);
            if (r2 >= h * h)
                continue;
            float m = smass[j];
            rho += m * eddy_w_poly6(r2, h);
            vec3 g = (m / rho0) * eddy_grad_spiky(r2, h) * r;
            gi += g;
            sum2 += dot(g, g);
        }
    }
    // Ghosts behind the walls: density and gradient, but they do not move.
    float s3 = PBF_WALL_S * PBF_WALL_S * PBF_WALL_S;
    vec4 gh = pbf_ghosts(p);
    if (PBF_TOOL_R > 0.0)
        gh += pbf_tool_ghosts(p, T.centre.xyz);
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
    float C = rho / rho0 - 1.0;
    if (P.options.y != 0.0)
        C = max(C, 0.0); // unilateral: no pull where the fluid is expanded (a free surface)
    float denom = dot(gi, gi) + sum2 + smass[i] * dot(gw, gw);
    lambda[i] = vec4(-C / (denom + P.solver.x), denom, rho, 0.0);
}
