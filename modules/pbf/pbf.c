/* pbf module: see README.md beside this file. */
#include "pbf.h"
#include "common/dist_reach.h"

#include "common/fluid_stats.h"
#include "common/lattice.h"
#include "common/nlist.h"
#include "couple/couple.h"
#include "eddy/eddy_checkpoint.h"
#include "eddy/eddy_prims.h"
#include "sph_kernels.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t predict_spv[] =
#include "pbf_predict.spv.inc"
    ;
static const uint32_t lambda_spv[] =
#include "pbf_lambda.spv.inc"
    ;
static const uint32_t delta_spv[] =
#include "pbf_delta.spv.inc"
    ;
static const uint32_t lambda_coupled_spv[] =
#include "pbf_lambda_coupled.spv.inc"
    ;
static const uint32_t delta_coupled_spv[] =
#include "pbf_delta_coupled.spv.inc"
    ;
static const uint32_t apply_spv[] =
#include "pbf_apply.spv.inc"
    ;
static const uint32_t velocity_spv[] =
#include "pbf_velocity.spv.inc"
    ;
static const uint32_t finish_spv[] =
#include "pbf_finish.spv.inc"
    ;
static const uint32_t vorticity_spv[] =
#include "pbf_vorticity.spv.inc"
    ;
static const uint32_t tool_begin_spv[] =
#include "pbf_tool_begin.spv.inc"
    ;
static const uint32_t tool_force_spv[] =
#include "pbf_tool_force.spv.inc"
    ;
static const uint32_t tool_end_spv[] =
#include "pbf_tool_end.spv.inc"
    ;
static const uint32_t neighbours_spv[] =
#include "pbf_neighbours.spv.inc"
    ;

enum {
    P_H, P_RHO0, P_ITERATIONS, P_EPSILON, P_TENSILE_K, P_TENSILE_N, P_TENSILE_DQ, P_XSPH,
    P_GRAVITY, P_WALL_SPACING, P_VORTICITY, P_TOOL_RADIUS, P_TOOL_POSITION, P_TOOL_ADHESION,
    P_TOOL_RANGE, P_TOOL_DAMPING, P_UNILATERAL, P_NEIGHBOURS, P_SKIN, P_NORMALISE, P_COUNT
};

static const eddy_param_info params[P_COUNT] = {
    [P_H] = { "h", EDDY_PARAM_FLOAT, "m", { 0.04 }, 1e-5, 100, "kernel support radius (about 2 particle spacings)" },
    [P_RHO0] = { "rest_density", EDDY_PARAM_FLOAT, "kg/m^3", { 1000 }, 1e-3, 1e6, "rest density rho0" },
    [P_ITERATIONS] = { "iterations", EDDY_PARAM_INT, "1", { 4 }, 1, 100, "density constraint iterations per substep" },
    [P_EPSILON] = { "relaxation", EDDY_PARAM_FLOAT, "1", { 1.0 }, 1e-6, 100, "constraint relaxation epsilon, as a fraction of the lambda denominator of a particle in a resting lattice (> 0: an isolated particle has a zero denominator)" },
    [P_TENSILE_K] = { "tensile_k", EDDY_PARAM_FLOAT, "1", { 0.1 }, 0, 10, "artificial pressure strength k_s (s_corr)" },
    [P_TENSILE_N] = { "tensile_n", EDDY_PARAM_INT, "1", { 4 }, 1, 8, "artificial pressure exponent n" },
    [P_TENSILE_DQ] = { "tensile_dq", EDDY_PARAM_FLOAT, "1", { 0.2 }, 0.01, 0.99, "artificial pressure reference distance, as a fraction of h" },
    [P_XSPH] = { "xsph", EDDY_PARAM_FLOAT, "1", { 0.01 }, 0, 1, "XSPH viscosity c (0 = off)" },
    [P_GRAVITY] = { "gravity", EDDY_PARAM_VEC3, "m/s^2", { 0, -9.81, 0 }, -1e4, 1e4, "uniform acceleration" },
    [P_VORTICITY] = { "vorticity", EDDY_PARAM_FLOAT, "m/s", { 0 }, 0, 1e3, "vorticity confinement epsilon (0 = off)" },
    [P_WALL_SPACING] = { "wall_spacing", EDDY_PARAM_FLOAT, "m", { 0 }, 0, 100, "spacing of the ghost lattice behind the box walls (the fill spacing); 0 = h / 2" },
    [P_TOOL_RADIUS] = { "tool_radius", EDDY_PARAM_FLOAT, "m", { 0 }, 0, 100, "radius R of the rigid sphere tool; 0 = no tool" },
    [P_TOOL_POSITION] = { "tool_position", EDDY_PARAM_VEC3, "m", { 0, 0, 0 }, -1e6, 1e6, "the tool's centre until a path or the host moves it" },
    [P_TOOL_ADHESION] = { "tool_adhesion", EDDY_PARAM_FLOAT, "N/m^3", { 2000 }, 0, 1e9, "adhesion K (seed eq. 12, K_i = K_j): the peak pull of a particle is K m/rho" },
    [P_TOOL_RANGE] = { "tool_adhesion_range", EDDY_PARAM_FLOAT, "m", { 0 }, 0, 100, "adhesion acts from the surface (A = R) to B = R + this; 0 = h" },
    [P_NORMALISE] = { "normalise_density", EDDY_PARAM_BOOL, "1", { 0 }, 0, 1,
                      "scale the density sum so that fluid filled at rest on the lattice of the wall spacing "
                      "reads rest_density (false: the paper's raw sum, 1.0098 rho0 there at h = 2 spacings: "
                      "a fill starts 1% compressed); with unilateral and tensile_k 0 a free block stays at rest" },
    [P_UNILATERAL] = { "unilateral", EDDY_PARAM_BOOL, "1", { 0 }, 0, 1,
                       "density constraint only where the fluid is compressed, C = max(rho / rho0 - 1, 0) "
                       "(false: the paper's C, which pulls a free surface, where rho < rho0, into the bulk)" },
    [P_NEIGHBOURS] = { "neighbour_list", EDDY_PARAM_INT, "1", { 64 }, 0, 1024,
                       "neighbours (within h + neighbour_skin) a particle keeps in its list, 4 bytes each: one "
                       "scan of the 27 grid cells a substep, which every later neighbour loop reads (a particle "
                       "with more neighbours scans the cells in each loop); 0 = every loop scans. The results "
                       "are bitwise the same either way" },
    [P_SKIN] = { "neighbour_skin", EDDY_PARAM_FLOAT, "1", { 0.1 }, 0, 1,
                 "margin of the neighbour lists beyond h, as a fraction of h: they stay valid while no particle "
                 "moves more than 0.45 of it from its predicted position in the solver iterations (else the "
                 "substep's remaining loops scan the cells)" },
    [P_TOOL_DAMPING] = { "tool_damping", EDDY_PARAM_FLOAT, "N s/m", { 0.02 }, 0, 1e6, "damping k (seed eq. 14) per particle in contact (closer than R + wall spacing)" },
};

