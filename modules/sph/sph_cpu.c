/* The CPU reference of one SPH substep: the shaders' equations, neighbours
 * from a counting-sorted grid like the GPU's (and `eddy bench`'s C step). */
#include "sph.h"

#include "sph_dfsph_cpu.h"

#include "sph_kernels.h"
#include "common/cpu_grid.h"
#include "common/ghosts.h"
#include "common/cpu_solids.h"
#include "couple/couple.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The wall ghosts of sph_common.glsl. */
static void ghosts(const struct eddy_sph_params *p, const float *x, float *w, float g[3])
{
    float s;
    memcpy(&s, &p->misc[3], 4);
    eddy_wall_ghosts_cpu(x, p->box_min[3], s, p->box_min, p->box_max, w, g);
}

void eddy_sph_step_cpu(const struct eddy_sph_params *p, const eddy_solid *solids, uint32_t n,
                       float *pos, float *vel, const float *mass, float *density, uint32_t step)
{
    eddy_sph_step_coupled_cpu(p, solids, n, pos, vel, mass, density, step, NULL, 0, NULL, NULL);
}

/* IISPH (sph_iisph_accel.comp): the pressure acceleration of particle i. */
static void iisph_accel(const struct eddy_sph_params *p, const eddy_cpu_grid *g, const float *pos,
                        const float *mass, const float *density, const float *press, const sph_boundary_cpu *bd,
                        uint32_t i, float out[3])
{
    bool symmetric = p->model[0] == EDDY_SPH_SYMMETRIC;
    float h = p->box_min[3], rho0 = p->gravity[3], rho_i = density[i], p_i = press[i];
    const float *x = pos + 4 * i;
    float f[3] = { 0, 0, 0 };
    EDDY_CPU_NEIGHBOURS(g, x, j) {
        float r[3] = { x[0] - pos[4 * j], x[1] - pos[4 * j + 1], x[2] - pos[4 * j + 2] };
        float r2 = eddy_cpu_dot3(r, r);
        if (r2 >= h * h || j == i)
            continue;
        float c = eddy_sph_pair(symmetric, mass[j], rho_i, p_i, density[j], press[j]) * eddy_grad_spiky(r2, h);
        for (int a = 0; a < 3; a++)
            f[a] -= c * r[a];
    }
    float s, gw, gg[3], lever[3];
    memcpy(&s, &p->misc[3], 4);
    eddy_wall_ghosts_lever_cpu(x, h, s, p->box_min, p->box_max, p->gravity, &gw, gg, lever);
    float fb = p_i * eddy_sph_boundary(symmetric, rho_i, rho0), lv = eddy_sph_boundary_lever(symmetric, rho_i, rho0);
    for (int a = 0; a < 3; a++)
        f[a] -= (s * s * s) * (fb * gg[a] + lv * lever[a]);
    if (bd->nb) {
        eddy_couple_boundary_cpu(bd->cp, bd->nb, bd->x, NULL, x, &gw, gg, NULL, bd->cp->gravity, lever);
        for (int a = 0; a < 3; a++)
            f[a] -= fb * gg[a] + lv * lever[a];
    }
    for (int a = 0; a < 3; a++)
        out[a] = f[a] / rho_i;
}

/* IISPH (sph_iisph_*.comp): the pressure that keeps the predicted density
 * at rho0, by relaxed Jacobi to the tolerance; its acceleration added to
 * acc (the other forces'). press: in, the last substep's; out, this one's. */
