/* The CPU reference of one rigid/granular substep: the shaders' equations in
 * C with the grid of modules/common/cpu_grid.h, the same neighbour order. */
#include "rigid.h"

#include "common/cpu_grid.h"
#include "common/cpu_solids.h"

#include <math.h>
#include <stdio.h>

#define NO_CONTACT 0xffffffffu
#define WALL_ID 0xfffffff0u

/* rigid_contact_n: along unit n with the given overlap (m). */
static void contact_n(const struct eddy_rigid_params *p, const float n[3], float overlap, const float v[3], float k,
                      float xi[3], float f[3])
{
    float vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2], vt[3];
    for (int a = 0; a < 3; a++) {
        vt[a] = v[a] - vn * n[a];
        f[a] += -k * overlap * n[a] + p->coeffs[0] * v[a] + p->coeffs[1] * vt[a];
    }
    float mu = p->coeffs[3];
    if (mu > 0) {
        float ks = (2.0f / 7.0f) * k, fn = fmaxf(k * overlap - p->coeffs[0] * vn, 0.0f);
        float xn = xi[0] * n[0] + xi[1] * n[1] + xi[2] * n[2];
        for (int a = 0; a < 3; a++)
            xi[a] = xi[a] - xn * n[a] + vt[a] * p->box_max[3];
        float xl = sqrtf(xi[0] * xi[0] + xi[1] * xi[1] + xi[2] * xi[2]), lim = mu * fn / ks;
        if (xl > lim)
            for (int a = 0; a < 3; a++)
                xi[a] *= lim / xl;
        for (int a = 0; a < 3; a++)
            f[a] += ks * xi[a];
    }
}

static void contact(const struct eddy_rigid_params *p, const float r[3], const float v[3], float k,
                    float xi[3], float f[3])
{
    float d = p->box_min[3], r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    if (r2 >= d * d || r2 == 0) {
        xi[0] = xi[1] = xi[2] = 0;
        return;
    }
    float len = sqrtf(r2), n[3] = { r[0] / len, r[1] / len, r[2] / len };
    contact_n(p, n, d - len, v, k, xi, f);
}

typedef struct memory {
    const uint32_t *id_in;
    const float *xi_in;
    uint32_t *id_out;
    float *xi_out;
    uint32_t slot0, used;
} memory;

static void recall(const memory *m, uint32_t id, float xi[3])
{
    xi[0] = xi[1] = xi[2] = 0;
    for (uint32_t s = 0; m->id_in && s < EDDY_RIGID_SLOTS; s++) {
        uint32_t h = m->id_in[m->slot0 + s];
        if (h == NO_CONTACT)
            break;
        if (h == id) {
            memcpy(xi, m->xi_in + 4 * (m->slot0 + s), 12);
            return;
        }
    }
}

static void remember(memory *m, uint32_t id, const float xi[3])
{
    if (m->id_out && m->used < EDDY_RIGID_SLOTS) {
        m->id_out[m->slot0 + m->used] = id;
        memcpy(m->xi_out + 4 * (m->slot0 + m->used), xi, 12);
        m->xi_out[4 * (m->slot0 + m->used) + 3] = 0;
        m->used++;
    }
}

static void rotate(const float *q, const float *v, float out[3])
{
    float t[3] = { 2 * (q[1] * v[2] - q[2] * v[1]), 2 * (q[2] * v[0] - q[0] * v[2]), 2 * (q[0] * v[1] - q[1] * v[0]) };
    float c[3] = { q[1] * t[2] - q[2] * t[1], q[2] * t[0] - q[0] * t[2], q[0] * t[1] - q[1] * t[0] };
    for (int a = 0; a < 3; a++)
        out[a] = v[a] + q[3] * t[a] + c[a];
}

static void matrix(const float *q, float R[9])
{
    float x = q[0], y = q[1], z = q[2], s = q[3];
    float m[9] = { 1 - 2 * (y * y + z * z), 2 * (x * y - s * z), 2 * (x * z + s * y),
                   2 * (x * y + s * z), 1 - 2 * (x * x + z * z), 2 * (y * z - s * x),
                   2 * (x * z - s * y), 2 * (y * z + s * x), 1 - 2 * (x * x + y * y) };
    memcpy(R, m, sizeof m);
}