static const char *const shared[] = { "position", "velocity", "mass", "density", "clamped" };

void eddy_pbf_params_from_values(struct eddy_pbf_params *p, const eddy_param_value *v,
                                 const float box_min[3], const float box_max[3], double dt,
                                 uint32_t count, uint32_t solid_count)
{
    memset(p, 0, sizeof *p);
    double h = v[P_H].v[0];
    for (int a = 0; a < 3; a++) {
        p->grid[a] = (float)(box_min[a] - h);
        p->dims[a] = (int32_t)(ceil((box_max[a] - box_min[a]) / h) + 2);
        p->box_min[a] = box_min[a];
        p->box_max[a] = box_max[a];
        p->gravity[a] = (float)v[P_GRAVITY].v[a];
    }
    p->grid[3] = (float)(1.0 / h);
    p->dims[3] = (int32_t)solid_count;
    p->box_min[3] = (float)h;
    p->box_max[3] = (float)dt;
    p->gravity[3] = (float)v[P_RHO0].v[0];
    /* epsilon relative to the denominator sum_k |grad_k C|^2 of a particle in
     * a resting lattice of the wall spacing, so one value serves every
     * resolution (an absolute epsilon in 1/m^2 scales with 1/spacing^2). */
    double ws = v[P_WALL_SPACING].v[0] > 0 ? v[P_WALL_SPACING].v[0] : h / 2, d0 = 0;
    int reach = (int)ceil(h / ws) + 1;
    for (int i = -reach; i <= reach; i++)
        for (int j = -reach; j <= reach; j++)
            for (int k = -reach; k <= reach; k++) {
                double r2 = ws * ws * (i * i + j * j + k * k);
                if ((i || j || k) && r2 < h * h) {
                    double g = ws * ws * ws * eddy_grad_spiky((float)r2, (float)h) * sqrt(r2);
                    d0 += g * g;
                }
            }
    p->solver[0] = (float)(v[P_EPSILON].v[0] * d0);
    p->solver[1] = (float)v[P_TENSILE_K].v[0];
    p->solver[2] = (float)v[P_TENSILE_N].v[0];
    p->solver[3] = (float)(v[P_TENSILE_DQ].v[0] * h);
    p->options[0] = (float)v[P_XSPH].v[0];
    p->options[2] = (float)(v[P_WALL_SPACING].v[0] > 0 ? v[P_WALL_SPACING].v[0] : h / 2);
    p->options[1] = v[P_UNILATERAL].v[0] != 0 ? 1.0f : 0.0f;
    p->options[3] = (float)v[P_VORTICITY].v[0];
    p->misc[0] = count;
    float lattice = v[P_NORMALISE].v[0] != 0 ? (float)(1.0 / eddy_lattice_sum_poly6(h, ws)) : 1.0f;
    memcpy(&p->misc[3], &lattice, 4);
    p->misc[1] = (uint32_t)v[P_NEIGHBOURS].v[0];
    float list_r = (float)(h * (1.0 + v[P_SKIN].v[0]));
    memcpy(&p->misc[2], &list_r, 4);
    p->tool[0] = (float)v[P_TOOL_RADIUS].v[0];
    p->tool[1] = (float)v[P_TOOL_ADHESION].v[0];
    p->tool[2] = (float)(v[P_TOOL_RANGE].v[0] > 0 ? v[P_TOOL_RANGE].v[0] : h);
    p->tool[3] = (float)v[P_TOOL_DAMPING].v[0];
}

uint32_t eddy_pbf_iterations(const eddy_param_value *v)
{
    return (uint32_t)v[P_ITERATIONS].v[0];
}

enum { K_PREDICT, K_LAMBDA, K_DELTA, K_APPLY, K_VELOCITY, K_FINISH, K_VORTICITY, K_TOOL_BEGIN,
       K_TOOL_FORCE, K_TOOL_END, K_NEIGHBOURS, K_COUNT };

typedef struct pbf {
    eddy_engine *e;
    eddy_particles set;
    uint32_t n, iterations, substeps;
    uint32_t cap; /* particles the step's buffers hold: the set's capacity */
    double h, skin; /* m, and the lists' margin as a fraction of h */
    char name[64];
    struct eddy_pbf_params p;
    eddy_grid *grid;
    eddy_reduce *reduce;
    eddy_couple *couple; /* the boundary slot's sets as boundary particles; NULL without */
    eddy_kernel k[K_COUNT];
    eddy_buffer params, solids, pred, sp, sbin, sold, smass, lambda, dp, sv, svort;
    eddy_buffer tool, tpush, tadh, tdamp, tsums;
    /* The tool's three forces per particle by id (the whole set: what is
     * summed), and over MPI ranks first in this rank's particle order
     * (made at the first substep in parts). */
    eddy_buffer tfull[3], tpart[3];
    uint32_t total; /* the set's particles at create: the whole set */
    eddy_buffer sghost; /* pbf.lambda's ghost gradient sums for pbf.delta: walls, then the tool's */
    eddy_buffer worst;  /* the largest compression a substep left since the last frame (float bits) */
    eddy_buffer nlist, ncount, lpos; /* neighbour lists (shaders/neighbours.glsl); 16-byte stand-ins without */
    eddy_buffer position, velocity, mass, density, clamped_flags;
    bool clamped; /* the tool was kept off a wall once (warned) */
    struct eddy_pbf_tool tool_host; /* the tool's state after the last step (a staged read) */
    bool tool_read;                 /* tool_host holds something: a staged read was asked for */
    bool over_ranks; /* a step is several submissions: the tool is read after it, not staged */
} pbf;

