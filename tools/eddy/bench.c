/* eddy bench: GPU building blocks and modules' steps timed on the device
 * against a native C implementation of the same algorithm, in one process,
 * one JSON object per case on stdout. Each case also checks that the
 * device's result equals the C result (a benchmark of a wrong answer is
 * worthless). The core's prims are timed here; the modules' cases, and the
 * costs of their passes, come from the modules (eddy/eddy_bench.h). */
#include "bench_checkpoint.h"
#include "bench.h"
#include "bench_model.h"
#include "paths.h"

#include "eddy/eddy_bench.h"
#include "eddy/eddy_prims.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t density_spv[] =
#include "poly6_density.spv.inc"
    ;

static uint32_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* ------------------------------------------------------------------ CPU references */

static void cpu_scan(const uint32_t *in, uint32_t *out, uint32_t n)
{
    uint32_t run = 0;
    for (uint32_t i = 0; i < n; i++) {
        out[i] = run;
        run += in[i];
    }
}

/* Stable LSD radix sort with 4-bit digits and an even number of passes, as on the device. */
static void cpu_sort(uint32_t *k, uint32_t *v, uint32_t n, uint32_t bits, uint32_t *tk, uint32_t *tv)
{
    uint32_t passes = (bits + 3) / 4;
    passes += passes & 1;
    uint32_t *sk = k, *sv = v, *dk = tk, *dv = tv;
    for (uint32_t p = 0; p < passes; p++) {
        uint32_t count[17] = { 0 }, shift = 4 * p;
        for (uint32_t i = 0; i < n; i++)
            count[((sk[i] >> shift) & 15) + 1]++;
        for (int d = 0; d < 16; d++)
            count[d + 1] += count[d];
        for (uint32_t i = 0; i < n; i++) {
            uint32_t dst = count[(sk[i] >> shift) & 15]++;
            dk[dst] = sk[i];
            dv[dst] = sv[i];
        }
        uint32_t *t = sk;
        sk = dk, dk = t;
        t = sv, sv = dv, dv = t;
    }
}

typedef struct cpu_grid {
    float origin[3], inv_cell;
    int dims[3];
    uint32_t cells, key_bits;
    uint32_t *key, *index, *tk, *tv, *start, *end;
} cpu_grid;

static uint32_t cpu_cell(const cpu_grid *g, const float *p)
{
    int c[3];
    for (int a = 0; a < 3; a++) {
        int x = (int)floorf((p[a] - g->origin[a]) * g->inv_cell);
        c[a] = x < 0 ? 0 : x >= g->dims[a] ? g->dims[a] - 1 : x;
    }
    return (uint32_t)c[0] + (uint32_t)g->dims[0] * ((uint32_t)c[1] + (uint32_t)g->dims[1] * (uint32_t)c[2]);
}

/* Grid build and gather of positions and velocities, as on the device. */
static void cpu_grid_build(cpu_grid *g, const float *pos, const float *vel, uint32_t n,
                           float *spos, float *svel)
{
    for (uint32_t i = 0; i < n; i++) {
        g->key[i] = cpu_cell(g, pos + 4 * i);
        g->index[i] = i;
    }
    cpu_sort(g->key, g->index, n, g->key_bits, g->tk, g->tv);
    memset(g->start, 0xff, (size_t)g->cells * 4);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = g->key[i];
        if (i == 0 || g->key[i - 1] != k)
            g->start[k] = i;
        if (i + 1 == n || g->key[i + 1] != k)
            g->end[k] = i + 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        memcpy(spos + 4 * i, pos + 4 * g->index[i], 16);
        if (svel)
            memcpy(svel + 4 * i, vel + 4 * g->index[i], 16);
    }
}

