/* Barrier planner: pure data in, pure data out, no Vulkan calls.
 *
 * The graph recorder turns the declared accesses of its passes into this
 * form, asks the planner which barriers to put before each executed pass, and
 * maps the abstract stages/accesses to Vulkan flags. Keeping it free of Vulkan
 * lets the tests check every hazard case without a device, which matters
 * because lavapipe finishes each dispatch before the next and so would hide a
 * missing barrier.
 */
#ifndef EDDY_GRAPH_SYNC_H
#define EDDY_GRAPH_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a pass touches one resource. */
typedef enum eddy_sync_access {
    EDDY_SYNC_READ = 1,        /* shader storage read */
    EDDY_SYNC_WRITE = 2,       /* shader storage write (no read of old contents) */
    EDDY_SYNC_READ_WRITE = 3,  /* shader storage read and write */
    EDDY_SYNC_ATOMIC = 4,      /* concurrent atomic writes: several consecutive ATOMIC
                                  passes on one resource need no barrier between them */
    EDDY_SYNC_INDIRECT = 5,    /* read as indirect dispatch arguments */
} eddy_sync_access;

/* Abstract pipeline stages and memory accesses (bit masks). */
enum {
    EDDY_SYNC_STAGE_COMPUTE = 1u << 0,
    EDDY_SYNC_STAGE_INDIRECT = 1u << 1,
};
enum {
    EDDY_SYNC_ACCESS_SHADER_READ = 1u << 0,
    EDDY_SYNC_ACCESS_SHADER_WRITE = 1u << 1,
    EDDY_SYNC_ACCESS_INDIRECT_READ = 1u << 2,
};

typedef struct eddy_sync_use {
    uint32_t resource;  /* any id; equal ids are the same memory */
    eddy_sync_access access;
} eddy_sync_use;

typedef struct eddy_sync_pass {
    const eddy_sync_use *uses;
    uint32_t use_count;  /* a resource may appear more than once in a pass */
} eddy_sync_pass;

/* Passes [first, first + count) run `times` times in a row before the pass
 * after them runs. Ranges must not overlap partially; nesting is not supported
 * (ranges are disjoint). times >= 1. */
typedef struct eddy_sync_range {
    uint32_t first, count, times;
} eddy_sync_range;

/* One dependency, on one resource, to be placed before an executed pass. */
typedef struct eddy_sync_barrier {
    uint32_t resource;
    uint32_t src_stages, src_access; /* EDDY_SYNC_STAGE_* / EDDY_SYNC_ACCESS_* bits */
    uint32_t dst_stages, dst_access;
} eddy_sync_barrier;

/* One executed pass of the unrolled schedule. Its barriers (all resources
 * that have a hazard with earlier work) go into one batched barrier call
 * recorded just before the pass; barrier_count == 0 means none. */
typedef struct eddy_sync_step {
    uint32_t pass;          /* index into the passes array */
    uint32_t first_barrier; /* index into eddy_sync_plan.barriers */
    uint32_t barrier_count;
} eddy_sync_step;

typedef struct eddy_sync_plan {
    eddy_sync_step *steps;      /* executed order, ranges and graph repeats unrolled */
    uint32_t step_count;
    eddy_sync_barrier *barriers;
    uint32_t barrier_count;
} eddy_sync_plan;

/* Plans the schedule: the passes in order with the ranges expanded, the whole
 * sequence repeated graph_times (>= 1) times. The state at the start is
 * "nothing pending": the recorder puts a full barrier at the start and end of
 * every recorded command sequence, so earlier submissions need no tracking.
 *
 * Rules, per resource (minimal: no barrier unless a hazard exists):
 *  - RAW: a read (shader or indirect) after a write needs a barrier from the
 *    write's stage/access to the read's stage/access, once per destination
 *    stage: a second reader in the same stage needs no new barrier.
 *  - WAR: a write after reads needs an execution dependency from the reading
 *    stages (src_access 0) to the writing stage (dst_access SHADER_WRITE).
 *  - WAW: a write after a write needs write -> write.
 *    WAR and WAW on one resource before one pass are merged into one entry.
 *  - Read after read: nothing.
 *  - ATOMIC after ATOMIC with no other access in between: nothing.
 *    ATOMIC counts as a read+write (SHADER_READ|SHADER_WRITE) for every other rule.
 *  - READ_WRITE is a read and a write of the same pass; it is checked against
 *    earlier passes only (a pass never has a hazard with itself).
 *  - Several uses of one resource in one pass merge into one entry.
 * Entries before one pass are sorted by resource id.
 *
 * Returns 0 on success, -1 on invalid input (bad range, times 0, access value
 * out of range) or out of memory; the plan is then empty. */
int eddy_sync_plan_build(const eddy_sync_pass *passes, uint32_t pass_count,
                         const eddy_sync_range *ranges, uint32_t range_count,
                         uint32_t graph_times, eddy_sync_plan *out);
void eddy_sync_plan_free(eddy_sync_plan *plan);

#endif
