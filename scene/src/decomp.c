/* Recursive coordinate bisection of a grid over ranks: see decomp.h. */
#include "decomp.h"

#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct splitter {
    dc_plan *p;
    char *err;
    size_t cap;
    uint64_t *slab; /* per plane weights along one axis (the grid's longest) */
} splitter;

static bool refuse(splitter *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static bool refuse(splitter *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, s->cap, fmt, ap);
    va_end(ap);
    return false;
}

/* How many boxes at least halo thick a box of these extents can hold. */
static uint64_t capacity(const int32_t extent[3], uint32_t halo)
{
    uint64_t n = 1;
    for (int a = 0; a < 3; a++) {
        uint64_t k = (uint64_t)(extent[a] / (int32_t)halo);
        n = k && n > UINT64_MAX / k ? UINT64_MAX : n * k;
    }
    return n;
}

/* The planes along axis a where box b may be cut so that each side can
 * still hold its ranks: [*from, *to]; false when there is none. */
static bool window(const dc_box *b, int a, uint32_t halo, uint32_t nl, uint32_t nr, int32_t *from, int32_t *to)
{
    int32_t e[3];
    for (int k = 0; k < 3; k++)
        e[k] = b->hi[k] - b->lo[k];
    e[a] = (int32_t)halo;
    uint64_t rest = capacity(e, halo); /* the boxes one slab of halo holds */
    if (rest == 0)
        return false;
    uint64_t need_l = (nl + rest - 1) / rest, need_r = (nr + rest - 1) / rest;
    *from = b->lo[a] + (int32_t)(need_l * halo);
    *to = b->hi[a] - (int32_t)(need_r * halo);
    return need_l * halo <= (uint64_t)(b->hi[a] - b->lo[a]) && *from <= *to;
}

/* The plane in [from, to] along axis a whose left weight is nearest
 * total x nl / (nl + nr) (ties: the lowest); cells lie inside b. */
static int32_t plane(splitter *s, const dc_box *b, int a, int32_t from, int32_t to, const dc_cell *cells,
                     size_t count, uint32_t nl, uint32_t nr)
{
    int32_t lo = b->lo[a], n = b->hi[a] - lo;
    memset(s->slab, 0, (size_t)n * sizeof *s->slab);
    uint64_t total = 0;
    for (size_t i = 0; i < count; i++) {
        s->slab[cells[i].c[a] - lo] += cells[i].weight;
        total += cells[i].weight;
    }
    if (total == 0) { /* nothing to balance: cut by volume */
        int32_t at = lo + (int32_t)((int64_t)n * nl / (nl + nr));
        return at < from ? from : at > to ? to : at;
    }
    uint64_t left = 0, want = total * nl, best = UINT64_MAX;
    int32_t at = from;
    for (int32_t q = lo; q <= to; q++) {
        if (q >= from) {
            uint64_t have = left * (nl + nr), miss = have > want ? have - want : want - have;
            if (miss < best)
                best = miss, at = q;
        }
        left += s->slab[q - lo]; /* q <= to < hi */
    }
    return at;
}

