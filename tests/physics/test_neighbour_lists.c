/* Neighbour lists (shaders/neighbours.glsl) give bitwise the results of the
 * cell scans they replace, in every path a list can take:
 *  - pbf: a column released into a tank with a tool in it (tool ghosts),
 *    vorticity confinement and XSPH, 40 steps at dt 4 ms: with the default
 *    list (64 neighbours, skin 0.1 h), without lists, with lists too short
 *    for most particles (12: they scan again), with no skin (every
 *    iteration that moves a particle builds the lists again) and with a
 *    skin that never needs a rebuild (0.5 h, 160 neighbours);
 *  - sph: a released column, 40 steps at dt 0.4 ms, with the default list,
 *    without lists and with lists of 12;
 *  - iisph: the same column under IISPH (whose iterations read sph.density's
 *    lists and sph.iisph_diag's wall-ghost sums), 40 steps at dt 2 ms.
 * Positions and velocities must be equal bit for bit, and the profile must
 * show the list passes exactly where lists are on. */
#include "../gpu/gpu_test.h"

#include <math.h>

enum { STEPS = 40 };

/* Runs the scene and returns its positions and velocities after STEPS
 * steps (8 floats a particle, malloc'd); *lists: the graph has a pass whose
 * label contains `pass`. */
static float *run(eddy_engine *e, const char *json, const char *pass, uint32_t *count, bool *lists)
{
    eddy_scene *s = eddy_load_scene(e, &(eddy_scene_desc){ EDDY_SIZED(eddy_scene_desc), .path = "lists-test", .json = json, .no_output = true,
                                                           .profile = true });
    REQUIRE(s != NULL);
    CHECK(eddy_scene_step(s, STEPS) == EDDY_OK);
    eddy_particles p = eddy_find_particles(e, "water");
    uint32_t n = eddy_particles_count(e, p);
    float *out = malloc(32ull * n);
    REQUIRE(out != NULL);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, p, "position"), 0, 16ull * n, out) == EDDY_OK);
    CHECK(eddy_buffer_download(e, eddy_particles_buffer(e, p, "velocity"), 0, 16ull * n, out + 4ull * n) == EDDY_OK);
    eddy_pass_time t[256];
    int np = eddy_graph_profile(e, eddy_scene_graph(s), t, 256);
    *lists = false;
    for (int i = 0; i < np && i < 256; i++)
        *lists = *lists || strstr(t[i].label, pass) != NULL;
    *count = n;
    eddy_destroy_scene(s);
    return out;
}

static void compare(const char *what, const float *a, const float *b, uint32_t n)
{
    uint32_t differ = 0;
    double worst = 0;
    for (uint64_t i = 0; i < 8ull * n; i++)
        if (memcmp(&a[i], &b[i], 4)) {
            differ++;
            worst = fmax(worst, fabs((double)a[i] - b[i]));
        }
    CHECKF(differ == 0, "%s: %u of %u values differ from the scans' (largest difference %g)", what, differ,
           8 * n, worst);
}

/* Runs `json_format` (a scene with one %s for the params' variants) with
 * each variant and compares every run with the first's. `pass`: the label
 * part of the list pass, which the graph has exactly where lists are on
 * (NULL: the module has no pass of its own for them). */
static void variants(eddy_engine *e, const char *module, const char *json_format, const char *pass,
                     const char *const (*variant)[2], int count)
{
    float *ref = NULL;
    uint32_t n0 = 0;
    for (int v = 0; v < count; v++) {
        char json[2048];
        snprintf(json, sizeof json, json_format, variant[v][0]);
        uint32_t n;
        bool lists;
        float *r = run(e, json, pass ? pass : "(none)", &n, &lists);
        bool off = strstr(variant[v][0], "\"neighbour_list\": 0") != NULL;
        if (pass)
            CHECKF(lists == !off, "%s, %s: the graph %s %s", module, variant[v][1], lists ? "has" : "lacks", pass);
        if (!ref) {
            ref = r, n0 = n;
            continue;
        }
        REQUIRE(n == n0);
        compare(variant[v][1], r, ref, n);
        printf("%s, %s: %u particles after %d steps, bitwise as with the default lists\n", module, variant[v][1], n,
               STEPS);
        free(r);
    }
    free(ref);
}

static void pbf(eddy_engine *e)
{
    static const char *const v[][2] = {
        { "", "default lists" },
        { ", \"neighbour_list\": 0", "no lists" },
        { ", \"neighbour_list\": 12", "lists of 12" },
        { ", \"neighbour_skin\": 0", "no skin" },
        { ", \"neighbour_skin\": 0.5, \"neighbour_list\": 160", "skin 0.5 h" },
    };
    variants(e, "pbf",
             "{ \"dt\": 0.004, \"duration\": 1, \"box\": { \"min\": [0, 0, 0], \"max\": [0.5, 0.4, 0.3] },"
             "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": 0.02,"
             "      \"fill\": { \"shape\": \"box\", \"min\": [0, 0, 0], \"max\": [0.2, 0.3, 0.3] } } ],"
             "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"pbf\", \"set\": \"water\","
             "      \"params\": { \"h\": 0.04, \"iterations\": 3, \"vorticity\": 0.05, \"xsph\": 0.05,"
             "                    \"tool_radius\": 0.05, \"tool_position\": [0.35, 0.08, 0.15] %s } } ] }",
             "pbf.neighbours", v, 5);
}

/* The released column under sph: `dt` and the solver's params (IISPH's
 * iterations read sph.density's lists too). sph's lists live in its
 * density and forces passes: no pass of their own. */
static void sph_column(eddy_engine *e, const char *label, const char *dt, const char *params)
{
    static const char *const v[][2] = {
        { "", "default lists" },
        { ", \"neighbour_list\": 0", "no lists" },
        { ", \"neighbour_list\": 12", "lists of 12" },
    };
    char format[1024];
    snprintf(format, sizeof format,
             "{ \"dt\": %s, \"duration\": 1, \"box\": { \"min\": [0, 0, 0], \"max\": [0.5, 0.4, 0.3] },"
             "  \"particle_sets\": [ { \"name\": \"water\", \"spacing\": 0.02,"
             "      \"fill\": { \"shape\": \"box\", \"min\": [0, 0, 0], \"max\": [0.2, 0.3, 0.3] } } ],"
             "  \"systems\": [ { \"name\": \"fluid\", \"module\": \"sph\", \"set\": \"water\","
             "      \"params\": { \"h\": 0.04, %s %%s } } ] }", dt, params);
    variants(e, label, format, NULL, v, 3);
}

int main(int argc, char **argv)
{
    eddy_engine *e = test_engine();
    if (test_part(argc, argv, 1, "pbf"))
        pbf(e);
    if (test_part(argc, argv, 1, "sph"))
        sph_column(e, "sph", "0.0004", "\"stiffness\": 400, \"viscosity\": 10, \"surface_tension\": 0.07");
    if (test_part(argc, argv, 1, "iisph"))
        sph_column(e, "iisph", "0.002", "\"solver\": 1, \"viscosity\": 10");
    test_finish(e);
    return test_report("neighbour_lists");
}
