/* Barrier planner; the rules it applies are documented in graph_sync.h. */
#include "graph_sync.h"

#include <stdlib.h>
#include <string.h>

/* All uses of one resource by one pass (or by the host, or a replay's first
 * accesses) folded together, so that the hazard check sees each as a single
 * access per resource and emits at most one entry for it. */
typedef struct eddy_sync_merged {
    uint32_t resource;
    uint32_t slot;        /* index into the per-resource state array */
    uint32_t read_stages; /* EDDY_SYNC_STAGE_* bits */
    uint32_t write_stages;
    uint32_t write_access; /* EDDY_SYNC_ACCESS_* write bits of write_stages */
    bool atomic_only;     /* only then may it overlap a preceding ATOMIC pass */
    uint32_t layout;      /* EDDY_SYNC_LAYOUT_*: images only */
} eddy_sync_merged;

typedef struct eddy_sync_state {
    uint32_t write_stages, write_access; /* 0: no write since the start */
    bool write_atomic;
    uint32_t visible_stages; /* stages a barrier already made the last write visible to */
    uint32_t read_stages;    /* stages that read since the last write */
    uint32_t layout;         /* images: the layout it is in (EDDY_SYNC_LAYOUT_*) */
} eddy_sync_state;

/* Per resource: its accesses in one replay up to and including its first
 * write, which the loop and entry barriers must cover (see graph_sync.h). */
typedef struct eddy_sync_first {
    eddy_sync_merged use;
    bool seen;   /* the sequence touches the resource */
    bool closed; /* the first write was folded in: later accesses see it */
} eddy_sync_first;

typedef struct eddy_sync_builder {
    eddy_sync_plan plan;
    size_t barrier_cap;
    const eddy_sync_merged *merged;
    const uint32_t *pass_first; /* per pass: its entries in merged[] */
    const uint32_t *pass_count;
    eddy_sync_state *state;
    eddy_sync_first *first; /* per slot */
} eddy_sync_builder;

/* The table in graph_sync.h: the one read and one write each stage can do. */
static const struct {
    uint32_t stage, read, write;
} eddy_sync_stage_kinds[] = {
    {EDDY_SYNC_STAGE_COMPUTE, EDDY_SYNC_ACCESS_SHADER_READ, EDDY_SYNC_ACCESS_SHADER_WRITE},
    {EDDY_SYNC_STAGE_INDIRECT, EDDY_SYNC_ACCESS_INDIRECT_READ, 0},
    {EDDY_SYNC_STAGE_TRANSFER, EDDY_SYNC_ACCESS_TRANSFER_READ, EDDY_SYNC_ACCESS_TRANSFER_WRITE},
    {EDDY_SYNC_STAGE_VERTEX_INPUT, EDDY_SYNC_ACCESS_VERTEX_READ, 0},
    {EDDY_SYNC_STAGE_VERTEX_SHADER, EDDY_SYNC_ACCESS_SHADER_READ, EDDY_SYNC_ACCESS_SHADER_WRITE},
    {EDDY_SYNC_STAGE_FRAGMENT_SHADER, EDDY_SYNC_ACCESS_SHADER_READ,
     EDDY_SYNC_ACCESS_SHADER_WRITE},
    {EDDY_SYNC_STAGE_HOST, EDDY_SYNC_ACCESS_HOST_READ, EDDY_SYNC_ACCESS_HOST_WRITE},
};
#define EDDY_SYNC_STAGE_KINDS (sizeof eddy_sync_stage_kinds / sizeof eddy_sync_stage_kinds[0])

static bool eddy_sync_access_valid(eddy_sync_access access)
{
    /* Compared as unsigned so that a negative value cast into the enum is
     * rejected too. */
    uint32_t v = (uint32_t)access;
    return v >= (uint32_t)EDDY_SYNC_READ && v <= (uint32_t)EDDY_SYNC_INDIRECT;
}

