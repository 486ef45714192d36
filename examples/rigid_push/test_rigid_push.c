/* The rigid_push module's test, through the installed eddy's public API
 * only, with the built-in rigid module (gravity 0) moving the bodies:
 *  - "field": a box and a ball (125 and 130 particles, apart) under a
 *    uniform field a for 0.5 s: each centre of mass follows Newton,
 *    X(t) = X0 + V0 t + F t^2 / (2 M) with F the summed slice and M the
 *    body's mass;
 *  - "trap": a ball launched sideways in the trap (f = 1 Hz) with a field
 *    besides, for 1.3 periods (not a whole number, so a wrong frequency
 *    shows): X(t) = q + (X0 - q) cos(w t) + V0 / w sin(w t), q = p + a / w^2;
 * each against the exact solution within 5e-3 of the displacement or the
 * amplitude (the rigid system's symplectic Euler is first order: its error
 * is about dt / t = 2e-3 of the field's displacement and w dt / 2 = 3.1e-3 of
 * the trap's amplitude) and against the same integrator run in double on
 * the host within 1e-4 (float rounding); every particle
 * keeps its offset from the centre of mass within 1e-5 m (the force acts
 * through the centre of mass: no rotation); and at every substep the slice
 * the kernel wrote against its CPU reference (rigid_push_force_cpu) on the
 * positions it read, within 1e-6 of the largest force.
 * Exit 0: passed, 1: failed, 77: no Vulkan device (skipped). meson test runs
 * it with EDDY_VALIDATION=sync; any validation message fails it. */
#include <eddy/eddy_builtin.h>
#include <eddy/eddy_module.h>
#include <eddy/eddy_scene.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* From rigid_push.c, compiled into this program. */
const eddy_module_desc *eddy_module_entry(void);
void rigid_push_force_cpu(const float accel[4], const float anchor[4], const float position[4], float mass,
                          float force[4]);

#define DT 0.001
#define TEST_PI 3.14159265358979323846
#define MAX_BODIES 4

typedef struct push_case {
    const char *name;
    const char *fill;    /* the set's fills: one body each */
    double a[3], p[3], f; /* the module's parameters: m/s^2, m, Hz */
    uint32_t steps;
} push_case;

static const push_case cases[] = {
    { "field",
      "{ \"shape\": \"box\", \"min\": [-0.45, -0.05, -0.05], \"max\": [-0.35, 0.05, 0.05], \"velocity\": [0.2, 0, -0.1] },"
      "{ \"shape\": \"sphere\", \"center\": [0.3, 0.2, 0], \"radius\": 0.062, \"velocity\": [0, -0.3, 0] }",
      { 1.5, -0.5, 0.8 }, { 0, 0, 0 }, 0, 500 },
    { "trap",
      "{ \"shape\": \"sphere\", \"center\": [0.35, 0, 0], \"radius\": 0.062, \"velocity\": [0, 0.4, 0.2] }",
      { 0, 0.3, 0 }, { 0.1, 0, 0 }, 1, 1300 },
};

typedef struct bodies {
    uint32_t count;
    double m[MAX_BODIES], x[MAX_BODIES][3], v[MAX_BODIES][3];
} bodies;

/* Mass, centre of mass and velocity of each body (phase k = body k). */
static int body_state(uint32_t n, const float *pos, const float *vel, const float *mass, const uint32_t *phase,
                      bodies *b)
{
    *b = (bodies){ 0 };
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = phase[i];
        if (k >= MAX_BODIES)
            return 0;
        b->count = k + 1 > b->count ? k + 1 : b->count;
        b->m[k] += mass[i];
        for (int a = 0; a < 3; a++) {
            b->x[k][a] += (double)mass[i] * pos[4 * i + a];
            b->v[k][a] += (double)mass[i] * (vel ? vel[4 * i + a] : 0);
        }
    }
    for (uint32_t k = 0; k < b->count; k++)
        for (int a = 0; a < 3; a++) {
            b->x[k][a] /= b->m[k];
            b->v[k][a] /= b->m[k];
        }
    return b->count > 0;
}

/* The exact centre at t (m) and the motion's size (m): the displacement
 * without a trap, else the oscillation's amplitude. */
