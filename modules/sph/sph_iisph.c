/* sph: IISPH's host side (solver 1; README.md): its buffers, its recorded
 * iterations and its statistics. */
#include "sph_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t iisph_diag_spv[] =
#include "sph_iisph_diag.spv.inc"
    ;
static const uint32_t iisph_accel_spv[] =
#include "sph_iisph_accel.spv.inc"
    ;
static const uint32_t iisph_update_spv[] =
#include "sph_iisph_update.spv.inc"
    ;
static const uint32_t iisph_diag_coupled_spv[] =
#include "sph_iisph_diag_coupled.spv.inc"
    ;
static const uint32_t iisph_accel_coupled_spv[] =
#include "sph_iisph_accel_coupled.spv.inc"
    ;
static const uint32_t iisph_update_coupled_spv[] =
#include "sph_iisph_update_coupled.spv.inc"
    ;
static const uint32_t iisph_check_spv[] =
#include "sph_iisph_check.spv.inc"
    ;

/* IISPH's buffers (the pressure on the set, the solver's system, the
 * wall ghosts' sums in a texel-only buffer) and kernels. */
eddy_result sph_create_iisph(sph *s, const eddy_system_ctx *ctx, bool cpl)
{
    eddy_engine *e = s->e;
    uint64_t n = s->cap; /* over MPI ranks the count changes up to the capacity */
    sph_create_solve(s, ctx, "iisph");
    s->siis = sph_scratch(s, ctx->name, "iisph.system", 16 * n);
    s->sap = sph_scratch(s, ctx->name, "iisph.acceleration", 16 * n);
    /* SPH_IISPH_GHOSTS texels a particle (sph_iisph.glsl) */
    char ghosts[160];
    snprintf(ghosts, sizeof ghosts, "%s.iisph.ghosts", ctx->name);
    s->sghost = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = n ? 48 * n : 16, .label = ghosts,
                                                           .texel_only = true });
    s->k_diag = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "sph.iisph_diag", SPH_VARIANT(cpl, iisph_diag) });
    /* The iterations read sph.density's lists (constant 2: their capacity). */
    s->k_accel = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "sph.iisph_accel", SPH_VARIANT(cpl, iisph_accel),
        .specialization = { { 2, s->nlist_cap } }, .specialization_count = 1 });
    s->k_accel_final = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc),
        .label = "sph.iisph_accel_final", SPH_VARIANT(cpl, iisph_accel),
        .specialization = { { 1, 1 }, { 2, s->nlist_cap } }, .specialization_count = 2 });
    s->k_update = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "sph.iisph_update", SPH_VARIANT(cpl, iisph_update),
        .specialization = { { 2, s->nlist_cap } }, .specialization_count = 1 });
    s->k_check = sph_check_kernel(s, 0, 0, "sph.iisph_check");
    if (!s->pressure.id || !s->spress.id || !s->siis.id || !s->sap.id || !s->partials.id || !s->args.id ||
        !s->istate.id || !s->sghost.id || !s->sreduce.id || !s->sowned.id)
        return EDDY_ERROR_OUT_OF_MEMORY;
    if (!s->k_diag.id || !s->k_accel.id || !s->k_accel_final.id || !s->k_update.id || !s->k_check.id)
        return EDDY_ERROR_VULKAN;
    return sph_hydrostatic_start(s);
}

