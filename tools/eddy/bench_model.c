/* eddy bench's pass profile and GPU time model: see bench_model.h. */
#include "bench_model.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { VISIT_NONE, VISIT_CANDIDATES, VISIT_LIST, VISIT_NEIGHBOURS };
enum { PER_N, PER_KEY };

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
    int per;             /* PER_N: per particle (the case's element); PER_KEY: per sort key */
} pass_cost;

static const pass_cost pass_costs[] = {
    /* the shared grid build (eddy_grid): cell keys, the radix sort's passes, ranges, gathers */
    { "eddy.fill", 4, 0, VISIT_NONE, 0, 0, 0, 0, 0, PER_N },
    { "eddy.grid.cell", 28, 0, VISIT_NONE, 0, 0, 10, 0, 0, PER_N },
    { "eddy.sort.histogram", 4, 0, VISIT_NONE, 0, 0, 2, 0, 0, PER_KEY },
    { "eddy.scan.block", 0.5, 0, VISIT_NONE, 0, 0, 0.5, 0, 0, PER_KEY },
    { "eddy.scan.add", 0.5, 0, VISIT_NONE, 0, 0, 0.5, 0, 0, PER_KEY },
    { "eddy.sort.scatter", 16, 0, VISIT_NONE, 0, 0, 4, 0, 0, PER_KEY },
    { "eddy.grid.range", 12, 0, VISIT_NONE, 0, 0, 2, 0, 0, PER_N },
    { "eddy.grid.gather", 30, 0, VISIT_NONE, 0, 0, 0, 0, 0, PER_N },
    /* pbf: predicted position, velocity, mass in; the list built once a
     * substep (and again after an iteration that moved a particle past the
     * skin: pbf.neighbours_check, which otherwise reads one flag) */
    { "pbf.predict", 52, 0, VISIT_NONE, 0, 0, 8, 0, 0, PER_N },
    { "pbf.neighbours", 52, 4, VISIT_CANDIDATES, 16, 8, 10, 0, 0, PER_N },
    { "pbf.neighbours_check", 4, 0, VISIT_NONE, 0, 0, 0, 0, 0, PER_N },
    { "pbf.lambda", 72, 4, VISIT_LIST, 16, 30, 40, 30, 0, PER_N },
    { "pbf.delta", 84, 4, VISIT_LIST, 32, 45, 20, 0, 0, PER_N },
    { "pbf.apply", 84, 0, VISIT_NONE, 0, 0, 30, 0, 0, PER_N },
    { "pbf.velocity", 48, 0, VISIT_NONE, 0, 0, 5, 0, 0, PER_N },
    { "pbf.vorticity", 52, 4, VISIT_LIST, 32, 25, 10, 0, 0, PER_N },
    { "pbf.finish", 108, 4, VISIT_LIST, 32, 20, 20, 0, 0, PER_N },
    /* sph: the density pass scans the cells and writes the list, forces read it */
    { "sph.density", 72, 4, VISIT_CANDIDATES, 20, 12, 20, 30, 0, PER_N },
    { "sph.forces", 68, 4, VISIT_NEIGHBOURS, 32, 70, 40, 40, 0, PER_N },
    { "sph.integrate", 120, 0, VISIT_NONE, 0, 0, 30, 0, 0, PER_N },
    /* IISPH: the system once a substep (a scan: the lists' bindings would
     * be over the limit), then per iteration the pressure accelerations and
     * the Jacobi update over sph.density's lists, the wall-ghost sums read
     * from the system pass's copy (48 bytes a particle, written once) */
    { "sph.iisph_diag", 140, 0, VISIT_CANDIDATES, 48, 70, 60, 60, 0, PER_N },
    { "sph.iisph_accel", 88, 4, VISIT_NEIGHBOURS, 36, 25, 25, 0, 0, PER_N },
    { "sph.iisph_update", 76, 4, VISIT_NEIGHBOURS, 32, 20, 25, 0, 0, PER_N },
    { "sph.iisph_accel_final", 120, 4, VISIT_NEIGHBOURS, 36, 25, 30, 0, 0, PER_N },
    /* rigid (cells of one particle diameter): body state to particles, the
     * contact scan with its 16-slot friction memory in and out, the memory's
     * copy, the per-body sums and the integration */
    { "rigid.particles", 80, 0, VISIT_NONE, 0, 0, 40, 0, 0, PER_N },
    { "rigid.contact", 712, 0, VISIT_CANDIDATES, 40, 80, 60, 0, 0, PER_N },
    { "rigid.history", 640, 0, VISIT_NONE, 0, 0, 0, 0, 0, PER_N },
    { "eddy.segmented_reduce", 32, 0, VISIT_NONE, 0, 0, 8, 0, 0, PER_N },
    { "rigid.integrate", 64, 0, VISIT_NONE, 0, 0, 60, 0, 0, PER_N },
    { "rigid.granular", 64, 0, VISIT_NONE, 0, 0, 30, 0, 0, PER_N },
    /* deform (per vertex; "neighbours" is the vertex's degree d in the
     * spring graph, "list" its springs, d / 2): springs, the assembly of
     * the matrix rows, and per CG iteration the product (a 36-byte entry
     * streamed and the neighbour's direction gathered per off-diagonal
     * block), the update and the direction; alpha and beta are one-group
     * reductions (overhead) */
    { "deform.springs", 0, 0, VISIT_LIST, 0, 40, 0, 0, 184, PER_N },
    { "deform.assemble", 170, 0, VISIT_NEIGHBOURS, 0, 30, 60, 0, 56, PER_N },
    { "deform.cg_begin", 48, 0, VISIT_NONE, 0, 0, 6, 0, 0, PER_N },
    { "deform.cg_matvec", 100, 0, VISIT_NEIGHBOURS, 16, 18, 15, 0, 36, PER_N },
    { "deform.cg_update", 176, 0, VISIT_NONE, 0, 0, 30, 0, 0, PER_N },
    { "deform.cg_direction", 48, 0, VISIT_NONE, 0, 0, 6, 0, 0, PER_N },
    { "deform.implicit_end", 64, 0, VISIT_NONE, 0, 0, 10, 0, 0, PER_N },
    { "deform.forces", 100, 0, VISIT_NEIGHBOURS, 16, 20, 20, 0, 32, PER_N },
    { "deform.explicit", 64, 0, VISIT_NONE, 0, 0, 20, 0, 0, PER_N },
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
    if (rc == 0)
        rc = field(root, "resident_threads", 0, 1e9, false, &out->resident_threads, source, err, errlen);
    if (rc == 0)
        rc = field(root, "simd_width", 0, 64, false, &out->simd_width, source, err, errlen);
    if (rc == 0 && out->simd_width != 0 && out->simd_width != 8 && out->simd_width != 32) {
        snprintf(err, errlen, "%s: field \"simd_width\": expected 8 or 32 (or 0: lanes not in lockstep)", source);
        rc = -1;
    }
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
    double stream, gathered, visits, flops; /* per element and call */
} pass_model;

