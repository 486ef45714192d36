/* eddy bench's pass profile and GPU time model: see bench_model.h. */
#include "bench_model.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { VISIT_NONE, VISIT_CANDIDATES, VISIT_LIST, VISIT_NEIGHBOURS };

/* Per particle and call, read off each pass's shader (bytes of 4-byte
 * floats and indices; a flop is an add, multiply, divide or square root, an
 * FMA two). stream: own state read and written once, plus `list_bytes` per
 * list entry read or written (the list is streamed, 4 bytes an entry);
 * visit_bytes: what each neighbour visit gathers (the neighbour's position
 * and the like, cache hits on a GPU since neighbours are sorted near each
 * other); a scan of the 27 cells also reads 54 cell-table entries. */
typedef struct pass_cost {
    const char *label;
    double stream, list_bytes;
    int visits;
    double visit_bytes, visit_flops, flops;
    double ghost_flops; /* per wall-ghost lattice point the pass's ghost loop visits */
    double visit_stream; /* bytes each visit streams (a matrix entry, a spring's state), not gathered */
} pass_cost;

static const pass_cost pass_costs[] = {
    /* the shared grid build (eddy_grid): cell keys, the radix sort's passes, ranges, gathers */
    { "eddy.fill", 4, 0, VISIT_NONE, 0, 0, 0, 0, 0 },
    { "eddy.grid.cell", 28, 0, VISIT_NONE, 0, 0, 10, 0, 0 },
    { "eddy.sort.histogram", 4, 0, VISIT_NONE, 0, 0, 2, 0, 0 },
    { "eddy.scan.block", 0.5, 0, VISIT_NONE, 0, 0, 0.5, 0, 0 },
    { "eddy.scan.add", 0.5, 0, VISIT_NONE, 0, 0, 0.5, 0, 0 },
    { "eddy.sort.scatter", 16, 0, VISIT_NONE, 0, 0, 4, 0, 0 },
    { "eddy.grid.range", 12, 0, VISIT_NONE, 0, 0, 2, 0, 0 },
    { "eddy.grid.gather", 30, 0, VISIT_NONE, 0, 0, 0, 0, 0 },
    /* pbf: predicted position, velocity, mass in; the list built once a
     * substep (and again after an iteration that moved a particle past the
     * skin: pbf.neighbours_check, which otherwise reads one flag) */
    { "pbf.predict", 52, 0, VISIT_NONE, 0, 0, 8, 0, 0 },
    { "pbf.neighbours", 52, 4, VISIT_CANDIDATES, 16, 8, 10, 0, 0 },
    { "pbf.neighbours_check", 4, 0, VISIT_NONE, 0, 0, 0, 0, 0 },
    { "pbf.lambda", 72, 4, VISIT_LIST, 16, 30, 40, 30, 0 },
    { "pbf.delta", 84, 4, VISIT_LIST, 32, 45, 20, 0, 0 },
    { "pbf.apply", 84, 0, VISIT_NONE, 0, 0, 30, 0, 0 },
    { "pbf.velocity", 48, 0, VISIT_NONE, 0, 0, 5, 0, 0 },
    { "pbf.vorticity", 52, 4, VISIT_LIST, 32, 25, 10, 0, 0 },
    { "pbf.finish", 108, 4, VISIT_LIST, 32, 20, 20, 0, 0 },
    /* sph: the density pass scans the cells and writes the list, forces read it */
    { "sph.density", 72, 4, VISIT_CANDIDATES, 20, 12, 20, 30, 0 },
    { "sph.forces", 68, 4, VISIT_NEIGHBOURS, 32, 70, 40, 40, 0 },
    { "sph.integrate", 120, 0, VISIT_NONE, 0, 0, 30, 0, 0 },
    /* rigid (cells of one particle diameter): body state to particles, the
     * contact scan with its 16-slot friction memory in and out, the memory's
     * copy, the per-body sums and the integration */
    { "rigid.particles", 80, 0, VISIT_NONE, 0, 0, 40, 0, 0 },
    { "rigid.contact", 712, 0, VISIT_CANDIDATES, 40, 80, 60, 0, 0 },
    { "rigid.history", 640, 0, VISIT_NONE, 0, 0, 0, 0, 0 },
    { "eddy.segmented_reduce", 32, 0, VISIT_NONE, 0, 0, 8, 0, 0 },
    { "rigid.integrate", 64, 0, VISIT_NONE, 0, 0, 60, 0, 0 },
    { "rigid.granular", 64, 0, VISIT_NONE, 0, 0, 30, 0, 0 },
    /* deform (per vertex; "neighbours" is the vertex's degree d in the
     * spring graph, "list" its springs, d / 2): springs, the assembly of
     * the matrix rows, and per CG iteration the product (a 36-byte entry
     * streamed and the neighbour's direction gathered per off-diagonal
     * block), the update and the direction; alpha and beta are one-group
     * reductions (overhead) */
    { "deform.springs", 0, 0, VISIT_LIST, 0, 40, 0, 0, 184 },
    { "deform.assemble", 170, 0, VISIT_NEIGHBOURS, 0, 30, 60, 0, 56 },
    { "deform.cg_begin", 48, 0, VISIT_NONE, 0, 0, 6, 0, 0 },
    { "deform.cg_matvec", 100, 0, VISIT_NEIGHBOURS, 16, 18, 15, 0, 36 },
    { "deform.cg_update", 176, 0, VISIT_NONE, 0, 0, 30, 0, 0 },
    { "deform.cg_direction", 48, 0, VISIT_NONE, 0, 0, 6, 0, 0 },
    { "deform.implicit_end", 64, 0, VISIT_NONE, 0, 0, 10, 0, 0 },
    { "deform.forces", 100, 0, VISIT_NEIGHBOURS, 16, 20, 20, 0, 32 },
    { "deform.explicit", 64, 0, VISIT_NONE, 0, 0, 20, 0, 0 },
};

