/* The deform module (Tejada and Ertl 2005; PHYSICS.md) against its C
 * reference and against physics. Parts (argv[2]; argv[1] the source root):
 *   jacobian   spring Jacobian blocks against central differences of the
 *              force, 1,000 random springs (relative 1e-4), no device
 *   cg_dense   the C conjugate gradients against Gaussian elimination of the
 *              same system (bar_80, pinned end): relative 1e-5
 *   cpu        one GPU step against the C step on bar_80 and bar_5k for each
 *              integrator (with air drag) (positions within 1e-5 of the bar's length), the
 *              GPU solve against the C solve (1e-4 relative), bitwise reruns
 *   stability  implicit Euler at ks = 30,000 and 300,000 N/m, h = 0.01 s: the
 *              energy never grows over 10 s; the explicit integrators blow up
 *              at that step; the largest stable step of each is printed
 *   hang       a vertical chain settles to the analytic extension (1%); the
 *              pinned bar's sag converges as h shrinks
 *   momentum   a free spinning body: linear and angular momentum per integrator
 *   materials  a bar of a soft and a stiff half (stiffness from the vertex
 *              scalar): the stiff half strains at most a tenth of the soft
 *   cloth      a grid cloth pinned at two corners swings onto a sphere: the
 *              corners stay bitwise put, no vertex and no triangle enters
 *              the sphere, the sheet comes to rest on it; its springs
 *              (stretch, shear, bending) counted against the grid's
 *   handle     bar_80 held by a handle at one end: at rest the force on the
 *              handle is the bar's weight (1%) and equals the C sum of the
 *              handle vertices' forces; dragged 0.5 m, the handle follows
 *              its input exactly and the bar follows it
 *   output     bar_80's frames: the .vtu read back with the tet mesh loader
 *              equals the device's vertices and the tets bitwise; the
 *              surface .ply and both .pvd series are there */
#include "../gpu/gpu_test.h"
#include "contact/contact.h"
#include "deform/deform.h"
#include "rigid/rigid.h"
#include "eddy/eddy_scene.h"
#include "eddy/eddy_tetmesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *root;

/* ------------------------------------------------------------------ bodies */

typedef struct body {
    eddy_particles set;
    uint32_t n, tets;
    float *pos, *vel, *mass, *scalar;
    uint32_t *idx;
} body;

static body load_body(eddy_engine *e, const char *name, const char *mesh, double density, double radius)
{
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/data/tets/%s.node", root, mesh);
    eddy_tetmesh m;
    int rc = eddy_load_tetmesh(path, NULL, &m, err, sizeof err);
    REQUIRE(rc == 0 || !fprintf(stderr, "%s\n", err));
    body b = { .n = m.vertex_count, .tets = m.tet_count };
    b.pos = calloc(4 * b.n, sizeof(float));
    b.vel = calloc(4 * b.n, sizeof(float));
    b.mass = calloc(b.n, sizeof(float));
    b.scalar = calloc(b.n, sizeof(float));
    b.idx = malloc(16 * (size_t)b.tets);
    REQUIRE(b.pos && b.vel && b.mass && b.scalar && b.idx);
    for (uint32_t i = 0; i < b.n; i++) {
        for (int a = 0; a < 3; a++)
            b.pos[4 * i + a] = m.vertices[3 * i + a];
        b.pos[4 * i + 3] = (float)radius;
        b.scalar[i] = m.attribute_count ? m.attributes[m.attribute_count * i] : 0;
    }
    memcpy(b.idx, m.tets, 16 * (size_t)b.tets);
    eddy_tetmesh_masses(&m, density, b.mass);
    eddy_free_tetmesh(&m);
    b.set = eddy_create_particles(e, &(eddy_particles_desc){ EDDY_SIZED(eddy_particles_desc), .name = name, .count = b.n });
    REQUIRE(b.set.id);
    eddy_elements el = eddy_particles_add_elements(e, b.set, &(eddy_elements_desc){ EDDY_SIZED(eddy_elements_desc),
        .name = "tets", .kind = EDDY_TETRAHEDRA, .count = b.tets, .indices = b.idx });
    REQUIRE(el.buffer.id);
    return b;
}

static void upload_body(eddy_engine *e, const body *b)
{
    CHECK(eddy_buffer_upload(e, eddy_particles_buffer(e, b->set, "position"), 0, 16ull * b->n, b->pos) == EDDY_OK);
    CHECK(eddy_buffer_upload(e, eddy_particles_buffer(e, b->set, "velocity"), 0, 16ull * b->n, b->vel) == EDDY_OK);
    CHECK(eddy_buffer_upload(e, eddy_particles_buffer(e, b->set, "mass"), 0, 4ull * b->n, b->mass) == EDDY_OK);
}

static void free_body(eddy_engine *e, body *b)
{
    eddy_destroy_particles(e, b->set);
    free(b->pos);
    free(b->vel);
    free(b->mass);
    free(b->scalar);
    free(b->idx);
}

/* The module's parameters by name, defaults elsewhere. */
typedef struct setting {
    const char *name;
    double v[3];
} setting;

static const eddy_module_desc *deform_module(eddy_engine *e)
{
    const eddy_module_desc *m = eddy_find_module(e, "deform");
    REQUIRE(m != NULL);
    return m;
}

static void fill_params(const eddy_module_desc *m, eddy_param_value *v, const setting *s, int count)
{
    for (uint32_t i = 0; i < m->param_count; i++)
        memcpy(v[i].v, m->params[i].def, sizeof v[i].v);
    for (int k = 0; k < count; k++) {
        uint32_t i = 0;
        while (i < m->param_count && strcmp(m->params[i].name, s[k].name))
            i++;
        REQUIRE(i < m->param_count);
        memcpy(v[i].v, s[k].v, sizeof v[i].v);
    }
}

typedef struct sim {
    const eddy_module_desc *m;
    void *state;
    eddy_graph g;
} sim;

static sim sim_create(eddy_engine *e, eddy_particles set, double dt, const float lo[3], const float hi[3],
                      const setting *s, int count)
{
    sim r = { deform_module(e), NULL, { 0 } };
    eddy_param_value v[64]; /* room for any module's parameters */
    fill_params(r.m, v, s, count);
    eddy_slot_sets slot = { &set, 1 };
    eddy_system_ctx ctx = { .size = sizeof ctx, .engine = e, .name = "body", .particles = set, .slots = &slot,
                            .slot_count = 1, .params = v, .dt = dt, .substeps = 1 };
    memcpy(ctx.box_min, lo, 12);
    memcpy(ctx.box_max, hi, 12);
    REQUIRE(r.m->create(&ctx, &r.state) == EDDY_OK);
    r.g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "deform" });
    REQUIRE(r.m->declare_step(r.state, r.g) == EDDY_OK);
    return r;
}

static void sim_destroy(eddy_engine *e, sim *s)
{
    eddy_destroy_graph(e, s->g);
    s->m->destroy(s->state);
}

/* ------------------------------------------------------------------ the C model */

typedef struct model {
    struct eddy_deform_params p;
    eddy_deform_topology t;
    float *edge_param;
    uint32_t *flags;
    eddy_deform_cpu c;
} model;

static void model_init(model *md, const body *b, double dt, const float lo[3], const float hi[3], uint32_t integrator,
                       double ks, double kd, const bool *pinned, double tol, uint32_t iterations)
{
    memset(md, 0, sizeof *md);
    REQUIRE(eddy_deform_topology_build(b->n, b->idx, b->tets, 4, NULL, &md->t) == 0);
    md->edge_param = malloc(16 * (size_t)md->t.edge_count);
    md->flags = malloc(4 * (size_t)b->n);
    REQUIRE(md->edge_param && md->flags);
    for (uint32_t k = 0; k < md->t.edge_count; k++) {
        const float *a = b->pos + 4 * md->t.edges[2 * k], *c = b->pos + 4 * md->t.edges[2 * k + 1];
        double d[3] = { (double)c[0] - a[0], (double)c[1] - a[1], (double)c[2] - a[2] };
        md->edge_param[4 * k] = (float)sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        md->edge_param[4 * k + 1] = (float)ks;
        md->edge_param[4 * k + 2] = (float)kd;
        md->edge_param[4 * k + 3] = 0;
    }
    for (uint32_t i = 0; i < b->n; i++)
        md->flags[i] = pinned && pinned[i] ? 0 : EDDY_DEFORM_FREE;
    struct eddy_deform_params *p = &md->p;
    p->gravity[1] = -9.81f;
    p->gravity[3] = (float)dt;
    for (int a = 0; a < 3; a++) {
        p->box_min[a] = lo[a];
        p->box_max[a] = hi[a];
    }
    p->box_min[3] = 1e5f;
    p->solver[0] = (float)tol;
    p->counts[0] = b->n;
    p->counts[1] = md->t.edge_count;
    p->counts[3] = integrator;
    p->misc[0] = iterations;
    p->misc[1] = EDDY_DEFORM_DEFINITE | EDDY_DEFORM_JACOBI;
    p->misc[2] = (b->n + 255) / 256;
    REQUIRE(eddy_deform_cpu_init(&md->c, p, &md->t, md->edge_param, md->flags, NULL) == 0);
}

static void model_free(model *md)
{
    eddy_deform_cpu_free(&md->c);
    eddy_deform_topology_free(&md->t);
    free(md->edge_param);
    free(md->flags);
}

/* ------------------------------------------------------------------ jacobian */

static void part_jacobian(void)
{
    uint64_t seed = 7;
    double worst = 0;
    for (int trial = 0; trial < 1000; trial++) {
        double xi[3], xj[3];
        for (int a = 0; a < 3; a++) {
            xi[a] = (double)test_rand(&seed) / 4294967296.0 - 0.5;
            xj[a] = (double)test_rand(&seed) / 4294967296.0 - 0.5;
        }
        double dx[3] = { xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2] };
        double len = sqrt(dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2]);
        if (len < 0.05)
            continue;
        /* Rest lengths from compressed to stretched. */
        double L = len * (0.5 + (double)test_rand(&seed) / 4294967296.0), ks = 1000 + trial;
        double f[3], K[9], fp[3], fm[3], Kt[9], eps = 1e-6 * len, scale = 0;
        eddy_deform_spring_double(xi, xj, L, ks, false, f, K);
        for (int a = 0; a < 9; a++)
            scale = fmax(scale, fabs(K[a]));
        for (int b = 0; b < 3; b++) {
            double xp[3] = { xj[0], xj[1], xj[2] }, xm[3] = { xj[0], xj[1], xj[2] };
            xp[b] += eps;
            xm[b] -= eps;
            eddy_deform_spring_double(xi, xp, L, ks, false, fp, Kt);
            eddy_deform_spring_double(xi, xm, L, ks, false, fm, Kt);
            for (int a = 0; a < 3; a++) {
                double fd = (fp[a] - fm[a]) / (2 * eps);
                worst = fmax(worst, fabs(fd - K[3 * a + b]) / scale);
            }
            /* df_i/dx_i = -K: move x_i instead. */
            double yp[3] = { xi[0], xi[1], xi[2] }, ym[3] = { xi[0], xi[1], xi[2] };
            yp[b] += eps;
            ym[b] -= eps;
            eddy_deform_spring_double(yp, xj, L, ks, false, fp, Kt);
            eddy_deform_spring_double(ym, xj, L, ks, false, fm, Kt);
            for (int a = 0; a < 3; a++) {
                double fd = (fp[a] - fm[a]) / (2 * eps);
                worst = fmax(worst, fabs(fd + K[3 * a + b]) / scale);
            }
        }
    }
    CHECKF(worst <= 1e-4, "Jacobian against central differences: largest relative difference %g (1e-4)", worst);
    printf("jacobian: 1,000 random springs, largest relative difference to central differences %.3g\n", worst);
}

