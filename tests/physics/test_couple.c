/* Fluid-rigid coupling (modules/couple with pbf and sph; Harada ch. 29 section
 * 29.3.3): the rigid set's particles are boundary particles of the fluid's
 * density constraints and the fluid's force on them goes to the bodies.
 *  - GPU against the C step (eddy_pbf_step_coupled_cpu): a block of water
 *    falling on a slab of boundary particles that moves up (its velocity
 *    only predicts where it will be), 700 + 162 particles, 15 steps from the
 *    GPU's state each: fluid positions within 1e-5 of the box size and the
 *    force on every boundary particle within 1e-3 of the largest;
 *  - the same with a sheet (a cloth's triangles the fluid is kept off):
 *    eddy_couple_sheet_cpu in the C step, fluid positions and the
 *    vertices' impulses;
 *  - momentum: a cube thrown at 1 m/s through a ball of water, no gravity,
 *    far from the walls: fluid plus body momentum conserved within 1e-4 of
 *    the initial momentum over 0.2 s, and the body handed at least 10% of
 *    its momentum to the fluid;
 *  - buoyancy: a cube of boundary particles held still at mid depth in a
 *    tank feels the water's upward force within 10% of Archimedes' at 4
 *    particles across and within 3% at 6, closer at 6 (pbf and sph);
 *  - the same three with sph (Akinci-style boundary particles in the density
 *    and pressure force): GPU against eddy_sph_step_coupled_cpu (1,000 +
 *    162 particles, 20 steps), momentum of the cube through the ball (the
 *    ball's viscosity 10 Pa s keeps its free surface from blowing up), the
 *    held cube's buoyancy within 10% after 1.5 s in a 16-particle-wide tank;
 *  - the same with IISPH and DFSPH (their solved pressure, the boundary's
 *    velocity in the predicted density): GPU against the C step, momentum;
 *  - momentum counts what a body's added mass holds back (modules/rigid).
 * Floating and sinking bodies: test_couple_float.c.
 */
#include "couple_tank.h"
#include "couple/couple.h"
#include "pbf/pbf.h"
#include "sph/sph.h"
#include "validation_csv.h"

#include <math.h>

/* One scene step against the C step just taken (pos, vel, force): the
 * largest position difference (m) into dev[0], boundary force difference
 * (N) into dev[1], largest force into dev[2]; then the C side takes the
 * GPU's state. */
static void step_against(eddy_engine *e, eddy_scene *s, eddy_particles w, eddy_particles b, float *pos,
                         float *vel, const float *force, double dev[3])
{
    uint32_t n = eddy_particles_count(e, w), nb = eddy_particles_count(e, b);
    CHECK(eddy_scene_step(s, 1) == EDDY_OK);
    float *gpos = download(e, w, "position", 4), *gvel = download(e, w, "velocity", 4);
    float *gext = download(e, b, "rigid.external.0", 4);
    for (uint32_t i = 0; i < 4 * n; i++)
        dev[0] = fmax(dev[0], fabs((double)gpos[i] - pos[i]));
    for (uint32_t i = 0; i < 4 * nb; i++) {
        dev[1] = fmax(dev[1], fabs((double)gext[i] - force[i]));
        dev[2] = fmax(dev[2], fabs((double)force[i]));
    }
    memcpy(pos, gpos, 16ull * n);
    memcpy(vel, gvel, 16ull * n);
    free(gpos), free(gvel), free(gext);
}

/* Positions within 1e-5 of the 0.4 m box, forces within 1e-3 of the largest. */
static void report_against(const char *what, const double dev[3])
{
    CHECKF(dev[2] > 1e-3, "%s: the slab felt no force (largest %g N)", what, dev[2]);
    CHECKF(dev[0] <= 1e-5 * 0.4, "%s: largest position difference %g m in one step (tolerance %g)", what, dev[0], 4e-6);
    CHECKF(dev[1] <= 1e-3 * dev[2], "%s: largest boundary force difference %g N (largest %g N)", what, dev[1], dev[2]);
    printf("%s: positions within %.3g m, boundary forces within %.3g N of %.3g N\n", what, dev[0], dev[1], dev[2]);
}

