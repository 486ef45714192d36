/* Solids as triangles for the viewer. Shading is flat from the triangles'
 * own normals (view/mesh.frag), so the tessellation only needs enough
 * segments to read as round: 24 around, 12 from pole to pole. */
#include "view_solids.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

enum { AROUND = 24, POLES = 12 };

typedef struct tess {
    float *out;
    uint32_t n, max;
    bool full; /* a triangle did not fit */
} tess;

static void tri(tess *t, const double a[3], const double b[3], const double c[3])
{
    if (t->n + 3 > t->max) {
        t->full = true;
        return;
    }
    const double *p[3] = { a, b, c };
    for (int k = 0; k < 3; k++) {
        float *o = t->out + 4 * (size_t)t->n++;
        o[0] = (float)p[k][0], o[1] = (float)p[k][1], o[2] = (float)p[k][2], o[3] = 1;
    }
}

static void quad(tess *t, const double a[3], const double b[3], const double c[3], const double d[3])
{
    tri(t, a, b, c);
    tri(t, a, c, d);
}

/* Two unit vectors normal to the unit axis u and to each other. */
static void basis(const double u[3], double e1[3], double e2[3])
{
    double h[3] = { fabs(u[0]) < 0.9 ? 1 : 0, fabs(u[0]) < 0.9 ? 0 : 1, 0 };
    e1[0] = u[1] * h[2] - u[2] * h[1], e1[1] = u[2] * h[0] - u[0] * h[2], e1[2] = u[0] * h[1] - u[1] * h[0];
    double n = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    for (int k = 0; k < 3; k++)
        e1[k] /= n;
    e2[0] = u[1] * e1[2] - u[2] * e1[1], e2[1] = u[2] * e1[0] - u[0] * e1[2], e2[2] = u[0] * e1[1] - u[1] * e1[0];
}

/* The point at angle `a` around the axis, radius r from c, h along u. */
static void ring_point(const double c[3], const double u[3], const double e1[3], const double e2[3], double r,
                       double h, double a, double out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = c[k] + h * u[k] + r * (cos(a) * e1[k] + sin(a) * e2[k]);
}

/* A band between radius r0 at height h0 and r1 at h1 (a wall, a disk, a ring). */
static void band(tess *t, const double c[3], const double u[3], double r0, double h0, double r1, double h1)
{
    double e1[3], e2[3];
    basis(u, e1, e2);
    for (int i = 0; i < AROUND; i++) {
        double a0 = 2 * M_PI * i / AROUND, a1 = 2 * M_PI * (i + 1) / AROUND, p[4][3];
        ring_point(c, u, e1, e2, r0, h0, a0, p[0]);
        ring_point(c, u, e1, e2, r0, h0, a1, p[1]);
        ring_point(c, u, e1, e2, r1, h1, a1, p[2]);
        ring_point(c, u, e1, e2, r1, h1, a0, p[3]);
        quad(t, p[0], p[1], p[2], p[3]);
    }
}

static void sphere(tess *t, const double c[3], double r)
{
    static const double up[3] = { 0, 1, 0 };
    for (int j = 0; j < POLES; j++) {
        double b0 = M_PI * j / POLES - M_PI / 2, b1 = M_PI * (j + 1) / POLES - M_PI / 2;
        band(t, c, up, r * cos(b0), r * sin(b0), r * cos(b1), r * sin(b1));
    }
}

static void plane(tess *t, const float *a, const float *b, const double lo[3], const double hi[3])
{
    double n[3] = { b[0], b[1], b[2] }, mid[3], e1[3], e2[3], half = 0, d = 0;
    for (int k = 0; k < 3; k++) {
        mid[k] = 0.5 * (lo[k] + hi[k]);
        half += 0.25 * (hi[k] - lo[k]) * (hi[k] - lo[k]);
        d += (mid[k] - a[k]) * n[k];
    }
    half = sqrt(half);
    basis(n, e1, e2);
    double p[4][3];
    for (int k = 0; k < 3; k++) {
        double o = mid[k] - d * n[k];
        p[0][k] = o - half * e1[k] - half * e2[k], p[1][k] = o + half * e1[k] - half * e2[k];
        p[2][k] = o + half * e1[k] + half * e2[k], p[3][k] = o - half * e1[k] + half * e2[k];
    }
    quad(t, p[0], p[1], p[2], p[3]);
}

static void capsule(tess *t, const float *a, const float *b)
{
    double p0[3] = { a[0], a[1], a[2] }, p1[3] = { b[0], b[1], b[2] }, u[3], len = 0;
    for (int k = 0; k < 3; k++)
        u[k] = p1[k] - p0[k], len += u[k] * u[k];
    len = sqrt(len);
    sphere(t, p0, a[3]);
    sphere(t, p1, a[3]);
    if (len > 0) {
        for (int k = 0; k < 3; k++)
            u[k] /= len;
        band(t, p0, u, a[3], 0, a[3], len);
    }
}

static void glass(tess *t, const float *a, const float *b, const float *c)
{
    double bottom[3] = { a[0], a[1], a[2] }, u[3] = { b[0], b[1], b[2] };
    double r = a[3], h = b[3], w = c[0];
    band(t, bottom, u, r, 0, r, h);                /* inner wall */
    band(t, bottom, u, r + w, -w, r + w, h);       /* outer wall */
    band(t, bottom, u, 0, 0, r, 0);                /* inner bottom */
    band(t, bottom, u, 0, -w, r + w, -w);          /* outer bottom */
    band(t, bottom, u, r, h, r + w, h);            /* rim */
}

uint32_t view_tessellate_solids(const eddy_solid *solids, uint32_t count, const double box_lo[3],
                                const double box_hi[3], float *out, uint32_t max)
{
    tess t = { out, 0, max, false };
    for (uint32_t i = 0; i < count; i++) {
        uint32_t before = t.n;
        const eddy_solid *s = &solids[i];
        double c[3] = { s->a[0], s->a[1], s->a[2] };
        switch (s->type) {
        case EDDY_SOLID_PLANE: plane(&t, s->a, s->b, box_lo, box_hi); break;
        case EDDY_SOLID_SPHERE: sphere(&t, c, s->a[3]); break;
        case EDDY_SOLID_CAPSULE: capsule(&t, s->a, s->b); break;
        case EDDY_SOLID_GLASS: glass(&t, s->a, s->b, s->c); break;
        default: break;
        }
        if (t.full) /* this solid was cut short: leave it out */
            return before;
    }
    return t.n;
}
