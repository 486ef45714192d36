/* Gmsh .msh files, ASCII 2.2 and 4.1 (binary files are refused): the
 * tetrahedra of $Elements (types 4 and 11, of which the first four nodes),
 * other elements ignored; the nodes of $Nodes become vertices in their
 * order, whatever their tags, and tets are named by element tag. Other
 * sections are skipped. tetmesh.c checks the mesh and frees what is left. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mesh_err.h"
#include "tetmesh_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct tag_index {
    int64_t tag;
    uint32_t i;
} tag_index;

static int cmp_tag_index(const void *a, const void *b)
{
    const tag_index *p = a, *q = b;
    if (p->tag != q->tag)
        return p->tag < q->tag ? -1 : 1;
    return p->i < q->i ? -1 : p->i > q->i;
}

typedef struct msh {
    tet_load *L;
    tet_text t;
    int version; /* 2 or 4 */
    tag_index *tags; /* sorted by tag */
    uint32_t ntags;
    int64_t tag_lo, tag_hi;
} msh;

static char *msh_line(msh *g, int *rc)
{
    return tet_next_line(&g->t, TET_LINE_MAX, rc, g->L->err, g->L->n);
}

/* A required line; the end of the file is an error naming `what`. */
static char *msh_need(msh *g, const char *what, int *rc)
{
    char *s = msh_line(g, rc);
    if (!s && *rc == 0)
        *rc = failf(g->L->err, g->L->n, "%s:%u: the file ends where %s was expected (truncated?)", g->t.path,
                    g->t.line, what);
    return s;
}

static int msh_end(msh *g, const char *end)
{
    int rc;
    char *s = msh_need(g, end, &rc);
    if (!s)
        return -1;
    if (strcmp(s, end) != 0)
        return failf(g->L->err, g->L->n, "%s:%u: expected %s, found '%.40s'", g->t.path, g->t.line, end, s);
    return 0;
}

/* Records node i's tag (its coordinates are parsed by the caller). */
static int msh_node_coords(msh *g, char *s, uint32_t i, long long tag, int params)
{
    eddy_tetmesh *m = g->L->m;
    for (int a = 0; a < 3; a++) {
        double x;
        if (!tet_get_d(&s, &x))
            return failf(g->L->err, g->L->n, "%s:%u: node %lld needs three coordinates", g->t.path, g->t.line, tag);
        if (!isfinite(x) || !tet_to_float(x, &m->vertices[3 * (size_t)i + a]))
            return failf(g->L->err, g->L->n, "%s:%u: node %lld: coordinate %g is not finite%s", g->t.path, g->t.line,
                         tag, x, isfinite(x) ? " as a float" : "");
    }
    for (int a = 0; a < params; a++) {
        double x;
        if (!tet_get_d(&s, &x))
            return failf(g->L->err, g->L->n, "%s:%u: node %lld needs %d parametric coordinates", g->t.path,
                         g->t.line, tag, params);
    }
    if (!tet_at_end(s))
        return failf(g->L->err, g->L->n, "%s:%u: node %lld: more numbers than expected", g->t.path, g->t.line, tag);
    return 0;
}

static int msh_alloc_nodes(msh *g, long long count, uint64_t min_bytes)
{
    tet_load *L = g->L;
    if (count < 0 || count > (long long)EDDY_TET_MAX_ELEMENTS)
        return failf(L->err, L->n, "%s:%u: %lld nodes, expected 0 to %u (EDDY_TET_MAX_ELEMENTS)", g->t.path, g->t.line,
                     count, (unsigned)EDDY_TET_MAX_ELEMENTS);
    if ((uint64_t)count * min_bytes > (uint64_t)(g->t.end - g->t.p) + 1)
        return failf(L->err, L->n, "%s:%u: %lld nodes, more than the rest of the file can hold (truncated?)",
                     g->t.path, g->t.line, count);
    if (tet_take(L, g->t.path, (uint64_t)count, 3 * sizeof(float) + sizeof(int64_t)) != 0)
        return -1;
    L->m->vertices = tet_alloc_array((uint64_t)count * 3, sizeof(float));
    L->vnum = tet_alloc_array((uint64_t)count, sizeof(int64_t));
    if (!L->m->vertices || !L->vnum)
        return failf(L->err, L->n, "%s: out of memory (%lld nodes)", g->t.path, count);
    return 0;
}

static int msh_check_tag(msh *g, long long tag)
{
    if (tag < 1)
        return failf(g->L->err, g->L->n, "%s:%u: node tag %lld, expected a positive integer", g->t.path, g->t.line,
                     tag);
    return 0;
}