static void against_cpu(eddy_engine *e)
{
    const char *json =
        "{ \"dt\": 0.004, \"duration\": 1, \"box\": { \"min\": [0, 0, 0], \"max\": [0.4, 0.4, 0.4] },"
        "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": 0.02, "
        "      \"fill\": { \"shape\": \"box\", \"min\": [0.1, 0.1, 0.1], \"max\": [0.3, 0.24, 0.3] } },"
        "    { \"name\": \"slab\", \"spacing\": 0.02, \"fill\": { \"shape\": \"box\", \"min\": [0.12, 0.02, 0.12],"
        "      \"max\": [0.3, 0.06, 0.3], \"velocity\": [0, 0.5, 0.1] } } ],"
        "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"pbf\", \"sets\": { \"fluid\": \"water\", \"boundary\": \"slab\" },"
        "      \"params\": { \"h\": 0.04 } } ] }";
    eddy_scene *s = load(e, json);
    eddy_particles w = eddy_find_particles(e, "water"), b = eddy_find_particles(e, "slab");
    uint32_t n = eddy_particles_count(e, w), nb = eddy_particles_count(e, b);
    REQUIRE(n == 700 && nb == 162);
    float *pos = download(e, w, "position", 4), *vel = download(e, w, "velocity", 4), *mass = download(e, w, "mass", 1);
    float *bpos = download(e, b, "position", 4), *bvel = download(e, b, "velocity", 4);
    float *rho = malloc(4ull * n), *boundary = malloc(16ull * nb), *force = malloc(16ull * nb);
    float *binv = malloc(4ull * nb);
    REQUIRE(rho && boundary && force && binv);
    /* Half the slab yields like bodies of 1 g a particle (an eighth of a
     * fluid particle), half is fixed: the mass-weighted projection in both. */
    for (uint32_t i = 0; i < nb; i++)
        binv[i] = i % 2 ? 1.0f / 0.001f : 0.0f;
    CHECK(eddy_buffer_upload(e, eddy_particles_buffer(e, b, "rigid.inverse_mass"), 0, 4ull * nb, binv) == EDDY_OK);
    const eddy_module_desc *md = eddy_pbf_module();
    eddy_param_value values[64]; /* room for any module's parameters (the scene loader's limit) */
    for (uint32_t i = 0; i < md->param_count; i++)
        memcpy(values[i].v, md->params[i].def, sizeof values[i].v);
    struct eddy_pbf_params prm;
    const float lo[3] = { 0, 0, 0 }, hi[3] = { 0.4f, 0.4f, 0.4f };
    eddy_pbf_params_from_values(&prm, values, lo, hi, 0.004, n, 0);
    struct eddy_couple_params cp = { .misc = { 0.04f, 0.004f, eddy_couple_mass_weight(4) } };
    for (uint32_t i = 0; i < nb; i++) {
        for (int a = 0; a < 3; a++)
            boundary[4 * i + a] = bpos[4 * i + a] + 0.004f * bvel[4 * i + a];
        boundary[4 * i + 3] = eddy_couple_volume(bpos[4 * i + 3]);
    }
    double dev[3] = { 0, 0, 0 };
    for (int step = 0; step < 15; step++) {
        eddy_pbf_step_coupled_cpu(&prm, NULL, 4, n, pos, vel, mass, rho, NULL, &cp, nb, boundary, binv, force, NULL);
        step_against(e, s, w, b, pos, vel, force, dev);
    }
    report_against("pbf, GPU vs CPU, 700 fluid + 162 boundary particles, 15 steps from the same state", dev);
    free(pos), free(vel), free(mass), free(bpos), free(bvel), free(rho), free(boundary), free(force), free(binv);
    eddy_destroy_scene(s);
}

/* pbf with a sheet (a cloth's triangles in the boundary slot, no system
 * moving it, held at rest; half its vertices yield like 1/m, half are
 * fixed) against the C step with eddy_couple_sheet_cpu: 128 particles at
 * 1 m/s falling onto a 0.2 m sheet of 289 vertices, 12 substeps of 2 ms
 * from the GPU's state each: fluid positions within 1e-5 of the box, and each vertex's impulse
 * (its velocity change, dt F / m, the fluid's force applied by
 * couple.sheet_apply) within 1e-3 of the largest. */
