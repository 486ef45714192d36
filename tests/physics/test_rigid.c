/* The rigid module against its CPU reference and physics:
 *  - 20 bodies (pawns from data/meshes and boxes) thrown at each other and
 *    the floor, with friction, 50 steps: body positions within 1e-4 of the scene size and orientations
 *    within 1e-4 of the C step (eddy_rigid_step_cpu);
 *  - a free body (no gravity, no contacts) spinning about a tilted axis for
 *    10 s: angular momentum within 1e-4 relative, |q| = 1 within 1e-6,
 *    rotational energy within 1e-5;
 *  - the intermediate-axis flip: a plate spun about its middle axis (the
 *    fill's angular_velocity) flips ten times or more in 15 s with L and
 *    the rotational energy within 1e-3, and as often as Euler's equations
 *    integrated in double (within one flip; table intermediate_axis_flip);
 *  - DEM restitution: a grain bounced off the floor at four dashpots leaves
 *    within 0.01 of the linear spring-dashpot's restitution (table
 *    dem_restitution);
 *  - walls: a body whose bottom layer starts past the floor is put back by
 *    the box limit and its 9 particles flagged (past_wall); a 2,000 kg/m^3
 *    cube dropped from 0.5 m is refused below the wall stiffness that holds
 *    it, and otherwise rests on the floor with every particle inside the box
 *    after every step (heavy_drop);
 *  - two bodies colliding head on without gravity: total momentum within
 *    1e-5 of the momenta's size;
 *  - a box of bodies settles and stays: after 2 s, none moves more than 1%
 *    of a particle diameter in the next 2 s;
 *  - granular: a 45-degree cone of sand (friction 0.5) slumps to a heap
 *    whose slope (15-40 degrees; reported) holds: no particle moves more
 *    than 1% of its diameter in the last second;
 *  - rigid.inverse_mass (what a coupled fluid weighs particles with):
 *    surface particles over body mass for a cube, 1 / m for one particle
 *    and for grains. */
#include "../gpu/gpu_test.h"
#include "rigid/rigid.h"
#include "validation_csv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static char json[8192];

static eddy_scene *load(eddy_engine *e, const char *text)
{
    eddy_scene *s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "rigid-test", .json = text, .no_output = true });
    REQUIRE(s != NULL);
    return s;
}

static uint32_t bodies_of(eddy_engine *e, const char *set, struct eddy_rigid_body **out, uint32_t count)
{
    eddy_particles p = eddy_find_particles(e, set);
    *out = malloc(sizeof **out * count);
    REQUIRE(*out);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, p, "rigid.body"), 0, sizeof **out * count, *out) == EDDY_OK);
    return count;
}

/* A rigid system on the set as a host program makes one (the module API,
 * no scene), with two slices of forces from other systems claimed before it
 * declares its step; the scene only filled the set. */
typedef struct direct {
    const eddy_module_desc *m;
    void *state;
    eddy_graph g;
    eddy_buffer slice[2];
} direct;

static direct direct_rigid(eddy_engine *e, eddy_particles set, double dt, double stiffness, double friction,
                           const float *added_mass)
{
    direct d = { .m = eddy_rigid_module() };
    eddy_param_value v[64]; /* room for any module's parameters */
    REQUIRE(d.m->param_count <= 16);
    for (uint32_t i = 0; i < d.m->param_count; i++) {
        memcpy(v[i].v, d.m->params[i].def, sizeof v[i].v);
        if (!strcmp(d.m->params[i].name, "stiffness"))
            v[i].v[0] = stiffness;
        if (!strcmp(d.m->params[i].name, "friction"))
            v[i].v[0] = friction;
    }
    eddy_slot_sets slot = { &set, 1 };
    eddy_system_ctx ctx = { .size = sizeof ctx, .engine = e, .name = "direct", .particles = set, .slots = &slot,
                            .slot_count = 1, .params = v, .box_min = { 0, 0, 0 }, .box_max = { 0.5f, 0.5f, 0.5f },
                            .dt = dt, .substeps = 1 };
    REQUIRE(d.m->create(&ctx, &d.state) == EDDY_OK);
    for (int k = 0; k < 2; k++) {
        d.slice[k] = eddy_rigid_claim_external(e, set, "test");
        REQUIRE(d.slice[k].id);
    }
    CHECK(eddy_rigid_external(e, set, 0).id == d.slice[0].id && eddy_rigid_external(e, set, 1).id == d.slice[1].id);
    /* What a fluid publishes for the bodies it couples (modules/couple),
     * per particle, summed per body when the step is declared. */
    if (added_mass) {
        eddy_buffer am = eddy_particles_add_buffer(e, set, "rigid.added_mass", 4);
        REQUIRE(am.id);
        CHECK(eddy_buffer_upload(e, am, 0, 4ull * eddy_particles_count(e, set), added_mass) == EDDY_OK);
    }
    d.g = eddy_create_graph(e, &(eddy_graph_desc){ EDDY_SIZED(eddy_graph_desc), .label = "direct" });
    REQUIRE(d.g.id);
    CHECK(d.m->declare_step(d.state, d.g) == EDDY_OK);
    return d;
}

/* A copy of the C step's state (added: NULL for none). */
typedef struct cpu_copy {
    float *pos, *vel, *hxi, *added;
    uint32_t *hid;
    struct eddy_rigid_body *cb;
} cpu_copy;

static cpu_copy cpu_copy_of(uint32_t n, uint32_t B, const float *pos, const float *vel, const uint32_t *hid,
                            const float *hxi, const struct eddy_rigid_body *cb, const float *added)
{
    cpu_copy c = { malloc(16ull * n), malloc(16ull * n), malloc(16ull * EDDY_RIGID_SLOTS * n),
                   added ? malloc(16ull * B) : NULL, malloc(4ull * EDDY_RIGID_SLOTS * n), malloc(sizeof *cb * B) };
    REQUIRE(c.pos && c.vel && c.hxi && c.hid && c.cb && (!added || c.added));
    memcpy(c.pos, pos, 16ull * n), memcpy(c.vel, vel, 16ull * n), memcpy(c.hxi, hxi, 16ull * EDDY_RIGID_SLOTS * n);
    memcpy(c.hid, hid, 4ull * EDDY_RIGID_SLOTS * n), memcpy(c.cb, cb, sizeof *cb * B);
    if (added)
        memcpy(c.added, added, 16ull * B);
    return c;
}

