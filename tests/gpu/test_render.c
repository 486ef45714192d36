/* The offscreen renderer against a CPU reference of the same image (ray
 * against every sphere and triangle per pixel, nearest hit, ties to the
 * lowest id, the same shading): spheres: at most 0.5% of pixels may differ by
 * more than 2 levels (edges where float rounding decides hit or miss);
 * triangle surfaces with spheres (test_triangles): at most 1% by more than 1
 * level. Also: a lone sphere's disc has the radius the pinhole projection
 * gives, the picture is the same on a second render, a set drawn as
 * triangles draws no spheres, and the PNG file decodes to the same pixels. */
#include "gpu_test.h"
#include "render.h"

#include <math.h>
#include <png.h>
#include <unistd.h>

enum { W = 160, H = 120, N = 60 };

static void sub(const float *a, const float *b, float *o) { o[0] = a[0] - b[0], o[1] = a[1] - b[1], o[2] = a[2] - b[2]; }
static float dot(const float *a, const float *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void norm(float *v) { float l = sqrtf(dot(v, v)); v[0] /= l, v[1] /= l, v[2] /= l; }
static void cross(const float *a, const float *b, float *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1], o[1] = a[2] * b[0] - a[0] * b[2], o[2] = a[0] * b[1] - a[1] * b[0];
}

/* A triangle of the CPU reference: corners (m) and colour scalar. */
typedef struct cpu_tri {
    float p[3][3], s;
} cpu_tri;

/* What the reference image shows: pixels of spheres and of triangles, and
 * those where both are hit and the nearer one hides the other. */
typedef struct cpu_stats {
    int sphere, triangle, sphere_hides_triangle, triangle_hides_sphere;
} cpu_stats;

/* The renderer's image in C: per pixel the ray through its centre against
 * every sphere and every triangle (Möller–Trumbore, edges inside; a triangle
 * with a corner at view depth <= 1 mm skipped), the nearest hit, ties to the
 * lowest id (spheres' ids come first), the same shading (a triangle's face
 * normal turned toward the viewer). */
