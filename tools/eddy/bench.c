/* eddy bench: the shared building blocks timed on the device against a
 * native C implementation of the same algorithm, in one process, one JSON
 * object per case on stdout. Each case also checks that the device's result
 * equals the C result (a benchmark of a wrong answer is worthless). */
#include "bench.h"
#include "bench_model.h"
#include "paths.h"

#include "eddy/eddy_prims.h"
#include "sph/sph.h"
#include "pbf/pbf.h"
#include "rigid/rigid.h"
#include "deform/deform.h"
#include "volume/volume.h"
#include "eddy/eddy_tetmesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const uint32_t density_spv[] =
#include "poly6_density.spv.inc"
    ;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

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

typedef struct result {
    const char *name;
    uint32_t n;
    uint32_t iterations;
    double gpu_ms, wall_ms, cpu_ms;
    bool match;
    const char *unit; /* what n counts */
    eddy_pass_time passes[64];
    int pass_count;
    uint64_t bytes; /* device buffers the case's scene created (0: not measured) */
    bool no_reference; /* the C reference did not run (--no-reference): no cpu figures, no match */
    bool has_stats;    /* ns holds the final particles' neighbour counts: print the pass profile */
    bench_neighbour_stats ns;
    const bench_device_model *model; /* --model: the device the time model predicts for */
} result;

static void print_result(const eddy_device_info *d, const result *r)
{
    double per_gpu = r->gpu_ms / r->iterations, per_wall = r->wall_ms / r->iterations,
           per_cpu = r->cpu_ms / r->iterations;
    const char *rate = !strcmp(r->unit, "particles") ? "particle_steps" : "elements";
    printf("{\"case\":\"%s\",\"device\":\"%s\",\"%s\":%u,\"iterations\":%u,\"gpu_ms\":%.4f,\"wall_ms\":%.4f,",
           r->name, d->name, r->unit, r->n, r->iterations, per_gpu, per_wall);
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
        bench_print_profile(stdout, sum, nsum, r->n, &r->ns, r->model);
    printf("}\n");
    fflush(stdout);
}

/* Runs g once to warm up (pipelines compile at first use on some drivers),
 * then `iterations` times with timestamps; fills the timing fields of r. */
static eddy_result time_graph(eddy_engine *e, eddy_graph g, uint32_t iterations, result *r)
{
    eddy_pass_time before[64];
    eddy_result res = eddy_graph_run(e, g, 1);
    if (res != EDDY_OK)
        return res;
    int n = eddy_graph_profile(e, g, before, 64);
    double t0 = now_ms();
    res = eddy_graph_run(e, g, iterations);
    r->wall_ms = now_ms() - t0;
    r->pass_count = eddy_graph_profile(e, g, r->passes, 64);
    if (r->pass_count > 64)
        r->pass_count = 64;
    r->gpu_ms = 0;
    for (int i = 0; i < r->pass_count && i < n; i++) {
        r->passes[i].total_ms -= before[i].total_ms;
        r->passes[i].calls -= before[i].calls;
        r->gpu_ms += r->passes[i].total_ms;
    }
    r->iterations = iterations;
    return res;
}

/* ------------------------------------------------------------------ cases */

typedef struct bench_ctx {
    eddy_engine *e;
    uint32_t iterations;
    const bench_options *o;
} bench_ctx;

static int bench_scan(bench_ctx *c, const char *name, uint32_t n)
{
    eddy_engine *e = c->e;
    uint32_t *in = malloc(4ull * n), *out = malloc(4ull * n), *ref = malloc(4ull * n);
    if (!in || !out || !ref)
        return 1;
    uint64_t s = 1;
    for (uint32_t i = 0; i < n; i++)
        in[i] = rnd(&s) & 0xffff;
    eddy_buffer bi = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 4ull * n, .label = "bench.in", .data = in });
    eddy_buffer bo = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 4ull * n, .label = "bench.out" });
    eddy_scan *scan = eddy_create_scan(e, &(eddy_scan_desc){ EDDY_SIZED(eddy_scan_desc), .max_count = n });
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = name, .timestamps = true });
    result r = { .name = name, .n = n, .unit = "elements" };
    int rc = 1;
    if (bi.id && bo.id && scan && eddy_scan_record(e, scan, g, bi, 0, bo, 0, n, false) == EDDY_OK &&
        time_graph(e, g, c->iterations, &r) == EDDY_OK &&
        eddy_buffer_download(e, bo, 0, 4ull * n, out) == EDDY_OK) {
        double t0 = now_ms();
        for (uint32_t k = 0; k < c->iterations; k++)
            cpu_scan(in, ref, n);
        r.cpu_ms = now_ms() - t0;
        r.match = !memcmp(out, ref, 4ull * n);
        print_result(eddy_engine_device(e), &r);
        rc = r.match ? 0 : 1;
    }
    eddy_destroy_graph(e, g);
    eddy_destroy_scan(e, scan);
    eddy_destroy_buffer(e, bi);
    eddy_destroy_buffer(e, bo);
    free(in), free(out), free(ref);
    return rc;
}

