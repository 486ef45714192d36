/* The exchange between substeps of a run over MPI ranks. The host decides
 * from the owned particles' positions (which it keeps) where each goes: to
 * the rank owning its cell, and as a ghost to every other rank whose box,
 * grown by the halo, holds it (this rank too, keeping it). The device
 * gathers the rows to send; only they cross to the host and over MPI, and
 * the rows received go up and are merged with the particles kept, in id
 * order, by one more gather. The result is dist.c's two rounds (migrate,
 * then ghosts) in one: the same particles in the same order on each rank. */
#include "scene_dist.h"

#include <limits.h>
#include <math.h>
#include <mpi.h>

static const uint32_t gather_spv[] =
#include "dist_gather.spv.inc"
    ;

bool dist_ensure(eddy_scene *s, eddy_buffer *b, uint64_t bytes, const char *label)
{
    bytes = bytes < 16 ? 16 : bytes;
    uint64_t have = b->id ? eddy_buffer_size(s->e, *b) : 0;
    if (have >= bytes)
        return true;
    eddy_destroy_buffer(s->e, *b);
    *b = eddy_create_buffer(s->e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .label = label,
                                                       .size = bytes > 2 * have ? bytes : 2 * have });
    return b->id != 0;
}

/* What a submission may carry of dist's staged bytes: a quarter of the
 * engine's 4 MiB a submission, the rest left to the systems' own. */
#define DIST_STAGED_MAX (1ull << 20)

static bool stage_room(scene_dist *d, uint64_t size)
{
    if (d->staged + size > DIST_STAGED_MAX)
        return false;
    d->staged += size;
    return true;
}

eddy_result dist_put(eddy_scene *s, eddy_buffer b, uint64_t offset, uint64_t size, const void *data)
{
    if (size == 0)
        return EDDY_OK;
    return stage_room(s->dist, size) ? eddy_buffer_stage_write(s->e, b, offset, size, data)
                                     : eddy_buffer_upload(s->e, b, offset, size, data);
}

eddy_result dist_get(eddy_scene *s, eddy_buffer b, uint64_t offset, uint64_t size, void *out, bool *queued)
{
    *queued = size == 0 || stage_room(s->dist, size);
    return size && *queued ? eddy_buffer_stage_read(s->e, b, offset, size, out) : EDDY_OK;
}

eddy_result dist_ran(eddy_scene *s, eddy_result r)
{
    s->dist->staged = 0;
    return r;
}

eddy_result dist_exchange_init(eddy_scene *s)
{
    scene_dist *d = s->dist;
    uint32_t cap = 1;
    for (uint32_t i = 0; i < s->set_count; i++)
        cap = d->sets[i].capacity > cap ? d->sets[i].capacity : cap;
    d->gather = eddy_create_kernel(s->e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "dist.gather",
                                                              .spirv = gather_spv, .spirv_size = sizeof gather_spv });
    uint32_t *ident = malloc(4ull * cap);
    for (uint32_t k = 0; ident && k < cap; k++)
        ident[k] = k;
    d->ident = ident ? eddy_create_buffer(s->e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .label = "dist.identity",
                                                                     .size = 4ull * cap, .data = ident,
                                                                     .data_size = 4ull * cap })
                     : (eddy_buffer){ 0 };
    free(ident);
    d->none = eddy_create_buffer(s->e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .label = "dist.none", .size = 16 });
    return d->gather.id && d->ident.id && d->none.id ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
}

void dist_exchange_free(eddy_scene *s)
{
    scene_dist *d = s->dist;
    for (uint32_t i = 0; d->sets && i < s->set_count; i++)
        for (uint32_t b = 0; b < DIST_SET_BUFFERS; b++) {
            eddy_destroy_buffer(s->e, d->sets[i].xfer[b]);
            eddy_destroy_buffer(s->e, d->sets[i].work[b]);
        }
    for (uint32_t i = 0; d->sets && i < s->set_count; i++)
        eddy_destroy_buffer(s->e, d->sets[i].perm);
    eddy_destroy_buffer(s->e, d->ident);
    eddy_destroy_buffer(s->e, d->none);
    eddy_destroy_kernel(s->e, d->gather);
}

