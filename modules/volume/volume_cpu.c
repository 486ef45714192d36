/* The volume module's C references: the neighbour table (used by the
 * renderer too), and the twins of the passes (geometry, the table, the BVH
 * and the rays) written as the shaders are, plus a ray integral that needs
 * no traversal at all (every tet cut on its own) for the tests. */
#include "volume.h"

#include "eddy/eddy_tetmesh.h"
#include "common/cpu_solids.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Face i of a tet is opposite vertex i: its other three vertices. */
static const int face_vertex[4][3] = { { 1, 2, 3 }, { 0, 2, 3 }, { 0, 1, 3 }, { 0, 1, 2 } };

int eddy_volume_topology(const uint32_t *tets, uint32_t tet_count, uint32_t vertex_count,
                         uint32_t *neighbours, uint32_t **boundary, uint32_t *boundary_count,
                         char *err, size_t err_cap)
{
    *boundary = NULL;
    *boundary_count = 0;
    if (tet_count == 0 || tet_count > (UINT32_MAX >> 2)) {
        snprintf(err, err_cap, "%u tets: expected 1 to %u", tet_count, UINT32_MAX >> 2);
        return -1;
    }
    for (uint64_t k = 0; k < 4ull * tet_count; k++)
        if (tets[k] >= vertex_count) {
            snprintf(err, err_cap, "tet %u names vertex %u of %u", (uint32_t)(k / 4), tets[k], vertex_count);
            return -1;
        }
    int64_t nb = eddy_tet_neighbours(tets, tet_count, neighbours);
    uint32_t *b = nb >= 0 ? malloc(sizeof *b * (size_t)(nb ? nb : 1)) : NULL;
    if (!b) {
        snprintf(err, err_cap, "out of host memory for %u tets' faces", tet_count);
        return -1;
    }
    uint32_t n = 0;
    for (uint32_t id = 0; id < 4 * tet_count; id++) {
        if (neighbours[id] == EDDY_TET_SHARED) {
            snprintf(err, err_cap, "face %u of tet %u belongs to three tets or more: a tet mesh has at most two "
                     "a face", id & 3u, id >> 2);
            free(b);
            return -1;
        }
        if (neighbours[id] == EDDY_TET_BOUNDARY)
            b[n++] = id;
    }
    *boundary = b;
    *boundary_count = n;
    return 0;
}

/* ------------------------------------------------------------------ vectors */

static void sub3(const float *a, const float *b, float *out)
{
    for (int k = 0; k < 3; k++)
        out[k] = a[k] - b[k];
}

