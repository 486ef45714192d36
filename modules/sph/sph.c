/* sph module: see README.md beside this file. */
#include "sph_internal.h"
#include "eddy/eddy_checkpoint.h"

#include "common/fluid_stats.h"
#include "common/dist_reach.h"
#include "common/hydrostatic.h"
#include "common/lattice.h"
#include "common/nlist.h"
#include "couple/couple.h"
#include "eddy/eddy_prims.h"
#include "sph_kernels.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t density_spv[] =
#include "sph_density.spv.inc"
    ;
static const uint32_t forces_spv[] =
#include "sph_forces.spv.inc"
    ;
static const uint32_t density_coupled_spv[] =
#include "sph_density_coupled.spv.inc"
    ;
static const uint32_t forces_coupled_spv[] =
#include "sph_forces_coupled.spv.inc"
    ;
static const uint32_t integrate_spv[] =
#include "sph_integrate.spv.inc"
    ;
static const uint32_t clock_spv[] =
#include "sph_clock.spv.inc"
    ;

enum {
    P_H, P_RHO0, P_K, P_MU, P_SIGMA, P_L, P_GRAVITY, P_RESTITUTION, P_VORTEX_CENTER,
    P_VORTEX_AXIS, P_VORTEX_OMEGA, P_VORTEX_RATE, P_VORTEX_RADIUS, P_FRONT_AXIS, P_SURFACE_MESH,
    P_SURFACE_CELL, P_SURFACE_ISO, P_WALL_SPACING, P_PUSH_CENTER, P_PUSH_VELOCITY,
    P_PUSH_RADIUS, P_PUSH_STRENGTH, P_PRESSURE_FORCE, P_CLAMP_NEGATIVE, P_EOS, P_C0, P_ALPHA, P_NORMALISE,
    P_SOLVER, P_TOLERANCE, P_MAX_ITERATIONS, P_RELAXATION, P_SURFACE_LIVE, P_SURFACE_MAX_TRIANGLES, P_NEIGHBOURS, P_MAX_ERROR, P_DIV_TOLERANCE, P_DIV_ITERATIONS, P_COUNT
};