static void against_cpu_sheet(eddy_engine *e)
{
    const double dt = 0.002, h = 0.025;
    char json[2048];
    snprintf(json, sizeof json,
             "{ \"dt\": %g, \"duration\": 1, \"box\": { \"min\": [0, 0, 0], \"max\": [0.3, 0.3, 0.3] },"
             "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": 0.0125, \"velocity\": [0, -1, 0],"
             "      \"fill\": { \"shape\": \"box\", \"min\": [0.1, 0.11, 0.1], \"max\": [0.2, 0.135, 0.2] } },"
             "    { \"name\": \"sheet\", \"radius\": 0.005, \"cloth\": { \"grid\": { \"size\": [0.2, 0.2],"
             "      \"resolution\": [16, 16] }, \"center\": [0.15, 0.1, 0.15], \"density\": 2 } } ],"
             "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"pbf\", \"sets\": { \"fluid\": \"water\","
             " \"boundary\": \"sheet\" }, \"params\": { \"h\": %g } } ] }", dt, h);
    eddy_scene *s = load(e, json);
    eddy_particles w = eddy_find_particles(e, "water"), b = eddy_find_particles(e, "sheet");
    uint32_t n = eddy_particles_count(e, w), nb = eddy_particles_count(e, b);
    eddy_elements tri = eddy_particles_elements(e, b, "triangles");
    float *pos = download(e, w, "position", 4), *vel = download(e, w, "velocity", 4), *mass = download(e, w, "mass", 1);
    float *bpos = download(e, b, "position", 4), *bvel = download(e, b, "velocity", 4), *bm = download(e, b, "mass", 1);
    float *rho = malloc(4ull * n), *boundary = malloc(16ull * nb), *force = malloc(16ull * nb);
    float *binv = malloc(4ull * nb);
    uint32_t *idx = malloc(12ull * tri.count), *tris = malloc(16ull * tri.count);
    REQUIRE(rho && boundary && force && binv && idx && tris);
    for (uint32_t i = 0; i < nb; i++)
        binv[i] = i % 2 ? 1.0f / bm[i] : 0.0f;
    CHECK(eddy_buffer_upload(e, eddy_particles_buffer(e, b, "rigid.inverse_mass"), 0, 4ull * nb, binv) == EDDY_OK);
    CHECK(eddy_buffer_download(e, tri.buffer, 0, 12ull * tri.count, idx) == EDDY_OK);
    /* The triangles as couple.c makes them: tau the corners' mean radius. */
    for (uint32_t t = 0; t < tri.count; t++) {
        double r = 0;
        for (int a = 0; a < 3; a++) {
            tris[4 * t + a] = idx[3 * t + a];
            r += 0.5 * cbrt(eddy_couple_volume(bpos[4 * idx[3 * t + a] + 3])) / 3;
        }
        float tau = (float)r;
        memcpy(&tris[4 * t + 3], &tau, 4);
    }
    const eddy_module_desc *md = eddy_pbf_module();
    eddy_param_value values[64]; /* room for any module's parameters (the scene loader's limit) */
    for (uint32_t i = 0; i < md->param_count; i++) {
        memcpy(values[i].v, md->params[i].def, sizeof values[i].v);
        if (!strcmp(md->params[i].name, "h"))
            values[i].v[0] = h;
    }
    struct eddy_pbf_params prm;
    const float lo[3] = { 0, 0, 0 }, hi[3] = { 0.3f, 0.3f, 0.3f };
    eddy_pbf_params_from_values(&prm, values, lo, hi, dt, n, 0);
    uint32_t iterations = eddy_pbf_iterations(values);
    struct eddy_couple_params cp = { .misc = { (float)h, (float)dt, eddy_couple_mass_weight(iterations) } };
    for (int a = 0; a < 3; a++)
        cp.grid[a] = prm.grid[a], cp.dims[a] = prm.dims[a];
    cp.grid[3] = prm.grid[3];
    const eddy_couple_sheets_cpu sheets = { tri.count, tris, bpos, binv };
    double dev[3] = { 0, 0, 0 }, kick = 0, largest = 0;
    uint32_t touched = 0;
    for (int step = 0; step < 12; step++) {
        /* No system moves the sheet: each substep starts it at rest, so its
         * velocity after the substep is that substep's impulse alone. */
        memset(bvel, 0, 16ull * nb);
        CHECK(eddy_buffer_upload(e, eddy_particles_buffer(e, b, "velocity"), 0, 16ull * nb, bvel) == EDDY_OK);
        for (uint32_t i = 0; i < nb; i++) {
            for (int a = 0; a < 3; a++)
                boundary[4 * i + a] = bpos[4 * i + a] + (float)dt * bvel[4 * i + a];
            boundary[4 * i + 3] = eddy_couple_volume(bpos[4 * i + 3]);
        }
        eddy_pbf_step_coupled_cpu(&prm, NULL, iterations, n, pos, vel, mass, rho, NULL, &cp, nb, boundary, binv,
                                  force, &sheets);
        CHECK(eddy_scene_step(s, 1) == EDDY_OK);
        float *gpos = download(e, w, "position", 4), *gvel = download(e, w, "velocity", 4);
        float *gb = download(e, b, "velocity", 4);
        for (uint32_t i = 0; i < 4 * n; i++) {
            dev[0] = fmax(dev[0], fabs((double)gpos[i] - pos[i]));
        }
        for (uint32_t i = 0; i < nb; i++)
            for (int a = 0; a < 3; a++) {
                double want = dt * force[4 * i + a] * binv[i], got = (double)gb[4 * i + a] - bvel[4 * i + a];
                kick = fmax(kick, fabs(got - want));
                largest = fmax(largest, fabs(want));
                touched += a == 1 && want != 0;
            }
        memcpy(pos, gpos, 16ull * n);
        memcpy(vel, gvel, 16ull * n);
        free(gpos), free(gvel), free(gb);
    }
    printf("pbf with a sheet, GPU vs CPU, %u fluid particles on a %u-vertex sheet, 12 substeps from the same state: "
           "positions within %.3g m, the vertices' impulses (velocity changes) within %.3g m/s of %.3g m/s (%u "
           "vertex-steps pushed)\n", n, nb, dev[0], kick, largest, touched);
    CHECKF(touched >= 50, "the sheet was pushed only %u times", touched);
    CHECKF(dev[0] <= 1e-5 * 0.3, "largest position difference %g m in one step (tolerance %g)", dev[0], 3e-6);
    CHECKF(kick <= 1e-3 * largest, "largest vertex velocity change difference %g m/s (largest %g)", kick, largest);
    free(pos), free(vel), free(mass), free(bpos), free(bvel), free(bm), free(rho), free(boundary), free(force);
    free(binv), free(idx), free(tris);
    eddy_destroy_scene(s);
}

/* sph: 1,000 particles thrown down on a slab of 162 boundary particles, 20
 * steps from the GPU's state each: positions within 1e-5 of the box, forces
 * within 1e-3 of the largest.
 *  - weakly compressible (iisph false), 0.5 ms steps: the boundary where it
 *    is (the forces are explicit);
 *  - IISPH, 2 ms steps: the slab moves up at 0.5 m/s (no system moves it:
 *    only its velocity enters the density the solve predicts), the last
 *    substep's pressure is also taken from the GPU, and the solved pressure
 *    must match within 1e-3 of the largest. */