static float clampf(float x, float lo, float hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* ------------------------------------------------------------------ geometry */

void eddy_volume_geometry_cpu(const float *position, const float *scalar, const uint32_t *tets,
                              uint32_t tet_count, float *planes, float *gradient)
{
    for (uint32_t t = 0; t < tet_count; t++) {
        const float *v[4];
        float s[4];
        for (int i = 0; i < 4; i++) {
            v[i] = position + 4 * (size_t)tets[4 * (size_t)t + i];
            s[i] = scalar ? scalar[tets[4 * (size_t)t + i]] : 0.0f;
        }
        float g[3] = { 0, 0, 0 };
        bool flat = false;
        for (int i = 0; i < 4; i++) {
            const float *a = v[face_vertex[i][0]], *b = v[face_vertex[i][1]], *c = v[face_vertex[i][2]];
            float e1[3], e2[3], n[3], to[3];
            sub3(b, a, e1);
            sub3(c, a, e2);
            eddy_cpu_cross3(e1, e2, n);
            sub3(v[i], a, to);
            if (eddy_cpu_dot3(n, to) > 0.0f)
                for (int k = 0; k < 3; k++)
                    n[k] = -n[k];
            float len = sqrtf(eddy_cpu_dot3(n, n));
            float inv = len > 0.0f ? 1.0f / len : 0.0f;
            for (int k = 0; k < 3; k++)
                n[k] *= inv;
            float *pl = planes + 16 * (size_t)t + 4 * i;
            pl[0] = n[0], pl[1] = n[1], pl[2] = n[2];
            pl[3] = eddy_cpu_dot3(n, a);
            float h = eddy_cpu_dot3(n, to); /* minus the height over face i: < 0 */
            if (!(h < 0.0f))
                flat = true;
            else
                for (int k = 0; k < 3; k++)
                    g[k] += s[i] / h * n[k];
        }
        float *gr = gradient + 4 * (size_t)t;
        if (flat) {
            gr[0] = gr[1] = gr[2] = 0.0f;
            gr[3] = 0.25f * (s[0] + s[1] + s[2] + s[3]);
        } else {
            gr[0] = g[0], gr[1] = g[1], gr[2] = g[2];
            gr[3] = s[0] - eddy_cpu_dot3(g, v[0]);
        }
    }
}

/* ------------------------------------------------------------------ transfer */

double eddy_volume_opacity_to_attenuation(double a, double unit)
{
    return -log1p(-a) / unit;
}

double eddy_volume_opacity_from_attenuation(double sigma, double unit)
{
    return -expm1(-sigma * unit);
}

void eddy_volume_tf_cpu(const float *tf, uint32_t n, float unit, float s, float color[3], float *extinction)
{
    float a;
    if (n == 1 || !(s > tf[0])) {
        for (int k = 0; k < 3; k++)
            color[k] = tf[1 + k];
        a = tf[4];
    } else if (!(s < tf[5 * (n - 1)])) {
        for (int k = 0; k < 3; k++)
            color[k] = tf[5 * (n - 1) + 1 + k];
        a = tf[5 * (n - 1) + 4];
    } else {
        uint32_t k = 0;
        while (k + 2 < n && !(s < tf[5 * (k + 1)]))
            k++;
        const float *p = tf + 5 * k, *q = p + 5;
        float w = (s - p[0]) / (q[0] - p[0]);
        for (int c = 0; c < 3; c++)
            color[c] = p[1 + c] + w * (q[1 + c] - p[1 + c]);
        a = p[4] + w * (q[4] - p[4]);
    }
    a = clampf(a, 0.0f, 1.0f - 1e-6f);
    *extinction = -logf(1.0f - a) / unit;
}

void eddy_volume_segment_cpu(const float *tf, uint32_t n, float unit, double sf, double sb, double d,
                             uint32_t steps, double out[4])
{
    double c[3] = { 0, 0, 0 }, trans = 1, h = d / steps;
    for (uint32_t j = 0; j < steps; j++) {
        float col[3], tau;
        eddy_volume_tf_cpu(tf, n, unit, (float)(sf + (sb - sf) * (j + 0.5) / steps), col, &tau);
        double a = -expm1(-(double)tau * h);
        for (int k = 0; k < 3; k++)
            c[k] += trans * col[k] * a;
        trans *= 1 - a;
    }
    for (int k = 0; k < 3; k++)
        out[k] = c[k];
    out[3] = 1 - trans;
}

/* The table's layers 0 and 1 take this many slabs; every longer layer is
 * two shorter ones in a row (shaders/volume_preint.comp). */
#define PREINT_SLABS 16u

static float axis_scalar(const struct eddy_volume_params *p, uint32_t i)
{
    return p->range[0] + (p->range[1] - p->range[0]) * (float)i / (float)(p->table[0] - 1u);
}

/* A texel from colour sums: (C / alpha, optical depth), where cs is the
 * premultiplied colour, depth the optical depth and (ct, tt) the sums of
 * colour x extinction and of extinction, whose ratio is the limit of
 * C / alpha as the segment shrinks. */
static void texel(const float cs[3], float depth, const float ct[3], float tt, const float mean[3], float out[4])
{
    float alpha = 1.0f - expf(-depth);
    for (int k = 0; k < 3; k++)
        out[k] = alpha > 1e-6f ? cs[k] / alpha : tt > 0.0f ? ct[k] / tt : mean[k];
    out[3] = depth;
}

void eddy_volume_preintegrate_cpu(const struct eddy_volume_params *p, const float *tf, float *table)
{
    uint32_t ns = p->table[0], nd = p->table[1], npts = p->counts[3];
    float unit = p->range[3];
#define TEX(i, j, k) (table + 4 * (((size_t)(k) * ns + (j)) * ns + (i)))
    float dd = p->range[2] / (float)(nd - 1u);
    for (uint32_t k = 0; k < 2u; k++)
        for (uint32_t j = 0; j < ns; j++)
            for (uint32_t i = 0; i < ns; i++) {
                float sf = axis_scalar(p, i), sb = axis_scalar(p, j), h = (float)k * dd / (float)PREINT_SLABS;
                float c[3] = { 0, 0, 0 }, ct[3] = { 0, 0, 0 }, mean[3] = { 0, 0, 0 }, tt = 0.0f, depth = 0.0f;
                for (uint32_t q = 0; q < PREINT_SLABS; q++) {
                    float col[3], tau;
                    eddy_volume_tf_cpu(tf, npts, unit, sf + (sb - sf) * ((float)q + 0.5f) / (float)PREINT_SLABS,
                                       col, &tau);
                    float a = 1.0f - expf(-tau * h), trans = expf(-depth);
                    for (int m = 0; m < 3; m++) {
                        c[m] += trans * col[m] * a;
                        ct[m] += col[m] * tau;
                        mean[m] += col[m] * (1.0f / (float)PREINT_SLABS);
                    }
                    tt += tau;
                    depth += tau * h;
                }
                texel(c, depth, ct, tt, mean, TEX(i, j, k));
            }
    for (uint32_t k = 2; k < nd; k++) {
        uint32_t ka = k / 2u, kb = k - ka;
        for (uint32_t j = 0; j < ns; j++)
            for (uint32_t i = 0; i < ns; i++) {
                /* the front ka layers and the back kb: the scalar where they meet */
                float x = (float)i + ((float)j - (float)i) * (float)ka / (float)k;
                uint32_t m = (uint32_t)clampf(floorf(x), 0.0f, (float)(ns - 2u));
                float w = x - (float)m;
                float f[4], b[4];
                for (int c = 0; c < 4; c++) {
                    f[c] = TEX(i, m, ka)[c] + w * (TEX(i, m + 1u, ka)[c] - TEX(i, m, ka)[c]);
                    b[c] = TEX(m, j, kb)[c] + w * (TEX(m + 1u, j, kb)[c] - TEX(m, j, kb)[c]);
                }
                float af = 1.0f - expf(-f[3]), ab = 1.0f - expf(-b[3]), cs[3], ct[3];
                for (int c = 0; c < 3; c++) {
                    cs[c] = f[c] * af + (1.0f - af) * b[c] * ab;
                    ct[c] = f[c] * f[3] + b[c] * b[3];
                }
                float mean[3] = { 0.5f * (f[0] + b[0]), 0.5f * (f[1] + b[1]), 0.5f * (f[2] + b[2]) };
                texel(cs, f[3] + b[3], ct, f[3] + b[3], mean, TEX(i, j, k));
            }
    }
#undef TEX
}

/* ------------------------------------------------------------------ rays */

/* The view ray through pixel centre (px, py), as shaders/render.glsl. */
static void view_ray(const struct eddy_volume_params *p, float px, float py, float *dir)
{
    float x = (((px + 0.5f) / p->right[3]) * 2.0f - 1.0f) * p->eye[3] * p->forward[3];
    float y = (1.0f - ((py + 0.5f) / p->up[3]) * 2.0f) * p->eye[3];
    for (int k = 0; k < 3; k++)
        dir[k] = p->forward[k] + x * p->right[k] + y * p->up[k];
    float l = sqrtf(eddy_cpu_dot3(dir, dir));
    for (int k = 0; k < 3; k++)
        dir[k] /= l;
}

static uint32_t spread10(uint32_t x)
{
    x &= 0x3ffu;
    x = (x | (x << 16)) & 0x030000ffu;
    x = (x | (x << 8)) & 0x0300f00fu;
    x = (x | (x << 4)) & 0x030c30c3u;
    x = (x | (x << 2)) & 0x09249249u;
    return x;
}

typedef struct bvh {
    uint32_t leaves, depth; /* leaves = 1 << depth */
    uint32_t *face;         /* per leaf: the boundary face (sorted by Morton code) */
    float *box;             /* per node (1 .. 2 leaves - 1): min vec4, max vec4 */
} bvh;

typedef struct keyed {
    uint32_t key, value;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->value < y->value ? -1 : x->value > y->value;
}

static void face_corners(const float *position, const uint32_t *tets, uint32_t id, const float *c[3])
{
    for (int a = 0; a < 3; a++)
        c[a] = position + 4 * (size_t)tets[4 * (size_t)(id >> 2) + face_vertex[id & 3u][a]];
}

/* volume.keys, the sort, volume.leaves and volume.level. */
static bool build_bvh(const struct eddy_volume_params *p, const float *position, const uint32_t *tets,
                      const uint32_t *boundary, bvh *out)
{
    uint32_t n = p->counts[1], leaves = p->counts[2];
    keyed *k = malloc(sizeof *k * n);
    out->leaves = leaves;
    out->depth = 0;
    while ((1u << out->depth) < leaves)
        out->depth++;
    out->face = malloc(4 * (size_t)leaves);
    out->box = malloc(32 * 2 * (size_t)leaves);
    if (!k || !out->face || !out->box) {
        free(k);
        return false;
    }
    for (uint32_t b = 0; b < n; b++) {
        const float *c[3];
        face_corners(position, tets, boundary[b], c);
        uint32_t code = 0;
        for (int a = 0; a < 3; a++) {
            float mid = (c[0][a] + c[1][a] + c[2][a]) * (1.0f / 3.0f);
            float u = clampf((mid - p->bounds_min[a]) / (p->bounds_max[a] - p->bounds_min[a]), 0.0f, 1.0f);
            code |= spread10((uint32_t)(u * 1023.0f)) << (2 - a);
        }
        k[b] = (keyed){ code, b };
    }
    qsort(k, n, sizeof *k, cmp_keyed);
    for (uint32_t j = 0; j < leaves; j++) {
        float *bx = out->box + 8 * (size_t)(leaves + j);
        out->face[j] = j < n ? k[j].value : EDDY_VOLUME_NONE;
        for (int a = 0; a < 4; a++)
            bx[a] = FLT_MAX, bx[4 + a] = -FLT_MAX;
        if (j >= n)
            continue;
        const float *c[3];
        face_corners(position, tets, boundary[k[j].value], c);
        for (int v = 0; v < 3; v++)
            for (int a = 0; a < 3; a++) {
                bx[a] = c[v][a] < bx[a] ? c[v][a] : bx[a];
                bx[4 + a] = c[v][a] > bx[4 + a] ? c[v][a] : bx[4 + a];
            }
        /* grown a little, so a ray grazing the face is not lost to the
         * slab test's rounding */
        for (int a = 0; a < 3; a++) {
            float pad = 1e-5f * (bx[4 + a] - bx[a]) + 1e-6f * fmaxf(fabsf(bx[a]), fabsf(bx[4 + a])) + 1e-30f;
            bx[a] -= pad;
            bx[4 + a] += pad;
        }
    }
    for (uint32_t m = leaves / 2u; m >= 1u; m /= 2u)
        for (uint32_t node = m; node < 2u * m; node++) {
            float *bx = out->box + 8 * (size_t)node;
            const float *l = out->box + 16 * (size_t)node, *r = l + 8;
            for (int a = 0; a < 4; a++) {
                bx[a] = l[a] < r[a] ? l[a] : r[a];
                bx[4 + a] = l[4 + a] > r[4 + a] ? l[4 + a] : r[4 + a];
            }
        }
    free(k);
    return true;
}

/* Whether node's leftmost leaf holds a face (the padding's subtrees hold none). */
static bool node_used(const bvh *h, uint32_t node, uint32_t faces)
{
    uint32_t level = 31u - (uint32_t)__builtin_clz(node);
    return (node << (h->depth - level)) - h->leaves < faces;
}

/* The lowest tet that holds the eye: on the inner side of its four planes
 * within their rounding, flat tets left out (volume_geometry.comp's test);
 * EDDY_VOLUME_NONE when the eye is outside the mesh. */
uint32_t eddy_volume_locate_cpu(const float *position, const uint32_t *tets, uint32_t tet_count, const float *planes,
                                const float eye[3])
{
    for (uint32_t t = 0; t < tet_count; t++) {
        bool holds = true, flat = false;
        for (int i = 0; i < 4; i++) {
            const float *pl = planes + 16 * (size_t)t + 4 * i;
            const float *a = position + 4 * (size_t)tets[4 * (size_t)t + face_vertex[i][0]];
            const float *vi = position + 4 * (size_t)tets[4 * (size_t)t + i];
            float e[3], to[3];
            sub3(eye, a, e);
            sub3(vi, a, to);
            holds = holds && eddy_cpu_dot3(pl, e) <= 1e-6f * sqrtf(eddy_cpu_dot3(e, e));
            flat = flat || !(eddy_cpu_dot3(pl, to) < 0.0f);
        }
        if (holds && !flat)
            return t;
    }
    return EDDY_VOLUME_NONE;
}

/* The ray's interval in a box: [tn, tf] (volume.glsl box_hit). */
static bool box_hit(const float *eye, const float *inv, const float *bx, float tmin, float tmax)
{
    float tn = -FLT_MAX, tf = FLT_MAX;
    for (int a = 0; a < 3; a++) {
        float t0 = (bx[a] - eye[a]) * inv[a], t1 = (bx[4 + a] - eye[a]) * inv[a];
        float lo = t0 < t1 ? t0 : t1, hi = t0 < t1 ? t1 : t0;
        tn = lo > tn ? lo : tn;
        tf = hi < tf ? hi : tf;
    }
    return tn <= tf && tf >= tmin && tn <= tmax;
}

/* The watertight ray-triangle test of Woop, Benthin and Wald (2013): the
 * corners in a frame sheared so the ray is the z axis, three edge
 * functions that two triangles sharing an edge compute from the same two
 * corners (exactly opposite), edges and corners inside, so a ray through
 * a shared edge or vertex never slips between the triangles. Any sign of
 * t. (volume_cast.comp tri_hit) */
static bool tri_hit(const float *dir, const float *eye, const float *c[3], float *t)
{
    int kz = fabsf(dir[0]) > fabsf(dir[1]) ? (fabsf(dir[0]) > fabsf(dir[2]) ? 0 : 2)
                                           : (fabsf(dir[1]) > fabsf(dir[2]) ? 1 : 2);
    int kx = (kz + 1) % 3, ky = (kx + 1) % 3;
    if (dir[kz] < 0.0f) {
        int s = kx;
        kx = ky;
        ky = s;
    }
    float sx = dir[kx] / dir[kz], sy = dir[ky] / dir[kz], sz = 1.0f / dir[kz];
    float px[3], py[3], pz[3];
    for (int v = 0; v < 3; v++) {
        float a[3];
        sub3(c[v], eye, a);
        px[v] = a[kx] - sx * a[kz];
        py[v] = a[ky] - sy * a[kz];
        pz[v] = sz * a[kz];
    }
    float u = px[2] * py[1] - py[2] * px[1];
    float v = px[0] * py[2] - py[0] * px[2];
    float w = px[1] * py[0] - py[1] * px[0];
    if ((u < 0.0f || v < 0.0f || w < 0.0f) && (u > 0.0f || v > 0.0f || w > 0.0f))
        return false;
    float det = u + v + w;
    if (det == 0.0f)
        return false;
    *t = (u * pz[0] + v * pz[1] + w * pz[2]) / det;
    return *t == *t;
}

/* The first boundary face the ray enters after (tmin, lo): the smallest
 * (t, id) with t > tmin, or t == tmin and id >= lo, over the faces that
 * face the ray (their outward normal against it); id = tet << 2 | face. */
static uint32_t enter(const struct eddy_volume_params *p, const bvh *h, const float *position,
                      const uint32_t *tets, const uint32_t *boundary, const float *planes, const float *eye,
                      const float *dir, float tmin, uint32_t lo, float *t_out, eddy_volume_cast_counts *cnt)
{
    float inv[3];
    for (int a = 0; a < 3; a++)
        inv[a] = 1.0f / (fabsf(dir[a]) > 1e-20f ? dir[a] : (dir[a] >= 0.0f ? 1e-20f : -1e-20f));
    uint32_t stack[EDDY_VOLUME_STACK], sp = 0, best = EDDY_VOLUME_NONE;
    float best_t = FLT_MAX;
    stack[sp++] = 1u;
    while (sp) {
        uint32_t node = stack[--sp];
        cnt->bvh_nodes++;
        if (node >= h->leaves) {
            uint32_t f = h->face[node - h->leaves], id = boundary[f];
            const float *pl = planes + 16 * (size_t)(id >> 2) + 4 * (id & 3u);
            const float *c[3];
            float t;
            face_corners(position, tets, id, c);
            if (eddy_cpu_dot3(dir, pl) < 0.0f && tri_hit(dir, eye, c, &t) && (t > tmin || (t == tmin && id >= lo)) &&
                (t < best_t || (t == best_t && id < best))) {
                best_t = t;
                best = id;
            }
            continue;
        }
        /* the right child under the left: the left is searched first */
        for (uint32_t c = 2u * node + 2u; c-- > 2u * node;)
            if (node_used(h, c, p->counts[1]) && box_hit(eye, inv, h->box + 8 * (size_t)c, tmin, best_t))
                stack[sp++] = c;
    }
    *t_out = best_t;
    return best;
}

/* volume.raster's twin: per pixel the count of boundary faces its ray
 * enters through (hits) and the first p->lists[0] of them as (t bits, id)
 * in entries, faces in the boundary's order (the GPU's order differs; the
 * ray takes the smallest (t, id), which no order changes). */
static void raster(const struct eddy_volume_params *p, const float *position, const uint32_t *tets,
                   const uint32_t *boundary, const float *planes, uint32_t *hits, uint32_t *entries,
                   eddy_volume_cast_counts *cnt)
{
    uint32_t w = (uint32_t)p->right[3], slots = p->lists[0];
    float fw = p->right[3], fh = p->up[3];
    for (uint32_t f = 0; f < p->counts[1]; f++) {
        uint32_t id = boundary[f];
        const float *n = planes + 4 * (size_t)id, *c[3];
        face_corners(position, tets, id, c);
        float zmax = -INFINITY, zmin = INFINITY, rmax = 0, qlo[2] = { INFINITY, INFINITY },
              qhi[2] = { -INFINITY, -INFINITY };
        bool finite = true;
        for (int k = 0; k < 3; k++) {
            float r[3];
            finite = finite && isfinite(c[k][0]) && isfinite(c[k][1]) && isfinite(c[k][2]);
            sub3(c[k], p->eye, r);
            float z = eddy_cpu_dot3(r, p->forward);
            zmax = fmaxf(zmax, z), zmin = fminf(zmin, z), rmax = fmaxf(rmax, sqrtf(eddy_cpu_dot3(r, r)));
            float q[2] = { (eddy_cpu_dot3(r, p->right) / (z * p->eye[3] * p->forward[3]) + 1.0f) * 0.5f * fw - 0.5f,
                           (1.0f - eddy_cpu_dot3(r, p->up) / (z * p->eye[3])) * 0.5f * fh - 0.5f };
            for (int a = 0; a < 2; a++)
                qlo[a] = fminf(qlo[a], q[a]), qhi[a] = fmaxf(qhi[a], q[a]);
        }
        if (!finite || !(zmax > 0.0f))
            continue;
        float side[3];
        sub3(c[0], p->eye, side);
        if (eddy_cpu_dot3(n, side) > 1e-4f * rmax)
            continue;
        float lo[2] = { 0, 0 }, hi[2] = { fw - 1.0f, fh - 1.0f };
        if (zmin > 0.0f) {
            float pad = 0.01f + 1e-5f * (rmax / zmin) * (fw + fh) / p->eye[3];
            for (int a = 0; a < 2; a++)
                qlo[a] = ceilf(qlo[a] - pad), qhi[a] = floorf(qhi[a] + pad);
            if (!(qhi[0] >= 0.0f && qhi[1] >= 0.0f && qlo[0] <= hi[0] && qlo[1] <= hi[1] && qlo[0] <= qhi[0] &&
                  qlo[1] <= qhi[1]))
                continue;
            for (int a = 0; a < 2; a++) {
                float top = hi[a];
                lo[a] = clampf(qlo[a], 0.0f, top);
                hi[a] = clampf(qhi[a], 0.0f, top);
            }
        }
        uint64_t box = ((uint64_t)hi[1] - (uint64_t)lo[1] + 1) * ((uint64_t)hi[0] - (uint64_t)lo[0] + 1);
        cnt->tested_max = box > cnt->tested_max ? box : cnt->tested_max;
        for (uint32_t py = (uint32_t)lo[1]; py <= (uint32_t)hi[1]; py++)
            for (uint32_t px = (uint32_t)lo[0]; px <= (uint32_t)hi[0]; px++) {
                float dir[3], t;
                view_ray(p, (float)px, (float)py, dir);
                cnt->tested++;
                if (eddy_cpu_dot3(dir, n) < 0.0f && tri_hit(dir, p->eye, c, &t) && t > 0.0f) {
                    size_t pix = (size_t)py * w + px;
                    cnt->fragments++;
                    uint32_t k = hits[pix]++;
                    if (k < slots) {
                        memcpy(entries + 2 * (pix * slots + k), &t, 4);
                        entries[2 * (pix * slots + k) + 1] = id;
                    }
                }
            }
    }
}

/* The first boundary face after (tmin, lo) from the pixel's list, else the
 * BVH (volume_cast.glsl enter). */
static uint32_t enter_pixel(const struct eddy_volume_params *p, const bvh *h, const float *position,
                            const uint32_t *tets, const uint32_t *boundary, const float *planes, const uint32_t *hits,
                            const uint32_t *entries, size_t pix, const float *eye, const float *dir, float tmin,
                            uint32_t lo, float *t_out, eddy_volume_cast_counts *cnt)
{
    uint32_t n = hits[pix], slots = p->lists[0];
    cnt->enters++;
    if (n > slots || slots == 0) {
        cnt->bvh_enters++;
        return enter(p, h, position, tets, boundary, planes, eye, dir, tmin, lo, t_out, cnt);
    }
    cnt->entries_read += n;
    uint32_t best = EDDY_VOLUME_NONE;
    float best_t = FLT_MAX;
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t *e = entries + 2 * (pix * slots + k);
        float t;
        memcpy(&t, e, 4);
        if ((t > tmin || (t == tmin && e[1] >= lo)) && (t < best_t || (t == best_t && e[1] < best)))
            best_t = t, best = e[1];
    }
    *t_out = best_t;
    return best;
}

