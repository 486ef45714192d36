/* The barrier planner against a brute-force hazard oracle, on random graphs.
 *
 * Each graph (fixed seed, so every run checks the same ones) has 1-12 passes
 * with 1-4 uses each on 1-6 resources, random disjoint repeated ranges, a
 * graph repeat count and random host accesses before (entry) and after
 * (exit) the sequence. The test unrolls the schedule itself, lays out what
 * the recorder records for a submission that replays the sequence twice (or
 * once, when the plan asks for no loop barriers):
 *
 *     host entry accesses, [entry], { [loop], [step 0's] pass 0, ... } x 2,
 *     [exit], host exit accesses
 *
 * and checks, per resource, every pair of accesses with the rules below.
 * Nothing here calls the planner's own hazard logic: the accesses of a pass
 * and of the host come from this file's tables.
 *
 * What the oracle accepts (conservative: it may ask for more than Vulkan
 * needs, never less):
 *  - Accesses: a pass's use is a set of (stage, access, read or write):
 *    READ C/SHADER_READ, WRITE C/SHADER_WRITE, READ_WRITE and ATOMIC both,
 *    INDIRECT I/INDIRECT_READ. A host use (stages, access) is every read and
 *    write of a stage in the mask whose access bit is in the mask, by the
 *    stage table of graph_sync.h (the API's contract).
 *  - Conflict: two accesses of one resource at different points, at least one
 *    a write, except when both points are pure ATOMIC passes and every point
 *    touching the resource between them is a pure ATOMIC pass too.
 *  - Covered: a chain of barrier entries B1 .. Bk on the same resource (never
 *    through other resources, never through a global barrier), each in a
 *    later barrier command than the one before, all between the two
 *    accesses, with:
 *      B1's source stages containing the earlier access's stage, or COMPUTE
 *      when that is a pass's INDIRECT fetch (the dispatch's logically
 *      earlier stage); for a write, B1's source access containing the write;
 *      each next Bi's source stages sharing a stage with the previous one's
 *      destination stages (exactly: no logically earlier/later stages there);
 *      Bk's destination stages containing the later access's stage, and for
 *      a read after a write, Bk's destination access containing the read.
 *    Write after write needs the source access (availability) but no
 *    destination access; read then write needs only the execution chain.
 *  - Minimal: each planned entry, in at least one of its recorded places,
 *    ends a chain that covers some conflicting pair that the barriers before
 *    that place do not already cover, where the later access lies between the
 *    place and the resource's next write (inclusive): a barrier is placed
 *    where it is first needed. Its destination stages and accesses must be
 *    those of such accesses, and its source stages and access those of
 *    the accesses still pending there (the last access point that wrote, and
 *    the reads after it).
 * Coverage is also checked with the entry barriers recorded in the same
 * barrier command as the first replay's loop barriers, which graph_sync.h
 * allows.
 * Host-to-host pairs count too when the sequence touches the resource: the
 * exit barriers must order a host write before the sequence against a host
 * access after it when the sequence only reads in between.
 *
 * Usage: test_graph_sync_random [graphs [seed]]. */
#include "../test.h"
#include "graph_sync.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define MAX_PASSES 12
#define MAX_RES 6
#define MAX_USES 4
#define MAX_HOST_USES 4
#define MAX_STEPS (MAX_PASSES * 4 * 3)  /* every pass in a range of 4, graph_times 3 */
#define MAX_SUBS 16                      /* a host use: 7 stages, 5 with a write */
#define MAX_ITEMS (2 * (2 * MAX_STEPS + 4) + 8)

/* Stage and access bit indices, this file's own copy of the contract. */
enum { SC, SI, ST, SVI, SVS, SFS, SH, STAGES };
enum { AR, AW, AIR, ATR, ATW, AVR, AHR, AHW, ACCESSES };
static const struct {
    int read, write; /* access bit index, -1 for none */
    const char *name;
} stage_kinds[STAGES] = {
    [SC] = {AR, AW, "C"},   [SI] = {AIR, -1, "I"},  [ST] = {ATR, ATW, "T"},
    [SVI] = {AVR, -1, "VI"}, [SVS] = {AR, AW, "VS"}, [SFS] = {AR, AW, "FS"},
    [SH] = {AHR, AHW, "H"},
};
static const char *const access_names[ACCESSES] = {"R", "W", "IR", "TR", "TW", "VR", "HR", "HW"};

/* ---- random numbers: splitmix64, fixed seed ---- */

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (uint32_t)(((z >> 32) * n) >> 32);
}

/* ---- one random graph ---- */