static void iisph_solve(const struct eddy_sph_params *p, const eddy_cpu_grid *g, uint32_t n, const float *pos,
                        const float *vel, const float *mass, const float *density, float *acc, float *press,
                        const sph_boundary_cpu *bd, uint32_t *iterations, float *error)
{
    bool symmetric = p->model[0] == EDDY_SPH_SYMMETRIC;
    float h = p->box_min[3], dt = p->box_max[3], rho0 = p->gravity[3], L = p->lattice[0], s, tol, omega;
    memcpy(&s, &p->misc[3], 4);
    memcpy(&tol, &p->solve[2], 4);
    memcpy(&omega, &p->solve[3], 4);
    float s3 = s * s * s;
    float *sys = malloc(2 * sizeof(float) * n + 8), *ap = malloc(3 * sizeof(float) * n + 12);
    if (!sys || !ap) {
        free(sys), free(ap);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        const float *x = pos + 4 * i;
        float rho_i = density[i], m_i = mass[i], vs[3], div = 0, D = 0, K[3] = { 0 }, M[3] = { 0 };
        for (int a = 0; a < 3; a++)
            vs[a] = vel[4 * i + a] + dt * acc[3 * i + a];
        EDDY_CPU_NEIGHBOURS(g, x, j) {
            float r[3] = { x[0] - pos[4 * j], x[1] - pos[4 * j + 1], x[2] - pos[4 * j + 2] };
            float r2 = eddy_cpu_dot3(r, r);
            if (r2 >= h * h || j == i)
                continue;
            float gs = eddy_grad_spiky(r2, h), gp = eddy_grad_poly6(r2, h), dv[3];
            float gw[3] = { gs * r[0], gs * r[1], gs * r[2] }, gd[3] = { gp * r[0], gp * r[1], gp * r[2] };
            for (int a = 0; a < 3; a++)
                dv[a] = vs[a] - (vel[4 * j + a] + dt * acc[3 * j + a]);
            float kp = eddy_sph_pair(symmetric, mass[j], rho_i, 1.0f, density[j], 0.0f);
            div += mass[j] * eddy_cpu_dot3(dv, gd);
            for (int a = 0; a < 3; a++) {
                K[a] += kp * gw[a];
                M[a] += mass[j] * gd[a];
            }
            D += mass[j] / density[j] * eddy_sph_pair(symmetric, m_i, density[j], 0.0f, rho_i, 1.0f) *
                 eddy_cpu_dot3(gw, gd);
        }
        float gwt, G[3], Gd[3];
        eddy_wall_ghosts_cpu(x, h, s, p->box_min, p->box_max, &gwt, G);
        eddy_wall_ghosts_grad_poly6_cpu(x, h, s, p->box_min, p->box_max, Gd);
        div += rho0 * s3 * eddy_cpu_dot3(vs, Gd);
        float beta = eddy_sph_boundary(symmetric, rho_i, rho0), ci[3], MG[3], B[3], Bd[3] = { 0, 0, 0 };
        bool body = false;
        for (int a = 0; a < 3; a++)
            B[a] = s3 * G[a];
        if (bd->nb) {
            float bw, bg[3], bdiv;
            eddy_couple_boundary_cpu(bd->cp, bd->nb, bd->x, NULL, x, &bw, bg, NULL, NULL, NULL);
            body = bw > 0.0f;
            eddy_couple_boundary_iisph_cpu(bd->cp, bd->nb, bd->x, bd->v, x, vs, Bd, &bdiv);
            div += rho0 * bdiv;
            for (int a = 0; a < 3; a++)
                B[a] += bg[a];
        }
        for (int a = 0; a < 3; a++) {
            ci[a] = -(K[a] + beta * B[a]) / rho_i;
            MG[a] = M[a] + rho0 * s3 * Gd[a] + rho0 * Bd[a];
        }
        sys[2 * i] = rho0 - (rho_i + dt * L * div);
        /* sph_iisph_diag.comp: floored next to a body only */
        float st = -eddy_cpu_dot3(ci, MG);
        sys[2 * i + 1] = -dt * dt * L * (body ? eddy_sph_solve_denominator(st, sqrtf(eddy_cpu_dot3(ci, ci)) *
                                                                              sqrtf(eddy_cpu_dot3(MG, MG)), D)
                                              : st + D);
        press[i] *= EDDY_SPH_IISPH_WARM;
    }
    uint32_t it = 0;
    float mean = 0;
    while (it < p->solve[1]) {
        for (uint32_t i = 0; i < n; i++)
            iisph_accel(p, g, pos, mass, density, press, bd, i, ap + 3 * i);
        double sum = 0;
        float largest = 0;
        for (uint32_t i = 0; i < n; i++) {
            const float *x = pos + 4 * i, *ai = ap + 3 * i;
            float acc_sum = sph_cpu_divergence(g, pos, mass, h, i, ap);
            float Gd[3];
            eddy_wall_ghosts_grad_poly6_cpu(x, h, s, p->box_min, p->box_max, Gd);
            acc_sum += rho0 * s3 * eddy_cpu_dot3(ai, Gd);
            if (bd->nb) {
                float bdiv, zero[3] = { 0, 0, 0 };
                eddy_couple_boundary_iisph_cpu(bd->cp, bd->nb, bd->x, bd->v, x, zero, Gd, &bdiv);
                acc_sum += rho0 * eddy_cpu_dot3(ai, Gd);
            }
            float Ap = dt * dt * L * acc_sum, src = sys[2 * i], aii = sys[2 * i + 1];
            float np = aii < 0.0f ? press[i] + omega * (src - Ap) / aii : 0.0f;
            press[i] = np > 0.0f ? np : 0.0f;
            float res = Ap - src, err = (press[i] > 0.0f ? fabsf(res) : res > 0.0f ? res : 0.0f) / rho0;
            sum += err;
            largest = err > largest ? err : largest;
        }
        it++;
        mean = (float)(sum / n);
        if (it >= 2 && mean <= tol && largest <= p->solve2[0])
            break;
    }
    for (uint32_t i = 0; i < n; i++) {
        iisph_accel(p, g, pos, mass, density, press, bd, i, ap + 3 * i);
        for (int a = 0; a < 3; a++)
            acc[3 * i + a] += ap[3 * i + a];
    }
    if (iterations)
        *iterations = it;
    if (error)
        *error = mean;
    free(sys), free(ap);
}