static const eddy_param_info params[P_COUNT] = {
    [P_H] = { "h", EDDY_PARAM_FLOAT, "m", { 0.04 }, 1e-5, 100, "kernel support radius (about 2 particle spacings)" },
    [P_RHO0] = { "rest_density", EDDY_PARAM_FLOAT, "kg/m^3", { 1000 }, 1e-3, 1e6, "rest density rho0" },
    [P_K] = { "stiffness", EDDY_PARAM_FLOAT, "m^2/s^2", { 100 }, 1e-6, 1e8, "gas constant k of p = k (rho - rho0)" },
    [P_MU] = { "viscosity", EDDY_PARAM_FLOAT, "Pa s", { 3.5 }, 0, 1e6, "dynamic viscosity mu" },
    [P_SIGMA] = { "surface_tension", EDDY_PARAM_FLOAT, "N/m", { 0.0728 }, 0, 1e4, "surface tension coefficient sigma" },
    [P_L] = { "surface_threshold", EDDY_PARAM_FLOAT, "1/m", { 7.065 }, 0, 1e8, "|grad c| above which a particle is at the surface (l)" },
    [P_GRAVITY] = { "gravity", EDDY_PARAM_VEC3, "m/s^2", { 0, -9.81, 0 }, -1e4, 1e4, "uniform acceleration" },
    [P_RESTITUTION] = { "restitution", EDDY_PARAM_FLOAT, "1", { 0.1 }, 0, 1, "normal speed kept after a boundary contact" },
    [P_VORTEX_CENTER] = { "vortex_center", EDDY_PARAM_VEC3, "m", { 0, 0, 0 }, -1e6, 1e6, "a point on the vortex axis" },
    [P_VORTEX_AXIS] = { "vortex_axis", EDDY_PARAM_VEC3, "1", { 0, 1, 0 }, -1, 1, "vortex axis direction (normalised)" },
    [P_VORTEX_OMEGA] = { "vortex_omega", EDDY_PARAM_FLOAT, "rad/s", { 0 }, -1e4, 1e4, "stirring: angular speed the fluid is driven to about the axis (0 = off)" },
    [P_VORTEX_RATE] = { "vortex_rate", EDDY_PARAM_FLOAT, "1/s", { 2 }, 0, 1e4, "stirring: how fast the tangential speed relaxes to omega r" },
    [P_VORTEX_RADIUS] = { "vortex_radius", EDDY_PARAM_FLOAT, "m", { 1e6 }, 0, 1e9, "the field acts within this distance of the axis" },
    [P_FRONT_AXIS] = { "front_axis", EDDY_PARAM_INT, "1", { 0 }, 0, 2, "axis (0 x, 1 y, 2 z) of the surge front statistic" },
    [P_SURFACE_MESH] = { "surface_mesh", EDDY_PARAM_BOOL, "1", { 0 }, 0, 1, "write the colour field's iso-surface per frame (PLY and VTK)" },
    [P_SURFACE_CELL] = { "surface_cell", EDDY_PARAM_FLOAT, "m", { 0 }, 0, 100, "surface grid spacing; 0 = h / 2" },
    [P_WALL_SPACING] = { "wall_spacing", EDDY_PARAM_FLOAT, "m", { 0 }, 0, 100, "spacing of the ghost lattice behind the box walls (the fill spacing); 0 = h / 2" },
    [P_PUSH_CENTER] = { "push_center", EDDY_PARAM_VEC3, "m", { 0, 0, 0 }, -1e6, 1e6, "moving push field: its centre at t = 0" },
    [P_PUSH_VELOCITY] = { "push_velocity", EDDY_PARAM_VEC3, "m/s", { 0, 0, 0 }, -1e4, 1e4, "moving push field: velocity of its centre" },
    [P_PUSH_RADIUS] = { "push_radius", EDDY_PARAM_FLOAT, "m", { 0 }, 0, 1e6, "moving push field: radius (0 = off)" },
    [P_PUSH_STRENGTH] = { "push_strength", EDDY_PARAM_FLOAT, "m/s^2", { 0 }, -1e6, 1e6, "moving push field: outward acceleration at its centre" },
    [P_PRESSURE_FORCE] = { "pressure_force", EDDY_PARAM_INT, "1", { 0 }, 0, 1,
                           "0: symmetric, -sum m_j (p_i/rho_i^2 + p_j/rho_j^2) grad W (interior limit -grad p); "
                           "1: Mueller et al. 2003, -sum m_j (p_i + p_j)/(2 rho_j) grad W / rho_i (half of grad p)" },
    [P_CLAMP_NEGATIVE] = { "clamp_negative_pressure", EDDY_PARAM_BOOL, "1", { 1 }, 0, 1,
                           "no pressure below rest density (false: the paper's pull at the free surface)" },
    [P_EOS] = { "equation_of_state", EDDY_PARAM_INT, "1", { 0 }, 0, 1,
                "0: linear, p = k (rho - rho0) (Mueller et al. 2003); 1: Tait, p = rho0 k / 7 ((rho/rho0)^7 - 1)" },
    [P_C0] = { "speed_of_sound", EDDY_PARAM_FLOAT, "m/s", { 0 }, 0, 1e4,
               "speed of sound c0 at rest density: sets k = c0^2 (0 = sqrt(stiffness)); about ten times the "
               "fastest flow keeps density within about 1% (Tait)" },
    [P_ALPHA] = { "artificial_viscosity", EDDY_PARAM_FLOAT, "1", { 0 }, 0, 10,
                  "Monaghan's alpha (with h the support radius), on approaching pairs; 0 = off" },
    [P_NORMALISE] = { "normalise_density", EDDY_PARAM_BOOL, "1", { 0 }, 0, 1,
                      "scale the density sum so that fluid at rest on the fill lattice (spacing wall_spacing) "
                      "reads rest_density (false: the paper's raw sum, 1.0098 rho0 there at h = 2 spacings)" },
    [P_SOLVER] = { "solver", EDDY_PARAM_INT, "1", { 0 }, 0, 2,
                   "0: weakly compressible, the pressure from the equation of state; 1: IISPH (Ihmsen et al. "
                   "2014), the pressure that keeps the fluid at rest density, solved each substep; 2: DFSPH "
                   "(Bender and Koschier 2015, 2017), a divergence-free and a constant-density solve on the "
                   "velocities each substep (1 and 2: no sound bound on dt, only CFL, viscosity and gravity)" },
    [P_DIV_TOLERANCE] = { "divergence_tolerance", EDDY_PARAM_FLOAT, "1", { 0.001 }, 1e-7, 0.1,
                          "DFSPH: the divergence-free iterations stop once dt max(D rho / Dt, 0) / rest_density, "
                          "averaged over every particle, is at most this" },
    [P_DIV_ITERATIONS] = { "max_divergence_iterations", EDDY_PARAM_INT, "1", { 100 }, 1, 10000,
                           "DFSPH: divergence-free iterations at most per substep (recorded; the ones after "
                           "convergence are empty dispatches)" },
    [P_TOLERANCE] = { "tolerance", EDDY_PARAM_FLOAT, "1", { 0.0001 }, 1e-7, 0.1,
                      "IISPH, DFSPH: the iterations stop once the predicted density error over rest_density, averaged "
                      "over every particle, is at most this (both ways where pressure acts, compression only "
                      "where none does: a free surface may expand)" },
    [P_MAX_ITERATIONS] = { "max_iterations", EDDY_PARAM_INT, "1", { 100 }, 2, 10000,
                           "IISPH, DFSPH's constant-density phase: iterations at most per substep (recorded; the ones after convergence are "
                           "empty dispatches)" },
    [P_MAX_ERROR] = { "max_error", EDDY_PARAM_FLOAT, "1", { 0.01 }, 1e-6, 1,
                      "IISPH, DFSPH: the iterations also go on until the largest predicted density error at any "
                      "particle over rest_density is at most this (a mean alone lets local spikes through)" },
    [P_RELAXATION] = { "relaxation", EDDY_PARAM_FLOAT, "1", { 0.5 }, 0.01, 1,
                       "IISPH: relaxed Jacobi factor omega of the pressure update" },
    [P_SURFACE_ISO] = { "surface_iso", EDDY_PARAM_FLOAT, "1", { 0.45 }, 1e-3, 0.999, "level of the fluid indicator at the surface (1 inside, 0 outside)" },
    [P_SURFACE_LIVE] = { "surface_live", EDDY_PARAM_BOOL, "1", { 0 }, 0, 1,
                         "with surface_mesh: also extract the iso-surface at the end of every substep, on the GPU, "
                         "into the particle set '<set>.surface' (three vertices a triangle in its \"position\") with "
                         "the element set \"triangles\", whose draw record the GPU keeps current, for renderers" },
    [P_SURFACE_MAX_TRIANGLES] = { "surface_max_triangles", EDDY_PARAM_INT, "1", { 0 }, 0, 16777216,
                                  "surface_live: triangles kept at most (more are dropped); 0 = 8 x particles + "
                                  "1024" },
    [P_NEIGHBOURS] = { "neighbour_list", EDDY_PARAM_INT, "1", { 64 }, 0, 1024,
                       "neighbours (within h) a particle keeps in its list, 4 bytes each: sph.density scans the "
                       "27 grid cells and sph.forces reads the list (a particle with more neighbours scans the "
                       "cells again); 0 = both scan. The results are bitwise the same either way" },
};

static const char *const shared[] = { "position", "velocity", "mass", "density", "normal", "clamped" };

static void destroy(void *state)
{
    sph *s = state;
    if (!s)
        return;
    eddy_engine *e = s->e;
    for (uint32_t i = 0; i < s->series_count; i++)
        free((char *)s->series[i].file);
    free(s->series);
    eddy_destroy_graph(e, s->g_field);
    eddy_destroy_graph(e, s->g_emit);
    eddy_destroy_scan(e, s->scan);
    eddy_destroy_kernel(e, s->k_field);
    eddy_destroy_kernel(e, s->k_count);
    eddy_destroy_kernel(e, s->k_emit);
    eddy_destroy_kernel(e, s->k_emit_live);
    eddy_destroy_kernel(e, s->k_draw);
    eddy_destroy_particles(e, s->live_set);
    eddy_buffer surf[] = { s->field, s->counts, s->offsets, s->tris };
    for (size_t i = 0; i < 4; i++)
        eddy_destroy_buffer(e, surf[i]);
    eddy_destroy_grid(e, s->grid);
    eddy_couple_destroy(e, s->couple);
    eddy_destroy_kernel(e, s->k_density);
    eddy_destroy_kernel(e, s->k_forces);
    eddy_destroy_kernel(e, s->k_integrate);
    eddy_destroy_kernel(e, s->k_clock);
    eddy_kernel iis[] = { s->k_diag, s->k_accel, s->k_accel_final, s->k_update, s->k_check, s->k_alpha,
                          s->k_kappa_div, s->k_kappa_rho, s->k_apply, s->k_predict, s->k_store, s->k_check_div,
                          s->k_update_owned, s->k_sum, s->k_decide, s->k_kappa_div_owned,
                          s->k_kappa_rho_owned, s->k_sum_div, s->k_decide_div };
    for (size_t i = 0; i < sizeof iis / sizeof iis[0]; i++)
        eddy_destroy_kernel(e, iis[i]);
    eddy_buffer own[] = { s->params, s->solids, s->pushes, s->clock, s->spos, s->svel, s->smass,
                          s->sdensity, s->saccel, s->snormal, s->spm, s->svr, s->spress, s->siis,
                          s->sap, s->partials, s->args, s->istate, s->sghost, s->nlist, s->ncount,
                          s->sdv, s->sdf, s->dghost, s->dstate, s->dargs, s->sreduce, s->sowned };
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        eddy_destroy_buffer(e, own[i]);
    free(s);
}