static eddy_sync_merged eddy_sync_merged_from_use(eddy_sync_use use)
{
    eddy_sync_merged m = {.resource = use.resource, .layout = use.layout};
    switch (use.access) {
    case EDDY_SYNC_READ:
        m.read_stages = EDDY_SYNC_STAGE_COMPUTE;
        break;
    case EDDY_SYNC_WRITE:
        m.write_stages = EDDY_SYNC_STAGE_COMPUTE;
        m.write_access = EDDY_SYNC_ACCESS_SHADER_WRITE;
        break;
    case EDDY_SYNC_READ_WRITE:
        m.read_stages = EDDY_SYNC_STAGE_COMPUTE;
        m.write_stages = EDDY_SYNC_STAGE_COMPUTE;
        m.write_access = EDDY_SYNC_ACCESS_SHADER_WRITE;
        break;
    case EDDY_SYNC_ATOMIC:
        /* An atomic reads the old value, so outside the ATOMIC-after-ATOMIC
         * exemption it must be ordered like a read and a write. */
        m.read_stages = EDDY_SYNC_STAGE_COMPUTE;
        m.write_stages = EDDY_SYNC_STAGE_COMPUTE;
        m.write_access = EDDY_SYNC_ACCESS_SHADER_WRITE;
        m.atomic_only = true;
        break;
    case EDDY_SYNC_INDIRECT:
        m.read_stages = EDDY_SYNC_STAGE_INDIRECT;
        break;
    }
    return m;
}

static int eddy_sync_cmp_merged(const void *a, const void *b)
{
    uint32_t x = ((const eddy_sync_merged *)a)->resource;
    uint32_t y = ((const eddy_sync_merged *)b)->resource;
    return (x > y) - (x < y);
}

static int eddy_sync_cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int eddy_sync_cmp_range(const void *a, const void *b)
{
    uint32_t x = ((const eddy_sync_range *)a)->first;
    uint32_t y = ((const eddy_sync_range *)b)->first;
    return (x > y) - (x < y);
}

/* Each stage has at most one kind of read, so the destination access of a
 * read barrier follows from its stages. */
static uint32_t eddy_sync_read_access(uint32_t stages)
{
    uint32_t access = 0;
    for (size_t i = 0; i < EDDY_SYNC_STAGE_KINDS; i++)
        if (stages & eddy_sync_stage_kinds[i].stage)
            access |= eddy_sync_stage_kinds[i].read;
    return access;
}

static void eddy_sync_merge_into(eddy_sync_merged *into, const eddy_sync_merged *m)
{
    into->read_stages |= m->read_stages;
    into->write_stages |= m->write_stages;
    into->write_access |= m->write_access;
    into->atomic_only = into->atomic_only && m->atomic_only;
}

/* A host use as reads and writes per stage (graph_sync.h); -1 if it has bits
 * the planner does not know or an access none of its stages can do. */
static int eddy_sync_merged_from_host(uint32_t stages, uint32_t access, eddy_sync_merged *m)
{
    if ((stages & ~(uint32_t)EDDY_SYNC_STAGE_ALL) || (access & ~(uint32_t)EDDY_SYNC_ACCESS_ALL))
        return -1;
    uint32_t claimed = 0;
    *m = (eddy_sync_merged){0};
    for (size_t i = 0; i < EDDY_SYNC_STAGE_KINDS; i++) {
        uint32_t stage = eddy_sync_stage_kinds[i].stage;
        uint32_t read = eddy_sync_stage_kinds[i].read, write = eddy_sync_stage_kinds[i].write;
        if (!(stages & stage))
            continue;
        if (access & read) {
            m->read_stages |= stage;
            claimed |= read;
        }
        if (access & write) {
            m->write_stages |= stage;
            m->write_access |= write;
            claimed |= write;
        }
    }
    return (access & ~claimed) ? -1 : 0;
}

/* Hazards of pass use m against the state left by earlier passes only, so a
 * READ_WRITE never conflicts with itself. Returns an entry with dst_stages 0
 * when there is none. */
/* Every read and write access the stages can make. */
static uint32_t eddy_sync_all_access(uint32_t stages)
{
    uint32_t access = 0;
    for (size_t i = 0; i < EDDY_SYNC_STAGE_KINDS; i++)
        if (stages & eddy_sync_stage_kinds[i].stage)
            access |= eddy_sync_stage_kinds[i].read | eddy_sync_stage_kinds[i].write;
    return access;
}

static bool eddy_sync_transition(const eddy_sync_state *s, const eddy_sync_merged *m)
{
    return s->layout && m->layout && s->layout != m->layout;
}

