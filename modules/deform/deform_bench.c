/* deform's bench cases and pass costs (eddy_bench.h): the step on a
 * tetrahedral mesh (data/tets), implicit Euler with CG at h = 0.01 s, or
 * symplectic Euler at h = 1e-5 s (the _explicit cases: the light bunny's
 * small vertices need it), against deform_cpu.c's step of the same
 * equations. Bars hang from their x = 0 end; other meshes fall freely. */
#include "deform.h"
#include "common/bench_tables.h"
#include "eddy/eddy_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DEFORM_IMPLICIT, DEFORM_EXPLICIT };

/* The C twin's set-up: pinned vertices (a bar's x = 0 end), the springs'
 * rest lengths and material, the parameters; the mesh's size into *size. */
static int reference_init(eddy_deform_cpu *cpu, const eddy_deform_topology *t, const float *pos, uint32_t count,
                          bool bar, bool explicit_, double dt, uint32_t *flags, float *ep, double *size)
{
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (uint32_t i = 0; i < count; i++)
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], pos[4 * i + a]);
            hi[a] = fmax(hi[a], pos[4 * i + a]);
        }
    *size = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    for (uint32_t i = 0; i < count; i++)
        flags[i] = bar && pos[4 * i] <= 1e-6 * *size ? 0 : EDDY_DEFORM_FREE;
    for (uint32_t k = 0; k < t->edge_count; k++) {
        const float *a = pos + 4 * t->edges[2 * k], *b = pos + 4 * t->edges[2 * k + 1];
        double d[3] = { (double)b[0] - a[0], (double)b[1] - a[1], (double)b[2] - a[2] };
        ep[4 * k] = (float)sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        ep[4 * k + 1] = 30000;
        ep[4 * k + 2] = 5;
        ep[4 * k + 3] = 0;
    }
    struct eddy_deform_params dp = { .gravity = { 0, -9.81f, 0, (float)dt }, .box_min = { -20, -20, -20, 1e5f },
                                     .box_max = { 20, 20, 20, 0 }, .solver = { 1e-5f, 0 },
                                     .counts = { count, t->edge_count, 0, explicit_ ? 2 : 0 },
                                     .misc = { 100, EDDY_DEFORM_DEFINITE | EDDY_DEFORM_JACOBI, (count + 255) / 256 } };
    return eddy_deform_cpu_init(cpu, &dp, t, ep, flags, NULL);
}

static int run(eddy_engine *e, const eddy_bench_case *c, const eddy_bench_options *o, eddy_bench_result *r)
{
    bool explicit_ = c->variant == DEFORM_EXPLICIT;
    char mesh[64], json[4096];
    snprintf(mesh, sizeof mesh, "%s", strchr(c->name, '.') + 1);
    char *cut = strstr(mesh, "_explicit");
    if (cut)
        *cut = 0;
    bool bar = !strncmp(mesh, "bar", 3);
    double dt = explicit_ ? 1e-5 : 0.01;
    snprintf(json, sizeof json,
             "{ \"dt\": %g, \"duration\": 1, \"box\": { \"min\": [-20, -20, -20], \"max\": [20, 20, 20] },"
             "  \"particle_sets\": [ { \"name\": \"b\", \"radius\": 0.01,"
             "      \"tetmesh\": { \"file\": \"%s/tets/%s.node\", \"density\": 100 } } ],"
             "  \"systems\": [ { \"name\": \"d\", \"module\": \"deform\", \"set\": \"b\","
             "      \"params\": { \"integrator\": %d, \"damping\": 5, \"pin_plane_normal\": [%d, 0, 0] } } ] }",
             dt, o->data_dir, mesh, explicit_ ? 2 : 0, bar ? 1 : 0);
    eddy_scene *sc = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = c->name, .json = json, .profile = true,
                                                             .no_output = true });
    if (!sc)
        return -1;
    eddy_particles p = eddy_find_particles(e, "b");
    uint32_t count = eddy_particles_count(e, p);
    eddy_elements el = eddy_particles_elements(e, p, "tets");
    float *pos = malloc(16ull * count), *vel = malloc(16ull * count), *mass = malloc(4ull * count);
    float *gpos = malloc(16ull * count), *prev = calloc(4ull * count, sizeof(float)), *ep = NULL;
    uint32_t *tets = malloc(16ull * el.count), *flags = malloc(4ull * count);
    eddy_deform_topology t = { 0 };
    eddy_deform_cpu cpu = { 0 };
    int rc = -1;
    r->n = count;
    r->unit = "vertices";
    r->no_reference = o->no_reference;
    if (!pos || !vel || !mass || !gpos || !prev || !tets || !flags ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "position"), 0, 16ull * count, pos) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "velocity"), 0, 16ull * count, vel) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "mass"), 0, 4ull * count, mass) != EDDY_OK ||
        eddy_buffer_download(e, el.buffer, 0, 16ull * el.count, tets) != EDDY_OK ||
        eddy_deform_topology_build(count, tets, el.count, 4, NULL, &t) != 0 || !(ep = malloc(16ull * t.edge_count)))
        goto done;
    /* The pass profile's neighbours: each vertex's degree in the spring graph
     * (its matrix row's off-diagonal blocks) and its springs. */
    r->stats = (eddy_bench_stats){ .neighbours = count ? 2.0 * t.edge_count / count : 0,
                                   .list = count ? (double)t.edge_count / count : 0 };
    r->has_stats = true;
    double size;
    if (reference_init(&cpu, &t, pos, count, bar, explicit_, dt, flags, ep, &size) != 0 ||
        eddy_bench_time_graph(e, eddy_scene_graph(sc), o->iterations, r) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "position"), 0, 16ull * count, gpos) != EDDY_OK)
        goto done;
    if (o->no_reference) {
        rc = 0;
        goto done;
    }
    double t0 = 0;
    uint64_t cg = 0;
    for (uint32_t k = 0; k <= o->iterations; k++) {
        if (k == 1)
            t0 = eddy_bench_now_ms();
        eddy_deform_cpu_step(&cpu, pos, vel, mass, prev);
        cg += k ? cpu.iterations : 0;
    }
    r->cpu_ms = eddy_bench_now_ms() - t0;
    double worst = 0;
    for (uint32_t i = 0; i < 4 * count; i++)
        if (i % 4 != 3)
            worst = fmax(worst, fabs((double)gpos[i] - pos[i]));
    r->match = worst <= 1e-4 * size;
    if (!r->match)
        fprintf(stderr, "eddy bench %s: largest position difference %g m\n", c->name, worst);
    if (!explicit_)
        fprintf(stderr, "eddy bench %s: %u tets, %u springs, %.1f CG iterations a step (C)\n", c->name, el.count,
                t.edge_count, (double)cg / o->iterations);
    rc = r->match ? 0 : 1;
