/* The distributed step's host side (scene/src/dist.c) over MPI, run by
 * tests/mpi/dist_test.sh on 1 to 4 ranks (mpirun --oversubscribe):
 *
 *   same:  a small SPH-like fluid (3,000 particles heaped in a corner of a
 *          1 m box, 0.05 m cells) stepped 30 times: density from the
 *          neighbours in 27 cells, then a pressure-like force that reads
 *          the neighbours' densities (a second ghost exchange, as a pass
 *          that reads what an earlier pass wrote), gravity, walls. Each
 *          rank starts with the particles of id % ranks == rank, so the
 *          first migration moves most of them; every 5 steps the split is
 *          planned again, with a rank 0 that counts as twice as slow
 *          (dc_reweight), so the split moves. At the end the states,
 *          gathered by id on rank 0, must be bitwise equal to the same
 *          code run on one rank (MPI_COMM_SELF) on rank 0; migrations and
 *          ghosts must be counted (ranks > 1) and the split must move.
 *   fault: the last rank finds a velocity that is not finite at step 3:
 *          every rank stops at the same step with one message naming the
 *          rank and the cause, exit status 1.
 *   crash: the last rank exits at step 3 without a word: mpirun must end
 *          the others (the script bounds the time). */
#include "../../scene/src/dist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 3000, STEPS = 30, REPLAN = 5 };
static const float H = 0.05f, DT = 0.002f, MASS = 0.02f;

typedef struct particle {
    float x[3], v[3], rho, pad;
} particle;

static particle *row(dist_table *t, uint32_t i)
{
    return (particle *)(void *)(t->row + (size_t)i * t->stride);
}

static const particle *row_in(const dist_table *t, const dist_table *g, uint32_t where)
{
    const dist_table *s = where & DIST_GHOST ? g : t;
    return (const particle *)(const void *)(s->row + (size_t)(where & ~DIST_GHOST) * s->stride);
}

/* Particle id's start, the same on every rank: a heap in a corner. */
static particle start(uint32_t id)
{
    uint32_t s = id * 2654435761u + 12345u;
    particle p;
    memset(&p, 0, sizeof p);
    for (int a = 0; a < 3; a++) {
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        p.x[a] = 0.02f + (a == 1 ? 0.5f : 0.4f) * (float)(s % 100000u) / 100000.0f;
    }
    return p;
}

/* Runs the statements after i for owned particle i with each neighbour
 * pj, in (cell, id) order. */
#define NEIGHBOURS(g, o, t, ghosts, i, ...)                                                         \
    do {                                                                                            \
        int32_t c_[3];                                                                              \
        dist_cell_of(g, row(t, i)->x, c_);                                                          \
        for (int dz = -1; dz <= 1; dz++)                                                            \
            for (int dy = -1; dy <= 1; dy++)                                                        \
                for (int dx = -1; dx <= 1; dx++) {                                                  \
                    int32_t q[3] = { c_[0] + dx, c_[1] + dy, c_[2] + dz };                          \
                    if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= (g)->dims[0] ||                 \
                        q[1] >= (g)->dims[1] || q[2] >= (g)->dims[2])                               \
                        continue;                                                                   \
                    uint32_t b_, e_;                                                                \
                    dist_order_cell(o, ((uint32_t)q[2] * (uint32_t)(g)->dims[1] + (uint32_t)q[1]) * \
                                           (uint32_t)(g)->dims[0] + (uint32_t)q[0], &b_, &e_);      \
                    for (uint32_t k_ = b_; k_ < e_; k_++) {                                         \
                        const particle *pj = row_in(t, ghosts, (o)->entry[k_].where);               \
                        __VA_ARGS__                                                                 \
                    }                                                                               \
                }                                                                                   \
    } while (0)

static float kernel(float r2)
{
    float d = H * H - r2;
    return d > 0 ? d * d * d * (315.0f / (64.0f * 3.14159265f * powf(H, 9))) : 0;
}

/* The neighbour order of t and its ghosts, agreed by every rank. */
static bool ordered(dist_ctx *ctx, dist_order *o, const dist_grid *g, const dist_table *t, const dist_table *ghosts)
{
    bool ok = dist_order_build(o, g, t, ghosts);
    if (!ok)
        snprintf(ctx->err, sizeof ctx->err, "out of memory ordering %u particles", t->count + ghosts->count);
    return dist_agree(ctx, ok);
}

