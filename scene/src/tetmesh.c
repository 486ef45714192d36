/* Tetrahedral meshes (eddy_tetmesh.h): loaders for TetGen .node/.ele, Gmsh
 * .msh (ASCII 2.2 and 4.1) and VTK .vtu (ASCII, base64 binary, appended raw
 * or base64), the checks every loaded mesh goes through, placement, lumped
 * masses, edges and the boundary.
 *
 * Input is hostile. A file is read whole (a regular file of at most
 * EDDY_TET_MAX_BYTES, opened without blocking), text lines are bounded and
 * may hold no NUL byte, every count is checked against
 * EDDY_TET_MAX_ELEMENTS and against what the file's size can hold before
 * anything is allocated for it, every offset and size in a .vtu is bounds
 * checked, and all size arithmetic is checked for overflow. Errors go to err
 * ("FILE:LINE: what is wrong", or "FILE: tet N: ..."), never to stderr; on
 * an error everything is freed and *out is left zeroed. Sorting (qsort on
 * packed keys), not hashing, makes every result deterministic. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "eddy/eddy_mesh.h"
#include "eddy/eddy_tetmesh.h"
#include "mesh_err.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The longest text line the TetGen and Gmsh readers take (a line of a
 * section the Gmsh reader skips may be longer). */
#define TET_LINE_MAX 4096
/* A .vtu tag's attributes, and how deep its elements nest. */
#define XML_MAX_ATTRS 32
#define XML_MAX_DEPTH 64

/* count * elem bytes, or NULL when that overflows or memory is out. */
static void *alloc_array(uint64_t count, size_t elem)
{
    uint64_t bytes;
    if (__builtin_mul_overflow(count, (uint64_t)elem, &bytes) || bytes > SIZE_MAX)
        return NULL;
    return malloc(bytes ? (size_t)bytes : 1);
}

