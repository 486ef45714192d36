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

/* Abstract pipeline stages and memory accesses (bit masks). The recorder maps
 * them to Vulkan flags one to one (VK_PIPELINE_STAGE_* / VK_ACCESS_*).
 *
 * The passes of a graph only ever use COMPUTE (storage reads and writes) and
 * INDIRECT (the dispatch's argument fetch). The other stages describe what the
 * host's own commands do with eddy's buffers before and after a sequence
 * (eddy_sync_host): copies, a renderer's draws, mapped memory.
 *
 * Each stage has at most one kind of read and one kind of write:
 *
 *   stage            read access      write access     Vulkan stage
 *   COMPUTE          SHADER_READ      SHADER_WRITE     COMPUTE_SHADER
 *   INDIRECT         INDIRECT_READ    -                DRAW_INDIRECT
 *   TRANSFER         TRANSFER_READ    TRANSFER_WRITE   TRANSFER
 *   VERTEX_INPUT     VERTEX_READ      -                VERTEX_INPUT
 *   VERTEX_SHADER    SHADER_READ      SHADER_WRITE     VERTEX_SHADER
 *   FRAGMENT_SHADER  SHADER_READ      SHADER_WRITE     FRAGMENT_SHADER
 *   HOST             HOST_READ        HOST_WRITE       HOST
 *
 * so "the write is already visible to stage X" is tracked per stage, and the
 * destination access of a read barrier follows from its destination stages. */
enum {
    EDDY_SYNC_STAGE_COMPUTE = 1u << 0,         /* compute shader */
    EDDY_SYNC_STAGE_INDIRECT = 1u << 1,        /* indirect argument fetch (dispatch or draw) */
    EDDY_SYNC_STAGE_TRANSFER = 1u << 2,        /* vkCmdCopy*, vkCmdFill/UpdateBuffer */
    EDDY_SYNC_STAGE_VERTEX_INPUT = 1u << 3,    /* vertex (and index) buffer fetch of a draw */
    EDDY_SYNC_STAGE_VERTEX_SHADER = 1u << 4,   /* storage/uniform access in a vertex shader */
    EDDY_SYNC_STAGE_FRAGMENT_SHADER = 1u << 5, /* storage/uniform access in a fragment shader */
    EDDY_SYNC_STAGE_HOST = 1u << 6,            /* the CPU through mapped memory */
    EDDY_SYNC_STAGE_ALL = (1u << 7) - 1,
};
enum {
    EDDY_SYNC_ACCESS_SHADER_READ = 1u << 0,    /* storage read by a shader stage */
    EDDY_SYNC_ACCESS_SHADER_WRITE = 1u << 1,   /* storage write (or atomic) by a shader stage */
    EDDY_SYNC_ACCESS_INDIRECT_READ = 1u << 2,  /* VK_ACCESS_INDIRECT_COMMAND_READ */
    EDDY_SYNC_ACCESS_TRANSFER_READ = 1u << 3,  /* source of a copy */
    EDDY_SYNC_ACCESS_TRANSFER_WRITE = 1u << 4, /* destination of a copy, fill or update */
    EDDY_SYNC_ACCESS_VERTEX_READ = 1u << 5,    /* VK_ACCESS_VERTEX_ATTRIBUTE_READ; a recorder
                                                  that also binds eddy buffers as index
                                                  buffers adds VK_ACCESS_INDEX_READ */
    EDDY_SYNC_ACCESS_HOST_READ = 1u << 6,      /* CPU read of mapped memory */
    EDDY_SYNC_ACCESS_HOST_WRITE = 1u << 7,     /* CPU write of mapped memory */
    EDDY_SYNC_ACCESS_ALL = (1u << 8) - 1,
};

/* Image layouts. A resource whose uses carry a layout is an image; every
 * use of it must carry one (0 on one use and not on another is invalid, as
 * are two layouts of one resource in one pass). Buffers use NONE. */