static void cpu_copy_free(cpu_copy *c)
{
    free(c->pos), free(c->vel), free(c->hxi), free(c->added), free(c->hid), free(c->cb);
}

static void against_cpu(eddy_engine *e, const char *root)
{
    snprintf(json, sizeof json,
             "{ \"dt\": 0.0003, \"duration\": 1, \"box\": { \"min\": [0, 0, 0], \"max\": [0.5, 0.5, 0.5] },"
             "  \"particle_sets\": [ { \"name\": \"b\", \"spacing\": 0.02, \"bodies\": true, \"fill\": ["
             "    { \"shape\": \"mesh\", \"file\": \"%s/data/meshes/pawn_revolved.obj\", \"scale\": 0.04,"
             "      \"rotation\": [1, 0.3, 0, -80], \"center\": [0.06, 0.05, 0.1], \"velocity\": [1.5, 0.5, 1],"
             "      \"copies\": { \"count\": [2, 2, 3], \"step\": [0.1, 0.1, 0.1] } },"
             "    { \"shape\": \"box\", \"min\": [0.225, 0.02, 0.08], \"max\": [0.285, 0.08, 0.14], \"velocity\": [-1.5, 0.3, 0.5],"
             "      \"copies\": { \"count\": [2, 2, 2], \"step\": [0.08, 0.09, 0.1] } } ] } ],"
             "  \"systems\": [ { \"name\": \"rigid\", \"module\": \"rigid\", \"set\": \"b\","
             "      \"params\": { \"stiffness\": 2000, \"friction\": 0.5 } } ] }", root);
    eddy_scene *s = load(e, json);
    eddy_particles set = eddy_find_particles(e, "b");
    uint32_t n = eddy_particles_count(e, set);
    float *pos = malloc(16ull * n), *vel = malloc(16ull * n), *mass = malloc(4ull * n);
    uint32_t *phase = malloc(4ull * n);
    REQUIRE(pos && vel && mass && phase);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "position"), 0, 16ull * n, pos) == EDDY_OK);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "velocity"), 0, 16ull * n, vel) == EDDY_OK);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "mass"), 0, 4ull * n, mass) == EDDY_OK);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "phase"), 0, 4ull * n, phase) == EDDY_OK);
    struct eddy_rigid_body *cb;
    float *rest;
    uint32_t *off;
    char err[256];
    int64_t B = eddy_rigid_build_bodies(n, pos, vel, mass, phase, 0.02, &cb, &rest, &off, err, sizeof err);
    CHECKF(B == 20, "%lld bodies (%s)", (long long)B, err);
    struct eddy_rigid_params p = { .grid = { -0.02f, -0.02f, -0.02f, 50 }, .dims = { 27, 27, 27, 0 },
                                   .box_min = { 0, 0, 0, 0.02f }, .box_max = { 0.5f, 0.5f, 0.5f, 0.0003f },
                                   .gravity = { 0, -9.81f, 0, 2000 }, .coeffs = { 2, 1, 2000, 0.5f },
                                   .counts = { n, (uint32_t)B } };
    double worst_x = 0, worst_q = 0, moved = 0;
    struct eddy_rigid_body *gb = NULL;
    uint32_t *hid = malloc(4ull * EDDY_RIGID_SLOTS * n);
    float *hxi = calloc(4ull * EDDY_RIGID_SLOTS * n, sizeof *hxi);
    REQUIRE(hid && hxi);
    memset(hid, 0xff, 4ull * EDDY_RIGID_SLOTS * n);
    /* A force on every particle, as coupling modules write it (mN, varying
     * from particle to particle: it also turns), half in each of two
     * slices (halves add up exactly): the rigid system sums them. */
    /* Added mass (a fluid's estimate of the fluid a body sets moving, as
     * couple publishes it) on every other body: 0.8 of the body's own. */
    float *am = malloc(4ull * n), *added = calloc(4ull * (size_t)B, sizeof *added);
    REQUIRE(am && added);
    for (int64_t k = 0; k < B; k++)
        for (uint32_t i = off[k]; i < off[k + 1]; i++) {
            am[i] = k % 2 ? 0.0f : 0.8f * mass[i];
            added[4 * k + 3] += am[i];
        }
    direct d = direct_rigid(e, set, 0.0003, 2000, 0.5, am);
    free(am);
    float *ext = malloc(16ull * n);
    REQUIRE(ext);
    for (uint32_t i = 0; i < n; i++) {
        ext[4 * i] = 1e-3f * sinf(1.3f * (float)i);
        ext[4 * i + 1] = 1e-3f * cosf(0.7f * (float)i);
        ext[4 * i + 2] = 1e-3f * sinf(0.3f * (float)i);
        ext[4 * i + 3] = 0;
    }
    float *half = malloc(16ull * n);
    REQUIRE(half);
    for (uint32_t i = 0; i < 4 * n; i++)
        half[i] = 0.5f * ext[i];
    for (int k = 0; k < 2; k++)
        CHECK(eddy_buffer_upload(e, d.slice[k], 0, 16ull * n, half) == EDDY_OK);
    free(half);
    /* The same C steps without the external force, and with it but without
     * the added mass: the GPU must be much closer to the run with both
     * (neither is lost). */
    cpu_copy c0 = cpu_copy_of(n, (uint32_t)B, pos, vel, hid, hxi, cb, added),
             c1 = cpu_copy_of(n, (uint32_t)B, pos, vel, hid, hxi, cb, NULL);
    for (int step = 0; step < 50; step++) {
        eddy_rigid_step_cpu(&p, n, c0.pos, c0.vel, mass, phase, rest, c0.cb, off, c0.hid, c0.hxi, NULL, c0.added);
        eddy_rigid_step_cpu(&p, n, c1.pos, c1.vel, mass, phase, rest, c1.cb, off, c1.hid, c1.hxi, ext, NULL);
    }
    struct eddy_rigid_body *cb0 = c0.cb, *cb1 = c1.cb;
    for (int step = 0; step < 50; step++) {
        eddy_rigid_step_cpu(&p, n, pos, vel, mass, phase, rest, cb, off, hid, hxi, ext, added);
        CHECK(eddy_graph_run(e, d.g, 1) == EDDY_OK);
    }
    bodies_of(e, "b", &gb, (uint32_t)B);
    int contacts = 0;
    for (int64_t k = 0; k < B; k++) {
        for (int a = 0; a < 3; a++)
            worst_x = fmax(worst_x, fabs(gb[k].x[a] - cb[k].x[a]));
        double dq = 0, sq = 0;
        for (int a = 0; a < 4; a++) {
            dq = fmax(dq, fabs(gb[k].q[a] - cb[k].q[a]));
            sq = fmax(sq, fabs(gb[k].q[a] + cb[k].q[a]));
        }
        worst_q = fmax(worst_q, fmin(dq, sq)); /* q and -q are one rotation */
        moved = fmax(moved, 1 - fabs(gb[k].q[3]));
        /* Touched something: off its free flight v0 + g t. */
        double v0[3] = { k < 12 ? 1.5 : -1.5, k < 12 ? 0.5 : 0.3, k < 12 ? 1 : 0.5 }, off = 0;
        for (int a = 0; a < 3; a++)
            off = fmax(off, fabs(gb[k].v[a] - v0[a] - (a == 1 ? -9.81 * 0.015 : 0)));
        contacts += off > 1e-3;
    }
    double without = 0;
    for (int64_t k = 0; k < B; k++)
        for (int a = 0; a < 3; a++)
            without = fmax(without, fabs(gb[k].x[a] - cb0[k].x[a]));
    CHECKF(without > 10 * worst_x, "the external force made no difference: %g m without it, %g m with", without, worst_x);
    printf("rigid.external.0 + .1: without them the C bodies end up to %.3g m from the GPU's\n", without);
    double no_added = 0;
    for (int64_t k = 0; k < B; k++)
        for (int a = 0; a < 3; a++)
            no_added = fmax(no_added, fabs(gb[k].x[a] - cb1[k].x[a]));
    CHECKF(no_added > 10 * worst_x, "the added mass made no difference: %g m without it, %g m with", no_added, worst_x);
    printf("rigid.added_mass (0.8 of every other body's mass): without it the C bodies end up to %.3g m from the "
           "GPU's\n", no_added);
    free(ext), free(added);
    cpu_copy_free(&c0), cpu_copy_free(&c1);
    printf("GPU vs CPU (with external forces): %u particles, 20 bodies, 50 steps: positions within %.3g m (scene 0.5 m), orientations within "
           "%.3g; %d bodies in contact, largest turn 1 - |s| = %.3g\n", n, worst_x, worst_q, contacts, moved);
    CHECKF(worst_x <= 1e-4 * 0.5, "position difference %g m", worst_x);
    CHECKF(worst_q <= 1e-4, "orientation difference %g", worst_q);
    CHECKF(contacts >= 4, "only %d bodies touched anything", contacts);
    uint32_t remembered = 0;
    for (uint64_t k = 0; k < EDDY_RIGID_SLOTS * (uint64_t)n; k++)
        remembered += hid[k] != 0xffffffffu && (k % EDDY_RIGID_SLOTS == 0 || hid[k - 1] != 0xffffffffu);
    printf("  friction 0.5: %u contacts in the C step's memory at the end\n", remembered);
    CHECKF(remembered > 10, "%u contacts in the friction memory", remembered);
    free(hid), free(hxi);
    free(gb), free(cb), free(rest), free(off);
    free(pos), free(vel), free(mass), free(phase);
    eddy_destroy_graph(e, d.g);
    d.m->destroy(d.state);
    eddy_destroy_scene(s);
}

