/* The CPU reference of one PBF substep: the shaders' equations in C with the
 * same grid (modules/common/cpu_grid.h) and the same order of sums. */
#include "pbf.h"

#include "common/cpu_grid.h"
#include "couple/couple.h"
#include "common/ghosts.h"
#include "sph_kernels.h"

static float dot3(const float *a, const float *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void ghosts(const struct eddy_pbf_params *p, const float *x, float *w, float g[3])
{
    eddy_wall_ghosts_cpu(x, p->box_min[3], p->options[2], p->box_min, p->box_max, w, g);
}

/* Box only (no solids in the C step yet): out of the walls by the radius. */
static void clamp_box(const struct eddy_pbf_params *p, float *x)
{
    for (int a = 0; a < 3; a++) {
        if (x[a] < p->box_min[a] + x[3])
            x[a] = p->box_min[a] + x[3];
        else if (x[a] > p->box_max[a] - x[3])
            x[a] = p->box_max[a] - x[3];
    }
}

void eddy_pbf_step_cpu(const struct eddy_pbf_params *p, const eddy_solid *solids,
                       uint32_t iterations, uint32_t n, float *pos, float *vel, const float *mass,
                       float *density, struct eddy_pbf_tool *tool)
{
    eddy_pbf_step_coupled_cpu(p, solids, iterations, n, pos, vel, mass, density, tool, NULL, 0, NULL, NULL, NULL,
                              NULL);
}

/* One substep's state between its passes: the predicted positions x (and
 * x0, where the grid sorted them), per particle lambda and the
 * denominator (lam, 2 each), the position correction d (3 each) and the
 * tool's push tp (3 each, with a tool); the constants of the equations. */
typedef struct pbf_step {
    const struct eddy_pbf_params *p;
    uint32_t n;
    const float *mass;
    float *x, *x0, *lam, *d, *tp;
    eddy_cpu_grid g;
    struct eddy_pbf_tool *tool;
    float R, h, dt, rho0, eps, s3, wdq;
    const struct eddy_couple_params *cp;
    uint32_t nb;
    const float *boundary, *boundary_inverse_mass;
} pbf_step;

/* The tool's centre and velocity for this substep, along its path from
 * `from` to `to` over the step's substeps. */
static void tool_clock(const struct eddy_pbf_params *p, struct eddy_pbf_tool *tool)
{
    uint32_t nsub = tool->clock[1] ? tool->clock[1] : 1;
    if (tool->clock[0] >= nsub) {
        memcpy(tool->from, tool->to, sizeof tool->from);
        tool->clock[0] = 0;
    }
    uint32_t k = ++tool->clock[0];
    for (int a = 0; a < 3; a++) {
        tool->centre[a] = tool->from[a] + (tool->to[a] - tool->from[a]) * ((float)k / (float)nsub);
        tool->velocity[a] = (tool->to[a] - tool->from[a]) / (p->box_max[3] * (float)nsub);
    }
}

/* Each particle's density (the walls', the tool's and the boundary's
 * ghosts included), its constraint's lambda and denominator. */
static void lambdas(pbf_step *S, float *density)
{
    const struct eddy_pbf_params *p = S->p;
    const float *x = S->x, *mass = S->mass;
    float h = S->h, rho0 = S->rho0, s3 = S->s3;
    for (uint32_t i = 0; i < S->n; i++) {
        const float *xi = x + 4 * i;
        float rho = 0, sum2 = 0, gi[3] = { 0, 0, 0 };
        EDDY_CPU_NEIGHBOURS(&S->g, S->x0 + 4 * i, j) {
            float r[3] = { xi[0] - x[4 * j], xi[1] - x[4 * j + 1], xi[2] - x[4 * j + 2] };
            float r2 = dot3(r, r);
            if (r2 >= h * h)
                continue;
            rho += mass[j] * eddy_w_poly6(r2, h);
            float gs = (mass[j] / rho0) * eddy_grad_spiky(r2, h), gv[3];
            for (int a = 0; a < 3; a++) {
                gv[a] = gs * r[a];
                gi[a] += gv[a];
            }
            sum2 += dot3(gv, gv);
        }
        float gw, gg[3];
        ghosts(p, xi, &gw, gg);
        if (S->R > 0) {
            float tw, tg[3];
            eddy_sphere_ghosts_cpu(xi, S->tool->centre, S->R, h, p->options[2], &tw, tg);
            gw += tw;
            for (int a = 0; a < 3; a++)
                gg[a] += tg[a];
        }
        rho += rho0 * s3 * gw;
        for (int a = 0; a < 3; a++)
            gi[a] += s3 * gg[a];
        float gm[3] = { 0, 0, 0 };
        if (S->nb) {
            eddy_couple_boundary_cpu(S->cp, S->nb, S->boundary, S->boundary_inverse_mass, xi, &gw, gg, gm, NULL,
                                     NULL);
            rho += rho0 * gw;
            for (int a = 0; a < 3; a++)
                gi[a] += gg[a];
        }
        float denom = dot3(gi, gi) + sum2 + mass[i] * dot3(gm, gm), lattice;
        memcpy(&lattice, &p->misc[3], 4);
        rho *= lattice; /* normalise_density */
        float C = rho / rho0 - 1.0f;
        if (p->options[1] != 0 && C < 0)
            C = 0; /* unilateral (pbf_lambda.comp) */
        S->lam[2 * i] = -C / (denom + S->eps);
        S->lam[2 * i + 1] = denom;
        density[i] = rho;
    }
}

/* Each particle's position correction from the lambdas (tensile
 * correction included), the walls', the boundary's and the tool's; the
 * tool's share kept for its force. */
static void corrections(pbf_step *S)
{
    const struct eddy_pbf_params *p = S->p;
    const float *x = S->x, *mass = S->mass, *lam = S->lam;
    float h = S->h, rho0 = S->rho0, s3 = S->s3, eps = S->eps, wdq = S->wdq;
    float *d = S->d;
    for (uint32_t i = 0; i < S->n; i++) {
        const float *xi = x + 4 * i;
        float acc[3] = { 0, 0, 0 };
        EDDY_CPU_NEIGHBOURS(&S->g, S->x0 + 4 * i, j) {
            if (j == i)
                continue;
            float r[3] = { xi[0] - x[4 * j], xi[1] - x[4 * j + 1], xi[2] - x[4 * j + 2] };
            float r2 = dot3(r, r);
            if (r2 >= h * h)
                continue;
            float corr = wdq > 0 ? powf(eddy_w_poly6(r2, h) / wdq, p->solver[2]) : 0.0f;
            float s_corr = -p->solver[1] * corr * 2.0f / (lam[2 * i + 1] + lam[2 * j + 1] + 2.0f * eps);
            float f = (mass[j] / rho0) * (lam[2 * i] + lam[2 * j] + s_corr) * eddy_grad_spiky(r2, h);
            for (int a = 0; a < 3; a++)
                acc[a] += f * r[a];
        }
        float gw, gg[3];
        ghosts(p, xi, &gw, gg);
        for (int a = 0; a < 3; a++)
            d[3 * i + a] = acc[a] + s3 * lam[2 * i] * gg[a];
        if (S->nb) {
            eddy_couple_boundary_cpu(S->cp, S->nb, S->boundary, NULL, xi, &gw, gg, NULL, NULL, NULL);
            for (int a = 0; a < 3; a++)
                d[3 * i + a] += lam[2 * i] * gg[a];
        }
        if (S->R > 0) {
            float tw, tg[3];
            eddy_sphere_ghosts_cpu(xi, S->tool->centre, S->R, h, p->options[2], &tw, tg);
            for (int a = 0; a < 3; a++) {
                d[3 * i + a] += s3 * lam[2 * i] * tg[a];
                S->tp[3 * i + a] += s3 * lam[2 * i] * tg[a];
            }
        }
    }
}

/* The corrections applied, each particle pushed out of the tool and kept
 * in the box. */
static void apply_corrections(pbf_step *S)
{
    const struct eddy_pbf_params *p = S->p;
    const struct eddy_pbf_tool *tool = S->tool;
    float R = S->R;
    for (uint32_t i = 0; i < S->n; i++) {
        float *xi = S->x + 4 * i;
        for (int a = 0; a < 3; a++)
            xi[a] += S->d[3 * i + a];
        if (R > 0) {
            float dd[3] = { xi[0] - tool->centre[0], xi[1] - tool->centre[1], xi[2] - tool->centre[2] };
            float r = sqrtf(dot3(dd, dd)), lim = R + xi[3];
            if (r < lim)
                for (int a = 0; a < 3; a++) {
                    float q = tool->centre[a] + (r > 0 ? dd[a] / r : a == 1 ? 1.0f : 0.0f) * lim;
                    S->tp[3 * i + a] += q - xi[a];
                    xi[a] = q;
                }
        }
        clamp_box(p, xi);
    }
}

/* The tool's force (pbf_tool_force.comp): the push, adhesion and damping,
 * summed in double here (the GPU's tree order differs, the tests compare
 * within a tolerance), averaged over the step's substeps. v: the new
 * velocities, 3 a particle. */
static void tool_force(pbf_step *S, const float *v, const float *density)
{
    const struct eddy_pbf_params *p = S->p;
    struct eddy_pbf_tool *tool = S->tool;
    const float *mass = S->mass;
    float R = S->R, dt = S->dt;
    double fsum[3][3] = { { 0 } };
    for (uint32_t i = 0; S->tp && i < S->n; i++) {
        const float *xi = S->x + 4 * i;
        float dd[3] = { xi[0] - tool->centre[0], xi[1] - tool->centre[1], xi[2] - tool->centre[2] };
        float r = sqrtf(dot3(dd, dd)), q = (r - R) / p->tool[2];
        for (int a = 0; a < 3; a++)
            fsum[0][a] += -mass[i] * S->tp[3 * i + a] / (dt * dt);
        if (r > 0 && q >= 0 && q <= 1 && density[i] > 0)
            for (int a = 0; a < 3; a++)
                fsum[1][a] += p->tool[1] * (mass[i] / density[i]) * 6.75f * (q * q - q * q * q) * (dd[a] / r);
        if (r < R + p->options[2])
            for (int a = 0; a < 3; a++)
                fsum[2][a] += p->tool[3] * (v[3 * i + a] - tool->velocity[a]);
    }
    if (S->tp) {
        float w = 1.0f / (float)(tool->clock[1] ? tool->clock[1] : 1);
        bool first = tool->clock[0] <= 1;
        float *out[3] = { tool->push, tool->adhesion, tool->damping };
        for (int c = 0; c < 3; c++)
            for (int a = 0; a < 3; a++)
                out[c][a] = (first ? 0.0f : out[c][a]) + w * (float)fsum[c][a];
    }
}

/* Vorticity omega_i (with vorticity confinement), then confinement and
 * XSPH with the new velocities v (3 a particle) into vel. */
static void viscosity(pbf_step *S, const float *v, float *vel)
{
    const struct eddy_pbf_params *p = S->p;
    const float *x = S->x, *mass = S->mass;
    float h = S->h, rho0 = S->rho0, dt = S->dt;
    uint32_t n = S->n;
    float *om = p->options[3] != 0 ? calloc((size_t)n * 4 + 4, sizeof *om) : NULL;
    for (uint32_t i = 0; om && i < n; i++) {
        const float *xi = x + 4 * i;
        float w[3] = { 0, 0, 0 };
        EDDY_CPU_NEIGHBOURS(&S->g, S->x0 + 4 * i, j) {
            float r[3] = { xi[0] - x[4 * j], xi[1] - x[4 * j + 1], xi[2] - x[4 * j + 2] };
            float gs = (mass[j] / rho0) * eddy_grad_spiky(dot3(r, r), h);
            float dvv[3] = { v[3 * j] - v[3 * i], v[3 * j + 1] - v[3 * i + 1], v[3 * j + 2] - v[3 * i + 2] };
            float gr[3] = { gs * r[0], gs * r[1], gs * r[2] };
            w[0] += dvv[1] * gr[2] - dvv[2] * gr[1];
            w[1] += dvv[2] * gr[0] - dvv[0] * gr[2];
            w[2] += dvv[0] * gr[1] - dvv[1] * gr[0];
        }
        memcpy(om + 4 * i, w, 12);
        om[4 * i + 3] = sqrtf(dot3(w, w));
    }
    for (uint32_t i = 0; i < n; i++) {
        const float *xi = x + 4 * i;
        float dv[3] = { 0, 0, 0 }, eta[3] = { 0, 0, 0 };
        if (p->options[0] != 0 || om) {
            EDDY_CPU_NEIGHBOURS(&S->g, S->x0 + 4 * i, j) {
                float r[3] = { xi[0] - x[4 * j], xi[1] - x[4 * j + 1], xi[2] - x[4 * j + 2] };
                float r2 = dot3(r, r), vol = mass[j] / rho0;
                float w = vol * eddy_w_poly6(r2, h);
                for (int a = 0; a < 3; a++)
                    dv[a] += (v[3 * j + a] - v[3 * i + a]) * w;
                if (om) {
                    float gs = vol * om[4 * j + 3] * eddy_grad_spiky(r2, h);
                    for (int a = 0; a < 3; a++)
                        eta[a] += gs * r[a];
                }
            }
        }
        float f[3] = { 0, 0, 0 }, el = sqrtf(dot3(eta, eta));
        if (om && el > 0) {
            float N[3] = { eta[0] / el, eta[1] / el, eta[2] / el }, *w = om + 4 * i;
            f[0] = p->options[3] * (N[1] * w[2] - N[2] * w[1]);
            f[1] = p->options[3] * (N[2] * w[0] - N[0] * w[2]);
            f[2] = p->options[3] * (N[0] * w[1] - N[1] * w[0]);
        }
        for (int a = 0; a < 3; a++)
            vel[4 * i + a] = v[3 * i + a] + p->options[0] * dv[a] + dt * f[a];
        vel[4 * i + 3] = 0;
    }
    free(om);
}

void eddy_pbf_step_coupled_cpu(const struct eddy_pbf_params *p, const eddy_solid *solids,
                               uint32_t iterations, uint32_t n, float *pos, float *vel,
                               const float *mass, float *density, struct eddy_pbf_tool *tool,
                               const struct eddy_couple_params *cp, uint32_t nb,
                               const float *boundary, const float *boundary_inverse_mass, float *force,
                               const struct eddy_couple_sheets_cpu *sheets)
{
    if (!cp)
        nb = 0;
    for (uint32_t b = 0; b < nb; b++)
        force[4 * b] = force[4 * b + 1] = force[4 * b + 2] = force[4 * b + 3] = 0;
    (void)solids;
    float R = tool ? p->tool[0] : 0;
    if (R > 0)
        tool_clock(p, tool);
    pbf_step S = { .p = p, .n = n, .mass = mass, .tool = tool, .R = R, .cp = cp, .nb = nb, .boundary = boundary,
                   .boundary_inverse_mass = boundary_inverse_mass };
    S.tp = R > 0 ? calloc((size_t)n * 3 + 3, sizeof *S.tp) : NULL;
    S.h = p->box_min[3];
    S.dt = p->box_max[3];
    S.rho0 = p->gravity[3];
    S.eps = p->solver[0];
    S.s3 = p->options[2] * p->options[2] * p->options[2];
    float *x = S.x = malloc(16ull * n + 16), *lam = S.lam = malloc(8ull * n + 8), *d = S.d = malloc(12ull * n + 12);
    S.g = (eddy_cpu_grid){ { p->grid[0], p->grid[1], p->grid[2] }, p->grid[3],
                           { p->dims[0], p->dims[1], p->dims[2] }, 0, NULL, NULL, NULL };
    if (!x || !lam || !d) {
        free(x), free(lam), free(d);
        return;
    }
    float dt = S.dt;
    for (uint32_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++)
            x[4 * i + a] = pos[4 * i + a] + dt * (vel[4 * i + a] + dt * p->gravity[a]);
        x[4 * i + 3] = pos[4 * i + 3];
    }
    /* Neighbours from the cells the particles were sorted into, as on the
     * GPU (pbf_common.glsl). */
    float *x0 = S.x0 = malloc(16ull * n + 16);
    if (!x0 || !eddy_cpu_grid_build(&S.g, x, n)) {
        free(x), free(lam), free(d), free(x0);
        return;
    }
    memcpy(x0, x, 16ull * n);
    S.wdq = eddy_w_poly6(p->solver[3] * p->solver[3], S.h);
    for (uint32_t it = 0; it < iterations; it++) {
        lambdas(&S, density);
        corrections(&S);
        if (nb)
            eddy_couple_pbf_cpu(cp, nb, boundary, n, x, mass, lam, force);
        apply_corrections(&S);
    }
    /* Off the sheets, before the velocities (pbf.c). */
    if (nb && sheets && sheets->count)
        eddy_couple_sheet_cpu(cp, sheets, boundary, n, x, pos, mass, force);
    /* Velocities from positions, then XSPH with the new velocities. */
    float *v = malloc(12ull * n + 12);
    if (v) {
        for (uint32_t i = 0; i < n; i++)
            for (int a = 0; a < 3; a++)
                v[3 * i + a] = (x[4 * i + a] - pos[4 * i + a]) / dt;
        tool_force(&S, v, density);
        viscosity(&S, v, vel);
        memcpy(pos, x, 16ull * n);
    }
    free(v);
    free(S.tp);
    free(x), free(lam), free(d), free(x0);
    eddy_cpu_grid_free(&S.g);
}
