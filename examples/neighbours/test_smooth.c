/* The smooth module's test, through the installed eddy's public API only:
 * a jittered block of 1,728 particles with pseudo-random velocities and
 * masses (uploaded after the scene is loaded), smoothed for 40 substeps with
 * nothing else moving them. Each substep's GPU result is compared with the
 * brute-force CPU reference (smooth_step_cpu) run on the same input; then
 * the physics: the total momentum is conserved, and the mass-weighted
 * velocity spread about the mean falls at every substep and to under half.
 * Exit 0: passed, 1: failed, 77: no Vulkan device (skipped). meson test runs
 * it with EDDY_VALIDATION=sync; any validation message fails it. */
#include <eddy/eddy_module.h>
#include <eddy/eddy_scene.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* From smooth.c, compiled into this program. */
const eddy_module_desc *eddy_module_entry(void);
void smooth_step_cpu(float h, float c, uint32_t n, const float *position, const float *velocity, const float *mass,
                     float *out);

static const char scene_json[] =
    "{ \"name\": \"smooth_test\", \"dt\": 0.005, \"duration\": 1,"
    "  \"box\": { \"min\": [-0.5, -0.5, -0.5], \"max\": [0.5, 0.5, 0.5] },"
    "  \"particle_sets\": [ { \"name\": \"p\", \"spacing\": 0.05,"
    "    \"fill\": { \"shape\": \"box\", \"min\": [-0.3, -0.3, -0.3], \"max\": [0.3, 0.3, 0.3], \"jitter\": 0.6 } } ],"
    "  \"systems\": [ { \"module\": \"smooth\", \"set\": \"p\","
    "                   \"params\": { \"radius\": 0.1, \"rate\": 20 } } ] }";

/* A fixed pseudo-random sequence in [0, 1): the same data every run. */
static double next_uniform(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

/* Total momentum (kg m/s) and the mass-weighted spread sqrt(sum m |v - V|^2 /
 * sum m) about the mean velocity V (m/s); *scale = sum m |v|. */
static double momentum(uint32_t n, const float *v, const float *m, double p[3], double *scale)
{
    double mass = 0, sq = 0;
    p[0] = p[1] = p[2] = 0;
    *scale = 0;
    for (uint32_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++)
            p[a] += (double)m[i] * v[4 * i + a];
        *scale += m[i] * sqrt((double)v[4 * i] * v[4 * i] + (double)v[4 * i + 1] * v[4 * i + 1] +
                              (double)v[4 * i + 2] * v[4 * i + 2]);
        mass += m[i];
    }
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) {
            double d = v[4 * i + a] - p[a] / mass;
            sq += m[i] * d * d;
        }
    return sqrt(sq / mass);
}

typedef struct run {
    double worst_ref;    /* m/s: GPU vs CPU reference, worst component of any substep */
    double momentum_err; /* |P_end - P_0| / sum m |v_0| */
    double spread0, spread;
    int monotone;        /* the spread fell at every substep */
} run;

static int smooth_run(eddy_engine *e, eddy_scene *s, uint32_t n, uint32_t substeps, run *out)
{
    const float h = 0.1f, c = (float)(20 * 0.005);
    eddy_particles p = eddy_find_particles(e, "p");
    eddy_buffer pos_b = eddy_particles_buffer(e, p, "position"), vel_b = eddy_particles_buffer(e, p, "velocity");
    eddy_buffer mass_b = eddy_particles_buffer(e, p, "mass");
    float *pos = malloc(16ull * n), *v0 = malloc(16ull * n), *v = malloc(16ull * n), *ref = malloc(16ull * n);
    float *m = malloc(4ull * n);
    int ok = pos && v0 && v && ref && m;
    uint64_t rng = 12345;
    /* Velocities: a drift of (0.5, -0.2, 0.1) m/s plus noise of +-1 m/s;
     * masses 0.5..1.5 of the set's, so the pair weights are not all 1. */
    if (ok)
        ok = eddy_buffer_download(e, mass_b, 0, 4ull * n, m) == EDDY_OK;
    for (uint32_t i = 0; ok && i < n; i++) {
        const float drift[3] = { 0.5f, -0.2f, 0.1f };
        for (int a = 0; a < 3; a++)
            v[4 * i + a] = drift[a] + (float)(2 * next_uniform(&rng) - 1);
        v[4 * i + 3] = 0.0f;
        m[i] *= (float)(0.5 + next_uniform(&rng));
    }
    ok = ok && eddy_buffer_upload(e, vel_b, 0, 16ull * n, v) == EDDY_OK &&
         eddy_buffer_upload(e, mass_b, 0, 4ull * n, m) == EDDY_OK &&
         eddy_buffer_download(e, pos_b, 0, 16ull * n, pos) == EDDY_OK;
    double p0[3], p1[3], scale0, scale1;
    out->spread0 = out->spread = ok ? momentum(n, v, m, p0, &scale0) : 0;
    out->monotone = 1;
    out->worst_ref = 0;
    for (uint32_t k = 0; ok && k < substeps; k++) {
        float *t = v0;
        v0 = v, v = t;
        ok = eddy_scene_step(s, 1) == EDDY_OK && eddy_buffer_download(e, vel_b, 0, 16ull * n, v) == EDDY_OK;
        if (!ok)
            break;
        smooth_step_cpu(h, c, n, pos, v0, m, ref);
        for (uint32_t i = 0; i < 4 * n; i++)
            out->worst_ref = fmax(out->worst_ref, fabs((double)v[i] - ref[i]));
        double spread = momentum(n, v, m, p1, &scale1);
        out->monotone &= spread < out->spread;
        out->spread = spread;
    }
    if (ok)
        out->momentum_err = sqrt((p1[0] - p0[0]) * (p1[0] - p0[0]) + (p1[1] - p0[1]) * (p1[1] - p0[1]) +
                                 (p1[2] - p0[2]) * (p1[2] - p0[2])) / scale0;
    free(pos), free(v0), free(v), free(ref), free(m);
    return ok;
}

int main(void)
{
    const uint32_t substeps = 40;
    eddy_engine *e = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc) });
    if (!e) {
        printf("skipped: no Vulkan device\n");
        return 77;
    }
    eddy_scene *s = NULL;
    if (eddy_register_module(e, eddy_module_entry()) != EDDY_OK ||
        !(s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "smooth_test.json",
                                                     .json = scene_json, .no_output = true }))) {
        printf("FAILED: the module or the scene was refused\n");
        eddy_destroy_engine(e);
        return 1;
    }
    uint32_t n = eddy_particles_count(e, eddy_find_particles(e, "p"));
    run r = { 0 };
    int failed = 1;
    if (!smooth_run(e, s, n, substeps, &r)) {
        printf("FAILED: the run did not complete\n");
    } else {
        uint32_t messages = eddy_validation_message_count(e);
        printf("smooth test: %u particles, %u substeps: GPU vs CPU reference max |dv| %.3g m/s (limit 2e-6), "
               "momentum drift %.3g of sum m|v| (limit 1e-6), spread %.4g -> %.4g m/s (falls every substep: %s; "
               "limit half), validation messages %u\n",
               n, substeps, r.worst_ref, r.momentum_err, r.spread0, r.spread, r.monotone ? "yes" : "no", messages);
        failed = !(r.worst_ref <= 2e-6 && r.momentum_err <= 1e-6 && r.monotone && r.spread <= 0.5 * r.spread0 &&
                   messages == 0 && n > 1000);
    }
    eddy_destroy_scene(s);
    eddy_destroy_engine(e);
    printf("%s\n", failed ? "FAILED" : "ok");
    return failed;
}
