/* The sph module's system state, shared by its files: sph.c (parameters,
 * the weakly compressible step, statistics), sph_iisph.c (the pressure
 * solver) and sph_surface.c (the iso-surface). */
#ifndef EDDY_SPH_INTERNAL_H
#define EDDY_SPH_INTERNAL_H

#include "sph.h"

#include "couple/couple.h"
#include "eddy/eddy_output.h"
#include "eddy/eddy_prims.h"

#include <stdbool.h>

/* A shader's plain or coupled SPIR-V (EDDY_SPIRV's fields). */
#define SPH_VARIANT(coupled, name)                                   \
    .spirv = (coupled) ? name##_coupled_spv : name##_spv,            \
    .spirv_size = (coupled) ? sizeof name##_coupled_spv : sizeof name##_spv

typedef struct sph {
    eddy_engine *e;
    eddy_particles set;
    uint32_t n;
    uint32_t cap; /* particles the step's buffers hold: the set's capacity */
    struct eddy_sph_params p;
    int front_axis;
    eddy_grid *grid;
    eddy_kernel k_density, k_forces, k_integrate, k_clock;
    eddy_buffer params, solids, pushes, clock;
    eddy_buffer spos, svel, smass, sdensity, saccel, snormal, spm, svr;
    eddy_buffer nlist, ncount; /* neighbour lists (shaders/neighbours.glsl); 16-byte stand-ins without */
    uint32_t nlist_cap;
    eddy_buffer position, velocity, mass, density, normal, clamped;
    /* IISPH (solver 1): the pressure (particle order, also output), its
     * sorted copy, the system (source, diagonal), the pressure
     * accelerations, the groups' error sums, dispatch arguments and state,
     * and the wall ghosts' sums the iterations reuse (sph_iisph.glsl). */
    bool iisph;
    bool adaptive;      /* the scene's adaptive stepping asks stable_dt each frame */
    double solve_scale; /* IISPH: stable_dt's factor, halved after a frame with an unconverged solve */
    bool unconverged;   /* IISPH, DFSPH's density phase: the last frame had an unconverged solve (warned) */
    uint32_t max_iterations;
    eddy_kernel k_diag, k_accel, k_accel_final, k_update, k_check;
    eddy_buffer pressure, spress, siis, sap, partials, args, istate, sghost;
    /* The check's sums (sph_iisph_check.comp's reduce), and over MPI ranks
     * the owned flags in cell order (a 16-byte stand-in on one rank) and
     * the kernels that count only those: the update, the check's sum and
     * its test (made at the first substep over ranks). */
    eddy_buffer sreduce, sowned;
    eddy_kernel k_update_owned, k_sum, k_decide;
    /* DFSPH over ranks: the kappas counting the owned particles, and the
     * divergence phase's sum and test (k_sum, k_decide: the density
     * phase's). */
    eddy_kernel k_kappa_div_owned, k_kappa_rho_owned, k_sum_div, k_decide_div;
    /* DFSPH (solver 2; shaders/sph_dfsph.glsl): the solve's velocity and
     * density, alpha and kappa / rho, the ghosts' grad W_spiky sum (vec4
     * each, cell order), the divergence phase's state and dispatch
     * arguments (the density phase uses istate and args). */
    bool dfsph;
    bool unconverged_div;
    uint32_t div_iterations;
    eddy_kernel k_alpha, k_kappa_div, k_kappa_rho, k_apply, k_predict, k_store, k_check_div;
    eddy_buffer sdv, sdf, dghost, dstate, dargs;
    eddy_couple *couple; /* the boundary slot's sets as boundary particles; NULL without */
    /* Surface extraction (surface_mesh): run per output frame. */
    char name[64];
    bool surface;
    struct { float origin_cell[4]; int32_t dims[4]; float iso; } vgrid;
    uint32_t cells, tri_cap;
    eddy_kernel k_field, k_count, k_emit;
    eddy_buffer field, counts, offsets, tris;
    eddy_scan *scan;
    eddy_graph g_field, g_emit;
    eddy_pvd_entry *series; /* the surface meshes written so far, for <name>_surface.pvd */
    uint32_t series_count;
    uint32_t field_vertices;
    /* surface_live: the iso-surface every substep, as a particle set for renderers. */
    bool live;
    uint32_t live_max;        /* triangles */
    eddy_particles live_set;  /* "<set>.surface" */
    eddy_kernel k_emit_live, k_draw;
} sph;


