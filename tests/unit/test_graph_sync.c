/* Barrier planner cases, checked without a Vulkan device: lavapipe runs each
 * dispatch to completion before the next, so a missing barrier would never
 * show up as a wrong result there. Each case lists the passes, the ranges and
 * the expected unrolled steps with their exact barrier entries. */
#include "../test.h"
#include "graph_sync.h"

#include <stdint.h>
#include <string.h>

#define SC EDDY_SYNC_STAGE_COMPUTE
#define SI EDDY_SYNC_STAGE_INDIRECT
#define AR EDDY_SYNC_ACCESS_SHADER_READ
#define AW EDDY_SYNC_ACCESS_SHADER_WRITE
#define AI EDDY_SYNC_ACCESS_INDIRECT_READ
#define STR EDDY_SYNC_STAGE_TRANSFER
#define SVI EDDY_SYNC_STAGE_VERTEX_INPUT
#define SVS EDDY_SYNC_STAGE_VERTEX_SHADER
#define SFS EDDY_SYNC_STAGE_FRAGMENT_SHADER
#define SH EDDY_SYNC_STAGE_HOST
#define ATR EDDY_SYNC_ACCESS_TRANSFER_READ
#define ATW EDDY_SYNC_ACCESS_TRANSFER_WRITE
#define AVR EDDY_SYNC_ACCESS_VERTEX_READ
#define AHW EDDY_SYNC_ACCESS_HOST_WRITE

#define COUNT(T, ...) ((uint32_t)(sizeof((const T[]){__VA_ARGS__}) / sizeof(T)))

#define U(res, acc) {.resource = (res), .access = EDDY_SYNC_##acc}
#define PASS(...) {(const eddy_sync_use[]){__VA_ARGS__}, COUNT(eddy_sync_use, __VA_ARGS__)}
#define PASS_EMPTY {NULL, 0}

#define B(res, ss, sa, ds, da) {.resource = (res), .src_stages = (ss), .src_access = (sa), .dst_stages = (ds), .dst_access = (da)}
/* The entries the rules produce most often. */
#define RAW(res) B(res, SC, AW, SC, AR)          /* write -> compute read */
#define RAW_IND(res) B(res, SC, AW, SI, AI)      /* write -> indirect fetch */
#define WAW(res) B(res, SC, AW, SC, AW)          /* also WAR+WAW after compute reads */
#define WAR(res) B(res, SC, 0, SC, AW)           /* compute reads, no earlier write */
#define RW_AFTER_W(res) B(res, SC, AW, SC, AR | AW) /* RAW+WAW merged */

typedef struct exp_step {
    uint32_t pass;
    const eddy_sync_barrier *barriers;
    uint32_t barrier_count;
} exp_step;

#define STEP(p, ...) {(p), (const eddy_sync_barrier[]){__VA_ARGS__}, COUNT(eddy_sync_barrier, __VA_ARGS__)}
#define STEP0(p) {(p), NULL, 0}

typedef struct sync_case {
    const char *name;
    const eddy_sync_pass *passes;
    uint32_t pass_count;
    const eddy_sync_range *ranges;
    uint32_t range_count;
    uint32_t graph_times;
    int rc;
    const exp_step *steps;
    uint32_t step_count;
} sync_case;

#define PASSES(...) .passes = (const eddy_sync_pass[]){__VA_ARGS__}, \
                    .pass_count = COUNT(eddy_sync_pass, __VA_ARGS__)
#define RANGES(...) .ranges = (const eddy_sync_range[]){__VA_ARGS__}, \
                    .range_count = COUNT(eddy_sync_range, __VA_ARGS__)
#define STEPS(...) .steps = (const exp_step[]){__VA_ARGS__}, \
                   .step_count = COUNT(exp_step, __VA_ARGS__)
#define INVALID .rc = -1