/* rigid_integrate.comp's rigid_free_rotation: the new orientation after a
 * free rotation over dt at constant L (implicit midpoint in the body frame). */
static void free_rotation(const struct eddy_rigid_body *b, float dt, float q_out[4])
{
    const float I0[9] = { b->iinv[0], b->iinv2[0], b->iinv2[1], b->iinv2[0], b->iinv[1], b->iinv2[2],
                          b->iinv2[1], b->iinv2[2], b->iinv[2] };
    float R[9], lb[3], ln[3], a[3] = { 0, 0, 0 };
    matrix(b->q, R);
    for (int i = 0; i < 3; i++)
        lb[i] = R[i] * b->l[0] + R[3 + i] * b->l[1] + R[6 + i] * b->l[2];
    memcpy(ln, lb, sizeof ln);
    for (int it = 0; it < RIGID_ROTATE_ITERATIONS; it++) {
        float m[3] = { lb[0] + ln[0], lb[1] + ln[1], lb[2] + ln[2] }, y[3], ay[3], aa, ad;
        for (int i = 0; i < 3; i++)
            a[i] = 0.25f * dt * (I0[3 * i] * m[0] + I0[3 * i + 1] * m[1] + I0[3 * i + 2] * m[2]);
        eddy_cpu_cross3(a, lb, y);
        for (int i = 0; i < 3; i++)
            y[i] = lb[i] - y[i];
        eddy_cpu_cross3(a, y, ay);
        aa = eddy_cpu_dot3(a, a);
        ad = eddy_cpu_dot3(a, y);
        for (int i = 0; i < 3; i++)
            ln[i] = (y[i] - ay[i] + a[i] * ad) / (1.0f + aa);
    }
    float n = sqrtf(1.0f + a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    float r[4] = { a[0] / n, a[1] / n, a[2] / n, 1.0f / n }, qv[3];
    const float *q = b->q;
    eddy_cpu_cross3(q, r, qv);
    float nq[4] = { q[3] * r[0] + r[3] * q[0] + qv[0], q[3] * r[1] + r[3] * q[1] + qv[1],
                    q[3] * r[2] + r[3] * q[2] + qv[2], q[3] * r[3] - (q[0] * r[0] + q[1] * r[1] + q[2] * r[2]) };
    float len = sqrtf(nq[0] * nq[0] + nq[1] * nq[1] + nq[2] * nq[2] + nq[3] * nq[3]);
    for (int i = 0; i < 4; i++)
        q_out[i] = nq[i] / len;
}

static void omega(const struct eddy_rigid_body *b, const float R[9], float w[3])
{
    const float I0[9] = { b->iinv[0], b->iinv2[0], b->iinv2[1], b->iinv2[0], b->iinv[1], b->iinv2[2],
                          b->iinv2[1], b->iinv2[2], b->iinv[2] };
    float a[3], c[3];
    for (int i = 0; i < 3; i++) /* R^T L */
        a[i] = R[i] * b->l[0] + R[3 + i] * b->l[1] + R[6 + i] * b->l[2];
    for (int i = 0; i < 3; i++)
        c[i] = I0[3 * i] * a[0] + I0[3 * i + 1] * a[1] + I0[3 * i + 2] * a[2];
    for (int i = 0; i < 3; i++)
        w[i] = R[3 * i] * c[0] + R[3 * i + 1] * c[1] + R[3 * i + 2] * c[2];
}

/* rigid_integrate.comp's rigid_box_limit: the body moved back until no
 * particle centre is past a wall plane, its momentum into the wall dropped. */
static void box_limit(const struct eddy_rigid_params *p, struct eddy_rigid_body *b, const float *rest,
                      uint32_t first, uint32_t end)
{
    float below[3] = { 0, 0, 0 }, above[3] = { 0, 0, 0 }, r[3];
    for (uint32_t i = first; i < end; i++) {
        rotate(b->q, rest + 4 * i, r);
        for (int a = 0; a < 3; a++) {
            float x = b->x[a] + r[a];
            below[a] = fmaxf(below[a], p->box_min[a] - x);
            above[a] = fmaxf(above[a], x - p->box_max[a]);
        }
    }
    for (int a = 0; a < 3; a++) {
        float margin = 1e-5f * p->box_min[3] + 4e-7f * (fabsf(b->x[a]) + fabsf(p->box_min[a]) + fabsf(p->box_max[a]));
        if (below[a] > 0 && above[a] > 0) {
            b->x[a] += 0.5f * (below[a] - above[a]);
            b->p[a] = 0;
        } else if (below[a] > 0) {
            b->x[a] += below[a] + margin;
            b->p[a] = fmaxf(b->p[a], 0);
        } else if (above[a] > 0) {
            b->x[a] -= above[a] + margin;
            b->p[a] = fminf(b->p[a], 0);
        }
    }
}

void eddy_rigid_step_cpu(const struct eddy_rigid_params *p, uint32_t n, float *pos, float *vel,
                         const float *mass, const uint32_t *phase, const float *rest,
                         struct eddy_rigid_body *bodies, const uint32_t *offsets,
                         uint32_t *hist_id, float *hist_xi, const float *external, float *added)
{
    bool granular = p->dims[3] != 0, friction = p->coeffs[3] > 0 && hist_id && hist_xi;
    uint32_t *id_out = friction ? malloc(4ull * EDDY_RIGID_SLOTS * n + 4) : NULL;
    float *xi_out = friction ? calloc((size_t)EDDY_RIGID_SLOTS * n * 4 + 4, sizeof *xi_out) : NULL;
    float dt = p->box_max[3], d = p->box_min[3];
    float *f = calloc((size_t)n * 4 + 4, sizeof *f), *t = calloc((size_t)n * 4 + 4, sizeof *t);
    eddy_cpu_grid g = { { p->grid[0], p->grid[1], p->grid[2] }, p->grid[3],
                        { p->dims[0], p->dims[1], p->dims[2] }, 0, NULL, NULL, NULL };
    if (!f || !t || !eddy_cpu_grid_build(&g, pos, n)) {
        free(f), free(t);
        eddy_cpu_grid_free(&g);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        const float *xi = pos + 4 * i, *vi = vel + 4 * i;
        float *fi = f + 4 * i, sh[3];
        memory mem = { friction ? hist_id : NULL, hist_xi, id_out, xi_out, friction ? i * EDDY_RIGID_SLOTS : 0, 0 };
        EDDY_CPU_NEIGHBOURS(&g, xi, j) {
            if (granular ? j == i : phase[j] == phase[i])
                continue;
            float r[3] = { pos[4 * j] - xi[0], pos[4 * j + 1] - xi[1], pos[4 * j + 2] - xi[2] };
            if (r[0] * r[0] + r[1] * r[1] + r[2] * r[2] >= d * d)
                continue;
            float v[3] = { vel[4 * j] - vi[0], vel[4 * j + 1] - vi[1], vel[4 * j + 2] - vi[2] };
            recall(&mem, j, sh);
            contact(p, r, v, p->gravity[3], sh, fi);
            remember(&mem, j, sh);
        }
        for (int a = 0; a < 3; a++) {
            float lo = xi[a] - p->box_min[a], hi = p->box_max[a] - xi[a];
            float mv[3] = { -vi[0], -vi[1], -vi[2] };
            /* the signed distance to the wall (rigid_walls) */
            if (lo < 0.5f * d) {
                float n[3] = { 0, 0, 0 };
                n[a] = -1;
                recall(&mem, WALL_ID + 2 * a, sh);
                contact_n(p, n, d - 2 * lo, mv, p->coeffs[2], sh, fi);
                remember(&mem, WALL_ID + 2 * a, sh);
            }
            if (hi < 0.5f * d) {
                float n[3] = { 0, 0, 0 };
                n[a] = 1;
                recall(&mem, WALL_ID + 2 * a + 1, sh);
                contact_n(p, n, d - 2 * hi, mv, p->coeffs[2], sh, fi);
                remember(&mem, WALL_ID + 2 * a + 1, sh);
            }
        }
        if (friction && mem.used < EDDY_RIGID_SLOTS)
            id_out[mem.slot0 + mem.used] = NO_CONTACT;
        if (external)
            for (int a = 0; a < 3; a++)
                fi[a] += external[4 * i + a];
        if (!granular) {
            const float *X = bodies[phase[i]].x;
            float r[3] = { xi[0] - X[0], xi[1] - X[1], xi[2] - X[2] };
            t[4 * i] = r[1] * fi[2] - r[2] * fi[1];
            t[4 * i + 1] = r[2] * fi[0] - r[0] * fi[2];
            t[4 * i + 2] = r[0] * fi[1] - r[1] * fi[0];
        }
    }
    eddy_cpu_grid_free(&g);
    if (friction) {
        memcpy(hist_id, id_out, 4ull * EDDY_RIGID_SLOTS * n);
        memcpy(hist_xi, xi_out, 16ull * EDDY_RIGID_SLOTS * n);
    }
    free(id_out), free(xi_out);
    if (granular) {
        for (uint32_t i = 0; i < n; i++)
            for (int a = 0; a < 3; a++) {
                float v = vel[4 * i + a] + (f[4 * i + a] / mass[i] + p->gravity[a]) * dt;
                float x = pos[4 * i + a] + v * dt;
                if (x < p->box_min[a])
                    x = p->box_min[a], v = fmaxf(v, 0);
                else if (x > p->box_max[a])
                    x = p->box_max[a], v = fminf(v, 0);
                vel[4 * i + a] = v;
                pos[4 * i + a] = x;
            }
        free(f), free(t);
        return;
    }
    for (uint32_t k = 0; k < p->counts[1]; k++) {
        struct eddy_rigid_body *b = &bodies[k];
        double F[3] = { 0, 0, 0 }, T[3] = { 0, 0, 0 };
        for (uint32_t i = offsets[k]; i < offsets[k + 1]; i++)
            for (int a = 0; a < 3; a++) {
                F[a] += f[4 * i + a];
                T[a] += t[4 * i + a];
            }
        float M = b->x[3], R[9], W[3];
        float *ad = added && added[4 * k + 3] > 0 ? added + 4 * k : NULL;
        for (int a = 0; a < 3; a++) {
            float Fa = (float)F[a] + M * p->gravity[a];
            if (ad) {
                /* rigid_integrate.comp's rigid_translate */
                ad[a] = (Fa + ad[3] * ad[a]) / (M + ad[3]);
                b->p[a] += M * ad[a] * dt;
            } else {
                b->p[a] += Fa * dt;
            }
            b->l[a] += (float)T[a] * dt;
            b->x[a] += b->p[a] / M * dt;
        }
        float nq[4];
        free_rotation(b, dt, nq);
        memcpy(b->q, nq, sizeof nq);
        box_limit(p, b, rest, offsets[k], offsets[k + 1]);
        matrix(b->q, R);
        omega(b, R, W);
        for (int a = 0; a < 3; a++) {
            b->v[a] = b->p[a] / M;
            b->w[a] = W[a];
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        const struct eddy_rigid_body *b = &bodies[phase[i]];
        float r[3];
        rotate(b->q, rest + 4 * i, r);
        for (int a = 0; a < 3; a++)
            pos[4 * i + a] = b->x[a] + r[a];
        vel[4 * i] = b->v[0] + (b->w[1] * r[2] - b->w[2] * r[1]);
        vel[4 * i + 1] = b->v[1] + (b->w[2] * r[0] - b->w[0] * r[2]);
        vel[4 * i + 2] = b->v[2] + (b->w[0] * r[1] - b->w[1] * r[0]);
    }
    free(f), free(t);
}

/* inv = m^-1 for a 3x3 matrix (row major) by cofactors; returns det(m)
 * (inv is left unset when it is not > 0). */
static double invert3(const double m[9], double inv[9])
{
    double A = m[4] * m[8] - m[5] * m[7], B = m[5] * m[6] - m[3] * m[8], C = m[3] * m[7] - m[4] * m[6];
    double det = m[0] * A + m[1] * B + m[2] * C;
    if (!(det > 0))
        return det;
    double r[9] = { A, m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
                    B, m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
                    C, m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3] };
    for (int i = 0; i < 9; i++)
        inv[i] = r[i] / det;
    return det;
}

int64_t eddy_rigid_build_bodies(uint32_t n, const float *pos, const float *vel, const float *mass,
                                const uint32_t *phase, double d, struct eddy_rigid_body **bodies_out,
                                float **rest_out, uint32_t **offsets_out, char *err, size_t err_size)
{
    *bodies_out = NULL, *rest_out = NULL, *offsets_out = NULL;
    if (n == 0 || phase[0] != 0) {
        snprintf(err, err_size, "the first particle's phase (body index) is %u; bodies are numbered from 0",
                 n ? phase[0] : 0);
        return -1;
    }
    for (uint32_t i = 1; i < n; i++)
        if (phase[i] != phase[i - 1] && phase[i] != phase[i - 1] + 1) {
            snprintf(err, err_size, "particle %u has phase %u after %u: each body's particles must come "
                     "together, bodies in order (a particle set with \"bodies\": true does this)",
                     i, phase[i], phase[i - 1]);
            return -1;
        }
    uint32_t B = phase[n - 1] + 1;
    struct eddy_rigid_body *bodies = calloc(B, sizeof *bodies);
    float *rest = calloc((size_t)n * 4, sizeof *rest);
    uint32_t *off = calloc((size_t)B + 1, sizeof *off);
    if (!bodies || !rest || !off) {
        free(bodies), free(rest), free(off);
        snprintf(err, err_size, "out of host memory");
        return -1;
    }
    for (uint32_t i = 0; i < n; i++)
        off[phase[i] + 1] = i + 1;
    for (uint32_t k = 0; k < B; k++) {
        double M = 0, c[3] = { 0, 0, 0 }, P[3] = { 0, 0, 0 }, L[3] = { 0, 0, 0 }, I[9] = { 0 }, Ip[9] = { 0 };
        for (uint32_t i = off[k]; i < off[k + 1]; i++) {
            double m = mass[i];
            if (!(m > 0) || !isfinite(m)) {
                snprintf(err, err_size, "particle %u of body %u has mass %g; expected > 0 (kg)", i, k, m);
                free(bodies), free(rest), free(off);
                return -1;
            }
            M += m;
            for (int a = 0; a < 3; a++) {
                c[a] += m * pos[4 * i + a];
                P[a] += m * vel[4 * i + a];
            }
        }
        for (int a = 0; a < 3; a++)
            c[a] /= M;
        for (uint32_t i = off[k]; i < off[k + 1]; i++) {
            double m = mass[i], r[3], v[3] = { vel[4 * i], vel[4 * i + 1], vel[4 * i + 2] };
            for (int a = 0; a < 3; a++)
                r[a] = pos[4 * i + a] - c[a];
            double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) {
                    I[3 * a + b] += m * ((a == b ? r2 + d * d / 6 : 0) - r[a] * r[b]);
                    Ip[3 * a + b] += m * ((a == b ? r2 : 0) - r[a] * r[b]);
                }
            L[0] += m * (r[1] * v[2] - r[2] * v[1]);
            L[1] += m * (r[2] * v[0] - r[0] * v[2]);
            L[2] += m * (r[0] * v[1] - r[1] * v[0]);
            for (int a = 0; a < 3; a++)
                rest[4 * i + a] = (float)r[a];
        }
        /* The inverse of the inertia tensor. */
        double inv[9], det = invert3(I, inv);
        if (!(det > 0)) {
            snprintf(err, err_size, "body %u has a singular inertia tensor (det %g); give its particles a "
                     "diameter > 0", k, det);
            free(bodies), free(rest), free(off);
            return -1;
        }
        /* The particles' velocities as a rigid motion: the spin omega that
         * best fits them (least squares: Ip omega = L of the point masses;
         * exact for v = V + omega x r, a fill's angular_velocity), and L =
         * I omega with the body's inertia (the particles' own too). A body
         * of one particle, or of particles on a line, keeps L as summed. */
        double pinv[9], tr = Ip[0] + Ip[4] + Ip[8];
        if (invert3(Ip, pinv) > 1e-9 * tr * tr * tr) {
            double w[3];
            for (int a = 0; a < 3; a++)
                w[a] = pinv[3 * a] * L[0] + pinv[3 * a + 1] * L[1] + pinv[3 * a + 2] * L[2];
            for (int a = 0; a < 3; a++)
                L[a] = I[3 * a] * w[0] + I[3 * a + 1] * w[1] + I[3 * a + 2] * w[2];
        }
        struct eddy_rigid_body *b = &bodies[k];
        for (int a = 0; a < 3; a++) {
            b->x[a] = (float)c[a];
            b->p[a] = (float)P[a];
            b->l[a] = (float)L[a];
            b->v[a] = (float)(P[a] / M);
            b->w[a] = (float)(inv[3 * a] * L[0] + inv[3 * a + 1] * L[1] + inv[3 * a + 2] * L[2]);
        }
        b->x[3] = (float)M;
        b->q[3] = 1;
        b->iinv[0] = (float)inv[0], b->iinv[1] = (float)inv[4], b->iinv[2] = (float)inv[8];
        b->iinv2[0] = (float)inv[1], b->iinv2[1] = (float)inv[2], b->iinv2[2] = (float)inv[5];
    }
    *bodies_out = bodies, *rest_out = rest, *offsets_out = off;
    return B;
}