/* The table sampled as a linear-filtered, clamped, normalised sampler does. */
static void sample_table(const struct eddy_volume_params *p, const float *table, float u, float v, float w,
                         float out[4])
{
    uint32_t n[3] = { p->table[0], p->table[0], p->table[1] };
    float x[3] = { u, v, w };
    int i0[3], i1[3];
    float f[3];
    for (int a = 0; a < 3; a++) {
        float c = x[a] * (float)n[a] - 0.5f, fl = floorf(c);
        f[a] = c - fl;
        int lo = (int)fl;
        i0[a] = lo < 0 ? 0 : lo > (int)n[a] - 1 ? (int)n[a] - 1 : lo;
        i1[a] = lo + 1 < 0 ? 0 : lo + 1 > (int)n[a] - 1 ? (int)n[a] - 1 : lo + 1;
    }
    for (int c = 0; c < 4; c++)
        out[c] = 0.0f;
    for (int corner = 0; corner < 8; corner++) {
        int ix = corner & 1 ? i1[0] : i0[0], iy = corner & 2 ? i1[1] : i0[1], iz = corner & 4 ? i1[2] : i0[2];
        float wt = (corner & 1 ? f[0] : 1.0f - f[0]) * (corner & 2 ? f[1] : 1.0f - f[1]) *
                   (corner & 4 ? f[2] : 1.0f - f[2]);
        const float *tx = table + 4 * (((size_t)iz * n[0] + (size_t)iy) * n[0] + (size_t)ix);
        for (int c = 0; c < 4; c++)
            out[c] += wt * tx[c];
    }
}

