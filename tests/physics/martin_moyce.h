/* Martin and Moyce's (1952) collapse of a square water column (n^2 = 1), a
 * check the fluid modules' tests share: a column of a = 0.1 m, 16
 * particles across and 8 thick between the walls of a slab, released in a
 * 0.7 m box. The front (the farthest particle's x plus half a spacing),
 * sampled every millisecond and interpolated at the table's times (T = t
 * sqrt(g / a)), must be within 2.5% of their table
 * (data/validation/martin_moyce_1952.csv) on average over T <= 3; the
 * kinetic energy never above 1.02 times the potential energy released
 * (within 1e-4 M g a) where asked; no particle outside the box at the end
 * of a step. */
#ifndef EDDY_TEST_MARTIN_MOYCE_H
#define EDDY_TEST_MARTIN_MOYCE_H

#include "../gpu/gpu_test.h"
#include "validation_csv.h"

#include <math.h>

#define MM_A 0.1              /* column width and height (m) */
#define MM_S (MM_A / 16)      /* particle spacing (m) */

/* The scene: `module` with its `params` (a JSON object's members) on the
 * set "water" at substep dt. */
static void martin_moyce_json(char *json, size_t size, double dt, const char *module, const char *params)
{
    snprintf(json, size,
             "{ \"dt\": %g, \"duration\": 1, \"box\": { \"min\": [0, 0, 0], \"max\": [0.7, 0.15, %.17g] },"
             "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": %.17g,"
             "      \"fill\": { \"shape\": \"box\", \"min\": [0, 0, 0], \"max\": [%g, %g, %.17g] } } ],"
             "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"%s\", \"set\": \"water\","
             "      \"params\": { %s } } ] }",
             dt, 8 * MM_S, MM_S, MM_A, MM_A, 8 * MM_S, module, params);
}

/* energy: check the kinetic energy bound (false: print it only; PBF's
 * unclamped density constraint pulls the free surface in at the first step,
 * a kick of about 0.009 J against 1e-4 J released, the paper's model). */
static void martin_moyce_check(eddy_engine *e, const char *root, const char *json, double dt, const char *label,
                               const char *check, bool energy)
{
    const double a = MM_A, g = 9.81, s = MM_S;
    char path[4096];
    snprintf(path, sizeof path, "%s/data/validation/martin_moyce_1952.csv", root);
    FILE *f = fopen(path, "r");
    REQUIRE(f != NULL);
    double T[64], Z[64];
    int rows = 0;
    char line[256];
    while (fgets(line, sizeof line, f) && rows < 64)
        if (line[0] != '#' && sscanf(line, "%lf,%lf", &T[rows], &Z[rows]) == 2 && T[rows] <= 3.0)
            rows++;
    fclose(f);
    REQUIRE(rows >= 10);
    eddy_scene *sc = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "martin-moyce", .json = json, .no_output = true });
    REQUIRE(sc != NULL);
    eddy_particles p = eddy_find_particles(e, "water");
    uint32_t n = eddy_particles_count(e, p);
    REQUIRE(n == 16 * 16 * 8);
    float *pos = malloc(16ull * n), *vel = malloc(16ull * n), *mass = malloc(4ull * n);
    REQUIRE(pos && vel && mass);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, p, "mass"), 0, 4ull * n, mass) == EDDY_OK);
    double M = 0, y0 = 0;
    for (uint32_t i = 0; i < n; i++)
        M += mass[i];
    const int EVERY = (int)lround(0.001 / dt); /* a sample every millisecond */
    const double t_end = 3.0 / sqrt(g / a);
    int samples = (int)ceil(t_end / (EVERY * dt)) + 1;
    double *front = malloc(sizeof(double) * (size_t)samples);
    REQUIRE(front);
    double worst_energy = 0, worst_out = 0, worst_t = 0, ke_at = 0, released_at = 0;
    for (int k = 0; k < samples; k++) {
        if (k)
            CHECK(eddy_scene_step(sc, EVERY) == EDDY_OK);
        CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, p, "position"), 0, 16ull * n, pos) == EDDY_OK);
        CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, p, "velocity"), 0, 16ull * n, vel) == EDDY_OK);
        double xmax = -1, ke = 0, my = 0;
        for (uint32_t i = 0; i < n; i++) {
            const float *x = pos + 4 * i, *v = vel + 4 * i;
            xmax = fmax(xmax, x[0]);
            ke += 0.5 * mass[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            my += mass[i] * x[1];
            for (int c = 0; c < 3; c++) {
                double hi = c == 0 ? 0.7f : c == 1 ? 0.15f : (float)(8 * s); /* the box as the scene holds it */
                worst_out = fmax(worst_out, fmax(-x[c], x[c] - hi));
                CHECKF(isfinite(x[c]), "particle %u non-finite at step %d", i, k * EVERY);
            }
        }
        if (k == 0)
            y0 = my / M;
        double released = M * g * (y0 - my / M);
        if (ke - 1.02 * released > worst_energy)
            worst_energy = ke - 1.02 * released, worst_t = k * EVERY * dt, ke_at = ke, released_at = released;
        front[k] = xmax + s / 2;
    }
    double sum = 0;
    char comment[512];
    snprintf(comment, sizeof comment, "dam break (%s, 16 particles across, dt %g s): the surge front Z = x / a against "
             "T = t sqrt(g / a); reference: Martin and Moyce 1952, n^2 = 1 (data/validation/martin_moyce_1952.csv)",
             label, dt);
    validation_csv csv = validation_csv_open(check, comment, "T,Z_martin_moyce,Z_eddy");
    printf("dam break (Martin and Moyce 1952, n^2 = 1): T, Z measured, Z simulated\n");
    for (int r = 0; r < rows; r++) {
        double t = T[r] / sqrt(g / a), u = t / (EVERY * dt);
        int k = (int)floor(u);
        REQUIRE(k + 1 < samples);
        double z = (front[k] + (u - k) * (front[k + 1] - front[k])) / a;
        sum += fabs(z - Z[r]) / Z[r];
        printf("  %.2f %.2f %.3f\n", T[r], Z[r], z);
        if (csv.f)
            fprintf(csv.f, "%.3f,%.3f,%.4f\n", T[r], Z[r], z);
    }
    validation_csv_close(&csv);
    double mean = sum / rows;
    printf("dam break (%s): %u particles (16 across), dt %g s, %d rows with T <= 3: mean relative error %.2f%% (bound "
           "2.5%%); kinetic energy above 1.02 x the released potential energy by at most %.3g J (bound %.3g J; at "
           "t = %.3f s: %.4g J of %.4g J released); farthest outside the box %.3g m\n",
           label, n, dt, rows, 100 * mean, worst_energy, 1e-4 * M * g * a, worst_t, ke_at, released_at, worst_out);
    CHECKF(mean < 0.025, "front %.2f%% from Martin and Moyce on average (bound 2.5%%)", 100 * mean);
    CHECKF(!energy || worst_energy <= 1e-4 * M * g * a, "kinetic energy exceeded 1.02 x the released potential energy by %g J "
           "(bound 1e-4 M g a = %g J)", worst_energy, 1e-4 * M * g * a);
    CHECKF(worst_out <= 0, "a particle %g m outside the box", worst_out);
    free(front), free(pos), free(vel), free(mass);
    eddy_destroy_scene(sc);
}

#endif