eddy_buffer sph_scratch(sph *s, const char *name, const char *what, uint64_t bytes)
{
    char label[160];
    snprintf(label, sizeof label, "%s.%s", name, what);
    return eddy_create_buffer(s->e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = bytes < 16 ? 16 : bytes, .label = label });
}

/* k = c0^2 of the equation of state: speed_of_sound squared when set, else
 * stiffness. */
static double stiffness_of(const eddy_param_value *v)
{
    return v[P_C0].v[0] > 0 ? v[P_C0].v[0] * v[P_C0].v[0] : v[P_K].v[0];
}

/* The speed the sound bound resolves: c0 widened by the artificial
 * viscosity's share, (1 + 0.6 alpha) c0 (Monaghan). */
static double signal_speed(double k, double alpha)
{
    return (1 + 0.6 * alpha) * sqrt(k);
}

/* A grid over the box with a cell of margin: particles only leave the box
 * through a bug, and then they are clamped into the border cells. */
void eddy_sph_params_from_values(struct eddy_sph_params *p, const eddy_param_value *v,
                                 const float box_min[3], const float box_max[3], double dt,
                                 uint32_t count, uint32_t solid_count)
{
    memset(p, 0, sizeof *p);
    double h = v[P_H].v[0];
    double axis[3] = { v[P_VORTEX_AXIS].v[0], v[P_VORTEX_AXIS].v[1], v[P_VORTEX_AXIS].v[2] };
    double alen = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    for (int a = 0; a < 3; a++) {
        p->grid[a] = (float)(box_min[a] - h);
        p->box_min[a] = box_min[a];
        p->box_max[a] = box_max[a];
        p->dims[a] = (int32_t)(ceil((box_max[a] - box_min[a]) / h) + 2);
        p->gravity[a] = (float)v[P_GRAVITY].v[a];
        p->vortex[a] = (float)v[P_VORTEX_CENTER].v[a];
        p->vortex_axis[a] = alen > 0 ? (float)(axis[a] / alen) : 0.0f;
    }
    p->grid[3] = (float)(1.0 / h);
    p->dims[3] = (int32_t)solid_count;
    p->box_min[3] = (float)h;
    p->box_max[3] = (float)dt;
    p->gravity[3] = (float)v[P_RHO0].v[0];
    p->material[0] = (float)stiffness_of(v);
    p->material[1] = (float)v[P_MU].v[0];
    p->material[2] = (float)v[P_SIGMA].v[0];
    p->material[3] = (float)v[P_L].v[0];
    p->vortex[3] = (float)v[P_VORTEX_OMEGA].v[0];
    p->vortex_axis[3] = (float)v[P_VORTEX_RADIUS].v[0];
    for (int a = 0; a < 3; a++) {
        p->push[a] = (float)v[P_PUSH_CENTER].v[a];
        p->push_velocity[a] = (float)v[P_PUSH_VELOCITY].v[a];
    }
    p->push[3] = (float)v[P_PUSH_RADIUS].v[0];
    p->push_velocity[3] = (float)v[P_PUSH_STRENGTH].v[0];
    p->misc[0] = count;
    float e_rest = (float)v[P_RESTITUTION].v[0], rate = (float)v[P_VORTEX_RATE].v[0];
    float ws = (float)(v[P_WALL_SPACING].v[0] > 0 ? v[P_WALL_SPACING].v[0] : h / 2);
    memcpy(&p->misc[1], &e_rest, 4);
    memcpy(&p->misc[2], &rate, 4);
    memcpy(&p->misc[3], &ws, 4);
    p->model[0] = v[P_PRESSURE_FORCE].v[0] != 0 ? EDDY_SPH_MULLER : EDDY_SPH_SYMMETRIC;
    p->model[1] = v[P_CLAMP_NEGATIVE].v[0] != 0;
    p->model[2] = v[P_EOS].v[0] != 0 ? EDDY_SPH_TAIT : EDDY_SPH_LINEAR;
    float alpha = (float)v[P_ALPHA].v[0];
    memcpy(&p->model[3], &alpha, 4);
    p->lattice[0] = v[P_NORMALISE].v[0] != 0 ? (float)(1.0 / eddy_lattice_sum_poly6(h, ws)) : 1.0f;
    p->solve[0] = v[P_SOLVER].v[0] == 2 ? EDDY_SPH_DFSPH : v[P_SOLVER].v[0] != 0 ? EDDY_SPH_IISPH : EDDY_SPH_WEAK;
    p->solve[1] = (uint32_t)v[P_MAX_ITERATIONS].v[0];
    float tol = (float)v[P_TOLERANCE].v[0], omega = (float)v[P_RELAXATION].v[0];
    memcpy(&p->solve[2], &tol, 4);
    memcpy(&p->solve[3], &omega, 4);
    p->solve2[0] = (float)v[P_MAX_ERROR].v[0];
    p->solve2[1] = (float)v[P_DIV_TOLERANCE].v[0];
    p->solve2[2] = (float)v[P_DIV_ITERATIONS].v[0];
}

/* IISPH's and DFSPH's first solve starts from the fill's hydrostatic
 * pressure (the set's "pressure" buffer, the warm start): from zero, the
 * first substeps let the column fall onto its floor while the iterations
 * build the pressure up, and the bottom layer is squeezed into the floor's
 * ghosts. */
eddy_result sph_hydrostatic_start(sph *s)
{
    if (s->n == 0)
        return EDDY_OK;
    float *pos = malloc(16ull * s->n), *p = malloc(4ull * s->n), ws;
    eddy_result r = pos && p ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
    memcpy(&ws, &s->p.misc[3], 4);
    if (r == EDDY_OK)
        r = eddy_buffer_download(s->e, s->position, 0, 16ull * s->n, pos);
    if (r == EDDY_OK && !eddy_hydrostatic_pressure(pos, s->n, s->p.gravity, s->p.gravity[3], ws, p))
        r = EDDY_ERROR_OUT_OF_MEMORY;
    if (r == EDDY_OK)
        r = eddy_buffer_upload(s->e, s->pressure, 0, 4ull * s->n, p);
    free(pos);
    free(p);
    return r;
}