static void cpu_frame(const eddy_render_desc *d, const float *sp, const float *sc, int n, const cpu_tri *tr, int tn,
                      uint8_t *img, cpu_stats *st)
{
    const int w = (int)d->width, h = (int)d->height;
    float f[3], r[3], u[3];
    sub(d->target, d->eye, f);
    norm(f);
    cross(f, d->up, r);
    norm(r);
    cross(r, f, u);
    float tanh = tanf(d->fov_deg * 0.5f * 3.14159265f / 180.0f), aspect = (float)w / h;
    if (st)
        *st = (cpu_stats){ 0 };
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float px = ((x + 0.5f) / w * 2 - 1) * tanh * aspect, py = (1 - (y + 0.5f) / h * 2) * tanh;
            float dir[3] = { f[0] + px * r[0] + py * u[0], f[1] + px * r[1] + py * u[1], f[2] + px * r[2] + py * u[2] };
            norm(dir);
            float best = INFINITY;
            int id = -1;
            for (int i = 0; i < n; i++) {
                float oc[3];
                sub(d->eye, sp + 4 * i, oc);
                float b = dot(oc, dir), q = dot(oc, oc) - sp[4 * i + 3] * sp[4 * i + 3], disc = b * b - q;
                if (disc < 0)
                    continue;
                float t = -b - sqrtf(disc);
                if (t > 0 && t < best)
                    best = t, id = i;
            }
            float sphere_t = best, tri_t = INFINITY;
            int tri = -1;
            for (int k = 0; k < tn; k++) {
                const cpu_tri *T = &tr[k];
                int near = 0;
                for (int c = 0; c < 3; c++) {
                    float rel[3];
                    sub(T->p[c], d->eye, rel);
                    near |= !(dot(rel, f) > 1e-3f);
                }
                if (near)
                    continue;
                float e1[3], e2[3], ea[3], pv[3], qv[3];
                sub(T->p[1], T->p[0], e1);
                sub(T->p[2], T->p[0], e2);
                sub(d->eye, T->p[0], ea);
                cross(dir, e2, pv);
                float det = dot(e1, pv);
                if (det == 0)
                    continue;
                float inv = 1.0f / det, uu = dot(ea, pv) * inv;
                if (!(uu >= 0 && uu <= 1))
                    continue;
                cross(ea, e1, qv);
                float vv = dot(dir, qv) * inv;
                if (!(vv >= 0 && uu + vv <= 1))
                    continue;
                float t = dot(e2, qv) * inv;
                if (t > 0 && t < tri_t)
                    tri_t = t, tri = k;
            }
            if (st) {
                st->sphere += id >= 0 && sphere_t <= tri_t;
                st->triangle += tri >= 0 && tri_t < sphere_t;
                st->sphere_hides_triangle += id >= 0 && tri >= 0 && sphere_t <= tri_t;
                st->triangle_hides_sphere += id >= 0 && tri >= 0 && tri_t < sphere_t;
            }
            float g = 0.92f - 0.25f * y / h, c[3] = { g, g, g + 0.03f }, nn[3] = { 0, 0, 0 }, s = 0;
            if (tri >= 0 && tri_t < sphere_t) {
                float e1[3], e2[3];
                sub(tr[tri].p[1], tr[tri].p[0], e1);
                sub(tr[tri].p[2], tr[tri].p[0], e2);
                cross(e1, e2, nn);
                norm(nn);
                if (dot(nn, dir) > 0)
                    nn[0] = -nn[0], nn[1] = -nn[1], nn[2] = -nn[2];
                s = tr[tri].s;
            } else if (id >= 0) {
                float p[3] = { d->eye[0] + best * dir[0], d->eye[1] + best * dir[1], d->eye[2] + best * dir[2] };
                sub(p, sp + 4 * id, nn);
                norm(nn);
                s = sc[id];
            }
            if (id >= 0 || tri >= 0) {
                float l[3] = { -f[0] + 0.6f * u[0] + 0.3f * r[0], -f[1] + 0.6f * u[1] + 0.3f * r[1], -f[2] + 0.6f * u[2] + 0.3f * r[2] };
                norm(l);
                float lam = fmaxf(dot(nn, l), 0), t = fminf(fmaxf(s, 0), 1);
                float ramp[3] = { 1.5f - fabsf(4 * t - 3), 1.5f - fabsf(4 * t - 2), 1.5f - fabsf(4 * t - 1) };
                for (int k = 0; k < 3; k++)
                    c[k] = (s < 0 ? 0.8f : fminf(fmaxf(ramp[k], 0), 1)) * (0.3f + 0.7f * lam);
            }
            for (int k = 0; k < 3; k++)
                img[4 * (y * w + x) + k] = (uint8_t)(fminf(fmaxf(c[k], 0), 1) * 255 + 0.5f);
            img[4 * (y * w + x) + 3] = 255;
        }
}

static void cpu_render(const eddy_render_desc *d, const float *sp, const float *sc, int n, uint8_t *img)
{
    cpu_frame(d, sp, sc, n, NULL, 0, img, NULL);
}

/* The largest channel difference of pixel p between two RGBA8 images. */
static int pixel_diff(const uint8_t *a, const uint8_t *b, int p)
{
    int worst = 0;
    for (int k = 0; k < 3; k++) {
        int dk = abs((int)a[4 * p + k] - (int)b[4 * p + k]);
        worst = dk > worst ? dk : worst;
    }
    return worst;
}

/* Deformable bodies as their triangle surfaces (eddy_render_set.triangles),
 * against cpu_frame on a small image: three spheres (one through a face of
 * the tetrahedron, one partly behind the cloth), a closed tetrahedron (phase
 * colours) whose fifth particle is unused and whose fifth triangle names a
 * particle past the set's count, an open wavy cloth (speed colours) whose
 * triangles alternate winding (two-sided shading), one triangle across the
 * eye plane and one behind the camera (both skipped), and a tool sphere.
 * First drawn as spheres, then, the sets changed, as triangles: every channel
 * within 1 level of the reference but on edge pixels (where float rounding
 * decides hit or miss, or which of two surfaces is nearer), at most 1% of
 * them; both depth orders of sphere and triangle present; a second frame
 * bitwise equal; no sphere where the unused particle is. */
