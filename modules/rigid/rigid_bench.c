/* rigid's bench cases and pass costs (eddy_bench.h). Rigid bodies: 16,384
 * chess pawns of 4 particles (the chapter's 65,536), packed in a box and
 * falling; granular: 16,384 grains (friction 0.5) in a column collapsing.
 * The device and eddy_rigid_step_cpu run the same steps from the same
 * start; body centres (grains) must agree within 1e-4 of the box. */
#include "rigid.h"
#include "common/bench_tables.h"
#include "eddy/eddy_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RIGID_PAWNS, RIGID_GRANULAR };

/* The case's scene at particle diameter d and step dt, in a box [0, hd]. */
static void scene_json(char *json, size_t cap, bool granular, const char *data, double d, double dt,
                       const double hd[3], double f)
{
    if (granular)
        snprintf(json, cap,
                 "{ \"dt\": %g, \"duration\": 1, \"box\": { \"min\": [0, 0, 0], \"max\": [%.9g, %.9g, %.9g] },"
                 "  \"particle_sets\": [ { \"name\": \"b\", \"spacing\": %g, \"mass\": 0.0208,"
                 "      \"fill\": { \"shape\": \"box\", \"min\": [%.9g, 0, %.9g], \"max\": [%.9g, %.9g, %.9g], \"jitter\": 0.2 } } ],"
                 "  \"systems\": [ { \"name\": \"r\", \"module\": \"rigid\", \"set\": \"b\","
                 "      \"params\": { \"granular\": true, \"stiffness\": 2000, \"friction\": 0.5 } } ] }", dt,
                 hd[0], hd[1], hd[2], d, 0.48 * f, 0.48 * f, 1.12 * f, 0.32 * f, 1.12 * f);
    else
        snprintf(json, cap,
                 "{ \"dt\": %g, \"duration\": 1, \"box\": { \"min\": [0, 0, 0], \"max\": [1.4, 1.6, 1.4] },"
                 "  \"particle_sets\": [ { \"name\": \"b\", \"spacing\": %g, \"bodies\": true,"
                 "      \"fill\": { \"shape\": \"mesh\", \"file\": \"%s/meshes/pawn_revolved.obj\", \"scale\": %g,"
                 "        \"rotation\": [1, 0, 0, -90], \"center\": [0.06, 0.05, 0.06], \"jitter\": 0.1,"
                 "        \"copies\": { \"count\": [32, 16, 32], \"step\": [0.042, 0.05, 0.042] } } } ],"
                 "  \"systems\": [ { \"name\": \"r\", \"module\": \"rigid\", \"set\": \"b\","
                 "      \"params\": { \"stiffness\": 2000, \"friction\": 0.5 } } ] }", dt, d, data, d);
}

/* The C step, 1 + o->iterations times from the device's start (B bodies),
 * the last o->iterations timed into r->cpu_ms. */
static void reference(bool granular, uint32_t count, int64_t B, double d, double dt, const float hi[3], float *pos,
                      float *vel, const float *mass, const uint32_t *phase, const float *rest,
                      struct eddy_rigid_body *bodies, const uint32_t *off, uint32_t *hid, float *hxi,
                      const eddy_bench_options *o, eddy_bench_result *r)
{
    memset(hid, 0xff, 4ull * EDDY_RIGID_SLOTS * count);
    struct eddy_rigid_params rp = { .grid = { (float)-d, (float)-d, (float)-d, (float)(1 / d) },
                                    .box_min = { 0, 0, 0, (float)d }, .box_max = { 0, 0, 0, (float)dt },
                                    .gravity = { 0, -9.81f, 0, 2000 }, .coeffs = { 2, 1, 2000, 0.5f },
                                    .counts = { count, (uint32_t)B } };
    for (int a = 0; a < 3; a++) {
        rp.box_max[a] = hi[a];
        rp.dims[a] = (int32_t)(ceil(hi[a] / d) + 2);
    }
    rp.dims[3] = granular;
    double t0 = 0;
    for (uint32_t k = 0; k <= o->iterations; k++) {
        if (k == 1)
            t0 = eddy_bench_now_ms();
        eddy_rigid_step_cpu(&rp, count, pos, vel, mass, phase, rest, bodies, off, hid, hxi, NULL, NULL);
    }
    r->cpu_ms = eddy_bench_now_ms() - t0;
}