typedef struct graph {
    uint32_t pass_count;
    eddy_sync_use uses[MAX_PASSES][MAX_USES];
    eddy_sync_pass passes[MAX_PASSES];
    uint32_t range_count;
    eddy_sync_range ranges[MAX_PASSES];      /* ascending, for unrolling here */
    eddy_sync_range ranges_given[MAX_PASSES]; /* shuffled, for the planner */
    uint32_t graph_times;
    uint32_t res_count;
    uint32_t res[MAX_RES];
    bool loop;
    bool has_entry, has_exit;
    eddy_sync_host entry, exit;
    eddy_sync_host_use entry_uses[MAX_HOST_USES], exit_uses[MAX_HOST_USES];
} graph;

/* One (stage, access) each: what the host's commands can do. */
static const uint8_t host_kinds[][2] = {
    {SC, AR},  {SC, AW},  {SI, AIR}, {ST, ATR}, {ST, ATW}, {SVI, AVR},
    {SVS, AR}, {SVS, AW}, {SFS, AR}, {SFS, AW}, {SH, AHR}, {SH, AHW},
};
#define HOST_KINDS (sizeof host_kinds / sizeof host_kinds[0])

static void random_host_masks(uint32_t *stages, uint32_t *access)
{
    uint32_t pick = rnd(10);
    *stages = *access = 0;
    if (pick == 0) {
        *stages = EDDY_SYNC_STAGE_ALL;
        *access = EDDY_SYNC_ACCESS_ALL;
        return;
    }
    uint32_t n = 1 + rnd(pick < 7 ? 1 : 3);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = rnd(HOST_KINDS);
        *stages |= 1u << host_kinds[k][0];
        *access |= 1u << host_kinds[k][1];
    }
}

static void random_host(graph *g, eddy_sync_host *h, eddy_sync_host_use *uses)
{
    *h = (eddy_sync_host){.uses = uses};
    switch (rnd(4)) {
    case 0:
        break; /* the host does nothing by default */
    case 1:
        h->default_stages = EDDY_SYNC_STAGE_ALL;
        h->default_access = EDDY_SYNC_ACCESS_ALL;
        break;
    default:
        random_host_masks(&h->default_stages, &h->default_access);
        break;
    }
    h->use_count = rnd(MAX_HOST_USES + 1);
    for (uint32_t u = 0; u < h->use_count; u++) {
        /* Now and then a resource no pass touches: ignored by the planner. */
        uses[u].resource = rnd(8) ? g->res[rnd(g->res_count)] : 0xABCDEF01u;
        random_host_masks(&uses[u].stages, &uses[u].access);
    }
}

static void random_graph(graph *g)
{
    memset(g, 0, sizeof *g);
    g->res_count = 1 + rnd(MAX_RES);
    for (uint32_t r = 0; r < g->res_count; r++) {
        bool again;
        do {
            /* Small ids, the largest uint32 and arbitrary ones. */
            uint32_t kind = rnd(4);
            g->res[r] = kind == 0 ? 0xFFFFFFFFu : kind == 1 ? rnd(8) : (uint32_t)rnd(1u << 31) * 2u;
            again = g->res[r] == 0xABCDEF01u;
            for (uint32_t q = 0; q < r; q++)
                again = again || g->res[q] == g->res[r];
        } while (again);
    }
    /* Some graphs lean on atomics so that runs of ATOMIC passes show up. */
    bool atomic_heavy = rnd(5) == 0;
    g->pass_count = 1 + rnd(MAX_PASSES);
    for (uint32_t p = 0; p < g->pass_count; p++) {
        uint32_t n = 1 + rnd(MAX_USES);
        for (uint32_t u = 0; u < n; u++) {
            uint32_t a = atomic_heavy && rnd(2) ? EDDY_SYNC_ATOMIC : 1 + rnd(5);
            g->uses[p][u] = (eddy_sync_use){.resource = g->res[rnd(g->res_count)], .access = (eddy_sync_access)a};
        }
        g->passes[p] = (eddy_sync_pass){g->uses[p], n};
    }
    for (uint32_t p = 0; p < g->pass_count;) {
        if (rnd(3) == 0) {
            uint32_t left = g->pass_count - p;
            uint32_t count = 1 + rnd(left < 4 ? left : 4);
            g->ranges[g->range_count++] = (eddy_sync_range){p, count, 1 + rnd(4)};
            p += count;
        } else {
            p++;
        }
    }
    memcpy(g->ranges_given, g->ranges, sizeof g->ranges);
    for (uint32_t i = g->range_count; i > 1; i--) {
        uint32_t j = rnd(i);
        eddy_sync_range t = g->ranges_given[i - 1];
        g->ranges_given[i - 1] = g->ranges_given[j];
        g->ranges_given[j] = t;
    }
    g->graph_times = 1 + rnd(3);
    g->loop = rnd(4) != 0;
    g->has_entry = rnd(5) != 0;
    g->has_exit = rnd(5) != 0;
    if (g->has_entry)
        random_host(g, &g->entry, g->entry_uses);
    if (g->has_exit)
        random_host(g, &g->exit, g->exit_uses);
}

