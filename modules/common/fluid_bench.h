/* What the fluid modules' bench files share (sph_bench.c, pbf_bench.c): the
 * dam-break case and the per-particle counts of `eddy run --profile`. */
#ifndef EDDY_FLUID_BENCH_H
#define EDDY_FLUID_BENCH_H

#include "eddy/eddy_bench.h"
#include "eddy/eddy_module.h"

/* A dam break with a fluid module: a column nx x 2nx x nx (or a cube) at
 * spacing 0.01 m, h = 0.02 m, against the wall of a tank four columns long.
 * The device runs the module's full step; the C reference is the module's
 * own step with the same equations and grid. */
typedef struct fluid_bench fluid_bench;
struct fluid_bench {
    const eddy_module_desc *module;
    const char *params; /* the system's parameters after h, as JSON members */
    double dt;          /* s */
    bool cube;          /* a cube instead of a column twice as high as wide */
    double skin;        /* the lists reach h (1 + skin) */
    /* The C reference from the device's start (count particles; pos and vel
     * updated in place): 1 + o->iterations steps, as the device ran (one
     * warm-up), the last o->iterations timed into r->cpu_ms; values: the
     * module's parameters, the case's set. false: out of memory. */
    bool (*reference)(const eddy_bench_case *c, const fluid_bench *f, eddy_param_value *values, uint32_t count,
                      const float lo[3], const float hi[3], float *pos, float *vel, const float *mass,
                      const eddy_bench_options *o, eddy_bench_result *r);
};

/* Runs the dam break of case c (c->n particles, or o->particles) and checks
 * the device's positions against the reference's within the step tests'
 * tolerance. Returns as an eddy_bench_run_fn does. */
int eddy_fluid_bench_run(eddy_engine *e, const eddy_bench_case *c, const eddy_bench_options *o,
                         const fluid_bench *f, eddy_bench_result *r);

/* A fluid system's counts after a run (eddy_bench_module.system_stats): its
 * parameters h, wall_spacing and, where its lists reach past h, skin_param
 * (NULL: its lists hold the neighbours within h). */
bool eddy_fluid_system_stats(eddy_engine *e, const eddy_scene *s, const char *system, const char *skin_param,
                             uint32_t *count, eddy_bench_stats *out);

#endif
