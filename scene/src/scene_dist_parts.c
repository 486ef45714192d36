/* A substep over MPI ranks in parts (eddy_module.h: eddy_step_parts): the
 * systems declare into one graph after another, and between two parts the
 * ghosts' rows of the buffers a sync names are replaced by their owners'
 * and the values it reduces are summed over the ranks. Solver iterations
 * that read their neighbours' last iterate, or stop on an error over the
 * whole set, then give every owned particle the bits of a run on one rank.
 *
 * Which ghosts a rank refreshes, and from whom, follows from the split and
 * the positions at the substep's start, which every rank holding a particle
 * knows alike: an owned particle goes to every other rank near its cell
 * (dc_near), a ghost comes from the owner of its cell (dc_owner), each
 * list in id order, so the two sides pair row for row without sending ids. */
#include "scene_dist.h"

#include <limits.h>
#include <math.h>
#include <mpi.h>

static const uint32_t scatter_spv[] =
#include "dist_scatter.spv.inc"
    ;

#define DIST_PARTS_MAX 4096u
#define DIST_LOOPS_MAX 8u

typedef struct dist_sync {
    eddy_sync_desc desc;
    uint32_t set;
    uint32_t gset; /* the gathers' set */
} dist_sync;

typedef struct dist_loop {
    uint32_t first, last, times;
    eddy_buffer done;
    uint64_t offset;
} dist_loop;

/* Set i this substep: its ghost pairs (the owned particles each rank
 * holds as ghosts and the ghosts each rank owns, as local indices grouped
 * by rank), and whether its owned flags are up. */
typedef struct dist_pairs {
    bool made;
    uint32_t *send, *recv;   /* local indices, by rank then id */
    int *scount, *rcount;    /* per rank, rows */
    uint32_t sends, recvs;
    bool owned_up;           /* the set's owned flags are uploaded for this substep */
} dist_pairs;

typedef struct dist_parts {
    eddy_step_parts pub;
    eddy_scene *s;
    eddy_graph *graphs;
    dist_sync *syncs;
    uint32_t count, cap; /* parts declared (the last one open) */
    dist_loop loops[DIST_LOOPS_MAX];
    uint32_t loop_count;
    uint32_t set;        /* the declaring system's set (index), or UINT32_MAX */
    dist_pairs *pairs;   /* per set */
    eddy_result failed;  /* a sync or loop refused (logged) */
    /* What the sync after the running part and its loop's test read, when
     * they ride on the part's own submission (queued: landed there). */
    struct {
        uint32_t *order, order_cap, reduced[192], flag;
        bool order_q, reduced_q, flag_q;
    } pre;
} dist_parts;

/* Set i's owned flags, uploaded at the first request of a substep (while
 * the systems declare: nothing in flight reads them). */
static eddy_buffer owned_of(eddy_step_parts *pub, eddy_particles set)
{
    dist_parts *P = pub->scene;
    eddy_scene *s = P->s;
    int i = dist_set_index(s, set);
    if (i < 0)
        return (eddy_buffer){ 0 };
    dist_set *ds = &s->dist->sets[i];
    if (P->pairs[i].owned_up)
        return ds->ownedbuf;
    uint32_t *flags = malloc(4ull * ds->local + 4);
    eddy_result r = flags && dist_ensure(s, &ds->ownedbuf, 4ull * ds->capacity, "dist.owned")
                        ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
    for (uint32_t j = 0; flags && j < ds->local; j++)
        flags[j] = ds->mine[j];
    if (r == EDDY_OK && ds->local)
        r = eddy_buffer_upload(s->e, ds->ownedbuf, 0, 4ull * ds->local, flags);
    free(flags);
    P->pairs[i].owned_up = r == EDDY_OK;
    if (r != EDDY_OK)
        P->failed = r;
    return r == EDDY_OK ? ds->ownedbuf : (eddy_buffer){ 0 };
}

static eddy_result refuse(dist_parts *P, const char *what)
{
    eddy_log(P->s->e, EDDY_LOG_ERROR, "dist.unsupported", "a system's substep in parts: %s", what);
    P->failed = EDDY_ERROR_INVALID_ARGUMENT;
    return EDDY_ERROR_INVALID_ARGUMENT;
}

/* The size of a module ABI 4.6 eddy_sync_desc, the first that had one. */
#define SYNC_DESC_4_6 offsetof(eddy_sync_desc, gather_set)