/* One step on this rank's particles; false (agreed) on failure. */
static bool step(dist_ctx *ctx, const dc_plan *p, const dist_grid *g, dist_table *t, dist_table *ghosts,
                 int at, bool inject, uint64_t *ghost_count)
{
    dist_order o = { 0 };
    bool ok = dist_ghosts(ctx, p, g, t, ghosts);
    ok = ok && ordered(ctx, &o, g, t, ghosts);
    if (!ok)
        return dist_order_free(&o), false;
    *ghost_count += ghosts->count;
    for (uint32_t i = 0; i < t->count; i++) {
        particle *pi = row(t, i);
        float rho = 0;
        NEIGHBOURS(g, &o, t, ghosts, i, {
            float r2 = 0;
            for (int a = 0; a < 3; a++)
                r2 += (pi->x[a] - pj->x[a]) * (pi->x[a] - pj->x[a]);
            rho += MASS * kernel(r2);
        });
        pi->rho = rho;
    }
    dist_order_free(&o);
    /* The force reads the neighbours' densities: the ghosts again. */
    ok = dist_ghosts(ctx, p, g, t, ghosts) && ordered(ctx, &o, g, t, ghosts);
    float *force = malloc(((size_t)t->count + 1) * 3 * sizeof *force);
    ok = ok && dist_agree(ctx, force != NULL);
    for (uint32_t i = 0; ok && i < t->count; i++) {
        const particle *pi = row(t, i);
        float *f = force + 3 * (size_t)i;
        f[0] = 0, f[1] = -9.81f, f[2] = 0;
        NEIGHBOURS(g, &o, t, ghosts, i, {
            float d[3], r2 = 0;
            for (int a = 0; a < 3; a++)
                d[a] = pi->x[a] - pj->x[a], r2 += d[a] * d[a];
            float w = kernel(r2) * (pi->rho + pj->rho) * 1e-6f;
            for (int a = 0; a < 3; a++)
                f[a] += w * d[a];
        });
    }
    /* Moved only when every force is known: ghosts are copies. */
    for (uint32_t i = 0; ok && i < t->count; i++) {
        particle *pi = row(t, i);
        for (int a = 0; a < 3; a++) {
            pi->v[a] += DT * force[3 * (size_t)i + a];
            pi->x[a] += DT * pi->v[a];
            if (pi->x[a] < 0.001f || pi->x[a] > 0.999f) {
                pi->x[a] = pi->x[a] < 0.5f ? 0.001f : 0.999f;
                pi->v[a] *= -0.5f;
            }
        }
    }
    free(force);
    dist_order_free(&o);
    if (inject && at == 3 && t->count)
        row(t, 0)->v[1] = NAN;
    bool finite = true;
    for (uint32_t i = 0; ok && finite && i < t->count; i++)
        for (int a = 0; a < 3; a++)
            if (!isfinite(row(t, i)->v[a])) {
                finite = false;
                snprintf(ctx->err, sizeof ctx->err, "particle %u: its velocity is not finite at step %d", t->id[i],
                         at);
            }
    return ok && dist_agree(ctx, finite);
}

typedef struct result {
    uint64_t moved, ghosts;
    int replans_moved;
} result;

static bool run(dist_ctx *ctx, dist_table *t, const char *mode, result *res)
{
    const dist_grid g = { { 0, 0, 0 }, 1.0f / H, { 20, 20, 20 } };
    dist_table ghosts;
    dc_plan plan = { 0 };
    bool ok = dist_table_init(&ghosts, sizeof(particle), 256) && dist_plan(ctx, &g, t, 1, NULL, NULL, &plan);
    for (int s = 0; ok && s < STEPS; s++) {
        if (s > 0 && s % REPLAN == 0) {
            /* Rank 0 counts as twice as slow as the others for its load. */
            double *seconds = calloc((size_t)ctx->size, sizeof *seconds);
            for (int r = 0; seconds && r < ctx->size; r++)
                seconds[r] = (double)plan.load[r] * (r == 0 ? 2e-6 : 1e-6);
            dc_plan next;
            bool again = seconds && dc_imbalanced(seconds, plan.ranks, 0.1);
            ok = dist_plan(ctx, &g, t, 1, again ? &plan : NULL, again ? seconds : NULL, &next);
            if (ok) {
                res->replans_moved += memcmp(next.box, plan.box, plan.ranks * sizeof *plan.box) != 0;
                dc_free(&plan);
                plan = next;
            }
            free(seconds);
        }
        uint64_t moved = 0;
        ok = ok && dist_migrate(ctx, &plan, &g, t, &moved) &&
             step(ctx, &plan, &g, t, &ghosts, s, !strcmp(mode, "fault") && ctx->rank == ctx->size - 1, &res->ghosts);
        res->moved += moved;
        if (ok && !strcmp(mode, "crash") && s == 3 && ctx->rank == ctx->size - 1 && ctx->size > 1)
            exit(3);
    }
    dc_free(&plan);
    dist_table_free(&ghosts);
    return ok;
}