/* Sorted (tag, index) pairs for the elements' lookups; a tag twice is refused. */
static int msh_index(msh *g)
{
    tet_load *L = g->L;
    uint32_t n = L->m->vertex_count;
    if (tet_take(L, g->t.path, n, sizeof *g->tags) != 0)
        return -1;
    g->tags = tet_alloc_array(n, sizeof *g->tags);
    if (!g->tags)
        return failf(L->err, L->n, "%s: out of memory", g->t.path);
    for (uint32_t i = 0; i < n; i++)
        g->tags[i] = (tag_index){ L->vnum[i], i };
    qsort(g->tags, n, sizeof *g->tags, cmp_tag_index);
    for (uint32_t i = 1; i < n; i++)
        if (g->tags[i].tag == g->tags[i - 1].tag)
            return failf(L->err, L->n, "%s: node tag %lld appears twice in $Nodes", g->t.path,
                         (long long)g->tags[i].tag);
    g->ntags = n;
    g->tag_lo = n ? g->tags[0].tag : 0;
    g->tag_hi = n ? g->tags[n - 1].tag : 0;
    return 0;
}

static bool msh_lookup(const msh *g, long long tag, uint32_t *i)
{
    uint32_t lo = 0, hi = g->ntags;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->tags[mid].tag < tag)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < g->ntags && g->tags[lo].tag == tag) {
        *i = g->tags[lo].i;
        return true;
    }
    return false;
}

static int msh_nodes(msh *g)
{
    tet_load *L = g->L;
    eddy_tetmesh *m = L->m;
    int rc;
    char *s = msh_need(g, "the node count", &rc);
    if (!s)
        return -1;
    if (g->version == 2) {
        long long count;
        if (!tet_get_ll(&s, &count) || !tet_at_end(s))
            return failf(L->err, L->n, "%s:%u: expected the number of nodes", g->t.path, g->t.line);
        /* "tag x y z": 7 characters at least. */
        if (msh_alloc_nodes(g, count, 7) != 0)
            return -1;
        for (long long i = 0; i < count; i++) {
            if (!(s = msh_need(g, "a node", &rc)))
                return -1;
            long long tag;
            if (!tet_get_ll(&s, &tag))
                return failf(L->err, L->n, "%s:%u: expected a node: '<tag> <x> <y> <z>'", g->t.path, g->t.line);
            if (msh_check_tag(g, tag) != 0 || msh_node_coords(g, s, (uint32_t)i, tag, 0) != 0)
                return -1;
            L->vnum[i] = tag;
        }
        m->vertex_count = (uint32_t)count;
    } else {
        long long blocks, count, lo, hi;
        if (!tet_get_ll(&s, &blocks) || !tet_get_ll(&s, &count) || !tet_get_ll(&s, &lo) || !tet_get_ll(&s, &hi) || !tet_at_end(s) ||
            blocks < 0)
            return failf(L->err, L->n, "%s:%u: expected '<#entity blocks> <#nodes> <min tag> <max tag>'", g->t.path,
                         g->t.line);
        /* A tag line and an "x y z" line: 7 characters at least. */
        if (msh_alloc_nodes(g, count, 7) != 0)
            return -1;
        long long got = 0;
        for (long long b = 0; b < blocks; b++) {
            if (!(s = msh_need(g, "an entity block", &rc)))
                return -1;
            long long edim, etag, param, num;
            if (!tet_get_ll(&s, &edim) || !tet_get_ll(&s, &etag) || !tet_get_ll(&s, &param) || !tet_get_ll(&s, &num) || !tet_at_end(s))
                return failf(L->err, L->n, "%s:%u: expected '<entity dim> <entity tag> <parametric> <#nodes>'",
                             g->t.path, g->t.line);
            if (edim < 0 || edim > 3 || param < 0 || param > 1 || num < 0 || num > count - got)
                return failf(L->err, L->n, "%s:%u: entity block: dimension %lld (0..3), parametric %lld (0|1), %lld "
                             "nodes (%lld left of the %lld declared)", g->t.path, g->t.line, edim, param, num,
                             count - got, count);
            for (long long j = 0; j < num; j++) {
                if (!(s = msh_need(g, "a node tag", &rc)))
                    return -1;
                long long tag;
                if (!tet_get_ll(&s, &tag) || !tet_at_end(s))
                    return failf(L->err, L->n, "%s:%u: expected a node tag", g->t.path, g->t.line);
                if (msh_check_tag(g, tag) != 0)
                    return -1;
                L->vnum[got + j] = tag;
            }
            for (long long j = 0; j < num; j++) {
                if (!(s = msh_need(g, "node coordinates", &rc)))
                    return -1;
                if (msh_node_coords(g, s, (uint32_t)(got + j), (long long)L->vnum[got + j],
                                    param ? (int)edim : 0) != 0)
                    return -1;
            }
            got += num;
        }
        if (got != count)
            return failf(L->err, L->n, "%s:%u: the entity blocks hold %lld nodes, the header declares %lld",
                         g->t.path, g->t.line, got, count);
        m->vertex_count = (uint32_t)count;
    }
    if (msh_end(g, "$EndNodes") != 0)
        return -1;
    return msh_index(g);
}