static void destroy(void *state)
{
    pbf *s = state;
    if (!s)
        return;
    eddy_destroy_grid(s->e, s->grid);
    eddy_destroy_reduce(s->e, s->reduce);
    eddy_couple_destroy(s->e, s->couple);
    for (int i = 0; i < K_COUNT; i++)
        eddy_destroy_kernel(s->e, s->k[i]);
    eddy_buffer own[] = { s->params, s->solids, s->pred, s->sp, s->sbin, s->sold, s->smass, s->lambda, s->dp,
                          s->sv, s->svort, s->tool, s->tpush, s->tadh, s->tdamp, s->tsums,
                          s->nlist, s->ncount, s->lpos, s->sghost, s->worst, s->tpart[0], s->tpart[1],
                          s->tpart[2], s->tfull[0], s->tfull[1], s->tfull[2] };
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        eddy_destroy_buffer(s->e, own[i]);
    free(s);
}

static eddy_buffer scratch(pbf *s, const char *what, uint64_t bytes)
{
    char label[160];
    snprintf(label, sizeof label, "%s.%s", s->name, what);
    return eddy_create_buffer(s->e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = bytes < 16 ? 16 : bytes, .label = label });
}

static eddy_result create(const eddy_system_ctx *ctx, void **state)
{
    eddy_engine *e = ctx->engine;
    pbf *s = calloc(1, sizeof *s);
    if (!s)
        return EDDY_ERROR_OUT_OF_MEMORY;
    *state = s;
    s->e = e;
    s->set = ctx->particles;
    s->n = eddy_particles_count(e, ctx->particles);
    s->cap = (uint32_t)eddy_particles_capacity(e, ctx->particles);
    s->cap = s->cap < s->n ? s->n : s->cap;
    snprintf(s->name, sizeof s->name, "%s", ctx->name);
    double h = ctx->params[P_H].v[0];
    s->h = h, s->skin = ctx->params[P_SKIN].v[0];
    for (int a = 0; a < 3; a++)
        if (ceil((ctx->box_max[a] - ctx->box_min[a]) / h) + 2 > 1 << 20) {
            eddy_log(e, EDDY_LOG_ERROR, "system.too_large", "system '%s': the box spans too many cells of h = %g m "
                     "along axis %d; raise h or shrink the box", ctx->name, h, a);
            return EDDY_ERROR_LIMIT;
        }
    eddy_pbf_params_from_values(&s->p, ctx->params, ctx->box_min, ctx->box_max, ctx->dt, s->n,
                                ctx->solid_count);
    s->iterations = eddy_pbf_iterations(ctx->params);
    s->substeps = ctx->substeps ? ctx->substeps : 1;
    char gl[160];
    snprintf(gl, sizeof gl, "%s.grid", ctx->name);
    s->grid = eddy_create_grid(e, &(eddy_grid_desc){ EDDY_SIZED(eddy_grid_desc),
        .label = gl, .origin = { s->p.grid[0], s->p.grid[1], s->p.grid[2] }, .cell = (float)h,
        .dims = { (uint32_t)s->p.dims[0], (uint32_t)s->p.dims[1], (uint32_t)s->p.dims[2] },
        .max_count = s->cap ? s->cap : 1 });
    if (!s->grid)
        return EDDY_ERROR_LIMIT;
    /* Coupled when the boundary slot holds particles: then the coupled
     * variants of pbf.lambda and pbf.delta bind the boundary (pbf.c: K_*). */
    if (eddy_couple_slot_particles(e, &ctx->slots[1])) {
        s->couple = eddy_couple_create(e, &(eddy_couple_desc){
            .system = ctx->name, .boundary = ctx->slots[1].sets, .boundary_count = ctx->slots[1].count,
            .origin = { s->p.grid[0], s->p.grid[1], s->p.grid[2] }, .cell = (float)h,
            .dims = { s->p.dims[0], s->p.dims[1], s->p.dims[2] }, .h = (float)h, .dt = ctx->dt,
            .iterations = s->iterations, .sheets = true, .fluid_count = s->n,
            .moved_before = EDDY_SYSTEM_CTX_HAS(ctx, moved_before) ? ctx->moved_before[1] : 0,
            .moved_after = EDDY_SYSTEM_CTX_HAS(ctx, moved_after) ? ctx->moved_after[1] : 0 });
        if (!s->couple)
            return EDDY_ERROR_INVALID_ARGUMENT;
    }
    s->position = eddy_particles_buffer(e, s->set, "position");
    s->velocity = eddy_particles_buffer(e, s->set, "velocity");
    s->mass = eddy_particles_buffer(e, s->set, "mass");
    s->density = eddy_particles_add_buffer(e, s->set, "density", 4);
    s->clamped_flags = eddy_particles_add_buffer(e, s->set, "clamped", 4);
    uint64_t n = s->cap; /* over MPI ranks the count changes up to the capacity */
    uint64_t cap = eddy_nlist_capacity(e, ctx->name, s->p.misc[1], n);
    s->p.misc[1] = (uint32_t)cap;
    s->params = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof s->p, .label = "pbf.params", .data = &s->p });
    s->solids = scratch(s, "solids", sizeof(eddy_solid) * (ctx->solid_count ? ctx->solid_count : 1));
    s->pred = scratch(s, "predicted", 16 * n);
    s->sp = scratch(s, "sorted.predicted", 16 * n);
    s->sbin = scratch(s, "sorted.binned", 16 * n);
    s->sold = scratch(s, "sorted.position", 16 * n);
    s->smass = scratch(s, "sorted.mass", 4 * n);
    s->lambda = scratch(s, "sorted.lambda", 16 * n);
    s->dp = scratch(s, "sorted.correction", 16 * n);
    s->sv = scratch(s, "sorted.velocity", 16 * n);
    s->svort = scratch(s, "sorted.vorticity", 16 * n);
    /* The tool's buffers are bound by every step (the shaders declare them)
     * but sized for the particles only when there is a tool. */
    bool tool = s->p.tool[0] > 0;
    struct eddy_pbf_tool t0 = { .clock = { s->substeps, s->substeps } };
    for (int a = 0; a < 3; a++)
        t0.from[a] = t0.to[a] = t0.centre[a] = (float)ctx->params[P_TOOL_POSITION].v[a];
    s->tool = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof t0, .label = "pbf.tool", .data = &t0 });
    s->tpush = scratch(s, "sorted.tool_push", tool ? 16 * n : 16);
    s->tadh = scratch(s, "sorted.tool_adhesion", tool ? 16 * n : 16);
    s->tdamp = scratch(s, "sorted.tool_damping", tool ? 16 * n : 16);
    s->tsums = scratch(s, "tool_sums", 48);
    s->total = s->n;
    for (int c = 0; c < 3 && tool; c++)
        if (!(s->tfull[c] = scratch(s, "tool_forces.by_id", 16 * n)).id)
            return EDDY_ERROR_OUT_OF_MEMORY;
    s->nlist = eddy_nlist_buffer(e, ctx->name, cap, n);
    s->ncount = scratch(s, "sorted.neighbour_count", 4 * n + 4); /* [n]: the lists' flag */
    s->lpos = scratch(s, "sorted.list_position", cap ? 16 * n : 16);
    s->sghost = scratch(s, "sorted.ghosts", (tool ? 32 : 16) * n);
    s->worst = scratch(s, "worst_compression", 16);
    if (!s->worst.id || !s->density.id || !s->clamped_flags.id || !s->params.id || !s->solids.id || !s->pred.id || !s->sp.id || !s->sbin.id ||
        !s->sold.id || !s->smass.id || !s->lambda.id || !s->dp.id || !s->sv.id || !s->svort.id ||
        !s->tool.id || !s->tpush.id || !s->tadh.id || !s->tdamp.id || !s->tsums.id || !s->nlist.id || !s->ncount.id ||
        !s->lpos.id || !s->sghost.id)
        return EDDY_ERROR_OUT_OF_MEMORY;
    if (tool) {
        char rl[160];
        snprintf(rl, sizeof rl, "%s.tool_reduce", ctx->name);
        s->reduce = eddy_create_reduce(e, &(eddy_reduce_desc){ EDDY_SIZED(eddy_reduce_desc), .label = rl, .max_count = s->n ? s->n : 1 });
        if (!s->reduce)
            return EDDY_ERROR_OUT_OF_MEMORY;
    }
    if (ctx->solid_count &&
        eddy_buffer_upload(e, s->solids, 0, sizeof(eddy_solid) * ctx->solid_count, ctx->solids) != EDDY_OK)
        return EDDY_ERROR_VULKAN;
    const struct { const uint32_t *spv; size_t size; const char *label; } ks[K_COUNT] = {
        { predict_spv, sizeof predict_spv, "pbf.predict" }, { lambda_spv, sizeof lambda_spv, "pbf.lambda" },
        { delta_spv, sizeof delta_spv, "pbf.delta" }, { apply_spv, sizeof apply_spv, "pbf.apply" },
        { velocity_spv, sizeof velocity_spv, "pbf.velocity" }, { finish_spv, sizeof finish_spv, "pbf.finish" },
        { vorticity_spv, sizeof vorticity_spv, "pbf.vorticity" },
        { tool_begin_spv, sizeof tool_begin_spv, "pbf.tool_begin" },
        { tool_force_spv, sizeof tool_force_spv, "pbf.tool_force" },
        { tool_end_spv, sizeof tool_end_spv, "pbf.tool_end" },
        { neighbours_spv, sizeof neighbours_spv, "pbf.neighbours" },
    };
    for (int i = 0; i < K_COUNT; i++) {
        const uint32_t *spv = ks[i].spv;
        size_t size = ks[i].size;
        if (s->couple && i == K_LAMBDA)
            spv = lambda_coupled_spv, size = sizeof lambda_coupled_spv;
        if (s->couple && i == K_DELTA)
            spv = delta_coupled_spv, size = sizeof delta_coupled_spv;
        s->k[i] = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = ks[i].label, .spirv = spv, .spirv_size = size });
        if (!s->k[i].id)
            return EDDY_ERROR_VULKAN;
    }
    return EDDY_OK;
}