static eddy_result sync_part(eddy_step_parts *pub, const eddy_sync_desc *given)
{
    dist_parts *P = pub->scene;
    /* An older module's desc ends sooner: the rest reads as zeros. */
    eddy_sync_desc full = { 0 };
    if (given && given->struct_size >= SYNC_DESC_4_6)
        memcpy(&full, given, given->struct_size < sizeof full ? given->struct_size : sizeof full);
    const eddy_sync_desc *d = given ? &full : NULL;
    if (!d || d->struct_size < SYNC_DESC_4_6 || d->buffer_count > EDDY_SYNC_BUFFERS_MAX || d->sum_u64 > 64 ||
        d->max_u32 > 64 || d->reduce_offset % 4 || ((d->sum_u64 || d->max_u32) && !d->reduce.id))
        return refuse(P, "a sync with a bad eddy_sync_desc (struct_size, at most 4 buffers, at most 64 sums and "
                         "64 maxima in a reduce buffer, offset a multiple of 4)");
    for (uint32_t b = 0; b < d->buffer_count; b++)
        if (!d->buffers[b].id || d->row_bytes[b] % 4 || d->row_bytes[b] < 4 || d->row_bytes[b] > 256)
            return refuse(P, "a sync buffer without a handle or with rows not 4..256 bytes, a multiple of 4");
    if (d->gather_count > EDDY_SYNC_BUFFERS_MAX)
        return refuse(P, "a sync gathering more than 4 buffers");
    for (uint32_t b = 0; b < d->gather_count; b++)
        if (!d->gather[b].id || !d->full[b].id || d->gather_bytes[b] % 4 || d->gather_bytes[b] < 4 ||
            d->gather_bytes[b] > 256)
            return refuse(P, "a sync gather without its buffers or with rows not 4..256 bytes, a multiple of 4");
    if ((d->buffer_count || d->gather_count) && P->set == UINT32_MAX)
        return refuse(P, "a sync of rows from a system without a particle set");
    if (d->buffer_count && P->s->dist->sets[P->set].whole)
        return refuse(P, "a ghost refresh of a set with elements (every rank holds it whole: it has no ghosts)");
    int gset = d->gather_set.id ? dist_set_index(P->s, d->gather_set) : (int)P->set;
    if (d->gather_count && gset < 0)
        return refuse(P, "a sync gathering the rows of a set that is not one of the scene's");
    if (P->count >= DIST_PARTS_MAX)
        return refuse(P, "more than 4096 parts");
    if (P->count == P->cap) {
        uint32_t cap = P->cap ? 2 * P->cap : 8;
        eddy_graph *g = realloc(P->graphs, cap * sizeof *g);
        if (g)
            P->graphs = g;
        dist_sync *sy = g ? realloc(P->syncs, cap * sizeof *sy) : NULL;
        if (!sy)
            return P->failed = EDDY_ERROR_OUT_OF_MEMORY;
        P->syncs = sy, P->cap = cap;
    }
    P->syncs[P->count - 1] = (dist_sync){ *d, P->set, gset < 0 ? UINT32_MAX : (uint32_t)gset };
    eddy_graph g = eddy_create_graph(P->s->e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "step" });
    if (!g.id)
        return P->failed = EDDY_ERROR_VULKAN;
    P->graphs[P->count] = g;
    P->syncs[P->count] = (dist_sync){ .set = UINT32_MAX };
    P->count++;
    pub->graph = g;
    pub->part = P->count - 1;
    return EDDY_OK;
}

static eddy_result loop_parts(eddy_step_parts *pub, uint32_t first, uint32_t times, eddy_buffer done,
                              uint64_t offset)
{
    dist_parts *P = pub->scene;
    uint32_t last = P->count - 2; /* the part the last sync ended */
    if (P->count < 2 || first > last || times < 1 || offset % 4 || P->loop_count == DIST_LOOPS_MAX ||
        (P->loop_count && P->loops[P->loop_count - 1].last >= first))
        return refuse(P, "a loop that is not over parts ended by a sync, after every other loop, with at "
                         "least one run");
    P->loops[P->loop_count++] = (dist_loop){ first, last, times, done, offset };
    return EDDY_OK;
}

/* The ghost pairs of set i (collective: the counts are checked against
 * what each peer says it sends, so a mismatch fails the run, never a
 * refresh). */
