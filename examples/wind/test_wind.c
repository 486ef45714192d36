/* The wind module's test: its kernel against its CPU reference
 * (wind_step_cpu) and the exact solution, on a scene of particles with
 * different initial velocities, through the installed eddy's public API
 * only. Exit 0: passed, 1: failed, 77: no Vulkan device (skipped).
 * Run it with EDDY_VALIDATION=sync to have the validation layer watch. */
#include <eddy/eddy_module.h>
#include <eddy/eddy_scene.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* From wind.c, compiled into this program. */
const eddy_module_desc *eddy_module_entry(void);
void wind_step_cpu(const float wind_decay[4], float velocity[4]);

static const char scene_json[] =
    "{ \"name\": \"wind_test\", \"dt\": 0.004, \"substeps\": 2, \"duration\": 1,"
    "  \"box\": { \"min\": [-1, -1, -1], \"max\": [1, 1, 1] },"
    "  \"particle_sets\": [ { \"name\": \"p\", \"spacing\": 0.05,"
    "    \"fill\": [ { \"shape\": \"box\", \"min\": [-0.5, -0.5, -0.5], \"max\": [0, 0, 0], \"velocity\": [1, -2, 3] },"
    "                { \"shape\": \"sphere\", \"center\": [0.3, 0.3, 0.3], \"radius\": 0.2, \"velocity\": [-4, 0.5, 0] } ] } ],"
    "  \"systems\": [ { \"module\": \"wind\", \"set\": \"p\","
    "                   \"params\": { \"velocity\": [-1, 0.5, 2], \"time_constant\": 0.05 } } ] }";

int main(void)
{
    const double w[3] = { -1, 0.5, 2 }, tau = 0.05, dt = 0.002; /* substep */
    const uint32_t steps = 25, substeps = 2;
    eddy_engine *e = eddy_create_engine(&(eddy_engine_desc){ EDDY_SIZED(eddy_engine_desc) });
    if (!e) {
        printf("skipped: no Vulkan device\n");
        return 77;
    }
    int failed = 0;
    eddy_scene *s = NULL;
    float *v0 = NULL, *v = NULL;
    if (eddy_register_module(e, eddy_module_entry()) != EDDY_OK ||
        !(s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "wind_test.json", .json = scene_json, .no_output = true }))) {
        printf("FAILED: the module or the scene was refused\n");
        eddy_destroy_engine(e);
        return 1;
    }
    eddy_particles p = eddy_find_particles(e, "p");
    uint32_t n = eddy_particles_count(e, p);
    eddy_buffer vel = eddy_particles_buffer(e, p, "velocity");
    v0 = malloc((size_t)n * 16);
    v = malloc((size_t)n * 16);
    if (!v0 || !v || eddy_buffer_download(e, vel, 0, (uint64_t)n * 16, v0) != EDDY_OK ||
        eddy_scene_step(s, steps) != EDDY_OK || eddy_buffer_download(e, vel, 0, (uint64_t)n * 16, v) != EDDY_OK) {
        printf("FAILED: the run did not complete\n");
        failed = 1;
    } else {
        /* The CPU reference, substep by substep, with the module's push constants. */
        const float wind_decay[4] = { (float)w[0], (float)w[1], (float)w[2], (float)exp(-dt / tau) };
        double worst_ref = 0, worst_exact = 0;
        double t = steps * substeps * dt;
        for (uint32_t i = 0; i < n; i++) {
            float ref[4] = { v0[4 * i], v0[4 * i + 1], v0[4 * i + 2], v0[4 * i + 3] };
            for (uint32_t k = 0; k < steps * substeps; k++)
                wind_step_cpu(wind_decay, ref);
            double d_ref = 0, d_exact = 0, norm = 0;
            for (int a = 0; a < 3; a++) {
                double exact = w[a] + (v0[4 * i + a] - w[a]) * exp(-t / tau);
                d_ref = fmax(d_ref, fabs(v[4 * i + a] - ref[a]));
                d_exact += (v[4 * i + a] - exact) * (v[4 * i + a] - exact);
                norm += exact * exact;
            }
            worst_ref = fmax(worst_ref, d_ref);
            worst_exact = fmax(worst_exact, sqrt(d_exact / norm));
        }
        uint32_t messages = eddy_validation_message_count(e);
        printf("wind test: %u particles, %u substeps of %g s: GPU vs CPU reference max |dv| %.3g m/s (limit 1e-5), "
               "vs exact solution relative %.3g (limit 1e-4), validation messages %u\n",
               n, steps * substeps, dt, worst_ref, worst_exact, messages);
        failed = !(worst_ref <= 1e-5 && worst_exact <= 1e-4 && messages == 0 && n > 100);
    }
    free(v0);
    free(v);
    eddy_destroy_scene(s);
    eddy_destroy_engine(e);
    printf("%s\n", failed ? "FAILED" : "ok");
    return failed;
}