/* sph.density: the sum, the wall ghosts' and the boundary particles'
 * shares, normalised. */
static void density_cpu(const struct eddy_sph_params *p, const eddy_cpu_grid *g, uint32_t n, const float *pos,
                        const float *mass, float *density, const struct eddy_couple_params *cp, uint32_t nb,
                        const float *boundary)
{
    float h = p->box_min[3], rho0 = p->gravity[3];
    for (uint32_t i = 0; i < n; i++) {
        float rho = 0;
        const float *x = pos + 4 * i;
        EDDY_CPU_NEIGHBOURS(g, x, j) {
            float r[3] = { x[0] - pos[4 * j], x[1] - pos[4 * j + 1], x[2] - pos[4 * j + 2] };
            rho += mass[j] * eddy_w_poly6(eddy_cpu_dot3(r, r), h);
        }
        float gw, gg[3], s;
        ghosts(p, x, &gw, gg);
        memcpy(&s, &p->misc[3], 4);
        density[i] = rho + rho0 * (s * s * s) * gw;
        if (nb) {
            eddy_couple_boundary_cpu(cp, nb, boundary, NULL, x, &gw, gg, NULL, NULL, NULL);
            density[i] += rho0 * gw;
        }
        density[i] *= p->lattice[0];
    }
}