static const pass_cost *find_cost(const char *label)
{
    for (size_t i = 0; i < sizeof pass_costs / sizeof pass_costs[0]; i++)
        if (!strcmp(pass_costs[i].label, label))
            return &pass_costs[i];
    return NULL;
}

/* ------------------------------------------------------------------ device files */

static int field(const cJSON *root, const char *name, double lo, double hi, bool required, double *out,
                 const char *source, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, name);
    if (!v) {
        if (!required)
            return 0;
        snprintf(err, errlen, "%s: field \"%s\" is missing; expected a number in [%g, %g]", source, name, lo, hi);
        return -1;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo || v->valuedouble > hi) {
        snprintf(err, errlen, "%s: field \"%s\": expected a number in [%g, %g]", source, name, lo, hi);
        return -1;
    }
    *out = v->valuedouble;
    return 0;
}

int bench_model_parse(const char *text, size_t len, const char *source, bench_device_model *out, char *err,
                      size_t errlen)
{
    memset(out, 0, sizeof *out);
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root || !cJSON_IsObject(root)) {
        snprintf(err, errlen, "%s: not a JSON object (expected { \"name\": ..., \"bandwidth_GBps\": ..., ... })",
                 source);
        cJSON_Delete(root);
        return -1;
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "name");
    int rc = 0;
    if (!cJSON_IsString(name) || !name->valuestring[0] || strlen(name->valuestring) >= sizeof out->name) {
        snprintf(err, errlen, "%s: field \"name\": expected a string of 1 to %zu characters", source,
                 sizeof out->name - 1);
        rc = -1;
    } else {
        snprintf(out->name, sizeof out->name, "%s", name->valuestring);
    }
    if (rc == 0)
        rc = field(root, "bandwidth_GBps", 1e-3, 1e6, true, &out->bandwidth_gbps, source, err, errlen);
    if (rc == 0)
        rc = field(root, "cache_GBps", 1e-3, 1e7, true, &out->cache_gbps, source, err, errlen);
    if (rc == 0)
        rc = field(root, "gflops", 1e-3, 1e8, true, &out->gflops, source, err, errlen);
    if (rc == 0)
        rc = field(root, "pass_overhead_us", 0, 1e6, true, &out->pass_overhead_us, source, err, errlen);
    if (rc == 0)
        rc = field(root, "visit_latency_ns", 0, 1e6, false, &out->visit_latency_ns, source, err, errlen);
    cJSON_Delete(root);
    return rc;
}

int bench_model_load(const char *path, bench_device_model *out, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open the device file", path);
        return -1;
    }
    enum { MAX = 64 * 1024 };
    char *buf = malloc(MAX + 1);
    size_t n = buf ? fread(buf, 1, MAX + 1, f) : 0;
    bool bad = ferror(f) != 0;
    fclose(f);
    if (!buf || bad || n > MAX) {
        snprintf(err, errlen, "%s: %s", path, !buf ? "out of memory" : bad ? "read error" : "over 64 KiB; expected a "
                 "small JSON object");
        free(buf);
        return -1;
    }
    int rc = bench_model_parse(buf, n, path, out, err, errlen);
    free(buf);
    return rc;
}

/* ------------------------------------------------------------------ neighbour counts */

