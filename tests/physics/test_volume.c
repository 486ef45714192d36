/* The volume module (seed 003 section 5) against analytic integrals, its C
 * twins and a C reference ray integral that cuts every tet on its own (no
 * traversal, no table). Parts (argv[2]; argv[1] the source root):
 *   tet      one tetrahedron, the pixel through its centre: a linear opacity
 *            with constant colour, and a linear colour with constant
 *            opacity, against the closed-form integrals (1e-3)
 *   preint   the table against brute-force integrals (4096 slabs) for a
 *            grid of (s_f, s_b, d) (1e-3); the GPU table against its C twin
 *            (relative 1e-4: float exp and log of two implementations)
 *   twin     bunny_5k: the GPU frame against the C twin of the same passes
 *            (the table sampled as the sampler does: 1e-3), and a rerun
 *            bitwise identical, and drawn into a host's own images: the same
 *            bits; the twin with its entries all from the BVH: the same bits;
 *            point sampling (its own kernel) against its twin (1e-4)
 *   cube     a unit cube of 162 tets and sphere_5k against the reference:
 *            mean absolute error below 1/255 a channel, no pixel off by
 *            more than 4/255 away from the silhouette
 *   torus    torus_5k edge-on: the rays that cross the tube twice get both
 *            crossings (reference as above, and more than one crossing's
 *            opacity); with one entry slot a pixel (the BVH where the
 *            lists overflow) the same bits
 *   axis     an axis-aligned camera on a structured cube: rays exactly
 *            through edges and vertices finish, no black or NaN pixel inside
 *   deformed bunny_5k after 50 steps of the deform module: the frame
 *            against the reference on the downloaded positions
 *   bad      empty and inverted meshes, a transfer function with no or
 *            unsorted points, a zero image, an image over the device's
 *            limit, a NaN camera: refused with a message, nothing made */
#include "../gpu/gpu_test.h"
#include "volume/volume.h"
#include "eddy/eddy_tetmesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *root;

/* A transfer function with some of everything (steps in colour and opacity). */
static const float tf4[] = {
    0.0f, 0.1f, 0.2f, 0.9f, 0.1f,
    0.4f, 0.2f, 0.9f, 0.3f, 0.5f,
    0.7f, 1.0f, 0.3f, 0.1f, 0.3f,
    1.0f, 0.9f, 0.9f, 0.9f, 0.7f,
};

typedef struct mesh {
    uint32_t n, nt;
    float *pos, *scalar;
    uint32_t *tets;
    eddy_particles set;
} mesh;

static void mesh_upload(eddy_engine *e, mesh *m, const char *name)
{
    m->set = eddy_create_particles(e, &(eddy_particles_desc){ EDDY_SIZED(eddy_particles_desc), .name = name, .count = m->n });
    REQUIRE(m->set.id);
    REQUIRE(eddy_buffer_upload(e, eddy_particles_buffer(e, m->set, "position"), 0, 16ull * m->n, m->pos) == EDDY_OK);
    eddy_buffer sb = eddy_particles_add_buffer(e, m->set, "scalar", 4);
    REQUIRE(sb.id && eddy_buffer_upload(e, sb, 0, 4ull * m->n, m->scalar) == EDDY_OK);
    REQUIRE(eddy_particles_add_elements(e, m->set, &(eddy_elements_desc){ EDDY_SIZED(eddy_elements_desc), .name = "tets", .kind = EDDY_TETRAHEDRA,
                                                                           .count = m->nt, .indices = m->tets })
                .buffer.id);
}

static mesh load_mesh(eddy_engine *e, const char *file, const char *name)
{
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/data/tets/%s.node", root, file);
    eddy_tetmesh t;
    REQUIRE(eddy_load_tetmesh(path, NULL, &t, err, sizeof err) == 0 || !fprintf(stderr, "%s\n", err));
    mesh m = { .n = t.vertex_count, .nt = t.tet_count };
    m.pos = calloc(4 * (size_t)m.n, sizeof(float));
    m.scalar = calloc(m.n, sizeof(float));
    m.tets = malloc(16 * (size_t)m.nt);
    REQUIRE(m.pos && m.scalar && m.tets);
    for (uint32_t i = 0; i < m.n; i++) {
        for (int a = 0; a < 3; a++)
            m.pos[4 * i + a] = (float)t.vertices[3 * i + a];
        m.scalar[i] = t.attribute_count ? (float)t.attributes[(size_t)t.attribute_count * i] : 0.0f;
    }
    memcpy(m.tets, t.tets, 16 * (size_t)m.nt);
    eddy_free_tetmesh(&t);
    if (e)
        mesh_upload(e, &m, name);
    return m;
}

/* n^3 cubes of side `size`, six tets each along the main diagonal (the
 * Kuhn triangulation: conforming, every tet positively oriented); the
 * scalar 0.2 + 0.5 x + 0.3 y z / size^2 (not linear: the tets differ). */
static mesh cube_mesh(eddy_engine *e, const char *name, uint32_t n, float size)
{
    mesh m = { .n = (n + 1) * (n + 1) * (n + 1), .nt = 6 * n * n * n };
    m.pos = calloc(4 * (size_t)m.n, sizeof(float));
    m.scalar = calloc(m.n, sizeof(float));
    m.tets = malloc(16 * (size_t)m.nt);
    REQUIRE(m.pos && m.scalar && m.tets);
#define VID(x, y, z) (((z) * (n + 1) + (y)) * (n + 1) + (x))
    for (uint32_t z = 0; z <= n; z++)
        for (uint32_t y = 0; y <= n; y++)
            for (uint32_t x = 0; x <= n; x++) {
                float *p = m.pos + 4 * VID(x, y, z);
                p[0] = size * x / n, p[1] = size * y / n, p[2] = size * z / n;
                m.scalar[VID(x, y, z)] = 0.2f + 0.5f * p[0] / size + 0.3f * p[1] * p[2] / (size * size);
            }
    static const int perm[6][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };
    uint32_t k = 0;
    for (uint32_t z = 0; z < n; z++)
        for (uint32_t y = 0; y < n; y++)
            for (uint32_t x = 0; x < n; x++)
                for (int q = 0; q < 6; q++) {
                    uint32_t c[3] = { x, y, z }, *t = m.tets + 4 * k++;
                    t[0] = VID(c[0], c[1], c[2]);
                    for (int s = 0; s < 3; s++) {
                        c[perm[q][s]]++;
                        t[s + 1] = VID(c[0], c[1], c[2]);
                    }
                    const float *v[4];
                    for (int i = 0; i < 4; i++)
                        v[i] = m.pos + 4 * t[i];
                    float a[3], b[3], d[3];
                    for (int i = 0; i < 3; i++)
                        a[i] = v[1][i] - v[0][i], b[i] = v[2][i] - v[0][i], d[i] = v[3][i] - v[0][i];
                    float vol = a[0] * (b[1] * d[2] - b[2] * d[1]) - a[1] * (b[0] * d[2] - b[2] * d[0]) +
                                a[2] * (b[0] * d[1] - b[1] * d[0]);
                    if (vol < 0) {
                        uint32_t s = t[1];
                        t[1] = t[2];
                        t[2] = s;
                    }
                }
#undef VID
    if (e)
        mesh_upload(e, &m, name);
    return m;
}