static const sync_case cases[] = {
    {"RAW", PASSES(PASS(U(1, WRITE)), PASS(U(1, READ))), .graph_times = 1,
     STEPS(STEP0(0), STEP(1, RAW(1)))},

    {"WAR", PASSES(PASS(U(1, READ)), PASS(U(1, WRITE))), .graph_times = 1,
     STEPS(STEP0(0), STEP(1, WAR(1)))},

    {"WAR after an indirect fetch", PASSES(PASS(U(1, INDIRECT)), PASS(U(1, WRITE))),
     .graph_times = 1, STEPS(STEP0(0), STEP(1, B(1, SI, 0, SC, AW)))},

    {"WAW", PASSES(PASS(U(1, WRITE)), PASS(U(1, WRITE))), .graph_times = 1,
     STEPS(STEP0(0), STEP(1, WAW(1)))},

    /* The write after the reads is also a write after the first write: both
     * hazards fold into one entry. */
    {"WAR+WAW merged", PASSES(PASS(U(1, WRITE)), PASS(U(1, INDIRECT)), PASS(U(1, WRITE))),
     .graph_times = 1,
     STEPS(STEP0(0), STEP(1, RAW_IND(1)), STEP(2, B(1, SC | SI, AW, SC, AW)))},

    {"read after read", PASSES(PASS(U(1, READ)), PASS(U(1, READ)), PASS(U(1, INDIRECT))),
     .graph_times = 1, STEPS(STEP0(0), STEP0(1), STEP0(2))},

    {"two readers in one stage",
     PASSES(PASS(U(1, WRITE)), PASS(U(1, READ)), PASS(U(1, READ))), .graph_times = 1,
     STEPS(STEP0(0), STEP(1, RAW(1)), STEP0(2))},

    /* Visibility is per stage: the compute barrier does not cover the
     * indirect fetch; once both saw the write, nothing more is needed. */
    {"compute reader then indirect reader",
     PASSES(PASS(U(1, WRITE)), PASS(U(1, READ)), PASS(U(1, INDIRECT)), PASS(U(1, READ)),
            PASS(U(1, INDIRECT))),
     .graph_times = 1,
     STEPS(STEP0(0), STEP(1, RAW(1)), STEP(2, RAW_IND(1)), STEP0(3), STEP0(4))},

    /* The READ ends the run of atomics; the ATOMIC after it is a write after
     * that read and after the previous atomic write. */
    {"concurrent atomics",
     PASSES(PASS(U(1, ATOMIC)), PASS(U(1, ATOMIC)), PASS(U(1, READ)), PASS(U(1, ATOMIC)),
            PASS(U(1, ATOMIC))),
     .graph_times = 1,
     STEPS(STEP0(0), STEP0(1), STEP(2, RAW(1)), STEP(3, WAW(1)), STEP0(4))},

    {"atomic after reads only", PASSES(PASS(U(1, READ)), PASS(U(1, ATOMIC))),
     .graph_times = 1, STEPS(STEP0(0), STEP(1, WAR(1)))},

    /* A plain write is not an atomic: the first ATOMIC reads its result. */
    {"atomics after a plain write",
     PASSES(PASS(U(1, WRITE)), PASS(U(1, ATOMIC)), PASS(U(1, ATOMIC))), .graph_times = 1,
     STEPS(STEP0(0), STEP(1, RW_AFTER_W(1)), STEP0(2))},

    {"atomic after an indirect fetch",
     PASSES(PASS(U(1, ATOMIC)), PASS(U(1, INDIRECT)), PASS(U(1, ATOMIC))), .graph_times = 1,
     STEPS(STEP0(0), STEP(1, RAW_IND(1)), STEP(2, B(1, SC | SI, AW, SC, AR | AW)))},

    /* An ATOMIC mixed with a READ of the same resource in one pass is not a
     * pure atomic: neither it nor the ATOMIC pass after it is exempt. */
    {"atomic mixed with a read in one pass",
     PASSES(PASS(U(3, ATOMIC)), PASS(U(3, ATOMIC), U(3, READ)), PASS(U(3, ATOMIC), U(3, ATOMIC)),
            PASS(U(3, ATOMIC))),
     .graph_times = 1,
     STEPS(STEP0(0), STEP(1, RW_AFTER_W(3)), STEP(2, RW_AFTER_W(3)), STEP0(3))},

    {"READ_WRITE chain",
     PASSES(PASS(U(1, READ_WRITE)), PASS(U(1, READ_WRITE)), PASS(U(1, READ_WRITE))),
     .graph_times = 1, STEPS(STEP0(0), STEP(1, RW_AFTER_W(1)), STEP(2, RW_AFTER_W(1)))},

    {"one resource used several times in a pass",
     PASSES(PASS(U(1, WRITE), U(2, WRITE)),
            PASS(U(1, READ), U(2, READ), U(1, INDIRECT), U(2, WRITE), U(2, READ))),
     .graph_times = 1,
     STEPS(STEP0(0), STEP(1, B(1, SC, AW, SC | SI, AR | AI), RW_AFTER_W(2)))},

    /* Ids are arbitrary: the largest uint32 and a sparse spread. 5 has no
     * earlier access and so no entry. */
    {"hazards batched and sorted by resource",
     PASSES(PASS(U(0xFFFFFFFFu, WRITE), U(7, WRITE), U(1000000, WRITE), U(42, READ)),
            PASS(U(1000000, READ), U(42, WRITE), U(5, READ), U(0xFFFFFFFFu, INDIRECT),
                 U(7, WRITE))),
     .graph_times = 1,
     STEPS(STEP0(0),
           STEP(1, WAW(7), WAR(42), RAW(1000000), RAW_IND(0xFFFFFFFFu)))},

    {"empty pass keeps the state",
     PASSES(PASS(U(1, WRITE)), PASS_EMPTY, PASS(U(1, READ))), .graph_times = 1,
     STEPS(STEP0(0), STEP0(1), STEP(2, RAW(1)))},

    /* P0 writes 9 before the range, A (1) writes x=1, B (2) reads x and
     * writes y=2, C (3) reads y and writes x; the range repeats A..C three
     * times, then P4 reads x and 9. Iteration 1's A starts clean, later A's
     * follow C's write of x (WAW); later B's write y after C read it. */
    {"repeated range",
     PASSES(PASS(U(9, WRITE)), PASS(U(1, WRITE)), PASS(U(1, READ), U(2, WRITE)),
            PASS(U(2, READ), U(1, WRITE)), PASS(U(1, READ), U(9, READ))),
     RANGES({1, 3, 3}), .graph_times = 1,
     STEPS(STEP0(0),
           STEP0(1), STEP(2, RAW(1)), STEP(3, WAW(1), RAW(2)),
           STEP(1, WAW(1)), STEP(2, RAW(1), WAW(2)), STEP(3, WAW(1), RAW(2)),
           STEP(1, WAW(1)), STEP(2, RAW(1), WAW(2)), STEP(3, WAW(1), RAW(2)),
           STEP(4, RAW(1), RAW(9)))},

    /* The second repeat starts from the state the first one left. */
    {"graph_times 2 wrap",
     PASSES(PASS(U(2, READ), U(1, WRITE)), PASS(U(1, INDIRECT), U(2, WRITE))),
     .graph_times = 2,
     STEPS(STEP0(0), STEP(1, RAW_IND(1), WAR(2)),
           STEP(0, B(1, SC | SI, AW, SC, AW), RAW(2)), STEP(1, RAW_IND(1), WAW(2)))},

    {"range inside a graph repeat",
     PASSES(PASS(U(1, WRITE)), PASS(U(1, READ), U(2, WRITE))), RANGES({1, 1, 2}),
     .graph_times = 2,
     STEPS(STEP0(0), STEP(1, RAW(1)), STEP(1, WAW(2)),
           STEP(0, WAW(1)), STEP(1, RAW(1), WAW(2)), STEP(1, WAW(2)))},

    /* Ranges may come in any order and may touch. */
    {"adjacent ranges given out of order",
     PASSES(PASS(U(1, WRITE)), PASS(U(1, READ)), PASS(U(1, WRITE))),
     RANGES({2, 1, 2}, {0, 2, 2}), .graph_times = 1,
     STEPS(STEP0(0), STEP(1, RAW(1)), STEP(0, WAW(1)), STEP(1, RAW(1)), STEP(2, WAW(1)),
           STEP(2, WAW(1)))},

    /* Arguments written by one pass, fetched by the next dispatch, then
     * rewritten after the fetch. */
    {"indirect dispatch arguments",
     PASSES(PASS(U(10, WRITE), U(11, WRITE)), PASS(U(10, INDIRECT), U(11, READ), U(12, WRITE)),
            PASS(U(10, WRITE))),
     .graph_times = 1,
     STEPS(STEP0(0), STEP(1, RAW_IND(10), RAW(11)), STEP(2, B(10, SC | SI, AW, SC, AW)))},

    {"empty graph", .graph_times = 1, .rc = 0},
    {"empty graph repeated", .graph_times = 3, .rc = 0},

    {"overlapping ranges", PASSES(PASS_EMPTY, PASS_EMPTY, PASS_EMPTY),
     RANGES({0, 2, 1}, {1, 2, 1}), .graph_times = 1, INVALID},
    {"nested ranges", PASSES(PASS_EMPTY, PASS_EMPTY, PASS_EMPTY),
     RANGES({0, 3, 2}, {1, 1, 2}), .graph_times = 1, INVALID},
    {"range times 0", PASSES(PASS_EMPTY, PASS_EMPTY), RANGES({0, 1, 0}), .graph_times = 1,
     INVALID},
    {"range of 0 passes", PASSES(PASS_EMPTY, PASS_EMPTY), RANGES({1, 0, 2}), .graph_times = 1,
     INVALID},
    {"range past the end", PASSES(PASS_EMPTY, PASS_EMPTY, PASS_EMPTY), RANGES({2, 2, 1}),
     .graph_times = 1, INVALID},
    {"range starting past the end", PASSES(PASS_EMPTY), RANGES({1, 1, 1}), .graph_times = 1,
     INVALID},
    {"range end wraps uint32", PASSES(PASS_EMPTY, PASS_EMPTY), RANGES({1, 0xFFFFFFFFu, 1}),
     .graph_times = 1, INVALID},
    {"range on an empty graph", RANGES({0, 1, 1}), .graph_times = 1, INVALID},
    {"graph_times 0", PASSES(PASS(U(1, WRITE))), .graph_times = 0, INVALID},
    {"access 0", PASSES(PASS({.resource = 1, .access = (eddy_sync_access)0})), .graph_times = 1, INVALID},
    {"access past INDIRECT", PASSES(PASS(U(1, READ)), PASS({.resource = 1, .access = (eddy_sync_access)6})),
     .graph_times = 1, INVALID},
    {"negative access", PASSES(PASS({.resource = 1, .access = (eddy_sync_access)-1})), .graph_times = 1, INVALID},
    {"NULL uses with a count", PASSES(PASS(U(1, WRITE)), {NULL, 1}), .graph_times = 1, INVALID},
    /* 2^32 executed steps do not fit step_count. */
    {"too many steps", PASSES(PASS_EMPTY, PASS_EMPTY), RANGES({0, 2, 0x80000000u}),
     .graph_times = 1, INVALID},
    {"too many steps with graph_times", PASSES(PASS_EMPTY, PASS_EMPTY),
     RANGES({0, 2, 0x40000000u}), .graph_times = 2, INVALID},
};