/* A tet's nodes ("n1 n2 n3 n4 [6 more]" at s) by tag, then the end of the line. */
static int msh_tet(msh *g, char *s, long long etag, long long type)
{
    tet_load *L = g->L;
    int nodes = type == 4 ? 4 : 10;
    uint32_t k[4];
    for (int a = 0; a < nodes; a++) {
        long long tag;
        uint32_t i;
        if (!tet_get_ll(&s, &tag))
            return failf(L->err, L->n, "%s:%u: element %lld (type %lld) needs %d node tags", g->t.path, g->t.line,
                         etag, type, nodes);
        if (!msh_lookup(g, tag, &i)) {
            if (g->ntags)
                return failf(L->err, L->n, "%s:%u: element %lld names node %lld, which $Nodes does not list (tags "
                             "%lld..%lld, %u nodes)", g->t.path, g->t.line, etag, tag, (long long)g->tag_lo,
                             (long long)g->tag_hi, g->ntags);
            return failf(L->err, L->n, "%s:%u: element %lld names node %lld, out of range: $Nodes lists none",
                         g->t.path, g->t.line, etag, tag);
        }
        if (a < 4)
            k[a] = i;
    }
    if (!tet_at_end(s))
        return failf(L->err, L->n, "%s:%u: element %lld: more numbers than its %d node tags", g->t.path, g->t.line,
                     etag, nodes);
    return tet_add(L, k, etag, g->t.line);
}

static int msh_elements(msh *g)
{
    tet_load *L = g->L;
    int rc;
    char *s = msh_need(g, "the element count", &rc);
    if (!s)
        return -1;
    if (g->version == 2) {
        long long count;
        if (!tet_get_ll(&s, &count) || !tet_at_end(s) || count < 0)
            return failf(L->err, L->n, "%s:%u: expected the number of elements", g->t.path, g->t.line);
        for (long long i = 0; i < count; i++) {
            if (!(s = msh_need(g, "an element", &rc)))
                return -1;
            long long etag, type, ntags, x;
            if (!tet_get_ll(&s, &etag) || !tet_get_ll(&s, &type) || !tet_get_ll(&s, &ntags))
                return failf(L->err, L->n, "%s:%u: expected an element: '<tag> <type> <#tags> <tags> <nodes>'",
                             g->t.path, g->t.line);
            if (type != 4 && type != 11)
                continue; /* points, lines, triangles, ... */
            if (ntags < 0 || ntags > 64)
                return failf(L->err, L->n, "%s:%u: element %lld: %lld tags, expected 0 to 64", g->t.path, g->t.line,
                             etag, ntags);
            for (long long a = 0; a < ntags; a++)
                if (!tet_get_ll(&s, &x))
                    return failf(L->err, L->n, "%s:%u: element %lld needs %lld tags", g->t.path, g->t.line, etag,
                                 ntags);
            if (msh_tet(g, s, etag, type) != 0)
                return -1;
        }
    } else {
        long long blocks, count, lo, hi;
        if (!tet_get_ll(&s, &blocks) || !tet_get_ll(&s, &count) || !tet_get_ll(&s, &lo) || !tet_get_ll(&s, &hi) || !tet_at_end(s) ||
            blocks < 0 || count < 0)
            return failf(L->err, L->n, "%s:%u: expected '<#entity blocks> <#elements> <min tag> <max tag>'",
                         g->t.path, g->t.line);
        long long got = 0;
        for (long long b = 0; b < blocks; b++) {
            if (!(s = msh_need(g, "an entity block", &rc)))
                return -1;
            long long edim, etag, type, num;
            if (!tet_get_ll(&s, &edim) || !tet_get_ll(&s, &etag) || !tet_get_ll(&s, &type) || !tet_get_ll(&s, &num) || !tet_at_end(s))
                return failf(L->err, L->n, "%s:%u: expected '<entity dim> <entity tag> <element type> <#elements>'",
                             g->t.path, g->t.line);
            if (num < 0 || num > count - got)
                return failf(L->err, L->n, "%s:%u: entity block of %lld elements (%lld left of the %lld declared)",
                             g->t.path, g->t.line, num, count - got, count);
            for (long long j = 0; j < num; j++) {
                if (!(s = msh_need(g, "an element", &rc)))
                    return -1;
                if (type != 4 && type != 11)
                    continue;
                long long tag;
                if (!tet_get_ll(&s, &tag))
                    return failf(L->err, L->n, "%s:%u: expected an element: '<tag> <node tags>'", g->t.path,
                                 g->t.line);
                if (msh_tet(g, s, tag, type) != 0)
                    return -1;
            }
            got += num;
        }
        if (got != count)
            return failf(L->err, L->n, "%s:%u: the entity blocks hold %lld elements, the header declares %lld",
                         g->t.path, g->t.line, got, count);
    }
    return msh_end(g, "$EndElements");
}

