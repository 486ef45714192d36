/* sph's bench cases and pass costs (eddy_bench.h): the dam break of
 * common/fluid_bench.c with SPH (dt = 0.4 ms), IISPH (solver 1) and DFSPH
 * (solver 2; both at the default tolerances, normalised density: the raw
 * sum reads the fill 1% compressed; dt = 2 ms; both start from the fill's
 * hydrostatic pressure, as the systems do), against eddy_sph_step_cpu,
 * eddy_sph_step_iisph_cpu and eddy_sph_step_dfsph_cpu. */
#include "sph.h"
#include "common/bench_tables.h"
#include "common/hydrostatic.h"
#include "common/fluid_bench.h"

#include <stdlib.h>
#include <string.h>

enum { SPH_PLAIN, SPH_IISPH, SPH_DFSPH };

static bool reference(const eddy_bench_case *c, const fluid_bench *f, eddy_param_value *values, uint32_t count,
                      const float lo[3], const float hi[3], float *pos, float *vel, const float *mass,
                      const eddy_bench_options *o, eddy_bench_result *r)
{
    bool iisph = c->variant == SPH_IISPH, dfsph = c->variant == SPH_DFSPH;
    const eddy_module_desc *md = f->module;
    for (uint32_t i = 0; i < md->param_count && i < 64; i++) {
        const char *pn = md->params[i].name;
        if (!strcmp(pn, "stiffness"))
            values[i].v[0] = 400;
        else if (!strcmp(pn, "viscosity"))
            values[i].v[0] = 10;
        else if ((iisph || dfsph) && !strcmp(pn, "normalise_density"))
            values[i].v[0] = 1;
        else if ((iisph || dfsph) && !strcmp(pn, "solver"))
            values[i].v[0] = iisph ? 1 : 2;
    }
    float *rho = malloc(4ull * count), *press = calloc(count + 1ull, 4);
    if (!rho || !press) {
        free(rho), free(press);
        return false;
    }
    struct eddy_sph_params sp;
    eddy_sph_params_from_values(&sp, values, lo, hi, f->dt, count, 0);
    float ws;
    memcpy(&ws, &sp.misc[3], 4);
    if ((iisph || dfsph) && !eddy_hydrostatic_pressure(pos, count, sp.gravity, sp.gravity[3], ws, press)) {
        free(rho), free(press);
        return false;
    }
    /* The device ran 1 + iterations steps (eddy_bench_time_graph warms up
     * with one); the C step does the same and times the same ones. */
    double t0 = 0;
    uint64_t solves = 0;
    for (uint32_t k = 0; k <= o->iterations; k++) {
        if (k == 1)
            t0 = eddy_bench_now_ms();
        uint32_t it = 0;
        if (iisph)
            eddy_sph_step_iisph_cpu(&sp, NULL, count, pos, vel, mass, rho, press, k, &it, NULL);
        else if (dfsph)
            eddy_sph_step_dfsph_cpu(&sp, NULL, count, pos, vel, mass, rho, press, k, &it, NULL);
        else
            eddy_sph_step_cpu(&sp, NULL, count, pos, vel, mass, rho, k);
        solves += k ? it : 0;
    }
    r->cpu_ms = eddy_bench_now_ms() - t0;
    /* IISPH, DFSPH: the iterations a step its twin did (the same solve, the
     * same tolerance; DFSPH's constant-density phase), which the model
     * charges in full; the device records max_iterations and dispatches the
     * rest empty. */
    if (iisph || dfsph)
        r->stats.solver_iterations = (double)solves / o->iterations;
    free(rho), free(press);
    return true;
}

static int run(eddy_engine *e, const eddy_bench_case *c, const eddy_bench_options *o, eddy_bench_result *r)
{
    const char *params[] = { "\"stiffness\": 400, \"viscosity\": 10",
                             "\"stiffness\": 400, \"viscosity\": 10, \"solver\": 1, \"normalise_density\": true",
                             "\"stiffness\": 400, \"viscosity\": 10, \"solver\": 2, \"normalise_density\": true" };
    const fluid_bench f = { .module = eddy_sph_module(), .dt = c->variant == SPH_PLAIN ? 4e-4 : 2e-3,
                            .reference = reference, .params = params[c->variant] };
    return eddy_fluid_bench_run(e, c, o, &f, r);
}