static float float_of(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* solve_stats' outcome of a frame's solves. */
enum { SOLVE_UNCONVERGED = 1, SOLVE_TIGHT = 2 /* one took more than half its limit */ };

/* A solve's figures since the last frame (eddy_sph_iisph_state in the
 * buffer state; keys "<prefix>_..."): the last substep's, and over the
 * frame's substeps how many stopped at their limit, the most iterations
 * and the worst final errors. Returns SOLVE_* flags; a warning names the
 * first frame of a run of unconverged frames (the run goes on with the
 * last iterate). */
static int solve_stats(sph *s, eddy_stats *st, eddy_buffer state, const char *prefix, const char *what,
                        uint32_t limit, float tol, float max_error, bool *warned)
{
    struct eddy_sph_iisph_state is;
    if (eddy_buffer_download(s->e, state, 0, sizeof is, &is) != EDDY_OK)
        return 0;
    float mean = float_of(is.g[0]), largest = float_of(is.f[3]);
    struct { const char *key; double v; } figures[] = {
        { "iterations", is.s[0] }, { "density_error", float_of(is.s[1]) }, { "max_error", float_of(is.s[3]) },
        { "converged", is.s[2] }, { "substeps", is.f[0] }, { "unconverged", is.f[1] },
        { "iterations_max", is.f[2] }, { "worst_density_error", mean }, { "worst_max_error", largest },
    };
    for (size_t k = 0; k < sizeof figures / sizeof figures[0]; k++) {
        char key[64];
        snprintf(key, sizeof key, "%s_%s", prefix, figures[k].key);
        eddy_stats_add(st, key, figures[k].v);
    }
    float t = 0;
    bool warn = is.f[1] > 0 && !*warned;
    *warned = is.f[1] > 0;
    if (warn && eddy_buffer_download(s->e, s->clock, 0, 4, &t) == EDDY_OK)
        eddy_log(s->e, EDDY_LOG_WARN, "system.unconverged", "system '%s': %u of the %u %s solves up to t = %.6g s "
                 "stopped at their limit of %u iterations before converging (worst: mean error %.3g against "
                 "tolerance %.3g, largest %.3g against %.3g); %s",
                 s->name, is.f[1], is.f[0], what, t, limit, mean, tol, largest, max_error,
                 s->adaptive ? "adaptive: the next frame's substep is halved"
                             : "raise the iteration limit, lower dt or make the scene adaptive");
    const uint32_t zero[8] = { 0 };
    eddy_buffer_upload(s->e, state, offsetof(struct eddy_sph_iisph_state, f), sizeof zero, zero);
    return (is.f[1] > 0 ? SOLVE_UNCONVERGED : 0) | (is.f[0] > 0 && 2 * is.f[2] > limit ? SOLVE_TIGHT : 0);
}

void sph_solve_stats(sph *s, eddy_stats *st)
{
    int out;
    if (s->dfsph) {
        out = solve_stats(s, st, s->dstate, "dfsph_divergence", "DFSPH divergence-free", s->div_iterations,
                          s->p.solve2[1], INFINITY, &s->unconverged_div);
        out |= solve_stats(s, st, s->istate, "dfsph", "DFSPH constant-density", s->max_iterations,
                           float_of(s->p.solve[2]), s->p.solve2[0], &s->unconverged);
    } else {
        out = solve_stats(s, st, s->istate, "iisph", "IISPH", s->max_iterations, float_of(s->p.solve[2]),
                          s->p.solve2[0], &s->unconverged);
    }
    /* Adaptive stepping (stable_dt): the substep's factor, halved after an
     * unconverged frame, grows back by a quarter a frame once the solves
     * need at most half their limit. */
    if (out & SOLVE_UNCONVERGED)
        s->solve_scale = s->solve_scale > 1.0 / 1024 ? s->solve_scale * 0.5 : s->solve_scale;
    else if (!(out & SOLVE_TIGHT))
        s->solve_scale = s->solve_scale * 1.25 < 1 ? s->solve_scale * 1.25 : 1;
}

void sph_create_solve(sph *s, const eddy_system_ctx *ctx, const char *solver)
{
    uint64_t n = s->cap; /* over MPI ranks the count changes up to the capacity */
    char what[32];
    s->max_iterations = s->p.solve[1];
    s->pressure = eddy_particles_add_buffer(s->e, s->set, "pressure", 4);
    s->spress = sph_scratch(s, ctx->name, "sorted.pressure", 4 * n);
    snprintf(what, sizeof what, "%s.partials", solver);
    s->partials = sph_scratch(s, ctx->name, what, 16 * ((n + 255) / 256));
    snprintf(what, sizeof what, "%s.args", solver);
    s->args = sph_scratch(s, ctx->name, what, 24);
    snprintf(what, sizeof what, "%s.state", solver);
    s->istate = sph_scratch(s, ctx->name, what, sizeof(struct eddy_sph_iisph_state));
    snprintf(what, sizeof what, "%s.reduce", solver);
    s->sreduce = sph_scratch(s, ctx->name, what, 32);
    s->sowned = sph_scratch(s, ctx->name, "sorted.owned", 16);
}

/* The check after each iteration (sph_iisph_check.comp), for IISPH (mode
 * 0) or a DFSPH phase (SPH_DFSPH_DIVERGENCE, SPH_DFSPH_DENSITY). */
eddy_kernel sph_check_kernel(sph *s, uint32_t mode, uint32_t phase, const char *label)
{
    return eddy_create_kernel(s->e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = label,
                                                         EDDY_SPIRV(iisph_check_spv),
                                                         .specialization = { { 1, mode }, { 2, phase } },
                                                         .specialization_count = 2 });
}

/* The kernels that count only the owned particles, and the owned flags'
 * buffer for the set's capacity: made at the first substep over ranks. */
eddy_result sph_owned_buffer(sph *s)
{
    if (eddy_buffer_size(s->e, s->sowned) >= 4ull * (s->cap ? s->cap : 1))
        return EDDY_OK;
    eddy_destroy_buffer(s->e, s->sowned);
    s->sowned = sph_scratch(s, s->name, "sorted.owned", 4ull * (s->cap ? s->cap : 1));
    return s->sowned.id ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
}