/* A buffer of the system's own ("<system>.<what>", at least 16 bytes). */
eddy_buffer sph_scratch(sph *s, const char *name, const char *what, uint64_t bytes);
/* The grid build, the gathers and sph.density (every solver's start). */
eddy_result sph_record_density(sph *s, eddy_graph g);

/* sph_surface.c */
eddy_result sph_create_surface(sph *s, const eddy_system_ctx *ctx, double h, double cell, double iso);
eddy_result sph_record_field(sph *s, eddy_graph g);
eddy_result sph_create_live(sph *s, const eddy_system_ctx *ctx, double max_triangles);
eddy_result sph_record_live(sph *s, eddy_graph g);

/* sph_iisph.c */
eddy_result sph_create_iisph(sph *s, const eddy_system_ctx *ctx, bool coupled);
/* Over MPI ranks (parts not NULL) the iterations are parts of the
 * substep, each refreshing the ghosts' pressures and summing the error
 * over the ranks; the passes after them go to parts->graph. */
int sph_record_iisph(sph *s, eddy_graph g, eddy_step_parts *parts);
/* Over MPI ranks, a rank without particles of the set: the iterations'
 * syncs and loop all the same (every rank takes part in each). */
int sph_iisph_empty_parts(sph *s, eddy_step_parts *parts);
/* Over ranks, on a rank without particles: a pass of the sum kernel k
 * (the check's phase 1) over none, so that the next sync adds zeros, not
 * the totals the last reduction left in sreduce. */
int sph_zero_sums(sph *s, eddy_graph g, eddy_kernel k, eddy_buffer state, eddy_buffer args);
/* IISPH's or DFSPH's solves since the last frame: statistics, the warning
 * system.unconverged, the adaptive substep's factor. */
void sph_solve_stats(sph *s, eddy_stats *st);
/* phase: sph_iisph_check.comp's PHASE (0 on one rank). */
eddy_kernel sph_check_kernel(sph *s, uint32_t mode, uint32_t phase, const char *label);
/* What IISPH and DFSPH's constant-density phase share: the set's
 * "pressure" and its sorted copy, the groups' partial errors, the
 * dispatch arguments and the state ("<system>.<solver>.partials", ...). */
void sph_create_solve(sph *s, const eddy_system_ctx *ctx, const char *solver);

/* sph.c: the set's "pressure" buffer set to the fill's hydrostatic
 * pressure (IISPH's and DFSPH's first warm start). */
eddy_result sph_hydrostatic_start(sph *s);

/* sph_dfsph.c. Over MPI ranks (parts not NULL) each phase's iterations
 * are parts of the substep (the passes after them go to parts->graph). */
eddy_result sph_create_dfsph(sph *s, const eddy_system_ctx *ctx, bool coupled);
/* Before sph.forces: alpha and the divergence-free phase. */
int sph_record_dfsph_divergence(sph *s, eddy_graph g, eddy_step_parts *parts);
/* After sph.forces: the prediction and the constant-density phase. */
int sph_record_dfsph_density(sph *s, eddy_graph g, eddy_step_parts *parts);
/* Over ranks, a rank without particles of the set: both phases' syncs and
 * loops all the same. */
int sph_dfsph_empty_parts(sph *s, eddy_step_parts *parts);
/* sph_iisph.c: the owned flags' buffer for the set's capacity (made once). */
eddy_result sph_owned_buffer(sph *s);

#endif
