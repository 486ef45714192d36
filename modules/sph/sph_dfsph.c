/* sph: DFSPH's host side (solver 2; README.md, shaders/sph_dfsph.glsl):
 * its buffers and its two recorded solves, each a fixed number of
 * iterations that the GPU switches off once the phase has converged. */
#include "sph_internal.h"


#include <stddef.h>
#include <stdio.h>

static const uint32_t alpha_spv[] =
#include "sph_dfsph_alpha.spv.inc"
    ;
static const uint32_t alpha_coupled_spv[] =
#include "sph_dfsph_alpha_coupled.spv.inc"
    ;
static const uint32_t kappa_spv[] =
#include "sph_dfsph_kappa.spv.inc"
    ;
static const uint32_t apply_spv[] =
#include "sph_dfsph_apply.spv.inc"
    ;
static const uint32_t predict_spv[] =
#include "sph_dfsph_predict.spv.inc"
    ;
static const uint32_t store_spv[] =
#include "sph_dfsph_store.spv.inc"
    ;

/* The phases (sph_dfsph.glsl). */
#define DIVERGENCE 1u
#define DENSITY 2u

eddy_result sph_create_dfsph(sph *s, const eddy_system_ctx *ctx, bool cpl)
{
    eddy_engine *e = s->e;
    uint64_t n = s->cap; /* over MPI ranks the count changes up to the capacity */
    /* pressure, partials, args and istate: the constant-density phase's */
    sph_create_solve(s, ctx, "dfsph");
    s->div_iterations = (uint32_t)s->p.solve2[2];
    s->sdv = sph_scratch(s, ctx->name, "dfsph.velocity", 16 * n);
    s->sdf = sph_scratch(s, ctx->name, "dfsph.factor", 16 * n);
    s->dghost = sph_scratch(s, ctx->name, "dfsph.ghosts", 48 * n);
    s->dargs = sph_scratch(s, ctx->name, "dfsph.divergence_args", 24);
    s->dstate = sph_scratch(s, ctx->name, "dfsph.divergence_state", sizeof(struct eddy_sph_iisph_state));
    /* The iterations read sph.density's lists (constant 2: their capacity). */
    eddy_specialization lists = { 2, s->nlist_cap };
    /* The coupled variant scans the cells (its lists' bindings carry the
     * boundary's velocities). */
    s->k_alpha = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "sph.dfsph_alpha",
        SPH_VARIANT(cpl, alpha), .specialization = { lists }, .specialization_count = !cpl });
    s->k_kappa_div = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc),
        .label = "sph.dfsph_kappa_divergence", EDDY_SPIRV(kappa_spv),
        .specialization = { { 1, DIVERGENCE }, lists }, .specialization_count = 2 });
    s->k_kappa_rho = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc),
        .label = "sph.dfsph_kappa_density", EDDY_SPIRV(kappa_spv),
        .specialization = { { 1, DENSITY }, lists }, .specialization_count = 2 });
    s->k_apply = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "sph.dfsph_apply",
        EDDY_SPIRV(apply_spv), .specialization = { lists }, .specialization_count = 1 });
    s->k_predict = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "sph.dfsph_predict",
        EDDY_SPIRV(predict_spv) });
    s->k_store = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "sph.dfsph_store",
        EDDY_SPIRV(store_spv) });
    s->k_check_div = sph_check_kernel(s, DIVERGENCE, 0, "sph.dfsph_check_divergence");
    s->k_check = sph_check_kernel(s, DENSITY, 0, "sph.dfsph_check_density");
    if (!s->pressure.id || !s->spress.id || !s->sdv.id || !s->sdf.id || !s->dghost.id || !s->partials.id || !s->args.id || !s->dargs.id || !s->sreduce.id || !s->sowned.id ||
        !s->istate.id || !s->dstate.id)
        return EDDY_ERROR_OUT_OF_MEMORY;
    if (!s->k_alpha.id || !s->k_kappa_div.id || !s->k_kappa_rho.id || !s->k_apply.id || !s->k_predict.id ||
        !s->k_store.id || !s->k_check_div.id || !s->k_check.id)
        return EDDY_ERROR_VULKAN;
    return sph_hydrostatic_start(s);
}