/* ------------------------------------------------------------------ helpers */

static const float big_lo[3] = { -20, -20, -20 }, big_hi[3] = { 20, 20, 20 };

/* Stretches the body along x by `stretch` and gives it seeded velocities. */
static void perturb(body *b, double stretch, double speed, uint64_t seed)
{
    for (uint32_t i = 0; i < b->n; i++) {
        b->pos[4 * i] = (float)(b->pos[4 * i] * stretch);
        for (int a = 0; a < 3; a++)
            b->vel[4 * i + a] = (float)(speed * ((double)test_rand(&seed) / 4294967296.0 - 0.5));
        b->vel[4 * i + 3] = 0;
    }
}

/* The module's pin plane x <= 0 (within 1e-6 of the body's size). */
static bool *pins_at_x0(const body *b)
{
    bool *p = calloc(b->n, 1);
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (uint32_t i = 0; i < b->n; i++)
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], b->pos[4 * i + a]);
            hi[a] = fmax(hi[a], b->pos[4 * i + a]);
        }
    double size = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    for (uint32_t i = 0; i < b->n; i++)
        p[i] = b->pos[4 * i] <= 1e-6 * size;
    return p;
}

static void download(eddy_engine *e, const body *b, float *pos, float *vel)
{
    if (pos)
        CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, b->set, "position"), 0, 16ull * b->n, pos) == EDDY_OK);
    if (vel)
        CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, b->set, "velocity"), 0, 16ull * b->n, vel) == EDDY_OK);
}

/* Kinetic + spring + gravity energy (J) of a state under gravity g (y). */
static double energy(const model *md, const float *pos, const float *vel, const float *mass, double g)
{
    double E = 0;
    for (uint32_t i = 0; i < md->t.vertex_count; i++) {
        double v2 = 0;
        for (int a = 0; a < 3; a++)
            v2 += (double)vel[4 * i + a] * vel[4 * i + a];
        E += 0.5 * mass[i] * v2 + mass[i] * g * pos[4 * i + 1];
    }
    for (uint32_t k = 0; k < md->t.edge_count; k++) {
        const float *a = pos + 4 * md->t.edges[2 * k], *c = pos + 4 * md->t.edges[2 * k + 1];
        double d[3] = { (double)c[0] - a[0], (double)c[1] - a[1], (double)c[2] - a[2] };
        double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - md->edge_param[4 * k];
        E += 0.5 * md->edge_param[4 * k + 1] * l * l;
    }
    return E;
}

static const char *const integrator_names[] = { "implicit Euler", "explicit Euler", "symplectic Euler", "Verlet",
                                                "velocity Verlet" };

/* ------------------------------------------------------------------ cg_dense */

static void part_cg_dense(eddy_engine *e)
{
    body b = load_body(e, "bar", "bar_80", 1000, 0.01);
    perturb(&b, 1.05, 0.2, 3);
    bool *pin = pins_at_x0(&b);
    model md;
    model_init(&md, &b, 0.01, big_lo, big_hi, EDDY_DEFORM_IMPLICIT, 30000, 1, pin, 1e-7, 500);
    eddy_deform_cpu_springs(&md.c, b.pos, b.vel);
    eddy_deform_cpu_assemble(&md.c, b.pos, b.vel, b.mass);
    uint32_t n = b.n, N = 3 * n;
    double *A = calloc((size_t)N * N, sizeof(double)), *rhs = calloc(N, sizeof(double));
    float *unit = calloc(4 * n, sizeof(float)), *col = calloc(4 * n, sizeof(float));
    REQUIRE(A && rhs && unit && col);
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++)
            rhs[3 * i + a] = md.c.r[4 * i + a];
    /* Columns of A from q = A e_j; a pinned row and column become identity. */
    for (uint32_t j = 0; j < N; j++) {
        memset(unit, 0, 16ull * n);
        unit[4 * (j / 3) + j % 3] = 1;
        eddy_deform_cpu_matvec(&md.c, unit, col);
        for (uint32_t i = 0; i < N; i++)
            A[(size_t)i * N + j] = pin[i / 3] || pin[j / 3] ? (i == j) : col[4 * (i / 3) + i % 3];
    }
    /* Gaussian elimination with partial pivoting, in double. */
    for (uint32_t k = 0; k < N; k++) {
        uint32_t best = k;
        for (uint32_t i = k + 1; i < N; i++)
            if (fabs(A[(size_t)i * N + k]) > fabs(A[(size_t)best * N + k]))
                best = i;
        for (uint32_t j = 0; j < N && best != k; j++) {
            double t = A[(size_t)k * N + j];
            A[(size_t)k * N + j] = A[(size_t)best * N + j];
            A[(size_t)best * N + j] = t;
        }
        double t = rhs[k];
        rhs[k] = rhs[best];
        rhs[best] = t;
        for (uint32_t i = k + 1; i < N; i++) {
            double f = A[(size_t)i * N + k] / A[(size_t)k * N + k];
            for (uint32_t j = k; j < N; j++)
                A[(size_t)i * N + j] -= f * A[(size_t)k * N + j];
            rhs[i] -= f * rhs[k];
        }
    }
    for (uint32_t k = N; k-- > 0;) {
        double s = rhs[k];
        for (uint32_t j = k + 1; j < N; j++)
            s -= A[(size_t)k * N + j] * rhs[j];
        rhs[k] = s / A[(size_t)k * N + k];
    }
    uint32_t it = eddy_deform_cpu_solve(&md.c);
    double num = 0, den = 0;
    for (uint32_t i = 0; i < N; i++) {
        double x = md.c.x[4 * (i / 3) + i % 3];
        num += (x - rhs[i]) * (x - rhs[i]);
        den += rhs[i] * rhs[i];
    }
    double rel = sqrt(num / den);
    CHECKF(md.c.status == 1, "CG status %u after %u iterations (residual %g)", md.c.status, it, md.c.residual);
    CHECKF(rel <= 1e-5, "CG against Gaussian elimination: relative difference %g (1e-5)", rel);
    printf("cg_dense: bar_80 (%u unknowns), CG %u iterations, residual %.2g; against Gaussian elimination %.3g\n",
           N, it, md.c.residual, rel);
    free(A);
    free(rhs);
    free(unit);
    free(col);
    free(pin);
    model_free(&md);
    free_body(e, &b);
}

/* ------------------------------------------------------------------ cpu */

static void cpu_case(eddy_engine *e, const char *mesh, uint32_t integrator)
{
    body b = load_body(e, "bar", mesh, 1000, 0.01);
    perturb(&b, 1.05, 0.2, 11);
    bool *pin = pins_at_x0(&b);
    double dt = integrator == EDDY_DEFORM_IMPLICIT ? 0.01 : 2e-4;
    setting s[] = { { "integrator", { integrator } }, { "tolerance", { 1e-6 } }, { "max_iterations", { 200 } },
                    { "pin_plane_normal", { 1, 0, 0 } }, { "drag", { 0.5 } } };
    upload_body(e, &b);
    sim sm = sim_create(e, b.set, dt, big_lo, big_hi, s, 5);
    model md;
    model_init(&md, &b, dt, big_lo, big_hi, integrator, 30000, 1, pin, 1e-6, 200);
    md.p.solver[2] = 0.5f; /* the drag (the C step reads md.p) */
    float *prev = calloc(4 * b.n, sizeof(float)), *gpos = malloc(16ull * b.n), *gvel = malloc(16ull * b.n);
    float *v0 = malloc(16ull * b.n);
    REQUIRE(prev && gpos && gvel && v0);
    memcpy(v0, b.vel, 16ull * b.n);
    if (integrator == EDDY_DEFORM_VERLET)
        for (uint32_t i = 0; i < 4 * b.n; i++)
            prev[i] = i % 4 == 3 ? 0 : b.pos[i] - (float)dt * b.vel[i];
    CHECK(eddy_graph_run(e, sm.g, 1) == EDDY_OK);
    eddy_deform_cpu_step(&md.c, b.pos, b.vel, b.mass, prev);
    download(e, &b, gpos, gvel);
    double worst = 0, num = 0, den = 0;
    for (uint32_t i = 0; i < b.n; i++)
        for (int a = 0; a < 3; a++) {
            worst = fmax(worst, fabs((double)gpos[4 * i + a] - b.pos[4 * i + a]));
            double dg = (double)gvel[4 * i + a] - v0[4 * i + a], dc = (double)b.vel[4 * i + a] - v0[4 * i + a];
            num += (dg - dc) * (dg - dc);
            den += dc * dc;
        }
    double L = 4.0 * 1.05;
    CHECKF(worst <= 1e-5 * L, "%s, %s: GPU and C positions differ by %g m (1e-5 of %g m)", mesh,
           integrator_names[integrator], worst, L);
    if (integrator == EDDY_DEFORM_IMPLICIT) {
        double rel = sqrt(num / den);
        CHECKF(rel <= 1e-4, "%s: GPU solve against the C solve: relative difference %g (1e-4)", mesh, rel);
        printf("cpu: %s, %s: positions within %.3g m; dv within %.3g relative (C: %u iterations, residual %.2g)\n",
               mesh, integrator_names[integrator], worst, rel, md.c.iterations, md.c.residual);
    } else {
        printf("cpu: %s, %s: positions within %.3g m\n", mesh, integrator_names[integrator], worst);
    }
    /* Reruns: ten more steps twice from the same state are bitwise equal. */
    if (integrator == EDDY_DEFORM_IMPLICIT || integrator == EDDY_DEFORM_VELOCITY_VERLET) {
        float *a = malloc(16ull * b.n), *c = malloc(16ull * b.n);
        REQUIRE(a && c);
        upload_body(e, &b);
        CHECK(eddy_graph_run(e, sm.g, 10) == EDDY_OK);
        download(e, &b, a, NULL);
        upload_body(e, &b);
        CHECK(eddy_graph_run(e, sm.g, 10) == EDDY_OK);
        download(e, &b, c, NULL);
        CHECKF(!memcmp(a, c, 16ull * b.n), "%s, %s: two runs of 10 steps differ", mesh, integrator_names[integrator]);
        free(a);
        free(c);
    }
    free(prev);
    free(gpos);
    free(gvel);
    free(v0);
    free(pin);
    model_free(&md);
    sim_destroy(e, &sm);
    free_body(e, &b);
}

static void part_cpu(eddy_engine *e)
{
    for (uint32_t k = 0; k <= EDDY_DEFORM_VELOCITY_VERLET; k++) {
        cpu_case(e, "bar_80", k);
        cpu_case(e, "bar_5k", k);
    }
}

/* ------------------------------------------------------------------ stability */

/* The C step for `seconds` at step dt from the bar's rest state sagging
 * under gravity: the largest energy over the start's, or INFINITY once a
 * value is not finite. */
