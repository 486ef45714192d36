/* eddy_graph_describe: a graph's passes in order, the buffers each reads
 * and writes, its repeated ranges and the barriers the planner puts before
 * each pass, as text or as Graphviz DOT (a node a pass, an edge from the
 * pass that last wrote a buffer to each pass that reads it). What a user
 * composing systems needs to see what runs and why; the recorder's own
 * plan (graph_record.c), so what is shown is what runs. */
#include "internal.h"

#include "graph_sync.h"

#include <stdarg.h>

typedef struct out_text {
    char *p;
    size_t cap, len;
} out_text;

static void put(out_text *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *at = o->p && o->len < o->cap ? o->p + o->len : NULL;
    int n = vsnprintf(at, at ? o->cap - o->len : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n;
}

/* A label inside DOT's double quotes: quotes and backslashes escaped,
 * control characters dropped (labels come from scenes and modules). */
static void put_dot(out_text *o, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            put(o, "\\%c", *s);
        else if ((unsigned char)*s >= 0x20)
            put(o, "%c", *s);
    }
}

static const char *access_name(uint32_t a)
{
    switch (a) {
    case EDDY_READ: return "reads";
    case EDDY_WRITE: return "writes";
    case EDDY_READ_WRITE: return "reads and writes";
    case EDDY_ATOMIC: return "adds atomically to";
    case EDDY_SAMPLE: return "samples";
    default: return "uses";
    }
}

/* Everything the description needs besides the graph: the plan, a label
 * per planner resource, and where each pass first runs in the plan. */
typedef struct describe_ctx {
    const eddy_graph_obj *g;
    eddy_sync_plan plan;
    eddy_res_ref *refs;
    uint32_t resources;     /* the planner's: refs[0..resources) */
    const char **res_label; /* per planner resource */
    uint32_t *first_step;   /* per pass: its first step in the plan; UINT32_MAX: never runs */
    uint32_t *again_step;   /* per pass in a repeated range: its second step */
    const eddy_pass_group *groups;
    uint32_t group_count;
} describe_ctx;

static uint32_t ref_of(const describe_ctx *c, uint32_t id, bool image)
{
    for (uint32_t i = 0; i < c->resources; i++)
        if (c->refs[i].id == id && c->refs[i].image == image)
            return i;
    return UINT32_MAX;
}

/* The label of each planner resource, from the first binding that names it. */
static void label_resources(describe_ctx *c)
{
    for (uint32_t r = 0; r < c->resources; r++)
        c->res_label[r] = "?";
    for (uint32_t i = 0; i < c->g->pass_count; i++) {
        const eddy_pass *p = &c->g->passes[i];
        for (uint32_t b = 0; b <= p->binding_count; b++) {
            bool ind = b == p->binding_count;
            if (ind && !p->indirect.id)
                continue;
            bool image = !ind && p->images[b].id;
            uint32_t r = ref_of(c, ind ? p->indirect.id : image ? p->images[b].id : p->bindings[b].buffer.id, image);
            if (r != UINT32_MAX && !strcmp(c->res_label[r], "?"))
                c->res_label[r] = p->binding_labels[ind ? EDDY_MAX_BINDINGS : b];
        }
    }
}

static const eddy_pass_group *group_of(const describe_ctx *c, uint32_t pass)
{
    for (uint32_t k = 0; k < c->group_count; k++)
        if (pass >= c->groups[k].first && pass - c->groups[k].first < c->groups[k].count)
            return &c->groups[k];
    return NULL;
}

static void put_barriers(out_text *o, const describe_ctx *c, uint32_t step, const char *when)
{
    const eddy_sync_step *st = &c->plan.steps[step];
    if (!st->barrier_count)
        return;
    put(o, "      %s:", when);
    for (uint32_t k = 0; k < st->barrier_count; k++) {
        const eddy_sync_barrier *b = &c->plan.barriers[st->first_barrier + k];
        put(o, "%s %s (%s)", k ? "," : "", c->res_label[b->resource],
            b->src_access & EDDY_SYNC_ACCESS_SHADER_WRITE ? "written before" : "read before");
    }
    put(o, "\n");
}

static void text_pass(out_text *o, const describe_ctx *c, uint32_t i)
{
    const eddy_pass *p = &c->g->passes[i];
    put(o, "  #%u %s (kernel %s, ", i, p->label, p->kernel_label);
    if (p->indirect.id)
        put(o, "groups from %s)\n", p->binding_labels[EDDY_MAX_BINDINGS]);
    else
        put(o, "%u x %u x %u groups)\n", p->groups[0], p->groups[1], p->groups[2]);
    for (uint32_t b = 0; b < p->binding_count; b++)
        put(o, "      %s %s\n", access_name(p->bindings[b].access), p->binding_labels[b]);
    if (c->first_step[i] != UINT32_MAX)
        put_barriers(o, c, c->first_step[i], "barrier before it on");
    if (c->again_step[i] != UINT32_MAX)
        put_barriers(o, c, c->again_step[i], "when repeated, barrier before it on");
}