/* Grid of the current positions, the state gathered into cell order, and the
 * density pass: the start of a substep and of the surface field alike. */
eddy_result sph_record_density(sph *s, eddy_graph g)
{
    eddy_engine *e = s->e;
    eddy_grid_buffers gb = eddy_grid_get_buffers(s->grid);
    eddy_result r = eddy_grid_record_build(e, s->grid, g, s->position, s->n);
    if (r == EDDY_OK)
        r = eddy_grid_record_gather(e, s->grid, g, s->position, s->spos, 4, s->n);
    if (r == EDDY_OK)
        r = eddy_grid_record_gather(e, s->grid, g, s->velocity, s->svel, 4, s->n);
    if (r == EDDY_OK)
        r = eddy_grid_record_gather(e, s->grid, g, s->mass, s->smass, 1, s->n);
    if (r != EDDY_OK)
        return r;
    /* The coupled variant binds the boundary after its own buffers. */
    eddy_couple_bindings cb = s->couple ? eddy_couple_get_bindings(s->couple) : (eddy_couple_bindings){ 0 };
    eddy_access cr = s->couple ? EDDY_READ : 0;
    int rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "sph.density", .kernel = s->k_density, .threads = s->n,
        .bindings = { { s->params, EDDY_READ }, { s->spos, EDDY_READ }, { s->smass, EDDY_READ },
                      { gb.cell_start, EDDY_READ }, { gb.cell_end, EDDY_READ },
                      { s->sdensity, EDDY_WRITE }, { s->svel, EDDY_READ }, { s->spm, EDDY_WRITE },
                      { s->svr, EDDY_WRITE }, { s->nlist, EDDY_WRITE }, { s->ncount, EDDY_WRITE },
                      { cb.params, cr }, { cb.particles, cr }, { cb.cell_start, cr }, { cb.cell_end, cr } } });
    return rc < 0 ? (eddy_result)rc : EDDY_OK;
}

/* The step and the box the parameters allow. The time step must resolve
 * sound (c0 = sqrt(k), or speed_of_sound), with the artificial viscosity's
 * share, and viscous diffusion: dt <= 0.4 h / ((1 + 0.6 alpha) c0) and
 * dt <= 0.125 h^2 rho0 / mu (Monaghan's bounds; PHYSICS.md); IISPH has no
 * sound to resolve. The vortex axis is a direction; the grid over the box
 * fits. */
static eddy_result check_params(const eddy_system_ctx *ctx, bool iisph, const char *solver)
{
    eddy_engine *e = ctx->engine;
    const eddy_param_value *v = ctx->params;
    double h = v[P_H].v[0], rho0 = v[P_RHO0].v[0], mu = v[P_MU].v[0];
    double k = stiffness_of(v), c0 = sqrt(k);
    double dt_sound = 0.4 * h / signal_speed(k, v[P_ALPHA].v[0]), dt_visc = mu > 0 ? 0.125 * h * h * rho0 / mu : INFINITY;
    double dt_max = dt_sound < dt_visc ? dt_sound : dt_visc;
    if (iisph) {
        /* No sound to resolve: the viscous bound and the body-force one,
         * 0.25 sqrt(h / |g|) (Monaghan 1992); the flow's CFL bound needs the
         * speeds, so adaptive stepping applies it (stable_dt). */
        double g = sqrt(v[P_GRAVITY].v[0] * v[P_GRAVITY].v[0] + v[P_GRAVITY].v[1] * v[P_GRAVITY].v[1] +
                        v[P_GRAVITY].v[2] * v[P_GRAVITY].v[2]);
        double dt_force = g > 0 ? 0.25 * sqrt(h / g) : INFINITY;
        dt_max = dt_force < dt_visc ? dt_force : dt_visc;
        if (ctx->dt > dt_max && !ctx->adaptive) {
            eddy_log(e, EDDY_LOG_ERROR, "system.unstable", "system '%s': substep dt = %g s is above the %s "
                     "stability bound %g s (gravity: 0.25 sqrt(h / |g|) = %g s; viscosity: 0.125 h^2 "
                     "rest_density / viscosity = %g s): lower dt or raise substeps", ctx->name, ctx->dt, solver, dt_max,
                     dt_force, dt_visc);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
    } else if (ctx->dt > dt_max && !ctx->adaptive) {
        eddy_log(e, EDDY_LOG_ERROR, "system.unstable", "system '%s': substep dt = %g s is above the stability bound "
                 "%g s (sound: 0.4 h / ((1 + 0.6 artificial_viscosity) c0) = %g s with c0 = %g m/s, "
                 "speed_of_sound or sqrt(stiffness); viscosity: 0.125 h^2 rest_density / viscosity = %g s): "
                 "lower dt or raise substeps", ctx->name, ctx->dt, dt_max, dt_sound, c0, dt_visc);
        return EDDY_ERROR_INVALID_ARGUMENT; /* (with "adaptive" in the scene it adapts instead) */
    }
    double axis[3] = { v[P_VORTEX_AXIS].v[0], v[P_VORTEX_AXIS].v[1], v[P_VORTEX_AXIS].v[2] };
    double alen = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    if (!(alen > 1e-12)) {
        eddy_log(e, EDDY_LOG_ERROR, "system.invalid", "system '%s': params.vortex_axis must be a non-zero vector",
                 ctx->name);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    /* A grid over the box with a cell of margin: particles only leave the box
     * through a bug, and then they are clamped into the border cells. */
    for (int a = 0; a < 3; a++) {
        double cells = ceil((ctx->box_max[a] - ctx->box_min[a]) / h) + 2;
        if (cells > 1 << 20) {
            eddy_log(e, EDDY_LOG_ERROR, "system.too_large", "system '%s': the box spans %g cells of h = %g m along "
                     "axis %d; raise h or shrink the box", ctx->name, cells, h, a);
            return EDDY_ERROR_LIMIT;
        }
    }
    return EDDY_OK;
}

/* The set's buffers the system uses, the ones it adds to the set, the
 * parameter block and the sorted copies and neighbour lists. */
static eddy_result create_buffers(sph *s, const eddy_system_ctx *ctx)
{
    eddy_engine *e = s->e;
    s->position = eddy_particles_buffer(e, s->set, "position");
    s->velocity = eddy_particles_buffer(e, s->set, "velocity");
    s->mass = eddy_particles_buffer(e, s->set, "mass");
    s->density = eddy_particles_add_buffer(e, s->set, "density", 4);
    s->normal = eddy_particles_add_buffer(e, s->set, "normal", 16);
    s->clamped = eddy_particles_add_buffer(e, s->set, "clamped", 4);
    uint64_t n = s->cap;
    s->params = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof s->p, .label = "sph.params", .data = &s->p });
    s->solids = sph_scratch(s, ctx->name, "solids", sizeof(eddy_solid) * (ctx->solid_count ? ctx->solid_count : 1));
    s->pushes = sph_scratch(s, ctx->name, "pushes", 4);
    s->clock = sph_scratch(s, ctx->name, "clock", 4);
    s->spos = sph_scratch(s, ctx->name, "sorted.position", 16 * n);
    s->svel = sph_scratch(s, ctx->name, "sorted.velocity", 16 * n);
    s->smass = sph_scratch(s, ctx->name, "sorted.mass", 4 * n);
    s->sdensity = sph_scratch(s, ctx->name, "sorted.density", 4 * n);
    s->saccel = sph_scratch(s, ctx->name, "sorted.acceleration", 16 * n);
    s->snormal = sph_scratch(s, ctx->name, "sorted.normal", 16 * n);
    s->spm = sph_scratch(s, ctx->name, "sorted.position_mass", 16 * n);
    s->svr = sph_scratch(s, ctx->name, "sorted.velocity_density", 16 * n);
    uint64_t cap = eddy_nlist_capacity(e, ctx->name, (uint64_t)ctx->params[P_NEIGHBOURS].v[0], n);
    s->nlist_cap = (uint32_t)cap;
    s->nlist = eddy_nlist_buffer(e, ctx->name, cap, n);
    s->ncount = sph_scratch(s, ctx->name, "sorted.neighbour_count", cap ? 4 * n : 16);
    if (!s->density.id || !s->clamped.id || !s->normal.id || !s->params.id || !s->solids.id || !s->pushes.id || !s->clock.id ||
        !s->spos.id || !s->svel.id || !s->smass.id || !s->sdensity.id || !s->saccel.id ||
        !s->snormal.id || !s->spm.id || !s->svr.id || !s->nlist.id || !s->ncount.id)
        return EDDY_ERROR_OUT_OF_MEMORY;
    if (ctx->solid_count &&
        eddy_buffer_upload(e, s->solids, 0, sizeof(eddy_solid) * ctx->solid_count, ctx->solids) != EDDY_OK)
        return EDDY_ERROR_VULKAN;
    return EDDY_OK;
}