static double c_energy_growth(const body *b0, const bool *pin, uint32_t integrator, double ks, double dt,
                              double seconds)
{
    body b = *b0;
    b.pos = malloc(16ull * b.n);
    b.vel = calloc(4 * b.n, sizeof(float));
    float *prev = calloc(4 * b.n, sizeof(float));
    REQUIRE(b.pos && b.vel && prev);
    memcpy(b.pos, b0->pos, 16ull * b.n);
    if (integrator == EDDY_DEFORM_VERLET)
        memcpy(prev, b.pos, 16ull * b.n);
    model md;
    model_init(&md, &b, dt, big_lo, big_hi, integrator, ks, 0, pin, 1e-5, 100);
    double E0 = energy(&md, b.pos, b.vel, b.mass, 9.81), worst = 0, scale = 0;
    for (uint32_t i = 0; i < b.n; i++)
        scale += b.mass[i] * 9.81 * 4.0; /* the bar's weight times its length */
    long steps = lround(seconds / dt);
    for (long s = 0; s < steps; s++) {
        eddy_deform_cpu_step(&md.c, b.pos, b.vel, b.mass, prev);
        if (s % 16 == 15 || s == steps - 1) {
            double E = energy(&md, b.pos, b.vel, b.mass, 9.81);
            if (!isfinite(E) || (E - E0) / scale > 1e3) {
                worst = INFINITY;
                break;
            }
            worst = fmax(worst, (E - E0) / scale);
        }
    }
    model_free(&md);
    free(b.pos);
    free(b.vel);
    free(prev);
    return worst;
}

static void part_stability(eddy_engine *e)
{
    /* A light bar (10 kg/m^3: about 1 kg a vertex, as the paper's
     * figures imply; a 1000 kg/m^3 one is explicitly stable at 0.01 s). */
    body b = load_body(e, "bar", "bar_80", 10, 0.01);
    bool *pin = pins_at_x0(&b);
    for (int stiff = 0; stiff < 2; stiff++) {
        double ks = stiff ? 300000 : 30000, dt = 0.01;
        setting s[] = { { "stiffness", { ks } }, { "damping", { 0 } }, { "pin_plane_normal", { 1, 0, 0 } } };
        upload_body(e, &b);
        sim sm = sim_create(e, b.set, dt, big_lo, big_hi, s, 3);
        model md;
        model_init(&md, &b, dt, big_lo, big_hi, EDDY_DEFORM_IMPLICIT, ks, 0, pin, 1e-5, 100);
        float *pos = malloc(16ull * b.n), *vel = malloc(16ull * b.n);
        REQUIRE(pos && vel);
        double last = energy(&md, b.pos, b.vel, b.mass, 9.81), E0 = last, grow = 0, scale = 0;
        for (uint32_t i = 0; i < b.n; i++)
            scale += b.mass[i] * 9.81 * 4.0;
        for (int k = 0; k < 100; k++) {
            CHECK(eddy_graph_run(e, sm.g, 10) == EDDY_OK);
            download(e, &b, pos, vel);
            double E = energy(&md, pos, vel, b.mass, 9.81);
            grow = fmax(grow, (E - last) / scale);
            last = E;
        }
        CHECKF(isfinite(last) && grow <= 1e-6, "implicit, ks %g: the energy grew by %g of m g L in 0.1 s", ks, grow);
        printf("stability: implicit Euler, ks = %g N/m, h = 0.01 s, 10 s: energy %.6g J -> %.6g J, largest rise "
               "per 0.1 s %.2g m g L\n", ks, E0, last, grow);
        free(pos);
        free(vel);
        model_free(&md);
        sim_destroy(e, &sm);
    }
    /* The explicit integrators at h = 0.01 s on the GPU, ks = 30,000: the energy explodes. */
    for (uint32_t integ = EDDY_DEFORM_EULER; integ <= EDDY_DEFORM_VELOCITY_VERLET; integ++) {
        setting s[] = { { "integrator", { integ } }, { "damping", { 0 } }, { "pin_plane_normal", { 1, 0, 0 } } };
        upload_body(e, &b);
        sim sm = sim_create(e, b.set, 0.01, big_lo, big_hi, s, 3);
        CHECK(eddy_graph_run(e, sm.g, 200) == EDDY_OK);
        float *pos = malloc(16ull * b.n), *vel = malloc(16ull * b.n);
        REQUIRE(pos && vel);
        download(e, &b, pos, vel);
        double far = 0;
        for (uint32_t i = 0; i < 4 * b.n; i++)
            far = fmax(far, isfinite(pos[i]) ? fabs(pos[i]) : INFINITY);
        /* The box is 20 m: a blown-up bar sits on its walls or is not finite. */
        CHECKF(far > 10, "%s at h = 0.01 s: the bar stayed within %g m; expected it to blow up",
               integrator_names[integ], far);
        free(pos);
        free(vel);
        sim_destroy(e, &sm);
        /* The largest stable step (the C step, the same equations: part cpu),
         * halving from 0.01 s: 2 s without the energy rising by m g L. */
        double h = 0.01, found = 0;
        for (int k = 0; k < 12 && found == 0; k++, h /= 2)
            if (c_energy_growth(&b, pin, integ, 30000, h, 2.0) < 1.0)
                found = h;
        printf("stability: %s, ks = 30000 N/m: blows up at h = 0.01 s; stable from h = %.3g s\n",
               integrator_names[integ], found);
        if (integ != EDDY_DEFORM_EULER)
            CHECKF(found > 0 && found < 0.01, "%s: no stable step found", integrator_names[integ]);
    }
    free(pin);
    free_body(e, &b);
}

/* ------------------------------------------------------------------ hang */

static void part_hang(eddy_engine *e)
{
    /* A vertical chain: N springs of rest length L, N + 1 masses m, the top pinned. */
    enum { N = 10 };
    const double L = 0.1, m = 0.1, ks = 100, g = 9.81;
    eddy_particles set = eddy_create_particles(e, &(eddy_particles_desc){ EDDY_SIZED(eddy_particles_desc), .name = "chain", .count = N + 1 });
    REQUIRE(set.id);
    float pos[4 * (N + 1)], vel[4 * (N + 1)] = { 0 }, mass[N + 1];
    uint32_t idx[2 * N];
    for (int i = 0; i <= N; i++) {
        pos[4 * i] = 0;
        pos[4 * i + 1] = (float)(-i * L);
        pos[4 * i + 2] = 0;
        pos[4 * i + 3] = 0.01f;
        mass[i] = (float)m;
        if (i < N) {
            idx[2 * i] = (uint32_t)i;
            idx[2 * i + 1] = (uint32_t)i + 1;
        }
    }
    REQUIRE(eddy_particles_add_elements(e, set, &(eddy_elements_desc){ EDDY_SIZED(eddy_elements_desc), .name = "springs", .kind = EDDY_EDGES,
                                                                     .count = N, .indices = idx }).buffer.id);
    CHECK(eddy_buffer_upload(e, eddy_particles_buffer(e, set, "position"), 0, sizeof pos, pos) == EDDY_OK);
    CHECK(eddy_buffer_upload(e, eddy_particles_buffer(e, set, "velocity"), 0, sizeof vel, vel) == EDDY_OK);
    CHECK(eddy_buffer_upload(e, eddy_particles_buffer(e, set, "mass"), 0, sizeof mass, mass) == EDDY_OK);
    setting s[] = { { "stiffness", { ks } }, { "damping", { 2 } }, { "pin_min", { -0.01, -0.01, -0.01 } },
                    { "pin_max", { 0.01, 0.01, 0.01 } } };
    sim sm = sim_create(e, set, 0.01, big_lo, big_hi, s, 4);
    CHECK(eddy_graph_run(e, sm.g, 3000) == EDDY_OK);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "position"), 0, sizeof pos, pos) == EDDY_OK);
    double want = m * g / ks * N * (N + 1) / 2, got = -pos[4 * N + 1] - N * L;
    CHECKF(fabs(got - want) <= 0.01 * want, "chain: extension %g m, analytic %g m (1%%)", got, want);
    printf("hang: chain of %d springs, extension %.6f m, analytic %.6f m (%.3f%%)\n", N, got, want,
           100 * fabs(got - want) / want);
    sim_destroy(e, &sm);
    eddy_destroy_particles(e, set);

    /* The pinned bar's tip after 0.5 s as h shrinks: the differences shrink
     * (first order: about halving). */
    body b = load_body(e, "bar", "bar_80", 1000, 0.01);
    double tip[4];
    for (int k = 0; k < 4; k++) {
        double h = 0.02 / (1 << k);
        setting bs[] = { { "damping", { 0 } }, { "pin_plane_normal", { 1, 0, 0 } }, { "tolerance", { 1e-7 } },
                         { "max_iterations", { 300 } } };
        upload_body(e, &b);
        sim bm = sim_create(e, b.set, h, big_lo, big_hi, bs, 4);
        CHECK(eddy_graph_run(e, bm.g, (uint32_t)lround(0.5 / h)) == EDDY_OK);
        float *p = malloc(16ull * b.n);
        REQUIRE(p);
        download(e, &b, p, NULL);
        double sum = 0;
        int cnt = 0;
        for (uint32_t i = 0; i < b.n; i++)
            if (b.pos[4 * i] >= 4.0 - 1e-6) {
                sum += p[4 * i + 1] - b.pos[4 * i + 1];
                cnt++;
            }
        tip[k] = sum / cnt;
        free(p);
        sim_destroy(e, &bm);
    }
    double d1 = fabs(tip[1] - tip[0]), d2 = fabs(tip[2] - tip[1]), d3 = fabs(tip[3] - tip[2]);
    CHECKF(d2 < 0.75 * d1 && d3 < 0.75 * d2, "tip deflection at 0.5 s for h = 0.02 .. 0.0025 s: %g %g %g %g m: "
           "differences %g %g %g do not shrink", tip[0], tip[1], tip[2], tip[3], d1, d2, d3);
    printf("hang: bar_80 tip at 0.5 s, h = 0.02, 0.01, 0.005, 0.0025 s: %.5f %.5f %.5f %.5f m (differences "
           "%.2g %.2g %.2g)\n", tip[0], tip[1], tip[2], tip[3], d1, d2, d3);
    free_body(e, &b);
}

/* ------------------------------------------------------------------ momentum */

static void part_momentum(eddy_engine *e)
{
    /* Tolerances per integrator (relative change over 200 steps of 1 ms):
     * linear momentum: springs act in equal and opposite pairs (the CG
     * solve's residual for implicit Euler; Verlet's velocities are float
     * position differences over h, so rounding of the positions shows at
     * 1e-4); angular: exact for the
     * symplectic ones, which move x with the new velocity, O(h^2) per step
     * for explicit Euler and a damping of the rotation for implicit Euler. */
    static const double lin_tol[5] = { 1e-5, 1e-5, 1e-5, 3e-4, 1e-5 };
    static const double ang_tol[5] = { 2e-2, 2e-2, 1e-4, 1e-4, 1e-4 };
    body b = load_body(e, "ball", "sphere_80", 1000, 0.01);
    double M = 0;
    for (uint32_t i = 0; i < b.n; i++) {
        const double w[3] = { 0.5, 1.0, 3.0 }, u[3] = { 0.3, -0.2, 0.1 };
        const float *x = b.pos + 4 * i;
        b.vel[4 * i] = (float)(u[0] + w[1] * x[2] - w[2] * x[1]);
        b.vel[4 * i + 1] = (float)(u[1] + w[2] * x[0] - w[0] * x[2]);
        b.vel[4 * i + 2] = (float)(u[2] + w[0] * x[1] - w[1] * x[0]);
        M += b.mass[i];
    }
    for (uint32_t integ = 0; integ <= EDDY_DEFORM_VELOCITY_VERLET; integ++) {
        setting s[] = { { "integrator", { integ } }, { "gravity", { 0, 0, 0 } }, { "tolerance", { 1e-6 } } };
        upload_body(e, &b);
        sim sm = sim_create(e, b.set, 1e-3, big_lo, big_hi, s, 3);
        double P[2][3], L[2][3];
        for (int k = 0; k < 2; k++) {
            if (k)
                CHECK(eddy_graph_run(e, sm.g, 200) == EDDY_OK);
            float *p = malloc(16ull * b.n), *v = malloc(16ull * b.n);
            REQUIRE(p && v);
            download(e, &b, p, v);
            memset(P[k], 0, sizeof P[k]);
            memset(L[k], 0, sizeof L[k]);
            for (uint32_t i = 0; i < b.n; i++) {
                double m = b.mass[i], x[3] = { p[4 * i], p[4 * i + 1], p[4 * i + 2] },
                       vv[3] = { v[4 * i], v[4 * i + 1], v[4 * i + 2] };
                for (int a = 0; a < 3; a++)
                    P[k][a] += m * vv[a];
                L[k][0] += m * (x[1] * vv[2] - x[2] * vv[1]);
                L[k][1] += m * (x[2] * vv[0] - x[0] * vv[2]);
                L[k][2] += m * (x[0] * vv[1] - x[1] * vv[0]);
            }
            free(p);
            free(v);
        }
        double dp = 0, p0 = 0, dl = 0, l0 = 0;
        for (int a = 0; a < 3; a++) {
            dp += (P[1][a] - P[0][a]) * (P[1][a] - P[0][a]);
            p0 += P[0][a] * P[0][a];
            dl += (L[1][a] - L[0][a]) * (L[1][a] - L[0][a]);
            l0 += L[0][a] * L[0][a];
        }
        double rp = sqrt(dp / p0), rl = sqrt(dl / l0);
        CHECKF(rp <= lin_tol[integ], "%s: linear momentum changed by %g (relative; %g)", integrator_names[integ], rp,
               lin_tol[integ]);
        CHECKF(rl <= ang_tol[integ], "%s: angular momentum changed by %g (relative; %g)", integrator_names[integ], rl,
               ang_tol[integ]);
        printf("momentum: %s, 200 steps of 1 ms: linear %.2g, angular %.2g (relative)\n", integrator_names[integ], rp,
               rl);
        sim_destroy(e, &sm);
    }
    printf("momentum: body of %.1f kg\n", M);
    free_body(e, &b);
}