static const eddy_bench_case cases[] = {
    { "sph.16k", run, 16000, SPH_PLAIN, EDDY_BENCH_PARTICLES | EDDY_BENCH_LISTS, NULL },
    { "sph.65k", run, 65536, SPH_PLAIN, EDDY_BENCH_PARTICLES | EDDY_BENCH_LISTS, NULL },
    { "sph.262k", run, 262144, SPH_PLAIN, EDDY_BENCH_PARTICLES | EDDY_BENCH_LISTS, NULL },
    { "sph.iisph16k", run, 16000, SPH_IISPH, EDDY_BENCH_PARTICLES | EDDY_BENCH_LISTS, NULL },
    { "sph.iisph65k", run, 65536, SPH_IISPH, EDDY_BENCH_PARTICLES | EDDY_BENCH_LISTS, NULL },
    { "sph.dfsph16k", run, 16000, SPH_DFSPH, EDDY_BENCH_PARTICLES | EDDY_BENCH_LISTS, NULL },
    { "sph.dfsph65k", run, 65536, SPH_DFSPH, EDDY_BENCH_PARTICLES | EDDY_BENCH_LISTS, NULL },
};

EDDY_BENCH_CASE_LIST(eddy_sph_bench_cases, cases)

/* The density pass scans the cells and writes the list, which holds the
 * neighbours within h (the list's reach is h: stats.list counts them);
 * forces read it. IISPH: the system once a substep (a scan: the lists'
 * bindings would be over the limit), then per iteration the pressure
 * accelerations and the Jacobi update over sph.density's lists, the
 * wall-ghost sums read from the system pass's copy (48 bytes a particle,
 * written once). DFSPH: beta once a substep over the lists, then per
 * iteration of each phase kappa and the velocity change over the lists
 * (the ghosts' sums read from sph.dfsph_alpha's copy). */
static const eddy_bench_pass_cost costs[] = {
    { "sph.density", 72, 4, EDDY_BENCH_VISIT_CANDIDATES, 20, 12, 20, 30, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "sph.forces", 68, 4, EDDY_BENCH_VISIT_NEIGHBOURS, 32, 70, 40, 40, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "sph.integrate", 120, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 30, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "sph.iisph_diag", 140, 0, EDDY_BENCH_VISIT_CANDIDATES, 48, 70, 60, 60, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "sph.iisph_accel", 88, 4, EDDY_BENCH_VISIT_NEIGHBOURS, 36, 25, 25, 0, 0, EDDY_BENCH_PER_ELEMENT, true },
    { "sph.iisph_update", 76, 4, EDDY_BENCH_VISIT_NEIGHBOURS, 32, 20, 25, 0, 0, EDDY_BENCH_PER_ELEMENT, true },
    { "sph.iisph_accel_final", 120, 4, EDDY_BENCH_VISIT_NEIGHBOURS, 36, 25, 30, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "sph.dfsph_alpha", 108, 4, EDDY_BENCH_VISIT_NEIGHBOURS, 20, 40, 60, 60, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "sph.dfsph_kappa_divergence", 80, 4, EDDY_BENCH_VISIT_NEIGHBOURS, 32, 20, 25, 0, 0, EDDY_BENCH_PER_ELEMENT, true },
    { "sph.dfsph_kappa_density", 80, 4, EDDY_BENCH_VISIT_NEIGHBOURS, 32, 20, 25, 0, 0, EDDY_BENCH_PER_ELEMENT, true },
    { "sph.dfsph_apply", 76, 4, EDDY_BENCH_VISIT_NEIGHBOURS, 32, 20, 25, 0, 0, EDDY_BENCH_PER_ELEMENT, true },
    { "sph.dfsph_predict", 64, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 10, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "sph.dfsph_store", 40, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 4, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
};

/* Its lists hold the neighbours within h: no skin. */
static bool system_stats(eddy_engine *e, const eddy_scene *s, const char *system, uint32_t *count,
                         eddy_bench_stats *out)
{
    return eddy_fluid_system_stats(e, s, system, NULL, count, out);
}

const eddy_bench_module *eddy_sph_bench_module(void)
{
    static const eddy_bench_module m = { .module = eddy_sph_module, EDDY_BENCH_COSTS(costs), .lists_optional = true,
                                         .system_stats = system_stats };
    return &m;
}