static void test_triangles(eddy_engine *e)
{
    enum { TW = 64, TH = 48, S = 3, TV = 5, TT = 5, CG = 4, CV = CG * CG + 6, CT = 2 * (CG - 1) * (CG - 1) + 2 };
    eddy_render_desc d = { .width = TW, .height = TH, .eye = { 0, 0.3f, 2.5f }, .target = { 0, 0, 0 },
                           .up = { 0, 1, 0 }, .fov_deg = 40 };
    eddy_renderer *r = eddy_create_renderer(e, &d);
    REQUIRE(r);
    const float lo = 0.0f, span = 2.0f;
    /* Spheres (speed), then the tetrahedron (phase), then the cloth (speed). */
    static float spos[4 * S] = { 0.2f, -0.08f, 0.29f, 0.13f, -0.45f, -0.25f, -0.3f, 0.2f, 0.65f, -0.35f, 0.0f, 0.12f };
    static float svel[4 * S] = { 0.3f, 0, 0, 0, 0, 1.1f, 0.4f, 0, 1.5f, 0.9f, 0.2f, 0 };
    static float tpos[4 * (TV + 1)] = {
        0.0f, -0.3f, 0.5f, 0.15f, 0.5f, -0.3f, 0.2f, 0.15f, 0.1f, 0.35f, 0.15f, 0.15f, 0.05f, -0.25f, -0.2f, 0.15f,
        0.6f, 0.45f, 0.3f, 0.2f,  /* unused: a sphere here would show */
        -0.8f, 0.5f, 0.4f, 0.15f, /* past the count: not drawn */
    };
    static uint32_t tph[TV + 1], tidx[3 * TT];
    static float cpos[4 * CV], cvel[4 * CV];
    static uint32_t cidx[3 * CT];
    for (int i = 0; i <= TV; i++)
        tph[i] = (uint32_t)(3 + 5 * i);
    /* The tetrahedron's faces, each turned counter-clockwise seen from
     * outside (away from the opposite corner). */
    static const int faces[4][4] = { { 0, 1, 2, 3 }, { 0, 3, 1, 2 }, { 0, 2, 3, 1 }, { 1, 3, 2, 0 } };
    for (int k = 0; k < 4; k++) {
        const float *a = tpos + 4 * faces[k][0], *b = tpos + 4 * faces[k][1], *c = tpos + 4 * faces[k][2];
        float e1[3], e2[3], nn[3], to[3];
        sub(b, a, e1);
        sub(c, a, e2);
        cross(e1, e2, nn);
        sub(tpos + 4 * faces[k][3], a, to);
        bool out = dot(nn, to) < 0;
        tidx[3 * k] = (uint32_t)faces[k][0];
        tidx[3 * k + 1] = (uint32_t)faces[k][out ? 1 : 2];
        tidx[3 * k + 2] = (uint32_t)faces[k][out ? 2 : 1];
    }
    tidx[12] = 0, tidx[13] = 2, tidx[14] = TV;
    for (int iy = 0; iy < CG; iy++)
        for (int ix = 0; ix < CG; ix++) {
            float *p = cpos + 4 * (iy * CG + ix), *v = cvel + 4 * (iy * CG + ix);
            p[0] = -0.9f + 0.8f * ix / (CG - 1), p[1] = -0.5f + 0.8f * iy / (CG - 1);
            p[2] = 0.15f * sinf(2.5f * ix) * cosf(1.7f * iy), p[3] = 0.1f;
            v[0] = 0.1f * ix, v[1] = 0.2f * iy, v[2] = 0.05f * (ix + iy), v[3] = 0;
        }
    /* Across the eye plane (z 3.5 behind the eye at 2.5) and wholly behind. */
    static const float extra_v[6][4] = { { -0.2f, 0.1f, 3.5f, 0.05f }, { 0.3f, -0.1f, 1.0f, 0.05f },
                                         { -0.3f, -0.2f, 1.0f, 0.05f }, { -0.3f, 0.0f, 3.0f, 0.05f },
                                         { 0.3f, 0.0f, 3.2f, 0.05f }, { 0.0f, 0.4f, 3.4f, 0.05f } };
    memcpy(cpos + 4 * CG * CG, extra_v, sizeof extra_v);
    int ct = 0;
    for (int iy = 0; iy + 1 < CG; iy++)
        for (int ix = 0; ix + 1 < CG; ix++) {
            uint32_t a = (uint32_t)(iy * CG + ix), b = a + 1, c = a + CG, dd = a + CG + 1;
            bool flip = (ix + iy) % 2; /* an open cloth has no outside */
            uint32_t q[6] = { a, b, dd, a, dd, c };
            if (flip)
                q[1] = dd, q[2] = b, q[4] = c, q[5] = dd;
            memcpy(cidx + 3 * ct, q, sizeof q);
            ct += 2;
        }
    for (int k = 0; k < 6; k++)
        cidx[3 * ct + k] = (uint32_t)(CG * CG + k);
    ct += 2;
    REQUIRE(ct == CT);
    float tool[4] = { -0.1f, 0.45f, 0.6f, 0.08f }, tool_s = -1.0f;

    eddy_buffer b_spos = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof spos, .data = spos, .label = "spos" });
    eddy_buffer b_svel = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof svel, .data = svel, .label = "svel" });
    eddy_buffer b_tpos = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof tpos, .data = tpos, .label = "tpos" });
    eddy_buffer b_tph = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof tph, .data = tph, .label = "tphase" });
    eddy_buffer b_tidx = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof tidx, .data = tidx, .label = "tsurface" });
    eddy_buffer b_cpos = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof cpos, .data = cpos, .label = "cpos" });
    eddy_buffer b_cvel = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof cvel, .data = cvel, .label = "cvel" });
    eddy_buffer b_cidx = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof cidx, .data = cidx, .label = "ctris" });
    REQUIRE(b_spos.id && b_svel.id && b_tpos.id && b_tph.id && b_tidx.id && b_cpos.id && b_cvel.id && b_cidx.id);
    eddy_render_set sets[3] = {
        { .position = b_spos, .velocity = b_svel, .density = b_spos, .phase = b_tph, .count = S, .mode = 0, .lo = lo,
          .span = span },
        { .position = b_tpos, .velocity = b_tpos, .density = b_tpos, .phase = b_tph, .count = TV, .mode = 3,
          .triangles = b_tidx },
        { .position = b_cpos, .velocity = b_cvel, .density = b_cpos, .phase = b_tph, .count = CV, .mode = 0, .lo = lo,
          .span = span, .triangles = b_cidx },
    };

    /* The scalars in C: speed and phase, as render_gather.comp. */
    static float ssc[S], tsc[TV + 1], csc[CV];
    for (int i = 0; i < S; i++)
        ssc[i] = (sqrtf(svel[4 * i] * svel[4 * i] + svel[4 * i + 1] * svel[4 * i + 1] + svel[4 * i + 2] * svel[4 * i + 2]) - lo) / span;
    for (int i = 0; i <= TV; i++) {
        float f = (float)tph[i] * 0.6180339887498949f;
        tsc[i] = 0.05f + 0.9f * (f - floorf(f));
    }
    for (int i = 0; i < CV; i++)
        csc[i] = (sqrtf(cvel[4 * i] * cvel[4 * i] + cvel[4 * i + 1] * cvel[4 * i + 1] + cvel[4 * i + 2] * cvel[4 * i + 2]) - lo) / span;

    /* 1. Without triangles: every particle a sphere (spheres, tetrahedron's
     * 5, cloth's, tool, in id order). */
    static float all_sp[4 * (S + TV + CV + 1)], all_sc[S + TV + CV + 1];
    int na = 0;
    for (int i = 0; i < S; i++, na++)
        memcpy(all_sp + 4 * na, spos + 4 * i, 16), all_sc[na] = ssc[i];
    for (int i = 0; i < TV; i++, na++)
        memcpy(all_sp + 4 * na, tpos + 4 * i, 16), all_sc[na] = tsc[i];
    for (int i = 0; i < CV; i++, na++)
        memcpy(all_sp + 4 * na, cpos + 4 * i, 16), all_sc[na] = csc[i];
    memcpy(all_sp + 4 * na, tool, 16), all_sc[na++] = tool_s;
    static uint8_t gpu[4 * TW * TH], again[4 * TW * TH], cpu[4 * TW * TH];
    eddy_render_set plain[3];
    memcpy(plain, sets, sizeof plain);
    plain[1].triangle_count = plain[2].triangle_count = 0;
    CHECK(eddy_render_sets(e, r, plain, 3, tool, &tool_s, 1, gpu) == EDDY_OK);
    cpu_frame(&d, all_sp, all_sc, na, NULL, 0, cpu, NULL);
    int off_spheres = 0;
    for (int p = 0; p < TW * TH; p++)
        off_spheres += pixel_diff(gpu, cpu, p) > 2;
    CHECKF(off_spheres <= TW * TH / 100, "as spheres: %d of %d pixels differ by more than 2 levels", off_spheres, TW * TH);
    /* Where the tetrahedron's unused particle projects (computed as
     * eddy_project does): a sphere now, background once drawn as triangles. */
    float f[3], rt[3], up[3], rel[3];
    sub(d.target, d.eye, f);
    norm(f);
    cross(f, d.up, rt);
    norm(rt);
    cross(rt, f, up);
    sub(tpos + 4 * 4, d.eye, rel);
    float tanh = tanf(20.0f * 3.14159265f / 180.0f), z = dot(rel, f);
    int ux = (int)((dot(rel, rt) / (z * tanh * TW / TH) * 0.5f + 0.5f) * TW);
    int uy = (int)((0.5f - dot(rel, up) / (z * tanh) * 0.5f) * TH);
    REQUIRE(ux >= 1 && ux < TW - 1 && uy >= 1 && uy < TH - 1);
    uint8_t bg = (uint8_t)((0.92f - 0.25f * uy / TH) * 255 + 0.5f);
    CHECKF(gpu[4 * (uy * TW + ux)] != bg, "the unused particle's sphere is missing at (%d, %d)", ux, uy);

    /* 2. The same sets with their triangles (the graph recorded again, the
     * triangle list grown): the reference's triangles in id order, the one
     * past the count and the two near the eye left to cpu_frame's rule. */
    static float sp2[4 * (S + 1)], sc2[S + 1];
    memcpy(sp2, spos, sizeof spos);
    memcpy(sc2, ssc, sizeof ssc);
    memcpy(sp2 + 4 * S, tool, 16), sc2[S] = tool_s;
    static cpu_tri tris[TT + CT];
    int tn = 0;
    for (int k = 0; k < TT; k++) {
        if (tidx[3 * k] >= TV || tidx[3 * k + 1] >= TV || tidx[3 * k + 2] >= TV)
            continue;
        for (int c = 0; c < 3; c++)
            memcpy(tris[tn].p[c], tpos + 4 * tidx[3 * k + c], 12);
        tris[tn++].s = (tsc[tidx[3 * k]] + tsc[tidx[3 * k + 1]] + tsc[tidx[3 * k + 2]]) / 3.0f;
    }
    for (int k = 0; k < CT; k++) {
        for (int c = 0; c < 3; c++)
            memcpy(tris[tn].p[c], cpos + 4 * cidx[3 * k + c], 12);
        tris[tn++].s = (csc[cidx[3 * k]] + csc[cidx[3 * k + 1]] + csc[cidx[3 * k + 2]]) / 3.0f;
    }
    sets[1].triangle_count = TT;
    sets[2].triangle_count = CT;
    CHECK(eddy_render_sets(e, r, sets, 3, tool, &tool_s, 1, gpu) == EDDY_OK);
    cpu_stats st;
    cpu_frame(&d, sp2, sc2, S + 1, tris, tn, cpu, &st);
    int edge = 0, worst = 0, worst_inside = 0;
    for (int p = 0; p < TW * TH; p++) {
        int dp = pixel_diff(gpu, cpu, p);
        worst = dp > worst ? dp : worst;
        if (dp > 1)
            edge++;
        else
            worst_inside = dp > worst_inside ? dp : worst_inside;
    }
    CHECKF(edge <= TW * TH / 100, "triangles: %d of %d pixels differ from the CPU reference by more than 1 level",
           edge, TW * TH);
    CHECKF(st.triangle > TW * TH / 8 && st.sphere > 60, "the reference shows too little: %d triangle and %d sphere "
           "pixels", st.triangle, st.sphere);
    CHECKF(st.sphere_hides_triangle >= 10 && st.triangle_hides_sphere >= 10,
           "the scene lacks depth tests both ways: a sphere hides a triangle at %d px, a triangle a sphere at %d",
           st.sphere_hides_triangle, st.triangle_hides_sphere);
    CHECKF(gpu[4 * (uy * TW + ux)] == bg && cpu[4 * (uy * TW + ux)] == bg,
           "a set drawn as triangles shows a sphere at its unused particle (%d, %d): %d, background %d", ux, uy,
           gpu[4 * (uy * TW + ux)], bg);
    /* A second frame replays the same graph: bitwise the same image. */
    CHECK(eddy_render_sets(e, r, sets, 3, tool, &tool_s, 1, again) == EDDY_OK);
    CHECK(!memcmp(gpu, again, sizeof gpu));
    /* More triangles than the index buffer holds: refused, not read past
     * its end; the renderer draws on as before. */
    test_clear_error();
    sets[1].triangle_count = TT + 1;
    CHECK(eddy_render_sets(e, r, sets, 3, tool, &tool_s, 1, again) == EDDY_ERROR_INVALID_ARGUMENT);
    CHECK(test_saw("render.invalid"));
    sets[1].triangle_count = TT;
    memset(again, 0, sizeof again);
    CHECK(eddy_render_sets(e, r, sets, 3, tool, &tool_s, 1, again) == EDDY_OK);
    CHECK(!memcmp(gpu, again, sizeof gpu));
    printf("render triangles: %d x %d, %d spheres, %d triangles drawn (of %d): %d pixels differ from the CPU reference "
           "by more than 1 level (at most %d; largest difference %d elsewhere, %d anywhere); %d triangle px, %d "
           "sphere px, sphere over triangle %d px, triangle over sphere %d px; as spheres %d px differ by more than 2\n",
           TW, TH, S + 1, tn, TT + CT, edge, TW * TH / 100, worst_inside, worst, st.triangle, st.sphere,
           st.sphere_hides_triangle, st.triangle_hides_sphere, off_spheres);
    eddy_buffer all[] = { b_spos, b_svel, b_tpos, b_tph, b_tidx, b_cpos, b_cvel, b_cidx };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        eddy_destroy_buffer(e, all[i]);
    eddy_destroy_renderer(e, r);
}