int dist_add_gather(eddy_scene *s, eddy_graph g, eddy_buffer perm, eddy_buffer a, eddy_buffer b, eddy_buffer dst,
                      uint32_t count, uint32_t words, uint32_t split)
{
    uint32_t push[3] = { count, words, split };
    double most = eddy_engine_device(s->e)->max_workgroup_count[0];
    return eddy_graph_add_pass(s->e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc), .label = "dist.gather",
        .kernel = s->dist->gather, .groups = { (uint32_t)fmin(ceil(count / 64.0), most) }, .push = push,
        .push_size = sizeof push,
        .bindings = { { perm, EDDY_READ }, { a, EDDY_READ }, { b, EDDY_READ }, { dst, EDDY_WRITE } } });
}

/* Where one owned particle goes: to rank `to` (as its owner when kind is
 * 0, as a ghost when 1), `at` its place here. */
typedef struct dist_send {
    uint32_t key; /* to x 2 + kind: the order rows are sent in */
    uint32_t at;
} dist_send;

/* The plan for set ds: the rows to send, grouped by rank and kind, each
 * group in id order (counts[2 q + kind]), and the particles kept here
 * (keep[at]: 0 dropped, 1 owned, 2 a ghost). */
static bool decide(scene_dist *d, dist_set *ds, dist_send **out, uint32_t *sends, int *counts, uint8_t *keep)
{
    uint32_t me = (uint32_t)d->ctx.rank, ranks = (uint32_t)d->ctx.size, *near = malloc(4ull * ranks);
    uint64_t cap = (uint64_t)ds->owned * (ranks < 28 ? ranks : 28) + 1, n = 0;
    dist_send *list = malloc(cap * sizeof *list), *sorted = malloc(cap * sizeof *sorted);
    bool ok = near && list && sorted;
    memset(keep, 0, ds->local);
    for (uint32_t j = 0; ok && j < ds->local; j++) {
        if (!ds->mine[j])
            continue;
        int32_t c[3];
        dist_cell_of(&d->grid, ds->pos + 4 * (size_t)j, c);
        uint32_t o = dc_owner(&d->plan, c), k = dc_near(&d->plan, c, near, ranks);
        /* At most 27 ranks are near a cell (its own and the 26 around it,
         * each box at least a halo thick): the list has room. */
        if (o == me)
            keep[j] = 1;
        else
            ok = ok && n < cap && (list[n++] = (dist_send){ 2 * o, j }, true);
        for (uint32_t x = 0; x < k && x < ranks; x++) {
            if (near[x] == o)
                continue;
            if (near[x] == me)
                keep[j] = 2;
            else
                ok = ok && n < cap && (list[n++] = (dist_send){ 2 * near[x] + 1, j }, true);
        }
    }
    /* A stable counting sort by rank and kind: ids stay ascending. */
    memset(counts, 0, 2 * ranks * sizeof *counts);
    for (uint64_t k = 0; ok && k < n; k++)
        counts[list[k].key]++;
    uint64_t *at = ok ? calloc(2 * (size_t)ranks + 1, sizeof *at) : NULL;
    for (uint32_t q = 0; at && q < 2 * ranks; q++)
        at[q + 1] = at[q] + (uint64_t)counts[q];
    for (uint64_t k = 0; at && k < n; k++)
        sorted[at[list[k].key]++] = list[k];
    ok = ok && at;
    free(at), free(near), free(list);
    if (!ok) {
        free(sorted);
        return false;
    }
    *out = sorted;
    *sends = (uint32_t)n;
    return true;
}

/* The rows of the particles at[0..n) from the device, one row each (every
 * buffer, in the set's order), into rows. */