static eddy_result create(const eddy_system_ctx *ctx, void **state)
{
    eddy_engine *e = ctx->engine;
    sph *s = calloc(1, sizeof *s);
    if (!s)
        return EDDY_ERROR_OUT_OF_MEMORY;
    *state = s;
    s->e = e;
    s->set = ctx->particles;
    s->n = eddy_particles_count(e, ctx->particles);
    s->cap = eddy_particles_capacity(e, ctx->particles);
    s->adaptive = ctx->adaptive;
    s->solve_scale = 1;
    const eddy_param_value *v = ctx->params;
    double h = v[P_H].v[0], rho0 = v[P_RHO0].v[0];
    s->iisph = v[P_SOLVER].v[0] == 1;
    s->dfsph = v[P_SOLVER].v[0] == 2;
    eddy_result r = check_params(ctx, s->iisph || s->dfsph, s->dfsph ? "DFSPH" : "IISPH");
    if (r != EDDY_OK)
        return r;
    eddy_sph_params_from_values(&s->p, v, ctx->box_min, ctx->box_max, ctx->dt, s->n, ctx->solid_count);
    s->front_axis = (int)v[P_FRONT_AXIS].v[0];
    uint32_t dims[3] = { (uint32_t)s->p.dims[0], (uint32_t)s->p.dims[1], (uint32_t)s->p.dims[2] };

    char gl[160];
    snprintf(gl, sizeof gl, "%s.grid", ctx->name);
    s->grid = eddy_create_grid(e, &(eddy_grid_desc){ EDDY_SIZED(eddy_grid_desc),
        .label = gl, .origin = { s->p.grid[0], s->p.grid[1], s->p.grid[2] }, .cell = (float)h,
        .dims = { dims[0], dims[1], dims[2] }, .max_count = s->cap ? s->cap : 1 });
    if (!s->grid)
        return EDDY_ERROR_LIMIT;
    /* Boundary particles where the forces are taken: at the substep's start.
     * Coupled when the boundary slot holds particles: then the coupled
     * variants of sph.density and sph.forces bind them. */
    if (eddy_couple_slot_particles(e, &ctx->slots[1])) {
        s->couple = eddy_couple_create(e, &(eddy_couple_desc){
            .system = ctx->name, .boundary = ctx->slots[1].sets, .boundary_count = ctx->slots[1].count,
            .origin = { s->p.grid[0], s->p.grid[1], s->p.grid[2] }, .cell = (float)h,
            .dims = { s->p.dims[0], s->p.dims[1], s->p.dims[2] }, .h = (float)h, .dt = ctx->dt,
            .at_start = true, .stiffness = s->p.material[0], .rest_density = (float)rho0,
            .sph_muller = s->p.model[0] == EDDY_SPH_MULLER && !s->dfsph, .sph_clamp_negative = s->p.model[1] != 0,
            .sph_tait = s->p.model[2] == EDDY_SPH_TAIT,
            .gravity = { s->p.gravity[0], s->p.gravity[1], s->p.gravity[2] },
            .added_mass = EDDY_COUPLE_ADDED_MASS * (float)rho0, .sph_iisph = s->iisph || s->dfsph });
        if (!s->couple)
            return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if ((r = create_buffers(s, ctx)) != EDDY_OK)
        return r;
    /* The coupled variants bind the boundary particles after their own
     * bindings. */
    bool cpl = s->couple != NULL;
    s->k_density = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "sph.density", SPH_VARIANT(cpl, density),
        .specialization = { { 1, s->nlist_cap } }, .specialization_count = 1 });
    s->k_forces = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "sph.forces", SPH_VARIANT(cpl, forces),
        .specialization = { { 1, s->nlist_cap } }, .specialization_count = 1 });
    s->k_integrate = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "sph.integrate", EDDY_SPIRV(integrate_spv) });
    s->k_clock = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "sph.clock", EDDY_SPIRV(clock_spv) });
    if (!s->k_density.id || !s->k_forces.id || !s->k_integrate.id || !s->k_clock.id)
        return EDDY_ERROR_VULKAN;
    if (s->iisph && (r = sph_create_iisph(s, ctx, cpl)) != EDDY_OK)
        return r;
    if (s->dfsph && (r = sph_create_dfsph(s, ctx, cpl)) != EDDY_OK)
        return r;
    snprintf(s->name, sizeof s->name, "%s", ctx->name);
    if (v[P_SURFACE_LIVE].v[0] != 0 && v[P_SURFACE_MESH].v[0] == 0) {
        eddy_log(e, EDDY_LOG_ERROR, "system.invalid", "system '%s': surface_live extracts the surface_mesh; expected "
                 "\"surface_mesh\": true with it", ctx->name);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    eddy_result sr = EDDY_OK;
    if (v[P_SURFACE_MESH].v[0] != 0)
        sr = sph_create_surface(s, ctx, h, v[P_SURFACE_CELL].v[0], v[P_SURFACE_ISO].v[0]);
    if (sr == EDDY_OK && v[P_SURFACE_LIVE].v[0] != 0 && s->n)
        sr = sph_create_live(s, ctx, v[P_SURFACE_MAX_TRIANGLES].v[0]);
    return sr;
}

