/* What scene_dist.c (runs over MPI ranks: setup, steps, frames, balance)
 * and scene_dist_exchange.c (the exchange between substeps, on the device)
 * share. Only with MPI in the build. */
#ifndef EDDY_SCENE_DIST_H
#define EDDY_SCENE_DIST_H

#include "dist.h"
#include "scene_internal.h"

/* Buffers a set may have (the four standard ones and the modules'). */
#define DIST_SET_BUFFERS 32

/* A set's part on this rank. Its particles sit on the device in ascending
 * id order, owned and ghosts mixed: local of them. The host keeps their
 * ids, which are owned, and their positions and velocities as the last
 * substep left them; every other buffer stays on the device. */
typedef struct dist_set {
    uint32_t buffers, stride; /* stride: bytes of one particle's row, every buffer */
    eddy_buffer buf[DIST_SET_BUFFERS];
    uint32_t esize[DIST_SET_BUFFERS], offset[DIST_SET_BUFFERS];
    int clamped;              /* index of the "clamped" buffer, or -1 */
    uint32_t capacity, local, owned;
    /* A set with elements (a cloth, a soft body): every rank holds all of
     * it, in index order, and owns the particles of its own cells; it is
     * never exchanged (its system steps it alike on every rank). */
    bool whole;
    uint32_t *id;             /* capacity: each particle's index in the whole set */
    uint8_t *mine;            /* capacity: owned (1) or a ghost (0) */
    float *pos, *vel;         /* capacity x 4 */
    /* Device scratch: rows sent or received (grown as needed), and the
     * rearranged particles before they go back into the set's buffers. */
    eddy_buffer xfer[DIST_SET_BUFFERS], work[DIST_SET_BUFFERS];
    eddy_buffer perm; /* a gather's order */
    /* Parts of a substep (scene_dist_parts.c): the owned flags (a uint32 a
     * particle), the rows a sync sends and receives, and their staging. */
    eddy_buffer ownedbuf, sidx, ridx, stage_out, stage_in;
    double travel; /* m, the farthest a particle may move in this substep; 0: no limit */
} dist_set;

typedef struct scene_dist {
    dist_ctx ctx;
    dist_grid grid;
    dc_plan plan;
    dist_set *sets;
    eddy_kernel gather;       /* shaders/dist_gather.comp */
    eddy_kernel scatter;      /* shaders/dist_scatter.comp */
    eddy_buffer ident, none; /* the identity order (capacity), an unused binding */
    /* Since the last frame: */
    uint64_t migrations, ghosts, substeps, halo_bytes;
    double t_compute, t_pack, t_exchange, t_wait;
    uint64_t submits, waits; /* the engine's counters at the last frame */
    uint64_t staged; /* bytes dist_put and dist_get queued since the last graph run here */
    uint32_t moves; /* the split moved (a run's total) */
    bool handed;    /* the first exchange (each rank's start, by index) is done */
} scene_dist;

/* scene_dist.c: a dist.c collective that failed, its message logged
 * (scene_dist_agree: scene_internal.h). */
eddy_result scene_dist_failed(eddy_scene *s);
/* The index of set p among the scene's, or -1. */
int dist_set_index(const eddy_scene *s, eddy_particles p);

/* scene_dist_exchange.c: the kernel and buffers the exchange needs, made
 * once; then, before each substep, every set's particles to their owners
 * and ghosts to the ranks near them (collective), put in id order on each
 * device by passes added to g, the substep's graph, before the systems'
 * (the sets' counts are set); after the substep, positions and velocities
 * back to the host, a particle that is not finite failing the rank. */
eddy_result dist_exchange_init(eddy_scene *s);
/* A scratch buffer of at least `bytes`, grown by doubling (eddy keeps a
 * buffer a recorded graph still uses until it has run). */
bool dist_ensure(eddy_scene *s, eddy_buffer *b, uint64_t bytes, const char *label);
/* Small transfers ride on the next graph submission (the engine's staging
 * rings, eddy_buffer_stage_write/read) instead of a submit and a wait of
 * their own, up to a budget a submission; past it, or for large data, a
 * transfer of its own (dist_put's lands at once; where dist_get says it
 * did not queue, the caller downloads after the run). A queued dist_get's
 * bytes are in out once the next graph run has returned: queue it just
 * before that run. dist_ran says a graph run here carried what was queued. */
eddy_result dist_put(eddy_scene *s, eddy_buffer b, uint64_t offset, uint64_t size, const void *data);
eddy_result dist_get(eddy_scene *s, eddy_buffer b, uint64_t offset, uint64_t size, void *out, bool *queued);
eddy_result dist_ran(eddy_scene *s, eddy_result r);
/* A dist.gather pass into g: dst[k] = perm[k] < split ? a[perm[k]] :
 * b[perm[k] - split], rows of `words` uints (b unused: `none`, split past
 * every index). */
int dist_add_gather(eddy_scene *s, eddy_graph g, eddy_buffer perm, eddy_buffer a, eddy_buffer b, eddy_buffer dst,
                    uint32_t count, uint32_t words, uint32_t split);
void dist_exchange_free(eddy_scene *s);
eddy_result dist_exchange(eddy_scene *s, eddy_graph g);
eddy_result dist_after_step(eddy_scene *s);
/* scene_dist_parts.c: the kernel the syncs need; then each substep, the
 * systems' passes declared into `first` (whose first passes are the
 * exchange's) and the parts after it, and run with their syncs
 * (collective); each set's travel limit set from its systems'. */
eddy_result dist_parts_init(eddy_scene *s);
void dist_parts_free(eddy_scene *s);
eddy_result dist_parts_step(eddy_scene *s, eddy_graph first);

/* Set i's owned particles' rows (every buffer) and ids, in id order. */
eddy_result dist_owned_rows(eddy_scene *s, uint32_t i, unsigned char *rows, uint32_t *ids);
/* Rank 0, for a checkpoint: the whole set i (total rows, in any order,
 * each id once) into its buffers in id order; what it owned stays its. */
eddy_result dist_put_whole(eddy_scene *s, uint32_t i, const unsigned char *rows, const uint32_t *ids,
                           uint32_t total);

#endif
