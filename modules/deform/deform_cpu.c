/* The deform module's host side that needs no device: the springs' CSR
 * layout, and the C reference of a step (deform.h). */
#include "deform.h"

#include "common/cpu_solids.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A spring before deduplication: its ends (lo << 32 | hi) and its kind. */
typedef struct spring_key {
    uint64_t key;
    uint32_t kind;
} spring_key;

static int cmp_spring(const void *a, const void *b)
{
    const spring_key *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->kind > y->kind) - (x->kind < y->kind);
}

/* A triangle's edge: its ends (lo << 32 | hi) and the opposite corner. */
typedef struct half_edge {
    uint64_t key;
    uint32_t opposite, pad;
} half_edge;

static int cmp_half(const void *a, const void *b)
{
    const half_edge *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->opposite > y->opposite) - (x->opposite < y->opposite);
}

static double dist2(const float *pos, uint32_t i, uint32_t j)
{
    double d = 0;
    for (int a = 0; a < 3; a++) {
        double c = (double)pos[4 * j + a] - pos[4 * i + a];
        d += c * c;
    }
    return d;
}

/* Whether edge (a, b) is the longest side of triangle (a, b, c), within a
 * relative 1e-6: a grid quad's diagonal. */
static bool longest(const float *pos, uint32_t a, uint32_t b, uint32_t c)
{
    double ab = dist2(pos, a, b);
    return ab * (1 + 1e-6) >= dist2(pos, a, c) && ab * (1 + 1e-6) >= dist2(pos, b, c);
}

int eddy_deform_topology_build(uint32_t vertex_count, const uint32_t *elements, uint32_t element_count,
                               uint32_t kind, const float *pos, eddy_deform_topology *t)
{
    memset(t, 0, sizeof *t);
    if (kind < 2 || kind > 4)
        return -1;
    uint32_t per = kind * (kind - 1) / 2;
    /* Triangles add one spring across each edge two of them share. */
    uint64_t total = (uint64_t)element_count * per * (kind == EDDY_TRIANGLES ? 2 : 1);
    if (total > (1u << 31))
        return -1;
    spring_key *keys = malloc((total ? total : 1) * sizeof *keys);
    half_edge *half = kind == EDDY_TRIANGLES ? malloc(((uint64_t)element_count * 3 + 1) * sizeof *half) : NULL;
    if (!keys || (kind == EDDY_TRIANGLES && !half)) {
        free(keys);
        free(half);
        return -1;
    }
    uint64_t n = 0, h = 0;
    for (uint32_t el = 0; el < element_count; el++)
        for (uint32_t a = 0; a < kind; a++)
            for (uint32_t b = a + 1; b < kind; b++) {
                uint32_t i = elements[kind * el + a], j = elements[kind * el + b];
                if (i == j)
                    continue;
                uint32_t lo = i < j ? i : j, hi = i < j ? j : i;
                keys[n++] = (spring_key){ (uint64_t)lo << 32 | hi, EDDY_DEFORM_STRETCH };
                if (half)
                    half[h++] = (half_edge){ (uint64_t)lo << 32 | hi, elements[kind * el + 3 - a - b], 0 };
            }
    if (half) {
        /* An edge of exactly two triangles (a manifold interior edge): a
         * spring between their opposite corners, shear where the edge is
         * the longest side of both (the other diagonal of a quad), else
         * bending. */
        qsort(half, h, sizeof *half, cmp_half);
        for (uint64_t k = 0; k < h;) {
            uint64_t m = k + 1;
            while (m < h && half[m].key == half[k].key)
                m++;
            uint32_t c = half[k].opposite, d = half[k + 1 < h ? k + 1 : k].opposite;
            if (m - k == 2 && c != d) {
                uint32_t a = (uint32_t)(half[k].key >> 32), b = (uint32_t)half[k].key;
                uint32_t lo = c < d ? c : d, hi = c < d ? d : c;
                bool shear = pos && longest(pos, a, b, c) && longest(pos, a, b, d);
                keys[n++] = (spring_key){ (uint64_t)lo << 32 | hi, shear ? EDDY_DEFORM_SHEAR : EDDY_DEFORM_BEND };
            }
            k = m;
        }
        free(half);
    }
    /* One spring per vertex pair: an element's edge over a shear spring
     * over a bending one. */
    qsort(keys, n, sizeof *keys, cmp_spring);
    uint64_t e = 0;
    for (uint64_t k = 0; k < n; k++)
        if (k == 0 || keys[k].key != keys[k - 1].key)
            keys[e++] = keys[k];
    t->vertex_count = vertex_count;
    t->edge_count = (uint32_t)e;
    t->edges = malloc((e ? e : 1) * 2 * sizeof(uint32_t));
    t->kind = malloc((e ? e : 1) * sizeof(uint32_t));
    t->rows = calloc((size_t)vertex_count + 1, sizeof(uint32_t));
    t->adj = malloc((e ? e : 1) * 4 * sizeof(uint32_t));
    if (!t->edges || !t->kind || !t->rows || !t->adj) {
        free(keys);
        eddy_deform_topology_free(t);
        return -1;
    }
    for (uint64_t k = 0; k < e; k++) {
        t->edges[2 * k] = (uint32_t)(keys[k].key >> 32);
        t->edges[2 * k + 1] = (uint32_t)keys[k].key;
        t->kind[k] = keys[k].kind;
        t->rows[t->edges[2 * k] + 1]++;
        t->rows[t->edges[2 * k + 1] + 1]++;
    }
    free(keys);
    for (uint32_t v = 0; v < vertex_count; v++)
        t->rows[v + 1] += t->rows[v];
    /* Entries in edge order: a vertex's springs are summed in one fixed order. */
    uint32_t *fill = malloc(((size_t)vertex_count + 1) * sizeof *fill);
    if (!fill) {
        eddy_deform_topology_free(t);
        return -1;
    }
    memcpy(fill, t->rows, (size_t)vertex_count * sizeof *fill);
    for (uint32_t k = 0; k < (uint32_t)e; k++) {
        uint32_t i = t->edges[2 * k], j = t->edges[2 * k + 1];
        uint32_t a = fill[i]++, b = fill[j]++;
        t->adj[2 * a] = j;
        t->adj[2 * a + 1] = k;
        t->adj[2 * b] = i;
        t->adj[2 * b + 1] = k | 1u << 31;
    }
    free(fill);
    return 0;
}