/* The substep's passes; over MPI ranks (parts) IISPH's iterations are
 * parts of it, and what follows them goes into the last part. */
static eddy_result declare(sph *s, eddy_graph g, eddy_step_parts *parts)
{
    eddy_engine *e = s->e;
    if (s->n == 0) {
        eddy_result r = s->couple ? eddy_couple_record_idle(e, s->couple, g, NULL) : EDDY_OK;
        int rc = !parts ? 0 : s->iisph ? sph_iisph_empty_parts(s, parts) : s->dfsph ? sph_dfsph_empty_parts(s, parts) : 0;
        return rc < 0 ? EDDY_ERROR_INVALID_ARGUMENT : r;
    }
    eddy_grid_buffers gb = eddy_grid_get_buffers(s->grid);
    eddy_result r = s->couple ? eddy_couple_record_begin(e, s->couple, g) : EDDY_OK;
    if (r == EDDY_OK)
        r = sph_record_density(s, g);
    if (r != EDDY_OK)
        return r;
    eddy_couple_bindings cb = s->couple ? eddy_couple_get_bindings(s->couple) : (eddy_couple_bindings){ 0 };
    eddy_access cr = s->couple ? EDDY_READ : 0;
    /* DFSPH: the forces act on the divergence-free velocities (its
     * solve's buffer has sph.density's packed layout), and the leap-frog
     * takes the velocities of its constant-density phase. */
    int rc = s->dfsph ? sph_record_dfsph_divergence(s, g, parts) : 0;
    if (parts)
        g = parts->graph;
    eddy_buffer vr = s->dfsph ? s->sdv : s->svr, vel = s->dfsph ? s->sdv : s->svel;
    if (rc >= 0)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "sph.forces", .kernel = s->k_forces, .threads = s->n,
            .bindings = { { s->params, EDDY_READ }, { s->spm, EDDY_READ }, { vr, EDDY_READ },
                          { gb.cell_start, EDDY_READ }, { gb.cell_end, EDDY_READ },
                          { s->saccel, EDDY_WRITE }, { s->snormal, EDDY_WRITE },
                          { s->clock, EDDY_READ }, { s->nlist, EDDY_READ }, { s->ncount, EDDY_READ },
                          { cb.params, cr }, { cb.particles, cr }, { cb.cell_start, cr }, { cb.cell_end, cr } } });
    /* The same pairs' reaction on the boundary particles (IISPH, DFSPH:
     * after their solves, sph_record_iisph, sph_record_dfsph_density). */
    if (rc >= 0 && s->couple && !s->iisph && !s->dfsph)
        rc = eddy_couple_record_sph(e, s->couple, g, s->spm, s->svr, gb.cell_start, gb.cell_end, (eddy_buffer){ 0 });
    if (rc >= 0 && s->iisph)
        rc = sph_record_iisph(s, g, parts);
    if (parts)
        g = parts->graph;
    if (rc >= 0 && s->dfsph)
        rc = sph_record_dfsph_density(s, g, parts);
    if (parts)
        g = parts->graph;
    if (rc >= 0)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "sph.integrate", .kernel = s->k_integrate, .threads = s->n,
            .bindings = { { s->params, EDDY_READ }, { gb.sorted_index, EDDY_READ },
                          { s->spos, EDDY_READ }, { vel, EDDY_READ }, { s->saccel, EDDY_READ },
                          { s->sdensity, EDDY_READ }, { s->snormal, EDDY_READ },
                          { s->solids, EDDY_READ }, { s->position, EDDY_WRITE },
                          { s->velocity, EDDY_WRITE }, { s->density, EDDY_WRITE },
                          { s->normal, EDDY_WRITE }, { s->pushes, EDDY_ATOMIC }, { s->clamped, EDDY_WRITE } } });
    if (rc >= 0)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "sph.clock", .kernel = s->k_clock, .groups = { 1 },
            .bindings = { { s->params, EDDY_READ }, { s->clock, EDDY_READ_WRITE } } });
    if (rc < 0)
        return (eddy_result)rc;
    r = s->couple ? eddy_couple_record_end(e, s->couple, g, NULL) : EDDY_OK;
    /* The next substep gathers its own sorted state again from the
     * positions, so the surface's passes change nothing the step reads. */
    return r == EDDY_OK && s->live ? sph_record_live(s, g) : r;
}

static eddy_result declare_step(void *state, eddy_graph g)
{
    return declare(state, g, NULL);
}

static eddy_result declare_parts(void *state, eddy_step_parts *parts)
{
    return declare(state, parts->graph, parts);
}

/* Per frame: density error against rho0, the surge front, surface
 * particles and boundary pushes since the last frame. */
static void stats(void *state, eddy_stats *st)
{
    sph *s = state;
    eddy_engine *e = s->e;
    uint32_t n = s->n, pushes = 0;
    float *rho = malloc(4ull * n + 4), *pos = malloc(16ull * n + 16), *nrm = malloc(16ull * n + 16);
    if (rho && pos && nrm && n &&
        eddy_buffer_download(e, s->density, 0, 4ull * n, rho) == EDDY_OK &&
        eddy_buffer_download(e, s->position, 0, 16ull * n, pos) == EDDY_OK &&
        eddy_buffer_download(e, s->normal, 0, 16ull * n, nrm) == EDDY_OK &&
        eddy_buffer_download(e, s->pushes, 0, 4, &pushes) == EDDY_OK) {
        double front = -INFINITY;
        uint32_t surface = 0;
        for (uint32_t i = 0; i < n; i++) {
            front = pos[4 * i + s->front_axis] > front ? pos[4 * i + s->front_axis] : front;
            surface += nrm[4 * i + 3] > s->p.material[3];
        }
        eddy_stats_density_error(st, rho, n, s->p.gravity[3]);
        eddy_stats_add(st, "surge_front", front);
        eddy_stats_add(st, "surface_particles", surface);
        eddy_stats_add(st, "boundary_pushes", pushes);
        if (s->iisph || s->dfsph)
            sph_solve_stats(s, st);
        uint32_t zero = 0;
        eddy_buffer_upload(e, s->pushes, 0, 4, &zero);
    }
    free(rho);
    free(pos);
    free(nrm);
}