static void cpu_density(const cpu_grid *g, const float *spos, uint32_t n, float h, float coef,
                        float *density)
{
    float h2 = h * h;
    for (uint32_t i = 0; i < n; i++) {
        const float *p = spos + 4 * i;
        int c[3];
        for (int a = 0; a < 3; a++) {
            int x = (int)floorf((p[a] - g->origin[a]) * g->inv_cell);
            c[a] = x < 0 ? 0 : x >= g->dims[a] ? g->dims[a] - 1 : x;
        }
        float sum = 0.0f;
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int q[3] = { c[0] + dx, c[1] + dy, c[2] + dz };
                    if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= g->dims[0] ||
                        q[1] >= g->dims[1] || q[2] >= g->dims[2])
                        continue;
                    uint32_t cell = (uint32_t)q[0] + (uint32_t)g->dims[0] * ((uint32_t)q[1] + (uint32_t)g->dims[1] * (uint32_t)q[2]);
                    uint32_t s = g->start[cell];
                    if (s == 0xffffffffu)
                        continue;
                    for (uint32_t j = s; j < g->end[cell]; j++) {
                        float d0 = p[0] - spos[4 * j], d1 = p[1] - spos[4 * j + 1], d2 = p[2] - spos[4 * j + 2];
                        float r2 = d0 * d0 + d1 * d1 + d2 * d2;
                        if (r2 < h2) {
                            float w = h2 - r2;
                            sum += w * w * w;
                        }
                    }
                }
        density[i] = coef * sum;
    }
}

/* ------------------------------------------------------------------ reporting */

static void print_result(const eddy_device_info *d, const char *name, const eddy_bench_result *r,
                         const bench_device_model *model)
{
    double per_gpu = r->gpu_ms / r->iterations, per_wall = r->wall_ms / r->iterations,
           per_cpu = r->cpu_ms / r->iterations;
    const char *rate = !strcmp(r->unit, "particles") ? "particle_steps" : "elements";
    printf("{\"case\":\"%s\",\"device\":\"%s\",\"%s\":%u,\"iterations\":%u,\"gpu_ms\":%.4f,\"wall_ms\":%.4f,",
           name, d->name, r->unit, r->n, r->iterations, per_gpu, per_wall);
    if (r->no_reference)
        printf("\"cpu_ms\":null,\"%s_per_s\":%.6g,\"match\":null,", rate, r->n / (per_gpu * 1e-3));
    else
        printf("\"cpu_ms\":%.4f,\"ratio_gpu_to_cpu\":%.4f,\"ratio_wall_to_cpu\":%.4f,\"%s_per_s\":%.6g,"
               "\"cpu_%s_per_s\":%.6g,\"match\":%s,",
               per_cpu, per_gpu / per_cpu, per_wall / per_cpu, rate, r->n / (per_gpu * 1e-3), rate,
               r->n / (per_cpu * 1e-3), r->match ? "true" : "false");
    if (r->bytes && r->n)
        printf("\"bytes_per_particle\":%.1f,", (double)r->bytes / r->n);
    /* Passes of one iteration, summed by label. */
    bench_pass_measure sum[64];
    int nsum = 0;
    printf("\"passes\":{");
    for (int i = 0; i < r->pass_count; i++) {
        int dup = 0;
        for (int j = 0; j < i; j++)
            dup |= !strcmp(r->passes[j].label, r->passes[i].label);
        if (dup)
            continue;
        double ms = 0, calls = 0;
        for (int j = i; j < r->pass_count; j++)
            if (!strcmp(r->passes[j].label, r->passes[i].label)) {
                ms += r->passes[j].total_ms;
                calls += (double)r->passes[j].calls;
            }
        printf("%s\"%s\":%.4f", nsum ? "," : "", r->passes[i].label, ms / r->iterations);
        sum[nsum++] = (bench_pass_measure){ r->passes[i].label, calls / r->iterations, ms / r->iterations };
    }
    printf("}");
    if (r->has_stats)
        bench_print_profile(stdout, sum, nsum, r->n, &r->stats, model);
    printf("}\n");
    fflush(stdout);
}

/* ------------------------------------------------------------------ the core's cases */