static eddy_result make_pairs(eddy_scene *s, uint32_t i, dist_pairs *pp)
{
    scene_dist *d = s->dist;
    dist_set *ds = &d->sets[i];
    uint32_t ranks = (uint32_t)d->ctx.size, me = (uint32_t)d->ctx.rank, *near = malloc(4ull * ranks);
    uint64_t cap = (uint64_t)ds->owned * (ranks < 28 ? ranks : 28) + 1;
    uint32_t *skey = malloc(cap * 4), *sj = malloc(cap * 4);
    pp->send = malloc(cap * 4);
    pp->recv = malloc(4ull * (ds->local - ds->owned) + 4);
    pp->scount = calloc(4 * (size_t)ranks, sizeof *pp->scount);
    pp->rcount = pp->scount ? pp->scount + ranks : NULL;
    int *theirs = pp->scount ? pp->scount + 2 * ranks : NULL;
    bool ok = near && skey && sj && pp->send && pp->recv && pp->scount;
    uint64_t n = 0;
    for (uint32_t j = 0; ok && j < ds->local; j++) {
        int32_t c[3];
        dist_cell_of(&d->grid, ds->pos + 4 * (size_t)j, c);
        if (!ds->mine[j]) {
            pp->rcount[dc_owner(&d->plan, c)]++;
            continue;
        }
        uint32_t k = dc_near(&d->plan, c, near, ranks);
        for (uint32_t x = 0; x < k && x < ranks; x++)
            if (near[x] != me)
                ok = ok && n < cap && (skey[n] = near[x], sj[n++] = j, true);
    }
    /* Grouped by rank, ids ascending within (a stable counting sort). */
    for (uint64_t k = 0; ok && k < n; k++)
        pp->scount[skey[k]]++;
    uint64_t *at = calloc(2 * (size_t)ranks + 2, sizeof *at), *rat = at ? at + ranks + 1 : NULL;
    ok = ok && at;
    for (uint32_t q = 0; ok && q < ranks; q++) {
        at[q + 1] = at[q] + (uint64_t)pp->scount[q];
        rat[q + 1] = rat[q] + (uint64_t)pp->rcount[q];
    }
    for (uint64_t k = 0; ok && k < n; k++)
        pp->send[at[skey[k]]++] = sj[k];
    for (uint32_t j = 0; ok && j < ds->local; j++)
        if (!ds->mine[j]) {
            int32_t c[3];
            dist_cell_of(&d->grid, ds->pos + 4 * (size_t)j, c);
            pp->recv[rat[dc_owner(&d->plan, c)]++] = j;
        }
    free(near), free(skey), free(sj), free(at);
    pp->sends = (uint32_t)n, pp->recvs = ds->local - ds->owned;
    eddy_result r = scene_dist_agree(s, ok ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY);
    if (r != EDDY_OK)
        return r;
    MPI_Alltoall(pp->scount, 1, MPI_INT, theirs, 1, MPI_INT, d->ctx.comm);
    for (uint32_t q = 0; q < ranks && r == EDDY_OK; q++)
        if (theirs[q] != pp->rcount[q]) {
            eddy_log(s->e, EDDY_LOG_ERROR, "dist.failed", "particle set '%s': rank %u holds %d ghosts owned by rank "
                     "%u, which sends %d: the ranks disagree on the split", s->sets[i].name, me, pp->rcount[q], q,
                     theirs[q]);
            r = EDDY_ERROR_INVALID_ARGUMENT;
        }
    pp->made = true;
    return scene_dist_agree(s, r);
}

/* Rows idx[0..n) of buf (es bytes each): down into out, gathered on the
 * device so that only they cross to the host (in NULL); or up from in into
 * those rows (shaders/dist_scatter.comp). */