/* Cases for eddy_sync_plan_build_ex: the groups around the steps. The steps
 * themselves must be those of eddy_sync_plan_build, checked here too. */
typedef struct group_case {
    const char *name;
    const eddy_sync_pass *passes;
    uint32_t pass_count;
    const eddy_sync_range *ranges;
    uint32_t range_count;
    uint32_t graph_times;
    bool loop;
    const eddy_sync_host *entry, *exit;
    int rc;
    const exp_step *steps; /* NULL: not listed */
    uint32_t step_count;
    const eddy_sync_barrier *entry_b, *loop_b, *exit_b;
    uint32_t entry_n, loop_n, exit_n;
} group_case;

#define HOST(ds, da, ...) (&(const eddy_sync_host){(const eddy_sync_host_use[]){__VA_ARGS__}, \
                                                   COUNT(eddy_sync_host_use, __VA_ARGS__), (ds), (da)})
#define HOST_DEFAULT(ds, da) (&(const eddy_sync_host){NULL, 0, (ds), (da)})
#define ENTRY_B(...) .entry_b = (const eddy_sync_barrier[]){__VA_ARGS__}, \
                     .entry_n = COUNT(eddy_sync_barrier, __VA_ARGS__)
#define LOOP_B(...) .loop_b = (const eddy_sync_barrier[]){__VA_ARGS__}, \
                    .loop_n = COUNT(eddy_sync_barrier, __VA_ARGS__)
#define EXIT_B(...) .exit_b = (const eddy_sync_barrier[]){__VA_ARGS__}, \
                    .exit_n = COUNT(eddy_sync_barrier, __VA_ARGS__)
#define ALL_WRITES (AW | ATW | AHW)
#define WRITING_STAGES (SC | STR | SVS | SFS | SH)