static bool split(splitter *s, uint32_t at_node, dc_box b, uint32_t first, uint32_t last, dc_cell *cells,
                  size_t count)
{
    dc_plan *p = s->p;
    dc_node *node = &p->node[at_node];
    *node = (dc_node){ .first = first, .last = last };
    if (last - first == 1) {
        p->box[first] = b;
        for (size_t i = 0; i < count; i++)
            p->load[first] += cells[i].weight;
        return true;
    }
    uint32_t nl = (last - first) / 2, nr = last - first - nl;
    /* The axis along which the weighted cells spread furthest (then the
     * box's longest; ties: the lowest) that can take the cut: the finest
     * slabs to balance with. */
    int32_t lo[3] = { INT32_MAX, INT32_MAX, INT32_MAX }, hi[3] = { -1, -1, -1 };
    for (size_t i = 0; i < count; i++)
        for (int k = 0; k < 3 && cells[i].weight; k++) {
            lo[k] = cells[i].c[k] < lo[k] ? cells[i].c[k] : lo[k];
            hi[k] = cells[i].c[k] > hi[k] ? cells[i].c[k] : hi[k];
        }
    int64_t key[3];
    for (int k = 0; k < 3; k++)
        key[k] = (int64_t)(hi[k] >= lo[k] ? hi[k] - lo[k] + 1 : 0) << 32 | (b.hi[k] - b.lo[k]);
    int order[3] = { 0, 1, 2 };
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (key[order[j]] > key[order[i]]) {
                int t = order[i];
                order[i] = order[j], order[j] = t;
            }
    int a = -1;
    int32_t from = 0, to = 0;
    for (int i = 0; i < 3 && a < 0; i++)
        if (window(&b, order[i], p->halo, nl, nr, &from, &to))
            a = order[i];
    if (a < 0)
        return refuse(s, "%d x %d x %d cells cannot hold %u boxes at least %u cells thick", b.hi[0] - b.lo[0],
                      b.hi[1] - b.lo[1], b.hi[2] - b.lo[2], last - first, p->halo);
    int32_t at = plane(s, &b, a, from, to, cells, count, nl, nr);
    size_t mid = 0; /* cells below the plane first */
    for (size_t i = 0; i < count; i++)
        if (cells[i].c[a] < at) {
            dc_cell t = cells[i];
            cells[i] = cells[mid], cells[mid++] = t;
        }
    dc_box lb = b, rb = b;
    lb.hi[a] = at, rb.lo[a] = at;
    node->axis = (uint32_t)a, node->at = at;
    node->left = ++p->nodes - 1;
    node->right = ++p->nodes - 1;
    /* node may move no more: p->node was sized for every node. */
    return split(s, node->left, lb, first, first + nl, cells, mid) &&
           split(s, node->right, rb, first + nl, last, cells + mid, count - mid);
}

bool dc_split(dc_plan *p, const int32_t dims[3], uint32_t ranks, uint32_t halo, dc_cell *cells, size_t count,
              char *err, size_t cap)
{
    memset(p, 0, sizeof *p);
    splitter s = { .p = p, .err = err, .cap = cap };
    if (ranks < 1 || ranks > DC_MAX_RANKS || halo < 1 || (count && !cells))
        return refuse(&s, "expected 1..%u ranks and a halo of at least one cell", DC_MAX_RANKS);
    int32_t longest = 0;
    for (int a = 0; a < 3; a++) {
        if (dims[a] < 1)
            return refuse(&s, "a grid of %d x %d x %d cells", dims[0], dims[1], dims[2]);
        longest = dims[a] > longest ? dims[a] : longest;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < count; i++) {
        for (int a = 0; a < 3; a++)
            if (cells[i].c[a] < 0 || cells[i].c[a] >= dims[a])
                return refuse(&s, "cell (%d, %d, %d) lies outside the grid", cells[i].c[0], cells[i].c[1],
                              cells[i].c[2]);
        if (cells[i].weight > DC_MAX_WEIGHT - total)
            return refuse(&s, "the cells weigh more than %llu in all", (unsigned long long)DC_MAX_WEIGHT);
        total += cells[i].weight;
    }
    p->ranks = ranks, p->halo = halo;
    memcpy(p->dims, dims, sizeof p->dims);
    p->box = calloc(ranks, sizeof *p->box);
    p->load = calloc(ranks, sizeof *p->load);
    p->node = calloc(2 * (size_t)ranks - 1, sizeof *p->node);
    s.slab = malloc((size_t)longest * sizeof *s.slab);
    p->nodes = 1;
    dc_box all = { { 0, 0, 0 }, { dims[0], dims[1], dims[2] } };
    bool ok = p->box && p->load && p->node && s.slab ? split(&s, 0, all, 0, ranks, cells, count)
                                                     : refuse(&s, "out of memory for %u ranks", ranks);
    free(s.slab);
    if (!ok)
        dc_free(p);
    return ok;
}

