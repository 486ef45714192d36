/* What the coupling tests share (test_couple.c, test_couple_float.c):
 * loading a scene, reading buffers, a body's state, the tanks with a cube
 * of boundary particles, the fluid's mean force on a set and the water
 * line. */
#ifndef EDDY_TEST_COUPLE_TANK_H
#define EDDY_TEST_COUPLE_TANK_H

#include "../gpu/gpu_test.h"
#include "rigid/rigid_params.h"
#include "sph_kernels.h"

#include <math.h>
#include <string.h>

static inline eddy_scene *load(eddy_engine *e, const char *json)
{
    eddy_scene *s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "couple-test", .json = json, .no_output = true });
    REQUIRE(s != NULL);
    return s;
}

static inline float *download(eddy_engine *e, eddy_particles p, const char *name, uint32_t floats)
{
    uint32_t n = eddy_particles_count(e, p);
    float *out = malloc(4ull * floats * n + 16);
    REQUIRE(out != NULL);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, p, name), 0, 4ull * floats * n, out) == EDDY_OK);
    return out;
}

static inline void body_state(eddy_engine *e, eddy_particles b, struct eddy_rigid_body *out)
{
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, b, "rigid.body"), 0, sizeof *out, out) == EDDY_OK);
}

/* A tank of water with a cube of particles at mid depth in a hole of the
 * water: t->cells particles of spacing d across the cube, the hole `gap`
 * wider on each side. cube: extra keys of the cube's set; fluid: the fluid
 * system's module and its extra parameters; systems: extra systems. */
typedef struct tank {
    double d, W, H, gap, dt;
    int cells, substeps;
    double water_mass; /* kg a fluid particle; 0: the fill's default, 1000 kg/m^3 d^3 */
} tank;
static const tank pbf_tank = { 0.0125, 0.25, 0.2, 0.00625, 0.002, 4, 2, 0 };  /* 5,750 particles */
static const tank sph_tank = { 0.02, 0.32, 0.24, 0.01, 0.0005, 4, 1, 0 };     /* 2,586 particles */

static inline void tank_json(char *json, size_t size, const tank *t, const char *cube, const char *module,
                      const char *fluid, const char *systems)
{
    const double d = t->d, W = t->W, H = t->H, y0 = H / 2, half = t->cells * d / 2, c = W / 2,
                 g = half + t->gap;
    char water_mass[48] = "";
    if (t->water_mass > 0)
        snprintf(water_mass, sizeof water_mass, "\"mass\": %.9g,", t->water_mass);
    snprintf(json, size,
             "{ \"dt\": %g, \"substeps\": %d, \"duration\": 10, \"box\": { \"min\": [0, 0, 0], \"max\": [%g, %g, %g] },"
             "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": %g, %s \"fill\": "
             "[ { \"shape\": \"box\", \"min\": [0, 0, 0], \"max\": [%g, %g, %g] },"
             "  { \"shape\": \"box\", \"min\": [0, %g, 0], \"max\": [%g, %g, %g] },"
             "  { \"shape\": \"box\", \"min\": [0, %g, 0], \"max\": [%g, %g, %g] },"
             "  { \"shape\": \"box\", \"min\": [%g, %g, 0], \"max\": [%g, %g, %g] },"
             "  { \"shape\": \"box\", \"min\": [%g, %g, 0], \"max\": [%g, %g, %g] },"
             "  { \"shape\": \"box\", \"min\": [%g, %g, %g], \"max\": [%g, %g, %g] } ] },"
             "    { \"name\": \"cube\", \"spacing\": %g, %s \"fill\": { \"shape\": \"box\","
             "      \"min\": [%g, %g, %g], \"max\": [%g, %g, %g] } } ],"
             "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"%s\", \"sets\": { \"fluid\": \"water\", \"boundary\": \"cube\" },"
             "      \"params\": { \"h\": %g %s } } %s ] }",
             t->dt * t->substeps, t->substeps, W, 2 * H, W, d, water_mass,
             W, y0 - g, W,                                   /* below the hole */
             y0 + g, W, H, W,                                /* above */
             y0 - g, c - g, y0 + g, W,                       /* x < hole */
             c + g, y0 - g, W, y0 + g, W,                    /* x > hole */
             c - g, y0 - g, c + g, y0 + g, c - g,            /* z < hole */
             c - g, y0 - g, c + g, c + g, y0 + g, W,         /* z > hole */
             d, cube, c - half, y0 - half, c - half, c + half, y0 + half, c + half, module, 2 * d, fluid,
             systems);
}

/* `steps` steps of the scene: the mean over the second half of the fluid's
 * force on the boundary set b (N, summed over its particles). */