enum { DENSITY = 1 }; /* run_particles's variant */

static int run_scan(eddy_engine *e, const eddy_bench_case *c, const eddy_bench_options *o, eddy_bench_result *r)
{
    const uint32_t n = c->n;
    uint32_t *in = malloc(4ull * n), *out = malloc(4ull * n), *ref = malloc(4ull * n);
    if (!in || !out || !ref)
        return -1;
    uint64_t s = 1;
    for (uint32_t i = 0; i < n; i++)
        in[i] = rnd(&s) & 0xffff;
    eddy_buffer bi = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 4ull * n, .label = "bench.in", .data = in });
    eddy_buffer bo = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 4ull * n, .label = "bench.out" });
    eddy_scan *scan = eddy_create_scan(e, &(eddy_scan_desc){ EDDY_SIZED(eddy_scan_desc), .max_count = n });
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = c->name, .timestamps = true });
    r->n = n;
    r->unit = "elements";
    int rc = -1;
    if (bi.id && bo.id && scan && eddy_scan_record(e, scan, g, bi, 0, bo, 0, n, false) == EDDY_OK &&
        eddy_bench_time_graph(e, g, o->iterations, r) == EDDY_OK &&
        eddy_buffer_download(e, bo, 0, 4ull * n, out) == EDDY_OK) {
        double t0 = eddy_bench_now_ms();
        for (uint32_t k = 0; k < o->iterations; k++)
            cpu_scan(in, ref, n);
        r->cpu_ms = eddy_bench_now_ms() - t0;
        r->match = !memcmp(out, ref, 4ull * n);
        rc = r->match ? 0 : 1;
    }
    eddy_destroy_graph(e, g);
    eddy_destroy_scan(e, scan);
    eddy_destroy_buffer(e, bi);
    eddy_destroy_buffer(e, bo);
    free(in), free(out), free(ref);
    return rc;
}

static int run_sort(eddy_engine *e, const eddy_bench_case *c, const eddy_bench_options *o, eddy_bench_result *r)
{
    const uint32_t n = c->n;
    uint32_t *k = malloc(4ull * n), *v = malloc(4ull * n), *ck = malloc(4ull * n), *cv = malloc(4ull * n);
    uint32_t *tk = malloc(4ull * n), *tv = malloc(4ull * n), *gk = malloc(4ull * n);
    if (!k || !v || !ck || !cv || !tk || !tv || !gk)
        return -1;
    uint64_t s = 2;
    for (uint32_t i = 0; i < n; i++)
        k[i] = rnd(&s), v[i] = i;
    eddy_buffer bk = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 4ull * n, .label = "bench.keys", .data = k });
    eddy_buffer bv = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 4ull * n, .label = "bench.values", .data = v });
    eddy_sort *sort = eddy_create_sort(e, &(eddy_sort_desc){ EDDY_SIZED(eddy_sort_desc), .max_count = n });
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = c->name, .timestamps = true });
    r->n = n;
    r->unit = "elements";
    int rc = -1;
    /* Sorting sorted data again costs the same: every pass touches every key. */
    if (bk.id && bv.id && sort && eddy_sort_record(e, sort, g, bk, bv, n, 32) == EDDY_OK &&
        eddy_bench_time_graph(e, g, o->iterations, r) == EDDY_OK &&
        eddy_buffer_download(e, bk, 0, 4ull * n, gk) == EDDY_OK) {
        double cpu = 0;
        for (uint32_t it = 0; it < o->iterations; it++) {
            memcpy(ck, k, 4ull * n);
            memcpy(cv, v, 4ull * n);
            double t0 = eddy_bench_now_ms();
            cpu_sort(ck, cv, n, 32, tk, tv);
            cpu += eddy_bench_now_ms() - t0;
        }
        r->cpu_ms = cpu;
        r->match = !memcmp(gk, ck, 4ull * n);
        rc = r->match ? 0 : 1;
    }
    eddy_destroy_graph(e, g);
    eddy_destroy_sort(e, sort);
    eddy_destroy_buffer(e, bk);
    eddy_destroy_buffer(e, bv);
    free(k), free(v), free(ck), free(cv), free(tk), free(tv), free(gk);
    return rc;
}

