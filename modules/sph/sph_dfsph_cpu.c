/* DFSPH's C twin (sph_dfsph_cpu.h): shaders/sph_dfsph_*.comp on the CPU
 * grid, in the same order of passes. */
#include "sph_dfsph_cpu.h"

#include "couple/couple.h"
#include "sph_kernels.h"
#include "common/cpu_solids.h"
#include "common/ghosts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The phases (shaders/sph_dfsph.glsl). */
enum { DIVERGENCE = 1, DENSITY = 2 };

static float ghost_spacing(const struct eddy_sph_params *p)
{
    float s;
    memcpy(&s, &p->misc[3], 4);
    return s;
}

bool sph_dfsph_cpu_begin(sph_dfsph_cpu *d, const struct eddy_sph_params *p, const eddy_cpu_grid *g, uint32_t n,
                         const float *pos, const float *vel, const float *mass, const float *density,
                         const sph_boundary_cpu *b)
{
    memset(d, 0, sizeof *d);
    d->beta = malloc(4ull * n + 4);
    d->ghost = malloc(36ull * n + 36);
    d->v = malloc(12ull * n + 12);
    d->k = malloc(4ull * n + 4);
    d->K = malloc(4ull * n + 4);
    d->moving = calloc((size_t)n + 1, sizeof *d->moving);
    d->applied = calloc((size_t)n + 1, sizeof *d->applied);
    if (!d->beta || !d->ghost || !d->v || !d->k || !d->K || !d->moving || !d->applied)
        return false;
    float h = p->box_min[3], rho0 = p->gravity[3], s = ghost_spacing(p), m0 = rho0 * s * s * s;
    for (uint32_t i = 0; i < n; i++) {
        const float *x = pos + 4 * i;
        float S[3] = { 0, 0, 0 }, T[3] = { 0, 0, 0 }, Q = 0;
        EDDY_CPU_NEIGHBOURS(g, x, j) {
            float r[3] = { x[0] - pos[4 * j], x[1] - pos[4 * j + 1], x[2] - pos[4 * j + 2] };
            float r2 = eddy_cpu_dot3(r, r);
            if (r2 >= h * h || j == i)
                continue;
            float gs = mass[j] * eddy_grad_spiky(r2, h), gp = mass[j] * eddy_grad_poly6(r2, h);
            float gw[3] = { gs * r[0], gs * r[1], gs * r[2] }, gq[3] = { gp * r[0], gp * r[1], gp * r[2] };
            for (int a = 0; a < 3; a++)
                S[a] += gw[a], T[a] += gq[a];
            Q += eddy_cpu_dot3(gw, gq);
        }
        float *G = d->ghost + 9 * i, *H = G + 3, *lever = G + 6, w;
        eddy_wall_ghosts_grad_poly6_cpu(x, h, s, p->box_min, p->box_max, H);
        eddy_wall_ghosts_lever_cpu(x, h, s, p->box_min, p->box_max, p->gravity, &w, G, lever);
        if (b && b->nb) {
            /* sph_dfsph_alpha.comp's coupled variant */
            float s3 = s * s * s, Gb[3], Hb[3], lb[3], zero[3] = { 0, 0, 0 }, div;
            eddy_couple_boundary_cpu(b->cp, b->nb, b->x, NULL, x, &w, Gb, NULL, b->cp->gravity, lb);
            eddy_couple_boundary_iisph_cpu(b->cp, b->nb, b->x, b->v, x, zero, Hb, &div);
            for (int a = 0; a < 3; a++) {
                G[a] += Gb[a] / s3;
                lever[a] += lb[a] / s3;
                H[a] += Hb[a] / s3;
            }
            d->moving[i] = div / s3;
        }
        float B = eddy_dfsph_ghost_factor(density[i], rho0), SB[3], TH[3];
        for (int a = 0; a < 3; a++)
            SB[a] = S[a] + B * m0 * G[a], TH[a] = T[a] + m0 * H[a];
        float den = p->lattice[0] * eddy_sph_solve_denominator(eddy_cpu_dot3(SB, TH),
                                                           sqrtf(eddy_cpu_dot3(SB, SB)) * sqrtf(eddy_cpu_dot3(TH, TH)), Q);
        d->beta[i] = den > 0.0f ? 1.0f / den : 0.0f;
        for (int a = 0; a < 3; a++)
            d->v[3 * i + a] = vel[4 * i + a];
    }
    return true;
}

float sph_cpu_divergence(const eddy_cpu_grid *g, const float *pos, const float *mass, float h, uint32_t i,
                         const float *u)
{
    const float *x = pos + 4 * i, *ui = u + 3 * i;
    float sum = 0;
    EDDY_CPU_NEIGHBOURS(g, x, j) {
        float r[3] = { x[0] - pos[4 * j], x[1] - pos[4 * j + 1], x[2] - pos[4 * j + 2] };
        float r2 = eddy_cpu_dot3(r, r);
        if (r2 >= h * h || j == i)
            continue;
        float du[3] = { ui[0] - u[3 * j], ui[1] - u[3 * j + 1], ui[2] - u[3 * j + 2] };
        sum += mass[j] * (eddy_grad_poly6(r2, h) * eddy_cpu_dot3(du, r));
    }
    return sum;
}

