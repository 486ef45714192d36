/* The host side of a distributed step: see dist.h. */
#include "dist.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool fail(dist_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static bool fail(dist_ctx *ctx, const char *fmt, ...)
{
    if (ctx->err[0])
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->err, sizeof ctx->err, fmt, ap);
    va_end(ap);
    return false;
}

bool dist_table_init(dist_table *t, uint32_t stride, uint32_t capacity)
{
    memset(t, 0, sizeof *t);
    t->stride = stride;
    t->capacity = capacity ? capacity : 1;
    t->id = malloc((size_t)t->capacity * sizeof *t->id);
    t->row = malloc((size_t)t->capacity * stride);
    if (stride < 12 || stride % 4 || !t->id || !t->row) {
        dist_table_free(t);
        return false;
    }
    return true;
}

void dist_table_free(dist_table *t)
{
    free(t->id);
    free(t->row);
    memset(t, 0, sizeof *t);
}

static bool reserve(dist_table *t, uint32_t count)
{
    if (count <= t->capacity)
        return true;
    uint64_t cap = (uint64_t)t->capacity * 2 > count ? (uint64_t)t->capacity * 2 : count;
    if (cap > UINT32_MAX / 2 || cap * t->stride > SIZE_MAX / 2)
        return false;
    uint32_t *id = realloc(t->id, (size_t)cap * sizeof *id);
    if (id)
        t->id = id;
    unsigned char *row = id ? realloc(t->row, (size_t)cap * t->stride) : NULL;
    if (row)
        t->row = row;
    if (!id || !row)
        return false;
    t->capacity = (uint32_t)cap;
    return true;
}

bool dist_table_push(dist_table *t, uint32_t id, const void *row)
{
    if (!reserve(t, t->count + 1))
        return false;
    t->id[t->count] = id;
    memcpy(t->row + (size_t)t->count * t->stride, row, t->stride);
    t->count++;
    return true;
}

typedef struct by_id {
    uint32_t id, at;
} by_id;

static int cmp_id(const void *a, const void *b)
{
    uint32_t x = ((const by_id *)a)->id, y = ((const by_id *)b)->id;
    return (x > y) - (x < y);
}

bool dist_table_sort(dist_table *t)
{
    by_id *o = malloc((size_t)t->count * sizeof *o + 1);
    unsigned char *row = malloc((size_t)t->capacity * t->stride);
    if (!o || !row) {
        free(o);
        free(row);
        return false;
    }
    for (uint32_t i = 0; i < t->count; i++)
        o[i] = (by_id){ t->id[i], i };
    qsort(o, t->count, sizeof *o, cmp_id);
    for (uint32_t i = 0; i < t->count; i++) {
        t->id[i] = o[i].id;
        memcpy(row + (size_t)i * t->stride, t->row + (size_t)o[i].at * t->stride, t->stride);
    }
    free(t->row);
    t->row = row;
    free(o);
    return true;
}

void dist_cell_of(const dist_grid *g, const float p[3], int32_t c[3])
{
    for (int a = 0; a < 3; a++) {
        float f = floorf((p[a] - g->origin[a]) * g->inv_cell);
        c[a] = !(f >= 0) ? 0 : f >= (float)g->dims[a] ? g->dims[a] - 1 : (int32_t)f;
    }
}

static const float *position(const dist_table *t, uint32_t i)
{
    return (const float *)(const void *)(t->row + (size_t)i * t->stride);
}

bool dist_agree(dist_ctx *ctx, bool ok)
{
    int mine = ok ? ctx->size : ctx->rank, first = 0;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, ctx->comm);
    if (first == ctx->size)
        return true;
    char msg[sizeof ctx->err + 32];
    snprintf(msg, sizeof msg, "rank %d: %s", ctx->rank, ctx->err[0] ? ctx->err : "failed");
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, first, ctx->comm);
    snprintf(ctx->err, sizeof ctx->err, "%.*s", (int)sizeof ctx->err - 1, msg);
    return false;
}

/* The occupied cells of t with their particle counts (sorted by cell). */
static int cmp_cell(const void *a, const void *b)
{
    const dc_cell *x = a, *y = b;
    for (int k = 2; k >= 0; k--)
        if (x->c[k] != y->c[k])
            return x->c[k] < y->c[k] ? -1 : 1;
    return 0;
}

static dc_cell *local_cells(const dist_grid *g, const dist_table *t, uint32_t *count)
{
    dc_cell *c = malloc(((size_t)t->count + 1) * sizeof *c);
    if (!c)
        return NULL;
    for (uint32_t i = 0; i < t->count; i++) {
        dist_cell_of(g, position(t, i), c[i].c);
        c[i].weight = 1;
    }
    qsort(c, t->count, sizeof *c, cmp_cell);
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->count; i++) {
        if (n && !cmp_cell(&c[n - 1], &c[i]))
            c[n - 1].weight++;
        else
            c[n++] = c[i];
    }
    *count = n;
    return c;
}