static void spinning(eddy_engine *e, const char *root)
{
    /* A torus (three different moments) in the middle of a big box. */
    snprintf(json, sizeof json,
             "{ \"dt\": 0.01, \"duration\": 10, \"box\": { \"min\": [-2, -2, -2], \"max\": [2, 2, 2] },"
             "  \"particle_sets\": [ { \"name\": \"t\", \"spacing\": 0.1, \"bodies\": true, \"fill\":"
             "    { \"shape\": \"mesh\", \"file\": \"%s/data/meshes/torus.obj\", \"scale\": 0.5, \"rotation\": [1, 2, 0, 30] } } ],"
             "  \"systems\": [ { \"name\": \"rigid\", \"module\": \"rigid\", \"set\": \"t\","
             "      \"params\": { \"stiffness\": 1, \"damping\": 0, \"shear\": 0, \"gravity\": [0, 0, 0] } } ] }", root);
    eddy_scene *s = load(e, json);
    eddy_particles set = eddy_find_particles(e, "t");
    struct eddy_rigid_body b;
    eddy_buffer bb = eddy_particles_buffer(e, set, "rigid.body");
    CHECK(eddy_buffer_download(e, bb, 0, sizeof b, &b) == EDDY_OK);
    /* Spin it: L along a tilted axis (not a principal one). */
    double L0[3] = { 0.3 * b.x[3], 0.5 * b.x[3], -0.2 * b.x[3] };
    for (int a = 0; a < 3; a++)
        b.l[a] = (float)L0[a];
    CHECK(eddy_buffer_upload(e, bb, 0, sizeof b, &b) == EDDY_OK);
    double worst_l = 0, worst_q = 0, e0 = -1, e_drift = 0, turned = 0;
    for (int k = 0; k < 10; k++) {
        CHECK(eddy_scene_step(s, 100) == EDDY_OK);
        CHECK(eddy_buffer_download(e, bb, 0, sizeof b, &b) == EDDY_OK);
        double dl = 0, l0 = 0, q2 = 0, en = 0;
        for (int a = 0; a < 3; a++) {
            dl += (b.l[a] - L0[a]) * (b.l[a] - L0[a]);
            l0 += L0[a] * L0[a];
            en += 0.5 * (double)b.w[a] * b.l[a];
        }
        for (int a = 0; a < 4; a++)
            q2 += (double)b.q[a] * b.q[a];
        worst_l = fmax(worst_l, sqrt(dl / l0));
        worst_q = fmax(worst_q, fabs(sqrt(q2) - 1));
        if (e0 < 0)
            e0 = en;
        e_drift = fmax(e_drift, fabs(en - e0) / e0);
        turned = fmax(turned, 1 - fabs(b.q[3]));
    }
    printf("spinning torus, 10 s at dt 10 ms: angular momentum within %.3g (relative), |q| - 1 within %.3g; rotational "
           "energy drift %.3g; 1 - |s| reached %.3g\n", worst_l, worst_q, e_drift, turned);
    CHECKF(worst_l <= 1e-4, "angular momentum off by %g", worst_l);
    CHECKF(worst_q <= 1e-6, "|q| off by %g", worst_q);
    CHECKF(e_drift <= 1e-5, "rotational energy drifted by %g", e_drift);
    CHECKF(turned > 0.1, "the body hardly turned (%g)", turned);
    eddy_destroy_scene(s);
}