static void step_cpu(const struct eddy_sph_params *p, const eddy_solid *solids, uint32_t n, float *pos, float *vel,
                     const float *mass, float *density, uint32_t step, const struct eddy_couple_params *cp,
                     uint32_t nb, const float *boundary, const float *bvel, float *force, float *press,
                     uint32_t *iterations, float *error)
{
    if (!cp)
        nb = 0;
    float t_now = (float)step * p->box_max[3];
    float h = p->box_min[3], dt = p->box_max[3], rho0 = p->gravity[3];
    float k = p->material[0], mu = p->material[1], sigma = p->material[2], l = p->material[3];
    float *acc = calloc((size_t)n * 3 + 3, sizeof *acc);
    eddy_cpu_grid g = { { p->grid[0], p->grid[1], p->grid[2] }, p->grid[3],
                        { p->dims[0], p->dims[1], p->dims[2] }, 0, NULL, NULL, NULL };
    if (!acc || !eddy_cpu_grid_build(&g, pos, n)) {
        free(acc);
        eddy_cpu_grid_free(&g);
        return;
    }
    density_cpu(p, &g, n, pos, mass, density, cp, nb, boundary);
    /* DFSPH: the divergence-free phase before the forces, which act on its
     * velocities (sph.dfsph_alpha, the phase, then sph.forces on them). */
    bool dfsph = p->solve[0] == EDDY_SPH_DFSPH;
    sph_dfsph_cpu df = { 0 };
    if (dfsph) {
        sph_boundary_cpu bd = { cp, nb, boundary, bvel };
        if (!press || !sph_dfsph_cpu_begin(&df, p, &g, n, pos, vel, mass, density, &bd)) {
            sph_dfsph_cpu_end(&df);
            free(acc);
            eddy_cpu_grid_free(&g);
            return;
        }
        sph_dfsph_cpu_divergence(&df, p, &g, n, pos, vel, mass, density);
    }
    bool symmetric = p->model[0] == EDDY_SPH_SYMMETRIC, clamp_p = p->model[1] != 0, tait = p->model[2] == EDDY_SPH_TAIT;
    float alpha, c0 = sqrtf(k);
    memcpy(&alpha, &p->model[3], 4);
    bool weak = p->solve[0] == EDDY_SPH_WEAK;
    for (uint32_t i = 0; i < n; i++) {
        const float *x = pos + 4 * i, *v = vel + 4 * i;
        float rho_i = density[i], p_i = weak ? eddy_sph_pressure(tait, k, rho_i, rho0, clamp_p) : 0.0f;
        float fp[3] = { 0 }, fv[3] = { 0 }, nn[3] = { 0 }, lap = 0;
        EDDY_CPU_NEIGHBOURS(&g, x, j) {
            float r[3] = { x[0] - pos[4 * j], x[1] - pos[4 * j + 1], x[2] - pos[4 * j + 2] };
            float r2 = eddy_cpu_dot3(r, r);
            if (r2 >= h * h)
                continue;
            float vol = mass[j] / density[j];
            lap += vol * eddy_lap_poly6(r2, h);
            if (j == i)
                continue;
            float p_j = weak ? eddy_sph_pressure(tait, k, density[j], rho0, clamp_p) : 0.0f;
            const float *vj = vel + 4 * j;
            float dv[3] = { v[0] - vj[0], v[1] - vj[1], v[2] - vj[2] };
            float cp = (eddy_sph_pair(symmetric, mass[j], rho_i, p_i, density[j], p_j) +
                        eddy_sph_artificial(alpha, c0, h, eddy_cpu_dot3(dv, r), r2, rho_i, density[j], mass[j])) *
                       eddy_grad_spiky(r2, h);
            float cv = mu * vol * eddy_lap_visc(r2, h), cn = vol * eddy_grad_poly6(r2, h);
            for (int a = 0; a < 3; a++) {
                fp[a] -= cp * r[a];
                fv[a] += cv * (vel[4 * j + a] - v[a]);
                nn[a] += cn * r[a];
            }
        }
        float gw, gg[3], s;
        memcpy(&s, &p->misc[3], 4);
        float lever[3];
        eddy_wall_ghosts_lever_cpu(x, h, s, p->box_min, p->box_max, p->gravity, &gw, gg, lever);
        float fb = p_i * eddy_sph_boundary(symmetric, rho_i, rho0), lv = eddy_sph_boundary_lever(symmetric, rho_i, rho0);
        for (int a = 0; a < 3; a++)
            fp[a] -= weak ? (s * s * s) * (fb * gg[a] + lv * lever[a]) : 0.0f;
        if (nb) {
            float cl[3];
            eddy_couple_boundary_cpu(cp, nb, boundary, NULL, x, &gw, gg, NULL, cp->gravity, cl);
            for (int a = 0; a < 3; a++)
                fp[a] -= fb * gg[a] + (weak ? lv * cl[a] : 0.0f);
        }
        float nl = sqrtf(eddy_cpu_dot3(nn, nn));
        float rc[3] = { x[0] - p->vortex[0], x[1] - p->vortex[1], x[2] - p->vortex[2] };
        const float *A = p->vortex_axis;
        float ax = eddy_cpu_dot3(rc, A);
        float rad[3] = { rc[0] - ax * A[0], rc[1] - ax * A[1], rc[2] - ax * A[2] };
        float rr = sqrtf(eddy_cpu_dot3(rad, rad)), rate;
        memcpy(&rate, &p->misc[2], 4);
        float t[3] = { A[1] * rad[2] - A[2] * rad[1], A[2] * rad[0] - A[0] * rad[2], A[0] * rad[1] - A[1] * rad[0] };
        bool vortex = p->vortex[3] != 0 && rr < A[3] && rr > 0;
        float drive = 0;
        if (vortex) {
            for (int a = 0; a < 3; a++)
                t[a] /= rr;
            drive = rate * (p->vortex[3] * rr - eddy_cpu_dot3(v, t));
        }
        float push[3] = { 0, 0, 0 };
        if (p->push[3] > 0) {
            float d[3];
            for (int a = 0; a < 3; a++)
                d[a] = x[a] - (p->push[a] + t_now * p->push_velocity[a]);
            float dl = sqrtf(eddy_cpu_dot3(d, d));
            if (dl < p->push[3] && dl > 0)
                for (int a = 0; a < 3; a++)
                    push[a] = p->push_velocity[3] * (1.0f - dl / p->push[3]) * d[a] / dl;
        }
        for (int a = 0; a < 3; a++) {
            float fs = nl > l ? -sigma * lap * nn[a] / nl : 0.0f;
            acc[3 * i + a] = (fp[a] + fv[a] + fs) / rho_i + p->gravity[a] + (vortex ? drive * t[a] : 0.0f) + push[a];
        }
    }
    if (nb && weak)
        eddy_couple_sph_cpu(cp, nb, boundary, n, pos, mass, density, NULL, force);
    if (dfsph) {
        /* The leap-frog takes the phase's velocities as they are. */
        float *applied = nb ? malloc(4ull * n + 4) : NULL;
        sph_dfsph_cpu_density(&df, p, &g, n, pos, vel, mass, density, acc, press, applied, iterations, error);
        sph_dfsph_cpu_end(&df);
        if (applied)
            eddy_couple_sph_cpu(cp, nb, boundary, n, pos, mass, density, applied, force);
        free(applied);
        memset(acc, 0, sizeof *acc * 3 * n);
    } else if (!weak) {
        /* eddy_sph_step_cpu with IISPH parameters: a solve from zero. */
        float *own = press ? NULL : calloc((size_t)n + 1, sizeof *own);
        sph_boundary_cpu bd = { cp, nb, boundary, bvel };
        if (press || own) {
            iisph_solve(p, &g, n, pos, vel, mass, density, acc, press ? press : own, &bd, iterations, error);
            if (nb)
                eddy_couple_sph_cpu(cp, nb, boundary, n, pos, mass, density, press ? press : own, force);
        }
        free(own);
    }
    for (uint32_t i = 0; i < n; i++) {
        float *x = pos + 4 * i, *v = vel + 4 * i;
        for (int a = 0; a < 3; a++) {
            v[a] += acc[3 * i + a] * dt;
            x[a] += v[a] * dt;
        }
        float e;
        memcpy(&e, &p->misc[1], 4);
        float wide = weak ? 0.0f : x[3], lo[3], hi[3]; /* sph_integrate.comp */
        for (int a = 0; a < 3; a++)
            lo[a] = p->box_min[a] - wide, hi[a] = p->box_max[a] + wide;
        eddy_cpu_collide(x, v, x[3], e, lo, hi, solids, (uint32_t)p->dims[3]);
        for (int a = 0; a < 3; a++)
            x[a] = x[a] < p->box_min[a] ? p->box_min[a] : x[a] > p->box_max[a] ? p->box_max[a] : x[a];
    }
    free(acc);
    eddy_cpu_grid_free(&g);
}