int main(void)
{
    eddy_engine *e = test_engine();
    eddy_render_desc d = { .width = W, .height = H, .eye = { 0.5f, 0.8f, 2.0f }, .target = { 0.5f, 0.4f, 0.5f },
                           .up = { 0, 1, 0 }, .fov_deg = 40 };
    eddy_renderer *r = eddy_create_renderer(e, &d);
    REQUIRE(r);
    static float sp[4 * N], sc[N];
    uint64_t seed = 21;
    for (int i = 0; i < N; i++) {
        for (int a = 0; a < 3; a++)
            sp[4 * i + a] = 0.2f + 0.6f * (float)test_rand(&seed) / 4294967296.0f;
        sp[4 * i + 3] = 0.03f + 0.05f * (float)test_rand(&seed) / 4294967296.0f;
        sc[i] = i % 10 == 0 ? -1.0f : (float)i / N; /* every tenth grey, as tools are */
    }
    static uint8_t gpu[4 * W * H], again[4 * W * H], cpu[4 * W * H];
    CHECK(eddy_render(e, r, sp, sc, N, gpu) == EDDY_OK);
    CHECK(eddy_render(e, r, sp, sc, N, again) == EDDY_OK);
    CHECK(!memcmp(gpu, again, sizeof gpu));
    cpu_render(&d, sp, sc, N, cpu);
    int differ = 0, lit = 0;
    for (int p = 0; p < W * H; p++) {
        int worst = 0;
        for (int k = 0; k < 3; k++)
            worst = abs((int)gpu[4 * p + k] - (int)cpu[4 * p + k]) > worst ? abs((int)gpu[4 * p + k] - (int)cpu[4 * p + k]) : worst;
        differ += worst > 2;
        lit += gpu[4 * p] != gpu[4 * (p % W)]; /* not the background of its row... roughly */
    }
    CHECKF(differ <= W * H / 200, "%d of %d pixels differ from the CPU reference by more than 2 levels", differ, W * H);
    CHECKF(lit > W * H / 10, "only %d pixels show spheres", lit);

    /* From the device (eddy_render_sets, as scene frames draw): two sets in
     * device buffers, coloured by speed and by phase in a compute pass, and
     * host "tool" spheres after them, against the CPU reference of the same
     * spheres with the scalars computed in C. */
    {
        enum { A = 30, B = N - A - 6 };
        static float pos[4 * N], vel[4 * N], rho[N], sc2[N];
        static uint32_t ph[N];
        float lo = 0.1f, span = 2.0f;
        for (int i = 0; i < N; i++) {
            memcpy(pos + 4 * i, sp + 4 * i, 16);
            for (int a = 0; a < 3; a++)
                vel[4 * i + a] = (float)test_rand(&seed) / 4294967296.0f - 0.25f;
            vel[4 * i + 3] = 0;
            rho[i] = 1000.0f + i;
            ph[i] = (uint32_t)(i * 7);
            float speed = sqrtf(vel[4 * i] * vel[4 * i] + vel[4 * i + 1] * vel[4 * i + 1] + vel[4 * i + 2] * vel[4 * i + 2]);
            float f = (float)ph[i] * 0.6180339887498949f;
            sc2[i] = i < A ? (speed - lo) / span : i < A + B ? 0.05f + 0.9f * (f - floorf(f)) : -1.0f;
        }
        eddy_buffer bp = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof pos, .data = pos, .label = "pos" });
        eddy_buffer bv = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof vel, .data = vel, .label = "vel" });
        eddy_buffer bd = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof rho, .data = rho, .label = "rho" });
        eddy_buffer bh = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = sizeof ph, .data = ph, .label = "phase" });
        /* The second set is the tail of the same buffers: its own buffers. */
        eddy_buffer bp2 = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 16 * B, .data = pos + 4 * A, .label = "pos2" });
        eddy_buffer bh2 = eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = 4 * B, .data = ph + A, .label = "phase2" });
        REQUIRE(bp.id && bv.id && bd.id && bh.id && bp2.id && bh2.id);
        eddy_render_set sets[2] = {
            { .position = bp, .velocity = bv, .density = bd, .phase = bh, .count = A, .mode = 0, .lo = lo, .span = span },
            { .position = bp2, .velocity = bp2, .density = bp2, .phase = bh2, .count = B, .mode = 3 },
        };
        static uint8_t dev[4 * W * H], ref[4 * W * H];
        CHECK(eddy_render_sets(e, r, sets, 2, sp + 4 * (A + B), sc2 + A + B, 6, dev) == EDDY_OK);
        cpu_render(&d, sp, sc2, N, ref);
        int off = 0;
        for (int p = 0; p < W * H; p++) {
            int worst = 0;
            for (int k = 0; k < 3; k++)
                worst = abs((int)dev[4 * p + k] - (int)ref[4 * p + k]) > worst ? abs((int)dev[4 * p + k] - (int)ref[4 * p + k]) : worst;
            off += worst > 2;
        }
        CHECKF(off <= W * H / 200, "from the device: %d of %d pixels differ from the CPU reference by more than 2 levels",
               off, W * H);
        printf("render from device buffers: %d pixels differ from the CPU reference by more than 2 levels\n", off);
        eddy_buffer all[] = { bp, bv, bd, bh, bp2, bh2 };
        for (int i = 0; i < 6; i++)
            eddy_destroy_buffer(e, all[i]);
    }

    test_triangles(e);

    /* One sphere straight ahead: a disc of radius f r / sqrt(z^2 - r^2) in pixels. */
    eddy_render_desc d1 = { .width = W, .height = H, .eye = { 0, 0, 2 }, .target = { 0, 0, 0 }, .up = { 0, 1, 0 }, .fov_deg = 40 };
    eddy_renderer *r1 = eddy_create_renderer(e, &d1);
    REQUIRE(r1);
    float one[4] = { 0, 0, 0, 0.25f }, s0 = 0.5f;
    CHECK(eddy_render(e, r1, one, &s0, 1, gpu) == EDDY_OK);
    int across = 0;
    for (int x = 0; x < W; x++)
        across += gpu[4 * (H / 2 * W + x)] != gpu[4 * (H / 2 * W)];
    double focal = (H / 2.0) / tan(20 * M_PI / 180), want = 2 * focal * 0.25 / sqrt(4 - 0.0625);
    CHECKF(fabs(across - want) <= 2, "disc %d px across, projection gives %.1f", across, want);

    /* The PNG decodes to the pixels rendered. */
    char path[] = "/tmp/eddy-render-XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    CHECK(eddy_write_png(e, path, gpu, W, H) == EDDY_OK);
    png_image img = { .version = PNG_IMAGE_VERSION };
    CHECK(png_image_begin_read_from_file(&img, path));
    img.format = PNG_FORMAT_RGBA;
    CHECK(img.width == W && img.height == H);
    CHECK(png_image_finish_read(&img, NULL, again, 0, NULL));
    CHECK(!memcmp(gpu, again, sizeof gpu));
    remove(path);
    printf("render: %d x %d, %d spheres: %d pixels differ from the CPU reference by more than 2 levels; disc %d px (projection %.1f)\n",
           W, H, N, differ, across, want);
    eddy_destroy_renderer(e, r);
    eddy_destroy_renderer(e, r1);
    test_finish(e);
    return test_report("render");
}