/* ------------------------------------------------------------------ materials */

static void part_materials(eddy_engine *e)
{
    /* bar_5k, scalar = x / 4: soft (factor 1) for x <= 1.8 m, 100 times
     * stiffer for x >= 2.2 m. Both ends held, the bar stretched by 10%: one
     * tension through both halves (in series). */
    body b = load_body(e, "bar", "bar_5k", 1000, 0.01);
    for (uint32_t i = 0; i < b.n; i++)
        b.scalar[i] = b.pos[4 * i] / 4.0f;
    upload_body(e, &b);
    eddy_buffer sc = eddy_particles_add_buffer(e, b.set, "scalar", 4);
    REQUIRE(sc.id);
    CHECK(eddy_buffer_upload(e, sc, 0, 4ull * b.n, b.scalar) == EDDY_OK);
    setting s[] = { { "stiffness_scalar", { 0.45, 0.55, 100 } }, { "gravity", { 0, 0, 0 } }, { "damping", { 200 } },
                    { "pin_min", { -1, -1, -1 } }, { "pin_max", { 1e-6, 2, 2 } },
                    { "pin_plane_point", { 4, 0, 0 } }, { "pin_plane_normal", { -1, 0, 0 } } };
    sim sm = sim_create(e, b.set, 0.01, big_lo, big_hi, s, 7);
    float *p = malloc(16ull * b.n);
    REQUIRE(p);
    for (uint32_t i = 0; i < b.n; i++) {
        memcpy(p + 4 * i, b.pos + 4 * i, 16);
        p[4 * i] *= 1.1f;
    }
    CHECK(eddy_buffer_upload(e, eddy_particles_buffer(e, b.set, "position"), 0, 16ull * b.n, p) == EDDY_OK);
    CHECK(eddy_graph_run(e, sm.g, 300) == EDDY_OK);
    download(e, &b, p, NULL);
    eddy_deform_topology t;
    REQUIRE(eddy_deform_topology_build(b.n, b.idx, b.tets, 4, NULL, &t) == 0);
    double soft = 0, stiff = 0;
    int ns = 0, nt = 0;
    for (uint32_t k = 0; k < t.edge_count; k++) {
        uint32_t i = t.edges[2 * k], j = t.edges[2 * k + 1];
        double L = 0, l = 0;
        for (int a = 0; a < 3; a++) {
            L += (double)(b.pos[4 * j + a] - b.pos[4 * i + a]) * (b.pos[4 * j + a] - b.pos[4 * i + a]);
            l += (double)(p[4 * j + a] - p[4 * i + a]) * (p[4 * j + a] - p[4 * i + a]);
        }
        double strain = fabs(sqrt(l / L) - 1);
        if (b.scalar[i] < 0.4f && b.scalar[j] < 0.4f && b.pos[4 * i] > 0.2f && b.pos[4 * j] > 0.2f) {
            soft += strain;
            ns++;
        } else if (b.scalar[i] > 0.6f && b.scalar[j] > 0.6f && b.pos[4 * i] < 3.8f && b.pos[4 * j] < 3.8f) {
            stiff += strain;
            nt++;
        }
    }
    soft /= ns;
    stiff /= nt;
    CHECKF(stiff <= 0.1 * soft, "two materials: stiff half strains %g, soft half %g (at most a tenth)", stiff, soft);
    printf("materials: bar_5k stretched 10%%, soft half mean strain %.4g (%d springs), stiff half %.4g (%d): ratio "
           "%.3g\n", soft, ns, stiff, nt, stiff / soft);
    eddy_deform_topology_free(&t);
    free(p);
    sim_destroy(e, &sm);
    free_body(e, &b);
}

/* ------------------------------------------------------------------ cloth */

/* The distance from p to triangle (a, b, c) (Ericson, Real-Time Collision
 * Detection 5.1.5), in double. */
static double point_triangle(const double p[3], const double a[3], const double b[3], const double c[3])
{
    double ab[3], ac[3], ap[3], q[3];
    for (int k = 0; k < 3; k++)
        ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = p[k] - a[k];
#define DOT(u, v) ((u)[0] * (v)[0] + (u)[1] * (v)[1] + (u)[2] * (v)[2])
    double d1 = DOT(ab, ap), d2 = DOT(ac, ap);
    double bp[3], cp[3];
    for (int k = 0; k < 3; k++)
        bp[k] = p[k] - b[k], cp[k] = p[k] - c[k];
    double d3 = DOT(ab, bp), d4 = DOT(ac, bp), d5 = DOT(ab, cp), d6 = DOT(ac, cp);
    double va = d3 * d6 - d5 * d4, vb = d5 * d2 - d1 * d6, vc = d1 * d4 - d3 * d2;
#undef DOT
    if (d1 <= 0 && d2 <= 0)
        memcpy(q, a, sizeof q);
    else if (d3 >= 0 && d4 <= d3)
        memcpy(q, b, sizeof q);
    else if (d6 >= 0 && d5 <= d6)
        memcpy(q, c, sizeof q);
    else if (vc <= 0 && d1 >= 0 && d3 <= 0)
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + d1 / (d1 - d3) * ab[k];
    else if (vb <= 0 && d2 >= 0 && d6 <= 0)
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + d2 / (d2 - d6) * ac[k];
    else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0)
        for (int k = 0; k < 3; k++)
            q[k] = b[k] + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c[k] - b[k]);
    else {
        double den = 1 / (va + vb + vc), v = vb * den, w = vc * den;
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + v * ab[k] + w * ac[k];
    }
    double d = 0;
    for (int k = 0; k < 3; k++)
        d += (p[k] - q[k]) * (p[k] - q[k]);
    return sqrt(d);
}

static void part_cloth(eddy_engine *e)
{
    enum { Q = 16, NV = (Q + 1) * (Q + 1) };
    const double R = 0.25, c[3] = { 0, 0.9, -0.33 }, r = 0.01;
    char json[2048];
    snprintf(json, sizeof json,
             "{\"name\": \"cloth\", \"dt\": 0.005, \"duration\": 3, \"box\": {\"min\": [-1.5, 0, -1.5], "
             "\"max\": [1.5, 2, 1.5]},"
             " \"solids\": [{\"type\": \"sphere\", \"center\": [%g, %g, %g], \"radius\": %g}],"
             " \"particle_sets\": [{\"name\": \"cloth\", \"radius\": %g, \"cloth\": {\"grid\": {\"size\": [1, 1], "
             "\"resolution\": [%d, %d]}, \"center\": [0, 1.5, 0], \"density\": 0.2}, \"pinned\": [0, %d]}],"
             " \"systems\": [{\"name\": \"cloth\", \"module\": \"deform\", \"set\": \"cloth\", \"params\": "
             "{\"stiffness\": 1000, \"damping\": 0.2, \"drag\": 1, \"bending\": 0.05, \"max_iterations\": 150}}]}",
             c[0], c[1], c[2], R, r, Q, Q, Q);
    eddy_scene *sc = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "cloth-test", .json = json, .no_output = true });
    REQUIRE(sc != NULL);
    eddy_particles set = eddy_find_particles(e, "cloth");
    eddy_elements tri = eddy_particles_elements(e, set, "triangles");
    REQUIRE(set.id && tri.buffer.id && tri.count == 2 * Q * Q && eddy_particles_count(e, set) == NV);
    uint32_t *idx = malloc(12ull * tri.count);
    float *p0 = malloc(16ull * NV), *p = malloc(16ull * NV), *v = malloc(16ull * NV), *m = malloc(4ull * NV);
    REQUIRE(idx && p0 && p && v && m);
    CHECK(eddy_buffer_download(e, tri.buffer, 0, 12ull * tri.count, idx) == EDDY_OK);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "position"), 0, 16ull * NV, p0) == EDDY_OK);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "mass"), 0, 4ull * NV, m) == EDDY_OK);

    /* The springs: 2 Q (Q + 1) stretch on the grid's edges and Q^2 on its
     * diagonals, Q^2 shear (the other diagonals, length sqrt 2 a), and
     * across the other interior edges of the alternating triangulation
     * bending springs two vertices apart along a row or a column (length
     * 2 a), through every vertex whose quads meet at their diagonals: Q^2
     * of them for even Q. */
    eddy_deform_topology t;
    REQUIRE(eddy_deform_topology_build(NV, idx, tri.count, 3, p0, &t) == 0);
    uint32_t kinds[3] = { 0 }, wrong = 0;
    const double a = 1.0 / Q, want_len[3] = { 0, sqrt(2) * a, 2 * a };
    for (uint32_t k = 0; k < t.edge_count; k++) {
        uint32_t i = t.edges[2 * k], j = t.edges[2 * k + 1], kd = t.kind[k];
        kinds[kd]++;
        double l = 0;
        for (int x = 0; x < 3; x++)
            l += ((double)p0[4 * j + x] - p0[4 * i + x]) * ((double)p0[4 * j + x] - p0[4 * i + x]);
        wrong += kd > 0 && fabs(sqrt(l) - want_len[kd]) > 1e-6;
    }
    CHECKF(kinds[0] == 2 * Q * (Q + 1) + Q * Q && kinds[1] == Q * Q && kinds[2] == Q * Q && !wrong,
           "cloth springs: %u stretch, %u shear, %u bending (%u of the wrong length); expected %d, %d, %d",
           kinds[0], kinds[1], kinds[2], wrong, 2 * Q * (Q + 1) + Q * Q, Q * Q, Q * Q);
    eddy_deform_topology_free(&t);
    double mtot = 0;
    for (uint32_t i = 0; i < NV; i++)
        mtot += m[i];
    CHECKF(fabs(mtot - 0.2) < 1e-6, "cloth mass %g kg, expected 0.2 (1 m^2 at 0.2 kg/m^2)", mtot);

    /* 3 s, checking every 0.05 s that nothing is inside the sphere. */
    double worst = INFINITY, closest = INFINITY;
    for (int f = 0; f < 60; f++) {
        CHECK(eddy_scene_step(sc, 10) == EDDY_OK);
        CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "position"), 0, 16ull * NV, p) == EDDY_OK);
        for (uint32_t k = 0; k < tri.count; k++) {
            double x[3][3];
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    x[a][b] = p[4 * idx[3 * k + a] + b];
            worst = fmin(worst, point_triangle(c, x[0], x[1], x[2]));
        }
        for (uint32_t i = 0; i < NV; i++) {
            double d = sqrt(((double)p[4 * i] - c[0]) * (p[4 * i] - c[0]) + ((double)p[4 * i + 1] - c[1]) *
                            (p[4 * i + 1] - c[1]) + ((double)p[4 * i + 2] - c[2]) * (p[4 * i + 2] - c[2]));
            if (f == 59)
                closest = fmin(closest, d);
        }
    }
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "velocity"), 0, 16ull * NV, v) == EDDY_OK);
    bool put = !memcmp(p + 0, p0 + 0, 16) && !memcmp(p + 4 * Q, p0 + 4 * Q, 16);
    CHECKF(put, "pinned corners moved: (%g %g %g) -> (%g %g %g), (%g %g %g) -> (%g %g %g)", p0[0], p0[1], p0[2], p[0],
           p[1], p[2], p0[4 * Q], p0[4 * Q + 1], p0[4 * Q + 2], p[4 * Q], p[4 * Q + 1], p[4 * Q + 2]);
    CHECKF(worst >= R, "a triangle of the cloth came %g m from the sphere's centre, inside its radius %g m", worst, R);
    CHECKF(closest <= R + 2 * r, "the cloth does not rest on the sphere: its nearest vertex is %g m from the centre "
           "(radius %g m, vertex radius %g m)", closest, R, r);
    double vmax = 0;
    for (uint32_t i = 0; i < NV; i++)
        vmax = fmax(vmax, sqrt((double)v[4 * i] * v[4 * i] + (double)v[4 * i + 1] * v[4 * i + 1] +
                               (double)v[4 * i + 2] * v[4 * i + 2]));
    CHECKF(vmax < 0.1, "the cloth is not at rest after 3 s: a vertex moves at %g m/s", vmax);
    printf("cloth: %dx%d grid on a sphere of radius %g m: nearest triangle %.4f m from the centre (over 3 s), "
           "nearest vertex at rest %.4f m, fastest vertex %.3g m/s; pinned corners bitwise put\n", Q, Q, R, worst,
           closest, vmax);
    free(idx), free(p0), free(p), free(v), free(m);
    eddy_destroy_scene(sc);
}