static int bench_sort(bench_ctx *c, const char *name, uint32_t n)
{
    eddy_engine *e = c->e;
    uint32_t *k = malloc(4ull * n), *v = malloc(4ull * n), *ck = malloc(4ull * n), *cv = malloc(4ull * n);
    uint32_t *tk = malloc(4ull * n), *tv = malloc(4ull * n), *gk = malloc(4ull * n);
    if (!k || !v || !ck || !cv || !tk || !tv || !gk)
        return 1;
    uint64_t s = 2;
    for (uint32_t i = 0; i < n; i++)
        k[i] = rnd(&s), v[i] = i;
    eddy_buffer bk = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 4ull * n, .label = "bench.keys", .data = k });
    eddy_buffer bv = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 4ull * n, .label = "bench.values", .data = v });
    eddy_sort *sort = eddy_create_sort(e, &(eddy_sort_desc){ EDDY_SIZED(eddy_sort_desc), .max_count = n });
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = name, .timestamps = true });
    result r = { .name = name, .n = n, .unit = "elements" };
    int rc = 1;
    /* Sorting sorted data again costs the same: every pass touches every key. */
    if (bk.id && bv.id && sort && eddy_sort_record(e, sort, g, bk, bv, n, 32) == EDDY_OK &&
        time_graph(e, g, c->iterations, &r) == EDDY_OK &&
        eddy_buffer_download(e, bk, 0, 4ull * n, gk) == EDDY_OK) {
        double cpu = 0;
        for (uint32_t it = 0; it < c->iterations; it++) {
            memcpy(ck, k, 4ull * n);
            memcpy(cv, v, 4ull * n);
            double t0 = now_ms();
            cpu_sort(ck, cv, n, 32, tk, tv);
            cpu += now_ms() - t0;
        }
        r.cpu_ms = cpu;
        r.match = !memcmp(gk, ck, 4ull * n);
        print_result(eddy_engine_device(e), &r);
        rc = r.match ? 0 : 1;
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

static int bench_particles(bench_ctx *c, const char *name, uint32_t n, bool density_only)
{
    eddy_engine *e = c->e;
    const float s = 0.01f, h = 2 * s;
    float *pos = malloc(16ull * n), *vel = malloc(16ull * n), *spos = malloc(16ull * n);
    float *svel = malloc(16ull * n), *gout = malloc(16ull * n), *cd = malloc(4ull * n);
    cpu_grid cg = { 0 };
    uint32_t side;
    if (!pos || !vel || !spos || !svel || !gout || !cd)
        return 1;
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
        return 1;

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
    int rc = 1;
    eddy_graph build = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "grid", .timestamps = true });
    eddy_graph dens = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "density", .timestamps = true });
    result r = { .name = name, .n = n, .unit = "particles" };
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
        if (eddy_graph_run(e, build, 1) != EDDY_OK || time_graph(e, dens, c->iterations, &r) != EDDY_OK ||
            eddy_buffer_download(e, bd, 0, 4ull * n, gout) != EDDY_OK)
            goto done;
        cpu_grid_build(&cg, pos, vel, n, spos, svel);
        double t0 = now_ms();
        for (uint32_t k = 0; k < c->iterations; k++)
            cpu_density(&cg, spos, n, h, coef, cd);
        r.cpu_ms = now_ms() - t0;
        /* Same sums in the same order; the device may fuse multiply-adds. */
        double worst = 0;
        for (uint32_t i = 0; i < n; i++)
            worst = fmax(worst, fabs((double)gout[i] - cd[i]) / fabs((double)cd[i]));
        r.match = worst < 1e-4;
    } else {
        if (time_graph(e, build, c->iterations, &r) != EDDY_OK ||
            eddy_buffer_download(e, bsv, 0, 16ull * n, gout) != EDDY_OK)
            goto done;
        double t0 = now_ms();
        for (uint32_t k = 0; k < c->iterations; k++)
            cpu_grid_build(&cg, pos, vel, n, spos, svel);
        r.cpu_ms = now_ms() - t0;
        r.match = !memcmp(gout, svel, 16ull * n);
    }
    print_result(eddy_engine_device(e), &r);
    rc = r.match ? 0 : 1;
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

/* A dam break with a fluid module: a column nx x 2nx x nx at spacing 0.01 m
 * (h = 0.02 m) against the wall of a tank four columns long. The device
 * runs the module's full step; the C step is the module's reference with the
 * same equations and grid. PBF uses 4 iterations at dt = 4 ms, except the
 * pbf.dam50k case (a 37^3 cube, 3 iterations at dt = 1 ms: the settings of
 * the CPU libraries' 50,653-particle figure);
 * SPH uses dt = 0.4 ms, IISPH (sph solver 1, default tolerance, normalised
 * density: the raw sum reads the fill 1% compressed) dt = 2 ms. */
typedef enum fluid { FLUID_SPH, FLUID_PBF, FLUID_IISPH } fluid;