/* One piece of a segment: premultiplied colour and opacity (volume.glsl
 * segment_piece). */
static void piece(const struct eddy_volume_params *p, const float *tf, const float *table, float sf, float sb,
                  float d, float out[4])
{
    if (p->table[3] & EDDY_VOLUME_POINT_SAMPLING) {
        float col[3], tau;
        eddy_volume_tf_cpu(tf, p->counts[3], p->range[3], 0.5f * (sf + sb), col, &tau);
        float a = 1.0f - expf(-tau * d);
        out[0] = col[0] * a, out[1] = col[1] * a, out[2] = col[2] * a, out[3] = a;
        return;
    }
    float ns = (float)p->table[0], nd = (float)p->table[1], inv = 1.0f / (p->range[1] - p->range[0]);
    float u = 0.5f / ns + clampf((sf - p->range[0]) * inv, 0.0f, 1.0f) * ((ns - 1.0f) / ns);
    float v = 0.5f / ns + clampf((sb - p->range[0]) * inv, 0.0f, 1.0f) * ((ns - 1.0f) / ns);
    float w = 0.5f / nd + clampf(d * (1.0f / p->range[2]), 0.0f, 1.0f) * ((nd - 1.0f) / nd);
    sample_table(p, table, u, v, w, out);
    float a = 1.0f - expf(-out[3]);
    out[0] *= a, out[1] *= a, out[2] *= a, out[3] = a;
}