static void mesh_free(eddy_engine *e, mesh *m)
{
    if (e && m->set.id)
        eddy_destroy_particles(e, m->set);
    free(m->pos), free(m->scalar), free(m->tets);
}

/* The mesh's bounding box (m). */
static void mesh_box(const mesh *m, float lo[3], float hi[3])
{
    for (int a = 0; a < 3; a++)
        lo[a] = INFINITY, hi[a] = -INFINITY;
    for (uint32_t i = 0; i < m->n; i++)
        for (int a = 0; a < 3; a++)
            lo[a] = fminf(lo[a], m->pos[4 * i + a]), hi[a] = fmaxf(hi[a], m->pos[4 * i + a]);
}

/* What the C twin reads besides the mesh: v's pre-integrated table (from
 * the GPU), the neighbour table and the boundary faces. */
typedef struct twin_inputs {
    float *table;
    uint32_t *neigh, *bound, nb;
} twin_inputs;

static twin_inputs twin_load(eddy_engine *e, eddy_volume *v, const mesh *m)
{
    const struct eddy_volume_params *p = eddy_volume_params_of(v);
    twin_inputs t = { .table = malloc(16 * (size_t)p->table[0] * p->table[0] * p->table[1]),
                      .neigh = malloc(16 * (size_t)m->nt) };
    char err[256];
    REQUIRE(t.table && t.neigh);
    REQUIRE(eddy_volume_topology(m->tets, m->nt, m->n, t.neigh, &t.bound, &t.nb, err, sizeof err) == 0);
    REQUIRE(eddy_image_download(e, eddy_volume_table(v), &(eddy_image_region){ 0 }, t.table) == EDDY_OK);
    return t;
}

static void twin_free(twin_inputs *t)
{
    free(t->table), free(t->neigh), free(t->bound);
}

static eddy_volume_desc view(const mesh *m, uint32_t w, uint32_t h, const float eye[3], const float target[3],
                             float fov, const float *tf, uint32_t tn, float unit)
{
    eddy_volume_desc d = { .set = m->set, .width = w, .height = h, .transfer = tf, .transfer_count = tn,
                           .opacity_unit = unit };
    for (int a = 0; a < 3; a++) {
        d.camera.eye[a] = eye[a];
        d.camera.target[a] = target[a];
    }
    d.camera.up[1] = 1;
    d.camera.fov_deg = fov;
    return d;
}

typedef struct frame {
    uint32_t w, h;
    float *rgba, *depth, *ref, *ref_depth;
    struct eddy_volume_params p;
} frame;

/* Draws v on the GPU and (steps > 0) the reference from the same params and
 * positions (downloaded: a deformed body's as it is now). */
static frame capture(eddy_engine *e, eddy_volume *v, const eddy_volume_desc *d, const mesh *m, uint32_t steps)
{
    frame f = { .w = d->width, .h = d->height };
    size_t px = (size_t)f.w * f.h;
    f.rgba = malloc(16 * px);
    f.depth = malloc(4 * px);
    f.ref = malloc(16 * px);
    f.ref_depth = malloc(4 * px);
    REQUIRE(f.rgba && f.depth && f.ref && f.ref_depth);
    REQUIRE(eddy_volume_render(e, v) == EDDY_OK);
    REQUIRE(eddy_volume_read(e, v, f.rgba, f.depth) == EDDY_OK);
    uint32_t guard_steps = 1, stalled = 1;
    REQUIRE(eddy_volume_read_guards(e, v, &guard_steps, &stalled, NULL) == EDDY_OK);
    CHECKF(guard_steps == 0 && stalled == 0, "%u rays at the step guard, %u stalled", guard_steps, stalled);
    f.p = *eddy_volume_params_of(v);
    if (steps) {
        float *pos = malloc(16 * (size_t)m->n);
        REQUIRE(pos);
        REQUIRE(eddy_buffer_download(e, eddy_particles_buffer(e, m->set, "position"), 0, 16ull * m->n, pos) == EDDY_OK);
        eddy_volume_reference_cpu(&f.p, pos, m->scalar, m->tets, d->transfer, steps, f.ref, f.ref_depth);
        free(pos);
    }
    return f;
}

static frame render(eddy_engine *e, const eddy_volume_desc *d, const mesh *m, uint32_t steps)
{
    eddy_volume *v = eddy_create_volume(e, d);
    REQUIRE(v);
    frame f = capture(e, v, d, m, steps);
    eddy_destroy_volume(e, v);
    return f;
}

static void frame_free(frame *f)
{
    free(f->rgba), free(f->depth), free(f->ref), free(f->ref_depth);
}

/* Whether pixel (x, y) lies on the reference's silhouette: it or a
 * neighbour is missed while another is hit. */
static bool silhouette(const frame *f, uint32_t x, uint32_t y)
{
    bool hit = false, miss = false;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int xx = (int)x + dx, yy = (int)y + dy;
            if (xx < 0 || yy < 0 || xx >= (int)f->w || yy >= (int)f->h)
                continue;
            bool h = isfinite(f->ref_depth[(size_t)yy * f->w + xx]);
            hit |= h;
            miss |= !h;
        }
    return hit && miss;
}

/* Mean absolute error per channel below 1/255, no pixel off by more than
 * 4/255 away from the silhouette; returns the pixels hit. */
static uint32_t compare_reference(const char *what, const frame *f)
{
    double sum[4] = { 0 }, worst = 0;
    uint32_t hits = 0, wx = 0, wy = 0, bad = 0;
    for (uint32_t y = 0; y < f->h; y++)
        for (uint32_t x = 0; x < f->w; x++) {
            size_t i = (size_t)y * f->w + x;
            hits += isfinite(f->ref_depth[i]);
            bool edge = silhouette(f, x, y);
            for (int c = 0; c < 4; c++) {
                double err = fabs((double)f->rgba[4 * i + c] - f->ref[4 * i + c]);
                if (!(err == err))
                    err = INFINITY, bad++;
                sum[c] += err;
                if (!edge && err > worst)
                    worst = err, wx = x, wy = y;
            }
        }
    double px = (double)f->w * f->h;
    printf("%s: %u of %u pixels hit; mean |error| r %.2e g %.2e b %.2e a %.2e (1/255 = %.2e), largest away from "
           "the silhouette %.2e at (%u, %u) (4/255 = %.2e)\n", what, hits, f->w * f->h, sum[0] / px, sum[1] / px,
           sum[2] / px, sum[3] / px, 1.0 / 255, worst, wx, wy, 4.0 / 255);
    CHECKF(bad == 0, "%s: %u NaN channels", what, bad);
    for (int c = 0; c < 4; c++)
        CHECKF(sum[c] / px < 1.0 / 255, "%s: channel %d mean error %g", what, c, sum[c] / px);
    CHECKF(worst <= 4.0 / 255, "%s: a pixel off by %g at (%u, %u): gpu %g %g %g %g, reference %g %g %g %g", what,
           worst, wx, wy, f->rgba[4 * ((size_t)wy * f->w + wx)], f->rgba[4 * ((size_t)wy * f->w + wx) + 1],
           f->rgba[4 * ((size_t)wy * f->w + wx) + 2], f->rgba[4 * ((size_t)wy * f->w + wx) + 3],
           f->ref[4 * ((size_t)wy * f->w + wx)], f->ref[4 * ((size_t)wy * f->w + wx) + 1],
           f->ref[4 * ((size_t)wy * f->w + wx) + 2], f->ref[4 * ((size_t)wy * f->w + wx) + 3]);
    return hits;
}