enum {
    EDDY_SYNC_LAYOUT_NONE = 0,      /* a buffer: no layout */
    EDDY_SYNC_LAYOUT_GENERAL = 1,   /* VK_IMAGE_LAYOUT_GENERAL: storage image access */
    EDDY_SYNC_LAYOUT_READ_ONLY = 2, /* VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL: sampling */
    EDDY_SYNC_LAYOUT_HOME = EDDY_SYNC_LAYOUT_GENERAL, /* images before entry and after exit */
};

typedef struct eddy_sync_use {
    uint32_t resource;  /* any id; equal ids are the same memory */
    eddy_sync_access access;
    uint32_t layout;    /* EDDY_SYNC_LAYOUT_*: the layout this use needs; NONE for buffers */
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
    /* Images: the layout before and after the barrier (equal: no transition;
     * both NONE for buffers). A transition has src_stages 0 when nothing is
     * pending (record TOP_OF_PIPE). */
    uint32_t old_layout, new_layout;
} eddy_sync_barrier;

/* One executed pass of the unrolled schedule. Its barriers (all resources
 * that have a hazard with earlier work) go into one batched barrier call
 * recorded just before the pass; barrier_count == 0 means none. */
typedef struct eddy_sync_step {
    uint32_t pass;          /* index into the passes array */
    uint32_t first_barrier; /* index into eddy_sync_plan.barriers */
    uint32_t barrier_count;
} eddy_sync_step;

/* A slice of eddy_sync_plan.barriers that goes into one barrier command. */
typedef struct eddy_sync_group {
    uint32_t first_barrier;
    uint32_t barrier_count; /* 0: record nothing */
} eddy_sync_group;

typedef struct eddy_sync_plan {
    eddy_sync_step *steps;      /* executed order, ranges and graph repeats unrolled */
    uint32_t step_count;
    eddy_sync_barrier *barriers;
    uint32_t barrier_count;
    /* Barriers around the steps (eddy_sync_plan_build_ex; empty otherwise).
     * They are slices of barriers[] after those of the steps, each sorted by
     * resource id, at most one entry per resource. */
    eddy_sync_group entry; /* once, before the first replay */
    eddy_sync_group loop;  /* at the start of every replay */
    eddy_sync_group exit;  /* once, after the last replay */
} eddy_sync_plan;

/* Plans the schedule: the passes in order with the ranges expanded, the whole
 * sequence repeated graph_times (>= 1) times. The state at the start is
 * "nothing pending" and nothing is planned after the last step: the same as
 * eddy_sync_plan_build_ex with loop false and no entry or exit, for a
 * recorder that puts a full barrier at the start and end of every recorded
 * command sequence.
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
 *  - A pass that writes a resource it also reads leaves only its write
 *    pending: its own reads (an INDIRECT fetch included) come before its
 *    write in the same dispatch, and a later barrier from COMPUTE covers them
 *    because a source stage mask includes the logically earlier stages
 *    (DRAW_INDIRECT comes before COMPUTE_SHADER in a dispatch).
 *  - Several uses of one resource in one pass merge into one entry.
 * Entries before one pass are sorted by resource id.
 *
 * Returns 0 on success, -1 on invalid input (bad range, times 0, access value
 * out of range) or out of memory; the plan is then empty. */
int eddy_sync_plan_build(const eddy_sync_pass *passes, uint32_t pass_count,
                         const eddy_sync_range *ranges, uint32_t range_count,
                         uint32_t graph_times, eddy_sync_plan *out);

/* What the host's own commands (anything recorded outside the sequence on the
 * same queue: uploads, downloads, a renderer's draws, the CPU through mapped
 * memory) do with one resource right before the sequence (entry) or right
 * after it (exit).
 *
 * stages and access are masks; the use is every read and write that a stage
 * of `stages` can do and whose access bit is in `access` (the table above).
 * Examples: a staging upload {id, TRANSFER, TRANSFER_WRITE}; a renderer
 * drawing from the buffer {id, VERTEX_INPUT | VERTEX_SHADER, VERTEX_READ |
 * SHADER_READ}; a readback {id, TRANSFER, TRANSFER_READ}; mapped reads
 * {id, HOST, HOST_READ}. Every access bit must belong to at least one stage of
 * the mask, else the build fails (the access would be dropped unseen); a
 * stage with none of its accesses in the mask adds nothing. */