/* The intermediate-axis flip (Dzhanibekov): a 12 x 6 x 2 cm plate (moments
 * I_x < I_y < I_z) spun about its middle axis y at 16 rad/s with a little
 * spin about x and z (the fill's angular_velocity), no gravity, no
 * contacts: y turns over again and again (the flips: sign changes of the
 * body's y axis along L) while L and the rotational energy stay within
 * 1e-3 relative over at least ten flips. */
static void flip(eddy_engine *e)
{
    snprintf(json, sizeof json,
             "{ \"dt\": 0.004, \"duration\": 30, \"box\": { \"min\": [-0.5, -0.5, -0.5], \"max\": [0.5, 0.5, 0.5] },"
             "  \"particle_sets\": [ { \"name\": \"p\", \"spacing\": 0.01, \"bodies\": true, \"fill\":"
             "    { \"shape\": \"box\", \"min\": [-0.06, -0.03, -0.01], \"max\": [0.06, 0.03, 0.01],"
             "      \"angular_velocity\": [0.2, 16, 0.2] } } ],"
             "  \"systems\": [ { \"name\": \"rigid\", \"module\": \"rigid\", \"set\": \"p\","
             "      \"params\": { \"stiffness\": 1, \"damping\": 0, \"shear\": 0, \"gravity\": [0, 0, 0] } } ] }");
    eddy_scene *s = load(e, json);
    eddy_particles set = eddy_find_particles(e, "p");
    REQUIRE(eddy_particles_count(e, set) == 144);
    eddy_buffer bb = eddy_particles_buffer(e, set, "rigid.body");
    struct eddy_rigid_body b;
    CHECK(eddy_buffer_download(e, bb, 0, sizeof b, &b) == EDDY_OK);
    const double w0[3] = { 0.2, 16, 0.2 };
    double werr = 0, L0[3], l0 = 0, e0 = 0;
    for (int a = 0; a < 3; a++) {
        werr = fmax(werr, fabs(b.w[a] - w0[a]) / 16);
        L0[a] = b.l[a];
        l0 += L0[a] * L0[a];
        e0 += 0.5 * (double)b.w[a] * b.l[a];
    }
    l0 = sqrt(l0);
    CHECKF(werr < 1e-5, "the body starts at angular velocity (%g, %g, %g), not the fill's (0.2, 16, 0.2)", b.w[0],
           b.w[1], b.w[2]);
    int flips = 0, side = 1;
    double worst_l = 0, worst_e = 0;
    /* The reference: Euler's equations I w' = (I w) x w in the body frame
     * (principal axes along the box's: I0^-1 is diagonal), from the same
     * start, by RK4 in double at 1e-5 s; the body's middle axis against L is
     * I2 w2 / |L|. */
    const double I[3] = { 1 / b.iinv[0], 1 / b.iinv[1], 1 / b.iinv[2] };
    double wr[3] = { b.w[0], b.w[1], b.w[2] };
    int flips_ref = 0, side_ref = 1;
    validation_csv csv = validation_csv_open("intermediate_axis_flip",
        "a plate (0.12 x 0.06 x 0.02 m) spun at (0.2, 16, 0.2) rad/s about its middle axis, no gravity, dt 4 ms: the "
        "middle axis along L, the rotational energy and |L| (relative change); reference: Euler's equations by RK4 "
        "in double at 1e-5 s", "t,middle_axis_along_L_eddy,middle_axis_along_L_reference,energy_change,L_change");
    for (int k = 0; k < 150; k++) {
        CHECK(eddy_scene_step(s, 25) == EDDY_OK);
        for (int sub = 0; sub < 10000; sub++) {
            double h = 1e-5, k1[3], k2[3], k3[3], k4[3], t[3];
#define EULER(w, out)                                                                                      \
    out[0] = ((I[1] - I[2]) * (w)[1] * (w)[2]) / I[0], out[1] = ((I[2] - I[0]) * (w)[2] * (w)[0]) / I[1], \
    out[2] = ((I[0] - I[1]) * (w)[0] * (w)[1]) / I[2]
            EULER(wr, k1);
            for (int a = 0; a < 3; a++)
                t[a] = wr[a] + 0.5 * h * k1[a];
            EULER(t, k2);
            for (int a = 0; a < 3; a++)
                t[a] = wr[a] + 0.5 * h * k2[a];
            EULER(t, k3);
            for (int a = 0; a < 3; a++)
                t[a] = wr[a] + h * k3[a];
            EULER(t, k4);
#undef EULER
            for (int a = 0; a < 3; a++)
                wr[a] += h / 6 * (k1[a] + 2 * k2[a] + 2 * k3[a] + k4[a]);
        }
        double along_ref = I[1] * wr[1] / l0;
        if (along_ref * side_ref < -0.5) {
            flips_ref++;
            side_ref = -side_ref;
        }
        CHECK(eddy_buffer_download(e, bb, 0, sizeof b, &b) == EDDY_OK);
        /* the body's y axis in the world: R's second column */
        double x = b.q[0], y = b.q[1], z = b.q[2], w = b.q[3];
        double ay[3] = { 2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x) };
        double dl = 0, en = 0, along = 0;
        for (int a = 0; a < 3; a++) {
            dl += (b.l[a] - L0[a]) * (b.l[a] - L0[a]);
            en += 0.5 * (double)b.w[a] * b.l[a];
            along += ay[a] * L0[a] / l0;
        }
        worst_l = fmax(worst_l, sqrt(dl) / l0);
        worst_e = fmax(worst_e, fabs(en - e0) / e0);
        if (along * side < -0.5) {
            flips++;
            side = -side;
        }
        if (csv.f)
            fprintf(csv.f, "%.2f,%.5f,%.5f,%.3g,%.3g\n", (k + 1) * 0.1, along, along_ref, (en - e0) / e0, sqrt(dl) / l0);
    }
    validation_csv_close(&csv);
    printf("flip: %d flips in 15 s, Euler's equations (RK4, double) give %d\n", flips, flips_ref);
    CHECKF(abs(flips - flips_ref) <= 1, "%d flips against the reference's %d", flips, flips_ref);
    printf("flip: plate spun at (0.2, 16, 0.2) rad/s about its middle axis, 15 s at dt 4 ms: %d flips; L within %.3g, "
           "rotational energy within %.3g (relative)\n", flips, worst_l, worst_e);
    CHECKF(flips >= 10, "only %d flips in 15 s", flips);
    CHECKF(worst_l <= 1e-3 && worst_e <= 1e-3, "L off by %g, energy by %g over the flips", worst_l, worst_e);
    eddy_destroy_scene(s);
}