/* ------------------------------------------------------------------ tet */

static void part_tet(eddy_engine *e)
{
    mesh m = { .n = 4, .nt = 1 };
    float pos[16] = { 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0 };
    float scalar[4] = { 0.1f, 0.9f, 0.3f, 0.6f };
    uint32_t tets[4] = { 0, 1, 2, 3 };
    m.pos = pos, m.scalar = scalar, m.tets = tets;
    mesh_upload(e, &m, "tet");
    /* The ray through the centroid from an oblique eye: odd image, centre pixel. */
    const float target[3] = { 0.25f, 0.25f, 0.25f }, eye[3] = { 1.9f, 1.3f, 2.2f };
    double dir[3], len = 0;
    for (int a = 0; a < 3; a++)
        dir[a] = target[a] - eye[a], len += dir[a] * dir[a];
    len = sqrt(len);
    for (int a = 0; a < 3; a++)
        dir[a] /= len;
    /* Where the ray crosses the tet: the half-spaces x, y, z >= 0, x + y + z <= 1. */
    double t0 = 0, t1 = INFINITY;
    for (int a = 0; a < 4; a++) {
        double n[3] = { a == 0 ? -1 : 0, a == 1 ? -1 : 0, a == 2 ? -1 : 0 }, w = 0;
        if (a == 3)
            n[0] = n[1] = n[2] = 1, w = 1;
        double dn = n[0] * dir[0] + n[1] * dir[1] + n[2] * dir[2];
        double lam = (w - (n[0] * eye[0] + n[1] * eye[1] + n[2] * eye[2])) / dn;
        if (dn > 0)
            t1 = fmin(t1, lam);
        else
            t0 = fmax(t0, lam);
    }
    /* s = 0.1 + 0.8 x + 0.2 y + 0.5 z: linear, exactly the vertices' values */
    double sf = 0.1, sb = 0.1, d = t1 - t0;
    for (int a = 0; a < 3; a++) {
        static const double g[3] = { 0.8, 0.2, 0.5 };
        sf += g[a] * (eye[a] + t0 * dir[a]);
        sb += g[a] * (eye[a] + t1 * dir[a]);
    }
    printf("tet: the centre ray crosses %.4f m, scalar %.4f -> %.4f\n", d, sf, sb);
    const float unit = 0.2f;
    for (int tcase = 0; tcase < 2; tcase++) {
        /* case 0: opacity 0.1 + 0.8 s, colour (0.8, 0.4, 0.2): alpha = 1 -
         * exp(-d / (sb - sf) int -ln(1 - a(s)) / unit ds), colour = c alpha.
         * case 1: opacity 0.6, colour (s, 1 - s, 0.5) linear in the distance x
         * along the segment: int c(x) tau exp(-tau x) dx in closed form. */
        float tf[10];
        if (tcase == 0) {
            const float t[10] = { 0, 0.8f, 0.4f, 0.2f, 0.1f, 1, 0.8f, 0.4f, 0.2f, 0.9f };
            memcpy(tf, t, sizeof t);
        } else {
            const float t[10] = { 0, 0, 1, 0.5f, 0.6f, 1, 1, 0, 0.5f, 0.6f };
            memcpy(tf, t, sizeof t);
        }
        double want[4];
        if (tcase == 0) {
            /* y = 1 - a(s) = 0.9 - 0.8 s; int -ln y ds = -(1 / -0.8) [y ln y - y] */
            double ya = 0.9 - 0.8 * sf, yb = 0.9 - 0.8 * sb;
            double F = (1 / 0.8) * ((yb * log(yb) - yb) - (ya * log(ya) - ya));
            double depth = d / (sb - sf) * F / unit, alpha = 1 - exp(-depth);
            want[0] = 0.8 * alpha, want[1] = 0.4 * alpha, want[2] = 0.2 * alpha, want[3] = alpha;
        } else {
            double tau = -log(1 - 0.6) / unit, E = exp(-tau * d), A = 1 - E;
            double B = A / tau - d * E; /* int x tau e^{-tau x} dx over [0, d] */
            double c0[3] = { sf, 1 - sf, 0.5 }, c1[3] = { (sb - sf) / d, -(sb - sf) / d, 0 };
            for (int c = 0; c < 3; c++)
                want[c] = c0[c] * A + c1[c] * B;
            want[3] = A;
        }
        eddy_volume_desc vd = view(&m, 33, 33, eye, target, 30, tf, 2, unit);
        vd.scalar_min = 0, vd.scalar_max = 1;
        vd.cutoff = 1;
        frame f = render(e, &vd, &m, 0);
        const float *got = f.rgba + 4 * (16 * 33 + 16);
        printf("tet %s: gpu %.5f %.5f %.5f %.5f, analytic %.5f %.5f %.5f %.5f\n",
               tcase ? "linear colour" : "linear opacity", got[0], got[1], got[2], got[3], want[0], want[1], want[2],
               want[3]);
        for (int c = 0; c < 4; c++)
            CHECKF(fabs(got[c] - want[c]) < 1e-3, "case %d channel %d: %g against %g", tcase, c, got[c], want[c]);
        CHECKF(fabs(f.depth[16 * 33 + 16] - t0) < 1e-5 * t0, "depth %g against %g", f.depth[16 * 33 + 16], t0);
        frame_free(&f);
    }
    eddy_destroy_particles(e, m.set);
}

/* ------------------------------------------------------------------ preint */