void eddy_deform_topology_free(eddy_deform_topology *t)
{
    free(t->edges);
    free(t->kind);
    free(t->rows);
    free(t->adj);
    memset(t, 0, sizeof *t);
}

void eddy_deform_spring_double(const double xi[3], const double xj[3], double L, double ks, bool definite,
                               double f[3], double K[9])
{
    double d[3] = { xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2] };
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!(len > 0)) {
        for (int a = 0; a < 9; a++)
            K[a] = a % 4 == 0 ? ks : 0;
        f[0] = f[1] = f[2] = 0;
        return;
    }
    double n[3] = { d[0] / len, d[1] / len, d[2] / len }, c = 1 - L / len;
    if (definite && c < 0)
        c = 0;
    for (int a = 0; a < 3; a++) {
        f[a] = ks * (len - L) * n[a];
        for (int b = 0; b < 3; b++)
            K[3 * a + b] = ks * ((1 - c) * n[a] * n[b] + (a == b ? c : 0));
    }
}

/* ------------------------------------------------------------------ float blocks as deform.glsl */

typedef struct sym3 {
    float d[4], o[4];
} sym3;

static void sym_mul(const sym3 *a, const float v[3], float y[3])
{
    y[0] = a->d[0] * v[0] + a->o[0] * v[1] + a->o[1] * v[2];
    y[1] = a->o[0] * v[0] + a->d[1] * v[1] + a->o[2] * v[2];
    y[2] = a->o[1] * v[0] + a->o[2] * v[1] + a->d[2] * v[2];
}

static sym3 sym_outer(const float n[3], float s, float c)
{
    return (sym3){ { s * n[0] * n[0] + c, s * n[1] * n[1] + c, s * n[2] * n[2] + c, 0 },
                   { s * n[0] * n[1], s * n[0] * n[2], s * n[1] * n[2], 0 } };
}

static void sym_add(sym3 *a, const sym3 *b, float s)
{
    for (int k = 0; k < 4; k++) {
        a->d[k] += s * b->d[k];
        a->o[k] += s * b->o[k];
    }
}