static void head_on(eddy_engine *e)
{
    const char *text =
        "{ \"dt\": 0.0002, \"duration\": 1, \"box\": { \"min\": [0, 0, 0], \"max\": [1, 0.4, 0.4] },"
        "  \"particle_sets\": [ { \"name\": \"b\", \"spacing\": 0.02, \"bodies\": true, \"fill\": ["
        "    { \"shape\": \"box\", \"min\": [0.2, 0.1, 0.1], \"max\": [0.3, 0.2, 0.2], \"velocity\": [1, 0, 0] },"
        "    { \"shape\": \"sphere\", \"center\": [0.6, 0.16, 0.17], \"radius\": 0.07, \"velocity\": [-1.5, 0, 0] } ] } ],"
        "  \"systems\": [ { \"name\": \"rigid\", \"module\": \"rigid\", \"set\": \"b\","
        "      \"params\": { \"stiffness\": 2000, \"gravity\": [0, 0, 0] } } ] }";
    eddy_scene *s = load(e, text);
    struct eddy_rigid_body *b0, *b1;
    bodies_of(e, "b", &b0, 2);
    CHECK(eddy_scene_step(s, 1500) == EDDY_OK);
    bodies_of(e, "b", &b1, 2);
    double p0[3], p1[3], scale = 0;
    for (int a = 0; a < 3; a++) {
        p0[a] = (double)b0[0].p[a] + b0[1].p[a];
        p1[a] = (double)b1[0].p[a] + b1[1].p[a];
        scale += fabs(b0[0].p[a]) + fabs(b0[1].p[a]);
    }
    double dp = sqrt((p1[0] - p0[0]) * (p1[0] - p0[0]) + (p1[1] - p0[1]) * (p1[1] - p0[1]) + (p1[2] - p0[2]) * (p1[2] - p0[2]));
    printf("head on: velocities before %.3f, %.3f m/s, after %.3f, %.3f m/s; total momentum changed by %.3g of %.3g kg m/s "
           "(%.2g)\n", b0[0].v[0], b0[1].v[0], b1[0].v[0], b1[1].v[0], dp, scale, dp / scale);
    CHECKF(b1[0].v[0] < 0.9 && b1[1].v[0] > -1.4, "the bodies did not collide (%g, %g)", b1[0].v[0], b1[1].v[0]);
    CHECKF(dp <= 1e-5 * scale, "momentum changed by %g (relative %g)", dp, dp / scale);
    free(b0), free(b1);
    eddy_destroy_scene(s);
}

/* A body whose lowest particles start past the floor (centres 6 mm below
 * it, the radius 10 mm) under gravity: the walls push by the signed
 * distance, so it is pushed back in and comes to rest on the floor (a
 * mirrored wall particle would have pushed those particles further out). */
static void past_wall(eddy_engine *e)
{
    const char *text =
        "{ \"dt\": 0.0003, \"duration\": 3, \"box\": { \"min\": [0, 0, 0], \"max\": [0.2, 0.2, 0.2] },"
        "  \"particle_sets\": [ { \"name\": \"b\", \"spacing\": 0.02, \"bodies\": true, \"fill\":"
        "    { \"shape\": \"box\", \"min\": [0.04, -0.016, 0.04], \"max\": [0.1, 0.044, 0.1] } } ],"
        "  \"systems\": [ { \"name\": \"rigid\", \"module\": \"rigid\", \"set\": \"b\","
        "      \"params\": { \"stiffness\": 2000 } } ] }";
    eddy_scene *s = load(e, text);
    struct eddy_rigid_body *b0, *b1 = NULL;
    bodies_of(e, "b", &b0, 1);
    double lowest = 1;
    for (int k = 0; k < 20; k++) {
        CHECK(eddy_scene_step(s, 333) == EDDY_OK);
        free(b1);
        bodies_of(e, "b", &b1, 1);
        lowest = fmin(lowest, b1[0].x[1]);
    }
    double speed = sqrt(b1[0].v[0] * b1[0].v[0] + b1[0].v[1] * b1[0].v[1] + b1[0].v[2] * b1[0].v[2]);
    /* The box limit moved it back at the first step and flagged the 9
     * particles of its bottom layer. */
    eddy_particles set = eddy_find_particles(e, "b");
    uint32_t cl[27], flagged = 0;
    REQUIRE(eddy_particles_count(e, set) == 27);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "clamped"), 0, sizeof cl, cl) == EDDY_OK);
    for (int i = 0; i < 27; i++)
        flagged += cl[i] != 0;
    printf("past the wall: %u particle(s) flagged by the box limit (the bottom layer: 9)\n", flagged);
    CHECKF(flagged == 9, "%u particles flagged by the box limit, not the bottom layer's 9", flagged);
    printf("past the wall: a body's lowest particle centres 6 mm below the floor: centre from %.4f m to %.4f m after "
           "2 s (on the floor: 0.03 m), never below %.4f m, speed %.4f m/s\n", b0[0].x[1], b1[0].x[1], lowest, speed);
    CHECKF(b1[0].x[1] > 0.025 && b1[0].x[1] < 0.035, "the body's centre ended at %g m, not on the floor (0.03 m)",
           b1[0].x[1]);
    CHECKF(lowest > b0[0].x[1], "the body went down to %g m", lowest);
    CHECKF(speed < 0.01, "the body still moves at %g m/s", speed);
    free(b0), free(b1);
    eddy_destroy_scene(s);
}