static int bench_fluid(bench_ctx *c, const char *name, uint32_t n, fluid kind, uint32_t iterations,
                       double dt, bool cube)
{
    eddy_engine *e = c->e;
    if (c->o->particles)
        n = c->o->particles;
    /* A column twice as high as wide, or a cube: the dam break of the CPU
     * libraries' figure (50,653 = 37^3 particles). */
    uint32_t nx = (uint32_t)round(cbrt(cube ? (double)n : n / 2.0));
    const double s = 0.01;
    double cx = nx * s, cy = (cube ? 1 : 2) * nx * s;
    char json[2048], extra[128];
    if (kind == FLUID_SPH)
        snprintf(extra, sizeof extra, "\"stiffness\": 400, \"viscosity\": 10");
    else if (kind == FLUID_IISPH)
        snprintf(extra, sizeof extra, "\"stiffness\": 400, \"viscosity\": 10, \"solver\": 1, \"normalise_density\": true");
    else
        snprintf(extra, sizeof extra, "\"iterations\": %u", iterations);
    if (c->o->no_lists)
        snprintf(extra + strlen(extra), sizeof extra - strlen(extra), ", \"neighbour_list\": 0");
    snprintf(json, sizeof json,
             "{ \"dt\": %g, \"duration\": 1, \"box\": { \"min\": [0, 0, 0], \"max\": [%g, %g, %g] },"
             "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": %g,"
             "      \"fill\": { \"shape\": \"box\", \"min\": [0, 0, 0], \"max\": [%g, %g, %g] } } ],"
             "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"%s\", \"set\": \"water\","
             "      \"params\": { \"h\": 0.02, %s } } ] }",
             dt, 4 * cx, 1.5 * cy, cx, s, cx, cy, cx, kind == FLUID_PBF ? "pbf" : "sph", extra);
    uint64_t bytes0 = eddy_engine_get_counters(e).buffer_bytes;
    eddy_scene *sc = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = name, .json = json, .profile = true, .no_output = true });
    if (!sc)
        return 1;
    eddy_particles p = eddy_find_particles(e, "water");
    uint32_t count = eddy_particles_count(e, p);
    float *pos = malloc(16ull * count), *vel = malloc(16ull * count), *mass = malloc(4ull * count);
    float *rho = malloc(4ull * count), *gpos = malloc(16ull * count), *press = calloc(count + 1ull, 4);
    int rc = 1;
    result r = { .name = name, .n = count, .unit = "particles",
                 .bytes = eddy_engine_get_counters(e).buffer_bytes - bytes0, .model = c->o->model,
                 .no_reference = c->o->no_reference };
    if (!pos || !vel || !mass || !rho || !gpos || !press ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "position"), 0, 16ull * count, pos) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "velocity"), 0, 16ull * count, vel) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "mass"), 0, 4ull * count, mass) != EDDY_OK ||
        time_graph(e, eddy_scene_graph(sc), c->iterations, &r) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "position"), 0, 16ull * count, gpos) != EDDY_OK)
        goto done;
    const eddy_module_desc *md = kind == FLUID_PBF ? eddy_pbf_module() : eddy_sph_module();
    /* The neighbour counts of the result, for the pass profile: pbf's lists
     * reach h (1 + neighbour_skin), sph's hold the neighbours within h. */
    double skin = 0;
    for (uint32_t i = 0; kind == FLUID_PBF && i < md->param_count; i++)
        if (!strcmp(md->params[i].name, "neighbour_skin"))
            skin = md->params[i].def[0];
    r.has_stats = bench_count_neighbours(gpos, count, 0.02f, (float)(0.02 * (1 + skin)), &r.ns);
    r.ns.scans = c->o->no_lists;
    const float lo[3] = { 0, 0, 0 }, hi[3] = { (float)(4 * cx), (float)(1.5 * cy), (float)cx };
    bench_count_ghosts(gpos, count, 0.02f, (float)s, lo, hi, &r.ns); /* wall spacing: the fill's */
    if (c->o->no_reference) {
        print_result(eddy_engine_device(e), &r);
        rc = 0;
        goto done;
    }
    eddy_param_value values[64]; /* room for any module's parameters (the scene loader's limit) */
    for (uint32_t i = 0; i < md->param_count && i < 64; i++) {
        memcpy(values[i].v, md->params[i].def, sizeof values[i].v);
        const char *pn = md->params[i].name;
        if (!strcmp(pn, "h"))
            values[i].v[0] = 0.02;
        else if (kind != FLUID_PBF && !strcmp(pn, "stiffness"))
            values[i].v[0] = 400;
        else if (kind != FLUID_PBF && !strcmp(pn, "viscosity"))
            values[i].v[0] = 10;
        else if (kind == FLUID_IISPH && (!strcmp(pn, "solver") || !strcmp(pn, "normalise_density")))
            values[i].v[0] = 1;
        else if (kind == FLUID_PBF && !strcmp(pn, "iterations"))
            values[i].v[0] = iterations;
    }
    struct eddy_sph_params sp;
    struct eddy_pbf_params pp;
    if (kind != FLUID_PBF)
        eddy_sph_params_from_values(&sp, values, lo, hi, dt, count, 0);
    else
        eddy_pbf_params_from_values(&pp, values, lo, hi, dt, count, 0);
    /* The device ran 1 + iterations steps (time_graph warms up with one);
     * the C step does the same and times the same ones. */
    double t0 = 0;
    uint64_t solves = 0;
    for (uint32_t k = 0; k <= c->iterations; k++) {
        if (k == 1)
            t0 = now_ms();
        uint32_t it = 0;
        if (kind == FLUID_SPH)
            eddy_sph_step_cpu(&sp, NULL, count, pos, vel, mass, rho, k);
        else if (kind == FLUID_IISPH)
            eddy_sph_step_iisph_cpu(&sp, NULL, count, pos, vel, mass, rho, press, k, &it, NULL);
        else
            eddy_pbf_step_cpu(&pp, NULL, iterations, count, pos, vel, mass, rho, NULL);
        solves += k ? it : 0;
    }
    r.cpu_ms = now_ms() - t0;
    /* IISPH: the iterations a step its twin did (the same solve, the same
     * tolerance), which the model charges in full; the device records
     * max_iterations and dispatches the rest empty. */
    if (kind == FLUID_IISPH)
        r.ns.solver_iterations = (double)solves / c->iterations;
    double worst = 0;
    for (uint32_t i = 0; i < 4 * count; i++)
        worst = fmax(worst, fabs((double)gpos[i] - pos[i]));
    r.match = worst <= 1e-4 * 4 * cx; /* the step tests' tolerance */
    print_result(eddy_engine_device(e), &r);
    rc = r.match ? 0 : 1;
