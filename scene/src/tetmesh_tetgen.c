/* TetGen's .node/.ele pair: the .node file's points (coordinates, up to
 * EDDY_TET_MAX_ATTRIBUTES attributes, a boundary marker), then the .ele
 * file's tets, whose vertex indices count from the first point's index (0
 * or 1). '#' comments and blank lines anywhere; indices run consecutively;
 * of 10-node tets the first four nodes are kept. tetmesh.c checks the mesh
 * and frees what is left. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mesh_err.h"
#include "tetmesh_internal.h"

#include <math.h>
#include <stdlib.h>

static int load_node(tet_load *L, const char *path)
{
    eddy_tetmesh *m = L->m;
    char *data;
    size_t size;
    if (tet_read_file(L, path, "a TetGen .node file", &data, &size) != 0)
        return -1;
    tet_text t = { path, data, data + size, 0, true };
    int rc = 0;
    char *s = tet_next_line(&t, TET_LINE_MAX, &rc, L->err, L->n);
    long long np = 0, dim = 0, na = 0, nm = 0;
    if (!s) {
        if (rc == 0)
            rc = failf(L->err, L->n, "%s: no header: expected '<#points> 3 <#attributes> <#boundary markers>'",
                       path);
        goto done;
    }
    if (!tet_get_ll(&s, &np) || !tet_get_ll(&s, &dim) || (!tet_at_end(s) && !tet_get_ll(&s, &na)) ||
        (!tet_at_end(s) && !tet_get_ll(&s, &nm)) || !tet_at_end(s)) {
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
    if ((rc = tet_take(L, path, (uint64_t)np, 4 * (3 + (uint64_t)na + (nm ? 1 : 0)))) != 0)
        goto done;
    m->vertices = tet_alloc_array((uint64_t)np * 3, sizeof(float));
    m->attributes = na ? tet_alloc_array((uint64_t)np * (uint64_t)na, sizeof(float)) : NULL;
    m->markers = nm ? tet_alloc_array((uint64_t)np, sizeof(int32_t)) : NULL;
    if (!m->vertices || (na && !m->attributes) || (nm && !m->markers)) {
        rc = failf(L->err, L->n, "%s: out of memory (%lld points)", path, np);
        goto done;
    }
    m->attribute_count = (uint32_t)na;
    for (long long i = 0; i < np; i++) {
        s = tet_next_line(&t, TET_LINE_MAX, &rc, L->err, L->n);
        if (!s) {
            if (rc == 0)
                rc = failf(L->err, L->n, "%s:%u: the file ends after %lld of the %lld points the header "
                           "declares (truncated?)", path, t.line, i, np);
            goto done;
        }
        long long idx;
        if (!tet_get_ll(&s, &idx)) {
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
            if (!tet_get_d(&s, &x)) {
                rc = failf(L->err, L->n, "%s:%u: point %lld needs three coordinates", path, t.line, idx);
                goto done;
            }
            if (!isfinite(x) || !tet_to_float(x, &m->vertices[3 * i + a])) {
                rc = failf(L->err, L->n, "%s:%u: point %lld: coordinate %g is not finite%s", path, t.line, idx, x,
                           isfinite(x) ? " as a float" : "");
                goto done;
            }
        }
        for (long long a = 0; a < na; a++) {
            double x;
            if (!tet_get_d(&s, &x)) {
                rc = failf(L->err, L->n, "%s:%u: point %lld needs %lld attributes", path, t.line, idx, na);
                goto done;
            }
            if (!tet_to_float(x, &m->attributes[i * na + a])) {
                rc = failf(L->err, L->n, "%s:%u: point %lld: attribute %g is out of the range of a float", path,
                           t.line, idx, x);
                goto done;
            }
        }
        if (nm) {
            long long mk;
            if (!tet_get_ll(&s, &mk) || mk < INT32_MIN || mk > INT32_MAX) {
                rc = failf(L->err, L->n, "%s:%u: point %lld needs a boundary marker (a 32-bit integer)", path,
                           t.line, idx);
                goto done;
            }
            m->markers[i] = (int32_t)mk;
        }
        if (!tet_at_end(s)) {
            rc = failf(L->err, L->n, "%s:%u: point %lld: more numbers than the header's 3 coordinates, %lld "
                       "attributes and %lld markers", path, t.line, idx, na, nm);
            goto done;
        }
    }
    m->vertex_count = (uint32_t)np;
    s = tet_next_line(&t, TET_LINE_MAX, &rc, L->err, L->n);
    if (s)
        rc = failf(L->err, L->n, "%s:%u: more points than the %lld the header declares", path, t.line, np);
done:
    free(data);
    return rc;
}

static int load_ele(tet_load *L, const char *path)
{
    eddy_tetmesh *m = L->m;
    char *data;
    size_t size;
    if (tet_read_file(L, path, "a TetGen .ele file", &data, &size) != 0)
        return -1;
    tet_text t = { path, data, data + size, 0, true };
    int rc = 0;
    char *s = tet_next_line(&t, TET_LINE_MAX, &rc, L->err, L->n);
    long long nt = 0, npt = 0, nr = 0;
    if (!s) {
        if (rc == 0)
            rc = failf(L->err, L->n, "%s: no header: expected '<#tets> <nodes per tet 4|10> <#region attributes>'",
                       path);
        goto done;
    }
    if (!tet_get_ll(&s, &nt) || !tet_get_ll(&s, &npt) || (!tet_at_end(s) && !tet_get_ll(&s, &nr)) || !tet_at_end(s)) {
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
    if ((rc = tet_reserve(L, (uint32_t)nt)) != 0)
        goto done;
    long long base = 0, lo = L->vbase, hi = L->vbase + (long long)m->vertex_count - 1;
    for (long long i = 0; i < nt; i++) {
        s = tet_next_line(&t, TET_LINE_MAX, &rc, L->err, L->n);
        if (!s) {
            if (rc == 0)
                rc = failf(L->err, L->n, "%s:%u: the file ends after %lld of the %lld tets the header declares "
                           "(truncated?)", path, t.line, i, nt);
            goto done;
        }
        long long idx;
        if (!tet_get_ll(&s, &idx)) {
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
            if (!tet_get_ll(&s, &v)) {
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
            if (!tet_get_d(&s, &x)) {
                rc = failf(L->err, L->n, "%s:%u: tet %lld needs %lld region attributes", path, t.line, idx, nr);
                goto done;
            }
        }
        if (!tet_at_end(s)) {
            rc = failf(L->err, L->n, "%s:%u: tet %lld: more numbers than the header's %lld vertices and %lld region "
                       "attributes", path, t.line, idx, npt, nr);
            goto done;
        }
        if ((rc = tet_add(L, k, idx, t.line)) != 0)
            goto done;
    }
    s = tet_next_line(&t, TET_LINE_MAX, &rc, L->err, L->n);
    if (s)
        rc = failf(L->err, L->n, "%s:%u: more tets than the %lld the header declares", path, t.line, nt);
done:
    free(data);
    return rc;
}

int tet_load_tetgen(tet_load *L, const char *node_path, const char *ele_path)
{
    int rc = load_node(L, node_path);
    if (rc == 0)
        rc = load_ele(L, ele_path);
    return rc;
}
