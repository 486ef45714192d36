/* pbf's bench cases and pass costs (eddy_bench.h): the dam break of
 * common/fluid_bench.c with PBF (4 iterations at dt = 4 ms, except
 * pbf.dam50k: a 37^3 cube, 3 iterations at dt = 1 ms, the settings of the
 * CPU libraries' 50,653-particle figure) against eddy_pbf_step_cpu; and the
 * haptic loop on a PBF tank with the tool. */
#include "pbf.h"
#include "common/bench_tables.h"
#include "common/fluid_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PBF_COLUMN, PBF_DAM50K };

static uint32_t solver_iterations(const eddy_bench_case *c)
{
    return c->variant == PBF_DAM50K ? 3 : 4;
}

static bool reference(const eddy_bench_case *c, const fluid_bench *f, eddy_param_value *values, uint32_t count,
                      const float lo[3], const float hi[3], float *pos, float *vel, const float *mass,
                      const eddy_bench_options *o, eddy_bench_result *r)
{
    uint32_t iterations = solver_iterations(c);
    const eddy_module_desc *md = f->module;
    for (uint32_t i = 0; i < md->param_count && i < 64; i++)
        if (!strcmp(md->params[i].name, "iterations"))
            values[i].v[0] = iterations;
    float *rho = malloc(4ull * count);
    if (!rho)
        return false;
    struct eddy_pbf_params pp;
    eddy_pbf_params_from_values(&pp, values, lo, hi, f->dt, count, 0);
    /* The device ran 1 + iterations steps (eddy_bench_time_graph warms up
     * with one); the C step does the same and times the same ones. */
    double t0 = 0;
    for (uint32_t k = 0; k <= o->iterations; k++) {
        if (k == 1)
            t0 = eddy_bench_now_ms();
        eddy_pbf_step_cpu(&pp, NULL, iterations, count, pos, vel, mass, rho, NULL);
    }
    r->cpu_ms = eddy_bench_now_ms() - t0;
    free(rho);
    return true;
}

static int run(eddy_engine *e, const eddy_bench_case *c, const eddy_bench_options *o, eddy_bench_result *r)
{
    bool dam50k = c->variant == PBF_DAM50K;
    char params[64];
    snprintf(params, sizeof params, "\"iterations\": %u", solver_iterations(c));
    fluid_bench f = { .module = eddy_pbf_module(), .params = params, .dt = dam50k ? 1e-3 : 4e-3, .cube = dam50k,
                      .reference = reference };
    /* Its lists reach h (1 + neighbour_skin). */
    for (uint32_t i = 0; i < f.module->param_count; i++)
        if (!strcmp(f.module->params[i].name, "neighbour_skin"))
            f.skin = f.module->params[i].def[0];
    return eddy_fluid_bench_run(e, c, o, &f, r);
}

/* The haptic loop (eddy_haptic_run, as `eddy haptic` runs it): the force
 * thread at 1 kHz on a PBF tank of about 1,500 particles (the scene of
 * tests/physics/test_pbf_haptic.c), the tool driven down into the water and
 * along it by a scripted device, for `iterations` seconds of wall-clock
 * time. Measures, without pass or fail (a loaded machine gets other
 * figures), the achieved sample rate, the intervals between samples (mean,
 * standard deviation: the jitter, 99th percentile, longest), how late
 * samples come after their due time k / rate, and the simulation's rate
 * meanwhile. The suite checks only what holds on any machine. */
typedef struct haptic_probe {
    double *t;       /* sample times, s since the loop started */
    uint64_t n, cap; /* recorded, room */
    uint64_t calls;
} haptic_probe;