/* The bounds of create(), with the fastest particle's speed added to the
 * sound speed (a CFL condition on the flow, not only on sound). */
static double stable_dt(void *state)
{
    sph *s = state;
    float alpha;
    memcpy(&alpha, &s->p.model[3], 4);
    double h = s->p.box_min[3], c = signal_speed(s->p.material[0], alpha), vmax = 0;
    float *vel = malloc(16ull * s->n + 16);
    if (vel && s->n &&
        eddy_buffer_download(s->e, s->velocity, 0, 16ull * s->n, vel) == EDDY_OK)
        for (uint32_t i = 0; i < s->n; i++) {
            double v2 = (double)vel[4 * i] * vel[4 * i] + (double)vel[4 * i + 1] * vel[4 * i + 1] +
                        (double)vel[4 * i + 2] * vel[4 * i + 2];
            vmax = v2 > vmax * vmax ? sqrt(v2) : vmax;
        }
    free(vel);
    double dt = 0.4 * h / (c + vmax);
    if (s->p.solve[0] != EDDY_SPH_WEAK) {
        /* The flow's CFL bound and the body force's (create()). */
        const float *gv = s->p.gravity;
        double g = sqrt((double)gv[0] * gv[0] + (double)gv[1] * gv[1] + (double)gv[2] * gv[2]);
        dt = vmax > 0 ? 0.4 * h / vmax : INFINITY;
        double df = g > 0 ? 0.25 * sqrt(h / g) : INFINITY;
        dt = df < dt ? df : dt;
    }
    if (s->p.material[1] > 0) {
        double dv = 0.125 * h * h * s->p.gravity[3] / s->p.material[1];
        dt = dv < dt ? dv : dt;
    }
    return dt * s->solve_scale;
}

static eddy_result set_dt(void *state, double dt)
{
    sph *s = state;
    s->p.box_max[3] = (float)dt;
    return eddy_buffer_upload(s->e, s->params, 0, sizeof s->p, &s->p);
}

/* The iso-surface of the current particles as <name>_surface_NNNNNN.ply/.vtp. */
static eddy_result write_frame(void *state, const eddy_frame_ctx *f)
{
    sph *s = state;
    eddy_engine *e = s->e;
    if (!s->surface || s->n == 0)
        return EDDY_OK;
    eddy_result r = eddy_graph_run(e, s->g_field, 1);
    uint32_t last[2] = { 0, 0 };
    if (r == EDDY_OK)
        r = eddy_buffer_download(e, s->offsets, 4ull * (s->cells - 1), 4, &last[0]);
    if (r == EDDY_OK)
        r = eddy_buffer_download(e, s->counts, 4ull * (s->cells - 1), 4, &last[1]);
    if (r != EDDY_OK)
        return r;
    uint32_t total = last[0] + last[1];
    if (total > s->tri_cap) {
        /* Grow the triangle buffer (and re-record the emit pass) only when a
         * frame needs more: output, not the step, pays for it. */
        uint32_t cap = total + total / 2 + 1024;
        eddy_destroy_graph(e, s->g_emit);
        eddy_destroy_buffer(e, s->tris);
        s->g_emit = (eddy_graph){ 0 };
        s->tris = sph_scratch(s, s->name, "surface.triangles", 36ull * cap);
        if (!s->tris.id)
            return EDDY_ERROR_OUT_OF_MEMORY;
        s->tri_cap = cap;
        s->g_emit = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "sph.surface.emit" });
        int rc = eddy_graph_add_pass(e, s->g_emit, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "sph.surface.emit", .kernel = s->k_emit, .threads = s->cells,
            .bindings = { { s->field, EDDY_READ }, { s->offsets, EDDY_READ }, { s->tris, EDDY_WRITE } },
            .push = &s->vgrid, .push_size = sizeof s->vgrid });
        if (rc < 0)
            return (eddy_result)rc;
    }
    float *tri = malloc(36ull * total + 36);
    if (!tri)
        return EDDY_ERROR_OUT_OF_MEMORY;
    r = total ? eddy_graph_run(e, s->g_emit, 1) : EDDY_OK;
    if (r == EDDY_OK && total)
        r = eddy_buffer_download(e, s->tris, 0, 36ull * total, tri);
    char name[128];
    snprintf(name, sizeof name, "%s_surface_%06u", s->name, f->frame);
    if (r == EDDY_OK)
        r = eddy_write_mesh(e, f->out_dir, name, tri, total, f->time);
    free(tri);
    /* A .pvd series of the meshes, so ParaView opens them as one animation. */
    eddy_pvd_entry *grown = r == EDDY_OK ? realloc(s->series, (s->series_count + 1) * sizeof *grown) : NULL;
    if (r == EDDY_OK && !grown)
        r = EDDY_ERROR_OUT_OF_MEMORY;
    if (r == EDDY_OK) {
        char file[160], path[4200], err[512];
        snprintf(file, sizeof file, "%s.vtp", name);
        s->series = grown;
        s->series[s->series_count++] = (eddy_pvd_entry){ f->time, 0, strdup(file) };
        snprintf(path, sizeof path, "%s/%s_surface.pvd", f->out_dir, s->name);
        if (eddy_write_pvd(path, s->series, s->series_count, err, sizeof err) != 0) {
            eddy_log(e, EDDY_LOG_ERROR, "output.write", "%s", err);
            r = EDDY_ERROR_IO;
        }
    }
    return r;
}

/* The stirring centre as a port: a scene path or the host moves the vortex
 * axis through the fluid. Held at the step's end value for its substeps. */
static const eddy_port_info inputs[] = {
    { "stir.centre", EDDY_PORT_VEC3, "m", "a point on the stirring vortex's axis (params.vortex_center until "
      "driven), held for the step" },
};

/* A stirring centre the fluid takes: finite, within 1e6 m (a host's input
 * and a restored checkpoint's alike). */