/* Particles in a box at rest spacing s (jittered lattice), grid cell h = 2 s. */
static void lattice(float *pos, float *vel, uint32_t n, float s, uint32_t *side_out)
{
    uint32_t side = (uint32_t)ceil(cbrt((double)n));
    uint64_t seed = 5;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = i % side, y = (i / side) % side, z = i / (side * side);
        pos[4 * i] = s * (x + 0.5f) + 0.05f * s * ((float)rnd(&seed) / 4294967296.0f - 0.5f);
        pos[4 * i + 1] = s * (y + 0.5f) + 0.05f * s * ((float)rnd(&seed) / 4294967296.0f - 0.5f);
        pos[4 * i + 2] = s * (z + 0.5f) + 0.05f * s * ((float)rnd(&seed) / 4294967296.0f - 0.5f);
        pos[4 * i + 3] = 0.5f * s;
        for (int a = 0; a < 4; a++)
            vel[4 * i + a] = a < 3 ? (float)rnd(&seed) / 4294967296.0f - 0.5f : 0.0f;
    }
    /* Shuffle so the grid build has real work (particles arrive out of cell order). */
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = rnd(&seed) % i;
        float t[4];
        memcpy(t, pos + 4 * (i - 1), 16);
        memcpy(pos + 4 * (i - 1), pos + 4 * j, 16);
        memcpy(pos + 4 * j, t, 16);
    }
    *side_out = side;
}

/* The grid build (variant 0) or the poly6 density over the built grid
 * (DENSITY) on a shuffled jittered lattice. */