static void haptic_probe_fn(void *user, double t, const double force[3], double position[3])
{
    (void)force;
    haptic_probe *p = user;
    if (p->n < p->cap)
        p->t[p->n++] = t;
    p->calls++;
    /* Down at 0.05 m/s for 2.5 s, then to and fro along x (+-0.06 m). */
    double down = t < 2.5 ? t : 2.5, side = t < 2.5 ? 0 : t - 2.5;
    position[0] = 0.16 - 0.06 * sin(0.5 * side);
    position[1] = 0.22 - 0.05 * down;
    position[2] = 0.08;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Prints the case's line: the intervals and lateness of the n samples
 * (iv: room for n - 1 intervals) at `rate` over `seconds`. */
static void haptic_print(eddy_engine *e, const char *name, uint32_t particles, uint32_t rate, double seconds,
                         const haptic_probe *p, double *iv, const eddy_haptic_report *rep)
{
    const double period = 1.0 / rate;
    uint64_t n = p->n, m = n > 1 ? n - 1 : 0;
    double sum = 0, sum2 = 0, late_sum = 0, late_max = 0;
    for (uint64_t k = 0; k < n; k++) {
        double late = p->t[k] - (double)k * period;
        late_sum += late;
        late_max = fmax(late_max, late);
        if (k) {
            iv[k - 1] = p->t[k] - p->t[k - 1];
            sum += iv[k - 1];
        }
    }
    double mean = m ? sum / m : 0;
    for (uint64_t k = 0; k < m; k++)
        sum2 += (iv[k] - mean) * (iv[k] - mean);
    qsort(iv, m, sizeof *iv, cmp_double);
    double p99 = m ? iv[(uint64_t)floor(0.99 * (double)(m - 1))] : 0, longest = m ? iv[m - 1] : 0;
    double span = n > 1 ? p->t[n - 1] - p->t[0] : 0;
    printf("{\"case\":\"%s\",\"device\":\"%s\",\"particles\":%u,\"rate_hz\":%u,\"seconds\":%g,"
           "\"samples\":%llu,\"achieved_hz\":%.6g,\"interval_mean_ms\":%.6f,\"interval_sd_ms\":%.6f,"
           "\"interval_p99_ms\":%.6f,\"interval_max_ms\":%.6f,\"late_mean_ms\":%.6f,\"late_max_ms\":%.6f,"
           "\"sim_steps\":%llu,\"sim_hz\":%.4g,\"max_jump_n\":%.6g,\"jump_bound_n\":%.6g,"
           "\"max_sim_jump_n\":%.6g}\n",
           name, eddy_engine_device(e)->name, particles, rate, seconds, (unsigned long long)p->calls,
           span > 0 ? (double)m / span : 0, mean * 1e3, (m ? sqrt(sum2 / m) : 0) * 1e3, p99 * 1e3,
           longest * 1e3, (n ? late_sum / n : 0) * 1e3, late_max * 1e3, (unsigned long long)rep->steps,
           rep->steps / seconds, rep->max_jump, rep->max_slope * rep->max_interval, rep->max_sim_jump);
    fflush(stdout);
}

/* n: the rate (Hz); o->iterations: seconds. */
static int run_haptic(eddy_engine *e, const eddy_bench_case *c, const eddy_bench_options *o, eddy_bench_result *r)
{
    const uint32_t rate = c->n;
    const double seconds = o->iterations;
    const char *json =
        "{ \"dt\": 0.004, \"duration\": 100000, \"box\": { \"min\": [0, 0, 0], \"max\": [0.32, 0.3, 0.16] },"
        "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": 0.016,"
        "      \"fill\": { \"shape\": \"box\", \"min\": [0, 0, 0], \"max\": [0.32, 0.12, 0.16] } } ],"
        "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"pbf\", \"set\": \"water\","
        "      \"params\": { \"h\": 0.032, \"iterations\": 4, \"xsph\": 0.1, \"tool_radius\": 0.04,"
        "                  \"tool_position\": [0.16, 0.22, 0.08] } } ] }";
    eddy_scene *sc = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = c->name, .json = json, .no_output = true });
    if (!sc)
        return -1;
    uint32_t particles = eddy_particles_count(e, eddy_find_particles(e, "water"));
    /* Room for the run and a slow last step (the loop ends after it). */
    haptic_probe p = { .cap = (uint64_t)((seconds + 30) * rate) };
    p.t = malloc(sizeof *p.t * p.cap);
    double *iv = malloc(sizeof *iv * p.cap);
    int rc = -1;
    eddy_haptic_report rep;
    if (p.t && iv &&
        eddy_haptic_run(sc, &(eddy_haptic_desc){ EDDY_SIZED(eddy_haptic_desc), .system = "fluid", .device = haptic_probe_fn, .user = &p,
                                                  .rate = rate, .duration = seconds }, &rep) == EDDY_OK) {
        haptic_print(e, c->name, particles, rate, seconds, &p, iv, &rep);
        r->printed = true;
        rc = 0;
    }
    free(p.t);
    free(iv);
    eddy_destroy_scene(sc);
    return rc;
}

