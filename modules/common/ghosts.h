/* The wall ghosts of shaders/ghosts.glsl in C, for the reference steps:
 * *w = sum W_poly6, g = sum grad W_spiky (grad W_poly6 with poly6) over the ghost lattice (spacing s)
 * behind the walls of the box [lo, hi] within h of x; with
 * eddy_wall_ghosts_lever_cpu also lever = sum (a . (q - x)) grad W_spiky. */
#ifndef EDDY_GHOSTS_H
#define EDDY_GHOSTS_H

#include "sph_kernels.h"

#include <math.h>
#include <stdbool.h>

static inline void eddy_wall_ghosts_kernel_cpu(const float *x, float h, float s, const float *lo,
                                               const float *hi, const float *acc, bool poly6, float *w,
                                               float g[3], float lever[3])
{
    *w = 0;
    g[0] = g[1] = g[2] = 0;
    lever[0] = lever[1] = lever[2] = 0;
    bool near = false;
    int k0[3], k1[3];
    for (int a = 0; a < 3; a++) {
        near |= x[a] - lo[a] < h || hi[a] - x[a] < h;
        k0[a] = (int)floorf((x[a] - h - lo[a]) / s - 0.5f);
        k1[a] = (int)ceilf((x[a] + h - lo[a]) / s - 0.5f);
    }
    if (!near)
        return;
    for (int kz = k0[2]; kz <= k1[2]; kz++)
        for (int ky = k0[1]; ky <= k1[1]; ky++)
            for (int kx = k0[0]; kx <= k1[0]; kx++) {
                int k[3] = { kx, ky, kz };
                float r[3];
                bool inside = true;
                for (int a = 0; a < 3; a++) {
                    float q = lo[a] + s * ((float)k[a] + 0.5f);
                    inside &= q > lo[a] && q < hi[a];
                    r[a] = x[a] - q;
                }
                float r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
                if (inside || r2 >= h * h)
                    continue;
                *w += eddy_w_poly6(r2, h);
                float gs = poly6 ? eddy_grad_poly6(r2, h) : eddy_grad_spiky(r2, h), ar = acc[0] * r[0] + acc[1] * r[1] + acc[2] * r[2];
                for (int a = 0; a < 3; a++) {
                    g[a] += gs * r[a];
                    lever[a] -= ar * gs * r[a];
                }
            }
}

static inline void eddy_wall_ghosts_lever_cpu(const float *x, float h, float s, const float *lo,
                                              const float *hi, const float *acc, float *w, float g[3],
                                              float lever[3])
{
    eddy_wall_ghosts_kernel_cpu(x, h, s, lo, hi, acc, false, w, g, lever);
}

/* g = sum grad W_poly6 (IISPH's continuity equation). */
static inline void eddy_wall_ghosts_grad_poly6_cpu(const float *x, float h, float s, const float *lo,
                                                   const float *hi, float g[3])
{
    static const float none[3] = { 0, 0, 0 };
    float w, unused[3];
    eddy_wall_ghosts_kernel_cpu(x, h, s, lo, hi, none, true, &w, g, unused);
}

static inline void eddy_wall_ghosts_cpu(const float *x, float h, float s, const float *lo,
                                        const float *hi, float *w, float g[3])
{
    static const float none[3] = { 0, 0, 0 };
    float unused[3];
    eddy_wall_ghosts_lever_cpu(x, h, s, lo, hi, none, w, g, unused);
}

/* The tool ghosts of modules/pbf/shaders/pbf_common.glsl (pbf_tool_ghosts):
 * the ball of radius R about c sampled in shells of spacing s on Fibonacci
 * spheres, each point weighted by its share of its shell's volume over
 * s^3; *w = sum (V/s^3) W_poly6, g = sum (V/s^3) grad W_spiky over the
 * points within h of x. */
static inline void eddy_sphere_ghosts_cpu(const float *x, const float *c, float R, float h,
                                          float s, float *w, float g[3])
{
    *w = 0;
    g[0] = g[1] = g[2] = 0;
    float d[3] = { x[0] - c[0], x[1] - c[1], x[2] - c[2] }, s3 = s * s * s;
    float dl = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (R <= 0 || dl >= R + h)
        return;
    float inner = R;
    for (int k = 0;; k++) {
        float rk = R - 0.5f * s - (float)k * s;
        if (rk < 0.5f * s)
            break;
        inner = rk - 0.5f * s;
        if (fabsf(dl - rk) >= h)
            continue;
        float nf = fmaxf(1.0f, roundf(12.566371f * rk * rk / (s * s)));
        int n = (int)nf;
        float a = rk + 0.5f * s, b = rk - 0.5f * s;
        float V = 4.1887902f * (a * a * a - b * b * b) / (nf * s3);
        int j0 = (int)floorf((1.0f - (d[2] + h) / rk) * nf * 0.5f - 0.5f);
        int j1 = (int)ceilf((1.0f - (d[2] - h) / rk) * nf * 0.5f - 0.5f);
        j0 = j0 < 0 ? 0 : j0;
        j1 = j1 > n - 1 ? n - 1 : j1;
        for (int j = j0; j <= j1; j++) {
            float z = 1.0f - (2.0f * (float)j + 1.0f) / nf, rho = sqrtf(fmaxf(1.0f - z * z, 0.0f));
            float phi = 2.3999632f * (float)j;
            float r[3] = { d[0] - rk * rho * cosf(phi), d[1] - rk * rho * sinf(phi), d[2] - rk * z };
            float r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
            if (r2 >= h * h)
                continue;
            *w += V * eddy_w_poly6(r2, h);
            float gs = V * eddy_grad_spiky(r2, h);
            for (int q = 0; q < 3; q++)
                g[q] += gs * r[q];
        }
    }
    float r2 = dl * dl;
    if (inner > 0 && r2 < h * h) {
        float V = 4.1887902f * inner * inner * inner / s3;
        *w += V * eddy_w_poly6(r2, h);
        float gs = V * eddy_grad_spiky(r2, h);
        for (int q = 0; q < 3; q++)
            g[q] += gs * d[q];
    }
}

#endif
