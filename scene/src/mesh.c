/* Meshes and the voxeliser (eddy_mesh.h). */
#include "eddy/eddy_mesh.h"
#include "mesh_err.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void eddy_free_mesh(eddy_mesh *m)
{
    if (!m)
        return;
    free(m->vertices);
    free(m->indices);
    memset(m, 0, sizeof *m);
}

static bool grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    uint32_t c = *cap ? *cap : 1024;
    while (c < need) {
        if (c > UINT32_MAX / 2)
            return false;
        c *= 2;
    }
    void *q = realloc(*p, (size_t)c * elem);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

int eddy_load_obj(const char *path, eddy_mesh *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    /* Devices, pipes and folders are refused before they are opened: /dev/zero
     * never ends and a FIFO blocks the open itself. */
    struct stat st;
    if (stat(path, &st) != 0)
        return failf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return failf(err, err_size, "%s: not a regular file (expected an OBJ file)", path);
    if ((uint64_t)st.st_size > EDDY_OBJ_MAX_BYTES)
        return failf(err, err_size, "%s: %llu bytes, over the OBJ limit of %llu bytes (EDDY_OBJ_MAX_BYTES)",
                     path, (unsigned long long)st.st_size, (unsigned long long)EDDY_OBJ_MAX_BYTES);
    FILE *f = fopen(path, "rb");
    if (!f)
        return failf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
    char line[4096];
    uint32_t vcap = 0, icap = 0, lineno = 0;
    uint64_t read = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        /* What fgets consumed, by the file position: strlen stops at a NUL. */
        long pos = ftell(f);
        uint64_t consumed = pos >= 0 && (uint64_t)pos >= read ? (uint64_t)pos - read : strlen(line);
        read += consumed;
        if (read > EDDY_OBJ_MAX_BYTES) {
            rc = failf(err, err_size, "%s: longer than the OBJ limit of %llu bytes (EDDY_OBJ_MAX_BYTES)",
                       path, (unsigned long long)EDDY_OBJ_MAX_BYTES);
            break;
        }
        if (consumed > sizeof line - 1 || memchr(line, 0, (size_t)consumed)) {
            rc = failf(err, err_size, "%s:%u: a NUL byte: not a text file", path, lineno);
            break;
        }
        if (consumed == sizeof line - 1 && line[consumed - 1] != '\n' && !feof(f)) {
            rc = failf(err, err_size, "%s:%u: line longer than %zu characters", path, lineno, sizeof line - 2);
            break;
        }
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (p[0] == 'v' && (p[1] == ' ' || p[1] == '\t')) {
            double x[3];
            char *q = p + 2, *end;
            for (int a = 0; a < 3 && rc == 0; a++) {
                x[a] = strtod(q, &end);
                if (end == q)
                    rc = failf(err, err_size, "%s:%u: a vertex needs three numbers", path, lineno);
                else if (!isfinite(x[a]))
                    rc = failf(err, err_size, "%s:%u: vertex coordinate %g is not finite", path, lineno, x[a]);
                q = end;
            }
            if (rc == 0 && out->vertex_count >= EDDY_OBJ_MAX_ELEMENTS)
                rc = failf(err, err_size, "%s:%u: more than %u vertices (EDDY_OBJ_MAX_ELEMENTS)", path, lineno,
                           (unsigned)EDDY_OBJ_MAX_ELEMENTS);
            if (rc == 0 && !grow((void **)&out->vertices, &vcap, 3 * (out->vertex_count + 1), sizeof(float)))
                rc = failf(err, err_size, "%s: out of memory", path);
            if (rc == 0) {
                for (int a = 0; a < 3; a++)
                    out->vertices[3 * out->vertex_count + a] = (float)x[a];
                out->vertex_count++;
            }
        } else if (p[0] == 'f' && (p[1] == ' ' || p[1] == '\t')) {
            long long idx[3];
            int k = 0;
            char *q = p + 2;
            for (;;) {
                while (*q == ' ' || *q == '\t')
                    q++;
                if (!*q || *q == '\n' || *q == '\r' || *q == '#')
                    break;
                char *end;
                errno = 0;
                long long v = strtoll(q, &end, 10);
                if (end == q) {
                    rc = failf(err, err_size, "%s:%u: a face index is not a number", path, lineno);
                    break;
                }
                while (*end && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r')
                    end++; /* skip /t/n */
                q = end;
                /* |v| is checked against the count first, so nothing below overflows. */
                bool fits = errno != ERANGE && v != 0 && (v > 0 ? v <= (long long)out->vertex_count
                                                                : -v <= (long long)out->vertex_count);
                long long vi = !fits ? -1 : v < 0 ? (long long)out->vertex_count + v : v - 1;
                if (!fits) {
                    rc = failf(err, err_size, "%s:%u: face index %lld names no vertex (there are %u so far)",
                               path, lineno, v, out->vertex_count);
                    break;
                }
                if (k < 2) {
                    idx[k++] = vi;
                    continue;
                }
                idx[2] = vi;
                if (out->triangle_count >= EDDY_OBJ_MAX_ELEMENTS) {
                    rc = failf(err, err_size, "%s:%u: more than %u triangles (EDDY_OBJ_MAX_ELEMENTS)", path,
                               lineno, (unsigned)EDDY_OBJ_MAX_ELEMENTS);
                    break;
                }
                if (!grow((void **)&out->indices, &icap, 3 * (out->triangle_count + 1), sizeof(uint32_t))) {
                    rc = failf(err, err_size, "%s: out of memory", path);
                    break;
                }
                for (int a = 0; a < 3; a++)
                    out->indices[3 * out->triangle_count + a] = (uint32_t)idx[a];
                out->triangle_count++;
                idx[1] = idx[2]; /* fan */
                k = 3;
            }
            if (rc == 0 && k < 3)
                rc = failf(err, err_size, "%s:%u: a face needs at least three vertices", path, lineno);
        }
    }
    if (rc == 0 && ferror(f))
        rc = failf(err, err_size, "%s: read error", path);
    fclose(f);
    if (rc == 0 && out->triangle_count == 0)
        rc = failf(err, err_size, "%s: no faces (f lines) found", path);
    if (rc != 0)
        eddy_free_mesh(out);
    return rc;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int eddy_mesh_check(const eddy_mesh *m, double *volume, char *err, size_t err_size)
{
    if (!m || !m->triangle_count || !m->vertices)
        return failf(err, err_size, "the mesh has no triangles");
    for (uint32_t i = 0; i < 3 * m->vertex_count; i++)
        if (!isfinite(m->vertices[i]))
            return failf(err, err_size, "vertex %u is not finite", i / 3 + 1);
    if (m->triangle_count > EDDY_OBJ_MAX_ELEMENTS)
        return failf(err, err_size, "%u triangles, more than the %u a mesh may have (EDDY_OBJ_MAX_ELEMENTS)",
                     m->triangle_count, (unsigned)EDDY_OBJ_MAX_ELEMENTS);
    uint64_t ne = 3ull * m->triangle_count;
    /* Each directed edge a->b as (min, max, direction bit): a closed,
     * consistently wound mesh has every (min, max) exactly twice, once in
     * each direction. */
    uint64_t *e = malloc(ne * sizeof *e);
    if (!e)
        return failf(err, err_size, "out of memory");
    for (uint64_t t = 0; t < m->triangle_count; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t a = m->indices[3 * t + k], b = m->indices[3 * t + (k + 1) % 3];
            if (a >= m->vertex_count || b >= m->vertex_count) {
                free(e);
                return failf(err, err_size, "triangle %llu names vertex %u, past the last (%u)",
                             (unsigned long long)t + 1, (a > b ? a : b) + 1, m->vertex_count);
            }
            if (a == b) {
                free(e);
                return failf(err, err_size, "triangle %llu is degenerate (vertex %u twice)",
                             (unsigned long long)t + 1, a + 1);
            }
            uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
            e[3 * t + k] = (lo << 33) | (hi << 1) | (a < b ? 0u : 1u);
        }
    qsort(e, ne, sizeof *e, cmp_u64);
    int rc = 0;
    for (uint64_t i = 0; i < ne && rc == 0;) {
        uint64_t key = e[i] >> 1, j = i;
        while (j < ne && e[j] >> 1 == key)
            j++;
        uint32_t a = (uint32_t)(key >> 32) + 1, b = (uint32_t)(key & 0xffffffffu) + 1;
        if (j - i == 1)
            rc = failf(err, err_size, "the mesh is open: edge %u-%u belongs to one triangle only "
                       "(a solid needs a closed surface)", a, b);
        else if (j - i > 2)
            rc = failf(err, err_size, "the mesh is not manifold: edge %u-%u belongs to %llu triangles",
                       a, b, (unsigned long long)(j - i));
        else if ((e[i] & 1) == (e[i + 1] & 1))
            rc = failf(err, err_size, "the mesh is not consistently wound: the two triangles at edge "
                       "%u-%u run it the same way", a, b);
        i = j;
    }
    free(e);
    if (rc)
        return rc;
    double v = 0;
    for (uint32_t t = 0; t < m->triangle_count; t++) {
        const float *p = m->vertices + 3 * m->indices[3 * t], *q = m->vertices + 3 * m->indices[3 * t + 1],
                    *r = m->vertices + 3 * m->indices[3 * t + 2];
        v += ((double)p[0] * ((double)q[1] * r[2] - (double)q[2] * r[1]) -
              (double)p[1] * ((double)q[0] * r[2] - (double)q[2] * r[0]) +
              (double)p[2] * ((double)q[0] * r[1] - (double)q[1] * r[0])) / 6.0;
    }
    if (volume)
        *volume = v;
    if (!(v > 0))
        return failf(err, err_size, "the mesh is inside out: its enclosed volume is %g (triangles "
                     "must run counter-clockwise seen from outside)", v);
    return 0;
}

void eddy_mesh_transform(eddy_mesh *m, double scale, const double q[4], const double t[3])
{
    double R[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    if (q) {
        double w = q[0], x = q[1], y = q[2], z = q[3];
        double R2[9] = { 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                         2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                         2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y) };
        memcpy(R, R2, sizeof R);
    }
    for (uint32_t i = 0; i < m->vertex_count; i++) {
        double p[3] = { m->vertices[3 * i], m->vertices[3 * i + 1], m->vertices[3 * i + 2] };
        for (int a = 0; a < 3; a++)
            m->vertices[3 * i + a] = (float)(scale * (R[3 * a] * p[0] + R[3 * a + 1] * p[1] + R[3 * a + 2] * p[2]) +
                                             (t ? t[a] : 0));
    }
}

typedef struct row_hit {
    uint64_t row; /* k * n[1] + j */
    double x;     /* where the row's ray crosses a triangle */
} row_hit;

static int cmp_hit(const void *a, const void *b)
{
    const row_hit *p = a, *q = b;
    if (p->row != q->row)
        return p->row < q->row ? -1 : 1;
    return p->x < q->x ? -1 : p->x > q->x;
}

/* Host bytes the voxeliser holds now, against the budget, before each allocation. */
static bool within(uint64_t *used, uint64_t more, uint64_t budget)
{
    if (more > budget || *used > budget - more)
        return false;
    *used += more;
    return true;
}

/* The voxel grid: n voxels of side d per axis from the corner org. */
typedef struct voxel_grid {
    double d, org[3];
    uint64_t n[3];
} voxel_grid;

/* Every crossing of a row (a ray along x through voxel centres) with the
 * mesh's triangles, into one list (*hits, *hit_n) sorted by (row, x)
 * afterwards: memory follows the crossings, not the rows, and is taken
 * from the budget. */
static int row_crossings(const eddy_mesh *m, const voxel_grid *g, uint64_t *used, uint64_t budget, row_hit **hits_out,
                         uint64_t *hit_n_out, char *err, size_t err_size)
{
    const double d = g->d, *org = g->org;
    const uint64_t *n = g->n;
    row_hit *hits = NULL;
    uint64_t hit_n = 0, hit_cap = 0;
    /* A fixed nudge off the lattice, so that no row runs exactly through a
     * vertex or an edge of a mesh made on a lattice too. */
    double ey = 1.0e-4 * d * 0.7548776662, ez = 1.0e-4 * d * 0.5698402910;
    int rc = 0;
    for (uint32_t t = 0; t < m->triangle_count && rc == 0; t++) {
        const float *P[3] = { m->vertices + 3 * m->indices[3 * t], m->vertices + 3 * m->indices[3 * t + 1],
                              m->vertices + 3 * m->indices[3 * t + 2] };
        double ymin = fmin(P[0][1], fmin(P[1][1], P[2][1])), ymax = fmax(P[0][1], fmax(P[1][1], P[2][1]));
        double zmin = fmin(P[0][2], fmin(P[1][2], P[2][2])), zmax = fmax(P[0][2], fmax(P[1][2], P[2][2]));
        /* Inside the bounding box, so within [-1, n] before the clamp. */
        double fj0 = ceil((ymin - org[1] - ey) / d - 0.5), fj1 = floor((ymax - org[1] - ey) / d - 0.5);
        double fk0 = ceil((zmin - org[2] - ez) / d - 0.5), fk1 = floor((zmax - org[2] - ez) / d - 0.5);
        int64_t j0 = fj0 < 0 ? 0 : (int64_t)fj0, k0 = fk0 < 0 ? 0 : (int64_t)fk0;
        int64_t j1 = fj1 >= (double)n[1] ? (int64_t)n[1] - 1 : (int64_t)fj1;
        int64_t k1 = fk1 >= (double)n[2] ? (int64_t)n[2] - 1 : (int64_t)fk1;
        for (int64_t k = k0; k <= k1 && rc == 0; k++)
            for (int64_t j = j0; j <= j1; j++) {
                double y = org[1] + d * ((double)j + 0.5) + ey, z = org[2] + d * ((double)k + 0.5) + ez;
                /* The line {y, z} against the triangle, in the yz plane. */
                double w[3];
                for (int v = 0; v < 3; v++) {
                    const float *a = P[(v + 1) % 3], *b = P[(v + 2) % 3];
                    w[v] = ((double)b[1] - a[1]) * (z - a[2]) - ((double)b[2] - a[2]) * (y - a[1]);
                }
                bool pos = w[0] >= 0 && w[1] >= 0 && w[2] >= 0, neg = w[0] <= 0 && w[1] <= 0 && w[2] <= 0;
                double sum = w[0] + w[1] + w[2];
                if ((!pos && !neg) || sum == 0)
                    continue;
                if (hit_n == hit_cap) {
                    uint64_t cap = hit_cap ? 2 * hit_cap : 4096;
                    row_hit *grown = NULL;
                    if (within(used, (cap - hit_cap) * sizeof *hits, budget))
                        grown = realloc(hits, cap * sizeof *hits);
                    if (!grown) {
                        rc = failf(err, err_size, "diameter %g m: the mesh's %llu+ row crossings are over the "
                                   "voxeliser's host memory budget of %llu bytes (or out of memory)", d,
                                   (unsigned long long)hit_n, (unsigned long long)budget);
                        break;
                    }
                    hits = grown;
                    hit_cap = cap;
                }
                double x = (w[0] * P[0][0] + w[1] * P[1][0] + w[2] * P[2][0]) / sum;
                hits[hit_n++] = (row_hit){ (uint64_t)k * n[1] + (uint64_t)j, x };
            }
    }
    if (rc == 0 && hit_n)
        qsort(hits, hit_n, sizeof *hits, cmp_hit);
    *hits_out = hits;
    *hit_n_out = hit_n;
    return rc;
}

/* Each row's voxels between an odd and the next even crossing are inside
 * (1 in inside[]); *count of them. A row crossed an odd number of times
 * means the mesh is not closed. */
static int fill_rows(const voxel_grid *g, const row_hit *hits, uint64_t hit_n, uint8_t *inside, uint64_t *count,
                     char *err, size_t err_size)
{
    const uint64_t *n = g->n;
    for (uint64_t h = 0; h < hit_n;) {
        uint64_t r = hits[h].row, e = h;
        while (e < hit_n && hits[e].row == r)
            e++;
        if ((e - h) & 1)
            return failf(err, err_size, "a ray crosses the mesh an odd number of times; it is not closed");
        uint64_t c = h;
        for (uint64_t i = 0; i < n[0]; i++) {
            double x = g->org[0] + g->d * ((double)i + 0.5);
            while (c < e && hits[c].x < x)
                c++;
            if ((c - h) & 1) {
                inside[r * n[0] + i] = 1;
                ++*count;
            }
        }
        h = e;
    }
    return 0;
}

/* The inside voxels on the surface (a face on the grid's edge or on an
 * outside voxel) marked 2 as well; returns how many. */
static uint64_t mark_surface(const voxel_grid *g, uint8_t *inside)
{
    const uint64_t *n = g->n;
    uint64_t kept = 0;
    for (uint64_t k = 0; k < n[2]; k++)
        for (uint64_t j = 0; j < n[1]; j++)
            for (uint64_t i = 0; i < n[0]; i++) {
                uint64_t id = (k * n[1] + j) * n[0] + i;
                if (!inside[id])
                    continue;
                bool edge = i == 0 || i + 1 == n[0] || j == 0 || j + 1 == n[1] || k == 0 || k + 1 == n[2] ||
                            !(inside[id - 1] & 1) || !(inside[id + 1] & 1) || !(inside[id - n[0]] & 1) ||
                            !(inside[id + n[0]] & 1) || !(inside[id - n[0] * n[1]] & 1) ||
                            !(inside[id + n[0] * n[1]] & 1);
                inside[id] |= edge ? 2 : 0;
                kept += edge;
            }
    return kept;
}

int64_t eddy_voxelize(const eddy_mesh *m, const eddy_voxel_desc *desc, float **points, char *err,
                      size_t err_size)
{
    *points = NULL;
    eddy_voxel_desc taken;
    if (desc && mesh_desc_read(desc, sizeof taken, "eddy_voxel_desc", &taken, err, err_size))
        return -1;
    desc = desc ? &taken : NULL;
    if (!desc || !(desc->diameter > 0) || !isfinite(desc->diameter))
        return failf(err, err_size, "diameter %g: expected a number > 0 (m)", desc ? desc->diameter : 0);
    double volume;
    if (eddy_mesh_check(m, &volume, err, err_size) != 0)
        return -1;
    double d = desc->diameter, lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (uint32_t i = 0; i < m->vertex_count; i++)
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], m->vertices[3 * i + a]);
            hi[a] = fmax(hi[a], m->vertices[3 * i + a]);
        }
    uint64_t max = desc->max_points ? desc->max_points : 1u << 24;
    uint64_t budget = desc->max_bytes ? desc->max_bytes : EDDY_VOXEL_DEFAULT_BYTES, used = 0;
    /* Voxels centred on the bounding box: n per axis, the grid's middle on
     * the box's middle (a box a whole number of d long gets its faces on
     * voxel faces, never through voxel centres). The count per axis is
     * bounded as a double before it becomes an integer. */
    voxel_grid g = { .d = d };
    uint64_t *n = g.n, voxels = 1;
    for (int a = 0; a < 3; a++) {
        double cells = ceil((hi[a] - lo[a]) / d - 1e-5); /* float vertices */
        if (!(cells <= 1e9))
            return failf(err, err_size, "diameter %g m is too small for this mesh: %g voxels along axis %d "
                         "(at most 1e9)", d, cells, a);
        n[a] = cells < 1 ? 1 : (uint64_t)cells;
        g.org[a] = 0.5 * (lo[a] + hi[a]) - 0.5 * (double)n[a] * d;
        if (__builtin_mul_overflow(voxels, n[a], &voxels))
            voxels = UINT64_MAX;
    }
    /* A solid fill has about volume / d^3 particles (the surface layer is
     * the error): a mesh far over the limit is refused before any work. */
    double estimate = volume / (d * d * d);
    if (!desc->surface_only && estimate > 2.0 * (double)max + 1000)
        return failf(err, err_size, "about %.4g particles of diameter %g m (the mesh's volume %g m^3), more "
                     "than the limit %llu", estimate, d, volume, (unsigned long long)max);
    if (voxels / 64 > max || n[1] * n[2] > (1ull << 26))
        return failf(err, err_size, "diameter %g m is too small for this mesh (%llu x %llu x %llu voxels; at "
                     "most 64 per allowed particle and 2^26 rows)", d, (unsigned long long)n[0],
                     (unsigned long long)n[1], (unsigned long long)n[2]);
    if (!within(&used, voxels, budget))
        return failf(err, err_size, "diameter %g m: %llu x %llu x %llu voxels need %llu bytes, over the "
                     "voxeliser's host memory budget of %llu bytes", d, (unsigned long long)n[0],
                     (unsigned long long)n[1], (unsigned long long)n[2], (unsigned long long)voxels,
                     (unsigned long long)budget);
    uint8_t *inside = calloc(voxels, 1);
    if (!inside)
        return failf(err, err_size, "out of memory (%llu bytes of voxels)", (unsigned long long)voxels);
    row_hit *hits = NULL;
    uint64_t hit_n = 0, count = 0;
    int rc = row_crossings(m, &g, &used, budget, &hits, &hit_n, err, err_size);
    if (rc == 0)
        rc = fill_rows(&g, hits, hit_n, inside, &count, err, err_size);
    free(hits);
    if (rc == 0 && count == 0)
        rc = failf(err, err_size, "no voxel centre of side %g m lies inside the mesh (its box is "
                   "%g x %g x %g m): use a smaller diameter", d, hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
    if (rc == 0 && desc->surface_only)
        count = mark_surface(&g, inside);
    if (rc == 0 && count > max)
        rc = failf(err, err_size, "%llu particles of diameter %g m, more than the limit %llu",
                   (unsigned long long)count, d, (unsigned long long)max);
    if (rc == 0 && !within(&used, 12 * count, budget))
        rc = failf(err, err_size, "%llu particles need %llu bytes, over the voxeliser's host memory budget "
                   "of %llu bytes", (unsigned long long)count, (unsigned long long)(12 * count),
                   (unsigned long long)budget);
    float *pts = rc == 0 ? malloc(12 * count) : NULL;
    if (rc == 0 && !pts)
        rc = failf(err, err_size, "out of memory");
    uint64_t o = 0;
    for (uint64_t k = 0; rc == 0 && k < n[2]; k++)
        for (uint64_t j = 0; j < n[1]; j++)
            for (uint64_t i = 0; i < n[0]; i++) {
                uint8_t v = inside[(k * n[1] + j) * n[0] + i];
                if (desc->surface_only ? !(v & 2) : !v)
                    continue;
                pts[3 * o] = (float)(g.org[0] + d * ((double)i + 0.5));
                pts[3 * o + 1] = (float)(g.org[1] + d * ((double)j + 0.5));
                pts[3 * o + 2] = (float)(g.org[2] + d * ((double)k + 0.5));
                o++;
            }
    free(inside);
    if (rc != 0) {
        free(pts);
        return -1;
    }
    *points = pts;
    return (int64_t)count;
}

void eddy_point_mass_properties(const float *p, uint32_t n, double m, double d, double *mass,
                                double com[3], double I[9])
{
    double c[3] = { 0, 0, 0 };
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++)
            c[a] += p[3 * i + a];
    for (int a = 0; a < 3; a++)
        c[a] = n ? c[a] / n : 0;
    double S[9] = { 0 };
    for (uint32_t i = 0; i < n; i++) {
        double r[3] = { p[3 * i] - c[0], p[3 * i + 1] - c[1], p[3 * i + 2] - c[2] };
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                S[3 * a + b] += r[a] * r[b];
    }
    double tr = S[0] + S[4] + S[8];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            I[3 * a + b] = m * ((a == b ? tr : 0) - S[3 * a + b]) + (a == b ? n * m * d * d / 6.0 : 0);
    if (mass)
        *mass = n * m;
    if (com)
        memcpy(com, c, sizeof c);
}
