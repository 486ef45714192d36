// Shared by the PBF passes: parameters, kernels and the wall ghosts.
#extension GL_GOOGLE_include_directive : require
#include "../pbf_params.h"
#include "sph_kernels.h"
#include "eddy_solids.h"
#include "grid.glsl"
#include "ghosts.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Params { eddy_pbf_params P; };

// Neighbour loops start from the cell a particle was sorted into (sbin: its
// predicted position), not from where the iterations have moved it: then i
// finds j exactly when j finds i, every pair term acts on both, and momentum
// is conserved (from the current cell, a particle one cell over from its bin
// saw neighbours that did not see it: 1e-3 of a body's momentum in
// tests/physics/test_couple.c).
#define PBF_H (P.box_min.w)
#define PBF_DT (P.box_max.w)
#define PBF_RHO0 (P.gravity.w)
#define PBF_COUNT (P.misc.x)
#define PBF_NLIST (P.misc.y) // neighbour list capacity (0: no lists)
#define PBF_LIST_R (uintBitsToFloat(P.misc.z)) // list radius h + skin (m)
#define PBF_USE_LIST (PBF_NLIST > 0u)
#define PBF_WALL_S (P.options.z)

// Wall ghosts (shaders/ghosts.glsl); each ghost has mass rho0 s^3.
vec4 pbf_ghosts(vec3 p)
{
    return eddy_wall_ghosts(p, PBF_H, PBF_WALL_S, P.box_min.xyz, P.box_max.xyz);
}

#define PBF_TOOL_R (P.tool.x)

// Tool ghosts: the ball of radius R as fixed fluid at rest, moving with
// the tool, sampled in shells of the wall spacing s: shell k at radius
// r_k = R - s/2 - k s (while r_k >= s/2) holds n_k = round(4 pi r_k^2 / s^2)
// points on a Fibonacci sphere (z = 1 - (2j + 1) / n_k, azimuth j times the
// golden angle), each standing for its share of the shell [r_k - s/2,
// r_k + s/2]; what is left inside is one point at the centre. So the
// samples' volumes add up to the ball's, and its surface is smooth: the
// lattice c + s k before (|s k| <= R - s/2) was a staircase that held
// 67% of the ball's volume at R = 4 s and let the fluid into its steps
// (buoyancy -12%). Returns sum (V_b / s^3) grad W_spiky (xyz) and sum
// (V_b / s^3) W_poly6 (w) over the samples within h of p (callers scale by
// s^3, as for the wall ghosts). The C twin is eddy_sphere_ghosts_cpu
// (modules/common/ghosts.h).
vec4 pbf_tool_ghosts(vec3 p, vec3 c)
{
    float h = PBF_H, s = PBF_WALL_S, R = PBF_TOOL_R, s3 = s * s * s;
    vec3 d = p - c;
    float dl = length(d);
    if (R <= 0.0 || dl >= R + h)
        return vec4(0.0);
    float w = 0.0;
    vec3 g = vec3(0.0);
    float inner = R;
    for (int k = 0;; k++) {
        float rk = R - 0.5 * s - float(k) * s;
        if (rk < 0.5 * s)
            break;
        inner = rk - 0.5 * s;
        if (abs(dl - rk) >= h)
            continue; // no point of this shell within h
        float nf = max(1.0, round(12.566371 * rk * rk / (s * s)));
        int n = int(nf);
        float V = 4.1887902 * ((rk + 0.5 * s) * (rk + 0.5 * s) * (rk + 0.5 * s) -
                               (rk - 0.5 * s) * (rk - 0.5 * s) * (rk - 0.5 * s)) / (nf * s3);
        // Only the points whose z is within h of p's: a band of j.
        int j0 = max(0, int(floor((1.0 - (d.z + h) / rk) * nf * 0.5 - 0.5)));
        int j1 = min(n - 1, int(ceil((1.0 - (d.z - h) / rk) * nf * 0.5 - 0.5)));
        for (int j = j0; j <= j1; j++) {
            float z = 1.0 - (2.0 * float(j) + 1.0) / nf, rho = sqrt(max(1.0 - z * z, 0.0));
            float phi = 2.3999632 * float(j);
            vec3 r = d - rk * vec3(rho * cos(phi), rho * sin(phi), z);
            float r2 = dot(r, r);
            if (r2 >= h * h)
                continue;
            w += V * eddy_w_poly6(r2, h);
            g += V * eddy_grad_spiky(r2, h) * r;
        }
    }
    float r2 = dl * dl;
    if (inner > 0.0 && r2 < h * h) {
        float V = 4.1887902 * inner * inner * inner / s3;
        w += V * eddy_w_poly6(r2, h);
        g += V * eddy_grad_spiky(r2, h) * d;
    }
    return vec4(g, w);
}