/* The velocity change of the k in sdf.y: indirect in the iterations, for
 * every particle with args (0, 0) (the warm start). */
static int record_apply(sph *s, eddy_graph g, eddy_buffer args)
{
    eddy_grid_buffers gb = eddy_grid_get_buffers(s->grid);
    return eddy_graph_add_pass(s->e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "sph.dfsph_apply", .kernel = s->k_apply, .indirect = args, .threads = args.id ? 0 : s->n,
        .bindings = { { s->params, EDDY_READ }, { s->spm, EDDY_READ }, { s->sdv, EDDY_READ_WRITE },
                      { gb.cell_start, EDDY_READ }, { gb.cell_end, EDDY_READ }, { s->nlist, EDDY_READ },
                      { s->ncount, EDDY_READ }, { s->dghost, EDDY_READ }, { s->sdf, EDDY_READ_WRITE } } });
}

/* sph.dfsph_kappa in one of its modes (indirect). */
static int record_kappa(sph *s, eddy_graph g, eddy_kernel kappa, eddy_buffer args, const char *label)
{
    eddy_grid_buffers gb = eddy_grid_get_buffers(s->grid);
    return eddy_graph_add_pass(s->e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = label, .kernel = kappa, .indirect = args,
        .bindings = { { s->params, EDDY_READ }, { s->spm, EDDY_READ }, { s->sdv, EDDY_READ },
                      { gb.cell_start, EDDY_READ }, { gb.cell_end, EDDY_READ }, { s->nlist, EDDY_READ },
                      { s->ncount, EDDY_READ }, { s->dghost, EDDY_READ }, { s->sdf, EDDY_READ_WRITE },
                      { s->partials, EDDY_WRITE }, { s->sowned, EDDY_READ } } });
}

/* One phase's iterations: kappa, the check, the velocity change, repeated
 * `limit` times (indirect: empty once converged). */
static int record_phase(sph *s, eddy_graph g, eddy_kernel kappa, eddy_kernel check, eddy_buffer args,
                        eddy_buffer state, uint32_t limit, const char *what)
{
    eddy_engine *e = s->e;
    char lk[64], lc[64];
    snprintf(lk, sizeof lk, "sph.dfsph_kappa_%s", what);
    snprintf(lc, sizeof lc, "sph.dfsph_check_%s", what);
    int first = (int)eddy_graph_pass_count(e, g);
    int rc = record_kappa(s, g, kappa, args, lk);
    if (rc >= 0)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = lc, .kernel = check, .indirect = args, .indirect_offset = 12,
            .bindings = { { s->params, EDDY_READ }, { s->partials, EDDY_READ }, { state, EDDY_READ_WRITE },
                          { args, EDDY_WRITE }, { s->sreduce, EDDY_READ_WRITE } } });
    if (rc >= 0)
        rc = record_apply(s, g, args);
    if (rc >= 0 && limit > 1)
        rc = eddy_graph_repeat(e, g, (uint32_t)first, 3, limit);
    return rc;
}

/* The kernels that count only the owned particles (made at the first
 * substep over ranks): the kappas, and each phase's sum and test. */
static eddy_result make_owned(sph *s)
{
    if (s->k_kappa_div_owned.id)
        return EDDY_OK;
    eddy_result r = sph_owned_buffer(s);
    if (r != EDDY_OK)
        return r;
    eddy_specialization lists = { 2, s->nlist_cap }, owned = { 3, 1 };
    s->k_kappa_div_owned = eddy_create_kernel(s->e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc),
        .label = "sph.dfsph_kappa_divergence", EDDY_SPIRV(kappa_spv),
        .specialization = { { 1, DIVERGENCE }, lists, owned }, .specialization_count = 3 });
    s->k_kappa_rho_owned = eddy_create_kernel(s->e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc),
        .label = "sph.dfsph_kappa_density", EDDY_SPIRV(kappa_spv),
        .specialization = { { 1, DENSITY }, lists, owned }, .specialization_count = 3 });
    s->k_sum_div = sph_check_kernel(s, DIVERGENCE, 1, "sph.dfsph_sum_divergence");
    s->k_decide_div = sph_check_kernel(s, DIVERGENCE, 2, "sph.dfsph_check_divergence");
    s->k_sum = sph_check_kernel(s, DENSITY, 1, "sph.dfsph_sum_density");
    s->k_decide = sph_check_kernel(s, DENSITY, 2, "sph.dfsph_check_density");
    return s->k_kappa_div_owned.id && s->k_kappa_rho_owned.id && s->k_sum_div.id && s->k_decide_div.id &&
           s->k_sum.id && s->k_decide.id ? EDDY_OK : EDDY_ERROR_VULKAN;
}