static void against_cpu_sph(eddy_engine *e, int solver)
{
    const bool iisph = solver != 0; /* IISPH (1) or DFSPH (2): a solve */
    const double dt = iisph ? 0.002 : 0.0005;
    char json[2048];
    snprintf(json, sizeof json,
        "{ \"dt\": %g, \"duration\": 1, \"box\": { \"min\": [0, 0, 0], \"max\": [0.4, 0.4, 0.4] },"
        "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": 0.02, \"velocity\": [0, -1, 0.2],"
        "      \"fill\": { \"shape\": \"box\", \"min\": [0.1, 0.08, 0.1], \"max\": [0.3, 0.28, 0.3] } },"
        "    { \"name\": \"slab\", \"spacing\": 0.02, \"fill\": { \"shape\": \"box\", \"min\": [0.12, 0.02, 0.12],"
        "      \"max\": [0.3, 0.06, 0.3], \"velocity\": [0, 0.5, 0.1] } } ],"
        "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"sph\", \"sets\": { \"fluid\": \"water\", \"boundary\": \"slab\" },"
        "      \"params\": { \"h\": 0.04, \"viscosity\": 1, %s } } ] }", dt,
        solver == 2 ? "\"solver\": 2, \"normalise_density\": true"
        : iisph ? "\"solver\": 1, \"normalise_density\": true" : "\"stiffness\": 400, \"clamp_negative_pressure\": false");
    eddy_scene *s = load(e, json);
    eddy_particles w = eddy_find_particles(e, "water"), b = eddy_find_particles(e, "slab");
    uint32_t n = eddy_particles_count(e, w), nb = eddy_particles_count(e, b);
    REQUIRE(n == 1000 && nb == 162);
    float *pos = download(e, w, "position", 4), *vel = download(e, w, "velocity", 4), *mass = download(e, w, "mass", 1);
    float *bpos = download(e, b, "position", 4), *bvel = download(e, b, "velocity", 4);
    float *rho = malloc(4ull * n), *boundary = malloc(16ull * nb), *force = malloc(16ull * nb);
    /* IISPH starts from the GPU's warm start (the fill's hydrostatic pressure). */
    float *press = iisph ? download(e, w, "pressure", 1) : calloc(n, sizeof *press);
    REQUIRE(rho && boundary && force && press);
    const eddy_module_desc *md = eddy_sph_module();
    eddy_param_value values[64]; /* room for any module's parameters (the scene loader's limit) */
    for (uint32_t i = 0; i < md->param_count; i++) {
        const char *name = md->params[i].name;
        memcpy(values[i].v, md->params[i].def, sizeof values[i].v);
        if (!strcmp(name, "h"))
            values[i].v[0] = 0.04;
        if (!strcmp(name, "viscosity"))
            values[i].v[0] = 1;
        if (!iisph && !strcmp(name, "stiffness"))
            values[i].v[0] = 400;
        if (!iisph && !strcmp(name, "clamp_negative_pressure"))
            values[i].v[0] = 0;
        if (iisph && !strcmp(name, "normalise_density"))
            values[i].v[0] = 1;
        if (!strcmp(name, "solver"))
            values[i].v[0] = solver;
    }
    struct eddy_sph_params prm;
    const float lo[3] = { 0, 0, 0 }, hi[3] = { 0.4f, 0.4f, 0.4f };
    eddy_sph_params_from_values(&prm, values, lo, hi, dt, n, 0);
    /* Weakly compressible: the symmetric pressure force with negative
     * pressure kept (in 20 steps the falling block is not yet pressed
     * against the slab, and clamped pressure would leave no force to
     * compare). IISPH: the solved pressure (flag 4), clamped (flag 1). */
    struct eddy_couple_params cp = { .misc = { 0.04f, (float)dt, 1, 0 },
                                     .fluid = { prm.material[0], 1000, 0, iisph ? 1 + 4 : 0 },
                                     .gravity = { 0, -9.81f, 0 } };
    for (uint32_t i = 0; i < nb; i++) {
        memcpy(boundary + 4 * i, bpos + 4 * i, 12);
        boundary[4 * i + 3] = eddy_couple_volume(bpos[4 * i + 3]);
    }
    double dev[3] = { 0, 0, 0 }, pdev = 0, plargest = 0;
    uint32_t iterations = 0, most = 0;
    for (uint32_t step = 0; step < 20; step++) {
        memset(force, 0, 16ull * nb);
        if (iisph) /* IISPH or DFSPH: prm's solver */
            eddy_sph_step_iisph_coupled_cpu(&prm, NULL, n, pos, vel, mass, rho, press, step, &cp, nb, boundary, bvel,
                                            force, &iterations, NULL);
        else
            eddy_sph_step_coupled_cpu(&prm, NULL, n, pos, vel, mass, rho, step, &cp, nb, boundary, force);
        most = iterations > most ? iterations : most;
        step_against(e, s, w, b, pos, vel, force, dev);
        if (!iisph)
            continue;
        float *gp = download(e, w, "pressure", 1);
        for (uint32_t i = 0; i < n; i++) {
            pdev = fmax(pdev, fabs((double)gp[i] - press[i]));
            plargest = fmax(plargest, fabs((double)press[i]));
        }
        memcpy(press, gp, 4ull * n);
        free(gp);
    }
    if (iisph) {
        printf("%s pressure, GPU vs CPU: within %.3g Pa of %.4g Pa (up to %u iterations a substep)\n",
               solver == 2 ? "dfsph" : "iisph", pdev, plargest, most);
        CHECKF(plargest > 10 && pdev <= 1e-3 * plargest, "solver %d: pressure difference %g Pa (largest %g Pa)",
               solver, pdev, plargest);
    }
    report_against(solver == 2 ? "sph DFSPH, GPU vs CPU, 1,000 fluid + 162 moving boundary particles, 20 steps of "
                                 "2 ms from the same state"
                   : iisph ? "sph IISPH, GPU vs CPU, 1,000 fluid + 162 moving boundary particles, 20 steps of 2 ms "
                             "from the same state"
                           : "sph, GPU vs CPU, 1,000 fluid + 162 boundary particles, 20 steps from the same state", dev);
    free(pos), free(vel), free(mass), free(bpos), free(bvel), free(rho), free(boundary), free(force), free(press);
    eddy_destroy_scene(s);
}