static inline void mean_force(eddy_engine *e, eddy_scene *s, eddy_particles b, uint32_t steps, double out[3])
{
    uint32_t nb = eddy_particles_count(e, b);
    const uint32_t from = steps / 2;
    out[0] = out[1] = out[2] = 0;
    for (uint32_t step = 0; step < steps; step++) {
        CHECK(eddy_scene_step(s, 1) == EDDY_OK);
        if (step < from)
            continue;
        float *f = download(e, b, "rigid.external.0", 4);
        for (uint32_t i = 0; i < nb; i++)
            for (int a = 0; a < 3; a++)
                out[a] += f[4 * i + a];
        free(f);
    }
    for (int a = 0; a < 3; a++)
        out[a] /= steps - from;
}

/* The water's level away from the cube: per column of the spacing d more
 * than 2d beyond the cube's side (its half width from its centre), the top
 * particle's centre plus d / 2. (Columns over a floating cube of 6 read its
 * bottom: the exclusion was 2d from the centre, under its half width.) */
static inline double water_level(eddy_engine *e, const tank *t, const float *centre)
{
    const double d = t->d;
    enum { M = 64 };
    const int N = (int)lround(t->W / d); /* columns across */
    const double ex = t->cells * d / 2 + 2 * d; /* the cube's half width and a kernel radius */
    REQUIRE(N <= M);
    eddy_particles w = eddy_find_particles(e, "water");
    uint32_t n = eddy_particles_count(e, w);
    float *x = download(e, w, "position", 4);
    static double top[M][M];
    double sum = 0;
    memset(top, 0, sizeof top);
    int count = 0;
    for (uint32_t i = 0; i < n; i++) {
        int a = (int)(x[4 * i] / d), c = (int)(x[4 * i + 2] / d);
        if (a >= 0 && a < N && c >= 0 && c < N)
            top[a][c] = fmax(top[a][c], x[4 * i + 1]);
    }
    for (int a = 0; a < N; a++)
        for (int c = 0; c < N; c++)
            if (fabs((a + 0.5) * d - centre[0]) > ex || fabs((c + 0.5) * d - centre[2]) > ex)
                sum += top[a][c], count++;
    free(x);
    return sum / count + d / 2;
}

/* The pbf fluid for floating bodies (modules/pbf/README.md, Floating
 * bodies): the unilateral constraint, no tensile term. */
#define PBF_FLOATING "\"unilateral\": true, \"tensile_k\": 0"

/* The water line as the fluid's free surface: the height where the colour
 * c(x) = sum_j d^3 W_poly6(x - x_j, h) (each particle's share of space at
 * rest, smoothed by the fluids' kernel, h = 2d) falls to half its value
 * deep in the same column, found by bisection on columns of the spacing d
 * more than h beyond the cube's side, and averaged. A half-space of
 * uniform fluid has c at half its bulk value exactly at its boundary (d/2
 * above a lattice's top centres); where a fluid packs its top layer tighter
 * than the bulk (WCSPH pulls it in by 0.35 d, PBF by 0.27 d) the line
 * follows the mass, where the top particles' level does not. */
static inline double colour(const float *x, const uint32_t *near, uint32_t m, double px, double y, double pz, double d)
{
    double c = 0;
    for (uint32_t k = 0; k < m; k++) {
        const float *q = x + 4 * near[k];
        double r2 = (q[0] - px) * (q[0] - px) + (q[1] - y) * (q[1] - y) + (q[2] - pz) * (q[2] - pz);
        c += d * d * d * eddy_w_poly6((float)r2, (float)(2 * d));
    }
    return c;
}

static inline double iso_level(eddy_engine *e, const tank *t, const float *centre)
{
    const double d = t->d, h = 2 * d;
    eddy_particles w = eddy_find_particles(e, "water");
    uint32_t n = eddy_particles_count(e, w), *near = malloc(4ull * n);
    float *x = download(e, w, "position", 4);
    REQUIRE(near);
    const int N = (int)lround(t->W / d);
    /* the cube's half diagonal (it may turn) and a kernel radius */
    const double ex = t->cells * d * sqrt(3) / 2 + h;
    double sum = 0;
    int count = 0;
    for (int a = 0; a < N; a++)
        for (int c = 0; c < N; c++) {
            double px = (a + 0.5) * d, pz = (c + 0.5) * d;
            if (fabs(px - centre[0]) <= ex && fabs(pz - centre[2]) <= ex)
                continue;
            uint32_t m = 0;
            for (uint32_t i = 0; i < n; i++)
                if ((x[4 * i] - px) * (x[4 * i] - px) + (x[4 * i + 2] - pz) * (x[4 * i + 2] - pz) < h * h)
                    near[m++] = i;
            double bulk = colour(x, near, m, px, 0.25 * t->H, pz, d), lo = 0.25 * t->H, hi = 2 * t->H;
            for (int it = 0; it < 40; it++) {
                double mid = 0.5 * (lo + hi);
                if (colour(x, near, m, px, mid, pz, d) > 0.5 * bulk)
                    lo = mid;
                else
                    hi = mid;
            }
            sum += 0.5 * (lo + hi);
            count++;
        }
    free(x), free(near);
    return sum / count;
}

#endif