done:
    free(pos), free(vel), free(mass), free(rho), free(gpos), free(press);
    eddy_destroy_scene(sc);
    return rc;
}

static int bench_sph(bench_ctx *c, const char *name, uint32_t n, bool iisph)
{
    return iisph ? bench_fluid(c, name, n, FLUID_IISPH, 0, 2e-3, false) : bench_fluid(c, name, n, FLUID_SPH, 0, 4e-4, false);
}

static int bench_pbf(bench_ctx *c, const char *name, uint32_t n, bool dam50k)
{
    return bench_fluid(c, name, n, FLUID_PBF, dam50k ? 3 : 4, dam50k ? 1e-3 : 4e-3, dam50k);
}

/* Rigid bodies: 16,384 chess pawns of 4 particles (the chapter's 65,536),
 * packed in a box and falling; granular: 16,384 grains (friction 0.5) in a
 * column collapsing. The device and the C step run the same steps from the
 * same start; body centres (grains) must agree within 1e-4 of the box. */
static int bench_rigid(bench_ctx *c, const char *name, uint32_t n, bool granular)
{
    (void)n; /* the scenes fix it: 16,384 pawns x 4, 16,384 grains (--particles scales the grains' box) */
    eddy_engine *e = c->e;
    const char *data = eddy_tool_data_dir();
    char json[4096];
    const double d = 0.02, dt = 3e-4;
    double f = granular && c->o->particles ? cbrt(c->o->particles / 16384.0) : 1;
    const double hd[3] = { granular ? 1.6 * f : 1.4, granular ? fmax(1.0, f) : 1.6, granular ? 1.6 * f : 1.4 };
    const float hi[3] = { (float)hd[0], (float)hd[1], (float)hd[2] };
    if (granular)
        snprintf(json, sizeof json,
                 "{ \"dt\": %g, \"duration\": 1, \"box\": { \"min\": [0, 0, 0], \"max\": [%.9g, %.9g, %.9g] },"
                 "  \"particle_sets\": [ { \"name\": \"b\", \"spacing\": %g, \"mass\": 0.0208,"
                 "      \"fill\": { \"shape\": \"box\", \"min\": [%.9g, 0, %.9g], \"max\": [%.9g, %.9g, %.9g], \"jitter\": 0.2 } } ],"
                 "  \"systems\": [ { \"name\": \"r\", \"module\": \"rigid\", \"set\": \"b\","
                 "      \"params\": { \"granular\": true, \"stiffness\": 2000, \"friction\": 0.5 } } ] }", dt,
                 hd[0], hd[1], hd[2], d, 0.48 * f, 0.48 * f, 1.12 * f, 0.32 * f, 1.12 * f);
    else
        snprintf(json, sizeof json,
                 "{ \"dt\": %g, \"duration\": 1, \"box\": { \"min\": [0, 0, 0], \"max\": [1.4, 1.6, 1.4] },"
                 "  \"particle_sets\": [ { \"name\": \"b\", \"spacing\": %g, \"bodies\": true,"
                 "      \"fill\": { \"shape\": \"mesh\", \"file\": \"%s/meshes/pawn_revolved.obj\", \"scale\": %g,"
                 "        \"rotation\": [1, 0, 0, -90], \"center\": [0.06, 0.05, 0.06], \"jitter\": 0.1,"
                 "        \"copies\": { \"count\": [32, 16, 32], \"step\": [0.042, 0.05, 0.042] } } } ],"
                 "  \"systems\": [ { \"name\": \"r\", \"module\": \"rigid\", \"set\": \"b\","
                 "      \"params\": { \"stiffness\": 2000, \"friction\": 0.5 } } ] }", dt, d, data, d);
    uint64_t bytes0 = eddy_engine_get_counters(e).buffer_bytes;
    eddy_scene *sc = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = name, .json = json, .profile = true, .no_output = true });
    if (!sc)
        return 1;
    eddy_particles p = eddy_find_particles(e, "b");
    uint32_t count = eddy_particles_count(e, p);
    float *pos = malloc(16ull * count), *vel = malloc(16ull * count), *mass = malloc(4ull * count);
    float *gpos = malloc(16ull * count), *hxi = calloc(16ull * EDDY_RIGID_SLOTS * count, 1);
    uint32_t *phase = malloc(4ull * count), *hid = malloc(4ull * EDDY_RIGID_SLOTS * count), *off = NULL;
    struct eddy_rigid_body *bodies = NULL;
    float *rest = NULL;
    int rc = 1;
    result r = { .name = name, .n = count, .unit = "particles", .model = c->o->model,
                 .bytes = eddy_engine_get_counters(e).buffer_bytes - bytes0, .no_reference = c->o->no_reference };
    char err[256];
    int64_t B = 0;
    if (!pos || !vel || !mass || !gpos || !hxi || !phase || !hid ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "position"), 0, 16ull * count, pos) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "velocity"), 0, 16ull * count, vel) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "mass"), 0, 4ull * count, mass) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "phase"), 0, 4ull * count, phase) != EDDY_OK ||
        (!granular && (B = eddy_rigid_build_bodies(count, pos, vel, mass, phase, d, &bodies, &rest, &off, err, sizeof err)) < 0) ||
        time_graph(e, eddy_scene_graph(sc), c->iterations, &r) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "position"), 0, 16ull * count, gpos) != EDDY_OK)
        goto done;
    /* Contacts reach one diameter: the scan's candidates and the pairs in touch. */
    r.has_stats = bench_count_neighbours(gpos, count, (float)d, (float)d, &r.ns);
    if (c->o->no_reference) {
        print_result(eddy_engine_device(e), &r);
        rc = 0;
        goto done;
    }
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
    for (uint32_t k = 0; k <= c->iterations; k++) {
        if (k == 1)
            t0 = now_ms();
        eddy_rigid_step_cpu(&rp, count, pos, vel, mass, phase, rest, bodies, off, hid, hxi, NULL);
    }
    r.cpu_ms = now_ms() - t0;
    double worst = 0;
    for (uint32_t i = 0; i < 4 * count; i++)
        if (i % 4 != 3)
            worst = fmax(worst, fabs((double)gpos[i] - pos[i]));
    r.match = worst <= 1e-4 * hi[1];
    if (!r.match)
        fprintf(stderr, "eddy bench %s: largest position difference %g m\n", name, worst);
    print_result(eddy_engine_device(e), &r);
    rc = r.match ? 0 : 1;