/* always: build the lists; else only where the last pbf.apply set the flag. */
static int add_neighbours(pbf *s, eddy_graph g, const eddy_grid_buffers *gb, uint32_t always)
{
    return eddy_graph_add_pass(s->e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = always ? "pbf.neighbours" : "pbf.neighbours_check", .kernel = s->k[K_NEIGHBOURS],
        .threads = s->n, .push = &always, .push_size = sizeof always,
        .bindings = { { s->params, EDDY_READ }, { s->sp, EDDY_READ }, { gb->cell_start, EDDY_READ },
                      { gb->cell_end, EDDY_READ }, { s->sbin, EDDY_READ }, { s->nlist, EDDY_WRITE },
                      { s->ncount, EDDY_READ_WRITE }, { s->lpos, EDDY_WRITE } } });
}

/* One solver iteration: lambda, the corrections (and their reaction on
 * coupled boundaries), applied. Returns the first pass's index. */
static int add_iteration(pbf *s, eddy_graph g, const eddy_grid_buffers *gb0, bool coupled)
{
    eddy_engine *e = s->e;
    /* The coupled variants bind the boundary after their own buffers. */
    eddy_grid_buffers gb = *gb0;
    eddy_couple_bindings cb = coupled ? eddy_couple_get_bindings(s->couple) : (eddy_couple_bindings){ 0 };
    eddy_access cr = coupled ? EDDY_READ : 0;
    int first = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "pbf.lambda", .kernel = s->k[K_LAMBDA], .threads = s->n,
        .bindings = { { s->params, EDDY_READ }, { s->sp, EDDY_READ }, { s->smass, EDDY_READ },
                      { gb.cell_start, EDDY_READ }, { gb.cell_end, EDDY_READ }, { s->lambda, EDDY_WRITE },
                      { s->tool, EDDY_READ }, { s->sbin, EDDY_READ }, { s->nlist, EDDY_READ }, { s->ncount, EDDY_READ_WRITE },
                      { s->sghost, EDDY_WRITE }, { cb.params, cr }, { cb.particles, cr }, { cb.cell_start, cr }, { cb.cell_end, cr },
                      { cb.inverse_mass, cr } } });
    int rc = first;
    if (rc >= 0)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "pbf.delta", .kernel = s->k[K_DELTA], .threads = s->n,
            .bindings = { { s->params, EDDY_READ }, { s->sp, EDDY_READ }, { s->smass, EDDY_READ },
                          { s->lambda, EDDY_READ }, { gb.cell_start, EDDY_READ }, { gb.cell_end, EDDY_READ },
                          { s->dp, EDDY_WRITE }, { s->sghost, EDDY_READ }, { s->tpush, EDDY_READ_WRITE },
                          { s->sbin, EDDY_READ }, { s->nlist, EDDY_READ }, { s->ncount, EDDY_READ }, { cb.params, cr },
                          { cb.particles, cr }, { cb.cell_start, cr }, { cb.cell_end, cr } } });
    /* The same corrections' reaction on the boundary particles, before
     * pbf.apply moves the fluid. */
    if (rc >= 0 && coupled)
        rc = eddy_couple_record_pbf(e, s->couple, g, s->sp, s->smass, s->lambda, gb.cell_start, gb.cell_end);
    if (rc >= 0)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "pbf.apply", .kernel = s->k[K_APPLY], .threads = s->n,
            .bindings = { { s->params, EDDY_READ }, { s->sp, EDDY_READ_WRITE }, { s->dp, EDDY_READ },
                          { s->solids, EDDY_READ }, { s->tool, EDDY_READ }, { s->tpush, EDDY_READ_WRITE },
                          { gb.sorted_index, EDDY_READ }, { s->clamped_flags, EDDY_WRITE }, { s->lpos, EDDY_READ },
                          { s->ncount, EDDY_READ_WRITE }, { s->sold, EDDY_READ } } });
    return rc < 0 ? rc : first;
}