/* Rank 0 gets every rank's table, sorted by id. */
static bool gather(dist_ctx *ctx, const dist_table *t, dist_table *all)
{
    int n = (int)t->count, *counts = calloc((size_t)ctx->size * 2, sizeof *counts);
    /* Every rank leaves together when one cannot go on: none waits in a
     * gather that rank 0 never joins. */
    if (!dist_agree(ctx, counts != NULL))
        return free(counts), false;
    int *displs = counts + ctx->size, total = 0;
    MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, ctx->comm);
    for (int r = 0; r < ctx->size; r++)
        displs[r] = total, total += counts[r];
    if (!dist_agree(ctx, ctx->rank != 0 || dist_table_init(all, t->stride, (uint32_t)total + 1)))
        return free(counts), false;
    MPI_Gatherv(t->id, n, MPI_UINT32_T, ctx->rank ? NULL : all->id, counts, displs, MPI_UINT32_T, 0, ctx->comm);
    for (int r = 0; r < ctx->size; r++)
        counts[r] *= (int)t->stride, displs[r] *= (int)t->stride;
    MPI_Gatherv(t->row, n * (int)t->stride, MPI_BYTE, ctx->rank ? NULL : all->row, counts, displs, MPI_BYTE, 0,
                ctx->comm);
    free(counts);
    if (ctx->rank == 0) {
        all->count = (uint32_t)total;
        return dist_table_sort(all);
    }
    return true;
}

static void fill(dist_table *t, int rank, int size)
{
    for (uint32_t id = 0; id < N; id++)
        if ((int)(id % (uint32_t)size) == rank) {
            particle p = start(id);
            dist_table_push(t, id, &p);
        }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "same";
    dist_ctx ctx = { .comm = MPI_COMM_WORLD };
    MPI_Comm_rank(ctx.comm, &ctx.rank);
    MPI_Comm_size(ctx.comm, &ctx.size);
    dist_table t;
    result res = { 0 };
    if (!dist_table_init(&t, sizeof(particle), 1024))
        MPI_Abort(ctx.comm, 2);
    fill(&t, ctx.rank, ctx.size);
    bool ok = run(&ctx, &t, mode, &res);
    int failures = 0;
    if (!ok) {
        if (ctx.rank == 0)
            fprintf(stderr, "eddy error [dist.failed]: %s\n", ctx.err);
        failures = 1;
    } else {
        uint64_t moved = 0, ghosts = 0;
        MPI_Reduce(&res.moved, &moved, 1, MPI_UINT64_T, MPI_SUM, 0, ctx.comm);
        MPI_Reduce(&res.ghosts, &ghosts, 1, MPI_UINT64_T, MPI_SUM, 0, ctx.comm);
        dist_table all = { 0 };
        if (!gather(&ctx, &t, &all))
            failures++;
        if (ctx.rank == 0) {
            /* The same particles stepped on one rank. */
            dist_ctx one = { .comm = MPI_COMM_SELF, .rank = 0, .size = 1 };
            dist_table ref;
            result rr = { 0 };
            if (!dist_table_init(&ref, sizeof(particle), N))
                MPI_Abort(ctx.comm, 2);
            fill(&ref, 0, 1);
            bool same = run(&one, &ref, mode, &rr) && ref.count == N && all.count == N &&
                        !memcmp(ref.id, all.id, N * sizeof *ref.id) && !memcmp(ref.row, all.row, (size_t)N * ref.stride);
            uint32_t differ = 0;
            for (uint32_t i = 0; i < N && i < all.count && i < ref.count; i++)
                differ += memcmp(ref.row + (size_t)i * ref.stride, all.row + (size_t)i * ref.stride, ref.stride) != 0;
            printf("%d rank(s): %u particles, %llu migrations, %llu ghosts read, split moved %d time(s), "
                   "%u particle(s) differ from one rank\n", ctx.size, all.count, (unsigned long long)moved,
                   (unsigned long long)ghosts, res.replans_moved, differ);
            if (!same)
                failures++;
            if (ctx.size > 1 && (moved == 0 || ghosts == 0 || res.replans_moved == 0))
                failures++;
            dist_table_free(&ref);
            dist_table_free(&all);
        }
    }
    dist_table_free(&t);
    MPI_Bcast(&failures, 1, MPI_INT, 0, ctx.comm);
    MPI_Finalize();
    return failures ? 1 : 0;
}