done:
    free(pos), free(vel), free(mass), free(gpos), free(hxi), free(phase), free(hid), free(off), free(bodies), free(rest);
    eddy_destroy_scene(sc);
    return rc;
}

/* The deform module's step on a tetrahedral mesh (data/tets): implicit
 * Euler with CG at h = 0.01 s (flag false), or symplectic Euler at
 * h = 1e-5 s (flag true: the light bunny's small vertices need it), against deform_cpu.c's step of the same
 * equations. Bars hang from their x = 0 end; other meshes fall freely. */
static int bench_deform(bench_ctx *c, const char *name, uint32_t n, bool explicit_)
{
    (void)n;
    eddy_engine *e = c->e;
    const char *data = eddy_tool_data_dir();
    char mesh[64], json[4096];
    snprintf(mesh, sizeof mesh, "%s", strchr(name, '.') + 1);
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
             dt, data, mesh, explicit_ ? 2 : 0, bar ? 1 : 0);
    eddy_scene *sc = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = name, .json = json, .profile = true, .no_output = true });
    if (!sc)
        return 1;
    eddy_particles p = eddy_find_particles(e, "b");
    uint32_t count = eddy_particles_count(e, p);
    eddy_elements el = eddy_particles_elements(e, p, "tets");
    float *pos = malloc(16ull * count), *vel = malloc(16ull * count), *mass = malloc(4ull * count);
    float *gpos = malloc(16ull * count), *prev = calloc(4ull * count, sizeof(float)), *ep = NULL;
    uint32_t *tets = malloc(16ull * el.count), *flags = malloc(4ull * count);
    eddy_deform_topology t = { 0 };
    eddy_deform_cpu cpu = { 0 };
    int rc = 1;
    result r = { .name = name, .n = count, .unit = "vertices", .model = c->o->model,
                 .no_reference = c->o->no_reference };
    if (!pos || !vel || !mass || !gpos || !prev || !tets || !flags ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "position"), 0, 16ull * count, pos) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "velocity"), 0, 16ull * count, vel) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "mass"), 0, 4ull * count, mass) != EDDY_OK ||
        eddy_buffer_download(e, el.buffer, 0, 16ull * el.count, tets) != EDDY_OK ||
        eddy_deform_topology_build(count, tets, el.count, 4, NULL, &t) != 0 || !(ep = malloc(16ull * t.edge_count)))
        goto done;
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (uint32_t i = 0; i < count; i++)
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], pos[4 * i + a]);
            hi[a] = fmax(hi[a], pos[4 * i + a]);
        }
    double size = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    /* The pass profile's neighbours: each vertex's degree in the spring graph
     * (its matrix row's off-diagonal blocks) and its springs. */
    r.ns = (bench_neighbour_stats){ .neighbours = count ? 2.0 * t.edge_count / count : 0,
                                    .list = count ? (double)t.edge_count / count : 0 };
    r.has_stats = true;
    for (uint32_t i = 0; i < count; i++)
        flags[i] = bar && pos[4 * i] <= 1e-6 * size ? 0 : EDDY_DEFORM_FREE;
    for (uint32_t k = 0; k < t.edge_count; k++) {
        const float *a = pos + 4 * t.edges[2 * k], *b = pos + 4 * t.edges[2 * k + 1];
        double d[3] = { (double)b[0] - a[0], (double)b[1] - a[1], (double)b[2] - a[2] };
        ep[4 * k] = (float)sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        ep[4 * k + 1] = 30000;
        ep[4 * k + 2] = 5;
        ep[4 * k + 3] = 0;
    }
    struct eddy_deform_params dp = { .gravity = { 0, -9.81f, 0, (float)dt }, .box_min = { -20, -20, -20, 1e5f },
                                     .box_max = { 20, 20, 20, 0 }, .solver = { 1e-5f, 0 },
                                     .counts = { count, t.edge_count, 0, explicit_ ? 2 : 0 },
                                     .misc = { 100, EDDY_DEFORM_DEFINITE | EDDY_DEFORM_JACOBI, (count + 255) / 256 } };
    if (eddy_deform_cpu_init(&cpu, &dp, &t, ep, flags, NULL) != 0 ||
        time_graph(e, eddy_scene_graph(sc), c->iterations, &r) != EDDY_OK ||
        eddy_buffer_download(e, eddy_particles_buffer(e, p, "position"), 0, 16ull * count, gpos) != EDDY_OK)
        goto done;
    if (r.no_reference) {
        print_result(eddy_engine_device(e), &r);
        rc = 0;
        goto done;
    }
    double t0 = 0;
    uint64_t cg = 0;
    for (uint32_t k = 0; k <= c->iterations; k++) {
        if (k == 1)
            t0 = now_ms();
        eddy_deform_cpu_step(&cpu, pos, vel, mass, prev);
        cg += k ? cpu.iterations : 0;
    }
    r.cpu_ms = now_ms() - t0;
    double worst = 0;
    for (uint32_t i = 0; i < 4 * count; i++)
        if (i % 4 != 3)
            worst = fmax(worst, fabs((double)gpos[i] - pos[i]));
    r.match = worst <= 1e-4 * size;
    if (!r.match)
        fprintf(stderr, "eddy bench %s: largest position difference %g m\n", name, worst);
    if (!explicit_)
        fprintf(stderr, "eddy bench %s: %u tets, %u springs, %.1f CG iterations a step (C)\n", name, el.count,
                t.edge_count, (double)cg / c->iterations);
    print_result(eddy_engine_device(e), &r);
    rc = r.match ? 0 : 1;