static eddy_result move_rows(eddy_scene *s, dist_set *ds, eddy_buffer buf, uint32_t es, const uint32_t *idx,
                             uint32_t n, const unsigned char *in, unsigned char *out)
{
    if (!n)
        return EDDY_OK;
    bool up = in != NULL, queued = true;
    eddy_buffer *ib = up ? &ds->ridx : &ds->sidx, *sb = up ? &ds->stage_in : &ds->stage_out;
    if (!dist_ensure(s, ib, 4ull * n, up ? "dist.rows_in" : "dist.rows_out") ||
        !dist_ensure(s, sb, (uint64_t)n * es, up ? "dist.stage_in" : "dist.stage_out"))
        return EDDY_ERROR_OUT_OF_MEMORY;
    eddy_graph g = eddy_create_graph(s->e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc),
                                                               .label = up ? "dist.unpack" : "dist.pack" });
    eddy_result r = g.id ? dist_put(s, *ib, 0, 4ull * n, idx) : EDDY_ERROR_VULKAN;
    if (r == EDDY_OK && up)
        r = dist_put(s, *sb, 0, (uint64_t)n * es, in);
    uint32_t push[3] = { n, es / 4, 0 };
    double most = eddy_engine_device(s->e)->max_workgroup_count[0];
    int pass = r != EDDY_OK ? -1
             : up ? eddy_graph_add_pass(s->e, g, &(eddy_pass_desc){ EDDY_SIZED(eddy_pass_desc),
                        .label = "dist.scatter", .kernel = s->dist->scatter,
                        .groups = { (uint32_t)fmax(fmin(ceil(n / 64.0), most), 1) }, .push = push,
                        .push_size = sizeof push,
                        .bindings = { { *ib, EDDY_READ }, { *sb, EDDY_READ }, { buf, EDDY_READ_WRITE } } })
                  : dist_add_gather(s, g, *ib, buf, s->dist->none, *sb, n, es / 4, UINT32_MAX);
    if (r == EDDY_OK && pass < 0)
        r = EDDY_ERROR_VULKAN;
    if (r == EDDY_OK && !up)
        r = dist_get(s, *sb, 0, (uint64_t)n * es, out, &queued);
    if (r == EDDY_OK)
        r = dist_ran(s, eddy_graph_run(s->e, g, 1));
    if (r == EDDY_OK && !queued)
        r = eddy_buffer_download(s->e, *sb, 0, (uint64_t)n * es, out);
    eddy_destroy_graph(s->e, g);
    return r;
}

/* The rows of the pairs' send and receive lists (local indices) through
 * the order buffer's inverse: the order as it landed with the part before
 * the sync (landed), else one download of it. */
static eddy_result pair_rows(eddy_scene *s, dist_set *ds, eddy_buffer order, const uint32_t *landed,
                             const dist_pairs *pp, uint32_t *srow, uint32_t *rrow)
{
    if (!order.id) {
        memcpy(srow, pp->send, 4ull * pp->sends);
        memcpy(rrow, pp->recv, 4ull * pp->recvs);
        return EDDY_OK;
    }
    uint32_t *got = landed ? NULL : malloc(4ull * ds->local + 4), *row = malloc(4ull * ds->local + 4);
    const uint32_t *ord = landed ? landed : got;
    eddy_result r = ord && row ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
    if (r == EDDY_OK && ds->local && got)
        r = eddy_buffer_download(s->e, order, 0, 4ull * ds->local, got);
    for (uint32_t k = 0; r == EDDY_OK && k < ds->local; k++)
        row[k] = UINT32_MAX;
    for (uint32_t k = 0; r == EDDY_OK && k < ds->local; k++) {
        if (ord[k] >= ds->local || row[ord[k]] != UINT32_MAX) {
            eddy_log(s->e, EDDY_LOG_ERROR, "dist.failed", "a sync's order buffer is not a permutation of the %u "
                     "particles on this rank", ds->local);
            r = EDDY_ERROR_INVALID_ARGUMENT;
        } else {
            row[ord[k]] = k;
        }
    }
    for (uint32_t k = 0; r == EDDY_OK && k < pp->sends; k++)
        srow[k] = row[pp->send[k]];
    for (uint32_t k = 0; r == EDDY_OK && k < pp->recvs; k++)
        rrow[k] = row[pp->recv[k]];
    free(got), free(row);
    return r;
}

/* Sums of int counts times unit, with their offsets (MPI counts in int). */
static bool byte_counts(const int *counts, uint32_t ranks, uint32_t unit, int *n, int *at)
{
    uint64_t sum = 0;
    for (uint32_t q = 0; q < ranks; q++) {
        uint64_t c = (uint64_t)counts[q] * unit;
        if (c > INT_MAX || sum > INT_MAX)
            return false;
        n[q] = (int)c, at[q] = (int)sum;
        sum += c;
    }
    return sum <= INT_MAX;
}