/* Over MPI ranks, one phase's iterations as parts: the velocities the
 * last part left refreshed on the ghosts, then each iteration two parts:
 * kappa with this rank's error sums, the sums added over the ranks; the
 * test on them and the velocity change, the ghosts' velocities refreshed.
 * A rank without particles (s->n 0) takes part in the syncs alone. */
static int phase_over_ranks(sph *s, eddy_step_parts *parts, bool density, eddy_buffer args, eddy_buffer state,
                            uint32_t limit)
{
    eddy_engine *e = s->e;
    eddy_grid_buffers gb = eddy_grid_get_buffers(s->grid);
    eddy_sync_desc refresh = { EDDY_SIZED(eddy_sync_desc), .buffers = { s->sdv }, .row_bytes = { 16 },
                               .buffer_count = 1, .order = gb.sorted_index };
    eddy_sync_desc sums = { EDDY_SIZED(eddy_sync_desc), .reduce = s->sreduce, .sum_u64 = 2, .max_u32 = 1 };
    if (parts->sync(parts, &refresh) != EDDY_OK)
        return -1;
    uint32_t first = parts->part;
    int rc = 0;
    if (s->n) {
        rc = record_kappa(s, parts->graph, density ? s->k_kappa_rho_owned : s->k_kappa_div_owned, args,
                          density ? "sph.dfsph_kappa_density" : "sph.dfsph_kappa_divergence");
        if (rc >= 0)
            rc = eddy_graph_add_pass(e, parts->graph, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
                .label = density ? "sph.dfsph_sum_density" : "sph.dfsph_sum_divergence",
                .kernel = density ? s->k_sum : s->k_sum_div, .indirect = args, .indirect_offset = 12,
                .bindings = { { s->params, EDDY_READ }, { s->partials, EDDY_READ }, { state, EDDY_READ_WRITE },
                              { args, EDDY_WRITE }, { s->sreduce, EDDY_READ_WRITE } } });
    } else {
        rc = sph_zero_sums(s, parts->graph, density ? s->k_sum : s->k_sum_div, state, args);
    }
    if (rc < 0 || parts->sync(parts, &sums) != EDDY_OK)
        return -1;
    if (s->n) {
        rc = eddy_graph_add_pass(e, parts->graph, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = density ? "sph.dfsph_check_density" : "sph.dfsph_check_divergence",
            .kernel = density ? s->k_decide : s->k_decide_div, .groups = { 1 },
            .bindings = { { s->params, EDDY_READ }, { s->partials, EDDY_READ }, { state, EDDY_READ_WRITE },
                          { args, EDDY_WRITE }, { s->sreduce, EDDY_READ_WRITE } } });
        if (rc >= 0)
            rc = record_apply(s, parts->graph, args);
    }
    if (rc < 0 || parts->sync(parts, &refresh) != EDDY_OK ||
        parts->loop(parts, first, limit, state, offsetof(struct eddy_sph_iisph_state, g) + 4) != EDDY_OK)
        return -1;
    return rc;
}

int sph_dfsph_empty_parts(sph *s, eddy_step_parts *parts)
{
    /* Zero sums and no stop flags: the ranks with particles decide.
     * Nothing in flight reads them between steps. */
    if (make_owned(s) != EDDY_OK)
        return -1;
    eddy_buffer zero[] = { s->sreduce, s->dstate, s->istate };
    for (size_t k = 0; k < sizeof zero / sizeof zero[0]; k++)
        if (eddy_buffer_fill(s->e, zero[k], 0, k ? sizeof(struct eddy_sph_iisph_state) : 32, 0) != EDDY_OK)
            return -1;
    int rc = phase_over_ranks(s, parts, false, s->dargs, s->dstate, s->div_iterations);
    return rc < 0 ? rc : phase_over_ranks(s, parts, true, s->args, s->istate, s->max_iterations);
}