static void describe_text(out_text *o, const describe_ctx *c, const char *title)
{
    const eddy_graph_obj *g = c->g;
    put(o, "%s: graph '%s', %u passes, run %u time%s a step\n", title, g->label, g->pass_count, g->times,
        g->times == 1 ? "" : "s");
    const eddy_pass_group *open = NULL;
    for (uint32_t i = 0; i < g->pass_count; i++) {
        const eddy_pass_group *grp = group_of(c, i);
        if (grp && grp != open)
            put(o, "%s:\n", grp->name);
        open = grp;
        for (uint32_t r = 0; r < g->range_count; r++)
            if (g->ranges[r].first == i)
                put(o, "  passes #%u to #%u run %u times in a row:\n", i, i + g->ranges[r].count - 1,
                    g->ranges[r].times);
        text_pass(o, c, i);
    }
    if (c->plan.loop.barrier_count) {
        put(o, "before each run of the graph, barrier on:");
        for (uint32_t k = 0; k < c->plan.loop.barrier_count; k++)
            put(o, "%s %s", k ? "," : "", c->res_label[c->plan.barriers[c->plan.loop.first_barrier + k].resource]);
        put(o, "\n");
    }
}

/* DOT: the passes as boxes (a system's in a cluster), an edge from the
 * pass that last wrote a buffer to each later pass reading it, a dashed
 * edge closing each repeated range. */
static void describe_dot(out_text *o, const describe_ctx *c, const char *title, uint32_t *writer)
{
    const eddy_graph_obj *g = c->g;
    put(o, "digraph \"");
    put_dot(o, g->label);
    put(o, "\" {\n  label=\"");
    put_dot(o, title);
    put(o, "\";\n  labelloc=t;\n  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n"
           "  edge [fontname=\"Helvetica\", fontsize=8];\n");
    const eddy_pass_group *open = NULL;
    for (uint32_t i = 0; i < g->pass_count; i++) {
        const eddy_pass_group *grp = group_of(c, i);
        if (open && grp != open)
            put(o, "  }\n");
        if (grp && grp != open) {
            put(o, "  subgraph cluster_%u {\n    label=\"", (uint32_t)(grp - c->groups));
            put_dot(o, grp->name);
            put(o, "\";\n");
        }
        open = grp;
        uint32_t nb = c->first_step[i] != UINT32_MAX ? c->plan.steps[c->first_step[i]].barrier_count : 0;
        put(o, "    p%u [label=\"#%u ", i, i);
        put_dot(o, g->passes[i].label);
        if (nb)
            put(o, "\\n%u barrier%s before", nb, nb == 1 ? "" : "s");
        put(o, "\"];\n");
    }
    if (open)
        put(o, "  }\n");
    for (uint32_t r = 0; r < c->resources; r++)
        writer[r] = UINT32_MAX;
    for (uint32_t i = 0; i < g->pass_count; i++) {
        const eddy_pass *p = &g->passes[i];
        for (uint32_t b = 0; b <= p->binding_count; b++) {
            bool ind = b == p->binding_count;
            if (ind && !p->indirect.id)
                continue;
            uint32_t a = ind ? EDDY_READ : p->bindings[b].access;
            bool image = !ind && p->images[b].id;
            uint32_t r = ref_of(c, ind ? p->indirect.id : image ? p->images[b].id : p->bindings[b].buffer.id, image);
            if (r == UINT32_MAX || a == EDDY_WRITE || writer[r] == UINT32_MAX || writer[r] == i)
                continue;
            put(o, "  p%u -> p%u [label=\"", writer[r], i);
            put_dot(o, c->res_label[r]);
            put(o, "\"];\n");
        }
        for (uint32_t b = 0; b < p->binding_count; b++) {
            uint32_t a = p->bindings[b].access;
            bool image = p->images[b].id != 0;
            uint32_t r = ref_of(c, image ? p->images[b].id : p->bindings[b].buffer.id, image);
            if (r != UINT32_MAX && (a == EDDY_WRITE || a == EDDY_READ_WRITE || a == EDDY_ATOMIC))
                writer[r] = i;
        }
    }
    for (uint32_t r = 0; r < g->range_count; r++)
        put(o, "  p%u -> p%u [style=dashed, constraint=false, label=\"x%u\"];\n",
            g->ranges[r].first + g->ranges[r].count - 1, g->ranges[r].first, g->ranges[r].times);
    put(o, "}\n");
}