typedef struct eddy_sync_host_use {
    uint32_t resource;
    uint32_t stages; /* EDDY_SYNC_STAGE_* */
    uint32_t access; /* EDDY_SYNC_ACCESS_* */
} eddy_sync_host_use;

/* The host's accesses for all resources of the sequence: those named in
 * uses[] (a resource may appear several times; its uses are merged) and, for
 * every other resource the sequence touches, the default. A host that cannot
 * tell passes the safe default {EDDY_SYNC_STAGE_ALL, EDDY_SYNC_ACCESS_ALL}
 * ("anything": every stage, read and write); {0, 0} says it does nothing.
 * Uses of resources the sequence never touches are ignored: with nothing of
 * the sequence between them, the host orders its own accesses.
 *
 * An entry use counts as writes followed by reads, all still pending (a
 * read-and-write "anything" thus needs RAW, WAR and WAW barriers); an exit
 * use as accesses that may do anything in any order. */
typedef struct eddy_sync_host {
    const eddy_sync_host_use *uses;
    uint32_t use_count;
    uint32_t default_stages, default_access;
} eddy_sync_host;

typedef struct eddy_sync_build_info {
    const eddy_sync_pass *passes;
    uint32_t pass_count;
    const eddy_sync_range *ranges;
    uint32_t range_count;
    uint32_t graph_times; /* >= 1 */
    bool loop;                   /* plan loop barriers: the sequence is replayed back to back */
    const eddy_sync_host *entry; /* NULL: nothing is pending before the first replay */
    const eddy_sync_host *exit;  /* NULL: no exit barriers (the host orders itself) */
} eddy_sync_build_info;

/* Plans the steps exactly as eddy_sync_plan_build (the steps' barriers are
 * computed from "nothing pending" and are the same in every replay), plus
 * the barriers that replace the full barriers at the start and end of the
 * recorded sequence. The recorder lays out one submission that replays the
 * sequence N >= 1 times as
 *
 *     [entry]                                       once, before replay 1
 *     N x { [loop] [step 0's] pass [step 1's] pass ... }
 *     [exit]                                        once, after replay N
 *
 * where [x] is one barrier command with group x (nothing when it is empty):
 *  - loop: the first command of the replayed command buffer, so every replay
 *    runs it; in replay 1 it only waits for earlier work, which is harmless.
 *  - entry: after the host's last access and before replay 1's loop group,
 *    in submission order on the same queue: the end of the host's previous
 *    command buffer, a small prologue command buffer, or the same barrier
 *    command as replay 1's loop group when that one is recorded apart (each
 *    group is complete on its own, so merging two groups is safe).
 *  - exit: after replay N's last pass and before the host's next access: a
 *    small epilogue or the start of the host's next command buffer.
 *    Recording it at the end of the replayed buffer is safe too, at the cost
 *    of a barrier per replay.
 * Every group may also be recorded as one global VkMemoryBarrier with the
 * union of its masks (eddy_sync_masks_of): that covers more, never less.
 *
 * What the groups contain, per resource r the sequence uses, with the rules
 * of eddy_sync_plan_build between the pending state and a use:
 *  - first(r): r's accesses in one replay from its first access up to and
 *    including its first write (all of them if it never writes r), merged
 *    into one use: the reads before the first write carry no barrier of
 *    their own (the steps start from "nothing pending"), so whatever is
 *    pending when a replay starts must be made visible to all of them at
 *    once. An ATOMIC first access alone counts as atomic.
 *  - end(r): what is pending after the last step of one replay, starting
 *    from nothing pending: the same after every replay, if r is written.
 *  - loop: the hazard between end(r) and first(r), if loop is set. It covers
 *    a resource first touched late in the sequence too, since the pending
 *    write wraps to the start of the next replay whatever step it came from.
 *  - entry: the hazard between the host's entry use (pending writes and
 *    reads) and first(r), if entry is given.
 *  - exit: the hazard between the pending state after the last replay and
 *    the host's exit use, if exit is given. That state is end(r) if the
 *    sequence writes r; if it only reads r, it is the host's entry accesses
 *    (when entry is given) plus those reads, so the host's accesses before
 *    the sequence stay ordered before its accesses after it (an upload
 *    before a readback), as the full barriers this replaces did.
 * Together with the steps' barriers these protect every conflicting pair of
 * accesses to one resource, across replays and against the host, directly
 * or through Vulkan's dependency chains (a later barrier on the resource
 * whose source stages meet an earlier one's destination stages extends it),
 * and each entry protects some pair that no earlier barrier already
 * protects (tests/unit/test_graph_sync_random.c checks both against a
 * brute-force oracle, also with entry merged into replay 1's loop command). The HOST stage: vkQueueSubmit already makes earlier host writes
 * to coherent (or flushed) memory visible to the submission, so an entry
 * barrier from HOST is redundant but harmless; a device write before a host
 * read does need the exit barrier to HOST / HOST_READ, and then the fence.
 * All of this assumes one queue: the host's commands on another queue need
 * semaphores (and queue family transfers), which no barrier here replaces.
 *
 * Returns 0 on success, -1 on invalid input (as eddy_sync_plan_build, or a
 * host use or default with unknown bits, an access no stage of its mask can
 * do, NULL uses with a count) or out of memory; the plan is then empty. */