void dc_free(dc_plan *p)
{
    free(p->box);
    free(p->load);
    free(p->node);
    memset(p, 0, sizeof *p);
}

uint32_t dc_owner(const dc_plan *p, const int32_t c[3])
{
    const dc_node *n = &p->node[0];
    while (n->last - n->first > 1) {
        int32_t v = c[n->axis] < 0 ? 0 : c[n->axis] >= p->dims[n->axis] ? p->dims[n->axis] - 1 : c[n->axis];
        n = &p->node[v < n->at ? n->left : n->right];
    }
    return n->first;
}

uint32_t dc_near(const dc_plan *p, const int32_t c[3], uint32_t *out, uint32_t cap)
{
    int32_t v[3], h = (int32_t)p->halo;
    for (int a = 0; a < 3; a++)
        v[a] = c[a] < 0 ? 0 : c[a] >= p->dims[a] ? p->dims[a] - 1 : c[a];
    /* Depth first, left before right: ranks come out ascending. The tree
     * is at most log2(DC_MAX_RANKS) + 1 deep, and each level leaves at most
     * one node on the stack. */
    uint32_t stack[64], top = 0, n = 0;
    stack[top++] = 0;
    while (top) {
        const dc_node *nd = &p->node[stack[--top]];
        if (nd->last - nd->first == 1) {
            const dc_box *b = &p->box[nd->first];
            bool in = true;
            for (int a = 0; a < 3; a++)
                in = in && v[a] >= b->lo[a] - h && v[a] < b->hi[a] + h;
            if (in && n < cap)
                out[n] = nd->first;
            n += in;
            continue;
        }
        if (v[nd->axis] >= nd->at - h && top < 64)
            stack[top++] = nd->right;
        if (v[nd->axis] < nd->at + h && top < 64)
            stack[top++] = nd->left;
    }
    return n;
}

bool dc_halo(const dc_plan *p, uint32_t from, uint32_t to, dc_box *out)
{
    if (from == to || from >= p->ranks || to >= p->ranks)
        return false;
    const dc_box *f = &p->box[from], *t = &p->box[to];
    for (int a = 0; a < 3; a++) {
        int32_t lo = t->lo[a] - (int32_t)p->halo, hi = t->hi[a] + (int32_t)p->halo;
        out->lo[a] = lo > f->lo[a] ? lo : f->lo[a];
        out->hi[a] = hi < f->hi[a] ? hi : f->hi[a];
        if (out->lo[a] >= out->hi[a])
            return false;
    }
    return true;
}

bool dc_imbalanced(const double *seconds, uint32_t ranks, double threshold)
{
    double sum = 0, most = 0;
    for (uint32_t r = 0; r < ranks; r++) {
        sum += seconds[r];
        most = seconds[r] > most ? seconds[r] : most;
    }
    return ranks > 1 && sum > 0 && most > (1 + threshold) * sum / ranks;
}

void dc_reweight(const dc_plan *p, dc_cell *cells, size_t count, const double *seconds)
{
    /* Cost per unit weight of each rank, and their mean over ranks that
     * ran something. */
    double mean = 0;
    uint32_t ran = 0;
    for (uint32_t r = 0; r < p->ranks; r++)
        if (p->load[r] && seconds[r] > 0)
            mean += seconds[r] / (double)p->load[r], ran++;
    if (!ran)
        return;
    mean /= ran;
    for (size_t i = 0; i < count; i++) {
        uint32_t r = dc_owner(p, cells[i].c);
        double cost = p->load[r] && seconds[r] > 0 ? seconds[r] / (double)p->load[r] : mean;
        double w = nearbyint((double)cells[i].weight * cost / mean);
        uint64_t limit = DC_MAX_WEIGHT / (count ? count : 1);
        cells[i].weight = cells[i].weight == 0 ? 0 : w < 1 ? 1 : w > (double)limit ? limit : (uint64_t)w;
    }
}