void eddy_free_tetmesh(eddy_tetmesh *m)
{
    if (!m)
        return;
    free(m->vertices);
    free(m->tets);
    free(m->attributes);
    free(m->markers);
    memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------------------ */
/* Reading files                                                            */

/* The whole file, NUL-terminated (data[size] is 0). Devices, pipes and
 * folders are refused before they are opened (/dev/zero never ends, a FIFO
 * blocks the open); should the path change in between, the open does not
 * block and fstat refuses it before anything is read. */
static int read_whole(const char *path, const char *what, char **data, size_t *size, char *err, size_t n,
                      uint64_t *budget_left)
{
    *data = NULL;
    *size = 0;
    struct stat st;
    if (stat(path, &st) != 0)
        return failf(err, n, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return failf(err, n, "%s: not a regular file (expected %s)", path, what);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return failf(err, n, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return failf(err, n, "%s: cannot open: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return failf(err, n, "%s: not a regular file (expected %s)", path, what);
    }
    if (st.st_size < 0 || (uint64_t)st.st_size > EDDY_TET_MAX_BYTES) {
        close(fd);
        return failf(err, n, "%s: %llu bytes, over the limit of %llu bytes (EDDY_TET_MAX_BYTES)", path,
                     (unsigned long long)st.st_size, (unsigned long long)EDDY_TET_MAX_BYTES);
    }
    size_t cap = (size_t)st.st_size;
    if ((uint64_t)cap + 1 > *budget_left) {
        close(fd);
        return failf(err, n, "%s: %zu bytes, over what is left of the host memory budget, %llu bytes "
                     "(eddy_tetmesh_desc.max_bytes)", path, cap, (unsigned long long)*budget_left);
    }
    *budget_left -= (uint64_t)cap + 1;
    char *buf = malloc(cap + 1);
    if (!buf) {
        close(fd);
        return failf(err, n, "%s: out of memory (%zu bytes)", path, cap + 1);
    }
    /* A file that grows while it is read is read to its size at the open. */
    size_t got = 0;
    while (got < cap) {
        ssize_t r = read(fd, buf + got, cap - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            free(buf);
            return failf(err, n, "%s: read error: %s", path, strerror(e));
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    buf[got] = 0;
    *data = buf;
    *size = got;
    return 0;
}

/* Text, line by line: each line is NUL-terminated in place, trimmed, and
 * blank lines (and with `hash`, '#' comments) are skipped. */
typedef struct text {
    const char *path;
    char *p, *end;
    uint32_t line; /* the line last read, from 1 */
    bool hash;
} text;

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* The next line with content, or NULL at the end of the file (*rc 0) or on
 * an error (*rc -1): a line over `max` characters, a NUL byte. */
static char *next_line(text *t, size_t max, int *rc, char *err, size_t n)
{
    *rc = 0;
    while (t->p < t->end) {
        char *s = t->p;
        char *nl = memchr(s, '\n', (size_t)(t->end - s));
        char *e = nl ? nl : t->end;
        t->p = nl ? nl + 1 : t->end;
        t->line++;
        size_t len = (size_t)(e - s);
        if (memchr(s, 0, len)) {
            *rc = failf(err, n, "%s:%u: a NUL byte: not a text file", t->path, t->line);
            return NULL;
        }
        if (len > max) {
            *rc = failf(err, n, "%s:%u: line longer than %zu characters", t->path, t->line, max);
            return NULL;
        }
        *e = 0; /* the newline, or the buffer's own terminator */
        if (t->hash) {
            char *h = memchr(s, '#', len);
            if (h) {
                *h = 0;
                e = h;
            }
        }
        while (e > s && is_ws(e[-1]))
            *--e = 0;
        while (is_ws(*s))
            s++;
        if (*s)
            return s;
    }
    return NULL;
}

static char *skip_ws(char *s)
{
    while (*s && is_ws(*s))
        s++;
    return s;
}

static bool at_end(char *s)
{
    return !*skip_ws(s);
}

/* An integer token (then a space or the end of the line). Out of range
 * values come back clamped (strtoll), so range checks refuse them. */
static bool get_ll(char **p, long long *v)
{
    char *s = skip_ws(*p);
    if (!((*s >= '0' && *s <= '9') || ((*s == '-' || *s == '+') && s[1] >= '0' && s[1] <= '9')))
        return false;
    char *e;
    errno = 0;
    long long x = strtoll(s, &e, 10);
    if (e == s || (*e && !is_ws(*e)))
        return false;
    *v = x;
    *p = e;
    return true;
}

/* A real token (then a space or the end of the line). */
static bool get_d(char **p, double *v)
{
    char *s = skip_ws(*p);
    if (!*s)
        return false;
    char *e;
    double x = strtod(s, &e);
    if (e == s || (*e && !is_ws(*e)))
        return false;
    *v = x;
    *p = e;
    return true;
}

/* A double as a float: false when it is finite but out of a float's range. */
static bool to_float(double x, float *f)
{
    if (isfinite(x) && fabs(x) > FLT_MAX)
        return false;
    *f = (float)x;
    return true;
}

/* ------------------------------------------------------------------------ */
/* What a loader builds, and the checks                                     */

typedef struct load {
    eddy_tetmesh *m;
    char *err;
    size_t n;
    const char *tpath, *vpath; /* the files the tets and the vertices come from */
    const char *tword, *vword; /* "tet", "element", "cell"; "vertex", "node", "point" */
    const char *vwords;        /* "vertices", "nodes", "points" */
    int64_t *tnum;             /* per tet: its number in the file */
    uint32_t *tline;           /* per tet: its line (0: none) */
    uint32_t tcap;
    int64_t vbase;             /* vertex i is vbase + i in the file ... */
    int64_t *vnum;             /* ... or vnum[i] (Gmsh node tags) */
    uint64_t budget, used;     /* host bytes (eddy_tetmesh_desc.max_bytes), taken so far */
} load;

/* Takes count * elem bytes of the budget before they are allocated; -1 with
 * a message naming the budget when they do not fit. */
static int take(load *L, const char *path, uint64_t count, uint64_t elem)
{
    uint64_t bytes;
    if (__builtin_mul_overflow(count, elem, &bytes) || bytes > L->budget - L->used)
        return failf(L->err, L->n, "%s: %llu more bytes of host memory would exceed the budget of %llu bytes "
                     "(eddy_tetmesh_desc.max_bytes)", path, (unsigned long long)bytes,
                     (unsigned long long)L->budget);
    L->used += bytes;
    return 0;
}

/* read_whole, the file's bytes taken from the budget. */
static int read_file(load *L, const char *path, const char *what, char **data, size_t *size)
{
    uint64_t left = L->budget - L->used;
    int rc = read_whole(path, what, data, size, L->err, L->n, &left);
    L->used = L->budget - left;
    return rc;
}

static long long vname(const load *L, uint32_t v)
{
    return L->vnum ? (long long)L->vnum[v] : (long long)(L->vbase + v);
}

static int tet_fail(const load *L, uint32_t t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int tet_fail(const load *L, uint32_t t, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (L->tline && L->tline[t])
        return failf(L->err, L->n, "%s:%u: %s %lld %s", L->tpath, L->tline[t], L->tword, (long long)L->tnum[t],
                     what);
    return failf(L->err, L->n, "%s: %s %lld %s", L->tpath, L->tword, (long long)L->tnum[t], what);
}

/* Room for `cap` tets (and their numbers and lines). */
static int reserve_tets(load *L, uint32_t cap)
{
    if (cap <= L->tcap)
        return 0;
    if (take(L, L->tpath, cap - L->tcap, 4 * sizeof(uint32_t) + sizeof(int64_t) + sizeof(uint32_t)) != 0)
        return -1;
    eddy_tetmesh *m = L->m;
    uint32_t *t = realloc(m->tets, (size_t)cap * 4 * sizeof *t);
    if (!t)
        return failf(L->err, L->n, "%s: out of memory (%u tets)", L->tpath, cap);
    m->tets = t;
    int64_t *num = realloc(L->tnum, (size_t)cap * sizeof *num);
    if (!num)
        return failf(L->err, L->n, "%s: out of memory (%u tets)", L->tpath, cap);
    L->tnum = num;
    uint32_t *line = realloc(L->tline, (size_t)cap * sizeof *line);
    if (!line)
        return failf(L->err, L->n, "%s: out of memory (%u tets)", L->tpath, cap);
    L->tline = line;
    L->tcap = cap;
    return 0;
}

static int add_tet(load *L, const uint32_t k[4], int64_t num, uint32_t line)
{
    eddy_tetmesh *m = L->m;
    if (m->tet_count >= EDDY_TET_MAX_ELEMENTS) {
        if (line)
            return failf(L->err, L->n, "%s:%u: more than %u tets (EDDY_TET_MAX_ELEMENTS)", L->tpath, line,
                         (unsigned)EDDY_TET_MAX_ELEMENTS);
        return failf(L->err, L->n, "%s: more than %u tets (EDDY_TET_MAX_ELEMENTS)", L->tpath,
                     (unsigned)EDDY_TET_MAX_ELEMENTS);
    }
    if (m->tet_count == L->tcap) {
        uint32_t cap = L->tcap < 512 ? 1024 : L->tcap * 2;
        if (cap > EDDY_TET_MAX_ELEMENTS)
            cap = EDDY_TET_MAX_ELEMENTS;
        if (reserve_tets(L, cap) != 0)
            return -1;
    }
    uint32_t t = m->tet_count++;
    memcpy(m->tets + 4 * (size_t)t, k, 4 * sizeof *k);
    L->tnum[t] = num;
    L->tline[t] = line;
    return 0;
}

typedef struct tet_key {
    uint32_t v[4]; /* sorted */
    uint32_t t;
} tet_key;

static int cmp_tet_key(const void *a, const void *b)
{
    const tet_key *p = a, *q = b;
    for (int i = 0; i < 4; i++)
        if (p->v[i] != q->v[i])
            return p->v[i] < q->v[i] ? -1 : 1;
    return p->t < q->t ? -1 : p->t > q->t;
}

static void sort4(uint32_t v[4])
{
    for (int i = 1; i < 4; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint32_t s = v[j];
            v[j] = v[j - 1];
            v[j - 1] = s;
        }
}

/* The checks of eddy_tetmesh.h, on what a loader built. */
static int check_mesh(load *L, const eddy_tetmesh_desc *desc)
{
    eddy_tetmesh *m = L->m;
    if (m->tet_count == 0)
        return failf(L->err, L->n, "%s: no tetrahedra in the file", L->tpath);
    for (uint64_t i = 0; i < 3ull * m->vertex_count; i++)
        if (!isfinite(m->vertices[i]))
            return failf(L->err, L->n, "%s: %s %lld: coordinate %g is not finite", L->vpath, L->vword,
                         vname(L, (uint32_t)(i / 3)), (double)m->vertices[i]);
    for (uint32_t t = 0; t < m->tet_count; t++) {
        uint32_t *k = m->tets + 4 * (size_t)t;
        for (int a = 0; a < 4; a++)
            if (k[a] >= m->vertex_count)
                return tet_fail(L, t, "names vertex index %u, out of range 0..%lld", k[a],
                                (long long)m->vertex_count - 1);
        for (int a = 0; a < 4; a++)
            for (int b = a + 1; b < 4; b++)
                if (k[a] == k[b])
                    return tet_fail(L, t, "names %s %lld twice", L->vword, vname(L, k[a]));
        const float *x[4];
        for (int a = 0; a < 4; a++)
            x[a] = m->vertices + 3 * (size_t)k[a];
        double longest = 0;
        for (int a = 0; a < 4; a++)
            for (int b = a + 1; b < 4; b++) {
                double d0 = (double)x[b][0] - x[a][0], d1 = (double)x[b][1] - x[a][1], d2 = (double)x[b][2] - x[a][2];
                longest = fmax(longest, sqrt(d0 * d0 + d1 * d1 + d2 * d2));
            }
        double v6 = 6.0 * eddy_tet_volume(m, t);
        if (!(fabs(v6) > 1e-12 * longest * longest * longest))
            return tet_fail(L, t, "has zero volume: %g m^3 (longest edge %g m; its %s %lld %lld %lld %lld "
                            "are (nearly) coplanar)", v6 / 6.0, longest, L->vwords, vname(L, k[0]), vname(L, k[1]),
                            vname(L, k[2]), vname(L, k[3]));
        if (v6 < 0) {
            if (!desc || !desc->reorient)
                return tet_fail(L, t, "is inverted: volume %g m^3 < 0 (%s %lld %lld %lld %lld): set reorient to "
                                "turn it around", v6 / 6.0, L->vwords, vname(L, k[0]), vname(L, k[1]), vname(L, k[2]),
                                vname(L, k[3]));
            uint32_t s = k[2];
            k[2] = k[3];
            k[3] = s;
            m->reoriented++;
        }
    }
    /* Duplicates: the sorted four vertices of every tet, sorted. */
    if (take(L, L->tpath, m->tet_count, sizeof(tet_key)) != 0)
        return -1;
    tet_key *keys = alloc_array(m->tet_count, sizeof *keys);
    if (!keys)
        return failf(L->err, L->n, "%s: out of memory", L->tpath);
    for (uint32_t t = 0; t < m->tet_count; t++) {
        memcpy(keys[t].v, m->tets + 4 * (size_t)t, sizeof keys[t].v);
        sort4(keys[t].v);
        keys[t].t = t;
    }
    qsort(keys, m->tet_count, sizeof *keys, cmp_tet_key);
    /* The first tet in the file that repeats an earlier one. */
    uint32_t dup = UINT32_MAX, orig = 0;
    for (uint32_t i = 1; i < m->tet_count; i++)
        if (memcmp(keys[i].v, keys[i - 1].v, sizeof keys[i].v) == 0 && keys[i].t < dup &&
            (i < 2 || memcmp(keys[i - 2].v, keys[i].v, sizeof keys[i].v) != 0)) {
            dup = keys[i].t;
            orig = keys[i - 1].t;
        }
    free(keys);
    if (dup != UINT32_MAX) {
        if (L->tline[orig])
            return tet_fail(L, dup, "is a duplicate of %s %lld (line %u): the same four %s", L->tword,
                            (long long)L->tnum[orig], L->tline[orig], L->vwords);
        return tet_fail(L, dup, "is a duplicate of %s %lld: the same four %s", L->tword, (long long)L->tnum[orig],
                        L->vwords);
    }
    if (take(L, L->vpath, m->vertex_count, 1) != 0)
        return -1;
    uint8_t *used = calloc(m->vertex_count ? m->vertex_count : 1, 1);
    if (!used)
        return failf(L->err, L->n, "%s: out of memory", L->tpath);
    for (uint64_t i = 0; i < 4ull * m->tet_count; i++)
        used[m->tets[i]] = 1;
    m->unreferenced = 0;
    for (uint32_t v = 0; v < m->vertex_count; v++)
        m->unreferenced += !used[v];
    free(used);
    return 0;
}

/* Frees what a load built but the mesh keeps not; on an error the mesh too. */
static int finish(load *L, int rc)
{
    free(L->tnum);
    free(L->tline);
    free(L->vnum);
    L->tnum = NULL;
    L->tline = NULL;
    L->vnum = NULL;
    if (rc != 0)
        eddy_free_tetmesh(L->m);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* TetGen                                                                   */

static int load_node(load *L, const char *path)
{
    eddy_tetmesh *m = L->m;
    char *data;
    size_t size;
    if (read_file(L, path, "a TetGen .node file", &data, &size) != 0)
        return -1;
    text t = { path, data, data + size, 0, true };
    int rc = 0;
    char *s = next_line(&t, TET_LINE_MAX, &rc, L->err, L->n);
    long long np = 0, dim = 0, na = 0, nm = 0;
    if (!s) {
        if (rc == 0)
            rc = failf(L->err, L->n, "%s: no header: expected '<#points> 3 <#attributes> <#boundary markers>'",
                       path);
        goto done;
    }
    if (!get_ll(&s, &np) || !get_ll(&s, &dim) || (!at_end(s) && !get_ll(&s, &na)) ||
        (!at_end(s) && !get_ll(&s, &nm)) || !at_end(s)) {
        rc = failf(L->err, L->n, "%s:%u: expected the header '<#points> 3 <#attributes> <#boundary markers 0|1>'",
                   path, t.line);
        goto done;
    }
    if (dim != 3) {
        rc = failf(L->err, L->n, "%s:%u: header: dimension %lld, expected 3", path, t.line, dim);
        goto done;
    }
    if (np < 1 || np > (long long)EDDY_TET_MAX_ELEMENTS) {
        rc = failf(L->err, L->n, "%s:%u: header: %lld points, expected 1 to %u (EDDY_TET_MAX_ELEMENTS)", path,
                   t.line, np, (unsigned)EDDY_TET_MAX_ELEMENTS);
        goto done;
    }
    if (na < 0 || na > EDDY_TET_MAX_ATTRIBUTES) {
        rc = failf(L->err, L->n, "%s:%u: header: %lld attributes per point, at most %d are kept "
                   "(EDDY_TET_MAX_ATTRIBUTES)", path, t.line, na, EDDY_TET_MAX_ATTRIBUTES);
        goto done;
    }
    if (nm != 0 && nm != 1) {
        rc = failf(L->err, L->n, "%s:%u: header: %lld boundary markers, expected 0 or 1", path, t.line, nm);
        goto done;
    }
    /* A point line holds 4 + na + nm numbers: a character and a separator each. */
    uint64_t tokens = 4 + (uint64_t)na + (uint64_t)nm;
    if ((uint64_t)np * (2 * tokens - 1) > (uint64_t)(t.end - t.p) + 1) {
        rc = failf(L->err, L->n, "%s:%u: header: %lld points, more than the rest of the file can hold "
                   "(truncated?)", path, t.line, np);
        goto done;
    }
    if ((rc = take(L, path, (uint64_t)np, 4 * (3 + (uint64_t)na + (nm ? 1 : 0)))) != 0)
        goto done;
    m->vertices = alloc_array((uint64_t)np * 3, sizeof(float));
    m->attributes = na ? alloc_array((uint64_t)np * (uint64_t)na, sizeof(float)) : NULL;
    m->markers = nm ? alloc_array((uint64_t)np, sizeof(int32_t)) : NULL;
    if (!m->vertices || (na && !m->attributes) || (nm && !m->markers)) {
        rc = failf(L->err, L->n, "%s: out of memory (%lld points)", path, np);
        goto done;
    }
    m->attribute_count = (uint32_t)na;
    for (long long i = 0; i < np; i++) {
        s = next_line(&t, TET_LINE_MAX, &rc, L->err, L->n);
        if (!s) {
            if (rc == 0)
                rc = failf(L->err, L->n, "%s:%u: the file ends after %lld of the %lld points the header "
                           "declares (truncated?)", path, t.line, i, np);
            goto done;
        }
        long long idx;
        if (!get_ll(&s, &idx)) {
            rc = failf(L->err, L->n, "%s:%u: expected a point: '<index> <x> <y> <z>%s%s'", path, t.line,
                       na ? " <attributes>" : "", nm ? " <marker>" : "");
            goto done;
        }
        if (i == 0) {
            if (idx != 0 && idx != 1) {
                rc = failf(L->err, L->n, "%s:%u: the first point's index is %lld, expected 0 or 1", path, t.line,
                           idx);
                goto done;
            }
            L->vbase = idx;
        } else if (idx != L->vbase + i) {
            rc = failf(L->err, L->n, "%s:%u: point index %lld, expected %lld (indices must be consecutive)", path,
                       t.line, idx, (long long)(L->vbase + i));
            goto done;
        }
        for (int a = 0; a < 3; a++) {
            double x;
            if (!get_d(&s, &x)) {
                rc = failf(L->err, L->n, "%s:%u: point %lld needs three coordinates", path, t.line, idx);
                goto done;
            }
            if (!isfinite(x) || !to_float(x, &m->vertices[3 * i + a])) {
                rc = failf(L->err, L->n, "%s:%u: point %lld: coordinate %g is not finite%s", path, t.line, idx, x,
                           isfinite(x) ? " as a float" : "");
                goto done;
            }
        }
        for (long long a = 0; a < na; a++) {
            double x;
            if (!get_d(&s, &x)) {
                rc = failf(L->err, L->n, "%s:%u: point %lld needs %lld attributes", path, t.line, idx, na);
                goto done;
            }
            if (!to_float(x, &m->attributes[i * na + a])) {
                rc = failf(L->err, L->n, "%s:%u: point %lld: attribute %g is out of the range of a float", path,
                           t.line, idx, x);
                goto done;
            }
        }
        if (nm) {
            long long mk;
            if (!get_ll(&s, &mk) || mk < INT32_MIN || mk > INT32_MAX) {
                rc = failf(L->err, L->n, "%s:%u: point %lld needs a boundary marker (a 32-bit integer)", path,
                           t.line, idx);
                goto done;
            }
            m->markers[i] = (int32_t)mk;
        }
        if (!at_end(s)) {
            rc = failf(L->err, L->n, "%s:%u: point %lld: more numbers than the header's 3 coordinates, %lld "
                       "attributes and %lld markers", path, t.line, idx, na, nm);
            goto done;
        }
    }
    m->vertex_count = (uint32_t)np;
    s = next_line(&t, TET_LINE_MAX, &rc, L->err, L->n);
    if (s)
        rc = failf(L->err, L->n, "%s:%u: more points than the %lld the header declares", path, t.line, np);
done:
    free(data);
    return rc;
}

static int load_ele(load *L, const char *path)
{
    eddy_tetmesh *m = L->m;
    char *data;
    size_t size;
    if (read_file(L, path, "a TetGen .ele file", &data, &size) != 0)
        return -1;
    text t = { path, data, data + size, 0, true };
    int rc = 0;
    char *s = next_line(&t, TET_LINE_MAX, &rc, L->err, L->n);
    long long nt = 0, npt = 0, nr = 0;
    if (!s) {
        if (rc == 0)
            rc = failf(L->err, L->n, "%s: no header: expected '<#tets> <nodes per tet 4|10> <#region attributes>'",
                       path);
        goto done;
    }
    if (!get_ll(&s, &nt) || !get_ll(&s, &npt) || (!at_end(s) && !get_ll(&s, &nr)) || !at_end(s)) {
        rc = failf(L->err, L->n, "%s:%u: expected the header '<#tets> <nodes per tet 4|10> <#region attributes>'",
                   path, t.line);
        goto done;
    }
    if (npt != 4 && npt != 10) {
        rc = failf(L->err, L->n, "%s:%u: header: %lld nodes per tet, expected 4 or 10", path, t.line, npt);
        goto done;
    }
    if (nt < 1 || nt > (long long)EDDY_TET_MAX_ELEMENTS) {
        rc = failf(L->err, L->n, "%s:%u: header: %lld tets, expected 1 to %u (EDDY_TET_MAX_ELEMENTS)", path,
                   t.line, nt, (unsigned)EDDY_TET_MAX_ELEMENTS);
        goto done;
    }
    if (nr < 0 || nr > 64) {
        rc = failf(L->err, L->n, "%s:%u: header: %lld region attributes, expected 0 to 64", path, t.line, nr);
        goto done;
    }
    uint64_t tokens = 1 + (uint64_t)npt + (uint64_t)nr;
    if ((uint64_t)nt * (2 * tokens - 1) > (uint64_t)(t.end - t.p) + 1) {
        rc = failf(L->err, L->n, "%s:%u: header: %lld tets, more than the rest of the file can hold (truncated?)",
                   path, t.line, nt);
        goto done;
    }
    if ((rc = reserve_tets(L, (uint32_t)nt)) != 0)
        goto done;
    long long base = 0, lo = L->vbase, hi = L->vbase + (long long)m->vertex_count - 1;
    for (long long i = 0; i < nt; i++) {
        s = next_line(&t, TET_LINE_MAX, &rc, L->err, L->n);
        if (!s) {
            if (rc == 0)
                rc = failf(L->err, L->n, "%s:%u: the file ends after %lld of the %lld tets the header declares "
                           "(truncated?)", path, t.line, i, nt);
            goto done;
        }
        long long idx;
        if (!get_ll(&s, &idx)) {
            rc = failf(L->err, L->n, "%s:%u: expected a tet: '<index> <%lld vertex indices>%s'", path, t.line, npt,
                       nr ? " <region attributes>" : "");
            goto done;
        }
        if (i == 0) {
            if (idx != 0 && idx != 1) {
                rc = failf(L->err, L->n, "%s:%u: the first tet's index is %lld, expected 0 or 1", path, t.line, idx);
                goto done;
            }
            base = idx;
        } else if (idx != base + i) {
            rc = failf(L->err, L->n, "%s:%u: tet index %lld, expected %lld (indices must be consecutive)", path,
                       t.line, idx, base + i);
            goto done;
        }
        uint32_t k[4];
        for (long long a = 0; a < npt; a++) {
            long long v;
            if (!get_ll(&s, &v)) {
                rc = failf(L->err, L->n, "%s:%u: tet %lld needs %lld vertex indices", path, t.line, idx, npt);
                goto done;
            }
            if (v < lo || v > hi) {
                rc = failf(L->err, L->n, "%s:%u: tet %lld names vertex %lld, out of range %lld..%lld (the .node "
                           "file's indices)", path, t.line, idx, v, lo, hi);
                goto done;
            }
            if (a < 4)
                k[a] = (uint32_t)(v - lo);
        }
        for (long long a = 0; a < nr; a++) {
            double x;
            if (!get_d(&s, &x)) {
                rc = failf(L->err, L->n, "%s:%u: tet %lld needs %lld region attributes", path, t.line, idx, nr);
                goto done;
            }
        }
        if (!at_end(s)) {
            rc = failf(L->err, L->n, "%s:%u: tet %lld: more numbers than the header's %lld vertices and %lld region "
                       "attributes", path, t.line, idx, npt, nr);
            goto done;
        }
        if ((rc = add_tet(L, k, idx, t.line)) != 0)
            goto done;
    }
    s = next_line(&t, TET_LINE_MAX, &rc, L->err, L->n);
    if (s)
        rc = failf(L->err, L->n, "%s:%u: more tets than the %lld the header declares", path, t.line, nt);
done:
    free(data);
    return rc;
}

int eddy_load_tetgen(const char *node_path, const char *ele_path, const eddy_tetmesh_desc *desc,
                     eddy_tetmesh *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    load L = { .m = out, .err = err, .n = err_size, .tpath = ele_path, .vpath = node_path, .tword = "tet",
               .vword = "vertex", .vwords = "vertices",
               .budget = desc && desc->max_bytes ? desc->max_bytes : UINT64_MAX };
    int rc = load_node(&L, node_path);
    if (rc == 0)
        rc = load_ele(&L, ele_path);
    if (rc == 0)
        rc = check_mesh(&L, desc);
    return finish(&L, rc);
}

/* ------------------------------------------------------------------------ */
/* Gmsh                                                                     */

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
    load *L;
    text t;
    int version; /* 2 or 4 */
    tag_index *tags; /* sorted by tag */
    uint32_t ntags;
    int64_t tag_lo, tag_hi;
} msh;

static char *msh_line(msh *g, int *rc)
{
    return next_line(&g->t, TET_LINE_MAX, rc, g->L->err, g->L->n);
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
        if (!get_d(&s, &x))
            return failf(g->L->err, g->L->n, "%s:%u: node %lld needs three coordinates", g->t.path, g->t.line, tag);
        if (!isfinite(x) || !to_float(x, &m->vertices[3 * (size_t)i + a]))
            return failf(g->L->err, g->L->n, "%s:%u: node %lld: coordinate %g is not finite%s", g->t.path, g->t.line,
                         tag, x, isfinite(x) ? " as a float" : "");
    }
    for (int a = 0; a < params; a++) {
        double x;
        if (!get_d(&s, &x))
            return failf(g->L->err, g->L->n, "%s:%u: node %lld needs %d parametric coordinates", g->t.path,
                         g->t.line, tag, params);
    }
    if (!at_end(s))
        return failf(g->L->err, g->L->n, "%s:%u: node %lld: more numbers than expected", g->t.path, g->t.line, tag);
    return 0;
}

static int msh_alloc_nodes(msh *g, long long count, uint64_t min_bytes)
{
    load *L = g->L;
    if (count < 0 || count > (long long)EDDY_TET_MAX_ELEMENTS)
        return failf(L->err, L->n, "%s:%u: %lld nodes, expected 0 to %u (EDDY_TET_MAX_ELEMENTS)", g->t.path, g->t.line,
                     count, (unsigned)EDDY_TET_MAX_ELEMENTS);
    if ((uint64_t)count * min_bytes > (uint64_t)(g->t.end - g->t.p) + 1)
        return failf(L->err, L->n, "%s:%u: %lld nodes, more than the rest of the file can hold (truncated?)",
                     g->t.path, g->t.line, count);
    if (take(L, g->t.path, (uint64_t)count, 3 * sizeof(float) + sizeof(int64_t)) != 0)
        return -1;
    L->m->vertices = alloc_array((uint64_t)count * 3, sizeof(float));
    L->vnum = alloc_array((uint64_t)count, sizeof(int64_t));
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
    load *L = g->L;
    uint32_t n = L->m->vertex_count;
    if (take(L, g->t.path, n, sizeof *g->tags) != 0)
        return -1;
    g->tags = alloc_array(n, sizeof *g->tags);
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
    load *L = g->L;
    eddy_tetmesh *m = L->m;
    int rc;
    char *s = msh_need(g, "the node count", &rc);
    if (!s)
        return -1;
    if (g->version == 2) {
        long long count;
        if (!get_ll(&s, &count) || !at_end(s))
            return failf(L->err, L->n, "%s:%u: expected the number of nodes", g->t.path, g->t.line);
        /* "tag x y z": 7 characters at least. */
        if (msh_alloc_nodes(g, count, 7) != 0)
            return -1;
        for (long long i = 0; i < count; i++) {
            if (!(s = msh_need(g, "a node", &rc)))
                return -1;
            long long tag;
            if (!get_ll(&s, &tag))
                return failf(L->err, L->n, "%s:%u: expected a node: '<tag> <x> <y> <z>'", g->t.path, g->t.line);
            if (msh_check_tag(g, tag) != 0 || msh_node_coords(g, s, (uint32_t)i, tag, 0) != 0)
                return -1;
            L->vnum[i] = tag;
        }
        m->vertex_count = (uint32_t)count;
    } else {
        long long blocks, count, lo, hi;
        if (!get_ll(&s, &blocks) || !get_ll(&s, &count) || !get_ll(&s, &lo) || !get_ll(&s, &hi) || !at_end(s) ||
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
            if (!get_ll(&s, &edim) || !get_ll(&s, &etag) || !get_ll(&s, &param) || !get_ll(&s, &num) || !at_end(s))
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
                if (!get_ll(&s, &tag) || !at_end(s))
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
    load *L = g->L;
    int nodes = type == 4 ? 4 : 10;
    uint32_t k[4];
    for (int a = 0; a < nodes; a++) {
        long long tag;
        uint32_t i;
        if (!get_ll(&s, &tag))
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
    if (!at_end(s))
        return failf(L->err, L->n, "%s:%u: element %lld: more numbers than its %d node tags", g->t.path, g->t.line,
                     etag, nodes);
    return add_tet(L, k, etag, g->t.line);
}

static int msh_elements(msh *g)
{
    load *L = g->L;
    int rc;
    char *s = msh_need(g, "the element count", &rc);
    if (!s)
        return -1;
    if (g->version == 2) {
        long long count;
        if (!get_ll(&s, &count) || !at_end(s) || count < 0)
            return failf(L->err, L->n, "%s:%u: expected the number of elements", g->t.path, g->t.line);
        for (long long i = 0; i < count; i++) {
            if (!(s = msh_need(g, "an element", &rc)))
                return -1;
            long long etag, type, ntags, x;
            if (!get_ll(&s, &etag) || !get_ll(&s, &type) || !get_ll(&s, &ntags))
                return failf(L->err, L->n, "%s:%u: expected an element: '<tag> <type> <#tags> <tags> <nodes>'",
                             g->t.path, g->t.line);
            if (type != 4 && type != 11)
                continue; /* points, lines, triangles, ... */
            if (ntags < 0 || ntags > 64)
                return failf(L->err, L->n, "%s:%u: element %lld: %lld tags, expected 0 to 64", g->t.path, g->t.line,
                             etag, ntags);
            for (long long a = 0; a < ntags; a++)
                if (!get_ll(&s, &x))
                    return failf(L->err, L->n, "%s:%u: element %lld needs %lld tags", g->t.path, g->t.line, etag,
                                 ntags);
            if (msh_tet(g, s, etag, type) != 0)
                return -1;
        }
    } else {
        long long blocks, count, lo, hi;
        if (!get_ll(&s, &blocks) || !get_ll(&s, &count) || !get_ll(&s, &lo) || !get_ll(&s, &hi) || !at_end(s) ||
            blocks < 0 || count < 0)
            return failf(L->err, L->n, "%s:%u: expected '<#entity blocks> <#elements> <min tag> <max tag>'",
                         g->t.path, g->t.line);
        long long got = 0;
        for (long long b = 0; b < blocks; b++) {
            if (!(s = msh_need(g, "an entity block", &rc)))
                return -1;
            long long edim, etag, type, num;
            if (!get_ll(&s, &edim) || !get_ll(&s, &etag) || !get_ll(&s, &type) || !get_ll(&s, &num) || !at_end(s))
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
                if (!get_ll(&s, &tag))
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

static int load_msh(load *L, const char *path)
{
    char *data;
    size_t size;
    if (read_file(L, path, "a Gmsh .msh file", &data, &size) != 0)
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
    if (!get_d(&s, &version) || !get_ll(&s, &type) || !get_ll(&s, &dsize) || !at_end(s)) {
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
                char *e = next_line(&g.t, SIZE_MAX, &rc, L->err, L->n);
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

/* ------------------------------------------------------------------------ */
/* VTK XML unstructured grid                                                */

enum { VT_I8, VT_U8, VT_I16, VT_U16, VT_I32, VT_U32, VT_I64, VT_U64, VT_F32, VT_F64, VT_COUNT };
static const char *const vt_names[VT_COUNT] = { "Int8",   "UInt8",  "Int16",  "UInt16",  "Int32",
                                                "UInt32", "Int64",  "UInt64", "Float32", "Float64" };
static const int vt_sizes[VT_COUNT] = { 1, 1, 2, 2, 4, 4, 8, 8, 4, 8 };

enum { FMT_ASCII, FMT_BINARY, FMT_APPENDED };

typedef struct xattr {
    const char *name, *val;
    size_t nlen, vlen;
} xattr;

typedef struct xtag {
    const char *name;
    size_t nlen;
    xattr a[XML_MAX_ATTRS];
    int na;
    bool close, empty; /* </name>, <name/> */
    size_t at, end;    /* the offsets of its '<' and past its '>' */
} xtag;

typedef struct varr {
    bool present;
    int type; /* VT_*, or -1: unknown */
    int format;
    uint64_t offset;
    size_t at, c0, c1; /* the tag; its content (ascii, binary) */
    const char *name;
    size_t nlen;
    uint64_t ncomp;
    bool ncomp_given;
} varr;

typedef struct vtu {
    load *L;
    const char *path;
    const char *d;
    size_t size;
    int hbytes;        /* the block header: 4 (UInt32) or 8 (UInt64) */
    bool appended;
    bool app_base64;
    size_t app0, app1; /* the appended data, past its '_' */
} vtu;

/* Decoded values: little-endian ones of `type` at p, or (native) int64_t or
 * double values of ASCII data. */
typedef struct vdata {
    int type;
    bool native;
    uint64_t n;
    const uint8_t *p;
    void *owned;
} vdata;

static uint32_t line_at(const char *d, size_t at)
{
    uint32_t line = 1;
    for (const char *p = d, *e = d + at; (p = memchr(p, '\n', (size_t)(e - p))); p++)
        line++;
    return line;
}

static int vtu_fail(const vtu *V, size_t at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int vtu_fail(const vtu *V, size_t at, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return failf(V->L->err, V->L->n, "%s:%u: %s", V->path, line_at(V->d, at), what);
}

static bool starts(const char *d, size_t size, size_t at, const char *s)
{
    size_t n = strlen(s);
    return at <= size && size - at >= n && memcmp(d + at, s, n) == 0;
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ':' ||
           c == '-' || c == '.';
}

static bool str_is(const char *s, size_t n, const char *want)
{
    return n == strlen(want) && memcmp(s, want, n) == 0;
}

static const xattr *xget(const xtag *t, const char *name)
{
    for (int i = 0; i < t->na; i++)
        if (str_is(t->a[i].name, t->a[i].nlen, name))
            return &t->a[i];
    return NULL;
}

/* A decimal attribute value (spaces around allowed). */
static bool parse_u64(const char *s, size_t n, uint64_t *v)
{
    size_t i = 0;
    while (i < n && is_ws(s[i]))
        i++;
    if (i == n || s[i] < '0' || s[i] > '9')
        return false;
    uint64_t x = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        if (x > (UINT64_MAX - 9) / 10)
            return false;
        x = 10 * x + (uint64_t)(s[i++] - '0');
    }
    while (i < n && is_ws(s[i]))
        i++;
    if (i != n)
        return false;
    *v = x;
    return true;
}

/* The next tag at or past *pos: 1, 0 at the end of the file, -1 on an error.
 * Comments, processing instructions and declarations are skipped. */
static int xml_tag(vtu *V, size_t *pos, xtag *t)
{
    const char *d = V->d;
    size_t size = V->size;
    for (;;) {
        if (*pos >= size)
            return 0;
        const char *lt = memchr(d + *pos, '<', size - *pos);
        if (!lt)
            return 0;
        size_t i = (size_t)(lt - d);
        if (starts(d, size, i, "<!--") || starts(d, size, i, "<?")) {
            const char *close = d[i + 1] == '!' ? "-->" : "?>";
            const char *e = memmem(d + i + 2, size - i - 2, close, strlen(close));
            if (!e)
                return vtu_fail(V, i, "a %s with no end (truncated?)", d[i + 1] == '!' ? "comment" : "'<?'");
            *pos = (size_t)(e - d) + strlen(close);
            continue;
        }
        if (starts(d, size, i, "<![CDATA["))
            return vtu_fail(V, i, "CDATA sections are not supported");
        if (starts(d, size, i, "<!")) {
            const char *e = memchr(d + i, '>', size - i);
            if (!e)
                return vtu_fail(V, i, "a '<!' with no end (truncated?)");
            *pos = (size_t)(e - d) + 1;
            continue;
        }
        t->at = i++;
        t->close = i < size && d[i] == '/';
        if (t->close)
            i++;
        size_t n0 = i;
        while (i < size && name_char(d[i]))
            i++;
        t->name = d + n0;
        t->nlen = i - n0;
        if (!t->nlen)
            return vtu_fail(V, t->at, i >= size ? "the file ends inside a tag (truncated?)" : "a malformed tag");
        t->na = 0;
        t->empty = false;
        for (;;) {
            while (i < size && is_ws(d[i]))
                i++;
            if (i >= size)
                return vtu_fail(V, t->at, "the tag <%.*s> has no end (truncated?)", (int)(t->nlen > 40 ? 40 : t->nlen),
                                t->name);
            if (d[i] == '>') {
                i++;
                break;
            }
            if (d[i] == '/' && i + 1 < size && d[i + 1] == '>' && !t->close) {
                t->empty = true;
                i += 2;
                break;
            }
            if (t->close)
                return vtu_fail(V, t->at, "a malformed closing tag");
            size_t a0 = i;
            while (i < size && name_char(d[i]))
                i++;
            size_t alen = i - a0;
            while (i < size && is_ws(d[i]))
                i++;
            if (!alen || i >= size || d[i] != '=')
                return vtu_fail(V, t->at, "a malformed attribute in <%.*s>", (int)(t->nlen > 40 ? 40 : t->nlen),
                                t->name);
            i++;
            while (i < size && is_ws(d[i]))
                i++;
            if (i >= size || (d[i] != '"' && d[i] != '\''))
                return vtu_fail(V, t->at, "an attribute value without quotes in <%.*s>",
                                (int)(t->nlen > 40 ? 40 : t->nlen), t->name);
            const char *q = memchr(d + i + 1, d[i], size - i - 1);
            if (!q)
                return vtu_fail(V, t->at, "an attribute value with no end (truncated?)");
            if (t->na == XML_MAX_ATTRS)
                return vtu_fail(V, t->at, "more than %d attributes in one tag", XML_MAX_ATTRS);
            t->a[t->na++] = (xattr){ d + a0, d + i + 1, alen, (size_t)(q - (d + i + 1)) };
            i = (size_t)(q - d) + 1;
        }
        t->end = i;
        *pos = i;
        return 1;
    }
}

static int vt_parse(const char *s, size_t n)
{
    for (int i = 0; i < VT_COUNT; i++)
        if (str_is(s, n, vt_names[i]))
            return i;
    return -1;
}

/* A DataArray's tag into a: its type, format, offset and content. */
static int vtu_array(vtu *V, const xtag *t, varr *a)
{
    memset(a, 0, sizeof *a);
    a->present = true;
    a->at = t->at;
    const xattr *x = xget(t, "Name");
    a->name = x ? x->val : "";
    a->nlen = x ? (x->vlen > 40 ? 40 : x->vlen) : 0;
    x = xget(t, "type");
    a->type = x ? vt_parse(x->val, x->vlen) : -1;
    x = xget(t, "NumberOfComponents");
    a->ncomp = 1;
    if (x) {
        a->ncomp_given = true;
        if (!parse_u64(x->val, x->vlen, &a->ncomp))
            return vtu_fail(V, t->at, "DataArray '%.*s': NumberOfComponents \"%.*s\" is not a number", (int)a->nlen,
                            a->name, (int)(x->vlen > 40 ? 40 : x->vlen), x->val);
    }
    x = xget(t, "format");
    if (!x || str_is(x->val, x->vlen, "ascii"))
        a->format = FMT_ASCII;
    else if (str_is(x->val, x->vlen, "binary"))
        a->format = FMT_BINARY;
    else if (str_is(x->val, x->vlen, "appended"))
        a->format = FMT_APPENDED;
    else
        return vtu_fail(V, t->at, "DataArray '%.*s': format \"%.*s\", expected ascii, binary or appended",
                        (int)a->nlen, a->name, (int)(x->vlen > 40 ? 40 : x->vlen), x->val);
    if (a->format == FMT_APPENDED) {
        x = xget(t, "offset");
        if (!x || !parse_u64(x->val, x->vlen, &a->offset))
            return vtu_fail(V, t->at, "DataArray '%.*s': appended data needs an offset=\"N\"", (int)a->nlen, a->name);
    }
    a->c0 = a->c1 = t->end;
    if (!t->empty) {
        const char *lt = memchr(V->d + t->end, '<', V->size - t->end);
        a->c1 = lt ? (size_t)(lt - V->d) : V->size;
    }
    return 0;
}

/* Base64, quantum by quantum, whitespace skipped. A quantum with '='
 * padding ends a block and another may follow: VTK encodes a block's header
 * and its data apart, other writers together; both decode the same. */
typedef struct b64 {
    const char *s;
    size_t i, end;
    uint8_t left[3];
    int nleft, lpos;
} b64;

static int b64_val(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    if (c == '=')
        return 64;
    return -1;
}

/* `want` bytes into out: 0, or -1 at a bad character or the end of the data. */
static int b64_get(b64 *b, uint8_t *out, uint64_t want)
{
    uint64_t o = 0;
    while (o < want && b->lpos < b->nleft)
        out[o++] = b->left[b->lpos++];
    while (o < want) {
        int q[4], k = 0;
        while (k < 4) {
            if (b->i >= b->end)
                return -1;
            char c = b->s[b->i++];
            if (is_ws(c))
                continue;
            int v = b64_val(c);
            if (v < 0)
                return -1;
            q[k++] = v;
        }
        if (q[0] == 64 || q[1] == 64 || (q[2] == 64 && q[3] != 64))
            return -1;
        uint32_t bits = (uint32_t)q[0] << 18 | (uint32_t)q[1] << 12 | (uint32_t)(q[2] & 63) << 6 |
                        (uint32_t)(q[3] & 63);
        int nb = q[2] == 64 ? 1 : q[3] == 64 ? 2 : 3;
        for (int j = 0; j < nb; j++)
            b->left[j] = (uint8_t)(bits >> (16 - 8 * j));
        b->nleft = nb;
        b->lpos = 0;
        while (o < want && b->lpos < b->nleft)
            out[o++] = b->left[b->lpos++];
    }
    return 0;
}

static uint64_t le_get(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* A value as a double (any type). */
static double vd_real(const vdata *v, uint64_t i)
{
    if (v->native)
        return v->type == VT_F64 ? ((const double *)v->owned)[i] : (double)((const int64_t *)v->owned)[i];
    int size = vt_sizes[v->type];
    uint64_t u = le_get(v->p + i * (uint64_t)size, size);
    switch (v->type) {
    case VT_F32: {
        uint32_t w = (uint32_t)u;
        float f;
        memcpy(&f, &w, sizeof f);
        return f;
    }
    case VT_F64: {
        double f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    case VT_U8:
    case VT_U16:
    case VT_U32:
    case VT_U64:
        return (double)u;
    case VT_I64: {
        int64_t s;
        memcpy(&s, &u, sizeof s);
        return (double)s;
    }
    default: {
        uint64_t sign = 1ull << (8 * size - 1);
        return (double)((int64_t)(u ^ sign) - (int64_t)sign);
    }
    }
}

/* A value as an integer: false for a real type or a UInt64 over INT64_MAX. */
static bool vd_int(const vdata *v, uint64_t i, int64_t *out)
{
    if (v->type == VT_F32 || v->type == VT_F64)
        return false;
    if (v->native) {
        *out = ((const int64_t *)v->owned)[i];
        return true;
    }
    int size = vt_sizes[v->type];
    uint64_t u = le_get(v->p + i * (uint64_t)size, size);
    switch (v->type) {
    case VT_U8:
    case VT_U16:
    case VT_U32:
        *out = (int64_t)u;
        return true;
    case VT_U64:
        if (u > INT64_MAX)
            return false;
        *out = (int64_t)u;
        return true;
    case VT_I64:
        memcpy(out, &u, sizeof *out);
        return true;
    default: {
        uint64_t sign = 1ull << (8 * size - 1);
        *out = (int64_t)(u ^ sign) - (int64_t)sign;
        return true;
    }
    }
}

#define VTU_ANY UINT64_MAX

/* An ASCII array: whitespace-separated numbers in [c0, c1). */
static int vtu_ascii(vtu *V, const varr *a, uint64_t want, vdata *out)
{
    const char *d = V->d;
    uint64_t count = 0;
    for (size_t i = a->c0; i < a->c1;) {
        while (i < a->c1 && is_ws(d[i]))
            i++;
        if (i == a->c1)
            break;
        count++;
        while (i < a->c1 && !is_ws(d[i]))
            i++;
    }
    if (want != VTU_ANY && count != want)
        return vtu_fail(V, a->at, "DataArray '%.*s' holds %llu values, expected %llu", (int)a->nlen, a->name,
                        (unsigned long long)count, (unsigned long long)want);
    bool real = a->type == VT_F32 || a->type == VT_F64;
    out->type = real ? VT_F64 : VT_I64;
    out->native = true;
    out->n = count;
    if (take(V->L, V->path, count, 8) != 0)
        return -1;
    out->owned = alloc_array(count, 8);
    if (!out->owned)
        return vtu_fail(V, a->at, "DataArray '%.*s': out of memory (%llu values)", (int)a->nlen, a->name,
                        (unsigned long long)count);
    uint64_t k = 0;
    for (size_t i = a->c0; i < a->c1;) {
        while (i < a->c1 && is_ws(d[i]))
            i++;
        if (i == a->c1)
            break;
        size_t t0 = i;
        while (i < a->c1 && !is_ws(d[i]))
            i++;
        char tok[72];
        size_t len = i - t0;
        if (len >= 64)
            return vtu_fail(V, t0, "DataArray '%.*s': value %llu is longer than 63 characters", (int)a->nlen,
                            a->name, (unsigned long long)k);
        memcpy(tok, d + t0, len);
        tok[len] = 0;
        char *e;
        errno = 0;
        if (real) {
            double x = strtod(tok, &e);
            if (e == tok || *e)
                return vtu_fail(V, t0, "DataArray '%.*s': value %llu \"%s\" is not a number", (int)a->nlen, a->name,
                                (unsigned long long)k, tok);
            if (a->type == VT_F32) {
                float f;
                if (!to_float(x, &f))
                    return vtu_fail(V, t0, "DataArray '%.*s': value %llu (%g) is out of the range of Float32",
                                    (int)a->nlen, a->name, (unsigned long long)k, x);
                x = f;
            }
            ((double *)out->owned)[k++] = x;
        } else {
            bool sign = a->type == VT_I8 || a->type == VT_I16 || a->type == VT_I32 || a->type == VT_I64;
            int bits = 8 * vt_sizes[a->type];
            int64_t v = 0;
            bool ok = tok[0] == '-' ? sign : true;
            if (ok) {
                if (tok[0] == '-') {
                    long long x = strtoll(tok, &e, 10);
                    ok = e != tok && !*e && errno != ERANGE && (bits == 64 || x >= -(1ll << (bits - 1)));
                    v = x;
                } else {
                    unsigned long long x = strtoull(tok, &e, 10);
                    uint64_t max = sign ? (bits == 64 ? INT64_MAX : (1ull << (bits - 1)) - 1)
                                        : (bits == 64 ? UINT64_MAX : (1ull << bits) - 1);
                    ok = e != tok && !*e && errno != ERANGE && x <= max && x <= INT64_MAX;
                    v = ok ? (int64_t)x : 0;
                }
            }
            if (!ok)
                return vtu_fail(V, t0, "DataArray '%.*s': value %llu \"%s\" is not a %s", (int)a->nlen, a->name,
                                (unsigned long long)k, tok, vt_names[a->type]);
            ((int64_t *)out->owned)[k++] = v;
        }
    }
    return 0;
}

/* A DataArray's values, `want` of them (VTU_ANY: as many as it holds). */
static int vtu_data(vtu *V, const varr *a, uint64_t want, vdata *out)
{
    memset(out, 0, sizeof *out);
    if (a->type < 0)
        return vtu_fail(V, a->at, "DataArray '%.*s': no or unknown type (expected one of Int8 ... UInt64, Float32, "
                        "Float64)", (int)a->nlen, a->name);
    if (a->format == FMT_ASCII)
        return vtu_ascii(V, a, want, out);
    int size = vt_sizes[a->type], hb = V->hbytes;
    uint8_t hdr[8];
    uint64_t bytes;
    out->type = a->type;
    if (a->format == FMT_APPENDED && !V->appended)
        return vtu_fail(V, a->at, "DataArray '%.*s' is appended, but the file has no <AppendedData>", (int)a->nlen,
                        a->name);
    if (a->format == FMT_APPENDED && !V->app_base64) {
        size_t avail = V->app1 - V->app0;
        if (a->offset > avail || avail - a->offset < (uint64_t)hb)
            return vtu_fail(V, a->at, "DataArray '%.*s': offset %llu is past the end of the appended data (%zu "
                            "bytes)", (int)a->nlen, a->name, (unsigned long long)a->offset, avail);
        const uint8_t *p = (const uint8_t *)V->d + V->app0 + a->offset;
        bytes = le_get(p, hb);
        if (bytes > avail - a->offset - (uint64_t)hb)
            return vtu_fail(V, a->at, "DataArray '%.*s': a block of %llu bytes at offset %llu, past the end of the "
                            "appended data (%zu bytes; truncated?)", (int)a->nlen, a->name,
                            (unsigned long long)bytes, (unsigned long long)a->offset, avail);
        out->p = p + hb;
    } else {
        b64 b = { .s = V->d };
        if (a->format == FMT_BINARY) {
            b.i = a->c0;
            b.end = a->c1;
        } else {
            if (a->offset > V->app1 - V->app0)
                return vtu_fail(V, a->at, "DataArray '%.*s': offset %llu is past the end of the appended data "
                                "(%zu characters)", (int)a->nlen, a->name, (unsigned long long)a->offset,
                                V->app1 - V->app0);
            b.i = V->app0 + (size_t)a->offset;
            b.end = V->app1;
        }
        if (b64_get(&b, hdr, (uint64_t)hb) != 0)
            return vtu_fail(V, a->at, "DataArray '%.*s': bad or truncated base64 in the block header", (int)a->nlen,
                            a->name);
        bytes = le_get(hdr, hb);
        /* Every 4 characters hold 3 bytes at most: checked before allocating. */
        if (bytes / 3 > (b.end - b.i) / 4 + 1)
            return vtu_fail(V, a->at, "DataArray '%.*s': the header says %llu bytes, more than its base64 text "
                            "holds (truncated?)", (int)a->nlen, a->name, (unsigned long long)bytes);
        out->owned = malloc(bytes ? (size_t)bytes : 1);
        if (!out->owned)
            return vtu_fail(V, a->at, "DataArray '%.*s': out of memory (%llu bytes)", (int)a->nlen, a->name,
                            (unsigned long long)bytes);
        if (b64_get(&b, out->owned, bytes) != 0)
            return vtu_fail(V, a->at, "DataArray '%.*s': bad or truncated base64 data (%llu bytes expected)",
                            (int)a->nlen, a->name, (unsigned long long)bytes);
        out->p = out->owned;
    }
    if (bytes % (uint64_t)size)
        return vtu_fail(V, a->at, "DataArray '%.*s': %llu bytes, not a whole number of %s values", (int)a->nlen,
                        a->name, (unsigned long long)bytes, vt_names[a->type]);
    out->n = bytes / (uint64_t)size;
    if (want != VTU_ANY && out->n != want)
        return vtu_fail(V, a->at, "DataArray '%.*s' holds %llu values, expected %llu", (int)a->nlen, a->name,
                        (unsigned long long)out->n, (unsigned long long)want);
    return 0;
}

static void vd_free(vdata *v)
{
    free(v->owned);
    memset(v, 0, sizeof *v);
}

static bool is_int_type(int type)
{
    return type >= 0 && type < VT_F32;
}

static int load_vtu(load *L, const char *path)
{
    eddy_tetmesh *m = L->m;
    char *data;
    size_t size;
    if (read_file(L, path, "a VTK .vtu file", &data, &size) != 0)
        return -1;
    vtu V = { .L = L, .path = path, .d = data, .size = size, .hbytes = 4 };
    varr points = { 0 }, conn = { 0 }, offs = { 0 }, types = { 0 }, attr[EDDY_TET_MAX_ATTRIBUTES];
    int nattr = 0, pieces = 0;
    uint64_t np = 0, nc = 0;
    vdata dp = { 0 }, dc = { 0 }, doff = { 0 }, dt = { 0 }, da = { 0 };
    /* The open elements' names. */
    const char *stack[XML_MAX_DEPTH];
    size_t slen[XML_MAX_DEPTH];
    int depth = 0, rc = 0;
    size_t pos = 0, piece_at = 0;
    bool root = false;
    xtag t;
    int r;
    while ((r = xml_tag(&V, &pos, &t)) == 1) {
        if (t.close) {
            if (depth == 0 || slen[depth - 1] != t.nlen || memcmp(stack[depth - 1], t.name, t.nlen) != 0) {
                rc = vtu_fail(&V, t.at, "</%.*s> closes %s%.*s%s", (int)(t.nlen > 40 ? 40 : t.nlen), t.name,
                              depth ? "<" : "nothing", depth ? (int)(slen[depth - 1] > 40 ? 40 : slen[depth - 1]) : 0,
                              depth ? stack[depth - 1] : "", depth ? ">" : "");
                goto done;
            }
            depth--;
            continue;
        }
        const char *parent = depth ? stack[depth - 1] : NULL;
        size_t plen = depth ? slen[depth - 1] : 0;
        if (depth == 0) {
            if (root || !str_is(t.name, t.nlen, "VTKFile")) {
                rc = vtu_fail(&V, t.at, "%s <%.*s>: not a VTK XML file (expected <VTKFile>)",
                              root ? "a second root element" : "the root element is", (int)(t.nlen > 40 ? 40 : t.nlen),
                              t.name);
                goto done;
            }
            root = true;
            const xattr *x = xget(&t, "type");
            if (!x || !str_is(x->val, x->vlen, "UnstructuredGrid")) {
                rc = vtu_fail(&V, t.at, "VTKFile type \"%.*s\": expected UnstructuredGrid (a .vtu file)",
                              x ? (int)(x->vlen > 40 ? 40 : x->vlen) : 0, x ? x->val : "");
                goto done;
            }
            if ((x = xget(&t, "compressor"))) {
                rc = vtu_fail(&V, t.at, "compressed data (compressor \"%.*s\") is not supported: write the file "
                              "uncompressed", (int)(x->vlen > 40 ? 40 : x->vlen), x->val);
                goto done;
            }
            if ((x = xget(&t, "byte_order")) && !str_is(x->val, x->vlen, "LittleEndian")) {
                rc = vtu_fail(&V, t.at, "byte_order \"%.*s\": only LittleEndian is supported",
                              (int)(x->vlen > 40 ? 40 : x->vlen), x->val);
                goto done;
            }
            if ((x = xget(&t, "header_type"))) {
                if (str_is(x->val, x->vlen, "UInt64"))
                    V.hbytes = 8;
                else if (!str_is(x->val, x->vlen, "UInt32")) {
                    rc = vtu_fail(&V, t.at, "header_type \"%.*s\": expected UInt32 or UInt64",
                                  (int)(x->vlen > 40 ? 40 : x->vlen), x->val);
                    goto done;
                }
            }
        } else if (str_is(t.name, t.nlen, "Piece")) {
            if (!str_is(parent, plen, "UnstructuredGrid")) {
                rc = vtu_fail(&V, t.at, "a <Piece> outside <UnstructuredGrid>");
                goto done;
            }
            if (++pieces > 1) {
                rc = vtu_fail(&V, t.at, "a second <Piece>: only files of one piece are read");
                goto done;
            }
            piece_at = t.at;
            const xattr *p = xget(&t, "NumberOfPoints"), *c = xget(&t, "NumberOfCells");
            if (!p || !c || !parse_u64(p->val, p->vlen, &np) || !parse_u64(c->val, c->vlen, &nc)) {
                rc = vtu_fail(&V, t.at, "<Piece> needs NumberOfPoints=\"N\" and NumberOfCells=\"N\"");
                goto done;
            }
            if (np > EDDY_TET_MAX_ELEMENTS || nc > EDDY_TET_MAX_ELEMENTS) {
                rc = vtu_fail(&V, t.at, "<Piece>: %llu points and %llu cells, at most %u each (EDDY_TET_MAX_ELEMENTS)",
                              (unsigned long long)np, (unsigned long long)nc, (unsigned)EDDY_TET_MAX_ELEMENTS);
                goto done;
            }
        } else if (str_is(t.name, t.nlen, "DataArray") && depth >= 2 &&
                   str_is(stack[depth - 2], slen[depth - 2], "Piece")) {
            varr a;
            if ((rc = vtu_array(&V, &t, &a)) != 0)
                goto done;
            if (str_is(parent, plen, "Points")) {
                if (!points.present)
                    points = a;
            } else if (str_is(parent, plen, "Cells")) {
                varr *slot = str_is(a.name, a.nlen, "connectivity") ? &conn
                             : str_is(a.name, a.nlen, "offsets")    ? &offs
                             : str_is(a.name, a.nlen, "types")      ? &types
                                                                    : NULL;
                if (slot && slot->present) {
                    rc = vtu_fail(&V, t.at, "a second DataArray '%.*s' in <Cells>", (int)a.nlen, a.name);
                    goto done;
                }
                if (slot)
                    *slot = a;
            } else if (str_is(parent, plen, "PointData") && a.ncomp == 1 && a.type >= 0) {
                if (nattr == EDDY_TET_MAX_ATTRIBUTES) {
                    rc = vtu_fail(&V, t.at, "more than %d one-component point data arrays (EDDY_TET_MAX_ATTRIBUTES)",
                                  EDDY_TET_MAX_ATTRIBUTES);
                    goto done;
                }
                attr[nattr++] = a;
            }
        } else if (str_is(t.name, t.nlen, "AppendedData")) {
            if (depth != 1) {
                rc = vtu_fail(&V, t.at, "<AppendedData> outside <VTKFile>");
                goto done;
            }
            const xattr *x = xget(&t, "encoding");
            if (x && str_is(x->val, x->vlen, "base64"))
                V.app_base64 = true;
            else if (!x || !str_is(x->val, x->vlen, "raw")) {
                rc = vtu_fail(&V, t.at, "<AppendedData> encoding \"%.*s\": expected raw or base64",
                              x ? (int)(x->vlen > 40 ? 40 : x->vlen) : 0, x ? x->val : "");
                goto done;
            }
            size_t i = t.end;
            while (i < size && is_ws(data[i]))
                i++;
            if (t.empty || i >= size || data[i] != '_') {
                rc = vtu_fail(&V, t.at, "<AppendedData>: expected '_' before the data");
                goto done;
            }
            V.appended = true;
            V.app0 = i + 1;
            V.app1 = size;
            if (V.app_base64) {
                const char *lt = memchr(data + V.app0, '<', size - V.app0);
                V.app1 = lt ? (size_t)(lt - data) : size;
            }
            /* Raw bytes follow: the XML ends here. */
            break;
        }
        if (!t.empty) {
            if (depth == XML_MAX_DEPTH) {
                rc = vtu_fail(&V, t.at, "elements nested deeper than %d", XML_MAX_DEPTH);
                goto done;
            }
            stack[depth] = t.name;
            slen[depth++] = t.nlen;
        }
    }
    if (r < 0) {
        rc = -1;
        goto done;
    }
    if (!root) {
        rc = failf(L->err, L->n, "%s: no <VTKFile> element: not a VTK XML file", path);
        goto done;
    }
    if (r == 0 && depth > 0) {
        rc = failf(L->err, L->n, "%s: the file ends inside <%.*s> (truncated?)", path,
                   (int)(slen[depth - 1] > 40 ? 40 : slen[depth - 1]), stack[depth - 1]);
        goto done;
    }
    if (!pieces) {
        rc = failf(L->err, L->n, "%s: no <Piece> in <UnstructuredGrid>", path);
        goto done;
    }
    if (!points.present || !conn.present || !offs.present || !types.present) {
        rc = vtu_fail(&V, piece_at, "<Piece> needs <Points> with a DataArray and <Cells> with DataArrays "
                      "'connectivity', 'offsets' and 'types'");
        goto done;
    }
    /* Points. */
    if (points.type != VT_F32 && points.type != VT_F64) {
        rc = vtu_fail(&V, points.at, "Points: type %s, expected Float32 or Float64",
                      points.type >= 0 ? vt_names[points.type] : "unknown");
        goto done;
    }
    if (points.ncomp != 3) {
        rc = vtu_fail(&V, points.at, "Points: NumberOfComponents %llu, expected 3", (unsigned long long)points.ncomp);
        goto done;
    }
    if ((rc = vtu_data(&V, &points, 3 * np, &dp)) != 0)
        goto done;
    if ((rc = take(L, path, 3 * np, sizeof(float))) != 0)
        goto done;
    m->vertices = alloc_array(3 * np, sizeof(float));
    if (!m->vertices) {
        rc = failf(L->err, L->n, "%s: out of memory (%llu points)", path, (unsigned long long)np);
        goto done;
    }
    for (uint64_t i = 0; i < 3 * np; i++) {
        double x = vd_real(&dp, i);
        if (!isfinite(x) || !to_float(x, &m->vertices[i])) {
            rc = vtu_fail(&V, points.at, "point %llu: coordinate %g is not finite%s", (unsigned long long)(i / 3), x,
                          isfinite(x) ? " as a float" : "");
            goto done;
        }
    }
    m->vertex_count = (uint32_t)np;
    vd_free(&dp);
    /* Cells: offsets, types, then the connectivity the last offset ends. */
    varr *ints[3] = { &offs, &types, &conn };
    for (int i = 0; i < 3; i++)
        if (!is_int_type(ints[i]->type)) {
            rc = vtu_fail(&V, ints[i]->at, "DataArray '%.*s': type %s, expected an integer type", (int)ints[i]->nlen,
                          ints[i]->name, ints[i]->type >= 0 ? vt_names[ints[i]->type] : "unknown");
            goto done;
        }
    if ((rc = vtu_data(&V, &offs, nc, &doff)) != 0 || (rc = vtu_data(&V, &types, nc, &dt)) != 0)
        goto done;
    int64_t last = 0, prev = 0, o, ty;
    uint32_t ntets = 0;
    for (uint64_t c = 0; c < nc; c++) {
        if (!vd_int(&doff, c, &o) || o < prev) {
            rc = vtu_fail(&V, offs.at, "offsets: cell %llu ends at %lld, before it starts (%lld)",
                          (unsigned long long)c, (long long)o, (long long)prev);
            goto done;
        }
        if (!vd_int(&dt, c, &ty)) {
            rc = vtu_fail(&V, types.at, "types: cell %llu has no valid type", (unsigned long long)c);
            goto done;
        }
        if (ty == 10) {
            if (o - prev != 4) {
                rc = vtu_fail(&V, offs.at, "cell %llu is a VTK_TETRA (type 10) of %lld points, expected 4",
                              (unsigned long long)c, (long long)(o - prev));
                goto done;
            }
            ntets++;
        }
        prev = o;
    }
    last = prev;
    if (ntets > EDDY_TET_MAX_ELEMENTS) {
        rc = failf(L->err, L->n, "%s: %u tets, more than %u (EDDY_TET_MAX_ELEMENTS)", path, ntets,
                   (unsigned)EDDY_TET_MAX_ELEMENTS);
        goto done;
    }
    if ((rc = vtu_data(&V, &conn, (uint64_t)last, &dc)) != 0)
        goto done;
    if ((rc = reserve_tets(L, ntets)) != 0)
        goto done;
    prev = 0;
    for (uint64_t c = 0; c < nc; c++) {
        vd_int(&doff, c, &o);
        vd_int(&dt, c, &ty);
        if (ty == 10) {
            uint32_t k[4];
            for (int a = 0; a < 4; a++) {
                int64_t v;
                if (!vd_int(&dc, (uint64_t)prev + (uint64_t)a, &v) || v < 0 || (uint64_t)v >= np) {
                    rc = vtu_fail(&V, conn.at, "cell %llu names point %lld, out of range 0..%lld",
                                  (unsigned long long)c, (long long)v, (long long)np - 1);
                    goto done;
                }
                k[a] = (uint32_t)v;
            }
            if ((rc = add_tet(L, k, (int64_t)c, 0)) != 0)
                goto done;
        }
        prev = o;
    }
    /* Point data of one component: the attributes, in file order. */
    if (nattr) {
        if ((rc = take(L, path, np * (uint64_t)nattr, sizeof(float))) != 0)
            goto done;
        m->attributes = alloc_array(np * (uint64_t)nattr, sizeof(float));
        if (!m->attributes) {
            rc = failf(L->err, L->n, "%s: out of memory (%llu points)", path, (unsigned long long)np);
            goto done;
        }
        m->attribute_count = (uint32_t)nattr;
        for (int a = 0; a < nattr; a++) {
            if ((rc = vtu_data(&V, &attr[a], np, &da)) != 0)
                goto done;
            for (uint64_t i = 0; i < np; i++) {
                double x = vd_real(&da, i);
                if (!to_float(x, &m->attributes[i * (uint64_t)nattr + (uint64_t)a])) {
                    rc = vtu_fail(&V, attr[a].at, "DataArray '%.*s': point %llu: %g is out of the range of a float",
                                  (int)attr[a].nlen, attr[a].name, (unsigned long long)i, x);
                    goto done;
                }
            }
            vd_free(&da);
        }
    }
done:
    vd_free(&dp);
    vd_free(&dc);
    vd_free(&doff);
    vd_free(&dt);
    vd_free(&da);
    free(data);
    return rc;
}

/* ------------------------------------------------------------------------ */

static bool ext_is(const char *ext, const char *want)
{
    size_t n = strlen(want);
    if (strlen(ext) != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = ext[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != want[i])
            return false;
    }
    return true;
}

int eddy_load_tetmesh(const char *path, const eddy_tetmesh_desc *desc, eddy_tetmesh *out, char *err,
                      size_t err_size)
{
    memset(out, 0, sizeof *out);
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    const char *ext = dot && (!slash || dot > slash) ? dot + 1 : "";
    if (ext_is(ext, "node") || ext_is(ext, "ele")) {
        /* The other file of the pair: the same stem, the extension in the same case. */
        bool node = ext_is(ext, "node"), upper = ext[0] >= 'A' && ext[0] <= 'Z';
        const char *other = node ? (upper ? "ELE" : "ele") : (upper ? "NODE" : "node");
        size_t stem = (size_t)(ext - path);
        char *sib = malloc(stem + strlen(other) + 1);
        if (!sib)
            return failf(err, err_size, "%s: out of memory", path);
        memcpy(sib, path, stem);
        strcpy(sib + stem, other);
        int rc = node ? eddy_load_tetgen(path, sib, desc, out, err, err_size)
                      : eddy_load_tetgen(sib, path, desc, out, err, err_size);
        free(sib);
        return rc;
    }
    bool is_msh = ext_is(ext, "msh");
    if (!is_msh && !ext_is(ext, "vtu"))
        return failf(err, err_size, "%s: unknown extension '%s': expected .node or .ele (TetGen), .msh (Gmsh) or "
                     ".vtu (VTK)", path, ext);
    load L = { .m = out, .err = err, .n = err_size, .tpath = path, .vpath = path,
               .tword = is_msh ? "element" : "cell", .vword = is_msh ? "node" : "point",
               .vwords = is_msh ? "nodes" : "points",
               .budget = desc && desc->max_bytes ? desc->max_bytes : UINT64_MAX };
    int rc = is_msh ? load_msh(&L, path) : load_vtu(&L, path);
    if (rc == 0)
        rc = check_mesh(&L, desc);
    return finish(&L, rc);
}

/* ------------------------------------------------------------------------ */
/* Placement and derived quantities                                         */

void eddy_tetmesh_transform(eddy_tetmesh *m, double scale, const double q[4], const double t[3])
{
    /* The same placement as a surface mesh's: the vertices seen as one. */
    eddy_mesh view = { .vertices = m->vertices, .vertex_count = m->vertex_count };
    eddy_mesh_transform(&view, scale, q, t);
}

double eddy_tet_volume(const eddy_tetmesh *m, uint32_t t)
{
    if (t >= m->tet_count)
        return 0;
    const uint32_t *k = m->tets + 4 * (size_t)t;
    const float *x0 = m->vertices + 3 * (size_t)k[0], *x1 = m->vertices + 3 * (size_t)k[1],
                *x2 = m->vertices + 3 * (size_t)k[2], *x3 = m->vertices + 3 * (size_t)k[3];
    double a[3], b[3], c[3];
    for (int i = 0; i < 3; i++) {
        a[i] = (double)x1[i] - x0[i];
        b[i] = (double)x2[i] - x0[i];
        c[i] = (double)x3[i] - x0[i];
    }
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) +
            a[2] * (b[0] * c[1] - b[1] * c[0])) / 6.0;
}

double eddy_tetmesh_masses(const eddy_tetmesh *m, double density, float *mass)
{
    /* Accumulated in double; should that memory be missing, in the floats. */
    double *acc = calloc(m->vertex_count ? m->vertex_count : 1, sizeof *acc);
    if (!acc)
        memset(mass, 0, (size_t)m->vertex_count * sizeof *mass);
    double total = 0;
    for (uint32_t t = 0; t < m->tet_count; t++) {
        double q = density * eddy_tet_volume(m, t) / 4.0;
        for (int a = 0; a < 4; a++) {
            uint32_t v = m->tets[4 * (size_t)t + a];
            if (acc)
                acc[v] += q;
            else
                mass[v] = (float)(mass[v] + q);
        }
        total += 4.0 * q;
    }
    if (acc) {
        for (uint32_t v = 0; v < m->vertex_count; v++)
            mass[v] = (float)acc[v];
        free(acc);
    }
    return total;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int64_t eddy_tetmesh_edges(const eddy_tetmesh *m, uint32_t **edges)
{
    static const int pair[6][2] = { { 0, 1 }, { 0, 2 }, { 0, 3 }, { 1, 2 }, { 1, 3 }, { 2, 3 } };
    *edges = NULL;
    uint64_t n = 6ull * m->tet_count;
    if (n == 0)
        return 0;
    uint64_t *key = alloc_array(n, sizeof *key);
    if (!key)
        return -1;
    for (uint64_t t = 0; t < m->tet_count; t++)
        for (int e = 0; e < 6; e++) {
            uint64_t a = m->tets[4 * t + (uint64_t)pair[e][0]], b = m->tets[4 * t + (uint64_t)pair[e][1]];
            key[6 * t + (uint64_t)e] = a < b ? a << 32 | b : b << 32 | a;
        }
    qsort(key, (size_t)n, sizeof *key, cmp_u64);
    uint64_t u = 0;
    for (uint64_t i = 0; i < n; i++)
        if (i == 0 || key[i] != key[i - 1])
            key[u++] = key[i];
    uint32_t *e = alloc_array(2 * u, sizeof *e);
    if (!e) {
        free(key);
        return -1;
    }
    for (uint64_t i = 0; i < u; i++) {
        e[2 * i] = (uint32_t)(key[i] >> 32);
        e[2 * i + 1] = (uint32_t)key[i];
    }
    free(key);
    *edges = e;
    return (int64_t)u;
}

/* The outward faces of a positively oriented tet (a, b, c, d). */
static const int tet_face[4][3] = { { 1, 2, 3 }, { 0, 3, 2 }, { 0, 1, 3 }, { 0, 2, 1 } };

typedef struct face_key {
    uint32_t v[3]; /* sorted */
    uint32_t id;   /* tet << 2 | face */
} face_key;

static int cmp_face_key(const void *a, const void *b)
{
    const face_key *p = a, *q = b;
    for (int i = 0; i < 3; i++)
        if (p->v[i] != q->v[i])
            return p->v[i] < q->v[i] ? -1 : 1;
    return 0;
}

int64_t eddy_tet_neighbours(const uint32_t *tets, uint32_t tet_count, uint32_t *neighbours)
{
    uint64_t n = 4ull * tet_count;
    if (n == 0)
        return 0;
    if (tet_count > (UINT32_MAX >> 2))
        return -1;
    face_key *key = alloc_array(n, sizeof *key);
    if (!key)
        return -1;
    for (uint64_t t = 0; t < tet_count; t++)
        for (int f = 0; f < 4; f++) {
            face_key *k = &key[4 * t + (uint64_t)f];
            for (int i = 0; i < 3; i++)
                k->v[i] = tets[4 * t + (uint64_t)tet_face[f][i]];
            /* Sort three. */
            if (k->v[0] > k->v[1]) { uint32_t s = k->v[0]; k->v[0] = k->v[1]; k->v[1] = s; }
            if (k->v[1] > k->v[2]) { uint32_t s = k->v[1]; k->v[1] = k->v[2]; k->v[2] = s; }
            if (k->v[0] > k->v[1]) { uint32_t s = k->v[0]; k->v[0] = k->v[1]; k->v[1] = s; }
            k->id = (uint32_t)(4 * t + (uint64_t)f);
        }
    /* Grouping only: a face's two sides pair up whichever comes first. */
    qsort(key, (size_t)n, sizeof *key, cmp_face_key);
    int64_t boundary = 0;
    for (uint64_t i = 0; i < n;) {
        uint64_t j = i + 1;
        while (j < n && cmp_face_key(&key[i], &key[j]) == 0)
            j++;
        if (j - i == 1) {
            neighbours[key[i].id] = EDDY_TET_BOUNDARY;
            boundary++;
        } else if (j - i == 2) {
            neighbours[key[i].id] = key[i + 1].id;
            neighbours[key[i + 1].id] = key[i].id;
        } else {
            for (uint64_t k = i; k < j; k++)
                neighbours[key[k].id] = EDDY_TET_SHARED;
        }
        i = j;
    }
    free(key);
    return boundary;
}

int64_t eddy_tetmesh_boundary(const eddy_tetmesh *m, uint32_t **triangles)
{
    *triangles = NULL;
    if (m->tet_count == 0)
        return 0;
    uint32_t *nb = alloc_array(4ull * m->tet_count, sizeof *nb);
    int64_t count = nb ? eddy_tet_neighbours(m->tets, m->tet_count, nb) : -1;
    uint32_t *tri = count >= 0 ? alloc_array(3 * (uint64_t)count, sizeof *tri) : NULL;
    if (!tri) {
        free(nb);
        return -1;
    }
    uint64_t o = 0;
    for (uint64_t id = 0; id < 4ull * m->tet_count; id++)
        if (nb[id] == EDDY_TET_BOUNDARY) {
            for (int i = 0; i < 3; i++)
                tri[3 * o + (uint64_t)i] = m->tets[4 * (id >> 2) + (uint64_t)tet_face[id & 3][i]];
            o++;
        }
    free(nb);
    *triangles = tri;
    return count;
}