bool dist_plan(dist_ctx *ctx, const dist_grid *g, const dist_table *t, uint32_t halo, const dc_plan *before,
               const double *seconds, dc_plan *out)
{
    uint32_t n = 0;
    dc_cell *mine = local_cells(g, t, &n);
    int bytes = mine && n <= DIST_MAX_MESSAGE / sizeof *mine ? (int)(n * sizeof *mine) : -1;
    if (!dist_agree(ctx, bytes >= 0 || fail(ctx, "out of memory for the cell weights of %u particles", t->count))) {
        free(mine);
        return false;
    }
    int *counts = malloc((size_t)ctx->size * sizeof *counts), *displs = malloc((size_t)ctx->size * sizeof *displs);
    bool ok = counts && displs;
    if (ok)
        MPI_Allgather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, ctx->comm);
    size_t total = 0;
    for (int r = 0; ok && r < ctx->size; r++) {
        displs[r] = (int)total;
        total += (size_t)counts[r];
        ok = total <= INT_MAX;
    }
    dc_cell *all = ok ? malloc(total + 1) : NULL;
    ok = dist_agree(ctx, all != NULL || fail(ctx, "out of memory gathering %zu bytes of cell weights", total));
    if (ok) {
        MPI_Allgatherv(mine, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, ctx->comm);
        size_t cells = total / sizeof *all;
        if (before && seconds)
            dc_reweight(before, all, cells, seconds);
        char err[200];
        /* Every rank splits the same cells (gathered in rank order; the
         * split does not depend on their order anyway). */
        ok = dc_split(out, g->dims, (uint32_t)ctx->size, halo, all, cells, err, sizeof err) ||
             fail(ctx, "cannot split the grid: %s", err);
    }
    free(all);
    free(counts);
    free(displs);
    free(mine);
    return ok;
}

/* Exchanges, with every rank, the particles of t that pick(t, i, r)
 * selects for rank r (ids ascending within each), into in (appended). */
typedef bool (*dist_pick)(const dc_plan *p, const dist_grid *g, const float x[3], int rank, int to);

static bool exchange(dist_ctx *ctx, const dc_plan *p, const dist_grid *g, const dist_table *t, dist_pick pick,
                     dist_table *in, uint64_t *sent, bool *keep)
{
    int size = ctx->size;
    int *n_out = calloc((size_t)size * 4, sizeof *n_out), *n_in = n_out + size, *d_out = n_in + size,
        *d_in = d_out + size;
    bool ok = n_out != NULL;
    for (uint32_t i = 0; ok && i < t->count; i++) {
        if (keep)
            keep[i] = true;
        for (int r = 0; r < size; r++)
            if (pick(p, g, position(t, i), ctx->rank, r)) {
                n_out[r]++;
                if (keep)
                    keep[i] = false;
            }
    }
    /* Ids and rows in one message a rank: 4 + stride bytes a particle. */
    uint64_t per = 4u + t->stride, total_out = 0, total_in = 0;
    for (int r = 0; ok && r < size; r++) {
        ok = (uint64_t)n_out[r] * per <= DIST_MAX_MESSAGE;
        total_out += (uint64_t)n_out[r];
    }
    if (!dist_agree(ctx, ok || fail(ctx, "more than %u bytes to send to one rank", DIST_MAX_MESSAGE))) {
        free(n_out);
        return false;
    }
    MPI_Alltoall(n_out, 1, MPI_INT, n_in, 1, MPI_INT, ctx->comm);
    for (int r = 0; r < size; r++) {
        d_out[r] = r ? d_out[r - 1] + n_out[r - 1] * (int)per : 0;
        d_in[r] = r ? d_in[r - 1] + n_in[r - 1] * (int)per : 0;
        total_in += (uint64_t)n_in[r];
    }
    unsigned char *out = malloc(total_out * per + 1), *got = malloc(total_in * per + 1);
    ok = out && got && total_in * per <= INT_MAX && reserve(in, (uint32_t)(in->count + total_in));
    if (dist_agree(ctx, ok || fail(ctx, "out of memory for %llu particles from other ranks",
                                   (unsigned long long)total_in))) {
        int *at = calloc((size_t)size, sizeof *at);
        for (uint32_t i = 0; at && i < t->count; i++)
            for (int r = 0; r < size; r++)
                if (pick(p, g, position(t, i), ctx->rank, r)) {
                    unsigned char *dst = out + d_out[r] + (size_t)at[r]++ * per;
                    memcpy(dst, &t->id[i], 4);
                    memcpy(dst + 4, t->row + (size_t)i * t->stride, t->stride);
                }
        free(at);
        for (int r = 0; r < size; r++)
            n_out[r] *= (int)per, n_in[r] *= (int)per;
        MPI_Alltoallv(out, n_out, d_out, MPI_BYTE, got, n_in, d_in, MPI_BYTE, ctx->comm);
        for (uint64_t k = 0; k < total_in; k++) {
            uint32_t id;
            memcpy(&id, got + k * per, 4);
            dist_table_push(in, id, got + k * per + 4); /* reserved above */
        }
        *sent = total_out;
    } else {
        ok = false;
    }
    free(out);
    free(got);
    free(n_out);
    return ok;
}