done:
    eddy_deform_cpu_free(&cpu);
    eddy_deform_topology_free(&t);
    free(pos), free(vel), free(mass), free(gpos), free(prev), free(ep), free(tets), free(flags);
    eddy_destroy_scene(sc);
    return rc;
}

/* The volume renderer on a tet mesh at rest, 512 x 512: a frame's passes
 * (volume.geometry: planes and gradients; volume.keys, the sort,
 * volume.leaves and volume.level: the BVH; volume.cast: the rays) against
 * the C twin of the same algorithm (eddy_volume_cast_cpu: geometry, BVH
 * and rays, single-threaded), images within 1e-3. n: the vertices. */
static int bench_volume(bench_ctx *c, const char *name, uint32_t n, bool flag)
{
    (void)n, (void)flag;
    eddy_engine *e = c->e;
    const char *data = eddy_tool_data_dir();
    char path[4096], err[1024];
    snprintf(path, sizeof path, "%s/tets/%s.node", data, strchr(name, '.') + 1);
    eddy_tetmesh m;
    if (eddy_load_tetmesh(path, NULL, &m, err, sizeof err) != 0) {
        fprintf(stderr, "eddy error [run.stopped]: %s\n", err);
        return 1;
    }
    uint32_t nv = m.vertex_count, nt = m.tet_count, w = 512, h = 512;
    float *pos = calloc(4ull * nv, sizeof(float)), *sc = calloc(nv, sizeof(float));
    float *gpu = malloc(16ull * w * h), *cpu = malloc(16ull * w * h), *table = NULL;
    uint32_t *neigh = malloc(16ull * nt), *bound = NULL, nb = 0;
    eddy_particles set = { 0 };
    eddy_volume *v = NULL;
    eddy_graph g = { 0 };
    int rc = 1;
    result r = { .name = name, .n = w * h, .unit = "pixels", .model = c->o->model,
                 .no_reference = c->o->no_reference };
    float lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    if (!pos || !sc || !gpu || !cpu || !neigh)
        goto done;
    for (uint32_t i = 0; i < nv; i++) {
        for (int a = 0; a < 3; a++) {
            pos[4 * i + a] = (float)m.vertices[3 * i + a];
            lo[a] = fminf(lo[a], pos[4 * i + a]), hi[a] = fmaxf(hi[a], pos[4 * i + a]);
        }
        sc[i] = m.attribute_count ? (float)m.attributes[(size_t)m.attribute_count * i] : 0.0f;
    }
    set = eddy_create_particles(e, &(eddy_particles_desc){ EDDY_SIZED(eddy_particles_desc), .name = "volume_bench", .count = nv });
    if (!set.id || eddy_buffer_upload(e, eddy_particles_buffer(e, set, "position"), 0, 16ull * nv, pos) != EDDY_OK ||
        eddy_buffer_upload(e, eddy_particles_add_buffer(e, set, "scalar", 4), 0, 4ull * nv, sc) != EDDY_OK ||
        !eddy_particles_add_elements(e, set, &(eddy_elements_desc){ EDDY_SIZED(eddy_elements_desc), .name = "tets", .kind = EDDY_TETRAHEDRA,
                                                                    .count = nt, .indices = m.tets }).buffer.id)
        goto done;
    static const float tf[] = { 0.0f, 0.1f, 0.2f, 0.9f, 0.05f, 0.5f, 0.2f, 0.9f, 0.3f, 0.3f,
                                0.8f, 1.0f, 0.5f, 0.1f, 0.5f, 1.0f, 0.9f, 0.1f, 0.1f, 0.8f };
    float size = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
    eddy_volume_desc d = { .set = set, .width = w, .height = h, .transfer = tf, .transfer_count = 4,
                           .camera = { .up = { 0, 1, 0 }, .fov_deg = 40 } };
    for (int a = 0; a < 3; a++)
        d.camera.target[a] = 0.5f * (lo[a] + hi[a]);
    d.camera.eye[0] = d.camera.target[0] + 0.4f * size;
    d.camera.eye[1] = d.camera.target[1] + 0.3f * size;
    d.camera.eye[2] = d.camera.target[2] + 1.5f * size;
    v = eddy_create_volume(e, &d);
    g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = name, .timestamps = true });
    if (!v || !g.id || eddy_volume_record(e, v, g) != EDDY_OK || time_graph(e, g, c->iterations, &r) != EDDY_OK ||
        eddy_image_download(e, eddy_volume_color(v), &(eddy_image_region){ 0 }, gpu) != EDDY_OK)
        goto done;
    const struct eddy_volume_params *p = eddy_volume_params_of(v);
    size_t texels = (size_t)p->table[0] * p->table[0] * p->table[1];
    if (!(table = malloc(16 * texels)) ||
        eddy_image_download(e, eddy_volume_table(v), &(eddy_image_region){ 0 }, table) != EDDY_OK ||
        eddy_volume_topology(m.tets, nt, nv, neigh, &bound, &nb, err, sizeof err) != 0)
        goto done;
    double t0 = now_ms();
    for (uint32_t k = 0; k < c->iterations && !r.no_reference; k++)
        eddy_volume_cast_cpu(p, pos, sc, m.tets, neigh, bound, tf, table, cpu, NULL);
    r.cpu_ms = now_ms() - t0;
    /* The profile's counts: one more frame, untimed (the work the passes
     * do: faces rasterised, tets crossed, table samples, BVH nodes). */
    eddy_volume_cast_counts k;
    eddy_volume_cast_cpu_counted(p, pos, sc, m.tets, neigh, bound, tf, table, cpu, NULL, &k);
    r.ns.volume = (bench_volume_stats){ .tets = nt, .faces = p->counts[1], .rays = (double)w * h,
                                        .tested = (double)k.tested, .fragments = (double)k.fragments,
                                        .tested_max = (double)k.tested_max,
                                        .steps = (double)k.steps, .pieces = (double)k.pieces,
                                        .lane_steps8 = (double)k.lane_steps8,
                                        .lane_steps32 = (double)k.lane_steps32,
                                        .enters = (double)k.enters, .entries_read = (double)k.entries_read,
                                        .bvh_nodes = (double)k.bvh_nodes };
    r.has_stats = true;
    double worst = 0;
    uint32_t hit = 0;
    for (size_t i = 0; i < 4ull * w * h; i++) {
        worst = fmax(worst, fabs((double)gpu[i] - cpu[i]));
        hit += i % 4 == 3 && gpu[i] > 0;
    }
    r.match = worst <= 1e-3;
    if (r.no_reference) {
        print_result(eddy_engine_device(e), &r);
        rc = 0;
        goto done;
    }
    fprintf(stderr, "eddy bench %s: %u tets, %u boundary faces, %u of %u pixels hit, %.1f frames/s (GPU time), "
            "%.1f frames/s (C); largest channel difference %.2e\n", name, nt, nb, hit, w * h,
            1e3 * r.iterations / r.gpu_ms, 1e3 * c->iterations / r.cpu_ms, worst);
    print_result(eddy_engine_device(e), &r);
    rc = r.match ? 0 : 1;