static eddy_result make_owned(sph *s)
{
    if (s->k_update_owned.id)
        return EDDY_OK;
    eddy_engine *e = s->e;
    eddy_result r = sph_owned_buffer(s);
    if (r != EDDY_OK)
        return r;
    s->k_update_owned = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc),
        .label = "sph.iisph_update", SPH_VARIANT(s->couple != NULL, iisph_update),
        .specialization = { { 2, s->nlist_cap }, { 3, 1 } }, .specialization_count = 2 });
    s->k_sum = sph_check_kernel(s, 0, 1, "sph.iisph_sum");
    s->k_decide = sph_check_kernel(s, 0, 2, "sph.iisph_check");
    return s->k_update_owned.id && s->k_sum.id && s->k_decide.id ? EDDY_OK : EDDY_ERROR_VULKAN;
}

/* One iteration: the pressure accelerations, the update, and the error's
 * sum: the test on one rank (k_check), this rank's sum over ranks. */
static int add_iteration(sph *s, eddy_graph g, bool ranks)
{
    eddy_engine *e = s->e;
    eddy_grid_buffers gb = eddy_grid_get_buffers(s->grid);
    eddy_couple_bindings cb = s->couple ? eddy_couple_get_bindings(s->couple) : (eddy_couple_bindings){ 0 };
    eddy_access cr = s->couple ? EDDY_READ : 0;
    int first = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "sph.iisph_accel", .kernel = s->k_accel, .indirect = s->args,
        .bindings = { { s->params, EDDY_READ }, { s->spm, EDDY_READ }, { s->svr, EDDY_READ },
                      { gb.cell_start, EDDY_READ }, { gb.cell_end, EDDY_READ }, { s->spress, EDDY_READ },
                      { s->sap, EDDY_READ_WRITE }, { gb.sorted_index, EDDY_READ }, { s->pressure, EDDY_WRITE },
                      { s->nlist, EDDY_READ }, { s->ncount, EDDY_READ }, { s->sghost, EDDY_READ }, { cb.params, cr },
                      { cb.particles, cr }, { cb.cell_start, cr }, { cb.cell_end, cr } } });
    int rc = first;
    if (rc >= 0)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "sph.iisph_update", .kernel = ranks ? s->k_update_owned : s->k_update, .indirect = s->args,
            .bindings = { { s->params, EDDY_READ }, { s->spm, EDDY_READ }, { gb.cell_start, EDDY_READ },
                          { gb.cell_end, EDDY_READ }, { s->sap, EDDY_READ }, { s->siis, EDDY_READ },
                          { s->spress, EDDY_READ_WRITE }, { s->partials, EDDY_WRITE }, { s->nlist, EDDY_READ },
                          { s->ncount, EDDY_READ }, { s->sghost, EDDY_READ }, { s->sowned, EDDY_READ },
                          { cb.params, cr }, { cb.particles, cr }, { cb.cell_start, cr }, { cb.cell_end, cr } } });
    if (rc >= 0)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = ranks ? "sph.iisph_sum" : "sph.iisph_check", .kernel = ranks ? s->k_sum : s->k_check,
            .indirect = s->args, .indirect_offset = 12,
            .bindings = { { s->params, EDDY_READ }, { s->partials, EDDY_READ }, { s->istate, EDDY_READ_WRITE },
                          { s->args, EDDY_WRITE }, { s->sreduce, EDDY_READ_WRITE } } });
    return rc < 0 ? rc : first;
}

/* Over ranks: the iterations as parts of the substep. Between two, each
 * ghost's pressure from its owner and the error's sums over the ranks;
 * the test (on the sums) starts the next part. */
static int iterate_over_ranks(sph *s, eddy_step_parts *parts)
{
    eddy_grid_buffers gb = eddy_grid_get_buffers(s->grid);
    eddy_sync_desc sync = { EDDY_SIZED(eddy_sync_desc), .buffers = { s->spress }, .row_bytes = { 4 },
                            .buffer_count = 1, .order = gb.sorted_index, .reduce = s->sreduce, .sum_u64 = 2,
                            .max_u32 = 1 };
    if (parts->sync(parts, &sync) != EDDY_OK)
        return -1;
    uint32_t first = parts->part;
    int rc = s->n ? 0 : sph_zero_sums(s, parts->graph, s->k_sum, s->istate, s->args);
    if (s->n)
        rc = eddy_graph_add_pass(s->e, parts->graph, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "sph.iisph_check", .kernel = s->k_decide, .groups = { 1 },
            .bindings = { { s->params, EDDY_READ }, { s->partials, EDDY_READ }, { s->istate, EDDY_READ_WRITE },
                          { s->args, EDDY_WRITE }, { s->sreduce, EDDY_READ_WRITE } } });
    if (rc >= 0 && s->n)
        rc = add_iteration(s, parts->graph, true);
    if (rc >= 0 && parts->sync(parts, &sync) != EDDY_OK)
        return -1;
    if (rc >= 0 && parts->loop(parts, first, s->max_iterations, s->istate,
                               offsetof(struct eddy_sph_iisph_state, g) + 4) != EDDY_OK)
        return -1;
    return rc;
}