static sym3 sym_inverse(const sym3 *a)
{
    float xx = a->d[0], yy = a->d[1], zz = a->d[2], xy = a->o[0], xz = a->o[1], yz = a->o[2];
    float c00 = yy * zz - yz * yz, c01 = xz * yz - xy * zz, c02 = xy * yz - xz * yy;
    float det = xx * c00 + xy * c01 + xz * c02;
    if (!(fabsf(det) > 0))
        return (sym3){ { 1, 1, 1, 0 }, { 0, 0, 0, 0 } };
    float inv = 1.0f / det;
    return (sym3){ { c00 * inv, (xx * zz - xz * xz) * inv, (xx * yy - xy * xy) * inv, 0 },
                   { c01 * inv, c02 * inv, (xy * xz - xx * yz) * inv, 0 } };
}

static sym3 block(const float *p)
{
    sym3 s;
    memcpy(s.d, p, 16);
    memcpy(s.o, p + 4, 16);
    return s;
}

/* deform_contact.glsl */
static void contact_add(const struct eddy_deform_params *p, const float n[3], float depth, const float v[3],
                        float f[3], sym3 *J, sym3 *C)
{
    float kc = p->box_min[3], cd = p->box_max[3];
    float s = kc * depth - cd * eddy_cpu_dot3(v, n);
    for (int a = 0; a < 3; a++)
        f[a] += s * n[a];
    sym3 ja = sym_outer(n, kc, 0), cb = sym_outer(n, cd, 0);
    sym_add(J, &ja, 1);
    sym_add(C, &cb, 1);
}

static void contact_force(const eddy_deform_cpu *c, const float x[3], const float v[3], float r, float f[3],
                          sym3 *J, sym3 *C)
{
    const struct eddy_deform_params *p = c->p;
    memset(J, 0, sizeof *J);
    memset(C, 0, sizeof *C);
    f[0] = f[1] = f[2] = 0;
    for (uint32_t k = 0; k < p->counts[2]; k++) {
        float d = eddy_cpu_solid_sdf(&c->solids[k], x), n[3];
        if (d > r)
            continue;
        if (eddy_cpu_solid_normal(&c->solids[k], x, r, n))
            contact_add(p, n, r - d, v, f, J, C);
    }
    for (int a = 0; a < 3; a++) {
        float n[3] = { 0, 0, 0 }, m[3] = { 0, 0, 0 };
        n[a] = 1;
        m[a] = -1;
        float lo = x[a] - p->box_min[a], hi = p->box_max[a] - x[a];
        if (lo <= r)
            contact_add(p, n, r - lo, v, f, J, C);
        if (hi <= r)
            contact_add(p, m, r - hi, v, f, J, C);
    }
}

/* ------------------------------------------------------------------ the step */

int eddy_deform_cpu_init(eddy_deform_cpu *c, const struct eddy_deform_params *p, const eddy_deform_topology *t,
                         const float *edge_param, const uint32_t *flags, const eddy_solid *solids)
{
    memset(c, 0, sizeof *c);
    c->p = p;
    c->t = t;
    c->edge_param = edge_param;
    c->flags = flags;
    c->solids = solids;
    size_t n = t->vertex_count ? t->vertex_count : 1, e = t->edge_count ? t->edge_count : 1;
    c->edge_force = malloc(32 * e);
    c->edge_block = malloc(32 * e);
    c->diag = malloc(64 * n);
    float **v[] = { &c->force, &c->x, &c->r, &c->z, &c->dir, &c->q };
    for (int k = 0; k < 6; k++)
        *v[k] = calloc(4 * n, sizeof(float));
    if (!c->edge_force || !c->edge_block || !c->diag || !c->force || !c->x || !c->r || !c->z || !c->dir || !c->q) {
        eddy_deform_cpu_free(c);
        return -1;
    }
    return 0;
}

void eddy_deform_cpu_free(eddy_deform_cpu *c)
{
    free(c->edge_force);
    free(c->edge_block);
    free(c->diag);
    free(c->force);
    free(c->x);
    free(c->r);
    free(c->z);
    free(c->dir);
    free(c->q);
    memset(c, 0, sizeof *c);
}