static int key_order(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Lattice site of a particle relative to its body's first one, packed as
 * three 21-bit offsets (bodies span fewer than 2^20 diameters). */
static uint64_t site_key(const float *pos, const float *first, double d, const int64_t shift[3])
{
    uint64_t k = 0;
    for (int a = 0; a < 3; a++)
        k = k << 21 | (uint64_t)((llround((pos[a] - first[a]) / d) + shift[a] + (1 << 20)) & 0x1fffff);
    return k;
}

void eddy_rigid_fluid_inverse_mass(uint32_t n, const float *pos, const float *mass,
                                   const uint32_t *offsets, uint32_t bodies, double d, bool granular,
                                   float *out)
{
    if (granular) {
        for (uint32_t i = 0; i < n; i++)
            out[i] = 1.0f / mass[i];
        return;
    }
    uint64_t *keys = malloc(8ull * n + 8);
    for (uint32_t k = 0; k < bodies; k++) {
        uint32_t lo = offsets[k], hi = offsets[k + 1], surface = 0;
        double M = 0;
        for (uint32_t i = lo; i < hi; i++)
            M += mass[i];
        if (keys) {
            static const int64_t zero[3] = { 0, 0, 0 };
            for (uint32_t i = lo; i < hi; i++)
                keys[i - lo] = site_key(pos + 4 * i, pos + 4 * lo, d, zero);
            qsort(keys, hi - lo, 8, key_order);
            for (uint32_t i = lo; i < hi; i++) {
                bool inside = true;
                for (int s = 0; s < 6 && inside; s++) {
                    int64_t shift[3] = { 0, 0, 0 };
                    shift[s / 2] = s % 2 ? 1 : -1;
                    uint64_t q = site_key(pos + 4 * i, pos + 4 * lo, d, shift);
                    inside = bsearch(&q, keys, hi - lo, 8, key_order) != NULL;
                }
                surface += !inside;
            }
        } else {
            surface = hi - lo; /* no memory for the search: every particle counts */
        }
        for (uint32_t i = lo; i < hi; i++)
            out[i] = (float)((surface ? surface : 1) / M);
    }
    free(keys);
}