int sph_zero_sums(sph *s, eddy_graph g, eddy_kernel k, eddy_buffer state, eddy_buffer args)
{
    return eddy_graph_add_pass(s->e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "sph.zero_sums", .kernel = k, .groups = { 1 },
        .bindings = { { s->params, EDDY_READ }, { s->partials, EDDY_READ }, { state, EDDY_READ_WRITE },
                      { args, EDDY_WRITE }, { s->sreduce, EDDY_READ_WRITE } } });
}

int sph_iisph_empty_parts(sph *s, eddy_step_parts *parts)
{
    /* Zero sums and no stop flag: the ranks with particles decide. Nothing
     * in flight reads them between steps. */
    if (make_owned(s) != EDDY_OK || eddy_buffer_fill(s->e, s->sreduce, 0, 32, 0) != EDDY_OK ||
        eddy_buffer_fill(s->e, s->istate, 0, sizeof(struct eddy_sph_iisph_state), 0) != EDDY_OK)
        return -1;
    return iterate_over_ranks(s, parts);
}

/* IISPH after the other forces: the system, the iterations (indirect,
 * switched off on the GPU once converged), the pressure acceleration added. */
int sph_record_iisph(sph *s, eddy_graph g, eddy_step_parts *parts)
{
    eddy_engine *e = s->e;
    eddy_grid_buffers gb = eddy_grid_get_buffers(s->grid);
    eddy_result r = eddy_grid_record_gather(e, s->grid, g, s->pressure, s->spress, 1, s->n);
    if (r == EDDY_OK && parts)
        r = make_owned(s);
    if (r == EDDY_OK && parts)
        r = eddy_grid_record_gather(e, s->grid, g, parts->owned(parts, s->set), s->sowned, 1, s->n);
    if (r != EDDY_OK)
        return (int)r;
    /* Coupled: the boundary after each pass's own bindings. */
    eddy_couple_bindings cb = s->couple ? eddy_couple_get_bindings(s->couple) : (eddy_couple_bindings){ 0 };
    eddy_access cr = s->couple ? EDDY_READ : 0;
    int rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "sph.iisph_diag", .kernel = s->k_diag, .threads = s->n,
        .bindings = { { s->params, EDDY_READ }, { s->spm, EDDY_READ }, { s->svr, EDDY_READ },
                      { s->saccel, EDDY_READ }, { gb.cell_start, EDDY_READ }, { gb.cell_end, EDDY_READ },
                      { s->spress, EDDY_READ_WRITE }, { s->siis, EDDY_WRITE }, { s->args, EDDY_WRITE },
                      { s->istate, EDDY_WRITE }, { s->sghost, EDDY_WRITE }, { cb.params, cr }, { cb.particles, cr },
                      { cb.cell_start, cr }, { cb.cell_end, cr }, { cb.velocity, cr } } });
    int first = rc >= 0 ? add_iteration(s, g, parts != NULL) : rc;
    rc = first;
    if (rc >= 0 && parts) {
        rc = iterate_over_ranks(s, parts);
        g = parts->graph;
    } else if (rc >= 0 && s->max_iterations > 1) {
        rc = eddy_graph_repeat(e, g, (uint32_t)first, 3, s->max_iterations);
    }
    if (rc >= 0)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "sph.iisph_accel_final", .kernel = s->k_accel_final, .threads = s->n,
            .bindings = { { s->params, EDDY_READ }, { s->spm, EDDY_READ }, { s->svr, EDDY_READ },
                          { gb.cell_start, EDDY_READ }, { gb.cell_end, EDDY_READ }, { s->spress, EDDY_READ },
                          { s->saccel, EDDY_READ_WRITE }, { gb.sorted_index, EDDY_READ },
                          { s->pressure, EDDY_WRITE }, { s->nlist, EDDY_READ }, { s->ncount, EDDY_READ },
                          { s->sghost, EDDY_READ }, { cb.params, cr }, { cb.particles, cr },
                          { cb.cell_start, cr }, { cb.cell_end, cr } } });
    /* The bodies feel the solved pressure. */
    if (rc >= 0 && s->couple)
        rc = eddy_couple_record_sph(e, s->couple, g, s->spm, s->svr, gb.cell_start, gb.cell_end, s->spress);
    return rc;
}