static eddy_result fetch_rows(eddy_scene *s, dist_set *ds, const dist_send *list, uint32_t n, unsigned char *rows)
{
    scene_dist *d = s->dist;
    if (n == 0)
        return EDDY_OK;
    uint32_t *idx = malloc(4ull * n);
    /* Buffer b's rows land at n * offset[b]: one area each. */
    unsigned char *tmp = malloc((uint64_t)n * ds->stride + 16);
    bool queued[DIST_SET_BUFFERS] = { false };
    eddy_result r = idx && tmp && dist_ensure(s, &ds->perm, 4ull * n, "dist.order") ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
    for (uint32_t k = 0; idx && k < n; k++)
        idx[k] = list[k].at;
    if (r == EDDY_OK)
        r = dist_put(s, ds->perm, 0, 4ull * n, idx);
    eddy_graph g = r == EDDY_OK ? eddy_create_graph(s->e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc),
                                                                           .label = "dist.send" })
                                : (eddy_graph){ 0 };
    for (uint32_t b = 0; b < ds->buffers && r == EDDY_OK; b++) {
        if (!dist_ensure(s, &ds->xfer[b], (uint64_t)n * ds->esize[b], "dist.rows"))
            r = EDDY_ERROR_OUT_OF_MEMORY;
        else if (dist_add_gather(s, g, ds->perm, ds->buf[b], d->none, ds->xfer[b], n, ds->esize[b] / 4, UINT32_MAX) < 0)
            r = EDDY_ERROR_VULKAN;
    }
    for (uint32_t b = 0; b < ds->buffers && r == EDDY_OK; b++)
        r = dist_get(s, ds->xfer[b], 0, (uint64_t)n * ds->esize[b], tmp + (size_t)n * ds->offset[b], &queued[b]);
    if (r == EDDY_OK)
        r = dist_ran(s, g.id ? eddy_graph_run(s->e, g, 1) : EDDY_ERROR_VULKAN);
    for (uint32_t b = 0; b < ds->buffers && r == EDDY_OK; b++) {
        unsigned char *area = tmp + (size_t)n * ds->offset[b];
        if (!queued[b])
            r = eddy_buffer_download(s->e, ds->xfer[b], 0, (uint64_t)n * ds->esize[b], area);
        for (uint32_t k = 0; k < n && r == EDDY_OK; k++)
            memcpy(rows + (size_t)k * ds->stride + ds->offset[b], area + (size_t)k * ds->esize[b], ds->esize[b]);
    }
    eddy_destroy_graph(s->e, g);
    free(idx), free(tmp);
    return r;
}

/* One particle of the new arrangement: its id and where it comes from
 * (below the old count: kept here; above: a received row). */
typedef struct dist_slot {
    uint32_t id, from;
    uint8_t mine;
} dist_slot;

static int by_id(const void *a, const void *b)
{
    uint32_t x = ((const dist_slot *)a)->id, y = ((const dist_slot *)b)->id;
    return (x > y) - (x < y);
}

/* The kept particles and the received rows into the set's buffers, in id
 * order, by passes added to g (the substep's graph, before the systems'
 * passes); the host's ids, flags, positions and velocities likewise. */