/* Over MPI ranks: the iterations as parts of the substep; between two,
 * each ghost's predicted position from its owner (the next iteration's
 * lambda reads them). A part starts with the lists' check where there are
 * lists, as each iteration ends with it on one rank. */
static int iterate_over_ranks(pbf *s, eddy_step_parts *parts, const eddy_grid_buffers *gb, bool lists,
                              bool coupled)
{
    eddy_sync_desc sync = { EDDY_SIZED(eddy_sync_desc), .buffers = { s->sp }, .row_bytes = { 16 },
                            .buffer_count = 1, .order = gb->sorted_index };
    if (parts->sync(parts, &sync) != EDDY_OK)
        return -1;
    int rc = 0;
    if (s->iterations > 1) {
        uint32_t first = parts->part;
        rc = lists && s->n ? add_neighbours(s, parts->graph, gb, 0) : 0;
        if (rc >= 0 && s->n)
            rc = add_iteration(s, parts->graph, gb, coupled);
        if (rc >= 0 && (parts->sync(parts, &sync) != EDDY_OK ||
                        parts->loop(parts, first, s->iterations - 1, (eddy_buffer){ 0 }, 0) != EDDY_OK))
            rc = -1;
    }
    return rc >= 0 && lists && s->n ? add_neighbours(s, parts->graph, gb, 0) : rc;
}

static int add_tool_begin(pbf *s, eddy_graph g)
{
    return eddy_graph_add_pass(s->e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "pbf.tool_begin", .kernel = s->k[K_TOOL_BEGIN], .threads = 1,
        .bindings = { { s->params, EDDY_READ }, { s->tool, EDDY_READ_WRITE } } });
}

/* The force on the tool: per particle, three sums over the particles in
 * the set's order, the mean over the substeps. Over MPI ranks (parts)
 * every rank first gathers each particle's rows from its owner, by id, so
 * the sums add the same values in the same order as on one rank; a rank
 * without particles takes part. */
static eddy_result record_tool(pbf *s, eddy_graph g, eddy_step_parts *parts)
{
    eddy_engine *e = s->e;
    eddy_buffer sums[3] = { s->tpush, s->tadh, s->tdamp };
    int rc = !s->n ? 0 : eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "pbf.tool_force", .kernel = s->k[K_TOOL_FORCE], .threads = s->n,
        .bindings = { { s->params, EDDY_READ }, { s->tool, EDDY_READ }, { s->sp, EDDY_READ },
                      { s->sv, EDDY_READ }, { s->smass, EDDY_READ }, { s->lambda, EDDY_READ },
                      { s->tpush, EDDY_READ_WRITE }, { s->tadh, EDDY_WRITE }, { s->tdamp, EDDY_WRITE } } });
    eddy_result r = rc < 0 ? EDDY_ERROR_INVALID_ARGUMENT : EDDY_OK;
    for (uint32_t c = 0; c < 3 && r == EDDY_OK && parts && !s->tpart[c].id; c++)
        if (!(s->tpart[c] = scratch(s, "tool_forces", 16ull * s->cap)).id)
            r = EDDY_ERROR_OUT_OF_MEMORY;
    for (uint32_t c = 0; c < 3 && r == EDDY_OK && s->n; c++)
        r = eddy_grid_record_scatter(e, s->grid, g, sums[c], parts ? s->tpart[c] : s->tfull[c], 4, s->n);
    if (r == EDDY_OK && parts) {
        r = parts->sync(parts, &(eddy_sync_desc){ EDDY_SIZED(eddy_sync_desc),
            .gather = { s->tpart[0], s->tpart[1], s->tpart[2] }, .full = { s->tfull[0], s->tfull[1], s->tfull[2] },
            .gather_bytes = { 16, 16, 16 }, .gather_count = 3 });
        g = parts->graph;
    }
    uint32_t count = parts ? s->total : s->n;
    if (r == EDDY_OK && !count)
        r = eddy_fill_record(e, g, s->tsums, 0, 12, 0);
    for (uint32_t c = 0; c < 3 && r == EDDY_OK && count; c++)
        r = eddy_reduce_record(e, s->reduce, g, s->tfull[c], count, 4, 3, EDDY_REDUCE_SUM, s->tsums, c);
    if (r != EDDY_OK)
        return r;
    rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "pbf.tool_end", .kernel = s->k[K_TOOL_END], .threads = 1,
        .bindings = { { s->params, EDDY_READ }, { s->tool, EDDY_READ_WRITE }, { s->tsums, EDDY_READ } } });
    return rc < 0 ? EDDY_ERROR_INVALID_ARGUMENT : EDDY_OK;
}

