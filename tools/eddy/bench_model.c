/* eddy bench's pass profile and GPU time model: see bench_model.h. */
#include "bench_model.h"

#include <math.h>
#include <string.h>

/* The core's prims (eddy_prims.h) as the cases and the modules' steps run
 * them, per element and call (eddy_bench_pass_cost): the grid build
 * (eddy_grid: cell keys, the radix sort's passes, ranges, gathers) and the
 * segmented reduction (per-body sums). The modules' own passes are in
 * their bench files (eddy_builtin_bench_module). */
static const eddy_bench_pass_cost core_costs[] = {
    { "eddy.fill", 4, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 0, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "eddy.grid.cell", 28, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 10, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "eddy.sort.histogram", 4, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 2, 0, 0, EDDY_BENCH_PER_KEY, false },
    { "eddy.scan.block", 0.5, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 0.5, 0, 0, EDDY_BENCH_PER_KEY, false },
    { "eddy.scan.add", 0.5, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 0.5, 0, 0, EDDY_BENCH_PER_KEY, false },
    { "eddy.sort.scatter", 16, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 4, 0, 0, EDDY_BENCH_PER_KEY, false },
    { "eddy.grid.range", 12, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 2, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "eddy.grid.gather", 30, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 0, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "eddy.segmented_reduce", 32, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 8, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
};

/* The cost description of the pass labelled `label`, the core's or a
 * module's, and whether that module's list loops scan without lists; NULL
 * when it has none. */
static const eddy_bench_pass_cost *find_cost(const char *label, bool *lists_optional)
{
    *lists_optional = false;
    for (size_t i = 0; i < sizeof core_costs / sizeof core_costs[0]; i++)
        if (!strcmp(core_costs[i].label, label))
            return &core_costs[i];
    const eddy_bench_module *bm;
    for (uint32_t k = 0; (bm = eddy_builtin_bench_module(k)); k++)
        for (uint32_t i = 0; i < bm->cost_count; i++)
            if (!strcmp(bm->costs[i].label, label)) {
                *lists_optional = bm->lists_optional;
                return &bm->costs[i];
            }
    return NULL;
}

/* ------------------------------------------------------------------ profile and model */

static eddy_bench_pass_model model_of(const eddy_bench_pass_cost *pc, bool lists_optional, const eddy_bench_stats *ns)
{
    /* Without lists (--no-lists) a module's list loops scan the cells like
     * the pass that would build them, and nothing reads or writes a list. */
    if (ns->scans && lists_optional && pc->visits != EDDY_BENCH_VISIT_NONE) {
        eddy_bench_pass_cost scan = *pc;
        scan.visits = EDDY_BENCH_VISIT_CANDIDATES;
        scan.list_bytes = 0;
        eddy_bench_stats none = *ns;
        none.scans = false;
        return model_of(&scan, lists_optional, &none);
    }
    double v = pc->visits == EDDY_BENCH_VISIT_CANDIDATES ? ns->candidates
             : pc->visits == EDDY_BENCH_VISIT_LIST       ? ns->list
             : pc->visits == EDDY_BENCH_VISIT_NEIGHBOURS ? ns->neighbours
                                                         : 0;
    /* A list pass reads (or the building scan writes) one entry per list
     * neighbour: the list counts them (a module whose lists hold exactly
     * the neighbours counts them with its reach at h). */
    double entries = pc->visits == EDDY_BENCH_VISIT_CANDIDATES ? ns->list : v;
    eddy_bench_pass_model m = { pc->stream + pc->list_bytes * entries + pc->visit_stream * v,
                     v * pc->visit_bytes + (pc->visits == EDDY_BENCH_VISIT_CANDIDATES ? 54 * 4 : 0), v,
                     pc->flops + v * pc->visit_flops + ns->ghosts * pc->ghost_flops };
    return m;
}

/* The cost of a pass of `calls` a step per element, and how many elements
 * (n, the sort's keys, or a rendered frame's tets, faces or rays). False:
 * no cost description. */
static bool cost_of(const char *label, double calls, uint32_t n, const eddy_bench_stats *ns,
                    const bench_device_model *d, eddy_bench_pass_model *m, double *count, const char **per)
{
    bool frame = ns->frame.tets > 0;
    *per = NULL;
    const eddy_bench_module *bm;
    for (uint32_t k = 0; frame && (bm = eddy_builtin_bench_module(k)); k++)
        if (bm->frame_model && bm->frame_model(label, calls, &ns->frame, d ? d->simd_width : 0, m, count, per))
            return true;
    bool lists_optional;
    const eddy_bench_pass_cost *pc = find_cost(label, &lists_optional);
    if (!pc)
        return false;
    *m = model_of(pc, lists_optional, ns);
    *count = pc->per == EDDY_BENCH_PER_KEY && frame ? ns->frame.faces : n;
    if (pc->per == EDDY_BENCH_PER_KEY && frame)
        *per = "face";
    else if (frame)
        *per = "ray";
    return true;
}

/* A solver's iteration passes are recorded max_iterations times and
 * dispatched with zero groups once the solve has converged (the overhead
 * alone): only ns->solver_iterations of their calls do work. */
static bool solver_iteration(const char *label)
{
    bool lists_optional;
    const eddy_bench_pass_cost *pc = find_cost(label, &lists_optional);
    return pc && pc->solver_iteration;
}

static double work_calls(const char *label, double calls, const eddy_bench_stats *ns)
{
    return solver_iteration(label) && ns->solver_iterations > 0 && ns->solver_iterations < calls
               ? ns->solver_iterations : calls;
}

static const char *bound_of(const eddy_bench_pass_model *m, const bench_device_model *d, double n, double *t_us)
{
    double terms[4] = { m->stream * n / (d->bandwidth_gbps * 1e3), m->gathered * n / (d->cache_gbps * 1e3),
                        m->flops * n / (d->gflops * 1e3),
                        m->visits * d->visit_latency_ns * 1e-3 *
                            (d->resident_threads >= 1 ? ceil(n / d->resident_threads) : 1) };
    static const char *names[4] = { "memory", "gather", "compute", "latency" };
    int k = 0;
    for (int i = 1; i < 4; i++)
        if (terms[i] > terms[k])
            k = i;
    *t_us = d->pass_overhead_us + terms[k];
    return d->pass_overhead_us > terms[k] ? "overhead" : names[k];
}

void bench_print_profile(FILE *f, const bench_pass_measure *passes, int count, uint32_t n,
                         const eddy_bench_stats *ns, const bench_device_model *device)
{
    const eddy_bench_frame_stats *v = &ns->frame;
    if (v->tets > 0)
        fprintf(f, ",\"frame\":{\"tets\":%.0f,\"faces\":%.0f,\"rays\":%.0f,\"tested_per_face\":%.2f,"
                   "\"covered_per_face\":%.2f,\"tested_max\":%.0f,\"tets_per_ray\":%.3f,\"pieces_per_ray\":%.3f,"
                   "\"entries_per_ray\":%.3f,\"bvh_nodes_per_ray\":%.3f,\"lane_steps8_per_ray\":%.3f,"
                   "\"lane_steps32_per_ray\":%.3f}",
                v->tets, v->faces, v->rays, v->faces > 0 ? v->tested / v->faces : 0,
                v->faces > 0 ? v->fragments / v->faces : 0, v->tested_max, v->rays > 0 ? v->steps / v->rays : 0,
                v->rays > 0 ? v->pieces / v->rays : 0, v->rays > 0 ? v->entries_read / v->rays : 0,
                v->rays > 0 ? v->bvh_nodes / v->rays : 0, v->rays > 0 ? v->lane_steps8 / v->rays : 0,
                v->rays > 0 ? v->lane_steps32 / v->rays : 0);
    else
        fprintf(f, ",\"neighbours\":{\"candidates\":%.1f,\"within_h\":%.1f,\"list\":%.1f,\"ghost_points\":%.1f,"
                   "\"lists\":%s}", ns->candidates, ns->neighbours, ns->list, ns->ghosts, ns->scans ? "false" : "true");
    if (ns->solver_iterations > 0)
        fprintf(f, ",\"solver_iterations\":%.1f", ns->solver_iterations);
    fprintf(f, ",\"profile\":{");
    int first = 1;
    for (int i = 0; i < count; i++) {
        eddy_bench_pass_model m;
        double elems, calls = passes[i].calls, s = passes[i].ms * 1e-3;
        const char *per;
        if (n == 0 || !cost_of(passes[i].label, calls, n, ns, device, &m, &elems, &per))
            continue;
        fprintf(f, "%s\"%s\":{\"ms\":%.4f,\"calls\":%g,", first ? "" : ",", passes[i].label, passes[i].ms, calls);
        if (work_calls(passes[i].label, calls, ns) < calls) {
            calls = work_calls(passes[i].label, calls, ns);
            fprintf(f, "\"working_calls\":%.1f,", calls);
        }
        if (per)
            fprintf(f, "\"per\":\"%s\",\"elements\":%.0f,", per, elems);
        fprintf(f, "\"bytes\":%.1f,\"visits\":%.1f,\"gathered\":%.1f,"
                   "\"flops\":%.1f,\"GBps\":%.3g,\"visits_per_s\":%.3g,\"flops_per_byte\":%.2f",
                m.stream * calls, m.visits * calls, m.gathered * calls, m.flops * calls,
                s > 0 ? m.stream * calls * elems / s * 1e-9 : 0, s > 0 ? m.visits * calls * elems / s : 0,
                m.stream > 0 ? m.flops / m.stream : 0);
        if (device) {
            double t_us;
            const char *bound = bound_of(&m, device, elems, &t_us);
            fprintf(f, ",\"bound\":\"%s\"", bound);
        }
        fprintf(f, "}");
        first = 0;
    }
    fprintf(f, "}");
    if (!device)
        return;
    /* Every pass the case ran: modelled ones from their costs, the others
     * (one-thread passes and the like) at the overhead alone. */
    double total_us = 0;
    fprintf(f, ",\"model\":{\"device\":\"%s\",\"passes\":{", device->name);
    first = 1;
    for (int i = 0; i < count; i++) {
        eddy_bench_pass_model m;
        double elems, t_us = device->pass_overhead_us;
        const char *per, *bound = "overhead";
        bool modelled = n > 0 && cost_of(passes[i].label, passes[i].calls, n, ns, device, &m, &elems, &per);
        if (modelled)
            bound = bound_of(&m, device, elems, &t_us);
        /* every recorded call pays the overhead, the working ones the rest */
        double pass_us = device->pass_overhead_us * passes[i].calls +
                         (t_us - device->pass_overhead_us) * work_calls(passes[i].label, passes[i].calls, ns);
        total_us += pass_us;
        fprintf(f, "%s\"%s\":{\"ms\":%.4f,\"bound\":\"%s\"%s}", first ? "" : ",", passes[i].label,
                pass_us * 1e-3, bound, modelled ? "" : ",\"modelled\":false");
        first = 0;
    }
    fprintf(f, "},\"ms\":%.4f,\"%s_per_s\":%.4g}", total_us * 1e-3, v->tets > 0 ? "elements" : "particle_steps",
            total_us > 0 ? n / (total_us * 1e-6) : 0);
}

void bench_print_profile_text(FILE *f, const bench_pass_measure *passes, int count, uint32_t n,
                              const eddy_bench_stats *ns, const char *prefix)
{
    fprintf(f, "  neighbours per particle: %.1f candidates in the 27 cells, %.1f within h, %.1f in the lists; "
               "%.1f wall-ghost points\n", ns->candidates, ns->neighbours, ns->list, ns->ghosts);
    fprintf(f, "  %-24s %10s %10s %10s %10s %9s %11s %8s\n", "pass (per particle, call)", "bytes", "visits",
            "gathered", "flops", "GB/s", "visits/s", "flops/B");
    bool note = false;
    for (int i = 0; i < count; i++) {
        eddy_bench_pass_model m;
        double elems;
        const char *per;
        if (strncmp(passes[i].label, prefix, strlen(prefix)) || passes[i].calls <= 0 || n == 0 ||
            !cost_of(passes[i].label, passes[i].calls, n, ns, NULL, &m, &elems, &per))
            continue;
        double s = passes[i].ms * 1e-3 / passes[i].calls; /* per call */
        bool partly_empty = solver_iteration(passes[i].label) && !(ns->solver_iterations > 0);
        fprintf(f, "  %-24s %10.1f %10.1f %10.1f %10.1f %9.3g %11.3g %8.2f%s\n", passes[i].label, m.stream, m.visits,
                m.gathered, m.flops, s > 0 ? m.stream * elems / s * 1e-9 : 0, s > 0 ? m.visits * elems / s : 0,
                m.stream > 0 ? m.flops / m.stream : 0, partly_empty ? " *" : "");
        note = note || partly_empty;
    }
    if (note)
        fprintf(f, "  * calls are the recorded iterations; those after the solve converged dispatch no groups, so "
                   "the rates are averages over them\n");
}