/* Where each pass first runs in the plan, and again in a repeated range. */
static void find_steps(describe_ctx *c)
{
    for (uint32_t i = 0; i < c->g->pass_count; i++)
        c->first_step[i] = c->again_step[i] = UINT32_MAX;
    for (uint32_t s = 0; s < c->plan.step_count; s++) {
        uint32_t i = c->plan.steps[s].pass;
        if (i >= c->g->pass_count)
            continue;
        if (c->first_step[i] == UINT32_MAX)
            c->first_step[i] = s;
        else if (c->again_step[i] == UINT32_MAX)
            c->again_step[i] = s;
    }
    /* A pass outside the ranges runs again only in the graph's next run. */
    for (uint32_t i = 0; i < c->g->pass_count; i++) {
        bool ranged = false;
        for (uint32_t r = 0; r < c->g->range_count; r++)
            ranged = ranged || (i >= c->g->ranges[r].first && i - c->g->ranges[r].first < c->g->ranges[r].count &&
                                c->g->ranges[r].times > 1);
        if (!ranged)
            c->again_step[i] = UINT32_MAX;
    }
}

static bool groups_ok(eddy_engine *e, const eddy_graph_obj *g, const eddy_graph_describe_desc *d)
{
    if (d->group_count && !d->groups) {
        eddy_log(e, EDDY_LOG_ERROR, "graph.invalid", "eddy_graph_describe: group_count %u with no groups",
                 d->group_count);
        return false;
    }
    for (uint32_t k = 0; k < d->group_count; k++) {
        const eddy_pass_group *q = &d->groups[k];
        uint64_t end = (uint64_t)q->first + q->count;
        if (!q->name || end > g->pass_count || (k && q->first < (uint64_t)d->groups[k - 1].first +
                                                              d->groups[k - 1].count)) {
            eddy_log(e, EDDY_LOG_ERROR, "graph.invalid", "eddy_graph_describe: groups[%u] ('%s', passes %u "
                     "to %llu) is not a named range of the graph's %u passes after the groups before it", k,
                     q->name ? q->name : "(null)", q->first, (unsigned long long)end, g->pass_count);
            return false;
        }
    }
    return true;
}

eddy_result eddy_graph_describe(eddy_engine *e, eddy_graph h, const eddy_graph_describe_desc *desc)
{
    EDDY_TAKE_DESC(e, eddy_graph_describe_desc, desc, return EDDY_ERROR_ABI);
    eddy_graph_obj *g = eddy_graph_get(e, h);
    if (!g)
        return EDDY_ERROR_INVALID_ARGUMENT;
    if (!desc->length || (desc->format != EDDY_DESCRIBE_TEXT && desc->format != EDDY_DESCRIBE_DOT)) {
        eddy_log(e, EDDY_LOG_ERROR, "graph.invalid", "eddy_graph_describe: expected a length to return and "
                 "format EDDY_DESCRIBE_TEXT or EDDY_DESCRIBE_DOT (got %d)", (int)desc->format);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (!groups_ok(e, g, desc))
        return EDDY_ERROR_INVALID_ARGUMENT;
    describe_ctx c = { .g = g, .groups = desc->groups, .group_count = desc->group_count };
    eddy_result r = eddy_graph_plan(e, g, &c.plan, &c.refs);
    size_t most = (size_t)g->pass_count * (EDDY_MAX_BINDINGS + 1) + 1;
    c.res_label = calloc(most + 1, sizeof *c.res_label);
    c.first_step = calloc((size_t)g->pass_count + 1, sizeof *c.first_step);
    c.again_step = calloc((size_t)g->pass_count + 1, sizeof *c.again_step);
    uint32_t *writer = calloc(most, sizeof *writer);
    if (r == EDDY_OK && (!c.res_label || !c.first_step || !c.again_step || !writer)) {
        eddy_log(e, EDDY_LOG_ERROR, "memory.host", "graph '%s': out of host memory describing it", g->label);
        r = EDDY_ERROR_OUT_OF_MEMORY;
    }
    out_text o = { desc->out, desc->out ? desc->capacity : 0, 0 };
    if (r == EDDY_OK) {
        /* Handles are never 0: the planner's table ends at the first zero. */
        while (c.resources < most && c.refs[c.resources].id)
            c.resources++;
        label_resources(&c);
        find_steps(&c);
        const char *title = desc->title ? desc->title : g->label;
        if (desc->format == EDDY_DESCRIBE_DOT)
            describe_dot(&o, &c, title, writer);
        else
            describe_text(&o, &c, title);
        *desc->length = o.len;
        if (o.p && o.cap)
            o.p[o.len < o.cap ? o.len : o.cap - 1] = 0;
        if (o.p && o.len >= o.cap)
            r = EDDY_ERROR_LIMIT;
    }
    eddy_sync_plan_free(&c.plan);
    free(c.refs), free(c.res_label), free(c.first_step), free(c.again_step), free(writer);
    return r;
}