static eddy_sync_barrier eddy_sync_hazard(const eddy_sync_state *s,
                                          const eddy_sync_merged *m)
{
    eddy_sync_barrier b = {.resource = m->resource, .old_layout = s->layout, .new_layout = s->layout};

    /* A layout transition reads and writes the whole image: after everything
     * pending, before every access of the use. A use with no stages (a host
     * that does nothing) still needs it; compute is then the destination. */
    if (eddy_sync_transition(s, m)) {
        b.new_layout = m->layout;
        b.src_stages = s->write_stages | s->read_stages;
        b.src_access = s->write_access;
        b.dst_stages = m->read_stages | m->write_stages;
        if (!b.dst_stages)
            b.dst_stages = EDDY_SYNC_STAGE_COMPUTE;
        b.dst_access = eddy_sync_all_access(b.dst_stages);
        return b;
    }

    /* Atomics of consecutive passes commute, so their order does not matter;
     * any access in between breaks that and the ordinary rules apply. */
    if (m->atomic_only && s->write_atomic && s->read_stages == 0)
        return b;

    if (s->write_stages) {
        /* Visibility is per stage: a write already made visible to compute
         * still needs a barrier before the indirect-argument fetch. */
        uint32_t unseen = m->read_stages & ~s->visible_stages;
        if (unseen) {
            b.src_stages |= s->write_stages;
            b.src_access |= s->write_access;
            b.dst_stages |= unseen;
            b.dst_access |= eddy_sync_read_access(unseen);
        }
    }
    if (m->write_stages) {
        if (s->read_stages) {
            /* Reads do not dirty caches: only their execution must finish
             * before the write starts. */
            b.src_stages |= s->read_stages;
            b.dst_stages |= m->write_stages;
            b.dst_access |= m->write_access;
        }
        if (s->write_stages) {
            b.src_stages |= s->write_stages;
            b.src_access |= s->write_access;
            b.dst_stages |= m->write_stages;
            b.dst_access |= m->write_access;
        }
    }
    return b;
}

/* The state after use m, once the barrier from eddy_sync_hazard is in place:
 * m's reads have seen the pending write, or m's write is the new one. */
static void eddy_sync_apply(eddy_sync_state *s, const eddy_sync_merged *m)
{
    if (eddy_sync_transition(s, m)) {
        /* The transition barrier ordered and made visible everything before. */
        *s = (eddy_sync_state){.layout = m->layout};
    }
    if (m->layout)
        s->layout = m->layout;
    if (m->write_stages) {
        /* Reads of the same pass are not recorded: the pass's own dispatch
         * orders them before its write, and a later barrier from the compute
         * stage also covers the logically earlier indirect fetch. */
        s->write_stages = m->write_stages;
        s->write_access = m->write_access;
        s->write_atomic = m->atomic_only;
        s->visible_stages = 0;
        s->read_stages = 0;
    } else {
        /* Any read stage not yet visible got a barrier just now. */
        s->visible_stages |= m->read_stages;
        s->read_stages |= m->read_stages;
    }
}

static int eddy_sync_push_barrier(eddy_sync_builder *bld, eddy_sync_barrier b)
{
    eddy_sync_plan *plan = &bld->plan;
    if (plan->barrier_count == bld->barrier_cap) {
        if (plan->barrier_count == UINT32_MAX)
            return -1;
        size_t cap = bld->barrier_cap ? bld->barrier_cap * 2 : 16;
        if (cap > SIZE_MAX / sizeof(*plan->barriers) || cap < bld->barrier_cap)
            return -1;
        eddy_sync_barrier *grown = realloc(plan->barriers, cap * sizeof(*grown));
        if (!grown)
            return -1;
        plan->barriers = grown;
        bld->barrier_cap = cap;
    }
    plan->barriers[plan->barrier_count++] = b;
    return 0;
}

static int eddy_sync_execute(eddy_sync_builder *bld, uint32_t pass)
{
    eddy_sync_plan *plan = &bld->plan;
    eddy_sync_step *step = &plan->steps[plan->step_count++];
    step->pass = pass;
    step->first_barrier = plan->barrier_count;
    step->barrier_count = 0;

    /* merged[] holds each resource once per pass, so checking and updating
     * one resource before looking at the next still checks every use against
     * the state before the pass; the ascending resource order of merged[]
     * gives the sorted entries. */
    const eddy_sync_merged *m = bld->merged + bld->pass_first[pass];
    for (uint32_t i = 0; i < bld->pass_count[pass]; i++) {
        eddy_sync_state *s = &bld->state[m[i].slot];
        eddy_sync_barrier b = eddy_sync_hazard(s, &m[i]);
        if (b.dst_stages) {
            if (eddy_sync_push_barrier(bld, b) != 0)
                return -1;
            step->barrier_count++;
        }
        eddy_sync_apply(s, &m[i]);

        eddy_sync_first *f = &bld->first[m[i].slot];
        if (!f->seen) {
            f->use = m[i];
            f->seen = true;
        } else if (!f->closed && m[i].layout != f->use.layout) {
            f->closed = true; /* an image's use in another layout: its own transition */
        } else if (!f->closed) {
            eddy_sync_merge_into(&f->use, &m[i]);
        }
        if (m[i].write_stages)
            f->closed = true;
    }
    return 0;
}

