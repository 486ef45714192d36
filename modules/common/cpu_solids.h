/* The static solids of eddy_solids.h on the CPU, for the modules' C
 * references: the signed distance and the outward normal of
 * shaders/solids.glsl, operation for operation in float. */
#ifndef EDDY_COMMON_CPU_SOLIDS_H
#define EDDY_COMMON_CPU_SOLIDS_H

#include "eddy/eddy_solids.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

static inline float eddy_cpu_dot3(const float *a, const float *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void eddy_cpu_cross3(const float *a, const float *b, float *out)
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static inline float eddy_cpu_box2_sdf(float px, float py, float cx, float cy, float ex, float ey)
{
    float dx = fabsf(px - cx) - ex, dy = fabsf(py - cy) - ey;
    float mx = dx > 0 ? dx : 0, my = dy > 0 ? dy : 0;
    float inside = dx > dy ? dx : dy;
    return sqrtf(mx * mx + my * my) + (inside < 0 ? inside : 0);
}

static inline float eddy_cpu_solid_sdf(const eddy_solid *s, const float *x)
{
    float q[3] = { x[0] - s->a[0], x[1] - s->a[1], x[2] - s->a[2] };
    switch (s->type) {
    case EDDY_SOLID_PLANE:
        return eddy_cpu_dot3(q, s->b);
    case EDDY_SOLID_SPHERE:
        return sqrtf(eddy_cpu_dot3(q, q)) - s->a[3];
    case EDDY_SOLID_CAPSULE: {
        float ab[3] = { s->b[0] - s->a[0], s->b[1] - s->a[1], s->b[2] - s->a[2] };
        float den = eddy_cpu_dot3(ab, ab);
        float t = eddy_cpu_dot3(q, ab) / (den > 1e-30f ? den : 1e-30f);
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        float d[3] = { q[0] - t * ab[0], q[1] - t * ab[1], q[2] - t * ab[2] };
        return sqrtf(eddy_cpu_dot3(d, d)) - s->a[3];
    }
    case EDDY_SOLID_GLASS: {
        float z = eddy_cpu_dot3(q, s->b);
        float d[3] = { q[0] - z * s->b[0], q[1] - z * s->b[1], q[2] - z * s->b[2] };
        float rho = sqrtf(eddy_cpu_dot3(d, d)), R = s->a[3], H = s->b[3], t = s->c[0];
        float wall = eddy_cpu_box2_sdf(rho, z, R + 0.5f * t, 0.5f * (H - t), 0.5f * t, 0.5f * (H + t));
        float bottom = eddy_cpu_box2_sdf(rho, z, 0.0f, -0.5f * t, R + t, 0.5f * t);
        return wall < bottom ? wall : bottom;
    }
    }
    return 1e30f;
}

/* eddy_solid_normal: false where the distance has no gradient. */
static inline bool eddy_cpu_solid_normal(const eddy_solid *s, const float *x, float r, float n[3])
{
    float h = 1e-3f * r > 1e-7f ? 1e-3f * r : 1e-7f;
    for (int a = 0; a < 3; a++) {
        float xp[3] = { x[0], x[1], x[2] }, xm[3] = { x[0], x[1], x[2] };
        xp[a] += h;
        xm[a] -= h;
        n[a] = eddy_cpu_solid_sdf(s, xp) - eddy_cpu_solid_sdf(s, xm);
    }
    float len = sqrtf(eddy_cpu_dot3(n, n));
    if (len <= 0)
        return false;
    for (int a = 0; a < 3; a++)
        n[a] /= len;
    return true;
}

/* solids.glsl's eddy_collide: x (radius r) pushed out of every solid and
 * the box [lo, hi] shrunk by r, an inward normal velocity reflected and
 * scaled by the restitution e. */
static inline void eddy_cpu_collide(float x[3], float v[3], float r, float e, const float lo[3], const float hi[3],
                                    const eddy_solid *solids, uint32_t solid_count)
{
    for (uint32_t k = 0; k < solid_count; k++) {
        const eddy_solid *s = &solids[k];
        float d = eddy_cpu_solid_sdf(s, x), n[3];
        if (d >= r || !eddy_cpu_solid_normal(s, x, r, n))
            continue;
        for (int a = 0; a < 3; a++)
            x[a] += (r - d) * n[a];
        float vn = eddy_cpu_dot3(v, n);
        if (vn < 0)
            for (int a = 0; a < 3; a++)
                v[a] -= (1.0f + e) * vn * n[a];
    }
    for (int a = 0; a < 3; a++) {
        if (x[a] < lo[a] + r) {
            x[a] = lo[a] + r;
            if (v[a] < 0)
                v[a] = -e * v[a];
        } else if (x[a] > hi[a] - r) {
            x[a] = hi[a] - r;
            if (v[a] > 0)
                v[a] = -e * v[a];
        }
    }
}

#endif