/* The ghosts' rows of one buffer from their owners (collective). */
static eddy_result refresh(eddy_scene *s, dist_parts *P, const dist_sync *sy, uint32_t b, const uint32_t *srow,
                           const uint32_t *rrow)
{
    scene_dist *d = s->dist;
    dist_set *ds = &d->sets[sy->set];
    dist_pairs *pp = &P->pairs[sy->set];
    uint32_t ranks = (uint32_t)d->ctx.size, es = sy->desc.row_bytes[b];
    eddy_buffer buf = sy->desc.buffers[b];
    int *cn = malloc(4 * (size_t)ranks * sizeof *cn);
    unsigned char *out = malloc((size_t)pp->sends * es + 4), *in = malloc((size_t)pp->recvs * es + 4);
    eddy_result r = cn && out && in ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
    if (r == EDDY_OK && !(byte_counts(pp->scount, ranks, es, cn, cn + ranks) &&
                          byte_counts(pp->rcount, ranks, es, cn + 2 * ranks, cn + 3 * ranks)))
        r = EDDY_ERROR_LIMIT;
    if (r == EDDY_OK && eddy_buffer_size(s->e, buf) < (uint64_t)ds->local * es)
        r = EDDY_ERROR_INVALID_ARGUMENT;
    double t0 = MPI_Wtime();
    if (r == EDDY_OK)
        r = move_rows(s, ds, buf, es, srow, pp->sends, NULL, out);
    d->t_pack += MPI_Wtime() - t0;
    if ((r = scene_dist_agree(s, r)) != EDDY_OK) {
        free(cn), free(out), free(in);
        return r;
    }
    t0 = MPI_Wtime();
    MPI_Alltoallv(out, cn, cn + ranks, MPI_BYTE, in, cn + 2 * ranks, cn + 3 * ranks, MPI_BYTE, d->ctx.comm);
    d->t_exchange += MPI_Wtime() - t0;
    d->halo_bytes += (uint64_t)pp->sends * es;
    t0 = MPI_Wtime();
    r = move_rows(s, ds, buf, es, rrow, pp->recvs, in, NULL);
    d->t_pack += MPI_Wtime() - t0;
    free(cn), free(out), free(in);
    return r;
}

/* The sum and maxima a sync reduces (collective). */
static eddy_result reduce(eddy_scene *s, const eddy_sync_desc *d, const uint32_t *landed)
{
    scene_dist *sd = s->dist;
    uint32_t words = 2 * d->sum_u64 + d->max_u32;
    uint32_t v[192], out[192];
    eddy_result r = EDDY_OK;
    if (words && landed)
        memcpy(v, landed, 4ull * words);
    else if (words)
        r = eddy_buffer_download(s->e, d->reduce, d->reduce_offset, 4ull * words, v);
    if ((r = scene_dist_agree(s, r)) != EDDY_OK || !words)
        return r;
    double t0 = MPI_Wtime();
    uint64_t sums[64], total[64] = { 0 };
    for (uint32_t k = 0; k < d->sum_u64; k++)
        sums[k] = (uint64_t)v[2 * k] | (uint64_t)v[2 * k + 1] << 32;
    /* Saturating sums (MPI_SUM wraps): every rank's values, added here. */
    uint64_t *all = d->sum_u64 ? malloc((size_t)sd->ctx.size * d->sum_u64 * sizeof *all) : NULL;
    if (d->sum_u64 && !all)
        r = EDDY_ERROR_OUT_OF_MEMORY;
    if ((r = scene_dist_agree(s, r)) != EDDY_OK) {
        free(all);
        return r;
    }
    if (d->sum_u64)
        MPI_Allgather(sums, (int)d->sum_u64, MPI_UINT64_T, all, (int)d->sum_u64, MPI_UINT64_T, sd->ctx.comm);
    for (int q = 0; all && q < sd->ctx.size; q++)
        for (uint32_t k = 0; k < d->sum_u64; k++) {
            uint64_t x = all[(size_t)q * d->sum_u64 + k];
            total[k] = total[k] > UINT64_MAX - x ? UINT64_MAX : total[k] + x;
        }
    free(all);
    if (d->max_u32)
        MPI_Allreduce(v + 2 * d->sum_u64, out + 2 * d->sum_u64, (int)d->max_u32, MPI_UINT32_T, MPI_MAX,
                      sd->ctx.comm);
    sd->t_exchange += MPI_Wtime() - t0;
    for (uint32_t k = 0; k < d->sum_u64; k++)
        out[2 * k] = (uint32_t)total[k], out[2 * k + 1] = (uint32_t)(total[k] >> 32);
    /* The next part reads them: they ride on its submission. */
    return dist_put(s, d->reduce, d->reduce_offset, 4ull * words, out);
}