static double exact(const push_case *c, const double x0[3], const double v0[3], double t, double x[3])
{
    double w = 2 * TEST_PI * c->f, size2 = 0, amp2 = 0;
    for (int a = 0; a < 3; a++) {
        if (w == 0) {
            x[a] = x0[a] + v0[a] * t + c->a[a] * t * t / 2;
            size2 += (x[a] - x0[a]) * (x[a] - x0[a]);
        } else {
            double q = c->p[a] + c->a[a] / (w * w);
            x[a] = q + (x0[a] - q) * cos(w * t) + v0[a] / w * sin(w * t);
            amp2 += (x0[a] - q) * (x0[a] - q) + v0[a] * v0[a] / (w * w);
        }
    }
    return sqrt(w == 0 ? size2 : amp2);
}

typedef struct result {
    double kernel, exact, discrete, rotation; /* worst errors, as in the header */
    double size;                              /* m */
    uint32_t particles, bodies;
} result;

static double dist3(const double a[3], const double b[3])
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* Each step: the slice against the CPU reference on the positions before the
 * step, the same integrator in double (ref), and the particles' offsets. */
static int run_steps(eddy_engine *e, eddy_scene *s, const push_case *c, uint32_t n, float *pos, const float *mass,
                     const uint32_t *phase, bodies *ref, const double (*r0)[3], result *out)
{
    eddy_particles set = eddy_find_particles(e, "b");
    eddy_buffer pos_b = eddy_particles_buffer(e, set, "position");
    eddy_buffer slice_b = eddy_particles_buffer(e, set, "rigid.external.0");
    float *force = malloc(16ull * n);
    double w2 = pow(2 * TEST_PI * c->f, 2);
    const float accel[4] = { (float)c->a[0], (float)c->a[1], (float)c->a[2], 0 };
    const float anchor[4] = { (float)c->p[0], (float)c->p[1], (float)c->p[2], (float)w2 };
    int ok = force != NULL && slice_b.id != 0;
    for (uint32_t k = 0; ok && k < c->steps; k++) {
        ok = eddy_scene_step(s, 1) == EDDY_OK && eddy_buffer_download(e, slice_b, 0, 16ull * n, force) == EDDY_OK;
        double big = 0, df = 0;
        for (uint32_t i = 0; ok && i < n; i++) {
            float f[4];
            rigid_push_force_cpu(accel, anchor, pos + 4 * i, mass[i], f);
            for (int a = 0; a < 3; a++) {
                big = fmax(big, fabs(f[a]));
                df = fmax(df, fabs((double)force[4 * i + a] - f[a]));
            }
        }
        out->kernel = fmax(out->kernel, big > 0 ? df / big : df);
        /* Symplectic Euler as the rigid system steps: momentum, then position. */
        for (uint32_t b = 0; b < ref->count; b++)
            for (int a = 0; a < 3; a++) {
                ref->v[b][a] += (c->a[a] - w2 * (ref->x[b][a] - c->p[a])) * DT;
                ref->x[b][a] += ref->v[b][a] * DT;
            }
        ok = ok && eddy_buffer_download(e, pos_b, 0, 16ull * n, pos) == EDDY_OK;
        bodies now;
        ok = ok && body_state(n, pos, NULL, mass, phase, &now) && now.count == ref->count;
        for (uint32_t i = 0; ok && i < n; i++) {
            double r[3];
            for (int a = 0; a < 3; a++)
                r[a] = pos[4 * i + a] - now.x[phase[i]][a];
            out->rotation = fmax(out->rotation, dist3(r, r0[i]));
        }
    }
    free(force);
    return ok;
}

static const char scene_fmt[] =
    "{ \"name\": \"rigid_push_%s\", \"dt\": %g, \"duration\": 10,"
    "  \"box\": { \"min\": [-1, -1, -1], \"max\": [1, 1, 1] },"
    "  \"particle_sets\": [ { \"name\": \"b\", \"spacing\": 0.02, \"bodies\": true, \"fill\": [ %s ] } ],"
    "  \"systems\": [ { \"name\": \"push\", \"module\": \"rigid_push\", \"set\": \"b\", \"params\": {"
    "      \"acceleration\": [%.17g, %.17g, %.17g], \"anchor\": [%.17g, %.17g, %.17g], \"frequency\": %.17g } },"
    "    { \"name\": \"rigid\", \"module\": \"rigid\", \"set\": \"b\","
    "      \"params\": { \"gravity\": [0, 0, 0], \"stiffness\": 100 } } ] }";