static int run_particles(eddy_engine *e, const eddy_bench_case *c, const eddy_bench_options *o, eddy_bench_result *r)
{
    const uint32_t n = c->n;
    const bool density_only = c->variant == DENSITY;
    const float s = 0.01f, h = 2 * s;
    float *pos = malloc(16ull * n), *vel = malloc(16ull * n), *spos = malloc(16ull * n);
    float *svel = malloc(16ull * n), *gout = malloc(16ull * n), *cd = malloc(4ull * n);
    cpu_grid cg = { 0 };
    uint32_t side;
    if (!pos || !vel || !spos || !svel || !gout || !cd)
        return -1;
    lattice(pos, vel, n, s, &side);
    uint32_t dims = (uint32_t)ceil(side * s / h) + 1;
    cg.inv_cell = 1.0f / h;
    cg.dims[0] = cg.dims[1] = cg.dims[2] = (int)dims;
    cg.cells = dims * dims * dims;
    cg.key_bits = 1;
    while (cg.key_bits < 32 && (1u << cg.key_bits) < cg.cells)
        cg.key_bits++;
    cg.key = malloc(4ull * n), cg.index = malloc(4ull * n), cg.tk = malloc(4ull * n), cg.tv = malloc(4ull * n);
    cg.start = malloc(4ull * cg.cells), cg.end = malloc(4ull * cg.cells);
    if (!cg.key || !cg.index || !cg.tk || !cg.tv || !cg.start || !cg.end)
        return -1;

    eddy_buffer bp = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 16ull * n, .label = "bench.position", .data = pos });
    eddy_buffer bv = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 16ull * n, .label = "bench.velocity", .data = vel });
    eddy_buffer bsp = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 16ull * n, .label = "bench.position.sorted" });
    eddy_buffer bsv = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 16ull * n, .label = "bench.velocity.sorted" });
    eddy_buffer bd = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 4ull * n, .label = "bench.density" });
    eddy_grid *grid = eddy_create_grid(e, &(eddy_grid_desc){ EDDY_SIZED(eddy_grid_desc), .label = "bench.grid", .cell = h, .dims = { dims, dims, dims }, .max_count = n });
    eddy_kernel kd = eddy_create_kernel(e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "poly6_density", EDDY_SPIRV(density_spv) });
    const float mass = 1000.0f * s * s * s;
    const float coef = (float)(mass * 315.0 / (64.0 * M_PI * pow(h, 9)));
    struct { float oc[4]; int32_t dims[4]; float h, coef; uint32_t count; } push = {
        { 0, 0, 0, 1.0f / h }, { (int)dims, (int)dims, (int)dims, 0 }, h, coef, n };
    int rc = -1;
    eddy_graph build = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "grid", .timestamps = true });
    eddy_graph dens = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "density", .timestamps = true });
    r->n = n;
    r->unit = "particles";
    if (!bp.id || !bv.id || !bsp.id || !bsv.id || !bd.id || !grid || !kd.id)
        goto done;
    eddy_grid_buffers gb = eddy_grid_get_buffers(grid);
    if (eddy_grid_record_build(e, grid, build, bp, n) != EDDY_OK ||
        eddy_grid_record_gather(e, grid, build, bp, bsp, 4, n) != EDDY_OK ||
        eddy_grid_record_gather(e, grid, build, bv, bsv, 4, n) != EDDY_OK ||
        eddy_graph_add_pass(e, dens, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .label = "poly6_density", .kernel = kd, .threads = n,
            .bindings = { { bsp, EDDY_READ }, { gb.cell_start, EDDY_READ }, { gb.cell_end, EDDY_READ }, { bd, EDDY_WRITE } },
            .push = &push, .push_size = sizeof push }) < 0)
        goto done;
    if (density_only) {
        if (eddy_graph_run(e, build, 1) != EDDY_OK || eddy_bench_time_graph(e, dens, o->iterations, r) != EDDY_OK ||
            eddy_buffer_download(e, bd, 0, 4ull * n, gout) != EDDY_OK)
            goto done;
        cpu_grid_build(&cg, pos, vel, n, spos, svel);
        double t0 = eddy_bench_now_ms();
        for (uint32_t k = 0; k < o->iterations; k++)
            cpu_density(&cg, spos, n, h, coef, cd);
        r->cpu_ms = eddy_bench_now_ms() - t0;
        /* Same sums in the same order; the device may fuse multiply-adds. */
        double worst = 0;
        for (uint32_t i = 0; i < n; i++)
            worst = fmax(worst, fabs((double)gout[i] - cd[i]) / fabs((double)cd[i]));
        r->match = worst < 1e-4;
    } else {
        if (eddy_bench_time_graph(e, build, o->iterations, r) != EDDY_OK ||
            eddy_buffer_download(e, bsv, 0, 16ull * n, gout) != EDDY_OK)
            goto done;
        double t0 = eddy_bench_now_ms();
        for (uint32_t k = 0; k < o->iterations; k++)
            cpu_grid_build(&cg, pos, vel, n, spos, svel);
        r->cpu_ms = eddy_bench_now_ms() - t0;
        r->match = !memcmp(gout, svel, 16ull * n);
    }
    rc = r->match ? 0 : 1;
done:
    eddy_destroy_graph(e, build);
    eddy_destroy_graph(e, dens);
    eddy_destroy_kernel(e, kd);
    eddy_destroy_grid(e, grid);
    eddy_destroy_buffer(e, bp);
    eddy_destroy_buffer(e, bv);
    eddy_destroy_buffer(e, bsp);
    eddy_destroy_buffer(e, bsv);
    eddy_destroy_buffer(e, bd);
    free(pos), free(vel), free(spos), free(svel), free(gout), free(cd);
    free(cg.key), free(cg.index), free(cg.tk), free(cg.tv), free(cg.start), free(cg.end);
    return rc;
}

/* ------------------------------------------------------------------ running */