/* ------------------------------------------------------------------ handle */

static void part_handle(eddy_engine *e)
{
    /* bar_80 at 100 kg/m^3 held by the vertices of its x = 0 end. */
    body b = load_body(e, "bar", "bar_80", 100, 0.02);
    upload_body(e, &b);
    double mtot = 0;
    for (uint32_t i = 0; i < b.n; i++)
        mtot += b.mass[i];
    setting s[] = { { "damping", { 5000 } }, { "handle_min", { -1, -1, -1 } }, { "handle_max", { 1e-6, 2, 2 } } };
    sim sm = sim_create(e, b.set, 0.01, big_lo, big_hi, s, 3);
    CHECK(eddy_graph_run(e, sm.g, 600) == EDDY_OK);
    /* The last step from a known state: its force against the C sum. */
    float *p = malloc(16ull * b.n), *v = malloc(16ull * b.n), *prev = calloc(4ull * b.n, sizeof(float));
    REQUIRE(p && v && prev);
    download(e, &b, p, v);
    CHECK(eddy_graph_run(e, sm.g, 1) == EDDY_OK);
    double out[6];
    CHECK(sm.m->read_outputs(sm.state, out) == EDDY_OK);
    bool *held = pins_at_x0(&b);
    model md;
    model_init(&md, &b, 0.01, big_lo, big_hi, EDDY_DEFORM_EULER, 30000, 5000, held, 1e-5, 100);
    for (uint32_t i = 0; i < b.n; i++)
        if (held[i])
            md.flags[i] = EDDY_DEFORM_HANDLE;
    eddy_deform_cpu_step(&md.c, p, v, b.mass, prev);
    double want[3] = { 0, 0, 0 };
    for (uint32_t i = 0; i < b.n; i++)
        for (int a = 0; held[i] && a < 3; a++)
            want[a] += md.c.force[4 * i + a];
    double err = 0;
    for (int a = 0; a < 3; a++)
        err = fmax(err, fabs(out[3 + a] - want[a]));
    double weight = mtot * 9.81;
    CHECKF(err <= 1e-4 * weight, "handle force (%g %g %g) N, the C sum (%g %g %g) N", out[3], out[4], out[5],
           want[0], want[1], want[2]);
    CHECKF(fabs(out[4] + weight) <= 0.01 * weight && fabs(out[3]) <= 0.01 * weight && fabs(out[5]) <= 0.01 * weight,
           "a bar hanging from its handle at rest: force on the handle (%g %g %g) N, expected its weight (0 %g 0)",
           out[3], out[4], out[5], -weight);
    printf("handle: bar_80 (%.3f kg) at rest on its handle: force (%.4g %.4g %.4g) N, weight %.4g N (%.3f%%); "
           "C sum differs by %.2g N\n", mtot, out[3], out[4], out[5], weight, 100 * fabs(out[4] + weight) / weight, err);

    /* Dragged 0.5 m along +z over 1 s, then held 3 s: the handle is where it
     * was sent, the bar's centre of mass followed. */
    double c0[3];
    CHECK(sm.m->get_input(sm.state, 0, c0) == EDDY_OK);
    double com0[3] = { 0 }, com1[3] = { 0 };
    for (uint32_t i = 0; i < b.n; i++)
        for (int a = 0; a < 3; a++)
            com0[a] += b.mass[i] * (double)p[4 * i + a] / mtot;
    for (int k = 0; k < 400; k++) {
        double t0 = k < 100 ? k / 100.0 : 1, t1 = k < 100 ? (k + 1) / 100.0 : 1;
        double from[3] = { c0[0], c0[1], c0[2] + 0.5 * t0 }, to[3] = { c0[0], c0[1], c0[2] + 0.5 * t1 };
        CHECK(sm.m->set_input(sm.state, 0, from, to) == EDDY_OK);
        CHECK(eddy_graph_run(e, sm.g, 1) == EDDY_OK);
    }
    CHECK(sm.m->read_outputs(sm.state, out) == EDDY_OK);
    download(e, &b, p, NULL);
    for (uint32_t i = 0; i < b.n; i++)
        for (int a = 0; a < 3; a++)
            com1[a] += b.mass[i] * (double)p[4 * i + a] / mtot;
    CHECKF(fabs(out[0] - c0[0]) < 1e-6 && fabs(out[1] - c0[1]) < 1e-6 && fabs(out[2] - c0[2] - 0.5) < 1e-6,
           "the handle's centre is (%g %g %g), sent to (%g %g %g)", out[0], out[1], out[2], c0[0], c0[1], c0[2] + 0.5);
    double held_err = 0;
    for (uint32_t i = 0; i < b.n; i++)
        if (held[i])
            held_err = fmax(held_err, fabs(p[4 * i + 2] - b.pos[4 * i + 2] - 0.5));
    CHECKF(held_err < 1e-5, "a handle vertex is %g m from where the handle took it", held_err);
    CHECKF(fabs(com1[2] - com0[2] - 0.5) < 0.01 && fabs(com1[0] - com0[0]) < 0.01,
           "the bar's centre of mass moved (%g %g %g) m with the handle moved (0 0 0.5)", com1[0] - com0[0],
           com1[1] - com0[1], com1[2] - com0[2]);
    printf("handle: dragged 0.5 m along z: centre of mass moved (%.4f %.4f %.4f) m, handle vertices within %.2g m\n",
           com1[0] - com0[0], com1[1] - com0[1], com1[2] - com0[2], held_err);
    free(held);
    free(p), free(v), free(prev);
    model_free(&md);
    sim_destroy(e, &sm);
    free_body(e, &b);
}

/* ------------------------------------------------------------------ output */

/* ---------------------------------------------------------------- couplings */

/* The water's level away from a body centred at c (x, z): per column of
 * the spacing d farther than `clear` from it, the top particle's centre
 * plus d / 2 (a column holds particles at d / 2, 3 d / 2, ...). */
static double water_level(eddy_engine *e, double d, double W, const double c[3], double clear)
{
    enum { M = 64 };
    const int N = (int)lround(W / d);
    REQUIRE(N <= M);
    eddy_particles w = eddy_find_particles(e, "water");
    uint32_t n = eddy_particles_count(e, w);
    float *x = malloc(16ull * n);
    REQUIRE(x != NULL);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, w, "position"), 0, 16ull * n, x) == EDDY_OK);
    static double top[M][M];
    memset(top, 0, sizeof top);
    for (uint32_t i = 0; i < n; i++) {
        int a = (int)(x[4 * i] / d), b = (int)(x[4 * i + 2] / d);
        if (a >= 0 && a < N && b >= 0 && b < N)
            top[a][b] = fmax(top[a][b], x[4 * i + 1]);
    }
    double sum = 0;
    int count = 0;
    for (int a = 0; a < N; a++)
        for (int b = 0; b < N; b++)
            if (hypot((a + 0.5) * d - c[0], (b + 0.5) * d - c[2]) > clear)
                sum += top[a][b], count++;
    free(x);
    REQUIRE(count > 0);
    return sum / count + d / 2;
}

/* The centre of mass and mean velocity of a set. */
static void set_centre(eddy_engine *e, eddy_particles set, double c[3], double v[3])
{
    uint32_t n = eddy_particles_count(e, set);
    float *x = malloc(16ull * n), *u = malloc(16ull * n), *m = malloc(4ull * n);
    REQUIRE(x && u && m);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "position"), 0, 16ull * n, x) == EDDY_OK);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "velocity"), 0, 16ull * n, u) == EDDY_OK);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "mass"), 0, 4ull * n, m) == EDDY_OK);
    double M = 0;
    for (int a = 0; a < 3; a++)
        c[a] = v[a] = 0;
    for (uint32_t i = 0; i < n; i++) {
        M += m[i];
        for (int a = 0; a < 3; a++) {
            c[a] += (double)m[i] * x[4 * i + a];
            v[a] += (double)m[i] * u[4 * i + a];
        }
    }
    for (int a = 0; a < 3; a++)
        c[a] /= M, v[a] /= M;
    free(x), free(u), free(m);
}

/* A soft ball (sphere_5k, radius 5 cm, 500 kg/m^3; its vertices the
 * boundary particles of a PBF tank's water, modules/couple) let go with its
 * bottom just above the water floats half under: a sphere of half the
 * water's density floats with its centre at the water line (Archimedes),
 * within one particle spacing. The water's pressure squeezes it (its
 * largest strain is reported). Without the coupling it falls to the
 * floor. */
