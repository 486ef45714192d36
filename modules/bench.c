/* What every module's bench cases share (eddy_bench.h): timing a graph, the
 * clock of the C references, and the per-particle counts of the pass
 * profile. */
#include "eddy/eddy_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double eddy_bench_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

eddy_result eddy_bench_time_graph(eddy_engine *e, eddy_graph g, uint32_t iterations, eddy_bench_result *r)
{
    eddy_pass_time before[64];
    eddy_result res = eddy_graph_run(e, g, 1);
    if (res != EDDY_OK)
        return res;
    int n = eddy_graph_profile(e, g, before, 64);
    double t0 = eddy_bench_now_ms();
    res = eddy_graph_run(e, g, iterations);
    r->wall_ms = eddy_bench_now_ms() - t0;
    r->pass_count = eddy_graph_profile(e, g, r->passes, 64);
    if (r->pass_count > 64)
        r->pass_count = 64;
    /* The tool prints the result after the case has destroyed its graph,
     * whose labels the profile points at. */
    for (int i = 0; i < r->pass_count; i++) {
        snprintf(r->labels[i], sizeof r->labels[i], "%s", r->passes[i].label);
        r->passes[i].label = r->labels[i];
    }
    r->gpu_ms = 0;
    for (int i = 0; i < r->pass_count && i < n; i++) {
        r->passes[i].total_ms -= before[i].total_ms;
        r->passes[i].calls -= before[i].calls;
        r->gpu_ms += r->passes[i].total_ms;
    }
    r->iterations = iterations;
    return res;
}

/* Sums candidates, neighbours within h and list entries within list_r over
 * every particle, the particles bucketed in cells of size h (start: each
 * cell's first in order, key: each particle's cell). */
static void count_pairs(const float *pos, uint32_t n, float h, float list_r, const uint64_t dims[3],
                        const uint32_t *start, const uint32_t *order, const uint32_t *key, eddy_bench_stats *out)
{
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
    out->candidates = cand / n;
    out->neighbours = neigh / n;
    out->list = list / n;
}

bool eddy_bench_count_neighbours(const float *pos, uint32_t n, float h, float list_r, eddy_bench_stats *out)
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
    count_pairs(pos, n, h, list_r, dims, start, order, key, out);
    free(start), free(order), free(key);
    return true;
}

void eddy_bench_count_ghosts(const float *pos, uint32_t n, float h, float s, const float lo[3], const float hi[3],
                             eddy_bench_stats *out)
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