/* The owned rows of src (particle order, from row `first`) into row
 * first + id of dst on every rank (collective). */
static eddy_result gather_whole(eddy_scene *s, uint32_t set, eddy_buffer src, eddy_buffer dst, uint32_t es,
                                uint32_t first)
{
    scene_dist *d = s->dist;
    dist_set *ds = &d->sets[set];
    int ranks = d->ctx.size, mine = (int)ds->owned;
    int *cn = malloc(4 * (size_t)ranks * sizeof *cn);
    uint32_t *local = malloc(4ull * ds->owned + 4), *ids = malloc(4ull * ds->owned + 4), *all_ids = NULL;
    unsigned char *out = malloc((size_t)ds->owned * es + 4), *in = NULL;
    eddy_result r = cn && local && ids && out ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
    uint32_t n = 0;
    for (uint32_t j = 0; r == EDDY_OK && j < ds->local; j++)
        if (ds->mine[j])
            local[n] = first + j, ids[n++] = ds->id[j];
    uint64_t total = 0;
    if (r == EDDY_OK && (eddy_buffer_size(s->e, src) < ((uint64_t)first + ds->local) * es ||
                         eddy_buffer_size(s->e, dst) < ((uint64_t)first + ds->capacity) * es ||
                         (uint64_t)first + ds->capacity > UINT32_MAX))
        r = EDDY_ERROR_INVALID_ARGUMENT;
    double t0 = MPI_Wtime();
    if (r == EDDY_OK)
        r = move_rows(s, ds, src, es, local, n, NULL, out);
    d->t_pack += MPI_Wtime() - t0;
    if ((r = scene_dist_agree(s, r)) == EDDY_OK) {
        t0 = MPI_Wtime();
        MPI_Allgather(&mine, 1, MPI_INT, cn, 1, MPI_INT, d->ctx.comm);
        for (int q = 0; q < ranks; q++)
            total += (uint64_t)cn[q];
        r = total <= ds->capacity && total * es <= INT_MAX ? EDDY_OK : EDDY_ERROR_LIMIT;
        for (int q = 0, at = 0; r == EDDY_OK && q < ranks; at += cn[q++])
            cn[ranks + q] = at, cn[2 * ranks + q] = cn[q] * (int)es, cn[3 * ranks + q] = at * (int)es;
        if (r == EDDY_OK && (!(all_ids = malloc(4 * total + 4)) || !(in = malloc(total * es + 4))))
            r = EDDY_ERROR_OUT_OF_MEMORY;
        if ((r = scene_dist_agree(s, r)) == EDDY_OK) {
            MPI_Allgatherv(ids, mine, MPI_UINT32_T, all_ids, cn, cn + ranks, MPI_UINT32_T, d->ctx.comm);
            for (uint64_t k = 0; k < total; k++)
                all_ids[k] += first;
            MPI_Allgatherv(out, mine * (int)es, MPI_BYTE, in, cn + 2 * ranks, cn + 3 * ranks, MPI_BYTE, d->ctx.comm);
            d->halo_bytes += (uint64_t)n * (es + 4);
        }
        d->t_exchange += MPI_Wtime() - t0;
    }
    t0 = MPI_Wtime();
    if (r == EDDY_OK)
        r = move_rows(s, ds, dst, es, all_ids, (uint32_t)total, in, NULL);
    d->t_pack += MPI_Wtime() - t0;
    free(cn), free(local), free(ids), free(all_ids), free(out), free(in);
    return r;
}