/* The volume renderer's passes (modules/volume/shaders), per element and
 * call, from the frame's counts: geometry per tet (4 corners and scalars
 * in, 4 planes and the gradient out); keys and leaves per boundary face;
 * the BVH levels per face, spread over the calls (a binary tree has about
 * as many inner nodes as leaves); raster per face (the face in, a ray test
 * per pixel tested, a counter increment and a list entry per pixel
 * covered); cast per ray (its counter and list, its colour and depth out;
 * per tet crossed a gather of 4 planes, the gradient and the neighbour; per
 * piece a trilinear table sample, 8 texels, whose filter counts as 64
 * flops though a GPU's texture units do it; per BVH node a box test). */
static bool volume_model(const char *label, double calls, const bench_volume_stats *v, const bench_device_model *d,
                         pass_model *m, double *count, const char **per)
{
    *m = (pass_model){ 0 };
    double faces = v->faces > 0 ? v->faces : 1, rays = v->rays > 0 ? v->rays : 1;
    if (!strcmp(label, "volume.geometry")) {
        *count = v->tets, *per = "tet";
        *m = (pass_model){ 16 + 16 + 80, 64, 0, 200 };
    } else if (!strcmp(label, "volume.keys")) {
        *count = v->faces, *per = "face";
        *m = (pass_model){ 4 + 8, 60, 0, 30 };
    } else if (!strcmp(label, "volume.leaves")) {
        *count = v->faces, *per = "face";
        *m = (pass_model){ 4 + 32, 60, 0, 20 };
    } else if (!strcmp(label, "volume.level")) {
        *count = v->faces / (calls > 0 ? calls : 1), *per = "face";
        *m = (pass_model){ 96, 0, 0, 12 };
    } else if (!strcmp(label, "volume.raster")) {
        double tested = v->tested / faces, covered = v->fragments / faces;
        *count = v->faces, *per = "face";
        /* visits: the pass lasts as long as its largest face, whose 8
         * threads test its pixels in turn (a covered one waits on the
         * counter's increment for its entry's slot) */
        *m = (pass_model){ 20 + 16 * covered, 60, v->tested_max / 8, 60 + 40 * tested };
    } else if (!strcmp(label, "volume.cast") || !strcmp(label, "volume.cast_point")) {
        double steps = v->steps / rays, pieces = v->pieces / rays, nodes = v->bvh_nodes / rays;
        /* Lanes in lockstep run (and wait on) their group's longest ray:
         * the arithmetic and the latency chain at the lanes' steps, the
         * gathers at the rays' own (idle lanes fetch nothing). */
        double lanes = d && d->simd_width == 8    ? v->lane_steps8
                     : d && d->simd_width == 32 ? v->lane_steps32
                                                : v->steps;
        double run = v->steps > 0 ? lanes / v->steps : 1;
        *count = v->rays, *per = "ray";
        *m = (pass_model){ 24 + 8 * v->entries_read / rays, 84 * steps + 128 * pieces + 32 * nodes,
                           steps * run + nodes, 30 + (70 * steps + (24 + 64) * pieces) * run + 30 * nodes };
    } else {
        return false;
    }
    return true;
}