static eddy_result merge(eddy_scene *s, uint32_t i, eddy_graph g, const uint8_t *keep, const uint32_t *rid,
                         const unsigned char *rows, const int *rcounts)
{
    scene_dist *d = s->dist;
    dist_set *ds = &d->sets[i];
    uint32_t ranks = (uint32_t)d->ctx.size, old = ds->local, got = 0, n = 0;
    for (uint32_t q = 0; q < 2 * ranks; q++)
        got += (uint32_t)rcounts[q];
    dist_slot *slot = malloc(((size_t)old + got + 1) * sizeof *slot);
    uint32_t *perm = malloc(4ull * (old + got) + 4);
    float *pv = malloc(32ull * (old + got) + 32);
    unsigned char *tmp = malloc((uint64_t)got * 256 + 16);
    if (!slot || !perm || !pv || !tmp) {
        free(slot), free(perm), free(pv), free(tmp);
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    for (uint32_t j = 0; j < old; j++)
        if (keep[j])
            slot[n++] = (dist_slot){ ds->id[j], j, keep[j] == 1 };
    for (uint32_t q = 0, r = 0; q < ranks; q++)
        for (uint32_t kind = 0; kind < 2; kind++)
            for (int k = 0; k < rcounts[2 * q + kind]; k++, r++)
                slot[n++] = (dist_slot){ rid[r], old + r, kind == 0 };
    qsort(slot, n, sizeof *slot, by_id);
    eddy_result r = n <= ds->capacity ? EDDY_OK : EDDY_ERROR_LIMIT;
    for (uint32_t k = 0; k < n && r == EDDY_OK; k++) {
        perm[k] = slot[k].from;
        const float *p = slot[k].from < old ? ds->pos + 4 * (size_t)slot[k].from
                                            : (const float *)(const void *)(rows + (size_t)(slot[k].from - old) * ds->stride + ds->offset[0]);
        const float *v = slot[k].from < old ? ds->vel + 4 * (size_t)slot[k].from
                                            : (const float *)(const void *)(rows + (size_t)(slot[k].from - old) * ds->stride + ds->offset[1]);
        memcpy(pv + 8 * (size_t)k, p, 16);
        memcpy(pv + 8 * (size_t)k + 4, v, 16);
    }
    if (r == EDDY_OK && (!dist_ensure(s, &ds->perm, 4ull * n, "dist.order")))
        r = EDDY_ERROR_OUT_OF_MEMORY;
    if (r == EDDY_OK && n)
        r = dist_put(s, ds->perm, 0, 4ull * n, perm);
    for (uint32_t b = 0; b < ds->buffers && r == EDDY_OK && n; b++) {
        uint32_t es = ds->esize[b];
        for (uint32_t k = 0; k < got; k++)
            memcpy(tmp + (size_t)k * es, rows + (size_t)k * ds->stride + ds->offset[b], es);
        if (!dist_ensure(s, &ds->xfer[b], (uint64_t)got * es, "dist.rows") ||
            !dist_ensure(s, &ds->work[b], (uint64_t)ds->capacity * es, "dist.work"))
            r = EDDY_ERROR_OUT_OF_MEMORY;
        if (r == EDDY_OK && got)
            r = dist_put(s, ds->xfer[b], 0, (uint64_t)got * es, tmp);
        if (r == EDDY_OK && (dist_add_gather(s, g, ds->perm, ds->buf[b], ds->xfer[b], ds->work[b], n, es / 4, old) < 0 ||
                             dist_add_gather(s, g, d->ident, ds->work[b], d->none, ds->buf[b], n, es / 4, UINT32_MAX) < 0))
            r = EDDY_ERROR_VULKAN;
    }
    uint32_t owned = 0;
    for (uint32_t k = 0; k < n && r == EDDY_OK; k++) {
        ds->id[k] = slot[k].id;
        ds->mine[k] = slot[k].mine;
        owned += slot[k].mine;
        memcpy(ds->pos + 4 * (size_t)k, pv + 8 * (size_t)k, 16);
        memcpy(ds->vel + 4 * (size_t)k, pv + 8 * (size_t)k + 4, 16);
    }
    if (r == EDDY_OK) {
        ds->local = n, ds->owned = owned;
        d->ghosts += n - owned;
    }
    free(slot), free(perm), free(pv), free(tmp);
    return r == EDDY_OK ? eddy_particles_set_count(s->e, s->sets[i].handle, n) : r;
}

/* Sums of counts, and their offsets, for MPI (which counts in int). */
static bool offsets(const int *counts, uint32_t ranks, uint64_t unit, int *n, int *at, uint64_t *total)
{
    uint64_t sum = 0;
    for (uint32_t q = 0; q < ranks; q++) {
        uint64_t c = ((uint64_t)counts[2 * q] + (uint64_t)counts[2 * q + 1]) * unit;
        if (sum > INT_MAX || c > INT_MAX)
            return false;
        n[q] = (int)c, at[q] = (int)sum;
        sum += c;
    }
    *total = sum / (unit ? unit : 1);
    return sum <= INT_MAX;
}

/* A whole set stays where it is: each rank owns the particles of its own
 * cells, as it would own them split. */
static void own_cells(scene_dist *d, dist_set *ds)
{
    ds->owned = 0;
    for (uint32_t j = 0; j < ds->local; j++) {
        int32_t c[3];
        dist_cell_of(&d->grid, ds->pos + 4 * (size_t)j, c);
        ds->mine[j] = dc_owner(&d->plan, c) == (uint32_t)d->ctx.rank;
        ds->owned += ds->mine[j];
    }
}

/* Collective: every rank calls it for every set, with what failed before
 * (prior), so the ranks' agreements stay paired. */
static eddy_result exchange_set(eddy_scene *s, uint32_t i, eddy_graph g, eddy_result prior)
{
    scene_dist *d = s->dist;
    dist_set *ds = &d->sets[i];
    if (ds->whole) { /* the same on every rank: no collective to pair */
        own_cells(d, ds);
        return prior;
    }
    uint32_t ranks = (uint32_t)d->ctx.size, sends = 0;
    dist_send *list = NULL;
    int *counts = calloc(4 * (size_t)ranks, sizeof *counts), *rcounts = counts ? counts + 2 * ranks : NULL;
    int *sn = malloc(8 * (size_t)ranks * sizeof *sn), *sa = sn ? sn + ranks : NULL, *rn = sn ? sn + 2 * ranks : NULL,
        *ra = sn ? sn + 3 * ranks : NULL, *sb = sn ? sn + 4 * ranks : NULL, *sba = sn ? sn + 5 * ranks : NULL,
        *rb = sn ? sn + 6 * ranks : NULL, *rba = sn ? sn + 7 * ranks : NULL;
    uint8_t *keep = malloc((size_t)ds->local + 1);
    unsigned char *rows = NULL, *rrows = NULL;
    uint32_t *sid = NULL, *rid = NULL;
    uint64_t total = 0, rtotal = 0, tb;
    eddy_result r = prior != EDDY_OK ? prior
                  : counts && sn && keep && decide(d, ds, &list, &sends, counts, keep) ? EDDY_OK
                                                                                      : EDDY_ERROR_OUT_OF_MEMORY;
    if (r == EDDY_OK && !(offsets(counts, ranks, 1, sn, sa, &total) && offsets(counts, ranks, ds->stride, sb, sba, &tb)))
        r = EDDY_ERROR_LIMIT;
    if (r == EDDY_OK && (!(rows = malloc((size_t)sends * ds->stride + 1)) || !(sid = malloc(4ull * sends + 4))))
        r = EDDY_ERROR_OUT_OF_MEMORY;
    for (uint32_t k = 0; r == EDDY_OK && k < sends; k++) {
        sid[k] = ds->id[list[k].at];
        d->migrations += d->handed && (list[k].key & 1) == 0; /* not the start's hand-out */
    }
    double t0 = MPI_Wtime();
    if (r == EDDY_OK)
        r = fetch_rows(s, ds, list, sends, rows);
    d->t_pack += MPI_Wtime() - t0;
    if ((r = scene_dist_agree(s, r)) == EDDY_OK) {
        t0 = MPI_Wtime();
        MPI_Alltoall(counts, 2, MPI_INT, rcounts, 2, MPI_INT, d->ctx.comm);
        bool fits = offsets(rcounts, ranks, 1, rn, ra, &rtotal) && offsets(rcounts, ranks, ds->stride, rb, rba, &tb);
        if (!fits)
            r = EDDY_ERROR_LIMIT;
        else if (!(rrows = malloc((size_t)rtotal * ds->stride + 1)) || !(rid = malloc(4ull * rtotal + 4)))
            r = EDDY_ERROR_OUT_OF_MEMORY;
        if ((r = scene_dist_agree(s, r)) == EDDY_OK) {
            MPI_Alltoallv(sid, sn, sa, MPI_UINT32_T, rid, rn, ra, MPI_UINT32_T, d->ctx.comm);
            MPI_Alltoallv(rows, sb, sba, MPI_BYTE, rrows, rb, rba, MPI_BYTE, d->ctx.comm);
            d->halo_bytes += (uint64_t)sends * (ds->stride + 4);
        }
        d->t_exchange += MPI_Wtime() - t0;
    }
    t0 = MPI_Wtime();
    if (r == EDDY_OK)
        r = merge(s, i, g, keep, rid, rrows, rcounts);
    d->t_pack += MPI_Wtime() - t0;
    free(counts), free(sn), free(keep), free(list), free(rows), free(rrows), free(sid), free(rid);
    return r;
}

eddy_result dist_exchange(eddy_scene *s, eddy_graph g)
{
    eddy_result r = EDDY_OK;
    for (uint32_t i = 0; i < s->set_count; i++)
        r = exchange_set(s, i, g, r);
    s->dist->handed = true;
    return r;
}

/* A system that moves particles within the substep reaches as far as its
 * travel limit lets them go: an owned particle of set i that ended (now)
 * farther from its start (ds->pos) fails the run (the ghosts it needed may
 * have been missing). */
static eddy_result too_fast(eddy_scene *s, uint32_t i, const float *now)
{
    dist_set *ds = &s->dist->sets[i];
    for (uint32_t j = 0; j < ds->local; j++) {
        const float *a = ds->pos + 4 * (size_t)j, *b = now + 4 * (size_t)j;
        double dx = (double)b[0] - a[0], dy = (double)b[1] - a[1], dz = (double)b[2] - a[2];
        double moved = sqrt(dx * dx + dy * dy + dz * dz);
        if (!ds->mine[j] || moved <= ds->travel || !isfinite(moved))
            continue;
        eddy_log(s->e, EDDY_LOG_ERROR, "dist.too_fast", "particle set '%s': particle %u moved %.3g m in one substep "
                 "of step %llu, farther than the %.3g m its systems' reach allows over ranks: lower dt",
                 s->sets[i].name, ds->id[j], moved, (unsigned long long)s->steps_done + 1, ds->travel);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    return EDDY_OK;
}

eddy_result dist_after_step(eddy_scene *s)
{
    scene_dist *d = s->dist;
    eddy_result r = EDDY_OK;
    for (uint32_t i = 0; i < s->set_count && r == EDDY_OK; i++) {
        dist_set *ds = &d->sets[i];
        /* The new positions beside the substep's start, when a system set a
         * travel limit; else straight over them. */
        float *now = ds->travel > 0 ? malloc(16ull * ds->local + 16) : ds->pos;
        r = now ? eddy_buffer_download(s->e, ds->buf[0], 0, 16ull * ds->local, now) : EDDY_ERROR_OUT_OF_MEMORY;
        if (r == EDDY_OK && now != ds->pos && (r = too_fast(s, i, now)) == EDDY_OK)
            memcpy(ds->pos, now, 16ull * ds->local);
        if (now != ds->pos)
            free(now);
        if (r == EDDY_OK)
            r = eddy_buffer_download(s->e, ds->buf[1], 0, 16ull * ds->local, ds->vel);
        for (uint32_t j = 0; j < ds->local && r == EDDY_OK; j++) {
            const float *x = ds->pos + 4 * (size_t)j, *v = ds->vel + 4 * (size_t)j;
            if (!ds->mine[j] || (isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]) && isfinite(v[0]) &&
                                 isfinite(v[1]) && isfinite(v[2])))
                continue;
            eddy_log(s->e, EDDY_LOG_ERROR, "particles.not_finite", "particle set '%s': particle %u has a non-finite "
                     "position or velocity in step %llu: the simulation is unstable; lower dt or check the "
                     "parameters", s->sets[i].name, ds->id[j], (unsigned long long)s->steps_done + 1);
            r = EDDY_ERROR_INVALID_ARGUMENT;
        }
    }
    return r;
}