static eddy_result run_sync(eddy_scene *s, dist_parts *P, const dist_sync *sy)
{
    eddy_result r = EDDY_OK;
    for (uint32_t k = 0; k < sy->desc.gather_count && r == EDDY_OK; k++)
        r = gather_whole(s, sy->gset, sy->desc.gather[k], sy->desc.full[k], sy->desc.gather_bytes[k],
                         sy->desc.gather_first);
    if (r != EDDY_OK)
        return r;
    if (sy->desc.buffer_count) {
        dist_set *ds = &s->dist->sets[sy->set];
        dist_pairs *pp = &P->pairs[sy->set];
        if (!pp->made && (r = make_pairs(s, sy->set, pp)) != EDDY_OK)
            return r;
        uint32_t *srow = malloc(4ull * pp->sends + 4), *rrow = malloc(4ull * pp->recvs + 4);
        r = srow && rrow ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
        if (r == EDDY_OK)
            r = pair_rows(s, ds, sy->desc.order, P->pre.order_q ? P->pre.order : NULL, pp, srow, rrow);
        r = scene_dist_agree(s, r);
        for (uint32_t b = 0; b < sy->desc.buffer_count && r == EDDY_OK; b++)
            r = refresh(s, P, sy, b, srow, rrow);
        free(srow), free(rrow);
    }
    return r == EDDY_OK ? reduce(s, &sy->desc, P->pre.reduced_q ? P->pre.reduced : NULL) : r;
}

/* Whether a loop's done flag is set on any rank (collective: every rank
 * leaves the loop together). */
static eddy_result loop_done(eddy_scene *s, const dist_parts *P, const dist_loop *L, bool *done)
{
    uint32_t v = P->pre.flag;
    *done = false;
    if (!L->done.id)
        return EDDY_OK;
    eddy_result r = scene_dist_agree(s, P->pre.flag_q ? EDDY_OK : eddy_buffer_download(s->e, L->done, L->offset, 4, &v));
    int mine = v != 0, any = 0;
    if (r == EDDY_OK)
        MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, s->dist->ctx.comm);
    *done = any != 0;
    return r;
}

/* Before part k runs: what the sync after it and its loop's test will
 * read (the sync's order, its reduced words, the loop's flag), queued to
 * land at the end of the part's own submission instead of a download
 * each after it. Past the staged budget they are downloaded as before. */
static eddy_result preread(eddy_scene *s, dist_parts *P, uint32_t k, uint32_t l)
{
    P->pre.order_q = P->pre.reduced_q = P->pre.flag_q = false;
    eddy_result r = EDDY_OK;
    const dist_sync *sy = k + 1 < P->count ? &P->syncs[k] : NULL;
    if (sy && sy->desc.buffer_count && sy->desc.order.id) {
        uint32_t n = s->dist->sets[sy->set].local;
        if (n > P->pre.order_cap) {
            uint32_t *o = realloc(P->pre.order, 4ull * n);
            if (!o)
                return EDDY_ERROR_OUT_OF_MEMORY;
            P->pre.order = o, P->pre.order_cap = n;
        }
        r = dist_get(s, sy->desc.order, 0, 4ull * n, P->pre.order, &P->pre.order_q);
    }
    uint32_t words = sy ? 2 * sy->desc.sum_u64 + sy->desc.max_u32 : 0;
    if (r == EDDY_OK && words)
        r = dist_get(s, sy->desc.reduce, sy->desc.reduce_offset, 4ull * words, P->pre.reduced, &P->pre.reduced_q);
    const dist_loop *L = l < P->loop_count && P->loops[l].last == k ? &P->loops[l] : NULL;
    if (r == EDDY_OK && L && L->done.id)
        r = dist_get(s, L->done, L->offset, 4, &P->pre.flag, &P->pre.flag_q);
    return r;
}

static eddy_result run_parts(eddy_scene *s, dist_parts *P)
{
    scene_dist *d = s->dist;
    uint32_t runs[DIST_LOOPS_MAX] = { 0 }, l = 0;
    eddy_result r = EDDY_OK;
    for (uint32_t k = 0; k < P->count && r == EDDY_OK;) {
        /* The rank's own work: the wait for the others in the agreement
         * counts as waiting (what a balance by time must not see). */
        double t0 = MPI_Wtime();
        r = preread(s, P, k, l);
        if (r == EDDY_OK)
            r = dist_ran(s, eddy_graph_run(s->e, P->graphs[k], 1));
        d->t_compute += MPI_Wtime() - t0;
        r = scene_dist_agree(s, r);
        if (r == EDDY_OK && k + 1 < P->count)
            r = run_sync(s, P, &P->syncs[k]);
        if (r == EDDY_OK && l < P->loop_count && P->loops[l].last == k) {
            bool done = false;
            r = loop_done(s, P, &P->loops[l], &done);
            if (r == EDDY_OK && !done && ++runs[l] < P->loops[l].times) {
                k = P->loops[l].first;
                continue;
            }
            l++;
        }
        k++;
    }
    return r;
}