/* Walls that hold a heavy body: a 2,000 kg/m^3 cube (0.1 m, 125
 * particles of d = 2 cm, 2 kg) dropped from 0.5 m onto the floor at wall stiffnesses across the
 * parameter's range either comes to rest on the floor with every particle
 * centre inside the box at the end of every step, or is refused with the
 * stiffness it needs: 2 M g / (n_b d) = 78.5 N/m for its 25 bottom particles
 * (create), or the stability bound for a step too long for stiff walls.
 * Damping 40 N s/m a contact: the default 2 leaves the landing 0.92
 * elastic at 1e4 N/m (it bounced back to 0.41 m), a rest in time, and
 * then lets the landing at 94 N/m reach the box limit (25 particles
 * flagged; with 40 the dashpots stop it first). */
static void heavy_drop(eddy_engine *e)
{
    const double need = 2 * 2.0 * 9.81 / (25 * 0.02);
    const double kw[] = { 1e-6, 10, 0.5 * need, 1.2 * need, 1e3, 1e4, 1e12 };
    for (size_t c = 0; c < sizeof kw / sizeof kw[0]; c++) {
        /* The bound is 1.95e-4 s from the dashpots; 1e12 is refused at it. */
        double dt = 1.8e-4;
        if (kw[c] > 2000 && kw[c] < 1e6)
            dt = 0.9 * 0.15 * sqrt(0.016 / kw[c]);
        snprintf(json, sizeof json,
                 "{ \"dt\": %.9g, \"duration\": 1.2, \"box\": { \"min\": [0, 0, 0], \"max\": [0.3, 0.8, 0.3] },"
                 "  \"particle_sets\": [ { \"name\": \"b\", \"spacing\": 0.02, \"mass\": 0.016, \"bodies\": true,"
                 "    \"fill\": { \"shape\": \"box\", \"min\": [0.1, 0.5, 0.1], \"max\": [0.2, 0.6, 0.2] } } ],"
                 "  \"systems\": [ { \"name\": \"rigid\", \"module\": \"rigid\", \"set\": \"b\","
                 "      \"params\": { \"stiffness\": 2000, \"damping\": 40, \"wall_stiffness\": %.9g } } ] }", dt, kw[c]);
        test_clear_error();
        eddy_scene *s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "heavy-drop", .json = json, .no_output = true });
        if (!s) {
            bool soft = test_saw("system.walls_too_soft"), unstable = test_saw("system.unstable");
            printf("heavy drop, wall_stiffness %g N/m: refused (%s)\n", kw[c], soft ? "walls too soft" : "unstable");
            CHECKF(kw[c] < need ? soft : unstable, "wall_stiffness %g N/m: refused with '%s'", kw[c], test_last_error);
            continue;
        }
        CHECKF(kw[c] >= need && kw[c] < 1e6, "wall_stiffness %g N/m: not refused", kw[c]);
        eddy_particles set = eddy_find_particles(e, "b");
        uint32_t n = eddy_particles_count(e, set), steps = (uint32_t)(1.2 / dt), done = 0, flagged = 0;
        float *pos = malloc(16ull * n);
        uint32_t *cl = malloc(4ull * n);
        REQUIRE(pos && cl);
        double lowest = 1;
        bool inside = true;
        while (done < steps) {
            uint32_t k = steps - done < 200 ? steps - done : 200;
            CHECK(eddy_scene_step(s, k) == EDDY_OK);
            done += k;
            CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "position"), 0, 16ull * n, pos) == EDDY_OK);
            for (uint32_t i = 0; i < n; i++) {
                lowest = fmin(lowest, pos[4 * i + 1]);
                for (int a = 0; a < 3; a++)
                    inside = inside && pos[4 * i + a] >= 0 && pos[4 * i + a] <= (a == 1 ? 0.8f : 0.3f);
            }
        }
        CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "clamped"), 0, 4ull * n, cl) == EDDY_OK);
        for (uint32_t i = 0; i < n; i++)
            flagged += cl[i] != 0;
        struct eddy_rigid_body *b;
        bodies_of(e, "b", &b, 1);
        double speed = sqrt(b[0].v[0] * b[0].v[0] + b[0].v[1] * b[0].v[1] + b[0].v[2] * b[0].v[2]);
        /* At rest the 25 bottom springs carry M g with overlap M g / (25 k_w)
         * (at most d): the bottom centres at (d - overlap) / 2. */
        double overlap = fmin(2.0 * 9.81 / (25 * kw[c]), 0.02), y = 0.04 + 0.5 * (0.02 - overlap);
        printf("heavy drop, wall_stiffness %g N/m, dt %.3g s: centre at %.4f m after 1.2 s (at rest: %.4f m), speed "
               "%.2g m/s, lowest particle centre %.4f m, %u particle(s) flagged by the box limit\n", kw[c], dt,
               b[0].x[1], y, speed, lowest, flagged);
        CHECKF(inside, "wall_stiffness %g: a particle centre was outside the box at the end of a step", kw[c]);
        CHECKF(fabs(b[0].x[1] - y) < 0.002, "wall_stiffness %g: centre at %g m, not resting (%g m)", kw[c], b[0].x[1], y);
        CHECKF(speed < 0.01, "wall_stiffness %g: still moving at %g m/s", kw[c], speed);
        free(b), free(pos), free(cl);
        eddy_destroy_scene(s);
    }
}