/* The scenes fix n: 16,384 pawns x 4, 16,384 grains (--particles scales the grains' box). */
static int run(eddy_engine *e, const eddy_bench_case *c, const eddy_bench_options *o, eddy_bench_result *r)
{
    bool granular = c->variant == RIGID_GRANULAR;
    char json[4096];
    const double d = 0.02, dt = 3e-4;
    double f = granular && o->particles ? cbrt(o->particles / 16384.0) : 1;
    const double hd[3] = { granular ? 1.6 * f : 1.4, granular ? fmax(1.0, f) : 1.6, granular ? 1.6 * f : 1.4 };
    const float hi[3] = { (float)hd[0], (float)hd[1], (float)hd[2] };
    scene_json(json, sizeof json, granular, o->data_dir, d, dt, hd, f);
    uint64_t bytes0 = eddy_engine_get_counters(e).buffer_bytes;
    eddy_scene *sc = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = c->name, .json = json, .profile = true,
                                                             .no_output = true });
    if (!sc)
        return -1;
    eddy_particles p = eddy_find_particles(e, "b");
    uint32_t count = eddy_particles_count(e, p);
    float *pos = malloc(16ull * count), *vel = malloc(16ull * count), *mass = malloc(4ull * count);
    float *gpos = malloc(16ull * count), *hxi = calloc(16ull * EDDY_RIGID_SLOTS * count, 1);
    uint32_t *phase = malloc(4ull * count), *hid = malloc(4ull * EDDY_RIGID_SLOTS * count), *off = NULL;
    struct eddy_rigid_body *bodies = NULL;
    float *rest = NULL;
    int rc = -1;
    r->n = count;
    r->unit = "particles";
    r->bytes = eddy_engine_get_counters(e).buffer_bytes - bytes0;
    r->no_reference = o->no_reference;
    char err[256];
    int64_t B = 0;
    if (!pos || !vel || !mass || !gpos || !hxi || !phase || !hid ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "position"), 0, 16ull * count, pos) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "velocity"), 0, 16ull * count, vel) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "mass"), 0, 4ull * count, mass) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "phase"), 0, 4ull * count, phase) != EDDY_OK ||
        (!granular && (B = eddy_rigid_build_bodies(count, pos, vel, mass, phase, d, &bodies, &rest, &off, err, sizeof err)) < 0) ||
        eddy_bench_time_graph(e, eddy_scene_graph(sc), o->iterations, r) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "position"), 0, 16ull * count, gpos) != EDDY_OK)
        goto done;
    /* Contacts reach one diameter: the scan's candidates and the pairs in touch. */
    r->has_stats = eddy_bench_count_neighbours(gpos, count, (float)d, (float)d, &r->stats);
    if (o->no_reference) {
        rc = 0;
        goto done;
    }
    reference(granular, count, B, d, dt, hi, pos, vel, mass, phase, rest, bodies, off, hid, hxi, o, r);
    double worst = 0;
    for (uint32_t i = 0; i < 4 * count; i++)
        if (i % 4 != 3)
            worst = fmax(worst, fabs((double)gpos[i] - pos[i]));
    r->match = worst <= 1e-4 * hi[1];
    if (!r->match)
        fprintf(stderr, "eddy bench %s: largest position difference %g m\n", c->name, worst);
    rc = r->match ? 0 : 1;
done:
    free(pos), free(vel), free(mass), free(gpos), free(hxi), free(phase), free(hid), free(off), free(bodies), free(rest);
    eddy_destroy_scene(sc);
    return rc;
}

static const eddy_bench_case cases[] = {
    { "rigid.pawns", run, 65536, RIGID_PAWNS, 0, NULL },
    { "granular.16k", run, 16384, RIGID_GRANULAR, EDDY_BENCH_PARTICLES, NULL },
};

EDDY_BENCH_CASE_LIST(eddy_rigid_bench_cases, cases)

/* Cells of one particle diameter: body state to particles, the contact
 * scan with its 16-slot friction memory in and out, the memory's copy, the
 * integration (the per-body sums are the core's eddy.segmented_reduce). */
static const eddy_bench_pass_cost costs[] = {
    { "rigid.particles", 80, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 40, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "rigid.contact", 712, 0, EDDY_BENCH_VISIT_CANDIDATES, 40, 80, 60, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "rigid.history", 640, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 0, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "rigid.integrate", 64, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 60, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "rigid.granular", 64, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 30, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
};

const eddy_bench_module *eddy_rigid_bench_module(void)
{
    static const eddy_bench_module m = { .module = eddy_rigid_module, EDDY_BENCH_COSTS(costs) };
    return &m;
}