done:
    if (g.id)
        eddy_destroy_graph(e, g);
    eddy_destroy_volume(e, v);
    if (set.id)
        eddy_destroy_particles(e, set);
    eddy_free_tetmesh(&m);
    free(pos), free(sc), free(gpu), free(cpu), free(table), free(neigh), free(bound);
    return rc;
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

static int bench_haptic(bench_ctx *c, const char *name, uint32_t rate, bool flag)
{
    (void)flag;
    eddy_engine *e = c->e;
    const double seconds = c->iterations, period = 1.0 / rate;
    const char *json =
        "{ \"dt\": 0.004, \"duration\": 100000, \"box\": { \"min\": [0, 0, 0], \"max\": [0.32, 0.3, 0.16] },"
        "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": 0.016,"
        "      \"fill\": { \"shape\": \"box\", \"min\": [0, 0, 0], \"max\": [0.32, 0.12, 0.16] } } ],"
        "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"pbf\", \"set\": \"water\","
        "      \"params\": { \"h\": 0.032, \"iterations\": 4, \"xsph\": 0.1, \"tool_radius\": 0.04,"
        "                  \"tool_position\": [0.16, 0.22, 0.08] } } ] }";
    eddy_scene *sc = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = name, .json = json, .no_output = true });
    if (!sc)
        return 1;
    uint32_t particles = eddy_particles_count(e, eddy_find_particles(e, "water"));
    /* Room for the run and a slow last step (the loop ends after it). */
    haptic_probe p = { .cap = (uint64_t)((seconds + 30) * rate) };
    p.t = malloc(sizeof *p.t * p.cap);
    double *iv = malloc(sizeof *iv * p.cap);
    int rc = 1;
    eddy_haptic_report rep;
    if (p.t && iv &&
        eddy_haptic_run(sc, &(eddy_haptic_desc){ EDDY_SIZED(eddy_haptic_desc), .system = "fluid", .device = haptic_probe_fn, .user = &p,
                                                  .rate = rate, .duration = seconds }, &rep) == EDDY_OK) {
        uint64_t n = p.n, m = n > 1 ? n - 1 : 0;
        double sum = 0, sum2 = 0, late_sum = 0, late_max = 0;
        for (uint64_t k = 0; k < n; k++) {
            double late = p.t[k] - (double)k * period;
            late_sum += late;
            late_max = fmax(late_max, late);
            if (k) {
                iv[k - 1] = p.t[k] - p.t[k - 1];
                sum += iv[k - 1];
            }
        }
        double mean = m ? sum / m : 0;
        for (uint64_t k = 0; k < m; k++)
            sum2 += (iv[k] - mean) * (iv[k] - mean);
        qsort(iv, m, sizeof *iv, cmp_double);
        double p99 = m ? iv[(uint64_t)floor(0.99 * (double)(m - 1))] : 0, longest = m ? iv[m - 1] : 0;
        double span = n > 1 ? p.t[n - 1] - p.t[0] : 0;
        printf("{\"case\":\"%s\",\"device\":\"%s\",\"particles\":%u,\"rate_hz\":%u,\"seconds\":%g,"
               "\"samples\":%llu,\"achieved_hz\":%.6g,\"interval_mean_ms\":%.6f,\"interval_sd_ms\":%.6f,"
               "\"interval_p99_ms\":%.6f,\"interval_max_ms\":%.6f,\"late_mean_ms\":%.6f,\"late_max_ms\":%.6f,"
               "\"sim_steps\":%llu,\"sim_hz\":%.4g,\"max_jump_n\":%.6g,\"jump_bound_n\":%.6g,"
               "\"max_sim_jump_n\":%.6g}\n",
               name, eddy_engine_device(e)->name, particles, rate, seconds, (unsigned long long)p.calls,
               span > 0 ? (double)m / span : 0, mean * 1e3, (m ? sqrt(sum2 / m) : 0) * 1e3, p99 * 1e3,
               longest * 1e3, (n ? late_sum / n : 0) * 1e3, late_max * 1e3, (unsigned long long)rep.steps,
               rep.steps / seconds, rep.max_jump, rep.max_slope * rep.max_interval, rep.max_sim_jump);
        fflush(stdout);
        rc = 0;
    }
    free(p.t);
    free(iv);
    eddy_destroy_scene(sc);
    return rc;
}