static void part_float_ball(eddy_engine *e)
{
    const double d = 0.0125, W = 0.25, R = 0.05, depth = 0.125, dt = 0.004;
    const double c0[3] = { W / 2, depth + R + 0.005, W / 2 };
    char json[4096];
    snprintf(json, sizeof json,
             "{\"dt\": %g, \"substeps\": 2, \"duration\": 10, \"box\": {\"min\": [0, 0, 0], \"max\": [%g, 0.4, %g]},"
             " \"particle_sets\": [{\"name\": \"water\", \"spacing\": %g, \"fill\": {\"shape\": \"box\","
             " \"min\": [0, 0, 0], \"max\": [%g, %g, %g]}},"
             " {\"name\": \"ball\", \"radius\": 0.0038, \"tetmesh\": {\"file\": \"%s/data/tets/sphere_5k.node\","
             " \"scale\": %g, \"center\": [%g, %g, %g], \"density\": 500}}],"
             " \"systems\": [{\"name\": \"fluid\", \"module\": \"pbf\", \"sets\": {\"fluid\": \"water\", "
             "\"boundary\": \"ball\"}, \"params\": {\"h\": %g}},"
             " {\"name\": \"body\", \"module\": \"deform\", \"set\": \"ball\", \"params\": {\"integrator\": 0,"
             " \"stiffness\": 200, \"damping\": 0.02}}]}",
             dt, W, W, d, W, depth, W, root, R, c0[0], c0[1], c0[2], 2 * d);
    eddy_scene *sc = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "float-ball", .json = json, .no_output = true });
    REQUIRE(sc != NULL);
    eddy_particles ball = eddy_find_particles(e, "ball");
    const uint32_t steps = 300, mean = 50;
    double c[3], v[3], y = 0, vmax = 0, lowest = c0[1];
    for (uint32_t step = 0; step < steps; step++) {
        CHECK(eddy_scene_step(sc, 1) == EDDY_OK);
        set_centre(e, ball, c, v);
        lowest = fmin(lowest, c[1]);
        if (step + mean >= steps) {
            y += c[1] / mean;
            vmax = fmax(vmax, fabs(v[1]));
        }
    }
    double level = water_level(e, d, W, c, R + 2 * d);
    printf("float_ball: a 500 kg/m^3 soft ball (radius %g m, %u vertices) let go at %.3f m: lowest %.4f m; after "
           "%.1f s its centre at %.4f m (mean of the last %.2f s), water level %.4f m: %+.4f m from Archimedes' "
           "(tolerance one spacing, %g m); vertical speed at most %.4f m/s\n",
           R, eddy_particles_count(e, ball), c0[1], lowest, steps * dt, y, mean * dt, level, y - level, d, vmax);
    CHECKF(fabs(y - level) <= d, "the 500 kg/m^3 ball's centre is %.4f m from the water line (Archimedes: at it; "
           "tolerance %g m)", y - level, d);
    CHECKF(vmax < 0.05, "the floating ball still moves at %g m/s (tolerance of the rigid floating tests, 0.05)", vmax);
    eddy_destroy_scene(sc);
}

/* The height of a sheet (nearly a height field over x-z) at (x, z): the
 * highest of its triangles over that point, by barycentric interpolation;
 * false when no triangle is over it. */
static bool sheet_height(const float *v, const uint32_t *tri, uint32_t count, double x, double z, double *y)
{
    bool found = false;
    for (uint32_t t = 0; t < count; t++) {
        const float *a = v + 4 * tri[3 * t], *b = v + 4 * tri[3 * t + 1], *c = v + 4 * tri[3 * t + 2];
        double d = (b[2] - c[2]) * (a[0] - c[0]) + (c[0] - b[0]) * (a[2] - c[2]);
        if (fabs(d) < 1e-12)
            continue;
        double l0 = ((b[2] - c[2]) * (x - c[0]) + (c[0] - b[0]) * (z - c[2])) / d;
        double l1 = ((c[2] - a[2]) * (x - c[0]) + (a[0] - c[0]) * (z - c[2])) / d, l2 = 1 - l0 - l1;
        if (l0 < 0 || l1 < 0 || l2 < 0)
            continue;
        double h = l0 * a[1] + l1 * b[1] + l2 * c[1];
        *y = found ? fmax(*y, h) : h;
        found = true;
    }
    return found;
}

/* The pull of a sheet's springs on its pinned vertices (N, down: positive),
 * from the positions v, the springs' rest lengths and stiffness ks
 * (bending ks_bend): the statics of the spring network at the pins. */
static double pin_pull(const float *v, const eddy_deform_topology *t, const double *rest, const uint32_t *pin,
                       int pins, double ks, double ks_bend)
{
    double fy = 0;
    for (uint32_t k = 0; k < t->edge_count; k++) {
        uint32_t i = t->edges[2 * k], j = t->edges[2 * k + 1];
        bool pi = false, pj = false;
        for (int q = 0; q < pins; q++)
            pi |= i == pin[q], pj |= j == pin[q];
        if (pi == pj)
            continue;
        uint32_t pv = pi ? i : j, o = pi ? j : i;
        double d[3] = { (double)v[4 * o] - v[4 * pv], (double)v[4 * o + 1] - v[4 * pv + 1],
                        (double)v[4 * o + 2] - v[4 * pv + 2] };
        double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        fy += (t->kind[k] == EDDY_DEFORM_BEND ? ks_bend : ks) * (l - rest[k]) * d[1] / l;
    }
    return -fy;
}

/* The rest lengths of a topology's springs at positions v (as loaded). */
static double *rest_lengths(const float *v, const eddy_deform_topology *t)
{
    double *rest = malloc(8ull * t->edge_count + 8);
    REQUIRE(rest != NULL);
    for (uint32_t k = 0; k < t->edge_count; k++) {
        const float *a = v + 4 * t->edges[2 * k], *b = v + 4 * t->edges[2 * k + 1];
        rest[k] = sqrt(((double)b[0] - a[0]) * (b[0] - a[0]) + ((double)b[1] - a[1]) * (b[1] - a[1]) +
                       ((double)b[2] - a[2]) * (b[2] - a[2]));
    }
    return rest;
}

/* Water on a sheet: a block of 256 PBF particles (0.5 kg) falls 5 cm onto
 * a 0.25 m cloth (5 kg/m^2, ks 500 N/m) pinned at its corners (the fluid's
 * boundary set: its vertices in the density sums, its triangles a sheet
 * the particles are kept off, modules/couple; the sheet's system steps
 * first). Every step the crossings are counted (a particle
 * that moves from above the sheet to under it, or back, while over it both
 * times): none. The sheet catches all the water, and at rest its sag
 * carries the water's weight: the springs pull the four pinned corners
 * down with the weight of the free sheet plus the water (the statics of the
 * spring network from its positions, mean of the last 0.5 s), within 5%. */
static void part_cloth_water(eddy_engine *e)
{
    char json[4096];
    snprintf(json, sizeof json,
             "{\"dt\": 0.004, \"substeps\": 2, \"duration\": 10, \"box\": {\"min\": [0, 0, 0], \"max\": [0.3, 0.5, 0.3]},"
             " \"particle_sets\": [{\"name\": \"water\", \"spacing\": 0.0125, \"fill\": {\"shape\": \"box\","
             " \"min\": [0.1, 0.3, 0.1], \"max\": [0.2, 0.35, 0.2]}},"
             " {\"name\": \"sheet\", \"radius\": 0.005, \"cloth\": {\"grid\": {\"size\": [0.25, 0.25], \"resolution\":"
             " [24, 24]}, \"center\": [0.15, 0.25, 0.15], \"density\": 5}, \"pinned\": [0, 24, 600, 624]}],"
             " \"systems\": [{\"name\": \"sheet\", \"module\": \"deform\", \"set\": \"sheet\", \"params\": {\"integrator\":"
             " 0, \"stiffness\": %g, \"damping\": 1, \"drag\": 2}}, {\"name\": \"fluid\", \"module\": \"pbf\", \"sets\":"
             " {\"fluid\": \"water\", \"boundary\": \"sheet\"}, \"params\": {\"h\": 0.025}}]}", 500.0);
    eddy_scene *sc = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "cloth-water", .json = json, .no_output = true });
    REQUIRE(sc != NULL);
    eddy_particles w = eddy_find_particles(e, "water"), sh = eddy_find_particles(e, "sheet");
    uint32_t nw = eddy_particles_count(e, w), ns = eddy_particles_count(e, sh);
    eddy_elements tri = eddy_particles_elements(e, sh, "triangles");
    float *x = malloc(16ull * nw), *v = malloc(16ull * ns), *ms = malloc(4ull * ns), *mw = malloc(4ull * nw);
    uint32_t *idx = malloc(12ull * tri.count);
    int *side = calloc(nw, sizeof(int));
    REQUIRE(x && v && ms && mw && idx && side);
    CHECK(eddy_buffer_download(e, tri.buffer, 0, 12ull * tri.count, idx) == EDDY_OK);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, sh, "position"), 0, 16ull * ns, v) == EDDY_OK);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, sh, "mass"), 0, 4ull * ns, ms) == EDDY_OK);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, w, "mass"), 0, 4ull * nw, mw) == EDDY_OK);
    /* The springs as the deform module makes them (stretch ks, shear ks,
     * bending 0.1 ks; rest lengths as loaded). */
    eddy_deform_topology t;
    REQUIRE(eddy_deform_topology_build(ns, idx, tri.count, 3, v, &t) == 0);
    double *rest = rest_lengths(v, &t);
    const uint32_t pin[4] = { 0, 24, 600, 624 };
    float corner[4][3];
    for (int q = 0; q < 4; q++)
        memcpy(corner[q], v + 4 * pin[q], sizeof corner[q]);
    double M_free = 0, M_water = 0, M_pins = 0;
    for (uint32_t i = 0; i < ns; i++)
        M_free += ms[i];
    for (int q = 0; q < 4; q++)
        M_pins += ms[pin[q]];
    M_free -= M_pins;
    for (uint32_t i = 0; i < nw; i++)
        M_water += mw[i];
    uint32_t crossed = 0, over = 0, first = 0, down = 0, averaged = 0;
    const uint32_t steps = 375, mean = 125;
    double pull = 0, sag = 0, moved[3] = { 0 };
    for (uint32_t step = 0; step <= steps; step++) {
        if (step)
            CHECK(eddy_scene_step(sc, 1) == EDDY_OK);
        CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, w, "position"), 0, 16ull * nw, x) == EDDY_OK);
        CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, sh, "position"), 0, 16ull * ns, v) == EDDY_OK);
        over = 0;
        for (uint32_t i = 0; i < nw; i++) {
            double y;
            int now = sheet_height(v, idx, tri.count, x[4 * i], x[4 * i + 2], &y) ? (x[4 * i + 1] > y ? 1 : -1) : 0;
            if (now && side[i] && now != side[i]) {
                if (!crossed++)
                    first = step;
                down += now < 0;
            }
            over += now == 1;
            side[i] = now;
        }
        for (int q = 0; q < 4; q++)
            for (int a = 0; a < 3; a++)
                moved[a] = fmax(moved[a], fabs(v[4 * pin[q] + a] - corner[q][a]));
        if (step + mean <= steps)
            continue;
        double low = INFINITY;
        for (uint32_t i = 0; i < ns; i++)
            low = fmin(low, v[4 * i + 1]);
        pull += pin_pull(v, &t, rest, pin, 4, 500, 50) / mean;
        sag += (0.25 - low) / mean;
        averaged++;
    }
    const double g = 9.81, want = (M_free + M_water) * g;
    printf("cloth_water: %u particles on a %u-vertex sheet: %u crossings (%u downwards) in %u steps (first at step "
           "%u); %u particles over the sheet at the end; pinned corners moved at most %.2g m; at rest (mean of "
           "the last %.2f s) the sheet sags %.4f m and its springs pull the corners down with %.4f N, the weight of "
           "the free sheet (%.4f kg) and the water (%.4f kg) %.4f N: %+.2f%% (tolerance 5%%)\n", nw, ns, crossed,
           down, steps, first, over, fmax(moved[0], fmax(moved[1], moved[2])), mean * 0.004, sag, pull, M_free,
           M_water, want, 100 * (pull / want - 1));
    CHECKF(crossed == 0, "%u crossings of the sheet (the first at step %u); expected none", crossed, first);
    CHECKF(over == nw, "only %u of %u particles are over the sheet after %g s (it should hold the water)", over, nw,
           steps * 0.004);
    CHECKF(fabs(pull / want - 1) <= 0.05, "the sheet's springs pull its corners with %g N; the weight they carry is "
           "%g N (tolerance 5%%)", pull, want);
    CHECKF(moved[0] == 0 && moved[1] == 0 && moved[2] == 0, "a pinned corner moved by %g m", fmax(moved[0], fmax(moved[1], moved[2])));
    REQUIRE(averaged == mean);
    eddy_deform_topology_free(&t);
    free(rest), free(x), free(v), free(ms), free(mw), free(idx), free(side);
    eddy_destroy_scene(sc);
}