static const group_case group_cases[] = {
    /* Reads before the first write get no barrier of their own, so the loop
     * barrier makes the wrapped write visible to both reading stages. */
    {"loop: reads before the first write", PASSES(PASS(U(1, READ)), PASS(U(1, INDIRECT)),
                                                 PASS(U(1, WRITE))),
     .graph_times = 1, .loop = true,
     STEPS(STEP0(0), STEP0(1), STEP(2, B(1, SC | SI, 0, SC, AW))),
     LOOP_B(B(1, SC, AW, SC | SI, AR | AI | AW))},

    {"no loop barriers unless asked", PASSES(PASS(U(1, READ)), PASS(U(1, INDIRECT)),
                                            PASS(U(1, WRITE))),
     .graph_times = 1, STEPS(STEP0(0), STEP0(1), STEP(2, B(1, SC | SI, 0, SC, AW)))},

    /* 2 is first touched by pass 1, yet its write and read at the end of one
     * replay meet its first write early in the next: the loop barrier covers
     * it at the start. 3 is only read: nothing. */
    {"loop: a resource first touched late",
     PASSES(PASS(U(1, WRITE)), PASS(U(2, WRITE)), PASS(U(2, READ), U(1, READ), U(3, READ))),
     .graph_times = 1, .loop = true, STEPS(STEP0(0), STEP0(1), STEP(2, RAW(1), RAW(2))),
     LOOP_B(WAW(1), WAW(2))},

    /* graph_times 2 inside one replay, then the wrap: the same end state. */
    {"loop with graph_times", PASSES(PASS(U(1, READ)), PASS(U(1, WRITE))), .graph_times = 2,
     .loop = true, STEPS(STEP0(0), STEP(1, WAR(1)), STEP(0, RAW(1)), STEP(1, WAW(1))),
     LOOP_B(RW_AFTER_W(1))},

    {"loop: atomics wrap without a barrier", PASSES(PASS(U(1, ATOMIC)), PASS(U(2, WRITE))),
     RANGES({0, 1, 3}), .graph_times = 1, .loop = true,
     STEPS(STEP0(0), STEP0(0), STEP0(0), STEP0(1)), LOOP_B(WAW(2))},

    /* The read at the end breaks the run of atomics across the wrap. */
    {"loop: a read between atomics across the wrap", PASSES(PASS(U(1, ATOMIC)), PASS(U(1, READ))),
     .graph_times = 1, .loop = true, STEPS(STEP0(0), STEP(1, RAW(1))), LOOP_B(WAW(1))},

    {"loop: reads only", PASSES(PASS(U(1, READ)), PASS(U(1, INDIRECT))), .graph_times = 1,
     .loop = true, STEPS(STEP0(0), STEP0(1))},

    /* An upload seen by two stages before any write; 2 has no host use. */
    {"entry: an upload before two reading stages",
     PASSES(PASS(U(1, READ), U(2, READ)), PASS(U(1, INDIRECT))), .graph_times = 1,
     .entry = HOST(0, 0, {1, STR, ATW}), STEPS(STEP0(0), STEP0(1)),
     ENTRY_B(B(1, STR, ATW, SC | SI, AR | AI))},

    /* "Anything": every stage may have read (WAR) and written (WAW). */
    {"entry: anything before a write", PASSES(PASS(U(1, WRITE))), .graph_times = 1,
     .entry = HOST_DEFAULT(EDDY_SYNC_STAGE_ALL, EDDY_SYNC_ACCESS_ALL),
     ENTRY_B(B(1, EDDY_SYNC_STAGE_ALL, ALL_WRITES, SC, AW))},

    /* Named uses of one resource merge and replace the default; uses of
     * resources no pass touches are ignored. */
    {"entry: named uses, the default and a foreign resource",
     PASSES(PASS(U(1, WRITE), U(2, READ))), .graph_times = 1,
     .entry = HOST(EDDY_SYNC_STAGE_ALL, EDDY_SYNC_ACCESS_ALL, {99, EDDY_SYNC_STAGE_ALL,
                   EDDY_SYNC_ACCESS_ALL}, {1, STR, ATW}, {1, SVS, AR}),
     ENTRY_B(B(1, STR | SVS, ATW, SC, AW), B(2, WRITING_STAGES, ALL_WRITES, SC, AR))},

    {"entry: nothing", PASSES(PASS(U(1, WRITE)), PASS(U(1, READ))), .graph_times = 1,
     .loop = true, .entry = HOST_DEFAULT(0, 0), STEPS(STEP0(0), STEP(1, RAW(1))),
     LOOP_B(B(1, SC, AW, SC, AW))},

    /* 2 is only read: no hazard with the renderer's reads. */
    {"exit: a renderer draws what the last pass wrote",
     PASSES(PASS(U(1, WRITE)), PASS(U(2, READ))), .graph_times = 1,
     .exit = HOST_DEFAULT(SVI | SVS, AVR | AR), EXIT_B(B(1, SC, AW, SVI | SVS, AVR | AR))},

    {"exit: a host write after reads", PASSES(PASS(U(1, READ))), .graph_times = 1,
     .exit = HOST_DEFAULT(SH, AHW), EXIT_B(B(1, SC, 0, SH, AHW))},

    /* The sequence only reads 1, so the upload before it is still pending
     * after it: the readback needs it (RAW), the rewrite too (WAW, and WAR
     * after the sequence's read). */
    {"exit: a read-only sequence keeps the host's upload pending",
     PASSES(PASS(U(1, READ))), .graph_times = 1, .loop = true,
     .entry = HOST(0, 0, {1, STR, ATW}), .exit = HOST(0, 0, {1, STR, ATR | ATW}),
     ENTRY_B(B(1, STR, ATW, SC, AR)), EXIT_B(B(1, STR | SC, ATW, STR, ATR | ATW))},

    /* Written by the sequence: the exit sees only its last write and the
     * reads after it, not the host's upload. */
    {"exit: after a write the upload is settled",
     PASSES(PASS(U(1, WRITE)), PASS(U(1, INDIRECT))), .graph_times = 1, .loop = true,
     .entry = HOST(0, 0, {1, STR, ATW}), .exit = HOST(0, 0, {1, STR, ATW}),
     STEPS(STEP0(0), STEP(1, RAW_IND(1))), ENTRY_B(B(1, STR, ATW, SC, AW)),
     LOOP_B(B(1, SC | SI, AW, SC, AW)), EXIT_B(B(1, SC | SI, AW, STR, ATW))},

    {"host access no stage of its mask can do", PASSES(PASS(U(1, READ))), .graph_times = 1,
     .entry = HOST_DEFAULT(STR, AW), INVALID},
    {"unknown host stage", PASSES(PASS(U(1, READ))), .graph_times = 1,
     .exit = HOST_DEFAULT(1u << 7, 0), INVALID},
    {"unknown host access", PASSES(PASS(U(1, READ))), .graph_times = 1,
     .exit = HOST(0, 0, {1, SC, 1u << 8}), INVALID},
    /* Checked even when the sequence never touches the resource. */
    {"bad host use of a foreign resource", PASSES(PASS(U(1, READ))), .graph_times = 1,
     .entry = HOST(0, 0, {7, SVI, AW}), INVALID},
    {"NULL host uses with a count", PASSES(PASS(U(1, READ))), .graph_times = 1,
     .entry = &(const eddy_sync_host){NULL, 2, 0, 0}, INVALID},
    {"bad range with a host", PASSES(PASS(U(1, READ))), RANGES({0, 2, 1}), .graph_times = 1,
     .exit = HOST_DEFAULT(0, 0), INVALID},
};