/* The executed passes of one replay, unrolled here independently. */
static uint32_t unroll(const graph *g, uint32_t *order)
{
    uint32_t n = 0;
    for (uint32_t t = 0; t < g->graph_times; t++) {
        uint32_t r = 0;
        for (uint32_t p = 0; p < g->pass_count;) {
            if (r < g->range_count && g->ranges[r].first == p) {
                for (uint32_t k = 0; k < g->ranges[r].times; k++)
                    for (uint32_t q = p; q < p + g->ranges[r].count; q++)
                        order[n++] = q;
                p += g->ranges[r].count;
                r++;
            } else {
                order[n++] = p++;
            }
        }
    }
    return n;
}

/* ---- the timeline of one resource ---- */

typedef struct sub {
    uint8_t stage, access; /* bit indices */
    bool write;
} sub;

typedef enum where_kind { AT_HOST_ENTRY, AT_ENTRY, AT_LOOP, AT_STEP, AT_EXIT, AT_HOST_EXIT } where_kind;

typedef struct item {
    bool is_group;
    where_kind where;
    uint32_t rep, step, pass;
    /* an access point */
    bool from_pass, atomic_only;
    uint32_t sub_count;
    sub subs[MAX_SUBS];
    /* a barrier command: this resource's entries in it */
    uint32_t barrier_count;
    uint32_t barriers[4];   /* indices into plan.barriers */
    uint32_t window_end;    /* items (j, window_end) hold the accesses up to the next write */
} item;

typedef struct timeline {
    uint32_t count;
    item items[MAX_ITEMS];
} timeline;

static void add_sub(item *it, int stage, int access, bool write)
{
    for (uint32_t i = 0; i < it->sub_count; i++)
        if (it->subs[i].stage == stage && it->subs[i].access == access &&
            it->subs[i].write == write)
            return;
    it->subs[it->sub_count++] = (sub){(uint8_t)stage, (uint8_t)access, write};
}

static void add_host_subs(item *it, uint32_t stages, uint32_t access)
{
    for (int s = 0; s < STAGES; s++) {
        if (!(stages & (1u << s)))
            continue;
        if (stage_kinds[s].read >= 0 && (access & (1u << stage_kinds[s].read)))
            add_sub(it, s, stage_kinds[s].read, false);
        if (stage_kinds[s].write >= 0 && (access & (1u << stage_kinds[s].write)))
            add_sub(it, s, stage_kinds[s].write, true);
    }
}

/* The host's use of resource id: the uses naming it, else the default. */
static void host_item(const eddy_sync_host *h, uint32_t id, item *it)
{
    bool named = false;
    for (uint32_t u = 0; u < h->use_count; u++) {
        if (h->uses[u].resource == id) {
            add_host_subs(it, h->uses[u].stages, h->uses[u].access);
            named = true;
        }
    }
    if (!named)
        add_host_subs(it, h->default_stages, h->default_access);
}

static bool pass_item(const graph *g, uint32_t pass, uint32_t id, item *it)
{
    bool any = false;
    it->atomic_only = true;
    for (uint32_t u = 0; u < g->passes[pass].use_count; u++) {
        const eddy_sync_use *use = &g->passes[pass].uses[u];
        if (use->resource != id)
            continue;
        any = true;
        switch (use->access) {
        case EDDY_SYNC_READ: add_sub(it, SC, AR, false); break;
        case EDDY_SYNC_WRITE: add_sub(it, SC, AW, true); break;
        case EDDY_SYNC_READ_WRITE:
        case EDDY_SYNC_ATOMIC:
            add_sub(it, SC, AR, false);
            add_sub(it, SC, AW, true);
            break;
        case EDDY_SYNC_INDIRECT: add_sub(it, SI, AIR, false); break;
        }
        if (use->access != EDDY_SYNC_ATOMIC)
            it->atomic_only = false;
    }
    it->from_pass = true;
    return any;
}

static item *push_item(timeline *t)
{
    item *it = &t->items[t->count++];
    memset(it, 0, sizeof *it);
    return it;
}

/* One barrier command: this resource's entries of slice [first, +count) and,
 * when merging two groups into one command, of [first2, +count2). */