eddy_result dist_parts_step(eddy_scene *s, eddy_graph first)
{
    dist_parts P = { .s = s, .count = 1, .set = UINT32_MAX };
    P.pub = (eddy_step_parts){ .struct_size = sizeof(eddy_step_parts), .graph = first, .owned = owned_of,
                               .sync = sync_part, .loop = loop_parts, .scene = &P };
    P.graphs = malloc(8 * sizeof *P.graphs);
    P.syncs = malloc(8 * sizeof *P.syncs);
    P.pairs = calloc(s->set_count + 1, sizeof *P.pairs);
    P.cap = 8;
    eddy_result r = P.graphs && P.syncs && P.pairs ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
    if (r == EDDY_OK) {
        P.graphs[0] = first;
        P.syncs[0] = (dist_sync){ .set = UINT32_MAX };
    }
    double t0 = MPI_Wtime();
    for (uint32_t i = 0; i < s->set_count; i++)
        s->dist->sets[i].travel = 0;
    for (uint32_t i = 0; i < s->system_count && r == EDDY_OK; i++) {
        scene_system *sys = &s->systems[i];
        if (!sys->module->declare_parts) {
            r = sys->module->declare_step(sys->state, P.pub.graph);
            continue;
        }
        int k = dist_set_index(s, sys->set);
        P.set = k < 0 ? UINT32_MAX : (uint32_t)k;
        P.pub.travel = 0;
        r = sys->module->declare_parts(sys->state, &P.pub);
        if (r == EDDY_OK && P.failed != EDDY_OK)
            r = P.failed;
        double *t = k >= 0 ? &s->dist->sets[k].travel : NULL;
        if (t && P.pub.travel > 0 && (*t == 0 || P.pub.travel < *t))
            *t = P.pub.travel;
    }
    s->dist->t_pack += MPI_Wtime() - t0;
    /* Every rank must have declared the same parts and loops, or their
     * collectives would not pair: a module's bug stops the run, not hangs it. */
    if ((r = scene_dist_agree(s, r)) == EDDY_OK) {
        int mine[2] = { (int)P.count, (int)P.loop_count }, lo[2], hi[2];
        MPI_Allreduce(mine, lo, 2, MPI_INT, MPI_MIN, s->dist->ctx.comm);
        MPI_Allreduce(mine, hi, 2, MPI_INT, MPI_MAX, s->dist->ctx.comm);
        if (lo[0] != hi[0] || lo[1] != hi[1]) {
            eddy_log(s->e, EDDY_LOG_ERROR, "dist.failed", "the ranks declared their substeps in different parts "
                     "(%d to %d parts, %d to %d loops): a module declares its parts by what a rank holds", lo[0],
                     hi[0], lo[1], hi[1]);
            r = EDDY_ERROR_INVALID_ARGUMENT;
        }
    }
    if (r == EDDY_OK)
        r = run_parts(s, &P);
    for (uint32_t k = 1; P.graphs && k < P.count; k++)
        eddy_destroy_graph(s->e, P.graphs[k]);
    for (uint32_t i = 0; P.pairs && i < s->set_count; i++)
        free(P.pairs[i].send), free(P.pairs[i].recv), free(P.pairs[i].scount);
    free(P.graphs), free(P.syncs), free(P.pairs), free(P.pre.order);
    return r;
}

eddy_result dist_parts_init(eddy_scene *s)
{
    scene_dist *d = s->dist;
    d->scatter = eddy_create_kernel(s->e, &(eddy_kernel_desc){ EDDY_SIZED(eddy_kernel_desc), .label = "dist.scatter",
                                                               .spirv = scatter_spv, .spirv_size = sizeof scatter_spv });
    return d->scatter.id ? EDDY_OK : EDDY_ERROR_VULKAN;
}

void dist_parts_free(eddy_scene *s)
{
    scene_dist *d = s->dist;
    for (uint32_t i = 0; d->sets && i < s->set_count; i++) {
        dist_set *ds = &d->sets[i];
        eddy_buffer own[] = { ds->ownedbuf, ds->sidx, ds->ridx, ds->stage_out, ds->stage_in };
        for (size_t k = 0; k < sizeof own / sizeof own[0]; k++)
            eddy_destroy_buffer(s->e, own[k]);
    }
    eddy_destroy_kernel(s->e, d->scatter);
}