void eddy_deform_cpu_springs(eddy_deform_cpu *c, const float *pos, const float *vel)
{
    bool definite = c->p->misc[1] & EDDY_DEFORM_DEFINITE, iso = c->p->misc[1] & EDDY_DEFORM_ISOTROPIC;
    float h = c->p->gravity[3];
    for (uint32_t k = 0; k < c->t->edge_count; k++) {
        uint32_t i = c->t->edges[2 * k], j = c->t->edges[2 * k + 1];
        const float *pr = c->edge_param + 4 * k;
        float d[3] = { pos[4 * j] - pos[4 * i], pos[4 * j + 1] - pos[4 * i + 1], pos[4 * j + 2] - pos[4 * i + 2] };
        float dv[3] = { vel[4 * j] - vel[4 * i], vel[4 * j + 1] - vel[4 * i + 1], vel[4 * j + 2] - vel[4 * i + 2] };
        float len = sqrtf(eddy_cpu_dot3(d, d)), f[3] = { 0, 0, 0 }, n[3] = { 0, 0, 0 };
        sym3 K;
        if (!(len > 0)) {
            K = sym_outer(n, 0, pr[1]);
        } else {
            for (int a = 0; a < 3; a++)
                n[a] = d[a] / len;
            float cc = 1.0f - pr[0] / len;
            if (definite)
                cc = cc > 0 ? cc : 0;
            K = sym_outer(n, pr[1] * (1.0f - cc), pr[1] * cc);
            for (int a = 0; a < 3; a++)
                f[a] = pr[1] * (len - pr[0]) * n[a];
        }
        sym3 O;
        if (iso) {
            for (int a = 0; a < 3; a++)
                f[a] += pr[2] * dv[a];
            float z[3] = { 0, 0, 0 };
            O = sym_outer(z, 0, h * pr[2]);
        } else {
            float s = pr[2] * eddy_cpu_dot3(dv, n);
            for (int a = 0; a < 3; a++)
                f[a] += s * n[a];
            O = sym_outer(n, h * pr[2], 0);
        }
        sym_add(&O, &K, h * h);
        float *ef = c->edge_force + 8 * k;
        memcpy(ef, f, 12);
        ef[3] = fabsf(len / pr[0] - 1.0f);
        sym_mul(&K, dv, ef + 4);
        ef[7] = 0;
        memcpy(c->edge_block + 8 * k, O.d, 16);
        memcpy(c->edge_block + 8 * k + 4, O.o, 16);
    }
}

/* Gravity, springs (CSR order) and contacts of vertex i: the force, and for
 * the implicit step the sums it needs. */
static void gather(const eddy_deform_cpu *c, uint32_t i, const float *pos, const float *vel, const float *mass,
                   float f[3], float kv[3], sym3 *o, sym3 *J, sym3 *C)
{
    const eddy_deform_topology *t = c->t;
    for (int a = 0; a < 3; a++) {
        f[a] = mass[i] * c->p->gravity[a];
        kv[a] = 0;
    }
    memset(o, 0, sizeof *o);
    for (uint32_t k = t->rows[i]; k < t->rows[i + 1]; k++) {
        uint32_t e = t->adj[2 * k + 1] & 0x7fffffffu;
        bool second = t->adj[2 * k + 1] >> 31;
        const float *ef = c->edge_force + 8 * e;
        for (int a = 0; a < 3; a++) {
            f[a] += second ? -ef[a] : ef[a];
            kv[a] += second ? -ef[4 + a] : ef[4 + a];
        }
        sym3 O = block(c->edge_block + 8 * e);
        sym_add(o, &O, 1);
    }
    float fc[3];
    contact_force(c, pos + 4 * i, vel + 4 * i, pos[4 * i + 3], fc, J, C);
    /* Air drag: -drag m v, its -df/dv = drag m I. */
    float drag = c->p->solver[2];
    for (int a = 0; a < 3; a++) {
        f[a] += fc[a];
        f[a] -= drag * mass[i] * vel[4 * i + a];
        C->d[a] += drag * mass[i];
        if (c->external)
            f[a] += c->external[4 * i + a];
    }
}