/* A rigid cube on a trampoline (deformable <-> rigid contacts both ways,
 * modules/contact): a 4 cm cube of 1000 kg/m^3 (a rigid body of 64
 * particles) dropped 1 cm onto a 0.2 m cloth (4 kg/m^2) pinned at its
 * corners. The sheet holds it: no particle of the cube ever
 * gets below the sheet under it, and the cube comes to rest on it (its
 * speed over the last 0.18 s); at rest the springs pull the corners down
 * with the weight of the free sheet and the cube (the statics of the
 * spring network, mean of the last 0.18 s), within 5%: the cube's weight
 * reached the sheet, and the sheet's push held the cube. */
static const char *const pinned = ", \"pinned\": [0, 24, 600, 624]";
static const char *trampoline_json =
    "{\"dt\": %g, \"substeps\": %d, \"duration\": 10, \"box\": {\"min\": [0, 0, 0], \"max\": [0.3, 0.4, 0.3]},"
    " \"particle_sets\": [{\"name\": \"sheet\", \"radius\": 0.006, \"cloth\": {\"grid\": {\"size\": [0.2, 0.2],"
    " \"resolution\": [24, 24]}, \"center\": [0.15, 0.2, 0.15], \"density\": 4}%s},"
    " {\"name\": \"cube\", \"spacing\": 0.01, \"mass\": 0.001, \"bodies\": true, \"velocity\": %s, \"fill\":"
    " {\"shape\": \"box\", \"min\": [0.13, %g, 0.13], \"max\": [0.17, %g, 0.17]}}],"
    " \"systems\": [{\"name\": \"touch\", \"module\": \"contact\", \"sets\": {\"a\": \"sheet\", \"b\": \"cube\"},"
    " \"params\": {\"stiffness\": 15, \"damping\": 0.06, \"shear\": 0.03}},"
    " {\"name\": \"sheet\", \"module\": \"deform\", \"set\": \"sheet\", \"params\": {\"integrator\": 0, \"stiffness\":"
    " 200, \"damping\": 2, \"drag\": %g%s}},"
    " {\"name\": \"cube\", \"module\": \"rigid\", \"set\": \"cube\", \"params\": {\"stiffness\": 15, \"damping\": 0.06,"
    " \"shear\": 0.03%s}}]}";

static void part_trampoline(eddy_engine *e)
{
    char json[4096];
    snprintf(json, sizeof json, trampoline_json, 0.003, 10, pinned, "[0, 0, 0]", 0.206, 0.246, 30.0,
             ", \"max_iterations\": 40", "");
    eddy_scene *sc = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "trampoline", .json = json, .no_output = true });
    REQUIRE(sc != NULL);
    eddy_particles sh = eddy_find_particles(e, "sheet"), cube = eddy_find_particles(e, "cube");
    uint32_t ns = eddy_particles_count(e, sh), nc = eddy_particles_count(e, cube);
    eddy_elements tri = eddy_particles_elements(e, sh, "triangles");
    float *v = malloc(16ull * ns), *ms = malloc(4ull * ns), *x = malloc(16ull * nc), *mc = malloc(4ull * nc);
    uint32_t *idx = malloc(12ull * tri.count);
    REQUIRE(v && ms && x && mc && idx);
    CHECK(eddy_buffer_download(e, tri.buffer, 0, 12ull * tri.count, idx) == EDDY_OK);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, sh, "position"), 0, 16ull * ns, v) == EDDY_OK);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, sh, "mass"), 0, 4ull * ns, ms) == EDDY_OK);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, cube, "mass"), 0, 4ull * nc, mc) == EDDY_OK);
    eddy_deform_topology t;
    REQUIRE(eddy_deform_topology_build(ns, idx, tri.count, 3, v, &t) == 0);
    double *rest = rest_lengths(v, &t);
    const uint32_t pin[4] = { 0, 24, 600, 624 };
    double M_free = 0, M_cube = 0;
    for (uint32_t i = 0; i < ns; i++)
        M_free += ms[i];
    for (int q = 0; q < 4; q++)
        M_free -= ms[pin[q]];
    for (uint32_t i = 0; i < nc; i++)
        M_cube += mc[i];
    const uint32_t steps = 200, mean = 50;
    double pull = 0, below = INFINITY, vmax = 0, sag = 0, c[3], u[3];
    for (uint32_t step = 1; step <= steps; step++) {
        CHECK(eddy_scene_step(sc, 1) == EDDY_OK);
        CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, sh, "position"), 0, 16ull * ns, v) == EDDY_OK);
        CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, cube, "position"), 0, 16ull * nc, x) == EDDY_OK);
        /* How far each cube particle is above the sheet under it. */
        for (uint32_t i = 0; i < nc; i++) {
            double y;
            if (sheet_height(v, idx, tri.count, x[4 * i], x[4 * i + 2], &y))
                below = fmin(below, x[4 * i + 1] - y);
        }
        if (step + mean <= steps)
            continue;
        set_centre(e, cube, c, u);
        vmax = fmax(vmax, sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]));
        pull += pin_pull(v, &t, rest, pin, 4, 200, 20) / mean;
        double low = INFINITY;
        for (uint32_t i = 0; i < ns; i++)
            low = fmin(low, v[4 * i + 1]);
        sag += (0.2 - low) / mean;
    }
    const double g = 9.81, want = (M_free + M_cube) * g;
    printf("trampoline: a %.4f kg rigid cube (%u particles) dropped on a %u-vertex sheet: its particles at least "
           "%.4f m above the sheet under them; at rest (mean of the last %.2f s) speed at most %.4f m/s, the sheet "
           "sags %.4f m and its springs pull the corners down with %.4f N, the weight of the free sheet (%.4f kg) "
           "and the cube %.4f N: %+.2f%% (tolerance 5%%)\n", M_cube, nc, ns, below, mean * 0.003, vmax, sag, pull,
           M_free, want, 100 * (pull / want - 1));
    CHECKF(below > 0, "a particle of the cube got %g m below the sheet", -below);
    CHECKF(vmax < 0.05, "the cube still moves at %g m/s on the sheet (tolerance of the rigid floating tests, "
           "0.05)", vmax);
    CHECKF(fabs(pull / want - 1) <= 0.05, "the sheet's springs pull its corners with %g N; the weight they carry "
           "is %g N (tolerance 5%%)", pull, want);
    eddy_deform_topology_free(&t);
    free(rest), free(v), free(ms), free(x), free(mc), free(idx);
    eddy_destroy_scene(sc);
}

/* The contact forces of modules/contact against their C twin
 * (eddy_contact_force_cpu): the trampoline's cube moving at (0.2, -0.5,
 * 0.1) m/s and already touching the sheet; after one substep each side's
 * slice holds the force from the state before it: both within 1e-5 of the
 * largest force, and they sum to zero (pair by pair opposite). */
static void part_contact_cpu(eddy_engine *e)
{
    char json[4096];
    snprintf(json, sizeof json, trampoline_json, 0.0003, 1, pinned, "[0.2, -0.5, 0.1]", 0.2035, 0.2435, 10.0, "",
             "");
    eddy_scene *sc = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "contact-cpu", .json = json, .no_output = true });
    REQUIRE(sc != NULL);
    eddy_particles set[2] = { eddy_find_particles(e, "sheet"), eddy_find_particles(e, "cube") };
    uint32_t n[2];
    float *x[2], *v[2], *gpu[2], *cpu[2];
    for (int k = 0; k < 2; k++) {
        n[k] = eddy_particles_count(e, set[k]);
        x[k] = malloc(16ull * n[k]), v[k] = malloc(16ull * n[k]);
        gpu[k] = malloc(16ull * n[k]), cpu[k] = malloc(16ull * n[k]);
        REQUIRE(x[k] && v[k] && gpu[k] && cpu[k]);
        CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set[k], "position"), 0, 16ull * n[k], x[k]) == EDDY_OK);
        CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set[k], "velocity"), 0, 16ull * n[k], v[k]) == EDDY_OK);
    }
    CHECK(eddy_scene_step(sc, 1) == EDDY_OK);
    struct eddy_contact_params p = { .coeffs = { 15, 0.06f, 0.03f, 0 } };
    double worst = 0, largest = 0, sum[3] = { 0 }, total = 0;
    uint32_t touching = 0;
    for (int k = 0; k < 2; k++) {
        eddy_buffer slice = eddy_rigid_external(e, set[k], 0);
        REQUIRE(slice.id != 0);
        CHECK(eddy_buffer_download(e, slice, 0, 16ull * n[k], gpu[k]) == EDDY_OK);
        eddy_contact_force_cpu(&p, n[k], x[k], v[k], n[1 - k], x[1 - k], v[1 - k], cpu[k]);
        for (uint32_t i = 0; i < n[k]; i++) {
            double f2 = 0;
            for (int a = 0; a < 3; a++) {
                worst = fmax(worst, fabs((double)gpu[k][4 * i + a] - cpu[k][4 * i + a]));
                f2 += (double)cpu[k][4 * i + a] * cpu[k][4 * i + a];
                sum[a] += gpu[k][4 * i + a];
                total += fabs(gpu[k][4 * i + a]);
            }
            largest = fmax(largest, sqrt(f2));
            touching += k == 0 && f2 > 0;
        }
    }
    double net = sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
    printf("contact_cpu: %u sheet vertices touch the %u-particle cube: GPU against C within %.3g N (largest force "
           "%.4f N; tolerance 1e-5 of it); the forces on both sides sum to %.3g N (of %.4f N in all)\n", touching,
           n[1], worst, largest, net, total);
    CHECKF(touching >= 16, "only %u sheet vertices touch the cube", touching);
    CHECKF(worst <= 1e-5 * largest, "GPU contact forces differ from C by %g N (largest %g N)", worst, largest);
    CHECKF(net <= 1e-6 * total, "the contact forces sum to %g N; expected 0 (of %g N)", net, total);
    for (int k = 0; k < 2; k++)
        free(x[k]), free(v[k]), free(gpu[k]), free(cpu[k]);
    eddy_destroy_scene(sc);
}

/* The momentum (kg m/s) of a set. */
static void set_momentum(eddy_engine *e, eddy_particles set, double p[3])
{
    double c[3], v[3], M = 0;
    uint32_t n = eddy_particles_count(e, set);
    float *m = malloc(4ull * n);
    REQUIRE(m != NULL);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "mass"), 0, 4ull * n, m) == EDDY_OK);
    for (uint32_t i = 0; i < n; i++)
        M += m[i];
    free(m);
    set_centre(e, set, c, v);
    for (int a = 0; a < 3; a++)
        p[a] = M * v[a];
}