static void push_group2(timeline *t, const eddy_sync_plan *plan, uint32_t first, uint32_t count,
                        uint32_t first2, uint32_t count2, uint32_t id, where_kind where,
                        uint32_t rep, uint32_t step, uint32_t pass)
{
    item *it = NULL;
    for (uint32_t n = 0; n < count + count2; n++) {
        uint32_t i = n < count ? first + n : first2 + (n - count);
        if (plan->barriers[i].resource != id)
            continue;
        if (!it) {
            it = push_item(t);
            *it = (item){.is_group = true, .where = where, .rep = rep, .step = step, .pass = pass};
        }
        if (it->barrier_count < 4)
            it->barriers[it->barrier_count++] = i;
    }
}

static void push_group(timeline *t, const eddy_sync_plan *plan, uint32_t first, uint32_t count,
                       uint32_t id, where_kind where, uint32_t rep, uint32_t step, uint32_t pass)
{
    push_group2(t, plan, first, count, 0, 0, id, where, rep, step, pass);
}

/* merge_entry: the entry group goes into the same barrier command as replay
 * 1's loop group, which graph_sync.h allows. */
static void build_timeline(const graph *g, const eddy_sync_plan *plan, const uint32_t *order,
                           uint32_t steps, uint32_t id, bool merge_entry, timeline *t)
{
    t->count = 0;
    if (g->has_entry) {
        item *it = push_item(t);
        it->where = AT_HOST_ENTRY;
        host_item(&g->entry, id, it);
        if (!it->sub_count)
            t->count--;
    }
    if (!merge_entry)
        push_group(t, plan, plan->entry.first_barrier, plan->entry.barrier_count, id, AT_ENTRY,
                   0, 0, 0);
    for (uint32_t rep = 0; rep < (g->loop ? 2u : 1u); rep++) {
        bool with_entry = merge_entry && rep == 0;
        push_group2(t, plan, plan->loop.first_barrier, plan->loop.barrier_count,
                    plan->entry.first_barrier, with_entry ? plan->entry.barrier_count : 0, id,
                    AT_LOOP, rep, 0, 0);
        for (uint32_t s = 0; s < steps; s++) {
            push_group(t, plan, plan->steps[s].first_barrier, plan->steps[s].barrier_count, id,
                       AT_STEP, rep, s, order[s]);
            item *it = push_item(t);
            *it = (item){.where = AT_STEP, .rep = rep, .step = s, .pass = order[s]};
            if (!pass_item(g, order[s], id, it))
                t->count--;
        }
    }
    push_group(t, plan, plan->exit.first_barrier, plan->exit.barrier_count, id, AT_EXIT, 0, 0, 0);
    if (g->has_exit) {
        item *it = push_item(t);
        it->where = AT_HOST_EXIT;
        host_item(&g->exit, id, it);
        if (!it->sub_count)
            t->count--;
    }
    /* A group's window: the accesses after it up to and including the next
     * one that writes. */
    uint32_t end = t->count;
    for (uint32_t j = t->count; j-- > 0;) {
        item *it = &t->items[j];
        if (it->is_group) {
            it->window_end = end;
            continue;
        }
        bool writes = false;
        for (uint32_t k = 0; k < it->sub_count; k++)
            writes = writes || it->subs[k].write;
        if (writes)
            end = j + 1;
    }
}

/* ---- the oracle ---- */

typedef struct reach {
    uint32_t exec;  /* stages a chain from the earlier access has reached */
    uint32_t avail; /* the same, for chains that made its write available */
    uint64_t vis;   /* (stage, access) pairs its write was made visible to */
} reach;

static uint64_t vis_bits(uint32_t stages, uint32_t access)
{
    uint64_t v = 0;
    for (int s = 0; s < STAGES; s++)
        if (stages & (1u << s))
            v |= (uint64_t)(access & 0xFFu) << (8 * s);
    return v;
}

static bool reach_covers(const reach *r, const sub *a, const sub *b)
{
    uint32_t stage = 1u << b->stage;
    if (!a->write)
        return r->exec & stage;
    if (b->write)
        return r->avail & stage;
    return (r->vis >> (8 * b->stage + b->access)) & 1u;
}

static bool conflicts(const sub *a, const sub *b, bool atomic_run)
{
    return !atomic_run && (a->write || b->write);
}

typedef struct stats {
    uint64_t pairs, barriers, steps;
} stats;

typedef struct verdict {
    int failures;
    char first[512];
} verdict;