/* Over ranks a rank without particles of the set takes part in every
 * sync all the same, and moves the tool as the others do. */
static eddy_result declare_empty(pbf *s, eddy_graph g, eddy_step_parts *parts)
{
    eddy_grid_buffers gb = eddy_grid_get_buffers(s->grid);
    bool tool = s->p.tool[0] > 0;
    if ((tool && add_tool_begin(s, g) < 0) || (parts && iterate_over_ranks(s, parts, &gb, false, false) < 0))
        return EDDY_ERROR_INVALID_ARGUMENT;
    g = parts ? parts->graph : g;
    eddy_result r = s->couple ? eddy_couple_record_idle(s->e, s->couple, g, parts) : EDDY_OK;
    return r == EDDY_OK && tool ? record_tool(s, parts ? parts->graph : g, parts) : r;
}

/* The substep's passes; over MPI ranks (parts) the solver iterations are
 * parts of it, and what follows them goes into the last part. */
static eddy_result declare(pbf *s, eddy_graph g, eddy_step_parts *parts)
{
    eddy_engine *e = s->e;
    eddy_grid_buffers gb = eddy_grid_get_buffers(s->grid);
    if (s->n == 0)
        return declare_empty(s, g, parts);
    bool tool = s->p.tool[0] > 0;
    int rc = tool ? add_tool_begin(s, g) : 0;
    if (rc >= 0)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "pbf.predict", .kernel = s->k[K_PREDICT], .threads = s->n,
            .bindings = { { s->params, EDDY_READ }, { s->position, EDDY_READ }, { s->velocity, EDDY_READ },
                          { s->pred, EDDY_WRITE }, { s->tpush, EDDY_WRITE }, { s->mass, EDDY_READ } } });
    eddy_result r = rc < 0 ? (eddy_result)rc : EDDY_OK;
    /* The neighbours of the predicted positions, for the whole substep. */
    if (r == EDDY_OK)
        r = eddy_grid_record_build(e, s->grid, g, s->pred, s->n);
    if (r == EDDY_OK)
        r = eddy_grid_record_gather(e, s->grid, g, s->pred, s->sp, 4, s->n);
    if (r == EDDY_OK)
        r = eddy_grid_record_gather(e, s->grid, g, s->pred, s->sbin, 4, s->n);
    if (r == EDDY_OK)
        r = eddy_grid_record_gather(e, s->grid, g, s->position, s->sold, 4, s->n);
    if (r == EDDY_OK)
        r = eddy_grid_record_gather(e, s->grid, g, s->mass, s->smass, 1, s->n);
    /* The coupled sets' particles where they will be at the substep's end. */
    bool coupled = s->couple != NULL;
    if (r == EDDY_OK && coupled)
        r = eddy_couple_record_begin(e, s->couple, g);
    if (r != EDDY_OK)
        return r;
    /* With lists: the substep's neighbours once (without, the shaders do
     * not read the list bindings). */
    bool lists = s->p.misc[1] > 0;
    rc = lists ? add_neighbours(s, g, &gb, 1) : 0;
    int first = rc < 0 ? rc : add_iteration(s, g, &gb, coupled);
    rc = first;
    if (parts) {
        rc = rc < 0 ? rc : iterate_over_ranks(s, parts, &gb, lists, coupled);
        g = parts->graph;
    } else {
        /* Lists again where the iteration moved a particle too far. */
        if (rc >= 0 && lists)
            rc = add_neighbours(s, g, &gb, 0);
        /* The solver iterations: one recorded range, replayed. */
        if (rc >= 0 && s->iterations > 1)
            rc = eddy_graph_repeat(e, g, (uint32_t)first, (coupled ? 4 : 3) + (lists ? 1 : 0), s->iterations) ==
                         EDDY_OK ? 0 : -1;
    }
    /* Off the coupled sheets (a cloth's triangles), before the velocities. */
    if (rc >= 0 && coupled)
        rc = eddy_couple_record_sheet(e, s->couple, g, s->sp, s->sold, s->smass, gb.cell_start, gb.cell_end) ==
                     EDDY_OK ? 0 : -1;
    if (rc >= 0)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "pbf.velocity", .kernel = s->k[K_VELOCITY], .threads = s->n,
            .bindings = { { s->params, EDDY_READ }, { s->sp, EDDY_READ }, { s->sold, EDDY_READ },
                          { s->sv, EDDY_WRITE }, { s->lambda, EDDY_READ }, { s->worst, EDDY_ATOMIC } } });
    /* The coupled sheets moved particles without the check of pbf.apply:
     * the final positions' own lists, for the viscosity and vorticity. */
    bool ends = s->p.options[0] != 0 || s->p.options[3] != 0;
    if (rc >= 0 && lists && ends && coupled)
        rc = add_neighbours(s, g, &gb, 1);
    if (rc >= 0 && s->p.options[3] != 0)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "pbf.vorticity", .kernel = s->k[K_VORTICITY], .threads = s->n,
            .bindings = { { s->params, EDDY_READ }, { s->sp, EDDY_READ }, { s->sv, EDDY_READ },
                          { s->smass, EDDY_READ }, { gb.cell_start, EDDY_READ }, { gb.cell_end, EDDY_READ },
                          { s->svort, EDDY_WRITE }, { s->sbin, EDDY_READ }, { s->nlist, EDDY_READ },
                          { s->ncount, EDDY_READ } } });
    if (rc >= 0)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "pbf.finish", .kernel = s->k[K_FINISH], .threads = s->n,
            .bindings = { { s->params, EDDY_READ }, { s->sp, EDDY_READ }, { s->sv, EDDY_READ },
                          { s->smass, EDDY_READ }, { s->lambda, EDDY_READ }, { gb.cell_start, EDDY_READ },
                          { gb.cell_end, EDDY_READ }, { gb.sorted_index, EDDY_READ },
                          { s->position, EDDY_WRITE }, { s->velocity, EDDY_WRITE },
                          { s->density, EDDY_WRITE }, { s->svort, EDDY_READ }, { s->sbin, EDDY_READ },
                          { s->nlist, EDDY_READ }, { s->ncount, EDDY_READ }, { s->sold, EDDY_READ } } });
    if (rc < 0)
        return EDDY_ERROR_INVALID_ARGUMENT;
    r = coupled ? eddy_couple_record_end(e, s->couple, g, parts) : EDDY_OK;
    if (r != EDDY_OK || !tool)
        return r;
    return record_tool(s, parts ? parts->graph : g, parts);
}