/* Sorts the ranges into sorted[] and checks them; returns the number of
 * executed steps of one graph repeat, or -1. */
static int64_t eddy_sync_check_ranges(const eddy_sync_range *ranges, uint32_t range_count,
                                      uint32_t pass_count, eddy_sync_range *sorted)
{
    if (range_count)
        memcpy(sorted, ranges, (size_t)range_count * sizeof(*sorted));
    qsort(sorted, range_count, sizeof(*sorted), eddy_sync_cmp_range);

    uint64_t steps = pass_count;
    for (uint32_t i = 0; i < range_count; i++) {
        const eddy_sync_range *r = &sorted[i];
        /* An empty range repeats nothing, so only a recorder bug makes one;
         * rejecting it surfaces that bug instead of hiding it. */
        if (r->times == 0 || r->count == 0 || r->first >= pass_count ||
            r->count > pass_count - r->first)
            return -1;
        if (i > 0 && r->first < sorted[i - 1].first + sorted[i - 1].count)
            return -1;
        steps += (uint64_t)r->count * (r->times - 1);
        /* Checked per range so that the sum cannot wrap 64 bits. */
        if (steps > UINT32_MAX)
            return -1;
    }
    return (int64_t)steps;
}

/* Returns the number of slots (distinct resources), or -1; *ids_out gets the
 * resource id of each slot, ascending (NULL for none), for the caller to free. */
static int64_t eddy_sync_assign_slots(eddy_sync_merged *merged, size_t merged_count,
                                      uint32_t **ids_out)
{
    *ids_out = NULL;
    if (merged_count == 0)
        return 0;
    uint32_t *ids = malloc(merged_count * sizeof(*ids));
    if (!ids)
        return -1;
    for (size_t i = 0; i < merged_count; i++)
        ids[i] = merged[i].resource;
    qsort(ids, merged_count, sizeof(*ids), eddy_sync_cmp_u32);
    size_t unique = 0;
    for (size_t i = 0; i < merged_count; i++)
        if (unique == 0 || ids[unique - 1] != ids[i])
            ids[unique++] = ids[i];
    for (size_t i = 0; i < merged_count; i++) {
        const uint32_t *hit = bsearch(&merged[i].resource, ids, unique, sizeof(*ids),
                                      eddy_sync_cmp_u32);
        merged[i].slot = (uint32_t)(hit - ids);
    }
    *ids_out = ids;
    return (int64_t)unique;
}

/* The host's merged use of every slot: the uses naming it, else the default.
 * Checks every use, also those of resources the sequence never touches: a
 * malformed one is a caller bug either way. */
static int eddy_sync_host_uses(const eddy_sync_host *host, const uint32_t *ids, size_t slots,
                               eddy_sync_merged *out)
{
    eddy_sync_merged def;
    if (host->use_count && !host->uses)
        return -1;
    if (eddy_sync_merged_from_host(host->default_stages, host->default_access, &def) != 0)
        return -1;
    bool *named = calloc(slots ? slots : 1, sizeof(*named));
    if (!named)
        return -1;
    int rc = 0;
    for (uint32_t u = 0; u < host->use_count; u++) {
        eddy_sync_merged m;
        if (eddy_sync_merged_from_host(host->uses[u].stages, host->uses[u].access, &m) != 0) {
            rc = -1;
            break;
        }
        const uint32_t *hit = slots ? bsearch(&host->uses[u].resource, ids, slots, sizeof(*ids),
                                              eddy_sync_cmp_u32)
                                    : NULL;
        if (!hit)
            continue;
        size_t slot = (size_t)(hit - ids);
        if (named[slot]) {
            eddy_sync_merge_into(&out[slot], &m);
        } else {
            out[slot] = m;
            named[slot] = true;
        }
    }
    for (size_t i = 0; i < slots; i++) {
        if (!named[i])
            out[i] = def;
        out[i].resource = ids[i];
        out[i].slot = (uint32_t)i;
    }
    free(named);
    return rc;
}