/* Front to back: the segment (sf .. sb over d) cut into pieces no longer
 * than the table's longest. */
static void composite(const struct eddy_volume_params *p, const float *tf, const float *table, float sf, float sb,
                      float d, float acc[4], eddy_volume_cast_counts *cnt)
{
    float pieces = d > p->range[2] ? ceilf(d * (1.0f / p->range[2])) : 1.0f;
    pieces = pieces < (float)EDDY_VOLUME_MAX_PIECES ? pieces : (float)EDDY_VOLUME_MAX_PIECES;
    cnt->pieces += (uint64_t)pieces;
    float inv = 1.0f / pieces;
    for (float q = 0.0f; q < pieces; q += 1.0f) {
        float s0 = sf + (sb - sf) * (q * inv), s1 = sf + (sb - sf) * ((q + 1.0f) * inv), c[4];
        piece(p, tf, table, s0, s1, d * inv, c);
        float keep = 1.0f - acc[3];
        for (int k = 0; k < 4; k++)
            acc[k] += keep * c[k];
    }
}

void eddy_volume_cast_cpu(const struct eddy_volume_params *p, const float *position, const float *scalar,
                          const uint32_t *tets, const uint32_t *neighbours, const uint32_t *boundary,
                          const float *tf, const float *table, float *rgba, float *depth)
{
    eddy_volume_cast_cpu_counted(p, position, scalar, tets, neighbours, boundary, tf, table, rgba, depth, NULL);
}