static eddy_result declare_step(void *state, eddy_graph g)
{
    return declare(state, g, NULL);
}

/* Over MPI ranks a particle's list and its loops reach L = h (1 + skin)
 * around where it is during the substep, and the corrections read the
 * lambdas of the neighbours, which read theirs: a particle depends on
 * those within 2 L + 4 D of its start, D the farthest any of them is from
 * its own start at any time in the substep. The scene checks where the
 * particles end (travel, 0.4 h); D allows 0.5 h, the 0.1 h between for
 * the iterations' corrections before the last. */
#define PBF_TRAVEL 0.4
#define PBF_REACH_MOVE 0.5

static eddy_result declare_parts(void *state, eddy_step_parts *parts)
{
    pbf *s = state;
    parts->travel = PBF_TRAVEL * s->h;
    return declare(s, parts->graph, parts);
}

static eddy_result reach(void *state, double *metres)
{
    pbf *s = state;
    const char *why = s->couple ? eddy_couple_dist_refusal(s->e, s->couple) : NULL;
    /* Asked only over ranks, where a step is several submissions: the tool
     * is read after the step rather than staged on its first one. */
    s->over_ranks = true;
    return eddy_reach_answer(s->e, s->name, why, 2.0 * s->h * (1.0 + s->skin) + 4.0 * PBF_REACH_MOVE * s->h, metres);
}

static eddy_result set_count(void *state)
{
    pbf *s = state;
    uint32_t n = eddy_particles_count(s->e, s->set);
    if (n > s->cap)
        return EDDY_ERROR_INVALID_ARGUMENT;
    s->n = n;
    s->p.misc[0] = n;
    eddy_result r = s->couple ? eddy_couple_set_counts(s->e, s->couple, n) : EDDY_OK;
    return r == EDDY_OK ? eddy_buffer_upload(s->e, s->params, 0, sizeof s->p, &s->p) : r;
}

/* Keeps the tool one wall spacing inside the box, so that a particle fits
 * between it and any wall (the tool is driven, it does not collide). */
static void clamp_tool(pbf *s, float c[3])
{
    float R = s->p.tool[0], gap = s->p.options[2];
    for (int a = 0; a < 3; a++) {
        float lo = s->p.box_min[a] + R + gap, hi = s->p.box_max[a] - R - gap;
        float v = lo > hi ? 0.5f * (s->p.box_min[a] + s->p.box_max[a]) : c[a] < lo ? lo : c[a] > hi ? hi : c[a];
        if (v != c[a] && !s->clamped) {
            eddy_log(s->e, EDDY_LOG_WARN, "system.tool_clamped", "system '%s': the tool (radius %g m) is kept %g m inside "
                     "the box walls; its centre along axis %d went from %g to %g m",
                     s->name, R, gap, a, c[a], v);
            s->clamped = true;
        }
        c[a] = v;
    }
}

enum { IN_TOOL_POSITION };
enum { OUT_TOOL_CENTRE, OUT_TOOL_RADIUS, OUT_PUSH, OUT_ADHESION, OUT_DAMPING, OUT_TOTAL, OUT_COUNT };
static const eddy_port_info inputs[] = {
    [IN_TOOL_POSITION] = { "tool.position", EDDY_PORT_VEC3, "m", "the tool's centre at the end of the step; it "
                           "moves linearly across the substeps and is kept one wall spacing inside the box" },
};
static const eddy_port_info outputs[] = {
    [OUT_TOOL_CENTRE] = { "tool.centre", EDDY_PORT_VEC3, "m", "the tool's centre at the end of the step (after the clamp)" },
    [OUT_TOOL_RADIUS] = { "tool.radius", EDDY_PORT_FLOAT, "m", "the tool's radius (params.tool_radius)" },
    [OUT_PUSH] = { "tool.force.push", EDDY_PORT_VEC3, "N", "contact: minus the momentum per second the solver gives "
                   "particles to keep them out of the tool, mean over the step" },
    [OUT_ADHESION] = { "tool.force.adhesion", EDDY_PORT_VEC3, "N", "attraction of the particles near the surface" },
    [OUT_DAMPING] = { "tool.force.damping", EDDY_PORT_VEC3, "N", "drag of the particles in contact" },
    [OUT_TOTAL] = { "tool.force.total", EDDY_PORT_VEC3, "N", "push + adhesion + damping" },
};