static void part_preint(eddy_engine *e)
{
    mesh m = cube_mesh(e, "cube", 1, 1.0f);
    const float eye[3] = { 2, 2, 3 }, target[3] = { 0.5f, 0.5f, 0.5f };
    eddy_volume_desc d = view(&m, 8, 8, eye, target, 40, tf4, 4, 0.1f);
    d.max_segment = 0.4f;
    eddy_volume *v = eddy_create_volume(e, &d);
    REQUIRE(v);
    const struct eddy_volume_params *p = eddy_volume_params_of(v);
    uint32_t ns = p->table[0], nd = p->table[1];
    size_t texels = (size_t)ns * ns * nd;
    float *gpu = malloc(16 * texels), *cpu = malloc(16 * texels);
    REQUIRE(gpu && cpu);
    REQUIRE(eddy_image_download(e, eddy_volume_table(v), &(eddy_image_region){ 0 }, gpu) == EDDY_OK);
    eddy_volume_preintegrate_cpu(p, tf4, cpu);
    double twin = 0, worst = 0;
    for (size_t i = 0; i < 4 * texels; i++)
        twin = fmax(twin, fabs((double)gpu[i] - cpu[i]) / fmax(1.0, fabs(cpu[i])));
    uint32_t wi = 0, wj = 0, wk = 0, checked = 0;
    for (uint32_t k = 0; k < nd; k += (nd - 1) / 8)
        for (uint32_t j = 0; j < ns; j += (ns - 1) / 12)
            for (uint32_t i = 0; i < ns; i += (ns - 1) / 12) {
                double sf = p->range[0] + (p->range[1] - p->range[0]) * i / (ns - 1);
                double sb = p->range[0] + (p->range[1] - p->range[0]) * j / (ns - 1);
                double want[4];
                eddy_volume_segment_cpu(tf4, 4, p->range[3], sf, sb, (double)p->range[2] * k / (nd - 1), 4096, want);
                const float *tx = gpu + 4 * (((size_t)k * ns + j) * ns + i);
                double alpha = -expm1(-(double)tx[3]);
                double got[4] = { tx[0] * alpha, tx[1] * alpha, tx[2] * alpha, alpha };
                for (int c = 0; c < 4; c++)
                    if (fabs(got[c] - want[c]) > worst)
                        worst = fabs(got[c] - want[c]), wi = i, wj = j, wk = k;
                checked++;
            }
    printf("preint: %u x %u x %u table, %u texels against 4096 slabs: largest error %.2e at (%u, %u, %u) "
           "(tolerance 1e-3); the GPU against its C twin: %.2e\n", ns, ns, nd, checked, worst, wi, wj, wk, twin);
    CHECKF(worst < 1e-3, "pre-integration off by %g", worst);
    CHECKF(twin < 1e-4, "the GPU table differs from the C twin by %g (relative)", twin);
    free(gpu), free(cpu);
    eddy_destroy_volume(e, v);
    mesh_free(e, &m);
}

/* ------------------------------------------------------------------ twin */

static void part_twin(eddy_engine *e)
{
    mesh m = load_mesh(e, "bunny_5k", "bunny");
    float lo[3], hi[3];
    mesh_box(&m, lo, hi);
    float target[3], eye[3], size = 0;
    for (int a = 0; a < 3; a++)
        target[a] = 0.5f * (lo[a] + hi[a]), size = fmaxf(size, hi[a] - lo[a]);
    eye[0] = target[0] + 0.8f * size, eye[1] = target[1] + 0.6f * size, eye[2] = target[2] + 1.9f * size;
    eddy_volume_desc d = view(&m, 96, 80, eye, target, 40, tf4, 4, 0);
    eddy_volume *v = eddy_create_volume(e, &d);
    REQUIRE(v);
    size_t px = 96 * 80;
    float *a = malloc(16 * px), *b = malloc(16 * px), *c = malloc(16 * px), *da = malloc(4 * px), *dc = malloc(4 * px);
    const struct eddy_volume_params *p = eddy_volume_params_of(v);
    REQUIRE(a && b && c && da && dc);
    REQUIRE(eddy_volume_render(e, v) == EDDY_OK && eddy_volume_read(e, v, a, da) == EDDY_OK);
    REQUIRE(eddy_volume_render(e, v) == EDDY_OK && eddy_volume_read(e, v, b, NULL) == EDDY_OK);
    CHECKF(!memcmp(a, b, 16 * px), "a second frame of the same state differs");
    twin_inputs tw = twin_load(e, v, &m);
    const float *table = tw.table;
    const uint32_t *neigh = tw.neigh, *bound = tw.bound, nb = tw.nb;
    eddy_volume_cast_cpu(p, m.pos, m.scalar, m.tets, neigh, bound, tf4, table, c, dc);
    /* The lists from the projected faces (volume.raster's twin) hold every
     * entry: the twin without lists (every entry from the BVH) is the same
     * bits. */
    struct eddy_volume_params bvh_only = *p;
    bvh_only.lists[0] = 0;
    float *cb = malloc(16 * px), *dcb = malloc(4 * px);
    REQUIRE(cb && dcb);
    eddy_volume_cast_cpu(&bvh_only, m.pos, m.scalar, m.tets, neigh, bound, tf4, table, cb, dcb);
    CHECKF(!memcmp(c, cb, 16 * px) && !memcmp(dc, dcb, 4 * px), "the C twin's lists miss entries the BVH finds");
    /* The counting twin (eddy bench's profile of the frame) renders the
     * same bits, and its counts agree with the image: a ray that entered
     * has a depth, every pixel looks up at least one entry, each ray that
     * entered crossed a tet; without lists every lookup is the BVH's. */
    eddy_volume_cast_counts k, kb;
    eddy_volume_cast_cpu_counted(p, m.pos, m.scalar, m.tets, neigh, bound, tf4, table, cb, dcb, &k);
    CHECKF(!memcmp(c, cb, 16 * px) && !memcmp(dc, dcb, 4 * px), "the counting twin renders other bits");
    eddy_volume_cast_cpu_counted(&bvh_only, m.pos, m.scalar, m.tets, neigh, bound, tf4, table, cb, dcb, &kb);
    uint64_t entered = 0;
    for (size_t i = 0; i < px; i++)
        entered += isfinite(dc[i]) != 0;
    CHECKF(k.rays_hit == entered && kb.rays_hit == entered, "%llu and %llu rays entered the mesh, %llu pixels have a "
           "depth", (unsigned long long)k.rays_hit, (unsigned long long)kb.rays_hit, (unsigned long long)entered);
    CHECKF(k.enters >= px && k.steps >= k.rays_hit && k.pieces >= k.rays_hit && k.fragments <= k.tested &&
           k.fragments >= k.rays_hit && k.entries_read > 0 && k.lane_steps8 >= k.steps &&
           k.lane_steps32 >= k.lane_steps8, "inconsistent counts: %llu lookups, %llu steps, %llu "
           "pieces, %llu of %llu pixels covered", (unsigned long long)k.enters, (unsigned long long)k.steps,
           (unsigned long long)k.pieces, (unsigned long long)k.fragments, (unsigned long long)k.tested);
    CHECKF(kb.bvh_enters == kb.enters && kb.enters == k.enters && kb.entries_read == 0 && kb.tested == 0 &&
           kb.bvh_nodes >= kb.enters && kb.steps == k.steps && kb.pieces == k.pieces,
           "without lists: %llu of %llu lookups through the BVH, %llu nodes, %llu steps (%llu with lists)",
           (unsigned long long)kb.bvh_enters, (unsigned long long)kb.enters, (unsigned long long)kb.bvh_nodes,
           (unsigned long long)kb.steps, (unsigned long long)k.steps);
    printf("counts: %llu rays entered, %.2f tets and %.2f pieces a ray that entered, %.1f pixels tested and %.1f "
           "covered a boundary face, %llu of %llu lookups through the BVH; lanes of 8 run %.2f times the steps, of "
           "32 %.2f times\n", (unsigned long long)k.rays_hit, (double)k.steps / (double)k.rays_hit, (double)k.pieces / (double)k.rays_hit, (double)k.tested / nb,
           (double)k.fragments / nb, (unsigned long long)k.bvh_enters, (unsigned long long)k.enters,
           (double)k.lane_steps8 / (double)k.steps, (double)k.lane_steps32 / (double)k.steps);
    free(cb), free(dcb);
    double worst = 0, dworst = 0;
    uint32_t hits = 0, depth_mismatch = 0;
    for (size_t i = 0; i < px; i++) {
        for (int k = 0; k < 4; k++)
            worst = fmax(worst, fabs((double)a[4 * i + k] - c[4 * i + k]));
        if (isfinite(da[i]) != isfinite(dc[i]))
            depth_mismatch++;
        else if (isfinite(da[i]))
            dworst = fmax(dworst, fabs((double)da[i] - dc[i])), hits++;
    }
    /* into a host's own images: the same bits */
    eddy_image hc = eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc), .width = 96, .height = 80, .format = EDDY_FORMAT_RGBA32F,
                                                             .usage = EDDY_IMAGE_STORAGE, .label = "host.color" });
    eddy_image hd = eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc), .width = 96, .height = 80, .format = EDDY_FORMAT_R32F,
                                                             .usage = EDDY_IMAGE_STORAGE, .label = "host.depth" });
    eddy_image small = eddy_create_image(e, &(eddy_image_desc){ EDDY_SIZED(eddy_image_desc), .width = 95, .height = 80, .format = EDDY_FORMAT_RGBA32F,
                                                                .usage = EDDY_IMAGE_STORAGE, .label = "host.small" });
    REQUIRE(hc.id && hd.id && small.id);
    eddy_volume_desc hdsc = d;
    hdsc.color_image = small;
    test_clear_error();
    CHECKF(!eddy_create_volume(e, &hdsc), "a host image of the wrong size was taken");
    hdsc.color_image = hc, hdsc.depth_image = hd;
    eddy_volume *hv = eddy_create_volume(e, &hdsc);
    REQUIRE(hv);
    REQUIRE(eddy_volume_render(e, hv) == EDDY_OK);
    REQUIRE(eddy_image_download(e, hc, &(eddy_image_region){ 0 }, b) == EDDY_OK);
    CHECKF(!memcmp(a, b, 16 * px), "the host's image differs from the renderer's own");
    eddy_destroy_volume(e, hv);
    eddy_destroy_image(e, hc), eddy_destroy_image(e, hd), eddy_destroy_image(e, small);
    printf("twin: bunny_5k %u boundary faces, %u pixels hit; GPU against the C twin: colour %.2e (tolerance 1e-3: samplers may filter with 8 fractional bits), "
           "depth %.2e m, %u pixels hit by one only; rerun bitwise %s\n", nb, hits, worst, dworst, depth_mismatch,
           memcmp(a, b, 16 * px) ? "different" : "identical");
    CHECKF(worst < 1e-3, "colour off by %g", worst);
    CHECKF(depth_mismatch <= px / 1000, "%u pixels hit by one of GPU and C only", depth_mismatch);
    CHECKF(hits > px / 10, "only %u pixels hit", hits);
    /* Point sampling (a kernel of its own) against its twin; it differs from
     * the pre-integrated frame by the midpoint rule's error. */
    eddy_volume_desc pdsc = d;
    pdsc.point_sampling = true;
    eddy_volume *pv = eddy_create_volume(e, &pdsc);
    REQUIRE(pv);
    REQUIRE(eddy_volume_render(e, pv) == EDDY_OK && eddy_volume_read(e, pv, b, NULL) == EDDY_OK);
    eddy_volume_cast_cpu(eddy_volume_params_of(pv), m.pos, m.scalar, m.tets, neigh, bound, tf4, table, c, NULL);
    double pworst = 0, pmean = 0;
    for (size_t i = 0; i < 4 * px; i++) {
        pworst = fmax(pworst, fabs((double)b[i] - c[i]));
        pmean += fabs((double)b[i] - a[i]) / (4.0 * px);
    }
    printf("twin: point sampling against its C twin %.2e; mean |point - table| %.2e\n", pworst, pmean);
    CHECKF(pworst < 1e-4, "point sampling off its twin by %g", pworst);
    CHECKF(pmean > 1e-5 && pmean < 2e-2, "point sampling differs from the table by %g on average", pmean);
    eddy_destroy_volume(e, pv);
    free(a), free(b), free(c), free(da), free(dc);
    twin_free(&tw);
    eddy_destroy_volume(e, v);
    mesh_free(e, &m);
}