bool bench_count_neighbours(const float *pos, uint32_t n, float h, float list_r, bench_neighbour_stats *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0 || !(h > 0))
        return true;
    float lo[3] = { pos[0], pos[1], pos[2] }, hi[3] = { pos[0], pos[1], pos[2] };
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) {
            lo[a] = fminf(lo[a], pos[4 * i + a]);
            hi[a] = fmaxf(hi[a], pos[4 * i + a]);
        }
    uint64_t dims[3], cells = 1;
    for (int a = 0; a < 3; a++) {
        dims[a] = (uint64_t)((hi[a] - lo[a]) / h) + 1;
        cells *= dims[a];
    }
    if (cells > 64ull * n + 1024) /* a sparse spray: the stats would need a hash; skip */
        return false;
    uint32_t *start = calloc(cells + 1, 4), *order = malloc(4ull * n), *key = malloc(4ull * n);
    if (!start || !order || !key) {
        free(start), free(order), free(key);
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t c[3];
        for (int a = 0; a < 3; a++) {
            uint64_t x = (uint64_t)((pos[4 * i + a] - lo[a]) / h);
            c[a] = x < dims[a] ? x : dims[a] - 1;
        }
        key[i] = (uint32_t)(c[0] + dims[0] * (c[1] + dims[1] * c[2]));
        start[key[i] + 1]++;
    }
    for (uint64_t c = 0; c < cells; c++)
        start[c + 1] += start[c];
    uint32_t *fill = malloc(4ull * cells);
    if (!fill) {
        free(start), free(order), free(key);
        return false;
    }
    memcpy(fill, start, 4ull * cells);
    for (uint32_t i = 0; i < n; i++)
        order[fill[key[i]]++] = i;
    free(fill);
    double cand = 0, neigh = 0, list = 0, h2 = (double)h * h, l2 = (double)list_r * list_r;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t k = key[i], c[3] = { k % dims[0], (k / dims[0]) % dims[1], k / (dims[0] * dims[1]) };
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int64_t q[3] = { (int64_t)c[0] + dx, (int64_t)c[1] + dy, (int64_t)c[2] + dz };
                    if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= (int64_t)dims[0] || q[1] >= (int64_t)dims[1] ||
                        q[2] >= (int64_t)dims[2])
                        continue;
                    uint64_t cell = (uint64_t)q[0] + dims[0] * ((uint64_t)q[1] + dims[1] * (uint64_t)q[2]);
                    for (uint32_t s = start[cell]; s < start[cell + 1]; s++) {
                        const float *p = pos + 4 * i, *o = pos + 4 * order[s];
                        double r2 = 0;
                        for (int a = 0; a < 3; a++)
                            r2 += ((double)p[a] - o[a]) * ((double)p[a] - o[a]);
                        cand += 1;
                        neigh += r2 < h2;
                        list += r2 < l2;
                    }
                }
    }
    free(start), free(order), free(key);
    out->candidates = cand / n;
    out->neighbours = neigh / n;
    out->list = list / n;
    return true;
}

void bench_count_ghosts(const float *pos, uint32_t n, float h, float s, const float lo[3], const float hi[3],
                        bench_neighbour_stats *out)
{
    double visited = 0;
    for (uint32_t i = 0; i < n && s > 0; i++) {
        const float *p = pos + 4 * i;
        bool near = false;
        for (int a = 0; a < 3; a++)
            near = near || p[a] - lo[a] < h || hi[a] - p[a] < h;
        if (!near)
            continue;
        /* The loop's block: (p - h - lo) / s - 1/2 to (p + h - lo) / s - 1/2 per axis. */
        int64_t k0[3], k1[3];
        for (int a = 0; a < 3; a++) {
            k0[a] = (int64_t)floor((p[a] - h - lo[a]) / s - 0.5);
            k1[a] = (int64_t)ceil((p[a] + h - lo[a]) / s - 0.5);
        }
        for (int64_t z = k0[2]; z <= k1[2]; z++)
            for (int64_t y = k0[1]; y <= k1[1]; y++)
                for (int64_t x = k0[0]; x <= k1[0]; x++) {
                    double q[3] = { lo[0] + s * (x + 0.5), lo[1] + s * (y + 0.5), lo[2] + s * (z + 0.5) };
                    bool inside = true;
                    for (int a = 0; a < 3; a++)
                        inside = inside && q[a] > lo[a] && q[a] < hi[a];
                    visited += !inside;
                }
    }
    out->ghosts = n ? visited / n : 0;
}

/* ------------------------------------------------------------------ profile and model */

typedef struct pass_model {
    double stream, gathered, visits, flops; /* per particle and call */
} pass_model;

static pass_model model_of(const pass_cost *pc, const bench_neighbour_stats *ns)
{
    double v = pc->visits == VISIT_CANDIDATES ? ns->candidates
             : pc->visits == VISIT_LIST       ? ns->list
             : pc->visits == VISIT_NEIGHBOURS ? ns->neighbours
                                              : 0;
    /* A list pass reads (or the building scan writes) one entry per list
     * neighbour; the scan passes' lists hold the list (pbf) or the
     * neighbours (sph). */
    double entries = pc->visits == VISIT_CANDIDATES ? (strncmp(pc->label, "sph.", 4) ? ns->list : ns->neighbours) : v;
    pass_model m = { pc->stream + pc->list_bytes * entries + pc->visit_stream * v,
                     v * pc->visit_bytes + (pc->visits == VISIT_CANDIDATES ? 54 * 4 : 0), v,
                     pc->flops + v * pc->visit_flops + ns->ghosts * pc->ghost_flops };
    return m;
}