static eddy_result set_tool(pbf *s, const double from[3], const double to[3])
{
    if (s->p.tool[0] <= 0) {
        eddy_log(s->e, EDDY_LOG_ERROR, "system.invalid", "system '%s': a tool is driven but tool_radius is 0; "
                 "expected tool_radius > 0 (m) in the system's params", s->name);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    for (int a = 0; a < 3; a++)
        if (!isfinite(from[a]) || !isfinite(to[a])) {
            eddy_log(s->e, EDDY_LOG_ERROR, "system.diverged", "system '%s': tool position is not finite (%g, %g, %g)",
                     s->name, to[0], to[1], to[2]);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
    /* The centre too: until the step's first substep moves it, the tool is
     * where the step starts (what get_input and read_outputs report). */
    struct { float from[4], to[4], centre[4]; } ft = { { 0 }, { 0 }, { 0 } };
    for (int a = 0; a < 3; a++) {
        ft.from[a] = (float)from[a];
        ft.to[a] = (float)to[a];
    }
    clamp_tool(s, ft.from);
    clamp_tool(s, ft.to);
    memcpy(ft.centre, ft.from, sizeof ft.centre);
    uint32_t clock[4] = { 0, s->substeps, 0, 0 };
    /* Staged: the positions go in with the step's own submission and the
     * force comes out at its end, so a tool step is one submit and one wait. */
    eddy_result r = eddy_buffer_stage_write(s->e, s->tool, offsetof(struct eddy_pbf_tool, from), sizeof ft, &ft);
    if (r == EDDY_OK)
        r = eddy_buffer_stage_write(s->e, s->tool, offsetof(struct eddy_pbf_tool, clock), sizeof clock, clock);
    if (r == EDDY_OK && !s->over_ranks)
        r = eddy_buffer_stage_read(s->e, s->tool, 0, sizeof s->tool_host, &s->tool_host);
    s->tool_read = !s->over_ranks && (s->tool_read || r == EDDY_OK);
    return r;
}

static eddy_result set_input(void *state, uint32_t index, const double from[3], const double to[3])
{
    (void)index; /* one input */
    return set_tool(state, from, to);
}

/* The tool's state after the last step: after a step the staged read has
 * landed and this waits for nothing; before the first step it reads the
 * tool at rest where the params put it. */
static eddy_result tool_state(pbf *s, struct eddy_pbf_tool *t)
{
    if (s->p.tool[0] <= 0)
        return set_tool(s, (double[3]){ 0 }, (double[3]){ 0 }); /* the message: no tool */
    if (s->over_ranks)
        return eddy_buffer_download(s->e, s->tool, 0, sizeof *t, t);
    if (!s->tool_read) {
        eddy_result r = eddy_buffer_download(s->e, s->tool, 0, sizeof *t, t);
        if (r == EDDY_OK)
            s->tool_host = *t, s->tool_read = true;
        return r;
    }
    eddy_result r = eddy_flush_staged(s->e);
    *t = s->tool_host;
    return r;
}

static eddy_result get_input(void *state, uint32_t index, double value[3])
{
    (void)index;
    struct eddy_pbf_tool t;
    eddy_result r = tool_state(state, &t);
    for (int a = 0; r == EDDY_OK && a < 3; a++)
        value[a] = t.centre[a];
    return r;
}

static eddy_result read_outputs(void *state, double *v)
{
    pbf *s = state;
    struct eddy_pbf_tool t;
    eddy_result r = tool_state(s, &t);
    for (int a = 0; r == EDDY_OK && a < 3; a++) {
        v[3 * OUT_TOOL_CENTRE + a] = t.centre[a];
        v[3 * OUT_PUSH + a] = t.push[a];
        v[3 * OUT_ADHESION + a] = t.adhesion[a];
        v[3 * OUT_DAMPING + a] = t.damping[a];
        v[3 * OUT_TOTAL + a] = (double)t.push[a] + t.adhesion[a] + t.damping[a];
        v[3 * OUT_TOOL_RADIUS + a] = a ? 0 : s->p.tool[0];
    }
    return r;
}

/* Per frame: the density error of the last substep, and the largest
 * compression (rho / rho0 - 1 where above 0) any substep since the last
 * frame left after its iterations (pbf.velocity). */
static void stats(void *state, eddy_stats *st)
{
    pbf *s = state;
    float *rho = malloc(4ull * s->n + 4);
    if (rho && s->n && eddy_buffer_download(s->e, s->density, 0, 4ull * s->n, rho) == EDDY_OK)
        eddy_stats_density_error(st, rho, s->n, s->p.gravity[3]);
    free(rho);
    float worst = 0;
    if (eddy_buffer_download(s->e, s->worst, 0, 4, &worst) == EDDY_OK) {
        eddy_stats_add(st, "worst_compression", worst);
        const float zero = 0;
        eddy_buffer_upload(s->e, s->worst, 0, 4, &zero);
    }
}

static const eddy_slot_info slots[] = {
    { "fluid", "the fluid's particles", 1, 1 },
    { "boundary", "sets of rigid bodies (the rigid module's) whose particles are boundary particles in the "
                  "fluid's density constraints; the fluid's force on each goes into a slice of the set's "
                  "rigid.external.<k>", 0, EDDY_COUPLE_MAX_SETS },
};

/* State: the tool (where it moves this step, its clock) and the coupling's
 * cloth contact; the largest compression since the last frame. The rest
 * is rebuilt every substep or made by create from the scene. */
static eddy_result checkpoint(void *state, eddy_checkpoint *cp)
{
    pbf *s = state;
    const eddy_checkpoint_item items[] = {
        { "tool", s->tool, EDDY_STATE_F32, 4, "1" },
        { "worst_compression", s->worst, EDDY_STATE_F32, 1, "1" },
        { "density", s->density, EDDY_STATE_F32, 1, "kg/m^3" },
    };
    eddy_result r = eddy_checkpoint_buffers(cp, items, sizeof items / sizeof *items);
    if (r == EDDY_OK)
        r = eddy_couple_checkpoint(s->couple, cp);
    if (r == EDDY_OK && eddy_checkpoint_restoring(cp))
        s->tool_read = false; /* the tool's host copy is read again from the restored buffer */
    return r;
}

static const eddy_module_desc desc = {
    EDDY_MODULE_DESC_VERSION,
    .name = "pbf",
    .version = "0.1",
    .summary = "position based fluids (Macklin and Mueller 2013): density constraints, tensile correction, XSPH",
    .params = params,
    .param_count = P_COUNT,
    .shared_buffers = shared,
    .shared_buffer_count = sizeof shared / sizeof shared[0],
    .create = create,
    .destroy = destroy,
    .declare_step = declare_step,
    .stats = stats,
    .inputs = inputs,
    .input_count = 1,
    .outputs = outputs,
    .output_count = OUT_COUNT,
    .set_input = set_input,
    .get_input = get_input,
    .read_outputs = read_outputs,
    .slots = slots,
    .slot_count = sizeof slots / sizeof slots[0],
    .checkpoint = checkpoint,
    .reach = reach,
    .set_count = set_count,
    .declare_parts = declare_parts,
};

const eddy_module_desc *eddy_pbf_module(void)
{
    return &desc;
}