/* The host's entry use as pending state: its writes and then its reads, as
 * that order needs the most barriers (RAW from the writes, WAR from the
 * reads); nothing of it is visible to the sequence yet. */
static eddy_sync_state eddy_sync_state_from_host(const eddy_sync_merged *m)
{
    return (eddy_sync_state){
        .write_stages = m->write_stages,
        .write_access = m->write_access,
        .read_stages = m->read_stages,
        .layout = m->layout,
    };
}

/* Appends the entry for the hazard between pending state s and use m, if any,
 * to group (whose entries are contiguous: groups are built one at a time). */
static int eddy_sync_push_hazard(eddy_sync_builder *bld, eddy_sync_group *group,
                                 eddy_sync_state s, const eddy_sync_merged *m)
{
    eddy_sync_barrier b = eddy_sync_hazard(&s, m);
    if (!b.dst_stages)
        return 0;
    if (group->barrier_count == 0)
        group->first_barrier = bld->plan.barrier_count;
    if (eddy_sync_push_barrier(bld, b) != 0)
        return -1;
    group->barrier_count++;
    return 0;
}

/* The entry, loop and exit groups, after the steps (graph_sync.h). */
static int eddy_sync_plan_groups(eddy_sync_builder *bld, size_t slots, bool loop,
                                 const eddy_sync_merged *entry, const eddy_sync_merged *leave)
{
    eddy_sync_plan *plan = &bld->plan;
    plan->entry.first_barrier = plan->loop.first_barrier = plan->exit.first_barrier =
        plan->barrier_count;
    for (size_t i = 0; entry && i < slots; i++) {
        /* Replayed: replay 1's loop group expects the end layout, as every
         * later replay's does. */
        eddy_sync_merged first = bld->first[i].use;
        if (loop && first.layout)
            first.layout = bld->state[i].layout;
        if (eddy_sync_push_hazard(bld, &plan->entry, eddy_sync_state_from_host(&entry[i]), &first) != 0)
            return -1;
    }
    plan->loop.first_barrier = plan->exit.first_barrier = plan->barrier_count;
    for (size_t i = 0; loop && i < slots; i++)
        if (eddy_sync_push_hazard(bld, &plan->loop, bld->state[i], &bld->first[i].use) != 0)
            return -1;
    plan->exit.first_barrier = plan->barrier_count;
    for (size_t i = 0; leave && i < slots; i++) {
        /* A resource the sequence writes leaves the same state after every
         * replay. One it only reads leaves what was pending before the first
         * replay plus its reads, which the entry barrier made visible. */
        eddy_sync_state s = bld->state[i];
        if (entry && !bld->first[i].closed) {
            s = eddy_sync_state_from_host(&entry[i]);
            eddy_sync_apply(&s, &bld->first[i].use);
        }
        if (eddy_sync_push_hazard(bld, &plan->exit, s, &leave[i]) != 0)
            return -1;
    }
    return 0;
}

int eddy_sync_plan_build(const eddy_sync_pass *passes, uint32_t pass_count,
                         const eddy_sync_range *ranges, uint32_t range_count,
                         uint32_t graph_times, eddy_sync_plan *out)
{
    eddy_sync_build_info info = {
        .passes = passes,
        .pass_count = pass_count,
        .ranges = ranges,
        .range_count = range_count,
        .graph_times = graph_times,
    };
    return eddy_sync_plan_build_ex(&info, out);
}

/* The passes' uses are valid; *use_total of them. */
static int eddy_sync_check_passes(const eddy_sync_pass *passes, uint32_t pass_count, size_t *use_total)
{
    *use_total = 0;
    for (uint32_t p = 0; p < pass_count; p++) {
        if (passes[p].use_count && !passes[p].uses)
            return -1;
        for (uint32_t u = 0; u < passes[p].use_count; u++)
            if (!eddy_sync_access_valid(passes[p].uses[u].access) ||
                passes[p].uses[u].layout > EDDY_SYNC_LAYOUT_READ_ONLY ||
                (passes[p].uses[u].layout && passes[p].uses[u].access > EDDY_SYNC_READ_WRITE))
                return -1;
        /* merged[] offsets are stored as uint32_t. */
        if (passes[p].use_count > UINT32_MAX - *use_total)
            return -1;
        *use_total += passes[p].use_count;
    }
    return 0;
}