/* ------------------------------------------------------------------ inside */

/* The centroid of the tet whose centroid is nearest to q: a point inside
 * the mesh (a vertex, edge or face of the grid's when q is one). */
static void inside_point(const mesh *m, const float q[3], float out[3])
{
    float best = INFINITY;
    for (uint32_t t = 0; t < m->nt; t++) {
        float c[3] = { 0, 0, 0 }, d = 0;
        for (int i = 0; i < 4; i++)
            for (int a = 0; a < 3; a++)
                c[a] += 0.25f * m->pos[4 * m->tets[4 * t + i] + a];
        for (int a = 0; a < 3; a++)
            d += (c[a] - q[a]) * (c[a] - q[a]);
        if (d < best)
            best = d, memcpy(out, c, sizeof c);
    }
}

/* With the eye inside the mesh every ray starts in the eye's tet: the GPU
 * against the reference ray integral (which clips each tet to t >= 0) and
 * against its C twin, on a family of meshes and eyes: a grid's vertex (the
 * eye on 24 tets' corners), a sphere, the bunny (a ray leaves and enters
 * again through the ears) and inside the torus's tube along it. */
static void part_inside(eddy_engine *e)
{
    static const struct {
        const char *mesh;
        float at[3], look[3], fov;
    } cases[] = {
        { NULL, { 0, 0, 0 }, { 0.9f, 0.7f, 0.2f }, 80 },
        { "sphere_5k", { 0.2f, -0.1f, 0.1f }, { -1, 0.3f, -2 }, 70 },
        { "bunny_5k", { 0, 0, 0 }, { 0.2f, 1, 0.1f }, 75 },
        { "torus_5k", { 0, 0, 0 }, { 1, 0, 0 }, 60 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mesh m = cases[k].mesh ? load_mesh(e, cases[k].mesh, cases[k].mesh) : cube_mesh(e, "grid", 4, 1.0f);
        float lo[3], hi[3], eye[3], q[3], target[3];
        mesh_box(&m, lo, hi);
        for (int a = 0; a < 3; a++)
            q[a] = 0.5f * (lo[a] + hi[a]) + cases[k].at[a] * (hi[a] - lo[a]);
        if (cases[k].mesh)
            inside_point(&m, q, eye);
        else
            memcpy(eye, q, sizeof q);
        for (int a = 0; a < 3; a++)
            target[a] = eye[a] + cases[k].look[a];
        eddy_volume_desc d = view(&m, 64, 48, eye, target, cases[k].fov, tf4, 4, 0.25f * (hi[0] - lo[0]));
        d.scalar_min = 0, d.scalar_max = 1;
        eddy_volume *v = eddy_create_volume(e, &d);
        REQUIRE(v);
        frame f = capture(e, v, &d, &m, 64);
        char what[64];
        snprintf(what, sizeof what, "inside %s", cases[k].mesh ? cases[k].mesh : "grid");
        uint32_t hit = compare_reference(what, &f);
        size_t px = (size_t)f.w * f.h;
        CHECKF(hit == px, "%s: %u of %zu rays start in the mesh", what, hit, px);
        double opacity = 0;
        uint32_t at_eye = 0;
        for (size_t i = 0; i < px; i++)
            opacity += f.rgba[4 * i + 3] / (double)px, at_eye += f.depth[i] == 0.0f;
        CHECKF(opacity > 0.2 && at_eye == px, "%s: mean opacity %.3f, %u of %zu pixels at depth 0", what, opacity,
               at_eye, px);
        /* the C twin: the same eye tet, the same traversal */
        float *c = malloc(16 * px), *dc = malloc(4 * px), *planes = malloc(64 * (size_t)m.nt),
              *grad = malloc(16 * (size_t)m.nt);
        REQUIRE(c && dc && planes && grad);
        twin_inputs tw = twin_load(e, v, &m);
        eddy_volume_geometry_cpu(m.pos, m.scalar, m.tets, m.nt, planes, grad);
        uint32_t tet = eddy_volume_locate_cpu(m.pos, m.tets, m.nt, planes, eye);
        CHECKF(tet != EDDY_VOLUME_NONE, "%s: the twin finds no tet around the eye", what);
        eddy_volume_cast_cpu(eddy_volume_params_of(v), m.pos, m.scalar, m.tets, tw.neigh, tw.bound, tf4, tw.table, c,
                             dc);
        double worst = 0;
        for (size_t i = 0; i < 4 * px; i++)
            worst = fmax(worst, fabs((double)f.rgba[i] - c[i]));
        printf("%s: eye (%.3f, %.3f, %.3f) in tet %u; mean opacity %.3f; GPU against the C twin %.2e (tolerance "
               "1e-3)\n", what, eye[0], eye[1], eye[2], tet, opacity, worst);
        CHECKF(worst < 1e-3, "%s: colour off the twin by %g", what, worst);
        free(c), free(dc), free(planes), free(grad);
        twin_free(&tw);
        frame_free(&f);
        eddy_destroy_volume(e, v);
        mesh_free(e, &m);
    }
}

/* ------------------------------------------------------------------ reference */

static void part_cube(eddy_engine *e)
{
    mesh cube = cube_mesh(e, "cube", 3, 1.0f);
    const float eye[3] = { 2.1f, 1.7f, 2.6f }, target[3] = { 0.5f, 0.45f, 0.5f };
    eddy_volume_desc d = view(&cube, 80, 64, eye, target, 40, tf4, 4, 0.5f);
    d.scalar_min = 0, d.scalar_max = 1;
    frame f = render(e, &d, &cube, 64);
    CHECK(compare_reference("cube (162 tets)", &f) > 800);
    frame_free(&f);
    mesh_free(e, &cube);

    mesh sphere = load_mesh(e, "sphere_5k", "sphere");
    const float se[3] = { 1.2f, 0.9f, 3.2f }, st[3] = { 0, 0, 0 };
    d = view(&sphere, 80, 64, se, st, 45, tf4, 4, 0.6f);
    f = render(e, &d, &sphere, 64);
    CHECK(compare_reference("sphere_5k", &f) > 1000);
    frame_free(&f);
    mesh_free(e, &sphere);
}

static void part_torus(eddy_engine *e)
{
    mesh m = load_mesh(e, "torus_5k", "torus");
    /* the torus's axis: the smallest extent of its box */
    float lo[3], hi[3];
    mesh_box(&m, lo, hi);
    int axis = 0;
    for (int a = 1; a < 3; a++)
        if (hi[a] - lo[a] < hi[axis] - lo[axis])
            axis = a;
    float target[3], eye[3];
    for (int a = 0; a < 3; a++)
        target[a] = 0.5f * (lo[a] + hi[a]), eye[a] = target[a];
    /* edge-on: the eye in the torus's plane, a little off its axis of view */
    int side = (axis + 1) % 3;
    eye[side] += 5.0f;
    eye[3 - axis - side] += 0.3f;
    printf("torus: axis %c, box %.2f x %.2f x %.2f\n", "xyz"[axis], hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
    eddy_volume_desc d = view(&m, 96, 48, eye, target, 35, tf4, 4, 0.3f);
    d.camera.up[0] = d.camera.up[1] = d.camera.up[2] = 0;
    d.camera.up[axis] = 1;
    frame f = render(e, &d, &m, 64);
    compare_reference("torus_5k edge-on", &f);
    /* The entries from the BVH where a pixel's list overflows: with one
     * slot, every ray that enters the tube twice searches the BVH, and the
     * frame is the same bits. */
    uint32_t through_bvh[2] = { 1, 0 };
    size_t npx = (size_t)f.w * f.h;
    float *one = malloc(16 * npx), *one_depth = malloc(4 * npx);
    REQUIRE(one && one_depth);
    for (int k = 0; k < 2; k++) {
        eddy_volume_desc dk = d;
        dk.entry_slots = k ? 1 : 0;
        eddy_volume *v = eddy_create_volume(e, &dk);
        REQUIRE(v);
        REQUIRE(eddy_volume_render(e, v) == EDDY_OK);
        REQUIRE(eddy_volume_read_guards(e, v, NULL, NULL, &through_bvh[k]) == EDDY_OK);
        if (k)
            REQUIRE(eddy_volume_read(e, v, one, one_depth) == EDDY_OK);
        eddy_destroy_volume(e, v);
    }
    printf("torus: pixels through the BVH: %u with 8 entry slots, %u with 1; frame with 1 slot %s\n", through_bvh[0],
           through_bvh[1], memcmp(one, f.rgba, 16 * npx) || memcmp(one_depth, f.depth, 4 * npx) ? "differs" : "the same bits");
    CHECKF(through_bvh[0] == 0, "%u pixels overflowed 8 slots", through_bvh[0]);
    CHECKF(through_bvh[1] > 100, "only %u pixels overflowed one slot", through_bvh[1]);
    CHECKF(!memcmp(one, f.rgba, 16 * npx) && !memcmp(one_depth, f.depth, 4 * npx),
           "the BVH's entries differ from the lists'");
    free(one), free(one_depth);
    /* The rays that cross the tube twice: the reference on the mesh's
     * far half alone tells how much the second crossing adds. */
    uint32_t twice = 0, short_ = 0;
    float *pos = malloc(16 * (size_t)m.n);
    REQUIRE(pos);
    memcpy(pos, m.pos, 16 * (size_t)m.n);
    uint32_t *near_tets = malloc(16 * (size_t)m.nt), nn = 0;
    REQUIRE(near_tets);
    for (uint32_t t = 0; t < m.nt; t++) {
        float c = 0;
        for (int i = 0; i < 4; i++)
            c += 0.25f * m.pos[4 * m.tets[4 * t + i] + side];
        if (c > target[side])
            memcpy(near_tets + 4 * nn++, m.tets + 4 * t, 16);
    }
    struct eddy_volume_params p = f.p;
    p.counts[0] = nn;
    size_t px = (size_t)f.w * f.h;
    float *near_rgba = malloc(16 * px), *near_depth = malloc(4 * px);
    REQUIRE(near_rgba && near_depth);
    eddy_volume_reference_cpu(&p, pos, m.scalar, near_tets, tf4, 64, near_rgba, near_depth);
    for (size_t i = 0; i < px; i++) {
        /* both halves on the ray: the whole is more opaque than the near half */
        if (!(near_rgba[4 * i + 3] > 0.02f) || !(f.ref[4 * i + 3] > near_rgba[4 * i + 3] + 0.02f))
            continue;
        twice++;
        if (!(f.rgba[4 * i + 3] > near_rgba[4 * i + 3] + 0.01f))
            short_++;
    }
    printf("torus: %u rays cross the tube twice; %u of them got only one crossing\n", twice, short_);
    CHECKF(twice > 200, "only %u rays cross twice: the view is not edge-on", twice);
    CHECKF(short_ == 0, "%u rays lost their second crossing", short_);
    free(pos), free(near_tets), free(near_rgba), free(near_depth);
    frame_free(&f);
    mesh_free(e, &m);
}

static void part_axis(eddy_engine *e)
{
    mesh m = cube_mesh(e, "grid", 4, 1.0f);
    /* pixel centres on the grid's lines: 4 cells over 1 m, the image spans
     * exactly the cube: an orthographic-like narrow view from far away */
    for (int view_axis = 0; view_axis < 3; view_axis++) {
        float target[3] = { 0.5f, 0.5f, 0.5f }, eye[3] = { 0.5f, 0.5f, 0.5f };
        eye[view_axis] += 200.0f;
        /* 41 px over 1.25 m: pixel centres every 1/32 m, through the cube's edges and vertices */
        float fov = 2.0f * atanf(0.5f * 41.0f / 32.0f / 199.5f) * 180.0f / 3.14159265f;
        eddy_volume_desc d = view(&m, 41, 41, eye, target, fov, tf4, 4, 0.5f);
        d.scalar_min = 0, d.scalar_max = 1;
        if (view_axis == 1)
            d.camera.up[1] = 0, d.camera.up[2] = 1;
        frame f = render(e, &d, &m, 64);
        uint32_t inside = 0, dark = 0, nan_ = 0;
        for (size_t i = 0; i < (size_t)f.w * f.h; i++) {
            for (int c = 0; c < 4; c++)
                nan_ += !(f.rgba[4 * i + c] == f.rgba[4 * i + c]);
            if (!(f.ref[4 * i + 3] > 0.05f))
                continue;
            inside++;
            dark += !(f.rgba[4 * i + 3] > 0.5f * f.ref[4 * i + 3]);
        }
        printf("axis %c: %u pixels inside, %u black, %u NaN channels\n", "xyz"[view_axis], inside, dark, nan_);
        CHECKF(inside > 900 && dark == 0 && nan_ == 0, "axis %d: %u inside, %u black, %u NaN", view_axis, inside,
               dark, nan_);
        compare_reference("axis-aligned cube", &f);
        frame_free(&f);
    }
    mesh_free(e, &m);
}

/* ------------------------------------------------------------------ deformed */

static void part_deformed(eddy_engine *e)
{
    mesh m = load_mesh(e, "bunny_5k", "bunny");
    float lo[3], hi[3];
    mesh_box(&m, lo, hi);
    /* the bunny stretched along x and sheared in y by its initial velocity,
     * no gravity: 50 steps of elastic deformation, no tet inverted */
    const eddy_module_desc *dm = eddy_find_module(e, "deform");
    REQUIRE(dm);
    eddy_param_value pv[64];
    for (uint32_t i = 0; i < dm->param_count; i++) {
        memcpy(pv[i].v, dm->params[i].def, sizeof pv[i].v);
        if (!strcmp(dm->params[i].name, "gravity"))
            pv[i].v[0] = pv[i].v[1] = pv[i].v[2] = 0;
    }
    float *mass = malloc(4 * (size_t)m.n);
    REQUIRE(mass);
    for (uint32_t i = 0; i < m.n; i++)
        mass[i] = 0.01f;
    REQUIRE(eddy_buffer_upload(e, eddy_particles_buffer(e, m.set, "mass"), 0, 4ull * m.n, mass) == EDDY_OK);
    free(mass);
    float *vel = calloc(4 * (size_t)m.n, sizeof(float)), extent = 0;
    REQUIRE(vel);
    for (int a = 0; a < 3; a++)
        extent = fmaxf(extent, hi[a] - lo[a]);
    for (uint32_t i = 0; i < m.n; i++) {
        vel[4 * i] = 1.5f * (m.pos[4 * i] - 0.5f * (lo[0] + hi[0])) / extent;
        vel[4 * i + 1] = 1.5f * (m.pos[4 * i + 2] - 0.5f * (lo[2] + hi[2])) / extent;
    }
    REQUIRE(eddy_buffer_upload(e, eddy_particles_buffer(e, m.set, "velocity"), 0, 16ull * m.n, vel) == EDDY_OK);
    free(vel);
    eddy_slot_sets slot = { &m.set, 1 };
    eddy_system_ctx ctx = { .size = sizeof ctx, .engine = e, .name = "body", .particles = m.set, .slots = &slot,
                            .slot_count = 1, .params = pv, .dt = 0.005, .substeps = 1 };
    float size = 0;
    for (int a = 0; a < 3; a++) {
        ctx.box_min[a] = lo[a] - 1, ctx.box_max[a] = hi[a] + 1;
        size = fmaxf(size, hi[a] - lo[a]);
    }
    void *state = NULL;
    REQUIRE(dm->create(&ctx, &state) == EDDY_OK);
    /* the renderer made on the rest state, as a scene makes it */
    float target[3], eye[3];
    for (int a = 0; a < 3; a++)
        target[a] = 0.5f * (lo[a] + hi[a]);
    eye[0] = target[0] + 0.6f * size, eye[1] = target[1] + 0.7f * size, eye[2] = target[2] + 1.8f * size;
    eddy_volume_desc d = view(&m, 80, 64, eye, target, 45, tf4, 4, 0);
    eddy_volume *v = eddy_create_volume(e, &d);
    REQUIRE(v);
    eddy_graph g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "deform" });
    REQUIRE(dm->declare_step(state, g) == EDDY_OK);
    REQUIRE(eddy_graph_run(e, g, 50) == EDDY_OK);
    float *pos = malloc(16 * (size_t)m.n);
    REQUIRE(pos);
    REQUIRE(eddy_buffer_download(e, eddy_particles_buffer(e, m.set, "position"), 0, 16ull * m.n, pos) == EDDY_OK);
    double moved = 0;
    for (uint32_t i = 0; i < m.n; i++)
        for (int a = 0; a < 3; a++)
            moved = fmax(moved, fabs((double)pos[4 * i + a] - m.pos[4 * i + a]));
    /* the reference cuts tets on their own: it needs them all positive */
    uint32_t inverted = 0;
    for (uint32_t t = 0; t < m.nt; t++) {
        const float *x[4];
        for (int i = 0; i < 4; i++)
            x[i] = pos + 4 * m.tets[4 * t + i];
        double a[3], b[3], c[3];
        for (int k = 0; k < 3; k++)
            a[k] = x[1][k] - x[0][k], b[k] = x[2][k] - x[0][k], c[k] = x[3][k] - x[0][k];
        inverted += !(a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                      a[2] * (b[0] * c[1] - b[1] * c[0]) > 0);
    }
    free(pos);
    CHECKF(inverted == 0, "%u tets inverted after 50 steps", inverted);
    frame f = capture(e, v, &d, &m, 64);
    eddy_destroy_volume(e, v);
    printf("deformed: after 50 steps the vertices moved up to %.3f m (the bunny is %.3f m)\n", moved, size);
    CHECKF(moved > 0.02 * size, "the body hardly moved (%g)", moved);
    compare_reference("bunny_5k after 50 steps", &f);
    frame_free(&f);
    eddy_destroy_graph(e, g);
    dm->destroy(state);
    mesh_free(e, &m);
}