eddy_result dist_owned_rows(eddy_scene *s, uint32_t i, unsigned char *rows, uint32_t *ids)
{
    dist_set *ds = &s->dist->sets[i];
    dist_send *list = malloc(((size_t)ds->owned + 1) * sizeof *list);
    if (!list)
        return EDDY_ERROR_OUT_OF_MEMORY;
    uint32_t n = 0;
    for (uint32_t j = 0; j < ds->local; j++)
        if (ds->mine[j]) {
            ids[n] = ds->id[j];
            list[n++] = (dist_send){ 0, j };
        }
    eddy_result r = fetch_rows(s, ds, list, n, rows);
    free(list);
    return r;
}

eddy_result dist_put_whole(eddy_scene *s, uint32_t i, const unsigned char *rows, const uint32_t *ids,
                           uint32_t total)
{
    dist_set *ds = &s->dist->sets[i];
    if (total > ds->capacity)
        return EDDY_ERROR_LIMIT;
    uint32_t *where = malloc(4ull * total + 4);
    uint8_t *was = calloc((size_t)total + 1, 1);
    unsigned char *tmp = malloc((uint64_t)total * 256 + 16);
    eddy_result r = where && was && tmp ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
    for (uint32_t k = 0; r == EDDY_OK && k < total; k++)
        where[k] = UINT32_MAX;
    for (uint32_t k = 0; r == EDDY_OK && k < total; k++) {
        if (ids[k] >= total || where[ids[k]] != UINT32_MAX)
            r = EDDY_ERROR_INVALID_ARGUMENT; /* a particle lost or held twice: a bug, never a file */
        else
            where[ids[k]] = k;
    }
    for (uint32_t j = 0; r == EDDY_OK && j < ds->local; j++)
        if (ds->mine[j])
            was[ds->id[j]] = 1;
    for (uint32_t b = 0; b < ds->buffers && r == EDDY_OK; b++) {
        uint32_t es = ds->esize[b];
        for (uint32_t k = 0; k < total; k++)
            memcpy(tmp + (size_t)k * es, rows + (size_t)where[k] * ds->stride + ds->offset[b], es);
        r = total ? eddy_buffer_upload(s->e, ds->buf[b], 0, (uint64_t)total * es, tmp) : EDDY_OK;
    }
    uint32_t owned = 0;
    for (uint32_t k = 0; r == EDDY_OK && k < total; k++) {
        const unsigned char *row = rows + (size_t)where[k] * ds->stride;
        ds->id[k] = k;
        ds->mine[k] = was[k];
        owned += was[k];
        memcpy(ds->pos + 4 * (size_t)k, row + ds->offset[0], 16);
        memcpy(ds->vel + 4 * (size_t)k, row + ds->offset[1], 16);
    }
    if (r == EDDY_OK) {
        ds->local = total, ds->owned = owned;
        r = eddy_particles_set_count(s->e, s->sets[i].handle, total);
    }
    free(where), free(was), free(tmp);
    return r;
}