/* Steps a scene `steps` times and returns the largest change (kg m/s) of
 * the summed momentum of sets a and b; their momenta at the start and at
 * the end into a0, b0, a1, b1. */
static double momentum_drift(eddy_engine *e, eddy_scene *sc, uint32_t steps, eddy_particles a, eddy_particles b,
                             double a0[3], double b0[3], double a1[3], double b1[3])
{
    double worst = 0;
    set_momentum(e, a, a0);
    set_momentum(e, b, b0);
    for (uint32_t step = 0; step < steps; step++) {
        CHECK(eddy_scene_step(sc, 1) == EDDY_OK);
        set_momentum(e, a, a1);
        set_momentum(e, b, b1);
        double d = 0;
        for (int k = 0; k < 3; k++)
            d += (a1[k] + b1[k] - a0[k] - b0[k]) * (a1[k] + b1[k] - a0[k] - b0[k]);
        worst = fmax(worst, sqrt(d));
    }
    return worst;
}

/* Cloth and water in a closed box without gravity: a ball of 123 PBF
 * particles at 1 m/s hits a free sheet (16 x 16 quads, 2 kg/m^2,
 * implicit); the sheet takes momentum from the water and the sum is kept
 * within the rigid-fluid coupling tests' 1e-4 of the start. The
 * box is centred on the origin (float positions near 0.5 m round the
 * fluid's velocities; test_couple). */
static void part_cloth_water_momentum(eddy_engine *e)
{
    char json[4096];
    snprintf(json, sizeof json,
             "{\"dt\": 0.004, \"substeps\": 2, \"duration\": 10, \"box\": {\"min\": [-0.3, -0.3, -0.3], \"max\": [0.3, 0.3, 0.3]},"
             " \"particle_sets\": [{\"name\": \"water\", \"spacing\": 0.0125, \"velocity\": [0, -1, 0], \"fill\": {\"shape\":"
             " \"sphere\", \"center\": [0, 0.06, 0], \"radius\": 0.04}},"
             " {\"name\": \"sheet\", \"radius\": 0.005, \"cloth\": {\"grid\": {\"size\": [0.16, 0.16], \"resolution\":"
             " [16, 16]}, \"center\": [0, 0, 0], \"density\": 2}}],"
             " \"systems\": [{\"name\": \"sheet\", \"module\": \"deform\", \"set\": \"sheet\", \"params\": {\"integrator\": 0,"
             " \"stiffness\": 200, \"damping\": 0.5, \"gravity\": [0, 0, 0], \"tolerance\": 1e-7, \"max_iterations\": 300}},"
             " {\"name\": \"fluid\", \"module\": \"pbf\", \"sets\": {\"fluid\": \"water\", \"boundary\": \"sheet\"},"
             " \"params\": {\"h\": 0.025, \"gravity\": [0, 0, 0]}}]}");
    eddy_scene *sc = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "cloth-water-momentum", .json = json,
                                                           .no_output = true });
    REQUIRE(sc != NULL);
    eddy_particles w = eddy_find_particles(e, "water"), sh = eddy_find_particles(e, "sheet");
    double pw0[3], ps0[3], pw[3], ps[3];
    const uint32_t steps = 50;
    double worst = momentum_drift(e, sc, steps, w, sh, pw0, ps0, pw, ps);
    double p0 = sqrt(pw0[0] * pw0[0] + pw0[1] * pw0[1] + pw0[2] * pw0[2]);
    printf("cloth_water_momentum: %u particles at 1 m/s into a free %u-vertex sheet, no gravity, %u steps: water "
           "%.5f -> %.5f kg m/s, sheet %.5f -> %.5f kg m/s (y); largest change of the sum %.3g kg m/s (%.2g of "
           "the start; tolerance 1e-4)\n", eddy_particles_count(e, w), eddy_particles_count(e, sh), steps, pw0[1],
           pw[1], ps0[1], ps[1], worst, worst / p0);
    CHECKF(ps[1] < -0.1 * p0, "the sheet took %g kg m/s of the water's %g", ps[1], -p0);
    CHECKF(worst <= 1e-4 * p0, "cloth plus water momentum changed by %g kg m/s (%g of %g; tolerance 1e-4)", worst,
           worst / p0, p0);
    eddy_destroy_scene(sc);
}

/* The trampoline's cube at 1 m/s into its sheet, unpinned, without gravity
 * (modules/contact both ways): the sheet takes momentum from the cube, and
 * the sum is kept within the rigid-fluid coupling tests' 1e-4 of the
 * start. */
static void part_contact_momentum(eddy_engine *e)
{
    char json[4096];
    snprintf(json, sizeof json, trampoline_json, 0.003, 10, "", "[0, -1, 0]", 0.212, 0.252, 0.0,
             ", \"gravity\": [0, 0, 0], \"tolerance\": 1e-7, \"max_iterations\": 300", ", \"gravity\": [0, 0, 0]");
    eddy_scene *sc = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "contact-momentum", .json = json,
                                                           .no_output = true });
    REQUIRE(sc != NULL);
    eddy_particles sh = eddy_find_particles(e, "sheet"), cube = eddy_find_particles(e, "cube");
    double pc0[3], ps0[3], pc[3], ps[3];
    const uint32_t steps = 40;
    double worst = momentum_drift(e, sc, steps, cube, sh, pc0, ps0, pc, ps);
    double p0 = sqrt(pc0[0] * pc0[0] + pc0[1] * pc0[1] + pc0[2] * pc0[2]);
    printf("contact_momentum: a rigid cube at 1 m/s into a free sheet, no gravity, %u steps: cube %.5f -> %.5f kg "
           "m/s, sheet %.5f -> %.5f kg m/s (y); largest change of the sum %.3g kg m/s (%.2g of the start; "
           "tolerance 1e-4)\n", steps, pc0[1], pc[1], ps0[1], ps[1], worst, worst / p0);
    CHECKF(ps[1] < -0.1 * p0, "the sheet took %g kg m/s of the cube's %g", ps[1], -p0);
    CHECKF(worst <= 1e-4 * p0, "cube plus sheet momentum changed by %g kg m/s (%g of %g; tolerance 1e-4)", worst,
           worst / p0, p0);
    eddy_destroy_scene(sc);
}

static void part_output(eddy_engine *e)
{
    char dir[] = "/tmp/eddy-deform-XXXXXX", json[2048], path[1200], err[1024];
    REQUIRE(mkdtemp(dir) != NULL);
    snprintf(json, sizeof json,
             "{\"name\": \"bar\", \"dt\": 0.01, \"duration\": 0.1, \"box\": {\"min\": [-1, -5, -3], "
             "\"max\": [6, 2, 3]}, \"particle_sets\": [{\"name\": \"bar\", \"radius\": 0.02, \"tetmesh\": "
             "{\"file\": \"%s/data/tets/bar_80.node\", \"density\": 100}}], \"systems\": [{\"name\": \"beam\", "
             "\"module\": \"deform\", \"set\": \"bar\", \"params\": {\"pin_plane_normal\": [1, 0, 0]}}],"
             " \"output\": {\"frame_interval\": 0.05}}", root);
    eddy_scene *sc = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "output-test", .json = json, .out_dir = dir });
    REQUIRE(sc != NULL);
    CHECK(eddy_scene_run(sc, 0, false) == EDDY_OK);
    eddy_particles set = eddy_find_particles(e, "bar");
    uint32_t n = eddy_particles_count(e, set);
    eddy_elements tets = eddy_particles_elements(e, set, "tets");
    eddy_elements surf = eddy_particles_elements(e, set, "surface");
    float *p = malloc(16ull * n);
    uint32_t *idx = malloc(16ull * tets.count);
    REQUIRE(p && idx);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "position"), 0, 16ull * n, p) == EDDY_OK);
    CHECK(eddy_buffer_download(e, tets.buffer, 0, 16ull * tets.count, idx) == EDDY_OK);
    CHECK(eddy_scene_finish_output(sc) == EDDY_OK);
    snprintf(path, sizeof path, "%s/beam_body_000002.vtu", dir);
    eddy_tetmesh m;
    int rc = eddy_load_tetmesh(path, NULL, &m, err, sizeof err);
    CHECKF(rc == 0, "reading back %s: %s", path, err);
    if (rc == 0) {
        bool same = m.vertex_count == n && m.tet_count == tets.count && !memcmp(m.tets, idx, 16ull * tets.count);
        for (uint32_t i = 0; same && i < n; i++)
            same = !memcmp(m.vertices + 3 * (size_t)i, p + 4 * (size_t)i, 12);
        CHECKF(same, "%s: %u vertices and %u tets read back, not the device's %u and %u (or not bitwise)", path,
               m.vertex_count, m.tet_count, n, tets.count);
        eddy_free_tetmesh(&m);
    }
    const char *files[] = { "beam_body.pvd", "beam_surface.pvd", "beam_surface_000002.ply", "beam_surface_000002.vtp",
                            "beam_body_000000.vtu", "bar.pvd" };
    for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        FILE *f = fopen(path, "rb");
        CHECKF(f != NULL, "the run did not write %s", files[k]);
        if (f) {
            char text[4096] = "";
            size_t got = fread(text, 1, sizeof text - 1, f);
            text[got] = 0;
            fclose(f);
            if (!strcmp(files[k], "beam_body.pvd"))
                CHECKF(strstr(text, "beam_body_000002.vtu") && strstr(text, "timestep=\"0.10000000000000001\"") ,
                       "beam_body.pvd does not list frame 2 at t = 0.1 s:\n%s", text);
            if (!strcmp(files[k], "beam_surface_000002.ply")) {
                const char *fc = strstr(text, "element face ");
                unsigned faces = fc ? (unsigned)strtoul(fc + 13, NULL, 10) : 0;
                CHECKF(faces == surf.count, "beam_surface_000002.ply has %u faces, the boundary %u", faces, surf.count);
            }
        }
    }
    printf("output: bar_80 frames read back bitwise (%u vertices, %u tets); surface .ply/.vtp and .pvd series "
           "written\n", n, tets.count);
    free(p), free(idx);
    eddy_destroy_scene(sc);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 3);
    root = argv[1];
    const char *part = argv[2];
    if (!strcmp(part, "jacobian")) {
        part_jacobian();
        return test_report("deform_jacobian");
    }
    eddy_engine *e = test_engine();
    if (!strcmp(part, "cg_dense"))
        part_cg_dense(e);
    else if (!strcmp(part, "cpu"))
        part_cpu(e);
    else if (!strcmp(part, "stability"))
        part_stability(e);
    else if (!strcmp(part, "hang"))
        part_hang(e);
    else if (!strcmp(part, "momentum"))
        part_momentum(e);
    else if (!strcmp(part, "materials"))
        part_materials(e);
    else if (!strcmp(part, "cloth"))
        part_cloth(e);
    else if (!strcmp(part, "float_ball"))
        part_float_ball(e);
    else if (!strcmp(part, "cloth_water"))
        part_cloth_water(e);
    else if (!strcmp(part, "cloth_water_momentum"))
        part_cloth_water_momentum(e);
    else if (!strcmp(part, "trampoline"))
        part_trampoline(e);
    else if (!strcmp(part, "contact_cpu"))
        part_contact_cpu(e);
    else if (!strcmp(part, "contact_momentum"))
        part_contact_momentum(e);
    else if (!strcmp(part, "handle"))
        part_handle(e);
    else if (!strcmp(part, "output"))
        part_output(e);
    else
        REQUIRE(!"unknown part");
    test_finish(e);
    return test_report(part);
}