/* sph.dfsph_kappa: k_i (and the phase's error at i, returned). */
static float kappa(sph_dfsph_cpu *d, const struct eddy_sph_params *p, const eddy_cpu_grid *g, const float *pos,
                   const float *mass, const float *density, uint32_t i, int mode)
{
    float h = p->box_min[3], dt = p->box_max[3], rho0 = p->gravity[3], s = ghost_spacing(p);
    const float *vi = d->v + 3 * i;
    float div = sph_cpu_divergence(g, pos, mass, h, i, d->v);
    div = p->lattice[0] * (div + rho0 * (s * s * s) * (eddy_cpu_dot3(vi, d->ghost + 9 * i + 3) + d->moving[i]));
    float rho_i = density[i], err;
    if (mode == DIVERGENCE) {
        float e = eddy_dfsph_sufficient(rho_i, rho0) * fmaxf(div, 0.0f);
        err = dt * e / rho0;
        d->k[i] = e * d->beta[i] / dt;
    } else {
        float e = fmaxf(rho_i + dt * div - rho0, 0.0f);
        err = e / rho0;
        d->k[i] = e * d->beta[i] / (dt * dt);
        d->K[i] += d->k[i];
    }
    return err;
}

/* sph.dfsph_apply for every particle (Jacobi: from the k of all). */
static void apply(sph_dfsph_cpu *d, const struct eddy_sph_params *p, const eddy_cpu_grid *g, uint32_t n,
                  const float *pos, const float *mass, const float *density)
{
    float h = p->box_min[3], dt = p->box_max[3], rho0 = p->gravity[3], s = ghost_spacing(p);
    for (uint32_t i = 0; i < n; i++) {
        const float *x = pos + 4 * i;
        float dv[3] = { 0, 0, 0 }, ki = d->k[i];
        EDDY_CPU_NEIGHBOURS(g, x, j) {
            float r[3] = { x[0] - pos[4 * j], x[1] - pos[4 * j + 1], x[2] - pos[4 * j + 2] };
            float r2 = eddy_cpu_dot3(r, r);
            if (r2 >= h * h || j == i)
                continue;
            float c = mass[j] * (ki + d->k[j]) * eddy_grad_spiky(r2, h);
            for (int a = 0; a < 3; a++)
                dv[a] += c * r[a];
        }
        float B = eddy_dfsph_ghost_factor(density[i], rho0);
        for (int a = 0; a < 3; a++)
            d->v[3 * i + a] -= dt * (dv[a] + ki * B * rho0 * (s * s * s) * d->ghost[9 * i + a]);
        d->applied[i] += ki;
    }
}

/* One phase: kappa for all, the check (sph_iisph_check.comp), and the
 * velocity change unless converged. */
static void phase(sph_dfsph_cpu *d, const struct eddy_sph_params *p, const eddy_cpu_grid *g, uint32_t n,
                  const float *pos, const float *mass, const float *density, int mode, uint32_t *iterations,
                  float *error)
{
    bool div = mode == DIVERGENCE;
    uint32_t limit = div ? (uint32_t)p->solve2[2] : p->solve[1], it = 0;
    float tol, mean = 0;
    memcpy(&tol, &p->solve[2], 4);
    tol = div ? p->solve2[1] : tol;
    while (it < limit) {
        double sum = 0;
        float largest = 0;
        for (uint32_t i = 0; i < n; i++) {
            float err = kappa(d, p, g, pos, mass, density, i, mode);
            sum += err;
            largest = err > largest ? err : largest;
        }
        it++;
        mean = (float)(sum / n);
        if (mean <= tol && (div || largest <= p->solve2[0]))
            break;
        apply(d, p, g, n, pos, mass, density);
    }
    if (iterations)
        *iterations = it;
    if (error)
        *error = mean;
}

void sph_dfsph_cpu_divergence(sph_dfsph_cpu *d, const struct eddy_sph_params *p, const eddy_cpu_grid *g,
                              uint32_t n, const float *pos, float *vel, const float *mass, const float *density)
{
    phase(d, p, g, n, pos, mass, density, DIVERGENCE, NULL, NULL);
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++)
            vel[4 * i + a] = d->v[3 * i + a];
}

void sph_dfsph_cpu_density(sph_dfsph_cpu *d, const struct eddy_sph_params *p, const eddy_cpu_grid *g, uint32_t n,
                           const float *pos, float *vel, const float *mass, const float *density, const float *acc,
                           float *press, float *applied, uint32_t *iterations, float *error)
{
    float dt = p->box_max[3], s = ghost_spacing(p), s3 = s * s * s;
    for (uint32_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++)
            d->v[3 * i + a] = vel[4 * i + a] + dt * (acc[3 * i + a] - s3 * d->ghost[9 * i + 6 + a]);
        float K = density[i] > 0.0f ? press[i] / (density[i] * density[i]) : 0.0f;
        d->K[i] = d->k[i] = eddy_dfsph_warm(density[i], p->gravity[3]) * K;
    }
    apply(d, p, g, n, pos, mass, density);
    phase(d, p, g, n, pos, mass, density, DENSITY, iterations, error);
    for (uint32_t i = 0; i < n; i++) {
        press[i] = d->K[i] * density[i] * density[i];
        if (applied)
            applied[i] = d->applied[i] * density[i] * density[i];
        for (int a = 0; a < 3; a++)
            vel[4 * i + a] = d->v[3 * i + a];
    }
}

void sph_dfsph_cpu_end(sph_dfsph_cpu *d)
{
    free(d->beta);
    free(d->ghost);
    free(d->v);
    free(d->k);
    free(d->K);
    free(d->moving);
    free(d->applied);
}
