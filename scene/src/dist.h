/* The host side of a distributed step over MPI ranks (dist.c): particle
 * tables keyed by global id, the split of the grid agreed by every rank
 * (decomp.h), migration of particles to the rank owning their cell, ghost
 * particles from the cells within the halo, and agreement on failure so no
 * rank waits in a collective for one that stopped. This is the reference
 * the device path is checked against: the GPU packs the same particles in
 * the same order (ascending id) before the same exchanges.
 *
 * Determinism: a table is kept in ascending id order, ghosts too, so a
 * neighbour loop that visits cells in linear order and each cell's
 * particles (owned and ghosts merged) in id order sums in the same order on
 * any number of ranks (dist_order). Only the MPI standard is used. Every
 * function here is collective over ctx->comm unless it says otherwise. */
#ifndef EDDY_DIST_H
#define EDDY_DIST_H

#include "decomp.h"

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dist_ctx {
    MPI_Comm comm;
    int rank, size;
    char err[256]; /* this rank's failure, if any */
} dist_ctx;

/* The neighbour grid: cells of size `cell` (m) from `origin`, dims of them;
 * positions outside are clamped into the border cells (grid.glsl). */
typedef struct dist_grid {
    float origin[3];
    float inv_cell;
    int32_t dims[3];
} dist_grid;

/* Particles a rank holds: count rows of stride bytes (a multiple of 4, the
 * position as 3 floats first), ids ascending. */
typedef struct dist_table {
    uint32_t count, capacity;
    uint32_t stride;
    uint32_t *id;
    unsigned char *row;
} dist_table;

/* The most bytes one rank sends another in one exchange (MPI counts are
 * int). */
#define DIST_MAX_MESSAGE (1u << 30)

/* Not collective. */
bool dist_table_init(dist_table *t, uint32_t stride, uint32_t capacity);
void dist_table_free(dist_table *t);
/* Appends one particle (no order kept: dist_table_sort restores it). */
bool dist_table_push(dist_table *t, uint32_t id, const void *row);
/* Ids ascending (false, the table as it was, when out of memory). */
bool dist_table_sort(dist_table *t);
void dist_cell_of(const dist_grid *g, const float p[3], int32_t c[3]);

/* Every rank's table weighed by cell (each particle weight w, or
 * w scaled by the measured seconds of the split before when `seconds` and
 * `before` are given) and split over the ranks: the same plan on every
 * rank. */
bool dist_plan(dist_ctx *ctx, const dist_grid *g, const dist_table *t, uint32_t halo, const dc_plan *before,
               const double *seconds, dc_plan *out);

/* Sends every particle whose cell another rank owns to it; *moved counts
 * those that left this rank. */
bool dist_migrate(dist_ctx *ctx, const dc_plan *p, const dist_grid *g, dist_table *t, uint64_t *moved);

/* The particles of other ranks within the halo of this rank's box, into
 * ghosts (ids ascending; its stride must be t's). */
bool dist_ghosts(dist_ctx *ctx, const dc_plan *p, const dist_grid *g, const dist_table *t, dist_table *ghosts);

/* true on every rank when ok is true on every rank; otherwise false on
 * every rank, with the lowest failing rank's message in ctx->err on all of
 * them ("rank R: ..."). */
bool dist_agree(dist_ctx *ctx, bool ok);

/* The order a neighbour loop visits owned and ghost particles in: sorted by
 * (cell, id), with each cell's first entry. Not collective. */
typedef struct dist_entry {
    uint64_t key;   /* linear cell << 32 | id */
    uint32_t where; /* index into t, or DIST_GHOST | index into ghosts */
} dist_entry;
#define DIST_GHOST 0x80000000u
typedef struct dist_order {
    uint32_t count;
    dist_entry *entry;
} dist_order;
/* false when out of memory or the grid has 2^32 cells or more. */
bool dist_order_build(dist_order *o, const dist_grid *g, const dist_table *t, const dist_table *ghosts);
/* The entries of cell (linear index) as [*begin, *end) into o->entry. */
void dist_order_cell(const dist_order *o, uint32_t cell, uint32_t *begin, uint32_t *end);
void dist_order_free(dist_order *o);

#endif