/* ------------------------------------------------------------------ bad input */

static void refused(eddy_engine *e, const eddy_volume_desc *d, const char *what)
{
    test_clear_error();
    eddy_volume *v = eddy_create_volume(e, d);
    CHECKF(!v, "%s: accepted", what);
    CHECKF(test_errors_seen > 0, "%s: refused without a message", what);
    printf("bad %s: %s\n", what, test_last_error);
    eddy_destroy_volume(e, v);
}

static void part_bad(eddy_engine *e)
{
    mesh m = cube_mesh(e, "cube", 1, 1.0f);
    const float eye[3] = { 2, 2, 3 }, target[3] = { 0.5f, 0.5f, 0.5f };
    eddy_volume_desc d = view(&m, 16, 16, eye, target, 40, tf4, 4, 0.5f);
    eddy_engine_counters before = eddy_engine_get_counters(e), after;
    eddy_volume_desc x = d;
    x.transfer_count = 0;
    refused(e, &x, "a transfer function with no points");
    const float unsorted[] = { 0.5f, 1, 1, 1, 0.5f, 0.2f, 1, 1, 1, 0.5f };
    x = d, x.transfer = unsorted, x.transfer_count = 2;
    refused(e, &x, "unsorted transfer function points");
    x = d, x.width = 0;
    refused(e, &x, "a zero image width");
    x = d, x.width = 16384, x.height = 16384;
    refused(e, &x, "an image over the device's limits");
    x = d, x.camera.eye[1] = NAN;
    refused(e, &x, "a NaN camera");
    x = d, x.entry_slots = 65;
    refused(e, &x, "65 entry slots");
    /* A segment through one tet would need more pieces than the cast cuts. */
    x = d, x.max_segment = 1e-4f;
    refused(e, &x, "a max_segment 1/10,000 of the edge");
    CHECK(strstr(test_last_error, "max_segment") && strstr(test_last_error, "1024"));
    /* an inverted tet */
    mesh inv = cube_mesh(NULL, "inverted", 1, 1.0f);
    uint32_t s = inv.tets[4 * 2 + 1];
    inv.tets[4 * 2 + 1] = inv.tets[4 * 2 + 2];
    inv.tets[4 * 2 + 2] = s;
    mesh_upload(e, &inv, "inverted");
    x = d, x.set = inv.set;
    refused(e, &x, "an inverted tet");
    CHECK(strstr(test_last_error, "tet 2") && strstr(test_last_error, "inverted"));
    /* an empty mesh: a set with no tets */
    eddy_particles empty = eddy_create_particles(e, &(eddy_particles_desc){ EDDY_SIZED(eddy_particles_desc), .name = "empty", .count = 4 });
    REQUIRE(empty.id);
    x = d, x.set = empty;
    refused(e, &x, "an empty mesh");
    eddy_destroy_particles(e, empty);
    mesh_free(e, &inv);
    after = eddy_engine_get_counters(e);
    CHECKF(after.kernels_live == before.kernels_live && after.images_live == before.images_live,
           "refusals left %d kernels and %d images", (int)(after.kernels_live - before.kernels_live),
           (int)(after.images_live - before.images_live));
    mesh_free(e, &m);
}