int tet_load_msh(tet_load *L, const char *path)
{
    char *data;
    size_t size;
    if (tet_read_file(L, path, "a Gmsh .msh file", &data, &size) != 0)
        return -1;
    msh g = { .L = L, .t = { path, data, data + size, 0, false } };
    int rc = 0;
    char *s = msh_line(&g, &rc);
    if (!s || strcmp(s, "$MeshFormat") != 0) {
        if (rc == 0)
            rc = failf(L->err, L->n, "%s:%u: expected $MeshFormat (not a Gmsh .msh file?)", path, g.t.line);
        goto done;
    }
    if (!(s = msh_need(&g, "'<version> <file type> <data size>'", &rc)))
        goto done;
    double version;
    long long type, dsize;
    if (!tet_get_d(&s, &version) || !tet_get_ll(&s, &type) || !tet_get_ll(&s, &dsize) || !tet_at_end(s)) {
        rc = failf(L->err, L->n, "%s:%u: expected '<version> <file type> <data size>'", path, g.t.line);
        goto done;
    }
    if (type != 0) {
        rc = failf(L->err, L->n, "%s:%u: a binary .msh file (file type %lld): only ASCII is read; save it as "
                   "ASCII (gmsh: Mesh.Binary = 0)", path, g.t.line, type);
        goto done;
    }
    if (version >= 2 && version < 2.25)
        g.version = 2;
    else if (version == 4.1)
        g.version = 4;
    else {
        rc = failf(L->err, L->n, "%s:%u: .msh version %g: expected 2.2 or 4.1", path, g.t.line, version);
        goto done;
    }
    if ((rc = msh_end(&g, "$EndMeshFormat")) != 0)
        goto done;
    bool nodes = false, elements = false;
    while ((s = msh_line(&g, &rc))) {
        if (s[0] != '$') {
            rc = failf(L->err, L->n, "%s:%u: expected a section ($Nodes, $Elements, ...), found '%.40s'", path,
                       g.t.line, s);
            goto done;
        }
        if (strcmp(s, "$Nodes") == 0) {
            if (nodes) {
                rc = failf(L->err, L->n, "%s:%u: a second $Nodes section", path, g.t.line);
                goto done;
            }
            nodes = true;
            if ((rc = msh_nodes(&g)) != 0)
                goto done;
        } else if (strcmp(s, "$Elements") == 0) {
            if (!nodes || elements) {
                rc = failf(L->err, L->n, "%s:%u: %s", path, g.t.line,
                           elements ? "a second $Elements section" : "$Elements before $Nodes");
                goto done;
            }
            elements = true;
            if ((rc = msh_elements(&g)) != 0)
                goto done;
        } else if (strcmp(s, "$MeshFormat") == 0) {
            rc = failf(L->err, L->n, "%s:%u: a second $MeshFormat section", path, g.t.line);
            goto done;
        } else {
            /* Another section ($PhysicalNames, $Entities, $NodeData, ...): skipped to its end. */
            const char *name = s + 1;
            uint32_t at = g.t.line;
            for (;;) {
                char *e = tet_next_line(&g.t, SIZE_MAX, &rc, L->err, L->n);
                if (!e) {
                    if (rc == 0)
                        rc = failf(L->err, L->n, "%s:%u: section $%.40s has no $End%.40s (truncated?)", path, at,
                                   name, name);
                    goto done;
                }
                if (strncmp(e, "$End", 4) == 0 && strcmp(e + 4, name) == 0)
                    break;
            }
        }
    }
    if (rc != 0)
        goto done;
    if (!nodes || !elements)
        rc = failf(L->err, L->n, "%s: no %s section", path, nodes ? "$Elements" : "$Nodes");
done:
    free(g.tags);
    free(data);
    return rc;
}
