/* Tetrahedral meshes (eddy_tetmesh.h), the shared part: reading a file
 * whole, text lines and tokens, what a loader builds, the checks every
 * loaded mesh goes through, the entry points that pick a reader by the
 * path's extension, placement, lumped masses, edges and the boundary. The
 * readers: tetmesh_tetgen.c (TetGen .node/.ele), tetmesh_msh.c (Gmsh .msh,
 * ASCII 2.2 and 4.1) and tetmesh_vtu.c (VTK .vtu, ASCII, base64 binary,
 * appended raw or base64); tetmesh_internal.h lies between them.
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
#include "tetmesh_internal.h"

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

/* count * elem bytes, or NULL when that overflows or memory is out. */
void *tet_alloc_array(uint64_t count, size_t elem)
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

/* ------------------------------------------------------------------------ */
/* Text lines and tokens                                                    */

/* The next line with content, or NULL at the end of the file (*rc 0) or on
 * an error (*rc -1): a line over `max` characters, a NUL byte. */
char *tet_next_line(tet_text *t, size_t max, int *rc, char *err, size_t n)
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

bool tet_at_end(char *s)
{
    return !*skip_ws(s);
}

/* An integer token (then a space or the end of the line). Out of range
 * values come back clamped (strtoll), so range checks refuse them. */
bool tet_get_ll(char **p, long long *v)
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
bool tet_get_d(char **p, double *v)
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
bool tet_to_float(double x, float *f)
{
    if (isfinite(x) && fabs(x) > FLT_MAX)
        return false;
    *f = (float)x;
    return true;
}

/* ------------------------------------------------------------------------ */
/* What a loader builds, and the checks                                     */

/* Takes count * elem bytes of the budget before they are allocated; -1 with
 * a message naming the budget when they do not fit. */
int tet_take(tet_load *L, const char *path, uint64_t count, uint64_t elem)
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
int tet_read_file(tet_load *L, const char *path, const char *what, char **data, size_t *size)
{
    uint64_t left = L->budget - L->used;
    int rc = read_whole(path, what, data, size, L->err, L->n, &left);
    L->used = L->budget - left;
    return rc;
}

static long long vname(const tet_load *L, uint32_t v)
{
    return L->vnum ? (long long)L->vnum[v] : (long long)(L->vbase + v);
}

static int tet_fail(const tet_load *L, uint32_t t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int tet_fail(const tet_load *L, uint32_t t, const char *fmt, ...)
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
int tet_reserve(tet_load *L, uint32_t cap)
{
    if (cap <= L->tcap)
        return 0;
    if (tet_take(L, L->tpath, cap - L->tcap, 4 * sizeof(uint32_t) + sizeof(int64_t) + sizeof(uint32_t)) != 0)
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

int tet_add(tet_load *L, const uint32_t k[4], int64_t num, uint32_t line)
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
        if (tet_reserve(L, cap) != 0)
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
static int check_mesh(tet_load *L, const eddy_tetmesh_desc *desc)
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
    if (tet_take(L, L->tpath, m->tet_count, sizeof(tet_key)) != 0)
        return -1;
    tet_key *keys = tet_alloc_array(m->tet_count, sizeof *keys);
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
    if (tet_take(L, L->vpath, m->vertex_count, 1) != 0)
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
static int finish(tet_load *L, int rc)
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
/* The entry points                                                         */

int eddy_load_tetgen(const char *node_path, const char *ele_path, const eddy_tetmesh_desc *desc,
                     eddy_tetmesh *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    eddy_tetmesh_desc taken;
    if (mesh_desc_read(desc, sizeof taken, "eddy_tetmesh_desc", &taken, err, err_size))
        return -1;
    desc = &taken;
    tet_load L = { .m = out, .err = err, .n = err_size, .tpath = ele_path, .vpath = node_path, .tword = "tet",
                   .vword = "vertex", .vwords = "vertices",
                   .budget = desc && desc->max_bytes ? desc->max_bytes : UINT64_MAX };
    int rc = tet_load_tetgen(&L, node_path, ele_path);
    if (rc == 0)
        rc = check_mesh(&L, desc);
    return finish(&L, rc);
}

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
    eddy_tetmesh_desc taken;
    if (mesh_desc_read(desc, sizeof taken, "eddy_tetmesh_desc", &taken, err, err_size))
        return -1;
    desc = &taken;
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
    tet_load L = { .m = out, .err = err, .n = err_size, .tpath = path, .vpath = path,
               .tword = is_msh ? "element" : "cell", .vword = is_msh ? "node" : "point",
               .vwords = is_msh ? "nodes" : "points",
               .budget = desc && desc->max_bytes ? desc->max_bytes : UINT64_MAX };
    int rc = is_msh ? tet_load_msh(&L, path) : tet_load_vtu(&L, path);
    if (rc == 0)
        rc = check_mesh(&L, desc);
    return finish(&L, rc);
}

/* ------------------------------------------------------------------------ */
/* Placement and derived quantities                                         */
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
    uint64_t *key = tet_alloc_array(n, sizeof *key);
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
    uint32_t *e = tet_alloc_array(2 * u, sizeof *e);
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
    face_key *key = tet_alloc_array(n, sizeof *key);
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
    uint32_t *nb = tet_alloc_array(4ull * m->tet_count, sizeof *nb);
    int64_t count = nb ? eddy_tet_neighbours(m->tets, m->tet_count, nb) : -1;
    uint32_t *tri = count >= 0 ? tet_alloc_array(3 * (uint64_t)count, sizeof *tri) : NULL;
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