/* Opacity as VTK's tetrahedral ray caster reads it (attenuation per metre)
 * and as eddy and VTK's grid mappers do (a slab of opacity_unit): the
 * conversions round-trip, and a uniform segment of any length composites
 * to 1 - exp(-sigma L) in the C reference integral. */
static void part_units(eddy_engine *e)
{
    (void)e;
    const double alphas[] = { 0.01, 0.1, 0.5, 0.9, 0.999 }, units[] = { 0.003, 0.05, 1.0 }, lengths[] = { 0.5, 1, 3.7 };
    double worst_trip = 0, worst_segment = 0;
    for (size_t i = 0; i < sizeof alphas / sizeof *alphas; i++)
        for (size_t j = 0; j < sizeof units / sizeof *units; j++) {
            double a = alphas[i], u = units[j];
            double sigma = eddy_volume_opacity_to_attenuation(a, u);
            worst_trip = fmax(worst_trip, fabs(eddy_volume_opacity_from_attenuation(sigma, u) - a));
            float tf[5] = { 0, 1, 1, 1, (float)a };
            for (size_t k = 0; k < sizeof lengths / sizeof *lengths; k++) {
                double L = lengths[k] * u, out[4];
                eddy_volume_segment_cpu(tf, 1, (float)u, 0, 0, L, 64, out);
                worst_segment = fmax(worst_segment, fabs(out[3] - (1 - exp(-sigma * L))));
            }
        }
    CHECKF(worst_trip < 1e-12, "opacity -> attenuation -> opacity differs by %g", worst_trip);
    /* The twin takes the opacity as a float: its rounding, not the formula. */
    CHECKF(worst_segment < 2e-6, "a uniform segment composites %g away from 1 - exp(-sigma L)", worst_segment);
    printf("units: opacity <-> VTK attenuation round trip within %.1e, segments within %.1e of 1 - exp(-sigma L)\n",
           worst_trip, worst_segment);
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 3);
    root = argv[1];
    const char *part = argv[2];
    eddy_engine *e = test_engine();
    if (!strcmp(part, "tet"))
        part_tet(e);
    else if (!strcmp(part, "preint"))
        part_preint(e);
    else if (!strcmp(part, "twin"))
        part_twin(e);
    else if (!strcmp(part, "cube"))
        part_cube(e);
    else if (!strcmp(part, "inside"))
        part_inside(e);
    else if (!strcmp(part, "torus"))
        part_torus(e);
    else if (!strcmp(part, "axis"))
        part_axis(e);
    else if (!strcmp(part, "deformed"))
        part_deformed(e);
    else if (!strcmp(part, "bad"))
        part_bad(e);
    else if (!strcmp(part, "units"))
        part_units(e);
    else
        REQUIRE(!"unknown part");
    test_finish(e);
    return test_report(part);
}