void eddy_deform_cpu_assemble(eddy_deform_cpu *c, const float *pos, const float *vel, const float *mass)
{
    float h = c->p->gravity[3];
    bool jacobi = c->p->misc[1] & EDDY_DEFORM_JACOBI;
    for (uint32_t i = 0; i < c->t->vertex_count; i++) {
        float f[3], kv[3], y[3];
        sym3 o, J, C;
        gather(c, i, pos, vel, mass, f, kv, &o, &J, &C);
        sym_mul(&J, vel + 4 * i, y);
        for (int a = 0; a < 3; a++)
            kv[a] -= y[a];
        sym3 A = { { 0 }, { 0 } };
        for (int a = 0; a < 3; a++) {
            A.d[a] = mass[i] + o.d[a] + h * C.d[a] + h * h * J.d[a];
            A.o[a] = o.o[a] + h * C.o[a] + h * h * J.o[a];
        }
        bool free_ = c->flags[i] & EDDY_DEFORM_FREE;
        float b[3];
        for (int a = 0; a < 3; a++)
            b[a] = free_ ? h * (f[a] + h * kv[a]) : 0.0f;
        sym3 Pi = jacobi ? sym_inverse(&A) : (sym3){ { 1, 1, 1, 0 }, { 0, 0, 0, 0 } };
        memcpy(c->diag + 16 * i, A.d, 16);
        memcpy(c->diag + 16 * i + 4, A.o, 16);
        memcpy(c->diag + 16 * i + 8, Pi.d, 16);
        memcpy(c->diag + 16 * i + 12, Pi.o, 16);
        for (int a = 0; a < 4; a++) {
            c->x[4 * i + a] = 0;
            c->r[4 * i + a] = a < 3 ? b[a] : 0;
        }
    }
}

void eddy_deform_cpu_matvec(const eddy_deform_cpu *c, const float *v, float *q)
{
    const eddy_deform_topology *t = c->t;
    for (uint32_t i = 0; i < t->vertex_count; i++) {
        float y[3] = { 0, 0, 0 };
        if (c->flags[i] & EDDY_DEFORM_FREE) {
            sym3 A = block(c->diag + 16 * i);
            sym_mul(&A, v + 4 * i, y);
            for (uint32_t k = t->rows[i]; k < t->rows[i + 1]; k++) {
                uint32_t j = t->adj[2 * k], e = t->adj[2 * k + 1] & 0x7fffffffu;
                sym3 O = block(c->edge_block + 8 * e);
                float op[3];
                sym_mul(&O, v + 4 * j, op);
                for (int a = 0; a < 3; a++)
                    y[a] -= op[a];
            }
        }
        for (int a = 0; a < 4; a++)
            q[4 * i + a] = a < 3 ? y[a] : 0;
    }
}

static double dot4(const float *a, const float *b, uint32_t n)
{
    double s = 0;
    for (uint32_t i = 0; i < 4 * n; i++)
        s += (double)a[i] * b[i];
    return s;
}

uint32_t eddy_deform_cpu_solve(eddy_deform_cpu *c)
{
    uint32_t n = c->t->vertex_count;
    for (uint32_t i = 0; i < n; i++) {
        sym3 Pi = block(c->diag + 16 * i + 8);
        sym_mul(&Pi, c->r + 4 * i, c->z + 4 * i);
        c->z[4 * i + 3] = 0;
    }
    memcpy(c->dir, c->z, 16 * (size_t)n);
    double rz = dot4(c->r, c->z, n), bb = dot4(c->r, c->r, n), tol = c->p->solver[0];
    c->iterations = 0;
    c->residual = 0;
    c->status = 1;
    if (!(bb > 0))
        return 0;
    c->residual = 1;
    c->status = 3;
    for (uint32_t it = 0; it < c->p->misc[0]; it++) {
        eddy_deform_cpu_matvec(c, c->dir, c->q);
        double pq = dot4(c->dir, c->q, n);
        if (!(pq > 0)) {
            c->status = 2;
            break;
        }
        float alpha = (float)(rz / pq);
        for (uint32_t i = 0; i < 4 * n; i++) {
            c->x[i] += alpha * c->dir[i];
            c->r[i] -= alpha * c->q[i];
        }
        for (uint32_t i = 0; i < n; i++) {
            sym3 Pi = block(c->diag + 16 * i + 8);
            sym_mul(&Pi, c->r + 4 * i, c->z + 4 * i);
        }
        double rzn = dot4(c->r, c->z, n), rr = dot4(c->r, c->r, n);
        c->iterations = it + 1;
        c->residual = sqrt(rr / bb);
        if (rr <= tol * tol * bb) {
            c->status = 1;
            break;
        }
        float beta = rz > 0 ? (float)(rzn / rz) : 0.0f;
        rz = rzn;
        for (uint32_t i = 0; i < 4 * n; i++)
            c->dir[i] = c->z[i] + beta * c->dir[i];
    }
    return c->iterations;
}

