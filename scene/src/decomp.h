/* The split of a scene's grid over MPI ranks (decomp.c): recursive
 * coordinate bisection over the grid's cells, weighted by what each cell
 * costs (its particles, scaled by the measured time of the rank that ran
 * them). Plain C with integer arithmetic, no device and no MPI: every rank
 * computes the same split from the same input, whatever the order it
 * holds the cells in, and the planner is tested alone (tests/unit).
 *
 * Each rank owns an axis-aligned box of cells [lo, hi); a particle belongs
 * to the rank owning its grid cell (positions outside the grid are clamped
 * into its border cells, as the neighbour grid does). A rank reads, as
 * ghosts, the particles of the cells within `halo` cells of its box that
 * other ranks own (dc_halo). Every box is at least `halo` cells thick along
 * every axis, so a scene whose grid cannot hold that many boxes is refused
 * before anything runs. */
#ifndef EDDY_DECOMP_H
#define EDDY_DECOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Ranks one split serves at most. */
#define DC_MAX_RANKS 4096u
/* The sum of all cells' weights at most (so weight x ranks fits 64 bits). */
#define DC_MAX_WEIGHT (1ull << 50)

typedef struct dc_box {
    int32_t lo[3], hi[3]; /* cells [lo, hi) along x, y, z */
} dc_box;

/* An occupied cell and what it costs (any unit; zero-weight cells may be
 * left out). */
typedef struct dc_cell {
    int32_t c[3];
    uint64_t weight;
} dc_cell;

/* A node of the bisection: ranks [first, last) in box; an inner node cuts
 * it at plane `at` along `axis` into children left (cells < at) and right. */
typedef struct dc_node {
    uint32_t first, last;
    uint32_t left, right;
    int32_t at;
    uint32_t axis;
} dc_node;

typedef struct dc_plan {
    uint32_t ranks, halo;
    int32_t dims[3];
    dc_box *box;    /* ranks boxes, the rank's own */
    uint64_t *load; /* ranks: the weight each box holds */
    dc_node *node;  /* 2 ranks - 1 nodes, node[0] the root */
    uint32_t nodes;
} dc_plan;

/* Splits the dims grid over ranks (1..DC_MAX_RANKS), each box at least
 * halo (>= 1) cells thick, balancing the weights of the count cells
 * (reordered in place; cells outside the grid are refused). Cuts go along
 * the box's longest axis that can take them (ties: x, then y, then z), at
 * the plane whose left weight is nearest its share (ties: the lowest).
 * false with the reason in err (and nothing to free) when the grid is too
 * small or an argument is out of range. */
bool dc_split(dc_plan *p, const int32_t dims[3], uint32_t ranks, uint32_t halo, dc_cell *cells, size_t count,
              char *err, size_t cap);
void dc_free(dc_plan *p);

/* The rank owning cell c (clamped into the grid first). */
uint32_t dc_owner(const dc_plan *p, const int32_t c[3]);

/* The cells of rank from's box that rank to reads as ghosts: from's box
 * within halo cells of to's (clipped to the grid). false when there are
 * none (from == to, or the boxes are farther apart). */
bool dc_halo(const dc_plan *p, uint32_t from, uint32_t to, dc_box *out);

/* The ranks whose box, grown by halo cells along every axis, holds cell c
 * (clamped into the grid first), ascending, into out (at most cap of
 * them); returns how many there are. A particle of c owned by rank o is a
 * ghost of each of them but o (dc_halo(o, q) holds c). */
uint32_t dc_near(const dc_plan *p, const int32_t c[3], uint32_t *out, uint32_t cap);

/* True when the slowest rank took more than (1 + threshold) times the
 * mean of seconds[ranks]. */
bool dc_imbalanced(const double *seconds, uint32_t ranks, double threshold);

/* Scales each cell's weight by the cost per unit weight its owner
 * measured (seconds over the load it ran), relative to the mean, so the
 * next dc_split gives a slow rank less. Rounds to integers; an occupied
 * cell keeps at least weight 1. */
void dc_reweight(const dc_plan *p, dc_cell *cells, size_t count, const double *seconds);

#endif