static bool centre_ok(double x)
{
    return isfinite(x) && fabs(x) <= 1e6;
}

static eddy_result set_input(void *state, uint32_t index, const double from[3], const double to[3])
{
    (void)index, (void)from;
    sph *s = state;
    float c[3];
    for (int a = 0; a < 3; a++) {
        if (!centre_ok(to[a])) {
            eddy_log(s->e, EDDY_LOG_ERROR, "system.invalid", "system '%s': stir.centre (%g, %g, %g) is not a finite "
                     "point within 1e6 m", s->name, to[0], to[1], to[2]);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
        c[a] = (float)to[a];
    }
    memcpy(s->p.vortex, c, sizeof c);
    /* With the step's own submission: no transfer of its own. */
    return eddy_buffer_stage_write(s->e, s->params, offsetof(struct eddy_sph_params, vortex), sizeof c, c);
}

static eddy_result get_input(void *state, uint32_t index, double value[3])
{
    (void)index;
    sph *s = state;
    for (int a = 0; a < 3; a++)
        value[a] = s->p.vortex[a];
    return EDDY_OK;
}

static const eddy_slot_info slots[] = {
    { "fluid", "the fluid's particles", 1, 1 },
    { "boundary", "sets of rigid bodies (the rigid module's) whose particles are boundary particles of the "
                  "fluid; the fluid's force on each goes into a slice of the set's rigid.external.<k>", 0,
      EDDY_COUPLE_MAX_SETS },
};

/* State: the clock, the pressure (IISPH's and DFSPH's warm start), the
 * stirring centre, and what the statistics gather between frames (the
 * solves' sums, the pushes, the adaptive factor). The rest is rebuilt
 * every substep or made by create from the scene. */
static eddy_result checkpoint(void *state, eddy_checkpoint *cp)
{
    sph *s = state;
    uint8_t flags[2] = { s->unconverged, s->unconverged_div };
    /* The solvers' buffers exist with IISPH and DFSPH only (zero handles
     * otherwise: skipped). */
    const eddy_checkpoint_item items[] = {
        { "clock", s->clock, EDDY_STATE_F32, 1, "s" },
        { "pushes", s->pushes, EDDY_STATE_U32, 1, "1" },
        { "density", s->density, EDDY_STATE_F32, 1, "kg/m^3" },
        { "normal", s->normal, EDDY_STATE_F32, 4, "1/m" },
        { "pressure", s->pressure, EDDY_STATE_F32, 1, "Pa" },
        { "solve.state", s->istate, EDDY_STATE_U32, 4, "1" },
        { "divergence.state", s->dstate, EDDY_STATE_U32, 4, "1" },
    };
    eddy_result r = eddy_checkpoint_buffers(cp, items, sizeof items / sizeof *items);
    if (r == EDDY_OK)
        r = eddy_checkpoint_values(cp, "stir.centre", s->p.vortex, EDDY_STATE_F32, 1, 3, "m");
    if (r == EDDY_OK)
        r = eddy_checkpoint_values(cp, "solve_scale", &s->solve_scale, EDDY_STATE_F64, 1, 1, "1");
    if (r == EDDY_OK)
        r = eddy_checkpoint_values(cp, "unconverged", flags, EDDY_STATE_U8, 1, 2, "1");
    if (r == EDDY_OK && s->surface)
        r = eddy_checkpoint_series(cp, "surface.series", &s->series, &s->series_count);
    if (r == EDDY_OK)
        r = eddy_couple_checkpoint(s->couple, cp);
    if (r != EDDY_OK || !eddy_checkpoint_restoring(cp))
        return r;
    /* Restored values are untrusted: the centre as set_input takes it. */
    for (int a = 0; a < 3; a++)
        if (!centre_ok(s->p.vortex[a]))
            return EDDY_ERROR_PARSE;
    if (!(s->solve_scale > 0 && s->solve_scale <= 1))
        return EDDY_ERROR_PARSE;
    s->unconverged = flags[0] != 0, s->unconverged_div = flags[1] != 0;
    return eddy_buffer_upload(s->e, s->params, 0, sizeof s->p, &s->p);
}

/* Weakly compressible SPH reads the neighbours' positions in its density
 * pass and their densities in its force pass: two support radii. IISPH
 * reads the neighbours' advected velocities (their forces, their
 * densities) in its system: three; its iterations are parts of the
 * substep (sph_record_iisph). DFSPH's phases are parts too, each
 * iteration's velocities refreshed before the next reads them, so what it
 * reads beyond that is the densities and factors of the neighbours: two.
 * A coupled boundary's particles are ghosts like the fluid's (the bodies
 * sum their forces whole: modules/rigid). The pressure solvers' coupled
 * iterations are not parts yet, and the surface is extracted from the
 * whole set: not over ranks yet. */
static eddy_result reach(void *state, double *metres)
{
    sph *s = state;
    const char *why = s->surface ? "surface_mesh extracts the surface of the whole set" : NULL;
    return eddy_reach_answer(s->e, s->name, why, (s->iisph ? 3.0 : 2.0) * s->p.box_min[3], metres);
}

static eddy_result set_count(void *state)
{
    sph *s = state;
    uint32_t n = eddy_particles_count(s->e, s->set);
    if (n > s->cap)
        return EDDY_ERROR_INVALID_ARGUMENT;
    s->n = n;
    s->p.misc[0] = n;
    eddy_result r = s->couple ? eddy_couple_set_counts(s->e, s->couple, n) : EDDY_OK;
    return r == EDDY_OK ? eddy_buffer_upload(s->e, s->params, 0, sizeof s->p, &s->p) : r;
}

static const eddy_module_desc desc = {
    EDDY_MODULE_DESC_VERSION,
    .name = "sph",
    .version = "0.1",
    .summary = "SPH fluid (Mueller, Charypar, Gross 2003): pressure, viscosity, surface tension, solids",
    .params = params,
    .param_count = P_COUNT,
    .shared_buffers = shared,
    .shared_buffer_count = sizeof shared / sizeof shared[0],
    .create = create,
    .destroy = destroy,
    .declare_step = declare_step,
    .stats = stats,
    .write_frame = write_frame,
    .stable_dt = stable_dt,
    .set_dt = set_dt,
    .slots = slots,
    .slot_count = sizeof slots / sizeof slots[0],
    .inputs = inputs,
    .input_count = 1,
    .set_input = set_input,
    .get_input = get_input,
    .checkpoint = checkpoint,
    .reach = reach,
    .set_count = set_count,
    .declare_parts = declare_parts,
};

const eddy_module_desc *eddy_sph_module(void)
{
    return &desc;
}