typedef struct bench_case {
    const char *name;
    int (*run)(bench_ctx *c, const char *name, uint32_t n, bool flag);
    uint32_t n;
    bool flag;
} bench_case;

static int run_scan(bench_ctx *c, const char *name, uint32_t n, bool f) { (void)f; return bench_scan(c, name, n); }
static int run_sort(bench_ctx *c, const char *name, uint32_t n, bool f) { (void)f; return bench_sort(c, name, n); }

static const bench_case cases[] = {
    { "scan.1M", run_scan, 1u << 20, false },
    { "scan.16M", run_scan, 1u << 24, false },
    { "sort.1M", run_sort, 1u << 20, false },
    { "sort.4M", run_sort, 1u << 22, false },
    { "grid.64k", bench_particles, 1u << 16, false },
    { "grid.256k", bench_particles, 1u << 18, false },
    { "grid.1M", bench_particles, 1u << 20, false },
    { "density.16k", bench_particles, 1u << 14, true },
    { "density.65k", bench_particles, 1u << 16, true },
    { "density.262k", bench_particles, 1u << 18, true },
    { "sph.16k", bench_sph, 16000, false },
    { "sph.65k", bench_sph, 65536, false },
    { "sph.262k", bench_sph, 262144, false },
    { "sph.iisph16k", bench_sph, 16000, true },
    { "sph.iisph65k", bench_sph, 65536, true },
    { "pbf.10k", bench_pbf, 10000, false },
    { "pbf.20k", bench_pbf, 20000, false },
    { "pbf.40k", bench_pbf, 40000, false },
    { "pbf.60k", bench_pbf, 60000, false },
    { "pbf.80k", bench_pbf, 80000, false },
    { "pbf.dam50k", bench_pbf, 50653, true },
    { "rigid.pawns", bench_rigid, 65536, false },
    { "granular.16k", bench_rigid, 16384, true },
    { "deform.bar_80", bench_deform, 38, false },
    { "deform.bar_5k", bench_deform, 1275, false },
    { "deform.bunny_5k", bench_deform, 1028, false },
    { "deform.bar_5k_explicit", bench_deform, 1275, true },
    { "deform.bar_25k", bench_deform, 5010, false },
    { "deform.bunny_25k", bench_deform, 5364, false },
    { "deform.teapot_25k", bench_deform, 5163, false },
    { "deform.bunny_150k", bench_deform, 29598, false },
    { "deform.bar_80_explicit", bench_deform, 38, true },
    { "deform.bunny_5k_explicit", bench_deform, 1028, true },
    { "deform.bar_25k_explicit", bench_deform, 5010, true },
    { "deform.bunny_25k_explicit", bench_deform, 5364, true },
    { "deform.teapot_25k_explicit", bench_deform, 5163, true },
    { "volume.bunny_5k", bench_volume, 1028, false },
    { "volume.bunny_25k", bench_volume, 5364, false },
    { "volume.bunny_150k", bench_volume, 29598, false },
    { "haptic.1k", bench_haptic, 1000, false }, /* n: the rate (Hz); --iterations: seconds */
};

int eddy_bench_main(eddy_engine *e, int argc, char **argv, const bench_options *o)
{
    bench_ctx c = { e, o->iterations ? o->iterations : 5, o };
    int failed = 0, ran = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool want = argc == 0;
        for (int a = 0; a < argc; a++)
            want |= !strcmp(argv[a], cases[i].name) ||
                    (!strchr(argv[a], '.') && !strncmp(argv[a], cases[i].name, strlen(argv[a])) &&
                     cases[i].name[strlen(argv[a])] == '.');
        if (!want)
            continue;
        ran++;
        int rc = cases[i].run(&c, cases[i].name, cases[i].n, cases[i].flag);
        if (rc) {
            fprintf(stderr, "eddy error [run.stopped]: bench case %s failed or its result differs from the "
                            "C reference\n", cases[i].name);
            failed++;
        }
    }
    if (!ran) {
        fprintf(stderr, "eddy error [cli.usage]: bench: no case matches; cases:");
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            fprintf(stderr, " %s", cases[i].name);
        fprintf(stderr, " (or a group: scan, sort, grid, density, sph, pbf, rigid, granular, deform, volume, haptic)\n");
        return 2;
    }
    return failed ? 1 : 0;
}