static int run_case(eddy_engine *e, const push_case *c, result *out)
{
    char json[4096];
    snprintf(json, sizeof json, scene_fmt, c->name, DT, c->fill, c->a[0], c->a[1], c->a[2], c->p[0], c->p[1],
             c->p[2], c->f);
    eddy_scene *s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "rigid_push_test.json",
                                                           .json = json, .no_output = true });
    if (!s)
        return 0;
    eddy_particles set = eddy_find_particles(e, "b");
    uint32_t n = eddy_particles_count(e, set);
    float *pos = malloc(16ull * n), *vel = malloc(16ull * n), *mass = malloc(4ull * n);
    uint32_t *phase = malloc(4ull * n);
    double(*r0)[3] = malloc(sizeof *r0 * n);
    bodies b0 = { 0 }, ref;
    int ok = pos && vel && mass && phase && r0 &&
             eddy_buffer_download(e, eddy_particles_buffer(e, set, "position"), 0, 16ull * n, pos) == EDDY_OK &&
             eddy_buffer_download(e, eddy_particles_buffer(e, set, "velocity"), 0, 16ull * n, vel) == EDDY_OK &&
             eddy_buffer_download(e, eddy_particles_buffer(e, set, "mass"), 0, 4ull * n, mass) == EDDY_OK &&
             eddy_buffer_download(e, eddy_particles_buffer(e, set, "phase"), 0, 4ull * n, phase) == EDDY_OK &&
             body_state(n, pos, vel, mass, phase, &b0);
    for (uint32_t i = 0; ok && i < n; i++)
        for (int a = 0; a < 3; a++)
            r0[i][a] = pos[4 * i + a] - b0.x[phase[i]][a];
    ref = b0;
    *out = (result){ .particles = n, .bodies = b0.count };
    ok = ok && run_steps(e, s, c, n, pos, mass, phase, &ref, (const double(*)[3])r0, out);
    bodies now;
    ok = ok && body_state(n, pos, NULL, mass, phase, &now);
    for (uint32_t k = 0; ok && k < now.count; k++) {
        double x[3], size = exact(c, b0.x[k], b0.v[k], c->steps * DT, x);
        out->exact = fmax(out->exact, dist3(now.x[k], x) / size);
        out->discrete = fmax(out->discrete, dist3(now.x[k], ref.x[k]) / size);
        out->size = k == 0 ? size : fmin(out->size, size);
    }
    free(pos), free(vel), free(mass), free(phase), free(r0);
    eddy_destroy_scene(s);
    return ok;
}

int main(void)
{
    eddy_engine *e = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc) });
    if (!e) {
        printf("skipped: no Vulkan device\n");
        return 77;
    }
    int failed = 0;
    if (eddy_register_builtin_modules(e) != EDDY_OK || eddy_register_module(e, eddy_module_entry()) != EDDY_OK) {
        printf("FAILED: the modules were refused\n");
        failed = 1;
    }
    for (size_t k = 0; !failed && k < sizeof cases / sizeof cases[0]; k++) {
        const push_case *c = &cases[k];
        result r;
        if (!run_case(e, c, &r)) {
            printf("FAILED: %s: the scene was refused or the run did not complete\n", c->name);
            failed = 1;
            break;
        }
        int ok = r.kernel <= 1e-6 && r.exact <= 5e-3 && r.discrete <= 1e-4 && r.rotation <= 1e-5;
        printf("rigid_push test %s: %u bodies, %u particles, %u substeps of %g s: GPU vs CPU reference max |df| "
               "%.3g of max |f| (limit 1e-6), centre of mass vs exact %.3g (limit 5e-3) and vs symplectic Euler "
               "%.3g (limit 1e-4) of the motion's %.3g m, offsets from the centre of mass moved %.3g m (limit 1e-5): %s\n",
               c->name, r.bodies, r.particles, c->steps, DT, r.kernel, r.exact, r.discrete, r.size, r.rotation,
               ok ? "ok" : "FAILED");
        failed |= !ok;
    }
    uint32_t messages = eddy_validation_message_count(e);
    printf("rigid_push test: validation messages %u\n", messages);
    failed |= messages != 0;
    eddy_destroy_engine(e);
    printf("%s\n", failed ? "FAILED" : "ok");
    return failed;
}