static void momentum(const float *v, const float *m, uint32_t n, double out[3])
{
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++)
            out[a] += (double)m[i] * v[4 * i + a];
}

/* The momentum of the set's first body as the coupling conserves it: its
 * own P = M v and what its added mass (an sph fluid's) holds back, m_a a dt
 * ("rigid.added": xyz the last acceleration, w m_a; dt the rigid system's
 * substep; modules/rigid/README.md, Added mass). */
static void body_momentum(eddy_engine *e, eddy_particles b, double dt, double P[3])
{
    struct eddy_rigid_body body;
    float added[4] = { 0, 0, 0, 0 };
    body_state(e, b, &body);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, b, "rigid.added"), 0, sizeof added, added) == EDDY_OK);
    for (int a = 0; a < 3; a++)
        P[a] = body.p[a] + (double)added[3] * added[a] * dt;
}

/* A ball of water (radius 0.06 m) at rest and a 3x3x3 cube (d 0.016 m,
 * 1000 kg/m^3) at 1 m/s aimed through it, in a 1 m box, no gravity, for
 * `steps` scene steps of dt (0.2 s). The box is centred on the origin: float
 * positions near 0 keep the rounding of v = (x* - x) / dt (a 6e-8 m ulp at
 * 0.5 m: 2e-6 kg m/s a step with pbf) below the coupling's own error. */
static void conservation(eddy_engine *e, const char *module, const char *fluid, double dt, int substeps,
                         int steps)
{
    char json[4096];
    snprintf(json, sizeof json,
        "{ \"dt\": %g, \"substeps\": %d, \"duration\": 1, \"box\": { \"min\": [-0.5, -0.5, -0.5], \"max\": [0.5, 0.5, 0.5] },"
        "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": 0.016, "
        "      \"fill\": { \"shape\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 0.06 } },"
        "    { \"name\": \"cube\", \"spacing\": 0.016, \"mass\": 0.004096, \"bodies\": true, \"fill\": { \"shape\": \"box\","
        "      \"min\": [-0.14, -0.01, -0.02], \"max\": [-0.092, 0.038, 0.028], \"velocity\": [1, 0, 0] } } ],"
        "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"%s\", \"sets\": { \"fluid\": \"water\", \"boundary\": \"cube\" },"
        "      \"params\": { \"h\": 0.032, \"gravity\": [0, 0, 0] %s } },"
        "    { \"name\": \"rigid\", \"module\": \"rigid\", \"set\": \"cube\","
        "      \"params\": { \"stiffness\": 50, \"damping\": 0, \"shear\": 0, \"gravity\": [0, 0, 0] } } ] }",
        dt, substeps, module, fluid);
    eddy_scene *s = load(e, json);
    eddy_particles w = eddy_find_particles(e, "water"), b = eddy_find_particles(e, "cube");
    uint32_t n = eddy_particles_count(e, w);
    REQUIRE(eddy_particles_count(e, b) == 27);
    float *mass = download(e, w, "mass", 1);
    struct eddy_rigid_body body;
    body_state(e, b, &body);
    double P0 = body.p[0], worst = 0, lowest = P0;
    for (int step = 0; step < steps; step++) {
        CHECK(eddy_scene_step(s, 1) == EDDY_OK);
        float *v = download(e, w, "velocity", 4);
        double P[3] = { 0, 0, 0 };
        momentum(v, mass, n, P);
        body_state(e, b, &body);
        double Pb[3];
        body_momentum(e, b, dt / substeps, Pb);
        for (int a = 0; a < 3; a++)
            P[a] += Pb[a];
        worst = fmax(worst, sqrt((P[0] - P0) * (P[0] - P0) + P[1] * P[1] + P[2] * P[2]));
        lowest = fmin(lowest, body.p[0]);
        free(v);
    }
    CHECKF(lowest < 0.9 * P0, "the cube kept %g of its momentum %g kg m/s: it did not push the water", lowest, P0);
    CHECKF(worst <= 1e-4 * P0, "fluid + body momentum drifted by %g kg m/s (tolerance %g)", worst, 1e-4 * P0);
    printf("%s, momentum: %u fluid particles and a 27-particle cube at %g kg m/s: the cube down to %.3g kg m/s, "
           "total within %.3g kg m/s (%.2g relative) over 0.2 s\n", module, n, P0, lowest, worst, worst / P0);
    free(mass);
    eddy_destroy_scene(s);
}