void eddy_volume_cast_cpu_counted(const struct eddy_volume_params *p, const float *position, const float *scalar,
                                  const uint32_t *tets, const uint32_t *neighbours, const uint32_t *boundary,
                                  const float *tf, const float *table, float *rgba, float *depth,
                                  eddy_volume_cast_counts *cnt)
{
    /* Without counts (the timed reference) the increments go to a local and
     * the per-ray steps, which only the lanes' counts need, are not kept. */
    eddy_volume_cast_counts unused;
    bool lanes = cnt != NULL;
    cnt = cnt ? cnt : &unused;
    memset(cnt, 0, sizeof *cnt);
    uint32_t w = (uint32_t)p->right[3], hgt = (uint32_t)p->up[3], nt = p->counts[0];
    size_t pixels = (size_t)w * hgt;
    uint32_t *ray_steps = lanes ? calloc(pixels + 1, 4) : NULL;
    float *planes = malloc(64 * (size_t)nt), *grad = malloc(16 * (size_t)nt);
    uint32_t *hits = calloc(pixels, 4), *entries = malloc(8 * (size_t)p->lists[0] * pixels + 8);
    bvh h = { 0 };
    if (!planes || !grad || !hits || !entries || (lanes && !ray_steps) || !build_bvh(p, position, tets, boundary, &h)) {
        free(planes), free(grad), free(hits), free(entries), free(h.face), free(h.box), free(ray_steps);
        for (size_t k = 0; k < 4 * pixels; k++)
            rgba[k] = NAN;
        return;
    }
    eddy_volume_geometry_cpu(position, scalar, tets, nt, planes, grad);
    if (p->lists[0])
        raster(p, position, tets, boundary, planes, hits, entries, cnt);
    uint32_t eye_tet = eddy_volume_locate_cpu(position, tets, nt, planes, p->eye);
    for (uint32_t py = 0; py < hgt; py++)
        for (uint32_t px = 0; px < w; px++) {
            float dir[3], acc[4] = { 0, 0, 0, 0 }, first = INFINITY, t = 0.0f;
            const float *eye = p->eye;
            view_ray(p, (float)px, (float)py, dir);
            size_t pix = (size_t)py * w + px;
            /* from inside: the eye's tet at t = 0, no entry face */
            uint32_t steps = 0, stall = 0, inside = eye_tet, f = inside != EDDY_VOLUME_NONE
                ? inside << 2
                : enter_pixel(p, &h, position, tets, boundary, planes, hits, entries, pix, eye, dir, 0.0f,
                              EDDY_VOLUME_NONE, &t, cnt);
            cnt->rays_hit += f != EDDY_VOLUME_NONE;
            bool done = false;
            while (f != EDDY_VOLUME_NONE && !done) {
                first = first < t ? first : t;
                uint32_t tet = f >> 2, fin = inside != EDDY_VOLUME_NONE ? 4u : f & 3u;
                float tc = t, tx = t;
                for (;;) {
                    if (++steps > p->table[2]) {
                        done = true;
                        break;
                    }
                    cnt->steps++;
                    const float *pl = planes + 16 * (size_t)tet;
                    float best = FLT_MAX;
                    uint32_t ex = 4;
                    for (uint32_t i = 0; i < 4; i++) {
                        float dn = eddy_cpu_dot3(dir, pl + 4 * i);
                        if (i == fin || !(dn > 0.0f))
                            continue;
                        float lam = (pl[4 * i + 3] - eddy_cpu_dot3(pl + 4 * i, eye)) / dn;
                        if (lam < best)
                            best = lam, ex = i;
                    }
                    tx = ex < 4 && best > tc ? best : tc;
                    const float *g = grad + 4 * (size_t)tet;
                    float xf[3], xb[3];
                    for (int a = 0; a < 3; a++)
                        xf[a] = eye[a] + tc * dir[a], xb[a] = eye[a] + tx * dir[a];
                    float sf = eddy_cpu_dot3(g, xf) + g[3], sb = eddy_cpu_dot3(g, xb) + g[3];
                    if (tx > tc) {
                        composite(p, tf, table, sf, sb, tx - tc, acc, cnt);
                        stall = 0;
                    } else if (++stall > EDDY_VOLUME_STALL) {
                        done = true;
                        break;
                    }
                    if (acc[3] >= p->bounds_min[3]) {
                        done = true;
                        break;
                    }
                    uint32_t nb = ex < 4 ? neighbours[4 * (size_t)tet + ex] : EDDY_VOLUME_BOUNDARY;
                    if (nb == EDDY_VOLUME_BOUNDARY)
                        break;
                    tet = nb >> 2;
                    fin = nb & 3u;
                    tc = tx;
                }
                if (!done)
                    f = enter_pixel(p, &h, position, tets, boundary, planes, hits, entries, pix, eye, dir, tx,
                                    tx == t && inside == EDDY_VOLUME_NONE ? f + 1u : 0u, &t, cnt);
                inside = EDDY_VOLUME_NONE;
            }
            if (lanes)
                ray_steps[pix] = steps < p->table[2] ? steps : p->table[2];
            float *o = rgba + 4 * ((size_t)py * w + px);
            for (int c = 0; c < 4; c++)
                o[c] = acc[c];
            if (depth)
                depth[(size_t)py * w + px] = first;
        }
    /* volume.cast's lanes: 8 x 8 tiles, a SIMD of 8 lanes a 4 x 2 block and
     * one of 32 an 8 x 4 block; a block runs as long as its longest ray
     * (pixels past the image's edge idle). */
    for (uint32_t simd = 8; lanes && simd <= 32; simd *= 4) {
        uint32_t bw = simd == 8 ? 4 : 8, bh = simd == 8 ? 2 : 4;
        uint64_t sum = 0;
        for (uint32_t by = 0; by < hgt; by += bh)
            for (uint32_t bx = 0; bx < w; bx += bw) {
                uint32_t most = 0;
                for (uint32_t y = by; y < by + bh && y < hgt; y++)
                    for (uint32_t x = bx; x < bx + bw && x < w; x++)
                        most = ray_steps[(size_t)y * w + x] > most ? ray_steps[(size_t)y * w + x] : most;
                sum += (uint64_t)simd * most;
            }
        *(simd == 8 ? &cnt->lane_steps8 : &cnt->lane_steps32) = sum;
    }
    free(planes), free(grad), free(hits), free(entries), free(h.face), free(h.box), free(ray_steps);
}