void eddy_deform_cpu_step(eddy_deform_cpu *c, float *pos, float *vel, const float *mass, float *prev)
{
    const struct eddy_deform_params *p = c->p;
    uint32_t n = c->t->vertex_count, integrator = p->counts[3];
    float h = p->gravity[3];
    eddy_deform_cpu_springs(c, pos, vel);
    if (integrator == EDDY_DEFORM_IMPLICIT) {
        eddy_deform_cpu_assemble(c, pos, vel, mass);
        eddy_deform_cpu_solve(c);
        for (uint32_t i = 0; i < n; i++) {
            float *x = pos + 4 * i, *v = vel + 4 * i;
            if (c->flags[i] & EDDY_DEFORM_HANDLE) { /* the GPU's handle vertices: on at their velocity */
                for (int a = 0; a < 3; a++)
                    x[a] += h * v[a];
                continue;
            }
            if (!(c->flags[i] & EDDY_DEFORM_FREE)) {
                v[0] = v[1] = v[2] = v[3] = 0;
                continue;
            }
            for (int a = 0; a < 3; a++) {
                v[a] += c->x[4 * i + a];
                x[a] += h * v[a];
            }
            eddy_cpu_collide(x, v, x[3], c->p->solver[1], c->p->box_min, c->p->box_max, c->solids, c->p->counts[2]);
            v[3] = 0;
        }
        return;
    }
    int stages = integrator == EDDY_DEFORM_VELOCITY_VERLET ? 2 : 1;
    for (int s = 0; s < stages; s++) {
        if (s == 1)
            eddy_deform_cpu_springs(c, pos, vel);
        for (uint32_t i = 0; i < n; i++) {
            float f[3], kv[3];
            sym3 o, J, C;
            gather(c, i, pos, vel, mass, f, kv, &o, &J, &C);
            memcpy(c->force + 4 * i, f, 12);
        }
        for (uint32_t i = 0; i < n; i++) {
            float *x = pos + 4 * i, *v = vel + 4 * i, *pv = prev + 4 * i, a[3];
            if (c->flags[i] & EDDY_DEFORM_HANDLE) {
                for (int k = 0; s != 1 && k < 3; k++)
                    x[k] += h * v[k];
                continue;
            }
            if (!(c->flags[i] & EDDY_DEFORM_FREE)) {
                v[0] = v[1] = v[2] = v[3] = 0;
                continue;
            }
            for (int k = 0; k < 3; k++)
                a[k] = c->force[4 * i + k] / mass[i];
            if (s == 1) {
                for (int k = 0; k < 3; k++)
                    v[k] = v[k] + 0.5f * h * (a[k] - pv[k]);
                continue;
            }
            for (int k = 0; k < 3; k++) {
                if (integrator == EDDY_DEFORM_EULER) {
                    x[k] += h * v[k];
                    v[k] += h * a[k];
                } else if (integrator == EDDY_DEFORM_SYMPLECTIC) {
                    v[k] += h * a[k];
                    x[k] += h * v[k];
                } else if (integrator == EDDY_DEFORM_VERLET) {
                    float xn = 2.0f * x[k] - pv[k] + h * h * a[k];
                    pv[k] = x[k];
                    v[k] = (xn - x[k]) / h;
                    x[k] = xn;
                } else {
                    x[k] += h * v[k] + 0.5f * h * h * a[k];
                    pv[k] = a[k];
                    v[k] += h * a[k];
                }
            }
            eddy_cpu_collide(x, v, x[3], c->p->solver[1], c->p->box_min, c->p->box_max, c->solids, c->p->counts[2]);
            v[3] = 0;
        }
    }
}