int sph_record_dfsph_divergence(sph *s, eddy_graph g, eddy_step_parts *parts)
{
    eddy_engine *e = s->e;
    eddy_grid_buffers gb = eddy_grid_get_buffers(s->grid);
    /* Coupled: the boundary after the pass's own bindings, its velocities
     * where the lists would be. */
    eddy_couple_bindings cb = s->couple ? eddy_couple_get_bindings(s->couple) : (eddy_couple_bindings){ 0 };
    eddy_access cr = s->couple ? EDDY_READ : 0;
    eddy_binding lists = { s->nlist, EDDY_READ };
    if (s->couple)
        lists = (eddy_binding){ cb.velocity, EDDY_READ };
    int rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
        .label = "sph.dfsph_alpha", .kernel = s->k_alpha, .threads = s->n,
        .bindings = { { s->params, EDDY_READ }, { s->spm, EDDY_READ }, { s->svr, EDDY_READ },
                      { gb.cell_start, EDDY_READ }, { gb.cell_end, EDDY_READ }, lists, { s->ncount, EDDY_READ },
                      { s->sdv, EDDY_WRITE }, { s->sdf, EDDY_WRITE }, { s->dghost, EDDY_WRITE },
                      { s->dstate, EDDY_WRITE }, { s->dargs, EDDY_WRITE }, { cb.params, cr }, { cb.particles, cr },
                      { cb.cell_start, cr }, { cb.cell_end, cr } } });
    /* Over ranks the kappas count the owned particles: their flags in cell
     * order, for both phases. */
    if (rc >= 0 && parts)
        rc = make_owned(s) != EDDY_OK ||
             eddy_grid_record_gather(e, s->grid, g, parts->owned(parts, s->set), s->sowned, 1, s->n) != EDDY_OK
                 ? -1 : phase_over_ranks(s, parts, false, s->dargs, s->dstate, s->div_iterations);
    if (parts)
        return rc;
    if (rc >= 0)
        rc = record_phase(s, g, s->k_kappa_div, s->k_check_div, s->dargs, s->dstate, s->div_iterations, "divergence");
    return rc;
}

/* v* with the warm start (the last substep's pressure, gathered into cell
 * order) applied once, the iterations, and the phase's pressure stored. */
int sph_record_dfsph_density(sph *s, eddy_graph g, eddy_step_parts *parts)
{
    eddy_engine *e = s->e;
    eddy_grid_buffers gb = eddy_grid_get_buffers(s->grid);
    int rc = (int)eddy_grid_record_gather(e, s->grid, g, s->pressure, s->spress, 1, s->n);
    if (rc >= 0)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "sph.dfsph_predict", .kernel = s->k_predict, .threads = s->n,
            .bindings = { { s->params, EDDY_READ }, { s->saccel, EDDY_READ }, { s->sdv, EDDY_READ_WRITE },
                          { s->istate, EDDY_WRITE }, { s->args, EDDY_WRITE }, { s->spress, EDDY_READ },
                          { s->sdf, EDDY_READ_WRITE }, { s->dghost, EDDY_READ } } });
    if (rc >= 0)
        rc = record_apply(s, g, (eddy_buffer){ 0 });
    if (rc >= 0 && parts) {
        rc = phase_over_ranks(s, parts, true, s->args, s->istate, s->max_iterations);
        g = parts->graph;
    } else if (rc >= 0) {
        rc = record_phase(s, g, s->k_kappa_rho, s->k_check, s->args, s->istate, s->max_iterations, "density");
    }
    if (rc >= 0)
        rc = eddy_graph_add_pass(e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
            .label = "sph.dfsph_store", .kernel = s->k_store, .threads = s->n,
            .bindings = { { s->params, EDDY_READ }, { s->sdv, EDDY_READ }, { s->sdf, EDDY_READ },
                          { gb.sorted_index, EDDY_READ }, { s->pressure, EDDY_WRITE }, { s->spress, EDDY_WRITE } } });
    /* The bodies feel the pressure of every k applied. */
    if (rc >= 0 && s->couple)
        rc = eddy_couple_record_sph(e, s->couple, g, s->spm, s->svr, gb.cell_start, gb.cell_end, s->spress);
    return rc;
}