static void where_str(char *buf, size_t size, const item *it)
{
    switch (it->where) {
    case AT_HOST_ENTRY: snprintf(buf, size, "host entry"); break;
    case AT_ENTRY: snprintf(buf, size, "entry barriers"); break;
    case AT_LOOP: snprintf(buf, size, "loop barriers of replay %u", it->rep + 1); break;
    case AT_STEP:
        snprintf(buf, size, "replay %u step %u (pass %u)%s", it->rep + 1, it->step, it->pass,
                 it->is_group ? " barriers" : "");
        break;
    case AT_EXIT: snprintf(buf, size, "exit barriers"); break;
    case AT_HOST_EXIT: snprintf(buf, size, "host exit"); break;
    }
}

static void fail(verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(verdict *v, const char *fmt, ...)
{
    if (v->failures++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(v->first, sizeof v->first, fmt, ap);
        va_end(ap);
    }
}

/* Checks one resource: every conflicting pair covered; marks the planned
 * entries that some pair justifies (justified[]) and whose masks match the
 * accesses around them (precise[]). */
static void check_resource(const timeline *t, const eddy_sync_plan *plan, uint32_t id,
                           bool *justified, bool *precise, verdict *v, stats *st)
{
    /* Precision: the source masks against what is pending (the last access
     * point that wrote, and the reads after it), the destination masks
     * against the window. */
    uint32_t before_stages = 0, before_writes = 0;
    for (uint32_t j = 0; j < t->count; j++) {
        const item *it = &t->items[j];
        if (!it->is_group) {
            uint32_t stages = 0, writes = 0;
            for (uint32_t k = 0; k < it->sub_count; k++) {
                stages |= 1u << it->subs[k].stage;
                if (it->subs[k].write)
                    writes |= 1u << it->subs[k].access;
            }
            if (writes) {
                before_stages = stages;
                before_writes = writes;
            } else {
                before_stages |= stages;
            }
            continue;
        }
        uint32_t win_stages = 0, win_access = 0;
        for (uint32_t w = j + 1; w < it->window_end; w++)
            for (uint32_t k = 0; k < t->items[w].sub_count; k++) {
                win_stages |= 1u << t->items[w].subs[k].stage;
                win_access |= 1u << t->items[w].subs[k].access;
            }
        for (uint32_t k = 0; k < it->barrier_count; k++) {
            const eddy_sync_barrier *b = &plan->barriers[it->barriers[k]];
            if (!(b->dst_stages & ~win_stages) && !(b->dst_access & ~win_access) &&
                !(b->src_stages & ~before_stages) && !(b->src_access & ~before_writes))
                precise[it->barriers[k]] = true;
        }
    }

    for (uint32_t i = 0; i < t->count; i++) {
        const item *ai = &t->items[i];
        if (ai->is_group)
            continue;
        for (uint32_t ka = 0; ka < ai->sub_count; ka++) {
            const sub *a = &ai->subs[ka];
            reach r = {0};
            bool atomic_run = ai->atomic_only; /* only pure ATOMIC points so far */
            for (uint32_t j = i + 1; j < t->count; j++) {
                const item *it = &t->items[j];
                if (!it->is_group) {
                    bool run = atomic_run && it->atomic_only;
                    for (uint32_t kb = 0; kb < it->sub_count; kb++) {
                        const sub *b = &it->subs[kb];
                        if (!conflicts(a, b, run))
                            continue;
                        st->pairs++;
                        if (reach_covers(&r, a, b))
                            continue;
                        char wa[96], wb[96];
                        where_str(wa, sizeof wa, ai);
                        where_str(wb, sizeof wb, it);
                        fail(v, "resource %" PRIu32 ": missing barrier: %s %s/%s at %s -> "
                             "%s %s/%s at %s", id, a->write ? "write" : "read",
                             stage_kinds[a->stage].name, access_names[a->access], wa,
                             b->write ? "write" : "read", stage_kinds[b->stage].name,
                             access_names[b->access], wb);
                    }
                    atomic_run = run;
                    continue;
                }
                reach next = r;
                for (uint32_t k = 0; k < it->barrier_count; k++) {
                    const eddy_sync_barrier *b = &plan->barriers[it->barriers[k]];
                    bool starts = (b->src_stages & (1u << a->stage)) ||
                                  (ai->from_pass && a->stage == SI &&
                                   (b->src_stages & (1u << SC)));
                    bool ex = starts || (b->src_stages & r.exec);
                    bool av = (starts && (!a->write || (b->src_access & (1u << a->access)))) ||
                              (b->src_stages & r.avail);
                    if (ex)
                        next.exec |= b->dst_stages;
                    if (av) {
                        next.avail |= b->dst_stages;
                        next.vis |= vis_bits(b->dst_stages, b->dst_access);
                    }
                    if (justified[it->barriers[k]] || !(ex || av))
                        continue;
                    /* Does this entry, as the end of a chain, cover a pair
                     * that nothing before it covers? */
                    reach only = {ex ? b->dst_stages : 0, av ? b->dst_stages : 0,
                                  av ? vis_bits(b->dst_stages, b->dst_access) : 0};
                    bool run = atomic_run;
                    for (uint32_t w = j + 1; w < it->window_end && !justified[it->barriers[k]];
                         w++) {
                        const item *wi = &t->items[w];
                        if (wi->is_group)
                            continue;
                        bool wrun = run && wi->atomic_only;
                        for (uint32_t kb = 0; kb < wi->sub_count; kb++) {
                            const sub *bb = &wi->subs[kb];
                            if (conflicts(a, bb, wrun) && reach_covers(&only, a, bb) &&
                                !reach_covers(&r, a, bb))
                                justified[it->barriers[k]] = true;
                        }
                        run = wrun;
                    }
                }
                r = next;
            }
        }
    }
}

/* ---- printing a failing graph ---- */

static const char *access_name(eddy_sync_access a)
{
    static const char *const names[] = {"?", "READ", "WRITE", "READ_WRITE", "ATOMIC", "INDIRECT"};
    return (unsigned)a <= 5 ? names[a] : "?";
}

static void print_masks(FILE *f, uint32_t stages, uint32_t access)
{
    fprintf(f, "stages");
    for (int s = 0; s < STAGES; s++)
        if (stages & (1u << s))
            fprintf(f, " %s", stage_kinds[s].name);
    fprintf(f, " / access");
    for (int a = 0; a < ACCESSES; a++)
        if (access & (1u << a))
            fprintf(f, " %s", access_names[a]);
}

static void print_host(FILE *f, const char *name, const eddy_sync_host *h)
{
    fprintf(f, "  %s default: ", name);
    print_masks(f, h->default_stages, h->default_access);
    fputc('\n', f);
    for (uint32_t u = 0; u < h->use_count; u++) {
        fprintf(f, "  %s r%" PRIu32 ": ", name, h->uses[u].resource);
        print_masks(f, h->uses[u].stages, h->uses[u].access);
        fputc('\n', f);
    }
}

static void print_barriers(FILE *f, const char *what, const eddy_sync_plan *plan, uint32_t first,
                           uint32_t count)
{
    if (!count)
        return;
    fprintf(f, "    %s:", what);
    for (uint32_t i = first; i < first + count; i++) {
        const eddy_sync_barrier *b = &plan->barriers[i];
        fprintf(f, " [r%" PRIu32 " ", b->resource);
        print_masks(f, b->src_stages, b->src_access);
        fprintf(f, " -> ");
        print_masks(f, b->dst_stages, b->dst_access);
        fprintf(f, "]");
    }
    fputc('\n', f);
}

static void print_graph(FILE *f, const graph *g, const eddy_sync_plan *plan)
{
    for (uint32_t p = 0; p < g->pass_count; p++) {
        fprintf(f, "  pass %u:", p);
        for (uint32_t u = 0; u < g->passes[p].use_count; u++)
            fprintf(f, " r%" PRIu32 " %s", g->uses[p][u].resource, access_name(g->uses[p][u].access));
        fputc('\n', f);
    }
    for (uint32_t r = 0; r < g->range_count; r++)
        fprintf(f, "  range: passes %u..%u x%u\n", g->ranges[r].first,
                g->ranges[r].first + g->ranges[r].count - 1, g->ranges[r].times);
    fprintf(f, "  graph_times %u, loop %s\n", g->graph_times, g->loop ? "yes" : "no");
    if (g->has_entry)
        print_host(f, "entry", &g->entry);
    if (g->has_exit)
        print_host(f, "exit", &g->exit);
    fprintf(f, "  plan:\n");
    print_barriers(f, "entry", plan, plan->entry.first_barrier, plan->entry.barrier_count);
    print_barriers(f, "loop", plan, plan->loop.first_barrier, plan->loop.barrier_count);
    for (uint32_t s = 0; s < plan->step_count; s++) {
        char what[48];
        snprintf(what, sizeof what, "step %u (pass %u)", s, plan->steps[s].pass);
        print_barriers(f, what, plan, plan->steps[s].first_barrier, plan->steps[s].barrier_count);
    }
    print_barriers(f, "exit", plan, plan->exit.first_barrier, plan->exit.barrier_count);
}

/* ---- one graph ---- */

/* Whether a pass uses resource id: the plan covers only those, and the
 * host orders its own accesses to the others. */
static bool in_graph(const graph *g, uint32_t id)
{
    for (uint32_t p = 0; p < g->pass_count; p++)
        for (uint32_t u = 0; u < g->passes[p].use_count; u++)
            if (g->passes[p].uses[u].resource == id)
                return true;
    return false;
}

/* Barrier slices: in range, each sorted by resource, non-empty entries. */
static void check_group(const eddy_sync_plan *plan, uint32_t first, uint32_t count,
                        const graph *g, const char *what, verdict *v)
{
    eddy_sync_masks want = {0};
    for (uint32_t i = first; i < first + count; i++) {
        const eddy_sync_barrier *b = &plan->barriers[i];
        if (i > first && b->resource <= plan->barriers[i - 1].resource)
            fail(v, "%s: entries not sorted by resource / duplicated", what);
        if (!b->dst_stages || !b->src_stages)
            fail(v, "%s: entry for r%" PRIu32 " with empty stages", what, b->resource);
        if (!in_graph(g, b->resource))
            fail(v, "%s: entry for r%" PRIu32 ", which no pass uses", what, b->resource);
        want.src_stages |= b->src_stages;
        want.src_access |= b->src_access;
        want.dst_stages |= b->dst_stages;
        want.dst_access |= b->dst_access;
    }
    eddy_sync_masks got = eddy_sync_masks_of(plan->barriers ? plan->barriers + first : NULL, count);
    if (memcmp(&got, &want, sizeof got) != 0)
        fail(v, "%s: eddy_sync_masks_of differs from the union", what);
    bool compute_only = count && !((want.src_stages | want.dst_stages) & ~(1u << SC));
    if (eddy_sync_masks_compute_only(got) != compute_only)
        fail(v, "%s: eddy_sync_masks_compute_only says %d", what, !compute_only);
}

static void check_graph(const graph *g, verdict *v, stats *st, bool *out_had_loop, bool verbose)
{
    eddy_sync_build_info info = {
        .passes = g->passes,
        .pass_count = g->pass_count,
        .ranges = g->ranges_given,
        .range_count = g->range_count,
        .graph_times = g->graph_times,
        .loop = g->loop,
        .entry = g->has_entry ? &g->entry : NULL,
        .exit = g->has_exit ? &g->exit : NULL,
    };
    eddy_sync_plan plan;
    if (eddy_sync_plan_build_ex(&info, &plan) != 0) {
        fail(v, "eddy_sync_plan_build_ex failed");
        return;
    }
    *out_had_loop = plan.loop.barrier_count > 0;

    static uint32_t order[MAX_STEPS];
    uint32_t steps = unroll(g, order);
    st->steps += steps;
    st->barriers += plan.barrier_count;
    if (plan.step_count != steps) {
        fail(v, "%u steps, expected %u", plan.step_count, steps);
        goto out;
    }
    /* Slices in recording-independent order: steps, entry, loop, exit. */
    uint32_t next = 0;
    for (uint32_t s = 0; s < steps; s++) {
        if (plan.steps[s].pass != order[s])
            fail(v, "step %u runs pass %u, expected %u", s, plan.steps[s].pass, order[s]);
        if (plan.steps[s].first_barrier != next) {
            fail(v, "step %u: barriers not contiguous", s);
            goto out;
        }
        next += plan.steps[s].barrier_count;
    }
    const eddy_sync_group *groups[] = {&plan.entry, &plan.loop, &plan.exit};
    for (int k = 0; k < 3; k++) {
        if (groups[k]->barrier_count && groups[k]->first_barrier != next) {
            fail(v, "entry/loop/exit group %d: barriers not contiguous", k);
            goto out;
        }
        next += groups[k]->barrier_count;
    }
    if (next != plan.barrier_count) {
        fail(v, "slices cover %u of %u barriers", next, plan.barrier_count);
        goto out;
    }
    if ((!g->loop && plan.loop.barrier_count) || (!g->has_entry && plan.entry.barrier_count) ||
        (!g->has_exit && plan.exit.barrier_count))
        fail(v, "barriers in a group that was not asked for");
    for (uint32_t s = 0; s < steps; s++) {
        char what[32];
        snprintf(what, sizeof what, "step %u", s);
        check_group(&plan, plan.steps[s].first_barrier, plan.steps[s].barrier_count, g, what, v);
    }
    check_group(&plan, plan.entry.first_barrier, plan.entry.barrier_count, g, "entry", v);
    check_group(&plan, plan.loop.first_barrier, plan.loop.barrier_count, g, "loop", v);
    check_group(&plan, plan.exit.first_barrier, plan.exit.barrier_count, g, "exit", v);
    if (v->failures)
        goto out;

    /* The plain build gives the same steps. */
    eddy_sync_plan plain;
    if (eddy_sync_plan_build(g->passes, g->pass_count, g->ranges_given, g->range_count,
                             g->graph_times, &plain) != 0) {
        fail(v, "eddy_sync_plan_build failed");
    } else {
        uint32_t step_barriers = plan.barrier_count - plan.entry.barrier_count -
                                 plan.loop.barrier_count - plan.exit.barrier_count;
        if (plain.step_count != plan.step_count || plain.barrier_count != step_barriers ||
            memcmp(plain.steps, plan.steps, steps * sizeof *plan.steps) != 0 ||
            (step_barriers &&
             memcmp(plain.barriers, plan.barriers, step_barriers * sizeof *plan.barriers) != 0))
            fail(v, "eddy_sync_plan_build and _ex plan different steps");
        eddy_sync_plan_free(&plain);
    }

    static bool justified[4 * MAX_STEPS * MAX_RES], precise[4 * MAX_STEPS * MAX_RES];
    if (plan.barrier_count > sizeof justified / sizeof justified[0]) {
        fail(v, "%u barriers: more than there can be", plan.barrier_count);
        goto out;
    }
    memset(justified, 0, plan.barrier_count * sizeof *justified);
    memset(precise, 0, plan.barrier_count * sizeof *precise);
    static timeline t;
    for (uint32_t r = 0; r < g->res_count; r++) {
        if (!in_graph(g, g->res[r]))
            continue;
        build_timeline(g, &plan, order, steps, g->res[r], false, &t);
        check_resource(&t, &plan, g->res[r], justified, precise, v, st);
        /* The same plan with the entry barriers merged into replay 1's loop
         * barrier command must still cover every pair. */
        if (plan.entry.barrier_count && plan.loop.barrier_count) {
            static bool scratch[4 * MAX_STEPS * MAX_RES];
            verdict merged = {0};
            build_timeline(g, &plan, order, steps, g->res[r], true, &t);
            check_resource(&t, &plan, g->res[r], scratch, scratch, &merged, st);
            if (merged.failures)
                fail(v, "entry merged into the loop barriers: %s", merged.first);
        }
    }
    for (uint32_t i = 0; i < plan.barrier_count; i++) {
        const char *group = i >= plan.exit.first_barrier && plan.exit.barrier_count &&
                                    i < plan.exit.first_barrier + plan.exit.barrier_count
                                ? "exit"
                            : plan.loop.barrier_count && i >= plan.loop.first_barrier &&
                                    i < plan.loop.first_barrier + plan.loop.barrier_count
                                ? "loop"
                            : plan.entry.barrier_count && i >= plan.entry.first_barrier &&
                                    i < plan.entry.first_barrier + plan.entry.barrier_count
                                ? "entry"
                                : "step";
        if (!justified[i])
            fail(v, "barrier %u (%s group, r%" PRIu32 ") protects no pair that is not "
                 "already protected", i, group, plan.barriers[i].resource);
        else if (!precise[i])
            fail(v, "barrier %u (%s group, r%" PRIu32 ") has masks beyond the accesses "
                 "around it", i, group, plan.barriers[i].resource);
    }
out:
    if (v->failures && verbose)
        print_graph(stderr, g, &plan);
    eddy_sync_plan_free(&plan);
}

int main(int argc, char **argv)
{
    uint32_t graphs = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 10000;
    rng = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5EED2024ull;
    clock_t start = clock();
    stats st = {0};
    uint32_t failed = 0, with_loop = 0;
    static graph g;
    for (uint32_t n = 0; n < graphs; n++) {
        random_graph(&g);
        verdict v = {0};
        bool had_loop = false;
        /* Only the first few failures print their graph and plan. */
        check_graph(&g, &v, &st, &had_loop, failed < 3);
        if (v.failures && failed < 3)
            fprintf(stderr, "graph %u: %d problem(s), first: %s\n", n, v.failures, v.first);
        with_loop += had_loop;
        if (v.failures)
            failed++;
    }
    double secs = (double)(clock() - start) / CLOCKS_PER_SEC;
    printf("graph_sync_random: %u graphs (%u with loop barriers), %" PRIu64 " steps, %" PRIu64
           " barriers, %" PRIu64 " conflicting pairs checked, %.2f s\n",
           graphs, with_loop, st.steps, st.barriers, st.pairs, secs);
    CHECKF(failed == 0, "%u of %u graphs failed", failed, graphs);
    return test_report("graph_sync_random");
}