static const eddy_bench_case core_cases[] = {
    { "scan.1M", run_scan, 1u << 20, 0, 0, NULL },
    { "scan.16M", run_scan, 1u << 24, 0, 0, NULL },
    { "sort.1M", run_sort, 1u << 20, 0, 0, NULL },
    { "sort.4M", run_sort, 1u << 22, 0, 0, NULL },
    { "grid.64k", run_particles, 1u << 16, 0, 0, NULL },
    { "grid.256k", run_particles, 1u << 18, 0, 0, NULL },
    { "grid.1M", run_particles, 1u << 20, 0, 0, NULL },
    { "density.16k", run_particles, 1u << 14, DENSITY, 0, NULL },
    { "density.65k", run_particles, 1u << 16, DENSITY, 0, NULL },
    { "density.262k", run_particles, 1u << 18, DENSITY, 0, NULL },
    { "checkpoint.pbf50k", eddy_bench_checkpoint_run, 50653, 0, 0,
      "a checkpoint of pbf.dam50k's scene: bytes a particle, save and restore time" },
};
enum { CORE_CASES = sizeof core_cases / sizeof core_cases[0] };

/* Every case in the order they run: the core's, then the modules'. NULL
 * past the last. */
static const eddy_bench_case *case_at(uint32_t i)
{
    return i < CORE_CASES ? &core_cases[i] : eddy_builtin_bench_case(i - CORE_CASES);
}

/* The group of a case: its name up to the dot. */
static size_t group_len(const char *name)
{
    const char *dot = strchr(name, '.');
    return dot ? (size_t)(dot - name) : strlen(name);
}

/* Whether case i is the first of its group (groups list in case order). */
static bool first_of_group(uint32_t i)
{
    const eddy_bench_case *c = case_at(i);
    size_t n = group_len(c->name);
    for (uint32_t j = 0; j < i; j++) {
        const char *other = case_at(j)->name;
        if (group_len(other) == n && !strncmp(other, c->name, n))
            return false;
    }
    return true;
}

/* `eddy bench NAME` or `eddy bench GROUP` (a name without a dot). */
static bool wanted(const char *name, int argc, char **argv)
{
    bool want = argc == 0;
    for (int a = 0; a < argc; a++)
        want |= !strcmp(argv[a], name) ||
                (!strchr(argv[a], '.') && !strncmp(argv[a], name, strlen(argv[a])) && name[strlen(argv[a])] == '.');
    return want;
}

int eddy_bench_main(eddy_engine *e, int argc, char **argv, const bench_options *o)
{
    const eddy_bench_options co = { .iterations = o->iterations ? o->iterations : 5, .particles = o->particles,
                                    .no_reference = o->no_reference, .no_lists = o->no_lists,
                                    .data_dir = eddy_tool_data_dir() };
    int failed = 0, ran = 0;
    const eddy_bench_case *c;
    for (uint32_t i = 0; (c = case_at(i)); i++) {
        if (!wanted(c->name, argc, argv))
            continue;
        ran++;
        eddy_bench_result r = { 0 };
        int rc = c->run(e, c, &co, &r);
        if (rc >= 0 && !r.printed)
            print_result(eddy_engine_device(e), c->name, &r, o->model);
        if (rc) {
            fprintf(stderr, "eddy error [run.stopped]: bench case %s failed or its result differs from the "
                            "C reference\n", c->name);
            failed++;
        }
    }
    if (!ran) {
        fprintf(stderr, "eddy error [cli.usage]: bench: no case matches; cases:");
        for (uint32_t i = 0; (c = case_at(i)); i++)
            fprintf(stderr, " %s", c->name);
        fprintf(stderr, " (or a group:");
        for (uint32_t i = 0; (c = case_at(i)); i++)
            if (first_of_group(i))
                fprintf(stderr, "%s %.*s", i ? "," : "", (int)group_len(c->name), c->name);
        fprintf(stderr, ")\n");
        return 2;
    }
    return failed ? 1 : 0;
}