static bool leaves(const dc_plan *p, const dist_grid *g, const float x[3], int rank, int to)
{
    int32_t c[3];
    dist_cell_of(g, x, c);
    return to != rank && dc_owner(p, c) == (uint32_t)to;
}

static bool near(const dc_plan *p, const dist_grid *g, const float x[3], int rank, int to)
{
    dc_box b;
    int32_t c[3];
    if (!dc_halo(p, (uint32_t)rank, (uint32_t)to, &b))
        return false;
    dist_cell_of(g, x, c);
    return c[0] >= b.lo[0] && c[0] < b.hi[0] && c[1] >= b.lo[1] && c[1] < b.hi[1] && c[2] >= b.lo[2] &&
           c[2] < b.hi[2];
}

bool dist_migrate(dist_ctx *ctx, const dc_plan *p, const dist_grid *g, dist_table *t, uint64_t *moved)
{
    dist_table in;
    bool *keep = malloc((size_t)t->count + 1);
    bool ok = dist_table_init(&in, t->stride, 64) && keep;
    if (!dist_agree(ctx, ok || fail(ctx, "out of memory migrating %u particles", t->count))) {
        free(keep);
        dist_table_free(&in);
        return false;
    }
    ok = exchange(ctx, p, g, t, leaves, &in, moved, keep);
    if (ok) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < t->count; i++)
            if (keep[i]) {
                t->id[n] = t->id[i];
                memmove(t->row + (size_t)n * t->stride, t->row + (size_t)i * t->stride, t->stride);
                n++;
            }
        t->count = n;
        for (uint32_t i = 0; ok && i < in.count; i++)
            ok = dist_table_push(t, in.id[i], in.row + (size_t)i * in.stride);
        ok = ok && dist_table_sort(t);
        ok = dist_agree(ctx, ok || fail(ctx, "out of memory keeping %u particles", t->count + in.count));
    }
    free(keep);
    dist_table_free(&in);
    return ok;
}

bool dist_ghosts(dist_ctx *ctx, const dc_plan *p, const dist_grid *g, const dist_table *t, dist_table *ghosts)
{
    uint64_t sent = 0;
    ghosts->count = 0;
    if (!exchange(ctx, p, g, t, near, ghosts, &sent, NULL))
        return false;
    return dist_agree(ctx, dist_table_sort(ghosts) || fail(ctx, "out of memory for %u ghosts", ghosts->count));
}

static int cmp_entry(const void *a, const void *b)
{
    uint64_t x = ((const dist_entry *)a)->key, y = ((const dist_entry *)b)->key;
    return (x > y) - (x < y);
}

static uint64_t linear(const dist_grid *g, const float x[3])
{
    int32_t c[3];
    dist_cell_of(g, x, c);
    return ((uint64_t)c[2] * (uint64_t)g->dims[1] + (uint64_t)c[1]) * (uint64_t)g->dims[0] + (uint64_t)c[0];
}

bool dist_order_build(dist_order *o, const dist_grid *g, const dist_table *t, const dist_table *ghosts)
{
    o->count = t->count + ghosts->count;
    o->entry = malloc((size_t)o->count * sizeof *o->entry + 1);
    uint64_t cells = (uint64_t)g->dims[0] * (uint64_t)g->dims[1] * (uint64_t)g->dims[2];
    if (!o->entry || ghosts->count >= DIST_GHOST || t->count >= DIST_GHOST || cells > UINT32_MAX)
        return false;
    for (uint32_t i = 0; i < t->count; i++)
        o->entry[i] = (dist_entry){ linear(g, position(t, i)) << 32 | t->id[i], i };
    for (uint32_t i = 0; i < ghosts->count; i++)
        o->entry[t->count + i] = (dist_entry){ linear(g, position(ghosts, i)) << 32 | ghosts->id[i], DIST_GHOST | i };
    qsort(o->entry, o->count, sizeof *o->entry, cmp_entry);
    return true;
}

void dist_order_cell(const dist_order *o, uint32_t cell, uint32_t *begin, uint32_t *end)
{
    uint64_t lo = (uint64_t)cell << 32;
    uint32_t a = 0, b = o->count;
    while (a < b) { /* first entry of cell or later */
        uint32_t m = a + (b - a) / 2;
        if (o->entry[m].key < lo)
            a = m + 1;
        else
            b = m;
    }
    *begin = a;
    while (a < o->count && o->entry[a].key >> 32 == cell)
        a++;
    *end = a;
}

void dist_order_free(dist_order *o)
{
    free(o->entry);
    memset(o, 0, sizeof *o);
}