/* Couplings that scale: the momentum of every fluid and body of a scene
 * (fluid sets by name, bodies: one per set), conserved within 1e-4 of the
 * bodies' summed |momentum| over `steps` steps, each body handing at least
 * 10% of its momentum on; and a second run of the same scene ends bitwise
 * where the first did (positions and velocities of every set). */
static void multi_conservation(eddy_engine *e, const char *what, const char *json, const char *const *fluids,
                               int nf, const char *const *bodies, int nbodies, int steps, double body_dt)
{
    float *end[2][8];
    uint32_t bytes[8];
    double worst = 0, scale = 0, lowest[4], P0[4][3];
    const char *names[8];
    int sets = 0;
    REQUIRE(nbodies <= 4 && nf + nbodies <= 8);
    for (int k = 0; k < nf; k++)
        names[sets++] = fluids[k];
    for (int k = 0; k < nbodies; k++)
        names[sets++] = bodies[k];
    for (int run = 0; run < 2; run++) {
        eddy_scene *s = load(e, json);
        struct eddy_rigid_body body;
        double P0sum[3] = { 0, 0, 0 };
        for (int k = 0; k < nbodies; k++) {
            body_state(e, eddy_find_particles(e, bodies[k]), &body);
            for (int a = 0; a < 3; a++) {
                P0[k][a] = body.p[a];
                P0sum[a] += body.p[a];
            }
            lowest[k] = sqrt(P0[k][0] * P0[k][0] + P0[k][1] * P0[k][1] + P0[k][2] * P0[k][2]);
            if (run == 0)
                scale += lowest[k];
        }
        for (int step = 0; step < steps; step++) {
            CHECK(eddy_scene_step(s, 1) == EDDY_OK);
            if (run == 1)
                continue;
            double P[3] = { 0, 0, 0 };
            for (int k = 0; k < nf; k++) {
                eddy_particles w = eddy_find_particles(e, fluids[k]);
                float *m = download(e, w, "mass", 1), *v = download(e, w, "velocity", 4);
                momentum(v, m, eddy_particles_count(e, w), P);
                free(m), free(v);
            }
            for (int k = 0; k < nbodies; k++) {
                body_state(e, eddy_find_particles(e, bodies[k]), &body);
                double along = 0, Pb[3];
                body_momentum(e, eddy_find_particles(e, bodies[k]), body_dt, Pb);
                for (int a = 0; a < 3; a++) {
                    P[a] += Pb[a];
                    along += body.p[a] * P0[k][a];
                }
                /* Momentum left along the body's first direction. */
                lowest[k] = fmin(lowest[k], along / sqrt(P0[k][0] * P0[k][0] + P0[k][1] * P0[k][1] + P0[k][2] * P0[k][2]));
            }
            double d2 = 0;
            for (int a = 0; a < 3; a++)
                d2 += (P[a] - P0sum[a]) * (P[a] - P0sum[a]);
            worst = fmax(worst, sqrt(d2));
        }
        for (int k = 0; k < sets; k++) {
            eddy_particles p = eddy_find_particles(e, names[k]);
            uint32_t n = eddy_particles_count(e, p);
            bytes[k] = 16 * n;
            end[run][k] = malloc(2ull * bytes[k]);
            REQUIRE(end[run][k]);
            CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, p, "position"), 0, bytes[k], end[run][k]) == EDDY_OK);
            CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, p, "velocity"), 0, bytes[k],
                                       (char *)end[run][k] + bytes[k]) == EDDY_OK);
        }
        if (run == 0)
            for (int k = 0; k < nbodies; k++) {
                double p0 = sqrt(P0[k][0] * P0[k][0] + P0[k][1] * P0[k][1] + P0[k][2] * P0[k][2]);
                CHECKF(lowest[k] < 0.9 * p0, "%s: body '%s' kept %g of its momentum %g kg m/s", what, bodies[k],
                       lowest[k], p0);
                printf("%s: body '%s' from %.3g down to %.3g kg m/s\n", what, bodies[k], p0, lowest[k]);
            }
        eddy_destroy_scene(s);
    }
    CHECKF(worst <= 1e-4 * scale, "%s: fluids + bodies momentum drifted by %g kg m/s (tolerance %g)", what, worst,
           1e-4 * scale);
    int same = 0;
    for (int k = 0; k < sets; k++) {
        bool eq = !memcmp(end[0][k], end[1][k], 2ull * bytes[k]);
        CHECKF(eq, "%s: set '%s' differs between two runs of the same scene", what, names[k]);
        same += eq;
        free(end[0][k]), free(end[1][k]);
    }
    printf("%s: momentum within %.3g kg m/s (%.2g of %.3g) over %d steps; %d of %d sets bitwise identical on a rerun\n",
           what, worst, worst / scale, scale, steps, same, sets);
}

/* One rigid set the boundary of a pbf fluid and an sph fluid: two balls of
 * water in the same place that do not see each other (two systems), a cube
 * at 1 m/s through both. Each fluid writes its own slice of the cube's
 * forces (rigid.external.0 and .1), which the rigid system sums. */