static const char *bound_of(const pass_model *m, const bench_device_model *d, uint32_t n, double *t_us)
{
    double terms[4] = { m->stream * n / (d->bandwidth_gbps * 1e3), m->gathered * n / (d->cache_gbps * 1e3),
                        m->flops * n / (d->gflops * 1e3), m->visits * d->visit_latency_ns * 1e-3 };
    static const char *names[4] = { "memory", "gather", "compute", "latency" };
    int k = 0;
    for (int i = 1; i < 4; i++)
        if (terms[i] > terms[k])
            k = i;
    *t_us = d->pass_overhead_us + terms[k];
    return d->pass_overhead_us > terms[k] ? "overhead" : names[k];
}

void bench_print_profile(FILE *f, const bench_pass_measure *passes, int count, uint32_t n,
                         const bench_neighbour_stats *ns, const bench_device_model *device)
{
    fprintf(f, ",\"neighbours\":{\"candidates\":%.1f,\"within_h\":%.1f,\"list\":%.1f,\"ghost_points\":%.1f}",
            ns->candidates, ns->neighbours, ns->list, ns->ghosts);
    fprintf(f, ",\"profile\":{");
    int first = 1;
    for (int i = 0; i < count; i++) {
        const pass_cost *pc = find_cost(passes[i].label);
        if (!pc || n == 0)
            continue;
        pass_model m = model_of(pc, ns);
        double calls = passes[i].calls, s = passes[i].ms * 1e-3;
        fprintf(f, "%s\"%s\":{\"ms\":%.4f,\"calls\":%g,\"bytes\":%.1f,\"visits\":%.1f,\"gathered\":%.1f,"
                   "\"flops\":%.1f,\"GBps\":%.3g,\"visits_per_s\":%.3g,\"flops_per_byte\":%.2f",
                first ? "" : ",", passes[i].label, passes[i].ms, calls, m.stream * calls, m.visits * calls,
                m.gathered * calls, m.flops * calls, s > 0 ? m.stream * calls * n / s * 1e-9 : 0,
                s > 0 ? m.visits * calls * n / s : 0, m.stream > 0 ? m.flops / m.stream : 0);
        if (device) {
            double t_us;
            const char *bound = bound_of(&m, device, n, &t_us);
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
        const pass_cost *pc = find_cost(passes[i].label);
        double t_us = device->pass_overhead_us;
        const char *bound = "overhead";
        if (pc) {
            pass_model m = model_of(pc, ns);
            bound = bound_of(&m, device, n, &t_us);
        }
        total_us += t_us * passes[i].calls;
        fprintf(f, "%s\"%s\":{\"ms\":%.4f,\"bound\":\"%s\"%s}", first ? "" : ",", passes[i].label,
                t_us * passes[i].calls * 1e-3, bound, pc ? "" : ",\"modelled\":false");
        first = 0;
    }
    fprintf(f, "},\"ms\":%.4f,\"particle_steps_per_s\":%.4g}", total_us * 1e-3, total_us > 0 ? n / (total_us * 1e-6) : 0);
}

void bench_print_profile_text(FILE *f, const bench_pass_measure *passes, int count, uint32_t n,
                              const bench_neighbour_stats *ns, const char *prefix)
{
    fprintf(f, "  neighbours per particle: %.1f candidates in the 27 cells, %.1f within h, %.1f in the lists; "
               "%.1f wall-ghost points\n", ns->candidates, ns->neighbours, ns->list, ns->ghosts);
    fprintf(f, "  %-24s %10s %10s %10s %10s %9s %11s %8s\n", "pass (per particle, call)", "bytes", "visits",
            "gathered", "flops", "GB/s", "visits/s", "flops/B");
    for (int i = 0; i < count; i++) {
        const pass_cost *pc = find_cost(passes[i].label);
        if (!pc || strncmp(passes[i].label, prefix, strlen(prefix)) || passes[i].calls <= 0 || n == 0)
            continue;
        pass_model m = model_of(pc, ns);
        double s = passes[i].ms * 1e-3 / passes[i].calls; /* per call */
        fprintf(f, "  %-24s %10.1f %10.1f %10.1f %10.1f %9.3g %11.3g %8.2f\n", passes[i].label, m.stream, m.visits,
                m.gathered, m.flops, s > 0 ? m.stream * n / s * 1e-9 : 0, s > 0 ? m.visits * n / s : 0,
                m.stream > 0 ? m.flops / m.stream : 0);
    }
}