void eddy_sph_step_coupled_cpu(const struct eddy_sph_params *p, const eddy_solid *solids, uint32_t n,
                               float *pos, float *vel, const float *mass, float *density, uint32_t step,
                               const struct eddy_couple_params *cp, uint32_t nb,
                               const float *boundary, float *force)
{
    step_cpu(p, solids, n, pos, vel, mass, density, step, cp, nb, boundary, NULL, force, NULL, NULL, NULL);
}

void eddy_sph_step_iisph_cpu(const struct eddy_sph_params *p, const eddy_solid *solids, uint32_t n, float *pos,
                             float *vel, const float *mass, float *density, float *pressure, uint32_t step,
                             uint32_t *iterations, float *error)
{
    step_cpu(p, solids, n, pos, vel, mass, density, step, NULL, 0, NULL, NULL, NULL, pressure, iterations, error);
}

void eddy_sph_step_iisph_coupled_cpu(const struct eddy_sph_params *p, const eddy_solid *solids, uint32_t n,
                                     float *pos, float *vel, const float *mass, float *density, float *pressure,
                                     uint32_t step, const struct eddy_couple_params *cp, uint32_t nb,
                                     const float *boundary, const float *bvel, float *force,
                                     uint32_t *iterations, float *error)
{
    step_cpu(p, solids, n, pos, vel, mass, density, step, cp, nb, boundary, bvel, force, pressure, iterations, error);
}

void eddy_sph_step_dfsph_cpu(const struct eddy_sph_params *p, const eddy_solid *solids, uint32_t n, float *pos,
                             float *vel, const float *mass, float *density, float *pressure, uint32_t step,
                             uint32_t *iterations, float *error)
{
    step_cpu(p, solids, n, pos, vel, mass, density, step, NULL, 0, NULL, NULL, NULL, pressure, iterations, error);
}