static void shared_boundary(eddy_engine *e)
{
    char json[4096];
    snprintf(json, sizeof json,
        "{ \"dt\": 0.0005, \"duration\": 1, \"box\": { \"min\": [-0.5, -0.5, -0.5], \"max\": [0.5, 0.5, 0.5] },"
        "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": 0.016, "
        "      \"fill\": { \"shape\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 0.06 } },"
        "    { \"name\": \"oil\", \"spacing\": 0.016, "
        "      \"fill\": { \"shape\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 0.06 } },"
        "    { \"name\": \"cube\", \"spacing\": 0.016, \"mass\": 0.004096, \"bodies\": true, \"fill\": { \"shape\": \"box\","
        "      \"min\": [-0.14, -0.01, -0.02], \"max\": [-0.092, 0.038, 0.028], \"velocity\": [1, 0, 0] } } ],"
        "  \"systems\": [ { \"name\": \"pbf\", \"module\": \"pbf\", \"sets\": { \"fluid\": \"water\", \"boundary\": \"cube\" },"
        "      \"params\": { \"h\": 0.032, \"gravity\": [0, 0, 0] } },"
        "    { \"name\": \"sph\", \"module\": \"sph\", \"sets\": { \"fluid\": \"oil\", \"boundary\": \"cube\" },"
        "      \"params\": { \"h\": 0.032, \"gravity\": [0, 0, 0], \"stiffness\": 400, \"viscosity\": 10, "
        "                  \"surface_tension\": 0, \"pressure_force\": 1, \"clamp_negative_pressure\": false } },"
        "    { \"name\": \"rigid\", \"module\": \"rigid\", \"set\": \"cube\","
        "      \"params\": { \"stiffness\": 50, \"damping\": 0, \"shear\": 0, \"gravity\": [0, 0, 0] } } ] }");
    const char *fluids[] = { "water", "oil" }, *bodies[] = { "cube" };
    multi_conservation(e, "one set, boundary of pbf and sph", json, fluids, 2, bodies, 1, 400, 0.0005);
    /* Both slices are there, and both pushed. */
    eddy_scene *s = load(e, json);
    eddy_particles b = eddy_find_particles(e, "cube");
    CHECK(eddy_scene_step(s, 200) == EDDY_OK);
    for (int k = 0; k < 2; k++) {
        char name[32];
        snprintf(name, sizeof name, "rigid.external.%d", k);
        REQUIRE(eddy_particles_buffer(e, b, name).id);
        float *f = download(e, b, name, 4);
        double big = 0;
        for (uint32_t i = 0; i < 4 * eddy_particles_count(e, b); i++)
            big = fmax(big, fabs(f[i]));
        CHECKF(big > 1e-4, "slice %d of the cube's forces is empty", k);
        free(f);
    }
    CHECK(!eddy_particles_buffer(e, b, "rigid.external.2").id);
    eddy_destroy_scene(s);
}

/* One pbf fluid with two rigid sets in its boundary slot (one combined
 * boundary), each set its own rigid system: two cubes into a ball of water
 * from both sides, at 1 and 0.6 m/s. */
static void two_boundary_sets(eddy_engine *e)
{
    const char *json =
        "{ \"dt\": 0.002, \"substeps\": 2, \"duration\": 1, \"box\": { \"min\": [-0.5, -0.5, -0.5], \"max\": [0.5, 0.5, 0.5] },"
        "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": 0.016, "
        "      \"fill\": { \"shape\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 0.06 } },"
        "    { \"name\": \"left\", \"spacing\": 0.016, \"mass\": 0.004096, \"bodies\": true, \"fill\": { \"shape\": \"box\","
        "      \"min\": [-0.14, -0.01, -0.02], \"max\": [-0.092, 0.038, 0.028], \"velocity\": [1, 0, 0] } },"
        "    { \"name\": \"right\", \"spacing\": 0.016, \"mass\": 0.004096, \"bodies\": true, \"fill\": { \"shape\": \"box\","
        "      \"min\": [0.092, -0.03, -0.02], \"max\": [0.14, 0.018, 0.028], \"velocity\": [-0.6, 0, 0] } } ],"
        "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"pbf\", \"sets\": { \"fluid\": \"water\", \"boundary\": [\"left\", \"right\"] },"
        "      \"params\": { \"h\": 0.032, \"gravity\": [0, 0, 0] } },"
        "    { \"name\": \"rigid_left\", \"module\": \"rigid\", \"set\": \"left\","
        "      \"params\": { \"stiffness\": 50, \"damping\": 0, \"shear\": 0, \"gravity\": [0, 0, 0] } },"
        "    { \"name\": \"rigid_right\", \"module\": \"rigid\", \"set\": \"right\","
        "      \"params\": { \"stiffness\": 50, \"damping\": 0, \"shear\": 0, \"gravity\": [0, 0, 0] } } ] }";
    const char *fluids[] = { "water" }, *bodies[] = { "left", "right" };
    multi_conservation(e, "pbf with two boundary sets", json, fluids, 1, bodies, 2, 100, 0.001);
}

/* The cube held still (a set without a system): the mean force of the
 * water on it over the second half of `steps` scene steps against
 * Archimedes' rho0 g V (V: the boundary particles' volumes). (In a PBF
 * tank 10 particles wide around a cube 40% of its width, the water behaves
 * more like a lattice than a liquid: +39%.) */