/* Each pass's uses merged per resource into merged[] (pass p's at
 * pass_first[p], pass_merged[p] of them). Merging once per pass instead of
 * once per executed step keeps long repeated ranges cheap. */
static int eddy_sync_merge_passes(const eddy_sync_pass *passes, uint32_t pass_count, eddy_sync_merged *merged,
                                  uint32_t *pass_first, uint32_t *pass_merged, size_t *merged_count)
{
    for (uint32_t p = 0; p < pass_count; p++) {
        eddy_sync_merged *seg = merged + *merged_count;
        uint32_t n = passes[p].use_count;
        for (uint32_t u = 0; u < n; u++)
            seg[u] = eddy_sync_merged_from_use(passes[p].uses[u]);
        qsort(seg, n, sizeof(*seg), eddy_sync_cmp_merged);
        uint32_t kept = 0;
        for (uint32_t u = 0; u < n; u++) {
            if (kept && seg[kept - 1].resource == seg[u].resource) {
                eddy_sync_merged *k = &seg[kept - 1];
                if (k->layout != seg[u].layout)
                    return -1; /* two layouts of one image in one pass */
                eddy_sync_merge_into(k, &seg[u]);
            } else {
                seg[kept++] = seg[u];
            }
        }
        pass_first[p] = (uint32_t)*merged_count;
        pass_merged[p] = kept;
        *merged_count += kept;
    }
    return 0;
}

/* Images: every use carries a layout; each starts the steps in its first
 * use's (merged[] is in pass order). A resource used both with and without
 * a layout is refused. */
static int eddy_sync_start_layouts(eddy_sync_builder *bld, const eddy_sync_merged *merged, size_t merged_count,
                                   int64_t slots)
{
    bool bad = false;
    for (size_t i = 0; i < merged_count; i++) {
        eddy_sync_state *st = &bld->state[merged[i].slot];
        bool *seen = &bld->first[merged[i].slot].seen; /* borrowed; cleared below */
        if (!*seen) {
            st->layout = merged[i].layout;
            *seen = true;
        } else if (!st->layout != !merged[i].layout) {
            bad = true;
        }
    }
    for (int64_t i = 0; i < slots; i++)
        bld->first[i].seen = false;
    return bad ? -1 : 0;
}

/* What the host does before the first replay or after the last, per slot
 * (*out, malloc'd); an image's layout there is its home layout. */
static int eddy_sync_boundary_uses(const eddy_sync_builder *bld, const eddy_sync_host *host, const uint32_t *ids,
                                   int64_t slots, eddy_sync_merged **out)
{
    eddy_sync_merged *uses = *out = malloc((slots ? (size_t)slots : 1) * sizeof(*uses));
    if (!uses || eddy_sync_host_uses(host, ids, (size_t)slots, uses) != 0)
        return -1;
    for (int64_t i = 0; i < slots; i++)
        uses[i].layout = bld->state[i].layout ? EDDY_SYNC_LAYOUT_HOME : EDDY_SYNC_LAYOUT_NONE;
    return 0;
}

/* Every step of graph_times replays in order, repeated ranges (sorted by
 * their first pass) unrolled. */
static int eddy_sync_execute_all(eddy_sync_builder *bld, uint32_t pass_count, const eddy_sync_range *sorted,
                                 uint32_t range_count, uint32_t graph_times)
{
    for (uint32_t g = 0; g < graph_times; g++) {
        uint32_t r = 0;
        for (uint32_t p = 0; p < pass_count;) {
            if (r < range_count && sorted[r].first == p) {
                for (uint32_t t = 0; t < sorted[r].times; t++)
                    for (uint32_t q = p; q < p + sorted[r].count; q++)
                        if (eddy_sync_execute(bld, q) != 0)
                            return -1;
                p += sorted[r].count;
                r++;
            } else if (eddy_sync_execute(bld, p++) != 0) {
                return -1;
            }
        }
    }
    return 0;
}