static void mask_str(char *buf, size_t size, uint32_t mask, const char *const *names,
                     unsigned name_count)
{
    size_t len = 0;
    buf[0] = '\0';
    if (mask == 0) {
        snprintf(buf, size, "0");
        return;
    }
    for (unsigned i = 0; i < 32 && len < size; i++) {
        if (!(mask & (1u << i)))
            continue;
        const char *sep = len ? "+" : "";
        if (i < name_count)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", sep, names[i]);
        else
            len += (size_t)snprintf(buf + len, size - len, "%sbit%u", sep, i);
    }
}

static void barrier_str(char *buf, size_t size, const eddy_sync_barrier *b)
{
    static const char *const stages[] = {"C", "I"};
    static const char *const access[] = {"R", "W", "IR"};
    char ss[32], sa[32], ds[32], da[32];
    mask_str(ss, sizeof ss, b->src_stages, stages, 2);
    mask_str(sa, sizeof sa, b->src_access, access, 3);
    mask_str(ds, sizeof ds, b->dst_stages, stages, 2);
    mask_str(da, sizeof da, b->dst_access, access, 3);
    snprintf(buf, size, "r%u %s/%s->%s/%s", b->resource, ss, sa, ds, da);
}

static void step_str(char *buf, size_t size, uint32_t pass, const eddy_sync_barrier *barriers,
                     uint32_t count)
{
    size_t len = (size_t)snprintf(buf, size, "pass %u: ", pass);
    if (count == 0)
        snprintf(buf + len, size - len, "-");
    for (uint32_t i = 0; i < count && len < size; i++) {
        char one[160];
        barrier_str(one, sizeof one, &barriers[i]);
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", one);
    }
}

static bool barrier_eq(const eddy_sync_barrier *a, const eddy_sync_barrier *b)
{
    return a->resource == b->resource && a->src_stages == b->src_stages &&
           a->src_access == b->src_access && a->dst_stages == b->dst_stages &&
           a->dst_access == b->dst_access;
}

/* Steps whose barrier slice lies outside the plan compare as missing so the
 * diff below never reads out of bounds. */
static bool step_slice_ok(const eddy_sync_plan *plan, uint32_t i)
{
    const eddy_sync_step *s = &plan->steps[i];
    return s->first_barrier <= plan->barrier_count &&
           s->barrier_count <= plan->barrier_count - s->first_barrier;
}

static bool step_eq(const eddy_sync_plan *plan, uint32_t i, const exp_step *e)
{
    const eddy_sync_step *s = &plan->steps[i];
    if (!step_slice_ok(plan, i) || s->pass != e->pass || s->barrier_count != e->barrier_count)
        return false;
    for (uint32_t k = 0; k < e->barrier_count; k++)
        if (!barrier_eq(&plan->barriers[s->first_barrier + k], &e->barriers[k]))
            return false;
    return true;
}

static void print_diff(const sync_case *c, const eddy_sync_plan *plan)
{
    char line[1024];
    fprintf(stderr, "  case \"%s\": expected %u step(s), got %u (!! marks differences)\n",
            c->name, c->step_count, plan->step_count);
    uint32_t n = c->step_count > plan->step_count ? c->step_count : plan->step_count;
    for (uint32_t i = 0; i < n; i++) {
        bool have_exp = i < c->step_count, have_got = i < plan->step_count;
        bool same = have_exp && have_got && step_eq(plan, i, &c->steps[i]);
        if (have_exp)
            step_str(line, sizeof line, c->steps[i].pass, c->steps[i].barriers,
                     c->steps[i].barrier_count);
        else
            snprintf(line, sizeof line, "(none)");
        fprintf(stderr, "  %s step %2u: expected %s\n", same ? "  " : "!!", i, line);
        if (same)
            continue;
        if (!have_got)
            snprintf(line, sizeof line, "(none)");
        else if (!step_slice_ok(plan, i))
            snprintf(line, sizeof line, "pass %u: barriers [%u, +%u) outside the plan",
                     plan->steps[i].pass, plan->steps[i].first_barrier,
                     plan->steps[i].barrier_count);
        else
            step_str(line, sizeof line, plan->steps[i].pass,
                     plan->barriers + plan->steps[i].first_barrier,
                     plan->steps[i].barrier_count);
        fprintf(stderr, "              got      %s\n", line);
    }
}