static double held_body(eddy_engine *e, const tank *t, const char *module, const char *fluid, uint32_t steps,
                        double tolerance)
{
    char json[4096];
    const double d = t->d;
    tank_json(json, sizeof json, t, "", module, fluid, "");
    eddy_scene *s = load(e, json);
    eddy_particles b = eddy_find_particles(e, "cube");
    uint32_t nb = eddy_particles_count(e, b), nf = eddy_particles_count(e, eddy_find_particles(e, "water"));
    REQUIRE(nb == (uint32_t)(t->cells * t->cells * t->cells));
    double sum[3];
    const uint32_t from = steps / 2;
    mean_force(e, s, b, steps, sum);
    double V = nb * d * d * d, arch = 1000 * 9.81 * V;
    printf("%s, held body: a cube of %u boundary particles (V %.4g m^3) at mid depth in %u fluid particles: mean "
           "fluid force (%.3g, %.4g, %.3g) N over the last %.2g s, Archimedes %.4g N (%+.1f%%)\n", module, nb, V, nf,
           sum[0], sum[1], sum[2], (steps - from) * t->dt * t->substeps, arch, 100 * (sum[1] / arch - 1));
    CHECKF(sum[1] > 0 && fabs(sum[1] / arch - 1) < tolerance, "%s: buoyancy %g N, Archimedes %g N (tolerance %g%%)",
           module, sum[1], arch, 100 * tolerance);
    CHECKF(fabs(sum[0]) + fabs(sum[2]) < 0.1 * arch, "%s: sideways force (%g, %g) N", module, sum[0], sum[2]);
    eddy_destroy_scene(s);
    return sum[1] / arch - 1;
}

/* The held cube at two resolutions, 4 and 6 particles across it in the
 * same tank and fluid: within 10% at 4, within 3% at 6, and closer at 6
 * (the force converges as the body is resolved). */
static void held_two(eddy_engine *e, const tank *coarse, const char *module, const char *label, const char *fluid,
                     uint32_t steps)
{
    tank fine = *coarse;
    fine.cells = 6;
    double a = held_body(e, coarse, module, fluid, steps, 0.1), b = held_body(e, &fine, module, fluid, steps, 0.03);
    printf("%s, held body: %+.1f%% of Archimedes at %d particles across, %+.1f%% at %d\n", label, 100 * a,
           coarse->cells, 100 * b, fine.cells);
    char check[64], comment[256];
    snprintf(check, sizeof check, "archimedes_held_%s", label);
    snprintf(comment, sizeof comment, "a cube held at mid depth in a %s tank (spacing %g m): mean upward force of the "
             "fluid (N) against Archimedes' rho0 g V", label, coarse->d);
    validation_csv csv = validation_csv_open(check, comment, "particles_across,V_m3,F_eddy,F_archimedes");
    for (int k = 0; k < 2 && csv.f; k++) {
        int c = k ? fine.cells : coarse->cells;
        double V = pow(c * coarse->d, 3), arch = 1000 * 9.81 * V;
        fprintf(csv.f, "%d,%.6g,%.5g,%.5g\n", c, V, (1 + (k ? b : a)) * arch, arch);
    }
    validation_csv_close(&csv);
    CHECKF(fabs(b) < fabs(a), "%s: the error does not shrink from %d to %d particles across (%+.1f%%, %+.1f%%)", label,
           coarse->cells, fine.cells, 100 * a, 100 * b);
}

int main(int argc, char **argv)
{
    eddy_engine *e = test_engine();
    if (test_part(argc, argv, 1, "cpu")) {
        against_cpu(e);
        against_cpu_sph(e, 0);
    }
    if (test_part(argc, argv, 1, "cpu_iisph"))
        against_cpu_sph(e, 1);
    if (test_part(argc, argv, 1, "cpu_dfsph"))
        against_cpu_sph(e, 2);
    if (test_part(argc, argv, 1, "sheet_cpu"))
        against_cpu_sheet(e);
    if (test_part(argc, argv, 1, "momentum")) {
        conservation(e, "pbf", "", 0.002, 2, 100);
        conservation(e, "sph", ", \"stiffness\": 400, \"viscosity\": 10, \"surface_tension\": 0", 0.0005, 1, 400);
        conservation(e, "sph", ", \"solver\": 1, \"viscosity\": 10, \"surface_tension\": 0, \"normalise_density\": true",
                     0.002, 2, 100);
        conservation(e, "sph", ", \"solver\": 2, \"viscosity\": 10, \"surface_tension\": 0, \"normalise_density\": true",
                     0.002, 2, 100);
    }
    if (test_part(argc, argv, 1, "shared"))
        shared_boundary(e);
    if (test_part(argc, argv, 1, "two_sets"))
        two_boundary_sets(e);
    if (test_part(argc, argv, 1, "held_pbf"))
        held_two(e, &pbf_tank, "pbf", "pbf", ", \"xsph\": 0.1", 200);
    if (test_part(argc, argv, 1, "held_sph"))
        held_two(e, &sph_tank, "sph", "sph",
                 ", \"stiffness\": 1000, \"viscosity\": 100, \"restitution\": 0, \"normalise_density\": true", 8000);
    if (test_part(argc, argv, 1, "held_iisph")) {
        tank t = sph_tank;
        t.dt = 0.004;
        held_two(e, &t, "sph", "iisph", ", \"solver\": 1, \"viscosity\": 10, \"restitution\": 0, \"normalise_density\": true", 600);
    }
    test_finish(e);
    return test_report("couple");
}