/* ------------------------------------------------------------------ reference */

typedef struct cut {
    float t0, t1, s0, s1;
} cut;

static int cmp_cut(const void *a, const void *b)
{
    const cut *x = a, *y = b;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

void eddy_volume_reference_cpu(const struct eddy_volume_params *p, const float *position, const float *scalar,
                               const uint32_t *tets, const float *tf, uint32_t steps, float *rgba, float *depth)
{
    uint32_t w = (uint32_t)p->right[3], hgt = (uint32_t)p->up[3], nt = p->counts[0];
    float *planes = malloc(64 * (size_t)nt), *grad = malloc(16 * (size_t)nt);
    cut *cuts = malloc(sizeof *cuts * nt);
    if (!planes || !grad || !cuts) {
        free(planes), free(grad), free(cuts);
        for (size_t k = 0; k < 4 * (size_t)w * hgt; k++)
            rgba[k] = NAN;
        return;
    }
    eddy_volume_geometry_cpu(position, scalar, tets, nt, planes, grad);
    for (uint32_t py = 0; py < hgt; py++)
        for (uint32_t px = 0; px < w; px++) {
            float dir[3];
            const float *eye = p->eye;
            view_ray(p, (float)px, (float)py, dir);
            uint32_t n = 0;
            for (uint32_t t = 0; t < nt; t++) {
                double t0 = 0, t1 = INFINITY;
                bool miss = false;
                for (int i = 0; i < 4 && !miss; i++) {
                    const float *pl = planes + 16 * (size_t)t + 4 * i;
                    double dn = (double)dir[0] * pl[0] + (double)dir[1] * pl[1] + (double)dir[2] * pl[2];
                    double out = (double)eye[0] * pl[0] + (double)eye[1] * pl[1] + (double)eye[2] * pl[2] - pl[3];
                    if (dn == 0) {
                        /* a ray in the face's plane (along edges of a
                         * structured mesh): the ray moved by an
                         * infinitesimal generic offset decides, so exactly
                         * one of the tets around it claims it */
                        miss = out > 0 || (out == 0 && 0.577 * pl[0] + 0.331 * pl[1] + 0.749 * pl[2] >= 0);
                        continue;
                    }
                    double lam = -out / dn;
                    if (dn > 0)
                        t1 = lam < t1 ? lam : t1;
                    else
                        t0 = lam > t0 ? lam : t0;
                }
                if (miss || !(t1 > t0))
                    continue;
                const float *g = grad + 4 * (size_t)t;
                double s0 = g[3], s1 = g[3];
                for (int a = 0; a < 3; a++) {
                    s0 += (double)g[a] * (eye[a] + t0 * dir[a]);
                    s1 += (double)g[a] * (eye[a] + t1 * dir[a]);
                }
                cuts[n++] = (cut){ (float)t0, (float)t1, (float)s0, (float)s1 };
            }
            qsort(cuts, n, sizeof *cuts, cmp_cut);
            double acc[4] = { 0, 0, 0, 0 };
            for (uint32_t k = 0; k < n; k++) {
                double c[4];
                eddy_volume_segment_cpu(tf, p->counts[3], p->range[3], cuts[k].s0, cuts[k].s1,
                                        (double)cuts[k].t1 - cuts[k].t0, steps, c);
                double keep = 1 - acc[3];
                for (int q = 0; q < 4; q++)
                    acc[q] += keep * c[q];
            }
            float *o = rgba + 4 * ((size_t)py * w + px);
            for (int q = 0; q < 4; q++)
                o[q] = (float)acc[q];
            if (depth)
                depth[(size_t)py * w + px] = n ? cuts[0].t0 : INFINITY;
        }
    free(planes), free(grad), free(cuts);
}