static const eddy_bench_case cases[] = {
    { "pbf.10k", run, 10000, PBF_COLUMN, EDDY_BENCH_PARTICLES | EDDY_BENCH_LISTS, NULL },
    { "pbf.20k", run, 20000, PBF_COLUMN, EDDY_BENCH_PARTICLES | EDDY_BENCH_LISTS, NULL },
    { "pbf.40k", run, 40000, PBF_COLUMN, EDDY_BENCH_PARTICLES | EDDY_BENCH_LISTS, NULL },
    { "pbf.60k", run, 60000, PBF_COLUMN, EDDY_BENCH_PARTICLES | EDDY_BENCH_LISTS, NULL },
    { "pbf.80k", run, 80000, PBF_COLUMN, EDDY_BENCH_PARTICLES | EDDY_BENCH_LISTS, NULL },
    { "pbf.dam50k", run, 50653, PBF_DAM50K, EDDY_BENCH_PARTICLES | EDDY_BENCH_LISTS, NULL },
};

static const eddy_bench_case haptic_cases[] = {
    { "haptic.1k", run_haptic, 1000, 0, 0,
      "the haptic loop for N seconds: rate and jitter, no reference" },
};

EDDY_BENCH_CASE_LIST(eddy_pbf_bench_cases, cases)

EDDY_BENCH_CASE_LIST(eddy_pbf_haptic_bench_cases, haptic_cases)

/* Predicted position, velocity, mass in; the list built once a substep
 * (and again after an iteration that moved a particle past the skin:
 * pbf.neighbours_check, which otherwise reads one flag). */
static const eddy_bench_pass_cost costs[] = {
    { "pbf.predict", 52, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 8, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "pbf.neighbours", 52, 4, EDDY_BENCH_VISIT_CANDIDATES, 16, 8, 10, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "pbf.neighbours_check", 4, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 0, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "pbf.lambda", 72, 4, EDDY_BENCH_VISIT_LIST, 16, 30, 40, 30, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "pbf.delta", 84, 4, EDDY_BENCH_VISIT_LIST, 32, 45, 20, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "pbf.apply", 84, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 30, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "pbf.velocity", 64, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 7, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "pbf.vorticity", 52, 4, EDDY_BENCH_VISIT_LIST, 32, 25, 10, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "pbf.finish", 108, 4, EDDY_BENCH_VISIT_LIST, 32, 20, 20, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
};

/* Its lists reach h (1 + neighbour_skin). */
static bool system_stats(eddy_engine *e, const eddy_scene *s, const char *system, uint32_t *count,
                         eddy_bench_stats *out)
{
    return eddy_fluid_system_stats(e, s, system, "neighbour_skin", count, out);
}

const eddy_bench_module *eddy_pbf_bench_module(void)
{
    static const eddy_bench_module m = { .module = eddy_pbf_module, EDDY_BENCH_COSTS(costs), .lists_optional = true,
                                         .system_stats = system_stats };
    return &m;
}