static pass_model model_of(const pass_cost *pc, const bench_neighbour_stats *ns)
{
    /* Without lists (--no-lists) a fluid's list loops scan the cells like
     * the pass that would build them, and nothing reads or writes a list. */
    bool fluid = !strncmp(pc->label, "pbf.", 4) || !strncmp(pc->label, "sph.", 4);
    if (ns->scans && fluid && pc->visits != VISIT_NONE) {
        pass_cost scan = *pc;
        scan.visits = VISIT_CANDIDATES;
        scan.list_bytes = 0;
        bench_neighbour_stats none = *ns;
        none.scans = false;
        return model_of(&scan, &none);
    }
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

/* The cost of a pass of `calls` a step per element, and how many elements
 * (n, the sort's keys, or the volume's tets, faces or rays). False: no
 * cost description. */
static bool cost_of(const char *label, double calls, uint32_t n, const bench_neighbour_stats *ns,
                    const bench_device_model *d, pass_model *m, double *count, const char **per)
{
    bool volume = ns->volume.tets > 0;
    *per = NULL;
    if (volume && volume_model(label, calls, &ns->volume, d, m, count, per))
        return true;
    const pass_cost *pc = find_cost(label);
    if (!pc)
        return false;
    *m = model_of(pc, ns);
    *count = pc->per == PER_KEY && volume ? ns->volume.faces : n;
    if (pc->per == PER_KEY && volume)
        *per = "face";
    else if (volume)
        *per = "ray";
    return true;
}

/* The dispatches of a pass that do work: IISPH's iteration passes are
 * recorded max_iterations times and dispatched with zero groups once the
 * solve has converged (the overhead alone). */
static bool solver_iteration(const char *label)
{
    return !strcmp(label, "sph.iisph_accel") || !strcmp(label, "sph.iisph_update") || !strcmp(label, "sph.iisph_check");
}

static double work_calls(const char *label, double calls, const bench_neighbour_stats *ns)
{
    return solver_iteration(label) && ns->solver_iterations > 0 && ns->solver_iterations < calls
               ? ns->solver_iterations : calls;
}

static const char *bound_of(const pass_model *m, const bench_device_model *d, double n, double *t_us)
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
                         const bench_neighbour_stats *ns, const bench_device_model *device)
{
    const bench_volume_stats *v = &ns->volume;
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
        pass_model m;
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
        pass_model m;
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
                              const bench_neighbour_stats *ns, const char *prefix)
{
    fprintf(f, "  neighbours per particle: %.1f candidates in the 27 cells, %.1f within h, %.1f in the lists; "
               "%.1f wall-ghost points\n", ns->candidates, ns->neighbours, ns->list, ns->ghosts);
    fprintf(f, "  %-24s %10s %10s %10s %10s %9s %11s %8s\n", "pass (per particle, call)", "bytes", "visits",
            "gathered", "flops", "GB/s", "visits/s", "flops/B");
    bool note = false;
    for (int i = 0; i < count; i++) {
        pass_model m;
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