static void check_case(const sync_case *c)
{
    /* Garbage in *out shows whether a failed build really empties it. */
    static eddy_sync_step junk_step;
    static eddy_sync_barrier junk_barrier;
    eddy_sync_plan plan = {&junk_step, 77, &junk_barrier, 77, {5, 5}, {6, 6}, {7, 7}};

    int rc = eddy_sync_plan_build(c->passes, c->pass_count, c->ranges, c->range_count,
                                  c->graph_times, &plan);
    CHECKF(rc == c->rc, "case \"%s\": returned %d, expected %d", c->name, rc, c->rc);
    if (rc != 0) {
        CHECKF(!plan.steps && !plan.step_count && !plan.barriers && !plan.barrier_count &&
                   !plan.entry.barrier_count && !plan.loop.barrier_count &&
                   !plan.exit.barrier_count,
               "case \"%s\": failed build left a non-empty plan", c->name);
        return;
    }
    /* The plain build plans nothing around the steps. */
    CHECKF(!plan.entry.barrier_count && !plan.loop.barrier_count && !plan.exit.barrier_count,
           "case \"%s\": entry/loop/exit barriers without asking", c->name);

    /* The recorder walks the steps in order and slices barriers by
     * first_barrier, so the slices must tile the array exactly. */
    uint32_t next = 0;
    for (uint32_t i = 0; i < plan.step_count; i++) {
        CHECKF(plan.steps[i].first_barrier == next, "case \"%s\": step %u first_barrier %u, "
               "expected %u", c->name, i, plan.steps[i].first_barrier, next);
        next = plan.steps[i].first_barrier + plan.steps[i].barrier_count;
    }
    CHECKF(next == plan.barrier_count, "case \"%s\": steps cover %u barrier(s), plan has %u",
           c->name, next, plan.barrier_count);

    bool same = plan.step_count == c->step_count;
    for (uint32_t i = 0; same && i < plan.step_count; i++)
        same = step_eq(&plan, i, &c->steps[i]);
    CHECKF(same, "case \"%s\": plan differs from the expectation", c->name);
    if (!same)
        print_diff(c, &plan);

    eddy_sync_plan_free(&plan);
    CHECK(!plan.steps && !plan.barriers && !plan.step_count && !plan.barrier_count);
}

/* Cases that do not fit the table: missing arrays and the free contract. */
static void check_null_arguments(void)
{
    eddy_sync_plan plan;
    static const eddy_sync_range range = {0, 1, 1};
    static const eddy_sync_use use = {.resource = 1, .access = EDDY_SYNC_WRITE};
    static const eddy_sync_pass pass = {&use, 1};

    CHECK(eddy_sync_plan_build(NULL, 1, NULL, 0, 1, &plan) == -1);
    CHECK(!plan.steps && !plan.step_count && !plan.barriers && !plan.barrier_count);
    CHECK(eddy_sync_plan_build(&pass, 1, NULL, 1, 1, &plan) == -1);
    CHECK(!plan.steps && !plan.step_count);
    CHECK(eddy_sync_plan_build(&pass, 1, &range, 1, 1, NULL) == -1);

    /* Freeing twice or freeing nothing must be harmless for error paths. */
    REQUIRE(eddy_sync_plan_build(&pass, 1, &range, 1, 1, &plan) == 0);
    CHECK(plan.step_count == 1 && plan.barrier_count == 0);
    eddy_sync_plan_free(&plan);
    eddy_sync_plan_free(&plan);
    eddy_sync_plan_free(NULL);
}

/* A long repeated range, checked by its pattern rather than listed: every
 * iteration after the first must look the same. */
static void check_long_range(void)
{
    static const eddy_sync_use a[] = {{.resource = 1, .access = EDDY_SYNC_READ}, {.resource = 2, .access = EDDY_SYNC_WRITE}};
    static const eddy_sync_use b[] = {{.resource = 2, .access = EDDY_SYNC_READ}, {.resource = 1, .access = EDDY_SYNC_WRITE}};
    static const eddy_sync_pass passes[] = {{a, 2}, {b, 2}};
    static const eddy_sync_range range = {0, 2, 1000};
    eddy_sync_plan plan;

    REQUIRE(eddy_sync_plan_build(passes, 2, &range, 1, 5, &plan) == 0);
    CHECK(plan.step_count == 2 * 1000 * 5);
    /* Only the very first pass starts clean; every later one has a hazard on
     * both of its resources. */
    CHECK(plan.steps[0].barrier_count == 0);
    CHECK(plan.steps[1].barrier_count == 2);
    for (uint32_t i = 2; i < plan.step_count; i++)
        CHECKF(plan.steps[i].barrier_count == 2 && plan.steps[i].pass == i % 2,
               "step %u: pass %u, %u barrier(s)", i, plan.steps[i].pass,
               plan.steps[i].barrier_count);
    CHECK(plan.barrier_count == 2 * (plan.step_count - 1));
    eddy_sync_plan_free(&plan);
}

static void check_group_barriers(const group_case *c, const eddy_sync_plan *plan,
                                 const char *what, eddy_sync_group got,
                                 const eddy_sync_barrier *want, uint32_t want_n)
{
    bool same = got.barrier_count == want_n && got.first_barrier <= plan->barrier_count &&
                want_n <= plan->barrier_count - got.first_barrier;
    for (uint32_t i = 0; same && i < want_n; i++)
        same = barrier_eq(&plan->barriers[got.first_barrier + i], &want[i]);
    CHECKF(same, "case \"%s\": %s barriers differ", c->name, what);
    if (same)
        return;
    char line[1024];
    step_str(line, sizeof line, 0, want, want_n);
    fprintf(stderr, "  expected %s\n", line + 8); /* past "pass 0: " */
    if (got.first_barrier <= plan->barrier_count &&
        got.barrier_count <= plan->barrier_count - got.first_barrier) {
        step_str(line, sizeof line, 0, plan->barriers + got.first_barrier, got.barrier_count);
        fprintf(stderr, "  got      %s\n", line + 8);
    }
}