/* ------------------------------------------------------------------ usage */

/* The usage's text column: words wrapped between these columns. */
enum { USAGE_INDENT = 36, USAGE_WIDTH = 88 };

typedef struct wrap {
    FILE *f;
    size_t col;
} wrap;

static void put_word(wrap *w, const char *word, size_t len)
{
    if (w->col > USAGE_INDENT && w->col + 1 + len > USAGE_WIDTH) {
        fputc('\n', w->f);
        w->col = 0;
    }
    if (w->col == 0) {
        fprintf(w->f, "%*s", USAGE_INDENT, "");
        w->col = USAGE_INDENT;
    } else if (w->col > USAGE_INDENT) {
        fputc(' ', w->f);
        w->col++;
    }
    fwrite(word, 1, len, w->f);
    w->col += len;
}

static void put_text(wrap *w, const char *text)
{
    while (*text) {
        size_t len = strcspn(text, " ");
        if (len)
            put_word(w, text, len);
        text += len + (text[len] == ' ');
    }
}

/* "the a, b and c cases": the groups of the cases with `flag`. */
static void put_groups(wrap *w, uint32_t flag)
{
    uint32_t total = 0, k = 0;
    const eddy_bench_case *c;
    for (uint32_t i = 0; (c = case_at(i)); i++)
        total += first_of_group(i) && (c->flags & flag);
    put_text(w, "the");
    for (uint32_t i = 0; (c = case_at(i)); i++)
        if (first_of_group(i) && (c->flags & flag)) {
            char word[64];
            k++;
            snprintf(word, sizeof word, "%.*s%s", (int)group_len(c->name), c->name,
                     k + 1 < total ? "," : "");
            put_text(w, word);
            if (k + 1 == total)
                put_text(w, "and");
        }
    put_text(w, "cases");
}

void eddy_bench_usage(FILE *f)
{
    wrap w = { f, 0 };
    fputs("  eddy bench [CASE...] [--iterations N] [--device X] [--particles N] [--no-reference]\n"
          "             [--no-lists] [--model DEVICE.json]\n", f);
    put_text(&w, "time the core's GPU building blocks and the modules' steps against a C reference of the "
                 "same algorithm (JSON lines); cases:");
    const eddy_bench_case *c;
    char text[256];
    for (uint32_t i = 0; (c = case_at(i)); i++) {
        bool last = !case_at(i + 1);
        snprintf(text, sizeof text, "%s%s%s%s%s", c->name, c->note ? " (" : "", c->note ? c->note : "",
                 c->note ? ")" : "", last ? "," : "");
        put_text(&w, text);
    }
    size_t len = (size_t)snprintf(text, sizeof text, "or a group (");
    for (uint32_t i = 0; (c = case_at(i)) && len < sizeof text; i++)
        if (first_of_group(i))
            len += (size_t)snprintf(text + len, sizeof text - len, "%s%.*s", i ? ", " : "", (int)group_len(c->name),
                                    c->name);
    if (len < sizeof text)
        snprintf(text + len, sizeof text - len, "); default all.");
    put_text(&w, text);
    put_text(&w, "--particles N:");
    put_groups(&w, EDDY_BENCH_PARTICLES);
    put_text(&w, "at about N particles; --no-reference: skip the C references (not the frame a profile counts); "
                 "--no-lists:");
    put_groups(&w, EDDY_BENCH_LISTS);
    put_text(&w, "without neighbour lists (the per-device rule's other side); --model DEVICE.json: each pass's "
                 "predicted time on that device (docs/benchmarks.md); the cases with a pass profile (the modules' "
                 "steps and frames) print each pass's bytes, visits and flops per element (\"profile\"). "
                 "dist.sph, dist.pbf (or dist): the distributed step of a 36,000-particle dam break over the ranks of "
                 "mpirun -np N eddy bench dist, against rank 0 alone in the same run (docs/distributed.md)");
    fputc('\n', f);
}