int eddy_sync_plan_build_ex(const eddy_sync_build_info *info, eddy_sync_plan *out);

/* Images (uses with a layout) follow the same rules, and besides:
 *  - A use in another layout than the image is in needs a barrier with the
 *    transition (old_layout -> new_layout), even between two reads: a
 *    transition reads and writes the whole image. Its source is everything
 *    pending (the last write's stages and access, and the stages that read
 *    since, as an execution dependency), its destination the use's stages
 *    with every read and write access they can make; afterwards nothing of
 *    the old state is pending.
 *  - Within the steps an image starts in the layout of its first use. The
 *    groups keep that true for every replay: loop transitions from the
 *    layout the replay ends in (end layout) to the first use's; entry from
 *    EDDY_SYNC_LAYOUT_HOME to the end layout when loop is set (replay 1's
 *    loop group then moves it on, as in later replays), else to the first
 *    use's; exit from the end layout back to HOME. The host's entry and exit
 *    uses of an image are thus in HOME, which is also where they must leave
 *    and find it (GENERAL: eddy's images between submissions).
 *  - first(r) of an image ends before the first use in another layout than
 *    its first use (that use has a transition barrier of its own).
 * Without entry and exit (eddy_sync_plan_build) an image must be in its
 * first use's layout before the sequence and is left in the end layout. */

void eddy_sync_plan_free(eddy_sync_plan *plan);

/* The union of a group's masks. A recorder may record a whole group as one
 * global VkMemoryBarrier with these masks instead of one buffer barrier per
 * entry: that is always safe, and free of extra waiting when the masks are
 * what every entry needs anyway, as in compute-to-compute groups. */
typedef struct eddy_sync_masks {
    uint32_t src_stages, src_access;
    uint32_t dst_stages, dst_access;
} eddy_sync_masks;

/* Masks of barriers[0, count); all zero for count 0. For a step:
 * eddy_sync_masks_of(plan->barriers + step->first_barrier, step->barrier_count). */
eddy_sync_masks eddy_sync_masks_of(const eddy_sync_barrier *barriers, uint32_t count);

/* True when the masks are not empty and both source and destination stages
 * are COMPUTE only: the group orders compute shaders against compute shaders
 * and may be one global VkMemoryBarrier(COMPUTE_SHADER -> COMPUTE_SHADER). */
bool eddy_sync_masks_compute_only(eddy_sync_masks m);

#endif