static void check_group_case(const group_case *c)
{
    eddy_sync_build_info info = {
        .passes = c->passes,
        .pass_count = c->pass_count,
        .ranges = c->ranges,
        .range_count = c->range_count,
        .graph_times = c->graph_times,
        .loop = c->loop,
        .entry = c->entry,
        .exit = c->exit,
    };
    static eddy_sync_step junk_step;
    static eddy_sync_barrier junk_barrier;
    eddy_sync_plan plan = {&junk_step, 77, &junk_barrier, 77, {5, 5}, {6, 6}, {7, 7}};
    int rc = eddy_sync_plan_build_ex(&info, &plan);
    CHECKF(rc == c->rc, "case \"%s\": returned %d, expected %d", c->name, rc, c->rc);
    if (rc != 0) {
        CHECKF(!plan.steps && !plan.step_count && !plan.barriers && !plan.barrier_count &&
                   !plan.entry.barrier_count && !plan.loop.barrier_count &&
                   !plan.exit.barrier_count,
               "case \"%s\": failed build left a non-empty plan", c->name);
        return;
    }
    if (c->steps) {
        sync_case sc = {.name = c->name, .steps = c->steps, .step_count = c->step_count};
        bool same = plan.step_count == c->step_count;
        for (uint32_t i = 0; same && i < plan.step_count; i++)
            same = step_eq(&plan, i, &c->steps[i]);
        CHECKF(same, "case \"%s\": steps differ from the expectation", c->name);
        if (!same)
            print_diff(&sc, &plan);
    }
    check_group_barriers(c, &plan, "entry", plan.entry, c->entry_b, c->entry_n);
    check_group_barriers(c, &plan, "loop", plan.loop, c->loop_b, c->loop_n);
    check_group_barriers(c, &plan, "exit", plan.exit, c->exit_b, c->exit_n);
    /* The groups follow the steps' barriers and fill the array. */
    uint32_t steps_end = plan.step_count ? plan.steps[plan.step_count - 1].first_barrier +
                                               plan.steps[plan.step_count - 1].barrier_count
                                         : 0;
    CHECKF(steps_end + plan.entry.barrier_count + plan.loop.barrier_count +
                   plan.exit.barrier_count == plan.barrier_count,
           "case \"%s\": groups do not fill the barrier array", c->name);
    eddy_sync_plan_free(&plan);
    CHECK(!plan.barriers && !plan.entry.barrier_count && !plan.loop.barrier_count &&
          !plan.exit.barrier_count);
}

/* The union a recorder uses to record one global barrier instead. */
static void check_masks(void)
{
    static const eddy_sync_barrier compute[] = {RAW(1), WAR(2)};
    static const eddy_sync_barrier indirect[] = {RAW(1), RAW_IND(2)};
    static const eddy_sync_barrier draw[] = {B(1, SC, AW, SVS, AR)};
    eddy_sync_masks m = eddy_sync_masks_of(compute, 2);
    CHECK(m.src_stages == SC && m.src_access == AW && m.dst_stages == SC &&
          m.dst_access == (AR | AW));
    CHECK(eddy_sync_masks_compute_only(m));
    m = eddy_sync_masks_of(indirect, 2);
    CHECK(m.dst_stages == (SC | SI) && m.dst_access == (AR | AI));
    CHECK(!eddy_sync_masks_compute_only(m));
    CHECK(!eddy_sync_masks_compute_only(eddy_sync_masks_of(draw, 1)));
    m = eddy_sync_masks_of(compute, 0);
    CHECK(!m.src_stages && !m.src_access && !m.dst_stages && !m.dst_access);
    CHECK(!eddy_sync_masks_compute_only(m));
    CHECK(!eddy_sync_masks_compute_only(eddy_sync_masks_of(NULL, 0)));

    eddy_sync_plan plan;
    CHECK(eddy_sync_plan_build_ex(NULL, &plan) == -1);
    CHECK(!plan.steps && !plan.barriers && !plan.loop.barrier_count);
    CHECK(eddy_sync_plan_build_ex(&(eddy_sync_build_info){.graph_times = 1}, NULL) == -1);
}

/* Images: layout transitions are barriers of their own (also between two
 * reads), and the entry, loop and exit groups keep every replay starting in
 * its first use's layout and leave the image in HOME (GENERAL). */
#define LG EDDY_SYNC_LAYOUT_GENERAL
#define LR EDDY_SYNC_LAYOUT_READ_ONLY
#define IU(res, acc, lay) {.resource = (res), .access = EDDY_SYNC_##acc, .layout = (lay)}
#define IB(res, ss, sa, ds, da, from, to) {.resource = (res), .src_stages = (ss), .src_access = (sa), \
                                          .dst_stages = (ds), .dst_access = (da), .old_layout = (from), \
                                          .new_layout = (to)}
#define HOST_READS (EDDY_SYNC_STAGE_ALL)
#define HOST_WRITES (AW | ATW | AHW)

static bool image_barriers_eq(const char *name, const char *what, const eddy_sync_barrier *got, uint32_t got_n,
                              const eddy_sync_barrier *want, uint32_t want_n)
{
    bool ok = got_n == want_n;
    for (uint32_t i = 0; ok && i < want_n; i++)
        ok = barrier_eq(&got[i], &want[i]) && got[i].old_layout == want[i].old_layout &&
             got[i].new_layout == want[i].new_layout;
    if (!ok) {
        fprintf(stderr, "images '%s': %s barriers differ (got %u, want %u)\n", name, what, got_n, want_n);
        for (uint32_t i = 0; i < got_n; i++) {
            char b[160];
            barrier_str(b, sizeof b, &got[i]);
            fprintf(stderr, "  got  %s layout %u -> %u\n", b, got[i].old_layout, got[i].new_layout);
        }
        for (uint32_t i = 0; i < want_n; i++) {
            char b[160];
            barrier_str(b, sizeof b, &want[i]);
            fprintf(stderr, "  want %s layout %u -> %u\n", b, want[i].old_layout, want[i].new_layout);
        }
        test_failures++;
    }
    return ok;
}

typedef struct image_case {
    const char *name;
    const eddy_sync_pass *passes;
    uint32_t pass_count, graph_times;
    bool loop, host; /* host: entry and exit "anything" */
    const eddy_sync_barrier *steps[4]; /* expected barriers of steps 0..3 (NULL: none) */
    uint32_t step_n[4];
    const eddy_sync_barrier *entry, *loop_b, *exit;
    uint32_t entry_n, loop_n, exit_n;
} image_case;

#define BL(...) (const eddy_sync_barrier[]){__VA_ARGS__}
#define BN(...) COUNT(eddy_sync_barrier, __VA_ARGS__)