int eddy_sync_plan_build_ex(const eddy_sync_build_info *info, eddy_sync_plan *out)
{
    if (!out)
        return -1;
    memset(out, 0, sizeof(*out));
    if (!info)
        return -1;
    const eddy_sync_pass *passes = info->passes;
    const eddy_sync_range *ranges = info->ranges;
    uint32_t pass_count = info->pass_count, range_count = info->range_count;
    uint32_t graph_times = info->graph_times;
    if (graph_times == 0 || (pass_count && !passes) || (range_count && !ranges))
        return -1;

    int rc = -1;
    eddy_sync_builder bld = {0};
    eddy_sync_range *sorted = NULL;
    eddy_sync_merged *merged = NULL, *entry = NULL, *leave = NULL;
    uint32_t *pass_first = NULL, *pass_merged = NULL, *ids = NULL;
    int64_t per_graph, slots;
    uint64_t step_total;
    size_t merged_count = 0;

    size_t use_total = 0;
    if (eddy_sync_check_passes(passes, pass_count, &use_total) != 0)
        return -1;

    sorted = malloc((range_count ? range_count : 1) * sizeof(*sorted));
    if (!sorted)
        goto done;
    per_graph = eddy_sync_check_ranges(ranges, range_count, pass_count, sorted);
    if (per_graph < 0)
        goto done;
    step_total = (uint64_t)per_graph * graph_times;
    if (step_total > UINT32_MAX || step_total > SIZE_MAX / sizeof(eddy_sync_step))
        goto done;

    merged = malloc((use_total ? use_total : 1) * sizeof(*merged));
    pass_first = malloc((pass_count ? pass_count : 1) * sizeof(*pass_first));
    pass_merged = malloc((pass_count ? pass_count : 1) * sizeof(*pass_merged));
    if (!merged || !pass_first || !pass_merged)
        goto done;
    if (eddy_sync_merge_passes(passes, pass_count, merged, pass_first, pass_merged, &merged_count) != 0)
        goto done;

    slots = eddy_sync_assign_slots(merged, merged_count, &ids);
    if (slots < 0)
        goto done;
    bld.state = calloc(slots ? (size_t)slots : 1, sizeof(*bld.state));
    bld.first = calloc(slots ? (size_t)slots : 1, sizeof(*bld.first));
    if (!bld.state || !bld.first)
        goto done;
    if (eddy_sync_start_layouts(&bld, merged, merged_count, slots) != 0)
        goto done;
    if (info->entry && eddy_sync_boundary_uses(&bld, info->entry, ids, slots, &entry) != 0)
        goto done;
    if (info->exit && eddy_sync_boundary_uses(&bld, info->exit, ids, slots, &leave) != 0)
        goto done;
    if (step_total) {
        bld.plan.steps = malloc((size_t)step_total * sizeof(*bld.plan.steps));
        if (!bld.plan.steps)
            goto done;
    }
    bld.merged = merged;
    bld.pass_first = pass_first;
    bld.pass_count = pass_merged;

    if (eddy_sync_execute_all(&bld, pass_count, sorted, range_count, graph_times) != 0)
        goto done;
    if (eddy_sync_plan_groups(&bld, (size_t)slots, info->loop, entry, leave) != 0)
        goto done;

    *out = bld.plan;
    bld.plan = (eddy_sync_plan){0};
    rc = 0;
done:
    eddy_sync_plan_free(&bld.plan);
    free(leave);
    free(entry);
    free(ids);
    free(bld.first);
    free(bld.state);
    free(pass_merged);
    free(pass_first);
    free(merged);
    free(sorted);
    return rc;
}

void eddy_sync_plan_free(eddy_sync_plan *plan)
{
    if (!plan)
        return;
    free(plan->steps);
    free(plan->barriers);
    memset(plan, 0, sizeof(*plan));
}

eddy_sync_masks eddy_sync_masks_of(const eddy_sync_barrier *barriers, uint32_t count)
{
    eddy_sync_masks m = {0};
    for (uint32_t i = 0; barriers && i < count; i++) {
        m.src_stages |= barriers[i].src_stages;
        m.src_access |= barriers[i].src_access;
        m.dst_stages |= barriers[i].dst_stages;
        m.dst_access |= barriers[i].dst_access;
    }
    return m;
}

bool eddy_sync_masks_compute_only(eddy_sync_masks m)
{
    /* A WAR entry has src_access 0 but never empty stages, so the stages
     * alone tell an empty group. */
    return m.dst_stages && m.src_stages &&
           !((m.src_stages | m.dst_stages) & ~(uint32_t)EDDY_SYNC_STAGE_COMPUTE);
}