/* DEM restitution against the spring-dashpot formula: a grain (m 0.01 kg,
 * d 2 cm) at 1 m/s onto the floor without gravity. Its wall contact is a
 * spring on the overlap d - 2 (y - wall) and a dashpot eta on its velocity,
 * m u'' = -2 k_w u - eta u' for the centre's way u into the contact zone,
 * so it leaves at e = exp(-pi zeta / sqrt(1 - zeta^2)) of its speed,
 * zeta = eta / (2 sqrt(2 k_w m)) (the contact ends where the overlap does;
 * the linear dashpot pulls a little at the end, as the formula assumes).
 * Within 0.01 at dt 1e-5 s (about 700 steps a contact). */
static void restitution(eddy_engine *e)
{
    const double m = 0.01, kw = 1000, etas[] = { 0, 0.5, 2, 5 };
    validation_csv csv = validation_csv_open("dem_restitution",
        "a grain (m 0.01 kg, d 0.02 m) at 1 m/s onto the floor of the rigid module's box walls (k_w 1000 N/m), no "
        "gravity: the speed it leaves with over the speed it came with; reference: the linear spring-dashpot "
        "exp(-pi zeta / sqrt(1 - zeta^2)), zeta = eta / (2 sqrt(2 k_w m))", "damping_eta,zeta,e_eddy,e_formula");
    for (size_t c = 0; c < sizeof etas / sizeof etas[0]; c++) {
        snprintf(json, sizeof json,
                 "{ \"dt\": 1e-5, \"duration\": 0.02, \"box\": { \"min\": [0, 0, 0], \"max\": [0.2, 0.2, 0.2] },"
                 "  \"particle_sets\": [ { \"name\": \"g\", \"radius\": 0.01, \"mass\": %g, \"velocity\": [0, -1, 0],"
                 "    \"points\": [[0.1, 0.012, 0.1]] } ],"
                 "  \"systems\": [ { \"name\": \"rigid\", \"module\": \"rigid\", \"set\": \"g\","
                 "      \"params\": { \"granular\": true, \"stiffness\": %g, \"damping\": %g, \"shear\": 0,"
                 "                    \"gravity\": [0, 0, 0] } } ] }", m, kw, etas[c]);
        eddy_scene *s = load(e, json);
        CHECK(eddy_scene_step(s, 2000) == EDDY_OK);
        float v[4];
        CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, eddy_find_particles(e, "g"), "velocity"), 0, 16, v) ==
              EDDY_OK);
        double zeta = etas[c] / (2 * sqrt(2 * kw * m)), ref = exp(-M_PI * zeta / sqrt(1 - zeta * zeta));
        printf("restitution: damping %g N s/m (zeta %.3f): the grain leaves at %.4f of its speed, the spring-dashpot "
               "formula %.4f\n", etas[c], zeta, v[1], ref);
        CHECKF(fabs(v[1] - ref) < 0.01, "damping %g: restitution %g, formula %g", etas[c], v[1], ref);
        if (csv.f)
            fprintf(csv.f, "%g,%.4f,%.4f,%.4f\n", etas[c], zeta, v[1], ref);
        eddy_destroy_scene(s);
    }
    validation_csv_close(&csv);
}

static void settles(eddy_engine *e)
{
    /* 18 cubes of 27 particles dropped in a tight box. */
    const char *text =
        "{ \"dt\": 0.0003, \"duration\": 4, \"box\": { \"min\": [0, 0, 0], \"max\": [0.2, 0.4, 0.2] },"
        "  \"particle_sets\": [ { \"name\": \"b\", \"spacing\": 0.02, \"bodies\": true, \"fill\": ["
        "    { \"shape\": \"box\", \"min\": [0.01, 0.02, 0.01], \"max\": [0.07, 0.08, 0.07],"
        "      \"copies\": { \"count\": [3, 2, 3], \"step\": [0.065, 0.08, 0.065] } } ] } ],"
        "  \"systems\": [ { \"name\": \"rigid\", \"module\": \"rigid\", \"set\": \"b\","
        "      \"params\": { \"stiffness\": 2000 } } ] }";
    eddy_scene *s = load(e, text);
    CHECK(eddy_scene_step(s, 6667) == EDDY_OK);
    struct eddy_rigid_body *b0, *b1;
    bodies_of(e, "b", &b0, 18);
    CHECK(eddy_scene_step(s, 6667) == EDDY_OK);
    bodies_of(e, "b", &b1, 18);
    double worst = 0, vmax = 0, top = 0;
    for (int k = 0; k < 18; k++) {
        top = fmax(top, b1[k].x[1]);
        double d2 = 0;
        for (int a = 0; a < 3; a++) {
            d2 += (b1[k].x[a] - b0[k].x[a]) * (b1[k].x[a] - b0[k].x[a]);
            vmax = fmax(vmax, fabs(b1[k].v[a]));
        }
        worst = fmax(worst, sqrt(d2));
    }
    printf("settling: 18 cubes, from 2 s to 4 s the largest move is %.3g m (1%% of d = 2e-4 m); speeds below %.3g m/s; "
           "the highest centre at %.4f m (two layers of 0.06 m cubes: 0.09)\n", worst, vmax, top);
    CHECKF(top < 0.1, "a cube did not come down (centre at %g m)", top);
    CHECKF(worst <= 0.01 * 0.02, "a body moved %g m", worst);
    free(b0), free(b1);
    eddy_destroy_scene(s);
}