static void check_image_case(const image_case *c)
{
    eddy_sync_host anything = {NULL, 0, EDDY_SYNC_STAGE_ALL, EDDY_SYNC_ACCESS_ALL};
    eddy_sync_build_info info = {c->passes, c->pass_count, NULL, 0, c->graph_times, c->loop,
                                 c->host ? &anything : NULL, c->host ? &anything : NULL};
    eddy_sync_plan plan;
    if (eddy_sync_plan_build_ex(&info, &plan) != 0) {
        fprintf(stderr, "images '%s': the planner refused it\n", c->name);
        test_failures++;
        return;
    }
    for (uint32_t s = 0; s < plan.step_count && s < 4; s++) {
        char what[32];
        snprintf(what, sizeof what, "step %u", s);
        image_barriers_eq(c->name, what, plan.barriers + plan.steps[s].first_barrier, plan.steps[s].barrier_count,
                          c->steps[s], c->step_n[s]);
    }
    image_barriers_eq(c->name, "entry", plan.barriers + plan.entry.first_barrier, plan.entry.barrier_count,
                      c->entry, c->entry_n);
    image_barriers_eq(c->name, "loop", plan.barriers + plan.loop.first_barrier, plan.loop.barrier_count, c->loop_b,
                      c->loop_n);
    image_barriers_eq(c->name, "exit", plan.barriers + plan.exit.first_barrier, plan.exit.barrier_count, c->exit,
                      c->exit_n);
    eddy_sync_plan_free(&plan);
}

static void check_images(void)
{
    const eddy_sync_pass write_sample[] = {PASS(IU(1, WRITE, LG)), PASS(IU(1, READ, LR))};
    const eddy_sync_pass sample_only[] = {PASS(IU(1, READ, LR), U(2, WRITE))};
    const eddy_sync_pass sample_write[] = {PASS(IU(1, READ, LR)), PASS(IU(1, WRITE, LG))};
    const eddy_sync_pass two_reads[] = {PASS(IU(1, READ, LG)), PASS(IU(1, READ, LR))};
    const image_case cases_img[] = {
        /* Storage write, then sampling: G -> R before the sample; replays
         * start in G (loop R -> G), entry goes to the end layout R, exit
         * back to G. */
        {"write then sample, replayed", write_sample, 2, 1, true, true,
         {NULL, BL(IB(1, SC, AW, SC, AR | AW, LG, LR))}, {0, 1},
         BL(IB(1, HOST_READS, HOST_WRITES, SC, AR | AW, LG, LR)), BL(IB(1, SC, 0, SC, AR | AW, LR, LG)),
         BL(IB(1, SC, 0, EDDY_SYNC_STAGE_ALL, EDDY_SYNC_ACCESS_ALL, LR, LG)), 1, 1, 1},
        /* A host recording (no loop): entry to the first use's layout. */
        {"write then sample, recorded once", write_sample, 2, 1, false, true,
         {NULL, BL(IB(1, SC, AW, SC, AR | AW, LG, LR))}, {0, 1},
         BL(IB(1, HOST_READS, HOST_WRITES, SC, AW, LG, LG)), NULL,
         BL(IB(1, SC, 0, EDDY_SYNC_STAGE_ALL, EDDY_SYNC_ACCESS_ALL, LR, LG)), 1, 0, 1},
        /* Only sampled: one transition in, nothing between replays, one out. */
        {"sample only", sample_only, 1, 1, true, true,
         {NULL}, {0},
         BL(IB(1, HOST_READS, HOST_WRITES, SC, AR | AW, LG, LR), B(2, HOST_READS, HOST_WRITES, SC, AW)),
         BL(WAW(2)),
         BL(IB(1, SC, 0, EDDY_SYNC_STAGE_ALL, EDDY_SYNC_ACCESS_ALL, LR, LG),
            B(2, SC, AW, EDDY_SYNC_STAGE_ALL, EDDY_SYNC_ACCESS_ALL)),
         2, 1, 2},
        /* Unrolled twice without groups: every use in the other layout
         * transitions, the first one not (it starts in its layout). */
        {"sample then write, twice", sample_write, 2, 2, false, false,
         {NULL, BL(IB(1, SC, 0, SC, AR | AW, LR, LG)), BL(IB(1, SC, AW, SC, AR | AW, LG, LR)),
          BL(IB(1, SC, 0, SC, AR | AW, LR, LG))}, {0, 1, 1, 1},
         NULL, NULL, NULL, 0, 0, 0},
        /* Two reads in different layouts still need the transition. */
        {"storage read then sample", two_reads, 2, 1, false, false,
         {NULL, BL(IB(1, SC, 0, SC, AR | AW, LG, LR))}, {0, 1},
         NULL, NULL, NULL, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases_img / sizeof cases_img[0]; i++)
        check_image_case(&cases_img[i]);

    /* Invalid: a layout on one use of a resource and not another, two
     * layouts in one pass, an unknown layout, an atomic image access. */
    const eddy_sync_pass mixed[] = {PASS(IU(1, READ, LG)), PASS(U(1, READ))};
    const eddy_sync_pass both[] = {PASS(IU(1, READ, LG), IU(1, READ, LR))};
    const eddy_sync_pass unknown[] = {PASS(IU(1, READ, 7))};
    const eddy_sync_pass atomic[] = {PASS(IU(1, ATOMIC, LG))};
    const eddy_sync_pass *bad[] = {mixed, both, unknown, atomic};
    const uint32_t bad_n[] = {2, 1, 1, 1};
    for (int i = 0; i < 4; i++) {
        eddy_sync_plan plan;
        int rc = eddy_sync_plan_build(bad[i], bad_n[i], NULL, 0, 1, &plan);
        if (rc != -1) {
            fprintf(stderr, "images: invalid case %d accepted\n", i);
            test_failures++;
            eddy_sync_plan_free(&plan);
        }
    }
}

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(&cases[i]);
    for (size_t i = 0; i < sizeof group_cases / sizeof group_cases[0]; i++)
        check_group_case(&group_cases[i]);
    check_null_arguments();
    check_long_range();
    check_masks();
    check_images();
    return test_report("graph_sync");
}