done:
    eddy_deform_cpu_free(&cpu);
    eddy_deform_topology_free(&t);
    free(pos), free(vel), free(mass), free(gpos), free(prev), free(ep), free(tets), free(flags);
    eddy_destroy_scene(sc);
    return rc;
}

static const eddy_bench_case cases[] = {
    { "deform.bar_80", run, 38, DEFORM_IMPLICIT, 0, NULL },
    { "deform.bar_5k", run, 1275, DEFORM_IMPLICIT, 0, NULL },
    { "deform.bunny_5k", run, 1028, DEFORM_IMPLICIT, 0, NULL },
    { "deform.bar_5k_explicit", run, 1275, DEFORM_EXPLICIT, 0, NULL },
    { "deform.bar_25k", run, 5010, DEFORM_IMPLICIT, 0, NULL },
    { "deform.bunny_25k", run, 5364, DEFORM_IMPLICIT, 0, NULL },
    { "deform.teapot_25k", run, 5163, DEFORM_IMPLICIT, 0, NULL },
    { "deform.bunny_150k", run, 29598, DEFORM_IMPLICIT, 0, NULL },
    { "deform.bar_80_explicit", run, 38, DEFORM_EXPLICIT, 0, NULL },
    { "deform.bunny_5k_explicit", run, 1028, DEFORM_EXPLICIT, 0, NULL },
    { "deform.bar_25k_explicit", run, 5010, DEFORM_EXPLICIT, 0, NULL },
    { "deform.bunny_25k_explicit", run, 5364, DEFORM_EXPLICIT, 0, NULL },
    { "deform.teapot_25k_explicit", run, 5163, DEFORM_EXPLICIT, 0, NULL },
};

EDDY_BENCH_CASE_LIST(eddy_deform_bench_cases, cases)

/* Per vertex ("neighbours" is the vertex's degree d in the spring graph,
 * "list" its springs, d / 2): springs, the assembly of the matrix rows, and
 * per CG iteration the product (a 36-byte entry streamed and the
 * neighbour's direction gathered per off-diagonal block), the update and
 * the direction; alpha and beta are one-group reductions (overhead). */
static const eddy_bench_pass_cost costs[] = {
    { "deform.springs", 0, 0, EDDY_BENCH_VISIT_LIST, 0, 40, 0, 0, 184, EDDY_BENCH_PER_ELEMENT, false },
    { "deform.assemble", 170, 0, EDDY_BENCH_VISIT_NEIGHBOURS, 0, 30, 60, 0, 56, EDDY_BENCH_PER_ELEMENT, false },
    { "deform.cg_begin", 48, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 6, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "deform.cg_matvec", 100, 0, EDDY_BENCH_VISIT_NEIGHBOURS, 16, 18, 15, 0, 36, EDDY_BENCH_PER_ELEMENT, false },
    { "deform.cg_update", 176, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 30, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "deform.cg_direction", 48, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 6, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "deform.implicit_end", 64, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 10, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
    { "deform.forces", 100, 0, EDDY_BENCH_VISIT_NEIGHBOURS, 16, 20, 20, 0, 32, EDDY_BENCH_PER_ELEMENT, false },
    { "deform.explicit", 64, 0, EDDY_BENCH_VISIT_NONE, 0, 0, 20, 0, 0, EDDY_BENCH_PER_ELEMENT, false },
};

const eddy_bench_module *eddy_deform_bench_module(void)
{
    static const eddy_bench_module m = { .module = eddy_deform_module, EDDY_BENCH_COSTS(costs) };
    return &m;
}