static void granular_pile(eddy_engine *e)
{
    /* A stepped cone of sand (45 degrees, 772 grains of 2 cm at 2600 kg/m^3,
     * jittered) slumps to its angle of repose. */
    char fills[4096] = "";
    for (int k = 0; k < 8; k++)
        snprintf(fills + strlen(fills), sizeof fills - strlen(fills),
                 "%s{ \"shape\": \"cylinder\", \"center\": [0.3, %g, 0.3], \"radius\": %g, \"height\": 0.02, \"jitter\": 0.2 }",
                 k ? "," : "", 0.02 * k, 0.17 - 0.02 * k);
    snprintf(json, sizeof json,
             "{ \"dt\": 0.00045, \"duration\": 6, \"box\": { \"min\": [0, 0, 0], \"max\": [0.6, 0.5, 0.6] },"
             "  \"particle_sets\": [ { \"name\": \"sand\", \"spacing\": 0.02, \"mass\": 0.0208, \"fill\": [ %s ] } ],"
             "  \"systems\": [ { \"name\": \"sand\", \"module\": \"rigid\", \"set\": \"sand\","
             "      \"params\": { \"granular\": true, \"stiffness\": 2000, \"shear\": 1, \"friction\": 0.5 } } ] }", fills);
    eddy_scene *s = load(e, json);
    eddy_particles set = eddy_find_particles(e, "sand");
    uint32_t n = eddy_particles_count(e, set);
    float *a = malloc(16ull * n), *b = malloc(16ull * n);
    REQUIRE(a && b);
    CHECK(eddy_scene_step(s, 11111) == EDDY_OK); /* 5 s */
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "position"), 0, 16ull * n, a) == EDDY_OK);
    CHECK(eddy_scene_step(s, 2222) == EDDY_OK);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, set, "position"), 0, 16ull * n, b) == EDDY_OK);
    /* The surface: the highest particle per 2 cm ring around the axis. */
    double top[16] = { 0 }, moved = 0;
    for (uint32_t i = 0; i < n; i++) {
        const float *x = b + 4 * i;
        double d2 = 0;
        for (int k = 0; k < 3; k++)
            d2 += (b[4 * i + k] - a[4 * i + k]) * (b[4 * i + k] - a[4 * i + k]);
        if (getenv("EDDY_TEST_VERBOSE") && sqrt(d2) > 0.002)
            printf("  particle %u moved %.4f m: (%.3f %.3f %.3f) -> (%.3f %.3f %.3f)\n", i, sqrt(d2), a[4 * i], a[4 * i + 1],
                   a[4 * i + 2], x[0], x[1], x[2]);
        moved = fmax(moved, sqrt(d2));
        int ring = (int)(hypot(x[0] - 0.3, x[2] - 0.3) / 0.02);
        if (ring < 16)
            top[ring] = fmax(top[ring], x[1]);
    }
    double peak = 0;
    for (int k = 0; k < 16; k++)
        peak = fmax(peak, top[k]);
    /* The slope: a line through the rings whose top is between 20% and 80%
     * of the peak, outside the peak. */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int m = 0, kpeak = 0;
    for (int k = 0; k < 16; k++)
        if (top[k] == peak)
            kpeak = k;
    for (int k = kpeak; k < 16; k++)
        if (top[k] > 0.2 * peak && top[k] < 0.8 * peak) {
            double r = 0.02 * (k + 0.5);
            sx += r, sy += top[k], sxx += r * r, sxy += r * top[k], m++;
        }
    double slope = m >= 3 ? (m * sxy - sx * sy) / (m * sxx - sx * sx) : 0, angle = atan(-slope) * 180 / M_PI;
    printf("granular pile: %u particles (mu 0.5): a 45-degree cone slumps to a heap %.3f m high with a %.1f-degree "
           "slope (%d rings); in the last second no particle moved more than %.3g m\n", n, peak, angle, m, moved);
    CHECKF(m >= 3 && angle > 15 && angle < 40, "slope %.1f degrees from %d rings", angle, m);
    CHECKF(moved <= 0.01 * 0.02, "a particle moved %g m in the last second", moved);
    free(a), free(b);
    eddy_destroy_scene(s);
}

/* The inertia a coupled fluid weighs each particle with (rigid.inverse_mass):
 * a 4x4x4 cube of 2 g particles has 56 surface particles, so 56 / 0.128 kg;
 * a body of one particle 1 / m; granular, 1 / m each. */
static void fluid_inverse_mass(void)
{
    enum { N = 65 };
    float pos[4 * N], mass[N], out[N];
    const double d = 0.01;
    for (int i = 0; i < N; i++) {
        pos[4 * i] = (float)(0.3 + d * (i % 4));
        pos[4 * i + 1] = (float)(0.2 + d * (i / 4 % 4));
        pos[4 * i + 2] = (float)(0.1 + d * (i / 16 % 4) + (i == 64 ? 0.1 : 0));
        pos[4 * i + 3] = (float)(d / 2);
        mass[i] = i == 64 ? 0.005f : 0.002f;
    }
    const uint32_t offsets[3] = { 0, 64, 65 };
    eddy_rigid_fluid_inverse_mass(N, pos, mass, offsets, 2, d, false, out);
    for (int i = 0; i < 64; i++)
        CHECKF(fabsf(out[i] - 56 / 0.128f) < 1e-3f, "cube particle %d: %g 1/kg, expected %g", i, out[i], 56 / 0.128);
    CHECKF(fabsf(out[64] - 200) < 1e-3f, "one-particle body: %g 1/kg, expected 200", out[64]);
    eddy_rigid_fluid_inverse_mass(N, pos, mass, NULL, 0, d, true, out);
    CHECKF(fabsf(out[0] - 500) < 1e-3f && fabsf(out[64] - 200) < 1e-3f, "granular: %g and %g 1/kg, expected 500 "
           "and 200", out[0], out[64]);
}

int main(int argc, char **argv)
{
    fluid_inverse_mass();
    REQUIRE(argc > 1);
    eddy_engine *e = test_engine();
    /* Parts from argv[2] on (tests/meson.build): cpu, spin, flip, head_on, settles, past_wall, heavy_drop, restitution, granular. */
    if (test_part(argc, argv, 2, "cpu"))
        against_cpu(e, argv[1]);
    if (test_part(argc, argv, 2, "spin"))
        spinning(e, argv[1]);
    if (test_part(argc, argv, 2, "flip"))
        flip(e);
    if (test_part(argc, argv, 2, "head_on"))
        head_on(e);
    if (test_part(argc, argv, 2, "settles"))
        settles(e);
    if (test_part(argc, argv, 2, "past_wall"))
        past_wall(e);
    if (test_part(argc, argv, 2, "heavy_drop"))
        heavy_drop(e);
    if (test_part(argc, argv, 2, "restitution"))
        restitution(e);
    if (test_part(argc, argv, 2, "granular"))
        granular_pile(e);
    test_finish(e);
    return test_report("rigid");
}
